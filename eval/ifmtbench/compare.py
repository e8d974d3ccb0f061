"""IFMTBench in compare and the leaderboard (SPEC §12, §14): per-unit values of its headline
metrics and of each id's rate or mean, the Judge's verdicts by kind for agreement, and the
leaderboard's extra columns.

Units are paired rows; the headline metrics' units follow from their declarations
(eval/ifmtbench/metrics.py HEADLINE_METRICS): the composition drop is a difference of two group
means, not a mean over units, so compare reports its two parts.
"""

from __future__ import annotations

from eval.errors import CompareError
from eval.ifmtbench.labels import HARD, ID_KINDS
from eval.ifmtbench.metrics import HEADLINE_METRICS
JUDGE_LABEL_ORDER = ("style", "background", "glossary_fallback")


def _value(entry: dict) -> float | None:
    value = entry["passed"] if entry["kind"] == HARD else entry["score"]
    return None if value is None else float(value)


def id_units(a, b, case_ids: list[str], cid: str):
    """The id's verdict per paired row, weight 1 where the row carries it; None when a run lacks a
    score (soft ids without the Judge) or no row carries it."""
    from eval.scoring.pairing import UnitValues

    values_a, values_b, weights = [], [], []
    for case_id in case_ids:
        entries_a = [entry for entry in a.scores[case_id]["constraints"] if entry["id"] == cid]
        entries_b = [entry for entry in b.scores[case_id]["constraints"] if entry["id"] == cid]
        if len(entries_a) != len(entries_b):
            raise CompareError(f"{case_id}: the runs list {cid} a different number of times",
                               "both runs must score the same data")
        if not entries_a:
            values_a.append(0.0)
            values_b.append(0.0)
            weights.append(0.0)
            continue
        value_a, value_b = _value(entries_a[0]), _value(entries_b[0])
        if value_a is None or value_b is None:
            return None
        values_a.append(value_a)
        values_b.append(value_b)
        weights.append(1.0)
    return UnitValues(values_a, values_b, weights) if any(weights) else None


def compare_units(a, b, case_ids: list[str]) -> list[dict]:
    """One group: hard_pass_rate always; if_score, if_score_single and if_score_multi when both runs
    were judged; each id's pass rate or mean."""
    from eval.scoring.pairing import headline_units

    units = headline_units(a, b, case_ids, HEADLINE_METRICS)
    for cid in ID_KINDS:
        unit = id_units(a, b, case_ids, cid)
        if unit is not None:
            units[("by_constraint", cid)] = unit
    return [units]


def judge_labels(row: dict) -> dict[str, float]:
    """One row's Judge verdicts: style and background scores, and the glossary fallback's 0/1."""
    labels = {}
    for entry in row.get("constraints", []):
        if entry["kind"] != HARD and entry.get("score") is not None:
            labels[entry["id"]] = float(entry["score"])
        fallback = (entry.get("detail") or {}).get("fallback") if entry["id"] == "glossary" else None
        if fallback in ("passed", "failed"):
            labels["glossary_fallback"] = 1.0 if fallback == "passed" else 0.0
    return labels


def leaderboard_columns(summaries: list[dict]) -> list[str]:
    """Each id's rate or mean, in label order, for the ids any of the runs scored."""
    present = {cid for summary in summaries for cid in summary.get("by_constraint", {})}
    return [cid for cid in ID_KINDS if cid in present]


def leaderboard_value(summary: dict, column: str) -> float | None:
    entry = summary.get("by_constraint", {}).get(column) or {}
    return entry.get("pass_rate", entry.get("mean"))
