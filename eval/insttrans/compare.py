"""InstTrans-Bench in compare (SPEC §12): the per-unit values of its headline metrics and of each
constraint's pass rate or mean, and the Judge's verdicts by kind for agreement.

Units are paired instances; a constraint's unit is the mean verdict of the instance's entries of
that id, weighted by their count, so the pooled value is the summary's by_constraint rate.
"""

from __future__ import annotations

from eval.insttrans.rules import CONSTRAINT_KINDS
from eval.errors import CompareError
from eval.insttrans.metrics import HEADLINE_METRICS
from eval.scoring.pairing import UnitValues, float_or_none, headline_units

JUDGE_LABEL_ORDER = ("quality", *CONSTRAINT_KINDS)


def _constraint_verdicts(row: dict, constraint: str) -> list[float | None]:
    return [float_or_none(entry["passed"] if entry["kind"] == "hard" else entry["score"])
            for entry in row["constraints"] if entry["id"] == constraint]


def constraint_units(a, b, case_ids: list[str], constraint: str) -> UnitValues | None:
    """Mean verdict per instance, weighted by the instance's entries of this id, so the pooled
    value equals the summary's by_constraint rate; None when either run lacks a score."""
    values_a, values_b, weights = [], [], []
    for cid in case_ids:
        verdicts_a = _constraint_verdicts(a.scores[cid], constraint)
        verdicts_b = _constraint_verdicts(b.scores[cid], constraint)
        if None in verdicts_a or None in verdicts_b:
            return None
        if len(verdicts_a) != len(verdicts_b):
            raise CompareError(f"{cid}: the runs list the constraint {constraint} a different number of times",
                               "both runs must score the same data")
        count = len(verdicts_a)
        values_a.append(sum(verdicts_a) / count if count else 0.0)
        values_b.append(sum(verdicts_b) / count if count else 0.0)
        weights.append(float(count))
    return UnitValues(values_a, values_b, weights) if any(weights) else None


def compare_units(a, b, case_ids: list[str]) -> list[dict[tuple, UnitValues]]:
    """One group: the headline metrics (hard_pass_rate always; if_score and quality when both runs
    were judged) and each constraint's rate, over the paired instances."""
    units = headline_units(a, b, case_ids, HEADLINE_METRICS)
    constraint_ids: list[str] = []
    for run in (a, b):
        for cid in run.summary.get("by_constraint", {}):
            if cid not in constraint_ids:
                constraint_ids.append(cid)
    for constraint in constraint_ids:
        unit = constraint_units(a, b, case_ids, constraint)
        if unit is not None:
            units[("by_constraint", constraint)] = unit
    return [units]


def judge_labels(row: dict) -> dict[str, float]:
    """One instance's Judge verdicts: quality and each soft constraint's score, where known."""
    labels = {} if row.get("quality") is None else {"quality": float(row["quality"])}
    for entry in row.get("constraints", []):
        if entry["kind"] == "soft" and entry.get("score") is not None:
            labels[entry["id"]] = float(entry["score"])
    return labels
