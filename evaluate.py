"""Score a predictions file: hard rules, the LLM Judge, IF_Score and quality (or, for Sandglass-Bench
data, the syllable-budget metrics).

    python evaluate.py --predictions P --output-dir O [--skip-judge] [--limit N] [--data FILE | --dataset [NAME]]

Writes O/scores.jsonl, O/summary.json, O/report.md and O/report.html (and the Judge cache), all at
once or not at all; exits 2 on bad input, 3 when the Judge aborts, 130 on Ctrl-C, 128 + N on a
SIGTERM or SIGHUP. The command lives in eval/cli.py (installed as `insttrans-eval`).
"""

from __future__ import annotations

import sys

from eval.cli import evaluate_main as main
from eval.cli import evaluate_parser, run_cli

__all__ = ["evaluate_parser", "main"]

if __name__ == "__main__":
    sys.exit(run_cli(main))
