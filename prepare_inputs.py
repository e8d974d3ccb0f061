"""Export the model inputs: one `{case_id, messages}` row per instance, never the reference.

    python prepare_inputs.py --output outputs/model_inputs.jsonl [--data FILE | --dataset [NAME]] [--limit N]

Installed, the same command is `insttrans-prepare` (eval/run/commands.py).
"""

from __future__ import annotations

import sys

from eval.run.cli import benchmark_and_source, prepare_parser
from eval.exits import run_cli
from eval.run.pipeline import export_model_inputs
from eval.prediction.batch import prepare_settings


def main(argv: list[str] | None = None) -> int:
    args = prepare_parser().parse_args(argv)
    benchmark, source = benchmark_and_source(args)
    return export_model_inputs(benchmark, source, args.limit, args.output,
                               prepare_settings(args.format, vars(args)))


if __name__ == "__main__":
    sys.exit(run_cli(main))
