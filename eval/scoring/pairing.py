"""What a benchmark hands compare (SPEC §12): per-unit values of its metrics for two runs.

Every metric compare tests is a weighted mean over paired units, sum(w · v) / sum(w), so a
benchmark gives, per metric, each unit's value in run A and in run B and the unit's weight; compare
resamples the units and never re-computes a benchmark's metric (sacreBLEU's paired tests take
sufficient statistics the same way). A benchmark builds these from its own scores.jsonl rows with
its own metric functions (`Benchmark.compare_groups`). `metric_rows` lists the results back, the
benchmark's own sections (`CompareHooks.compare_sections`) included, for the table and the compare page.
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
    """A score row's verdict or score as a float (a bool counts 1 or 0); anything but a number, a
    bool or None is a TypeError, which compare reports with the row's file and line: a string
    such as "0.5" is not read as a number."""
    if value is None:
        return None
    if not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, found {type(value).__name__}")
    return float(value)


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


def _stat_leaves(section: dict, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], dict]]:
    """(path, stats) of every metric in a result section, nested groups flattened in order."""
    leaves = []
    for key, value in section.items():
        if isinstance(value, dict) and "delta" in value and "ci95" in value:
            leaves.append(((*prefix, key), value))
        elif isinstance(value, dict):
            leaves += _stat_leaves(value, (*prefix, key))
    return leaves


def metric_rows(comparison: dict, sections: tuple[str, ...] = ()) -> list[tuple[str, dict]]:
    """(label, stats) of one comparison in the table's order: the metrics, `by_constraint`, then the
    benchmark's own sections (`CompareHooks.compare_sections`, e.g. per language: "  en score"), so
    that compare prints a benchmark's section without knowing its name."""
    rows = list(comparison["metrics"].items())
    for section in ("by_constraint", *sections):
        rows += [("  " + " ".join(path), stats) for path, stats in _stat_leaves(comparison.get(section) or {})]
    return rows


def headline_units(a, b, case_ids: list[str], metrics) -> dict[tuple, UnitValues]:
    """{("metrics", name): UnitValues} of the headline metrics that are means over instances
    (`Metric.aggregation` a `Mean`, eval/benchmark.py), for the metrics both runs report and every
    paired instance has. Whole-set means come first, in declaration order; then the means over a
    subset, which reuse their field's values with weight 0 outside the subset."""
    whole = [metric for metric in metrics if _is_mean(metric) and metric.aggregation.where is None]
    units = {("metrics", name): unit for name, unit in
             instance_units(a, b, case_ids, {metric.name: metric.aggregation.field for metric in whole}).items()}
    for metric in metrics:
        if not _is_mean(metric) or metric.aggregation.where is None:
            continue
        values = instance_units(a, b, case_ids, {metric.name: metric.aggregation.field}).get(metric.name)
        if values is None:
            continue
        field, chosen = metric.aggregation.where
        weights = [1.0 if bool(a.scores[cid][field]) == chosen else 0.0 for cid in case_ids]
        if any(weights):
            units[("metrics", metric.name)] = UnitValues(values.a, values.b, weights)
    return units


def _is_mean(metric) -> bool:
    """A `Mean` aggregation (read by its field, as this module imports no record type)."""
    return getattr(metric.aggregation, "field", None) is not None
