"""Sandglass-Bench in compare (SPEC §12): the per-unit values of the card's metrics.

Item metrics have one unit per paired item (and, per target language, the same units weighted 0
outside it, so the per-language deltas share the overall resamples); slope and quality gaps have
one unit per paired line (uuid, language) with all three targets, computed by the card's own
functions (eval/sandglass/metrics.py `line_statistics`), never again here.
"""

from __future__ import annotations

from eval.benchmark import metric_names
from eval.scoring.pairing import UnitValues, headline_present, headline_units, instance_units
from eval.sandglass.metrics import HEADLINE_METRICS, LINE_METRICS, line_statistics

SHARE_FIELDS = {  # the card's shares (the summary's `overall` block) -> the scores.jsonl field of one item
    "pm1": "hit_pm1",
    "dev_le_5": "hit_strict5",
    "dev_le_10": "hit_10",
    "dev_le_20": "hit_20",
}
LANGUAGE_METRICS = metric_names(HEADLINE_METRICS)  # per language: the headline metrics


def language_units(a, case_ids: list[str], items: dict[str, UnitValues]) -> dict[tuple, UnitValues]:
    """("by_language", language, metric) units: the item metrics restricted to one target
    language (weight 0 elsewhere)."""
    languages: list[str] = []
    for cid in case_ids:
        if a.scores[cid]["target_language"] not in languages:
            languages.append(a.scores[cid]["target_language"])
    units = {}
    for lang in languages:
        mask = [1.0 if a.scores[cid]["target_language"] == lang else 0.0 for cid in case_ids]
        for metric in LANGUAGE_METRICS:
            if metric in items:
                units[("by_language", lang, metric)] = UnitValues(items[metric].a, items[metric].b, mask)
    return units


def line_units(a, b, case_ids: list[str]) -> dict[tuple, UnitValues]:
    """("metrics", slope / q_gap_short / q_gap_long) over the paired lines where both runs have it."""
    lines_a = line_statistics([a.scores[cid] for cid in case_ids])
    lines_b = line_statistics([b.scores[cid] for cid in case_ids])
    units = {}
    for metric in LINE_METRICS:
        if not (headline_present(a.summary, metric) and headline_present(b.summary, metric)):
            continue
        keys = [key for key in lines_a if key in lines_b
                and lines_a[key][metric] is not None and lines_b[key][metric] is not None]
        if keys:
            units[("metrics", metric)] = UnitValues([lines_a[key][metric] for key in keys],
                                                    [lines_b[key][metric] for key in keys], [1.0] * len(keys))
    return units


def compare_units(a, b, case_ids: list[str]) -> list[dict[tuple, UnitValues]]:
    """Two groups: items (the headline metrics and the shares; overall and per language) and lines."""
    headlines = {path[-1]: unit for path, unit in headline_units(a, b, case_ids, HEADLINE_METRICS).items()}
    items = {**headlines, **instance_units(a, b, case_ids, SHARE_FIELDS)}
    return [{**{("metrics", name): unit for name, unit in items.items()}, **language_units(a, case_ids, items)},
            line_units(a, b, case_ids)]


def judge_labels(item: dict) -> dict[str, float]:
    """One item's Judge verdict: its quality, where known."""
    return {} if item.get("quality") is None else {"quality": float(item["quality"])}
