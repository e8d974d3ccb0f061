"""`evaluate.py --oracle` (SPEC §16): each row's reference scored as its prediction.

A reference that fails a hard rule shows a row the benchmark cannot score fairly: no system can
be asked to do better than the reference. The run writes the usual outputs and
oracle_failures.jsonl, one line per (row, hard constraint) the reference fails, with the reason
the rule gives. docs/published.md says what a user does with it.

The benchmark names its reference field (`DataHooks.reference_field`); a row without a reference
(Sandglass labels only its English rows) is scored as missing, and the report says how many.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from eval.benchmark import Benchmark
from eval.errors import ConfigError
from eval.io.outputs import jsonl_lines
from eval.scoring.score_rows import ConstraintResult, ScoreRow

ORACLE_FILE = "oracle_failures.jsonl"
ORACLE_SOURCE = "oracle: each row's reference as its prediction"
_REASON_CHARS = 300  # a reason stays one readable line


def reference_of(bench: Benchmark, row: dict) -> str | None:
    value = row.get(bench.data.reference_field) if bench.data.reference_field else None
    return value if isinstance(value, str) and value.strip() else None


@contextmanager
def oracle_predictions(bench: Benchmark, rows: list[dict]) -> Iterator[Path]:
    """A temporary predictions file of the rows' references (null where a row has none), read by
    the usual predictions reader so that nothing about the run differs but the text's origin."""
    if not bench.data.reference_field:
        raise ConfigError(f"--oracle: {bench.title} declares no reference field", "drop --oracle")
    handle, name = tempfile.mkstemp(prefix="oracle-", suffix=".jsonl")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(jsonl_lines({"case_id": row["case_id"], "prediction": reference_of(bench, row)}
                                     for row in rows))
        yield path
    finally:
        path.unlink(missing_ok=True)


def _reason(entry: ConstraintResult) -> str:
    detail = entry.to_dict()["detail"]
    if isinstance(detail.get("reason"), str):
        text = detail["reason"]
    elif detail:
        text = json.dumps(detail, ensure_ascii=False, sort_keys=True)
    else:
        text = "the rule failed"
    text = " ".join(text.split())
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


def oracle_failures(scores: list[ScoreRow]) -> list[dict]:
    """One record per hard constraint a reference fails: case_id, constraint id and index, reason;
    in data order, then constraint order."""
    found = []
    for score in scores:
        for entry in score.constraints or ():
            if entry.hard and entry.passed is False:
                found.append({"case_id": score.case_id, "constraint_id": entry.id,
                              "index": entry.index, "reason": _reason(entry)})
    return found


def oracle_block(failures: list[dict], scores: list[ScoreRow]) -> dict:
    """The summary's "oracle" block: how many rows were scored, how many had no reference, how
    many references fail a hard rule, per constraint id."""
    per_constraint: dict[str, int] = {}
    for failure in failures:
        key = str(failure["constraint_id"])
        per_constraint[key] = per_constraint.get(key, 0) + 1
    return {"source": ORACLE_SOURCE, "n": len(scores),
            "no_reference": sum(score.missing for score in scores),
            "rows_failing": len({failure["case_id"] for failure in failures}),
            "failures": len(failures), "by_constraint": dict(sorted(per_constraint.items())),
            "file": ORACLE_FILE}


def oracle_markdown(block: dict | None, shown: int = 20, failures: list[dict] | None = None) -> str:
    """The report section of an oracle run."""
    if block is None:
        return ""
    lines = ["", "## Oracle: the references scored as predictions", "",
             f"{block['n']} rows scored with their reference as the prediction; {block['no_reference']} have no "
             f"reference (scored as missing). {block['rows_failing']} references fail at least one hard rule "
             f"({block['failures']} failures, listed in `{block['file']}`).", ""]
    if block["by_constraint"]:
        lines += ["| constraint | references failing |", "|---|---:|"]
        lines += [f"| {name} | {count} |" for name, count in block["by_constraint"].items()]
        lines.append("")
    for failure in (failures or [])[:shown]:
        reason = failure["reason"].replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
        lines.append(f"- `{failure['case_id']}` {failure['constraint_id']}: {reason}")
    lines += ["", "Report the benchmark with and without these rows: run it again with `--exclude "
              f"{block['file']}` (the file as it is; docs/published.md).", ""]
    return "\n".join(lines)
