"""Time eval.compare at the official releases' scale (3,000 InstTrans / 3,600 Sandglass rows).

    python -m scripts.bench_compare RUN_A RUN_B [--copies 10] [--resamples 10000]

Replicates the score rows of two finished runs `--copies` times (case_ids suffixed, summaries
kept) into a temporary directory and times `compare` on the result: the number of rows, not
their content, sets the cost (one weight matrix and one sign matrix per chunk of resamples).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from eval.compare import compare


def replicate(run: Path, target: Path, copies: int) -> Path:
    target.mkdir(parents=True)
    rows = [json.loads(line) for line in (run / "scores.jsonl").read_text(encoding="utf-8").split("\n") if line]
    out = []
    for copy in range(copies):
        for row in rows:
            out.append(json.dumps(dict(row, case_id=f"{row['case_id']}#{copy}"), ensure_ascii=False))
    (target / "scores.jsonl").write_text("\n".join(out) + "\n", encoding="utf-8")
    (target / "summary.json").write_text((run / "summary.json").read_text(encoding="utf-8"), encoding="utf-8")
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs=2, type=Path)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=10000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        a = replicate(args.runs[0], Path(scratch) / "a", args.copies)
        b = replicate(args.runs[1], Path(scratch) / "b", args.copies)
        start = time.perf_counter()
        result = compare([a, b], resamples=args.resamples)
        elapsed = time.perf_counter() - start
    comparison = result["comparisons"][0]
    n_metrics = (len(comparison["metrics"]) + len(comparison["by_constraint"])
                 + sum(len(group) for group in (comparison.get("by_language") or {}).values()))
    print(f"{comparison['pairing']['paired']} paired rows, {n_metrics} metrics, {args.resamples} resamples: "
          f"{elapsed:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
