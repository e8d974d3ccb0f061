"""What a benchmark hands compare (SPEC §12): per-unit values of its metrics for two runs.

Every metric compare tests is a weighted mean over paired units, sum(w · v) / sum(w), so a
benchmark gives, per metric, each unit's value in run A and in run B and the unit's weight; compare
resamples the units and never re-computes a benchmark's metric (sacreBLEU's paired tests take
sufficient statistics the same way). A benchmark builds these from its own scores.jsonl rows with
its own metric functions (`Benchmark.compare_units`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class UnitValues:
    """Per-unit values and weights of one metric for run A and run B, units in a fixed order.

    A weight of 0 means the metric does not apply to the unit (a constraint the instance lacks).
    """

    a: list[float]
    b: list[float]
    weight: list[float]


def float_or_none(value) -> float | None:
    return None if value is None else float(value)


def headline_present(summary: dict, metric: str) -> bool:
    """Whether a run's summary has a value for `metric`: a headline block `{value, ...}`, else
    the `overall` block's entry."""
    entry = summary.get(metric)
    if isinstance(entry, dict) and "value" in entry:
        return entry["value"] is not None
    overall = summary.get("overall") or {}
    return overall.get(metric) is not None


def instance_units(a, b, case_ids: list[str], fields: dict[str, str]) -> dict[str, UnitValues]:
    """{metric: UnitValues} of per-instance fields (`fields`: metric -> scores.jsonl field), one unit
    per paired instance, for the metrics both runs report and every paired instance has."""
    units: dict[str, UnitValues] = {}
    for metric, name in fields.items():
        if not (headline_present(a.summary, metric) and headline_present(b.summary, metric)):
            continue
        values_a = [float_or_none(a.scores[cid][name]) for cid in case_ids]
        values_b = [float_or_none(b.scores[cid][name]) for cid in case_ids]
        if None in values_a or None in values_b:
            continue
        units[metric] = UnitValues(values_a, values_b, [1.0] * len(case_ids))
    return units
