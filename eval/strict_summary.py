"""The strict rates beside the original's (SPEC §7b), which live in eval/insttrans/strict_summary.py;
`from eval.strict_summary import …` keeps working."""

from eval.insttrans.strict_summary import *  # noqa: F401,F403
