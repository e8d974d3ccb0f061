"""Speed of IFMTBench: a `--skip-judge` run of the bundled set, and the rules on hostile responses.

    python -m scripts.bench_ifmtbench [--dataset data/ifmtbench] [--predictions FILE] [--repeat 5]

The run is timed twice: in-process (evaluate.main, after one untimed warm-up: the data, rules,
metrics and outputs, without Python's start-up) and as a child process, as a user runs it. The
rules part scores responses of 100,000 to 800,000 characters built to make parsers and patterns
backtrack, and prints the time per response and the ratio between sizes (near-linear: about 8x
for 8x the length).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HOSTILE_UNITS = {"brackets": "[", "braces": "{", "less-than": "<", "open tags": "<p>", "attributes": "<a b=1 ",
                 "quotes": '"', "pipes": "|", "commas": "a,", "newlines": "x\n"}


def time_run(dataset: Path, predictions: Path, repeat: int) -> None:
    from eval.run.cli import evaluate_parser, run_config_from_args
    from eval.run.pipeline import run_evaluation

    def evaluate(argv: list[str]) -> int:  # what evaluate.py's main does, without its process
        return run_evaluation(run_config_from_args(evaluate_parser().parse_args(argv))).exit_status

    with tempfile.TemporaryDirectory() as scratch:
        args = ["--dataset", str(dataset), "--predictions", str(predictions), "--output-dir", f"{scratch}/out",
                "--skip-judge", "--quiet"]
        evaluate(args)  # warm-up: imports, numpy, bytecode
        inside = []
        for _ in range(repeat):
            start = time.perf_counter()
            assert evaluate(args) == 0
            inside.append(time.perf_counter() - start)
        whole = []
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run([sys.executable, str(ROOT / "evaluate.py"), *args], check=True, cwd=ROOT)
            whole.append(time.perf_counter() - start)
    print(f"--skip-judge run of {dataset}: in-process best {min(inside):.3f} s, median {statistics.median(inside):.3f} s; "
          f"whole process best {min(whole):.3f} s, median {statistics.median(whole):.3f} s ({repeat} runs each)")


def time_rules() -> None:
    from eval.ifmtbench.rules import RULES

    rows = {
        "structured JSON": {"origin_text": '{"a": [1, {"b": "c"}]}', "data_format": "JSON", "output": ""},
        "structured HTML": {"origin_text": "<p>x<br/>y</p>", "data_format": "HTML", "output": ""},
        "structured CSV": {"origin_text": "a,b\n1,2", "data_format": "CSV", "output": ""},
        "structured Markdown": {"origin_text": "| a |\n|---|\n| 1 |", "data_format": "Markdown", "output": ""},
        "layout": {"origin_text": "a\nb", "meta_data": {"primary_delimiter": "\n", "source_chunks": [1, 2]},
                   "output": ""},
        "glossary": {"term_dict": {"a": ["<p>", "x,", "[["]}, "output": "<p>", "origin_text": ""},
        "inline_code": {"meta_data": {"extracted_assets": ["`x`", "<a b=1 >"]}, "origin_text": "", "output": ""},
    }
    worst = 0.0
    for unit_name, unit in HOSTILE_UNITS.items():
        for rule_name, row in rows.items():
            rule = RULES[rule_name.split()[0]]
            times = []
            for length in (100_000, 800_000):
                text = unit * (length // len(unit))
                start = time.perf_counter()
                rule(row, text)
                times.append(time.perf_counter() - start)
            worst = max(worst, times[1])
            ratio = times[1] / max(times[0], 1e-6)
            if times[1] > 0.05:
                print(f"  {rule_name:<20} {unit_name:<10} 100k {times[0] * 1000:7.1f} ms  800k "
                      f"{times[1] * 1000:7.1f} ms  ratio {ratio:4.1f}")
    print(f"rules on hostile responses: slowest 800,000-character response {worst * 1000:.0f} ms "
          "(rows above 50 ms listed)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, default=ROOT / "data" / "ifmtbench")
    parser.add_argument("--predictions", type=Path, default=None,
                        help="default: example_predictions.jsonl in the dataset folder")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    predictions = args.predictions or args.dataset / "example_predictions.jsonl"
    time_run(args.dataset, predictions, args.repeat)
    time_rules()
    return 0


if __name__ == "__main__":
    sys.exit(main())
