"""Aggregation of instance scores (SPEC §9, §11): headline numbers with bootstrap intervals and
the breakdowns by constraint, scenario, domain, language pair, target language and count.

One function, `group_metrics`, serves every breakdown: each instance says which groups it belongs
to and the metrics are averaged per group.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable

from eval.insttrans.rules import CONSTRAINT_KINDS, HARD

BOOTSTRAP_SEED = 20260929
BOOTSTRAP_SAMPLES = 1000


def mean_or_none(values: list) -> float | None:
    """The mean, or None when any value is unknown (a skipped Judge) or there are none."""
    if not values or any(value is None for value in values):
        return None
    return sum(values) / len(values)


def bootstrap_ci(values: list, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95% percentile bootstrap interval of the mean, with a fixed seed so reruns agree."""
    if not values or any(value is None for value in values):
        return None
    import numpy  # imported here: only the summary needs it

    data = numpy.asarray(values, dtype=float)
    rng = numpy.random.default_rng(seed)
    means = numpy.empty(samples)
    for start in range(0, samples, 100):  # chunks keep memory at 100 x n indices
        stop = min(start + 100, samples)
        means[start:stop] = data[rng.integers(0, len(data), size=(stop - start, len(data)))].mean(axis=1)
    low, high = numpy.percentile(means, [2.5, 97.5])
    return [round(float(low), 6), round(float(high), 6)]


def headline(scores: list[dict], field: str, known: bool = True) -> dict:
    """{value, ci95, n} for one headline metric; value and ci95 are null when any value is
    unknown, or when the metric as a whole is not measured (`known` false: the Judge skipped)."""
    values = [float(score[field]) if score[field] is not None and known else None for score in scores]
    value = mean_or_none(values)
    return {"value": None if value is None else round(value, 6), "ci95": bootstrap_ci(values), "n": len(values)}


def group_metrics(scores: list[dict], groups_of: Callable[[dict], Iterable[str]], judged: bool = True,
                  ) -> dict[str, dict]:
    """{group: {n, if_score, quality, hard_pass_rate}} over the groups each instance belongs to.

    Without the Judge (`judged` false) if_score and quality are null in every group (SPEC §9)."""
    members: dict[str, list[dict]] = defaultdict(list)
    for score in scores:
        for group in groups_of(score):
            members[group].append(score)
    result = {}
    for group in sorted(members, key=lambda name: (-len(members[name]), name)):
        items = members[group]
        result[group] = {
            "n": len(items),
            "if_score": rounded(mean_or_none([item["if_score"] for item in items])) if judged else None,
            "quality": rounded(mean_or_none([item["quality"] for item in items])) if judged else None,
            "hard_pass_rate": rounded(sum(item["hard_pass"] for item in items) / len(items)),
        }
    return result


def by_constraint(scores: list[dict], judged: bool = True) -> dict[str, dict]:
    """Per constraint id: kind, n, pass_rate (hard) or mean score (soft; null without the Judge),
    in SPEC §4 order."""
    verdicts: dict[str, list] = defaultdict(list)
    for score in scores:
        for entry in score["constraints"]:
            verdicts[entry["id"]].append(entry["passed"] if entry["kind"] == HARD else entry["score"])
    result = {}
    for cid, kind in CONSTRAINT_KINDS.items():
        if cid not in verdicts:
            continue
        values = verdicts[cid]
        if kind == HARD:
            result[cid] = {"kind": kind, "n": len(values), "pass_rate": rounded(sum(values) / len(values))}
        else:
            result[cid] = {"kind": kind, "n": len(values), "mean": rounded(mean_or_none(values)) if judged else None}
    return result


def breakdowns(scores: list[dict], judged: bool = True) -> dict[str, dict]:
    """Every breakdown the summary carries (SPEC §11)."""
    return {
        "by_constraint": by_constraint(scores, judged),
        "by_scenario": group_metrics(scores, lambda s: [s["scenario"]], judged),
        "by_domain": group_metrics(scores, lambda s: [s["domain"]], judged),
        "by_language_pair": group_metrics(scores, lambda s: [f"{s['source_lang']}-{s['target_lang']}"], judged),
        "by_target_lang": group_metrics(scores, lambda s: [s["target_lang"]], judged),
        "by_constraint_count": group_metrics(scores, lambda s: [str(len(s["constraint_ids"]))], judged),
    }


def rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
