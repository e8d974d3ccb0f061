"""Export the model inputs: one `{case_id, messages}` row per instance, never the reference.

    python prepare_inputs.py --output outputs/model_inputs.jsonl [--data FILE | --dataset [NAME]] [--limit N]

The command lives in eval/cli.py (installed as `insttrans-prepare`).
"""

from __future__ import annotations

import sys

from eval.cli import prepare_main as main
from eval.cli import prepare_parser, run_cli

__all__ = ["prepare_parser", "main"]

if __name__ == "__main__":
    sys.exit(run_cli(main))
