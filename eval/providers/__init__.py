"""Talking to an OpenAI-compatible server, for the Judge and predict.py alike: the protocol
(`openai_api`), run-wide provider health (`health`), keys kept out of every text (`redaction`),
the Batch API's line formats (`batch_files`)."""
