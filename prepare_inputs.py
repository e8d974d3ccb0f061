"""Export the model inputs: one `{case_id, messages}` row per instance, never the reference.

    python prepare_inputs.py --output outputs/model_inputs.jsonl [--data FILE | --dataset [NAME]] [--limit N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eval.cli import add_data_arguments, load_data, run_cli
from eval.report import jsonl_line, write_atomic
from eval.sandglass import add_benchmark_argument, prepare_sandglass, resolve_benchmark


def model_input(row: dict) -> dict:
    """The only things a model may see: the id (to match its answer) and the prompt as a chat turn."""
    return {"case_id": row["case_id"], "messages": [{"role": "user", "content": row["prompt"]}]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Export InstTrans-Bench model inputs (case_id + chat messages).")
    parser.add_argument("--output", type=Path, required=True, help="JSONL file to write")
    add_data_arguments(parser)
    add_benchmark_argument(parser)
    args = parser.parse_args(argv)
    if resolve_benchmark(args) == "sandglass":
        return prepare_sandglass(args)
    data = load_data(args)
    rows = data.rows[: args.limit] if args.limit else data.rows
    write_atomic(args.output, "".join(jsonl_line(model_input(row)) for row in rows))
    print(f"wrote {len(rows)} model inputs to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
