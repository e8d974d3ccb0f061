"""The Judge's default settings and the reasoning efforts it accepts: what the command line needs
to describe the Judge flags, without importing the Judge client (asyncio, the provider, the cache)
on the offline path. eval/judge_client.py re-exports them; the why of each value is there."""

DEFAULT_CONCURRENCY = 16
DEFAULT_MAX_RETRIES = 6
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_DEADLINE_S = 30.0  # how long the provider may stay down before the run aborts (docs/judge-faults.md)
DEFAULT_BACKOFF_S = 1.0
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
