"""Sandglass-Bench scores (the card's results format) and every metric of the card, overall, per
language, per target kind and per fenqu.

A missing prediction counts as 0 syllables (dev 1.0, reward 0; quality 0 with the Judge, null
without) and stays in every denominator, slope and quality gaps included; ±1 syllable wins over
dev ≥ 50% for tiny targets. Slope and quality gaps use only complete (uuid, language) groups, and
mean_abs_dev averages the per-item devs as rounded in scores.jsonl, as the original metric code does.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable

from eval.benchmark import Mean, Metric
from eval.scoring.stats import mean_or_none, rounded
from eval.inputs.predictions import is_missing
from eval.sandglass.rows import SPEECH_RATES, TARGET_KINDS

OUTPUT_FIELDS = ("case_id", "uuid", "fenqu", "target_language", "target_kind", "target_syllables", "duration",
                 "source", "status", "hyp", "hyp_syllables", "abs_diff", "dev", "signed_dev", "syllable_reward",
                 "hit_pm1", "hit_strict5", "hit_10", "hit_20", "quality", "judge_error", "score")
# The headline metrics, declared once: the record, report.md, the console table, report.html's
# cards, the leaderboard and compare read them from here.
HEADLINE_METRICS = (
    Metric("score", Mean("score", text="mean over items of (syllable_reward + quality) / 2"), judge=True),
    Metric("syllable_reward", Mean("syllable_reward")),
    Metric("quality", Mean("quality"), judge=True),
    Metric("mean_abs_dev", Mean("dev", text="mean over items of the rounded dev"), higher_is_better=False),
)


def syllable_reward(hyp_syllables: int, target: int) -> float:
    """1.0 within ±1 syllable or dev ≤ 5%; 0.0 at dev ≥ 50%; linear in between."""
    abs_diff = abs(hyp_syllables - target)
    dev = abs_diff / target
    if abs_diff <= 1 or dev <= 0.05:
        return 1.0
    if dev >= 0.5:
        return 0.0
    return 1.0 - (dev - 0.05) / 0.45


def score_item(row: dict, prediction: str | None, hyp_syllables: int | None, quality: float | None) -> dict:
    """One scores.jsonl row. A missing prediction counts 0 syllables (and, with the Judge, quality 0).

    `quality` is None when the Judge was skipped; then quality, score and judge_error are null for
    every item, missing ones included, as in the original metric code.
    """
    meta = row["metadata"]
    target = meta["target_syllables"]
    missing = is_missing(prediction)
    if missing:
        hyp_syllables = 0
        quality = None if quality is None else 0.0
    signed = (hyp_syllables - target) / target
    dev = abs(signed)
    reward = 0.0 if missing else syllable_reward(hyp_syllables, target)
    return {
        "case_id": row["case_id"],
        "uuid": meta["uuid"],
        "fenqu": meta["fenqu"],
        "target_language": meta["target_language"],
        "target_kind": meta["target_kind"],
        "target_syllables": target,
        "duration": meta["duration"],
        "source": meta["source"],
        "status": "missing" if missing else "ok",
        "hyp": prediction,
        "hyp_syllables": hyp_syllables,
        "abs_diff": abs(hyp_syllables - target),
        "dev": round(dev, 6),
        "signed_dev": round(signed, 6),
        "syllable_reward": round(reward, 6),
        "hit_pm1": int(abs(hyp_syllables - target) <= 1 and not missing),
        "hit_strict5": int(dev <= 0.05 and not missing),
        "hit_10": int(dev <= 0.10 and not missing),
        "hit_20": int(dev <= 0.20 and not missing),
        "quality": quality,
        "judge_error": None if quality is None else 0,
        "score": None if quality is None else round((reward + quality) / 2, 6),
    }


def ols_slope(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of y on x; None when every x is the same."""
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx


def _by_line(items: list[dict]) -> dict[tuple[str, str], dict[str, dict]]:
    lines: dict[tuple[str, str], dict[str, dict]] = defaultdict(dict)
    for item in items:
        lines[(item["uuid"], item["target_language"])][item["target_kind"]] = item
    return lines


