"""Score a predictions file of InstTrans-Bench (hard rules, the LLM Judge, IF_Score and quality),
Sandglass-Bench (the syllable-budget metrics) or IFMTBench (rules and Judge per instruction).

    python evaluate.py --predictions P --output-dir O [--skip-judge] [--limit N] [--data FILE | --dataset [NAME]]

Writes O/scores.jsonl, O/summary.json, O/report.md, O/report.html and O/explorer.html (and the
Judge cache), all at once or not at all; exits 2 on bad input, 3 when the Judge aborts, 130 on Ctrl-C, 128 + N on a
SIGTERM or SIGHUP. Installed, the same command is `insttrans-eval` (eval/run/commands.py).
"""

from __future__ import annotations

import sys

from eval.run.cli import evaluate_parser, paused_collector, run_config_from_args
from eval.exits import run_cli
from eval.run.pipeline import run_evaluation


def main(argv: list[str] | None = None) -> int:
    config = run_config_from_args(evaluate_parser().parse_args(argv))
    with paused_collector():
        return run_evaluation(config, settle=argv is None).exit_status  # None: the script's own process


if __name__ == "__main__":
    sys.exit(run_cli(main))
