"""What the Judge client (eval/judge_client.py, the card's name) stands on and what reads its
verdicts: the SQLite cache (`cache`), prices and costs (`cost`), the model-name check
(`models`), health (`health`), a run's calibration file (`calibration`), self-judging
(`self_judging`), the fenced blocks for untrusted text in a prompt (`untrusted`)."""