LINE_METRICS = ("slope", "q_gap_short", "q_gap_long")


def line_statistics(items: list[dict]) -> dict[tuple[str, str], dict]:
    """Per (uuid, language) with all three targets among `items`: the OLS slope of output on
    target syllables (None when every target is the same) and the quality gaps short − natural
    and long − natural (None when a quality is unknown). The card's line metrics average these;
    compare pairs them line by line."""
    lines = {}
    for key, kinds in _by_line(items).items():
        if all(kind in kinds for kind in TARGET_KINDS):
            gaps = {}
            for kind in ("short", "long"):
                first, natural = kinds[kind]["quality"], kinds["natural"]["quality"]
                gaps[f"q_gap_{kind}"] = None if first is None or natural is None else first - natural
            slope = ols_slope([(kinds[k]["target_syllables"], kinds[k]["hyp_syllables"]) for k in TARGET_KINDS])
            lines[key] = {"slope": slope, **gaps}
    return lines


def controllability_slope(items: list[dict]) -> tuple[float | None, int]:
    """(mean slope, groups): OLS slope of output on target syllables per (uuid, language) that has
    all three targets among `items`, averaged over those groups."""
    slopes = [line["slope"] for line in line_statistics(items).values() if line["slope"] is not None]
    return mean_or_none(slopes), len(slopes)


def quality_gap(items: list[dict], kind: str) -> tuple[float | None, int]:
    """(mean of quality[kind] − quality[natural], pairs) over the (uuid, language) groups that have
    all three targets among `items`, as in the original metric code: a group cut by --limit or
    partial data pairs nothing."""
    gaps = [line[f"q_gap_{kind}"] for line in line_statistics(items).values()]
    return mean_or_none(gaps), len(gaps)


def group_stats(items: list[dict]) -> dict:
    """Every metric of the card over `items` (shares are fractions in [0, 1])."""
    slope, slope_groups = controllability_slope(items)
    gap_short, pairs_short = quality_gap(items, "short")
    gap_long, pairs_long = quality_gap(items, "long")
    n = len(items)
    return {
        "n": n,
        "missing": sum(item["status"] == "missing" for item in items),
        "mean_abs_dev": rounded(mean_or_none([item["dev"] for item in items])),  # per-item dev, rounded, as the original
        "pm1": rounded(sum(item["hit_pm1"] for item in items) / n),
        "dev_le_5": rounded(sum(item["hit_strict5"] for item in items) / n),
        "dev_le_10": rounded(sum(item["hit_10"] for item in items) / n),
        "dev_le_20": rounded(sum(item["hit_20"] for item in items) / n),
        "syllable_reward": rounded(mean_or_none([item["syllable_reward"] for item in items])),
        "quality": rounded(mean_or_none([item["quality"] for item in items])),
        "score": rounded(mean_or_none([item["score"] for item in items])),
        "slope": rounded(slope),
        "slope_groups": slope_groups,
        "q_gap_short": rounded(gap_short),
        "q_gap_short_pairs": pairs_short,
        "q_gap_long": rounded(gap_long),
        "q_gap_long_pairs": pairs_long,
    }


def grouped(items: list[dict], key: Callable[[dict], str], order: Iterable[str] = ()) -> dict[str, dict]:
    """group_stats per value of `key`, known values first in `order`, then the rest sorted."""
    members: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        members[key(item)].append(item)
    names = [name for name in order if name in members] + sorted(name for name in members if name not in order)
    return {name: group_stats(members[name]) for name in names}


def metric_tables(items: list[dict]) -> dict:
    """overall, by_language, by_target_kind and by_fenqu."""
    return {
        "overall": group_stats(items),
        "by_language": grouped(items, lambda item: item["target_language"], SPEECH_RATES),
        "by_target_kind": grouped(items, lambda item: item["target_kind"], TARGET_KINDS),
        "by_fenqu": grouped(items, lambda item: item["fenqu"]),
    }
