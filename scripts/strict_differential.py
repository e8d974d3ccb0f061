"""Where the original and the strict rule sets disagree on a predictions file.

    python -m scripts.strict_differential [--data data/test.jsonl] [--predictions data/example_predictions.jsonl]

Prints the Markdown table docs/strict-rules.md carries for the bundled example predictions, the
two hard-pass rates, and the counts per constraint and direction.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

from eval.insttrans.strict_summary import rule_set_disagreements, strict_instances, strict_summary

ROOT = Path(__file__).resolve().parent.parent


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def disagreement_table(found: list[dict]) -> str:
    lines = ["| case_id | constraint | original | strict | the failing side's reason |", "|---|---|---|---|---|"]
    for entry in found:
        reason = entry["reason"].replace("|", "\\|")
        lines.append(f"| {entry['case_id']} | {entry['id']} | {'pass' if entry['original'] else 'fail'} "
                     f"| {'pass' if entry['strict'] else 'fail'} | `{reason}` |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "test.jsonl")
    parser.add_argument("--predictions", type=Path, default=ROOT / "data" / "example_predictions.jsonl")
    args = parser.parse_args(argv)
    rows = read_jsonl(args.data)
    predictions = {entry["case_id"]: entry.get("prediction") for entry in read_jsonl(args.predictions)}
    found = rule_set_disagreements(rows, predictions)
    print(disagreement_table(found))
    counts = collections.Counter((entry["id"], "strict fails only" if entry["original"] else "original fails only")
                                 for entry in found)
    print()
    for (cid, direction), count in sorted(counts.items()):
        print(f"- {cid}, {direction}: {count}")
    print(f"- total: {len(found)} (instance, constraint) pairs")
    strict = strict_summary(strict_instances(rows, predictions))["hard_pass_rate_strict"]
    print(f"\nhard_pass_rate_strict: {strict['value']} {strict['ci95']} (n={strict['n']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
