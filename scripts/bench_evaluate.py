"""Wall time and peak memory of a `--skip-judge` run over a 3,000-row file.

    python -m scripts.bench_evaluate [--rows 3000] [--repeat 3] [--rule-set original|strict]

Wall time and CPU time are both printed: on a shared machine the CPU time is the steadier number.
A first, untimed run writes what later runs reuse (bytecode, the CMU syllable table in the user
cache directory); its time is printed apart.
The file is the bundled rows repeated with fresh case_ids, scored against the bundled example
predictions under the same fresh ids; evaluate.py runs as a child process, as a user runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_files(directory: Path, n_rows: int, prefix: str = "bench", distinct: bool = False) -> tuple[Path, Path]:
    """`n_rows` bundled rows repeated with fresh ids, and the example predictions for them. With
    `distinct`, every prediction is made unique (a missing one becomes the reference), so that
    every Judge prompt differs and no request is answered from the cache or shared in flight."""
    rows = [json.loads(line) for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").split("\n") if line]
    examples = {}
    for line in (ROOT / "data" / "example_predictions.jsonl").read_text(encoding="utf-8").split("\n"):
        if line:
            entry = json.loads(line)
            examples[entry["case_id"]] = entry["prediction"]
    data, predictions = directory / "data.jsonl", directory / "predictions.jsonl"
    with open(data, "w", encoding="utf-8") as data_out, open(predictions, "w", encoding="utf-8") as pred_out:
        for index in range(n_rows):
            row = dict(rows[index % len(rows)])
            original = row["case_id"]
            row["case_id"] = f"{prefix}-{index:05d}"
            prediction = examples.get(original)
            if distinct:
                prediction = f"{prediction or row['reference']} (#{index})"
            data_out.write(json.dumps(row, ensure_ascii=False) + "\n")
            pred_out.write(json.dumps({"case_id": row["case_id"], "prediction": prediction},
                                      ensure_ascii=False) + "\n")
    return data, predictions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rule-set", default="original", help="passed to evaluate.py")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE for the child: every run compiles the harness")
    args = parser.parse_args()
    env = dict(os.environ)
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: bytecode cached after the first run
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        data, predictions = build_files(directory, args.rows)
        command = [sys.executable, str(ROOT / "evaluate.py"), "--data", str(data), "--predictions", str(predictions),
                   "--output-dir", str(directory / "out"), "--skip-judge", "--quiet", "--rule-set", args.rule_set]
        start = time.perf_counter()
        subprocess.run(command, check=True, env=env)  # the first run writes bytecode and the CMU table cache
        first = time.perf_counter() - start
        times, cpu_times = [], []
        for _ in range(args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, check=True, env=env)
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu_times.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"rows: {args.rows}; rule set {args.rule_set}; --skip-judge wall time: best {min(times):.2f} s, "
          f"median {sorted(times)[len(times) // 2]:.2f} s over {args.repeat} runs; CPU time best {min(cpu_times):.2f} s, "
          f"median {sorted(cpu_times)[len(cpu_times) // 2]:.2f} s (steadier than wall time on a shared machine); "
          f"peak RSS {peak_mb:.0f} MB; first, untimed run {first:.2f} s; bytecode {'off' if args.no_bytecode else 'cached'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
