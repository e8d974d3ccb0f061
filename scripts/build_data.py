"""Check the bundled data's parts and assemble data/test.jsonl and data/example_predictions.jsonl.

    python -m scripts.build_data --check data/parts/social.jsonl   # check one part, change nothing
    python -m scripts.build_data                                   # check all parts, then write

A part row carries every §1 field but `prompt`, which is rendered here with the §5 layout, so
prompt, constraints and source_text cannot drift apart. Rows are ordered by a hash of their
case_id, so that `--limit N` smoke runs see a mix of domains.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from eval.insttrans.rules import CONSTRAINT_KINDS, DEFAULT_RULE_SET, RULE_SETS, RULE_TABLE
from eval.insttrans.scorer_versions import SCORER_VERSIONS
from eval.scoring.rule_contract import ScoringContext
from eval.insttrans.rows import bundled_row_problems, render_prompt, validate_row
from eval.errors import DataError

FIELD_ORDER = ("case_id", "prompt", "reference", "source_lang", "target_lang", "source_text", "constraints",
               "constraint_ids", "scenario", "domain", "duration_s", "batch_size", "style")
PARTS = ROOT / "data" / "parts"


def with_prompt(part_row: dict) -> dict:
    """The part row with its rendered prompt, fields in release order."""
    row = dict(part_row)
    row["prompt"] = render_prompt(row["source_lang"], row["target_lang"], row["constraints"], row["source_text"])
    ordered = {name: row[name] for name in FIELD_ORDER if name in row}
    ordered.update({name: value for name, value in row.items() if name not in ordered})
    return ordered


def check_part(path: Path) -> tuple[list[dict], list[str]]:
    """(rows, problems) for one part file."""
    rows, problems = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            part_row = json.loads(line)
            row = with_prompt(part_row)
            validate_row(row, where)
        except (json.JSONDecodeError, KeyError, DataError) as error:
            problems.append(f"{where}: {error}")
            continue
        problems += [f"{where} {row['case_id']}: {problem}" for problem in bundled_row_problems(row)]
        for cid in row["constraint_ids"]:
            if CONSTRAINT_KINDS[cid] != "hard":
                continue
            # a reference passes the original rules of every scorer version and the strict ones
            for rule_set, version in [*((DEFAULT_RULE_SET, name) for name in SCORER_VERSIONS),
                                      *((name, None) for name in RULE_SETS if name != DEFAULT_RULE_SET)]:
                verdict = RULE_TABLE.check(cid, row, row["reference"], ScoringContext(None, rule_set, version))
                if not verdict.passed:
                    detail = json.dumps(verdict.detail, ensure_ascii=False)
                    problems.append(f"{where} {row['case_id']}: reference fails {cid} "
                                    f"({rule_set if version is None else version}): {detail}")
        rows.append(row)
    return rows, problems


def print_statistics(rows: list[dict]) -> None:
    """Counts the data writers aim at: domains, constraints, histogram, pairs."""
    count = collections.Counter
    print(f"rows: {len(rows)}")
    print("domains:", dict(count(row["domain"] for row in rows)))
    print("constraints:", dict(count(cid for row in rows for cid in row["constraint_ids"]).most_common()))
    print("per row:", dict(sorted(count(len(row["constraint_ids"]) for row in rows).items())))
    pairs = count(f"{row['source_lang']}-{row['target_lang']}" for row in rows)
    print(f"pairs ({len(pairs)}):", dict(pairs.most_common()))
    print("targets:", dict(count(row["target_lang"] for row in rows).most_common()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", nargs="+", type=Path, metavar="PART", help="check these part files only")
    args = parser.parse_args(argv)
    paths = args.check or sorted(PARTS.glob("*.jsonl"))
    skipped = [path for path in paths if path.name.endswith(".predictions.jsonl")]
    if skipped:
        print(f"not checked (example predictions, not data rows): {', '.join(path.name for path in skipped)}")
    paths = [path for path in paths if path not in skipped]
    all_rows, all_problems = [], []
    for path in paths:
        rows, problems = check_part(path)
        all_rows += rows
        all_problems += problems
    ids = collections.Counter(row["case_id"] for row in all_rows)
    all_problems += [f"duplicate case_id {case_id}" for case_id, n in ids.items() if n > 1]
    print_statistics(all_rows)
    for problem in all_problems:
        print("PROBLEM", problem)
    print(f"{len(all_problems)} problems")
    if args.check or all_problems:
        return 1 if all_problems else 0
    write_bundle(all_rows, paths)
    return 0


def write_bundle(rows: list[dict], paths: list[Path]) -> None:
    """Write data/test.jsonl and data/example_predictions.jsonl in hashed case_id order."""
    rows.sort(key=lambda row: hashlib.sha256(row["case_id"].encode("utf-8")).hexdigest())
    predictions = {}
    for path in paths:
        prediction_path = path.with_name(path.name.replace(".jsonl", ".predictions.jsonl"))
        if prediction_path.exists():
            for line in prediction_path.read_text(encoding="utf-8").split("\n"):
                if line.strip():
                    entry = json.loads(line)
                    predictions[entry["case_id"]] = entry
    with open(ROOT / "data" / "test.jsonl", "w", encoding="utf-8", newline="\n") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    with open(ROOT / "data" / "example_predictions.jsonl", "w", encoding="utf-8", newline="\n") as handle:
        for row in rows:
            if row["case_id"] in predictions:
                handle.write(json.dumps(predictions[row["case_id"]], ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} rows and {sum(row['case_id'] in predictions for row in rows)} predictions")


if __name__ == "__main__":
    sys.exit(main())
