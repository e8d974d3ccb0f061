"""Print the documented Sandglass numbers of the bundled example predictions, from real runs.

    python -m scripts.sandglass_example_numbers

Runs `evaluate.py` on data/sandglass/test.jsonl twice in a temporary directory: once with
--skip-judge (the syllable table), once against the scripted local Judge of the tests
(tests/judge_server.py: quality 1 for every prediction without a score marker). The docs quote
this output, so their numbers come from a run, never from hand edits.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from eval.run.cli import evaluate_parser, run_config_from_args
from eval.run.pipeline import run_evaluation
from tests.judge_server import JudgeServer

ROOT = Path(__file__).resolve().parent.parent

PREDICTIONS = ROOT / "data" / "sandglass" / "example_predictions.jsonl"
COLUMNS = (("n", "n"), ("mean\\|dev\\|", "mean_abs_dev"), ("±1", "pm1"), ("dev≤5%", "dev_le_5"),
           ("dev≤10%", "dev_le_10"), ("dev≤20%", "dev_le_20"), ("syllable_reward", "syllable_reward"),
           ("slope", "slope"))


def cell(key: str, value) -> str:
    if value is None:
        return "n/a"
    if key == "n":
        return str(value)
    if key in ("pm1", "dev_le_5", "dev_le_10", "dev_le_20"):
        return f"{100 * value:.1f}%"
    return f"{value:.4f}"


def run(out: Path, *extra: str) -> dict:
    arguments = ["--benchmark", "sandglass", "--predictions", str(PREDICTIONS), "--output-dir", str(out), "--quiet",
                 *extra]
    status = run_evaluation(run_config_from_args(evaluate_parser().parse_args(arguments))).exit_status
    if status:
        raise SystemExit(f"evaluate.py exited {status}")
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        summary = run(Path(tmp) / "skip", "--skip-judge")
        print("| group | " + " | ".join(title for title, _ in COLUMNS) + " |")
        print("|---|" + "---:|" * len(COLUMNS))
        groups = {"overall": summary["overall"], **summary["by_language"], **summary["by_target_kind"]}
        for name, stats in groups.items():
            print(f"| {name} | " + " | ".join(cell(key, stats[key]) for _, key in COLUMNS) + " |")
        os.environ["JUDGE_API_KEY"] = "sk-scripted-judge"
        with JudgeServer() as server:
            os.environ["JUDGE_API_BASE"] = server.base_url
            judged = run(Path(tmp) / "judged", "--judge-backoff", "0.001")
            calls = len(server.requests)
        overall = judged["overall"]
        print(f"\nscripted Judge: {calls} calls; quality {overall['quality']:.4f}, score {overall['score']:.4f}, "
              f"q_gap_short {overall['q_gap_short']:.4f} ({overall['q_gap_short_pairs']} groups), "
              f"q_gap_long {overall['q_gap_long']:.4f} ({overall['q_gap_long_pairs']} groups)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
