"""One run of evaluate.py and prepare_inputs.py, stage by stage (docs/architecture.md): the flags
and RunConfig built once (`cli`), the pipeline, the data's identity among the known sets
(`known_data`), the Judge phase's Batch and estimate modes (`judge_batch`, `judge_estimate`),
the signature (`provenance`), and the entry points that call it (`commands`, `api`)."""
