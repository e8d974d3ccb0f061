"""Score a predictions file: hard rules, the LLM Judge, IF_Score and quality (or, for Sandglass-Bench
data, the syllable-budget metrics).

    python evaluate.py --predictions P --output-dir O [--skip-judge] [--limit N] [--data FILE | --dataset [NAME]]

Writes O/scores.jsonl, O/summary.json, O/report.md and O/report.html (and the Judge cache), all at
once or not at all; exits 2 on bad input, 3 when the Judge aborts, 130 on Ctrl-C, 128 + N on a
SIGTERM or SIGHUP.
"""

from __future__ import annotations

import sys

from eval.cli import evaluate_parser, run_cli, run_config_from_args
from eval.pipeline import run_evaluation


def main(argv: list[str] | None = None) -> int:
    return run_evaluation(run_config_from_args(evaluate_parser().parse_args(argv)))


if __name__ == "__main__":
    sys.exit(run_cli(main))
