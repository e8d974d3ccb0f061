"""Ask an OpenAI-compatible server for the predictions (docs/predict.md): resumable, with provenance.

    MODEL_API_BASE=http://127.0.0.1:8000/v1 MODEL_API_KEY=... \\
    python predict.py --inputs outputs/model_inputs.jsonl --output outputs/predictions.jsonl --model NAME

The command lives in eval/prediction/command.py (installed as `insttrans-predict`).
"""

from __future__ import annotations

import sys

from eval.exits import run_cli
from eval.prediction.command import build_parser, main

__all__ = ["build_parser", "main"]

if __name__ == "__main__":
    sys.exit(run_cli(main))
