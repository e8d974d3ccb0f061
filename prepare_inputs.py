"""Export the model inputs: one `{case_id, messages}` row per instance, never the reference.

    python prepare_inputs.py --output outputs/model_inputs.jsonl [--data FILE | --dataset [NAME]] [--limit N]

Installed, the same command is `insttrans-prepare` (eval/commands.py).
"""

from __future__ import annotations

import sys

from eval.cli import benchmark_and_source, prepare_parser, run_cli
from eval.predict_batch import export_inputs


def main(argv: list[str] | None = None) -> int:
    args = prepare_parser().parse_args(argv)
    benchmark, source = benchmark_and_source(args)
    return export_inputs(benchmark, source, args)


if __name__ == "__main__":
    sys.exit(run_cli(main))
