"""IFMTBench's summary metrics (SPEC §14): the headline numbers with bootstrap intervals, the
composition drop (single − multi), and every breakdown.

Every row stays in every denominator: a missing prediction is a 0, never a dropped row (the
original drops it). Without the Judge, if_score and the soft means are null: they are not
measured (SPEC §9); hard pass rates are exact, a glossary rule failure counted as a failure.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable

from eval.benchmark import Derived, Mean, Metric
from eval.ifmtbench.labels import HARD, ID_KINDS
from eval.scoring.stats import BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED, headline_blocks, mean_or_none, rounded, single_threaded_numpy

# The headline metrics, declared once: the record, report.md, the console table, report.html's
# cards, the leaderboard and compare read them from here. if_score_single and if_score_multi are
# if_score with weight 1 on their own rows and 0 on the others, so each pooled value is the
# summary's; the composition drop is a difference of two group means, not a mean over units.
HEADLINE_METRICS = (
    Metric("if_score", Mean("if_score", text="mean over rows of hard product × soft mean (missing rows 0)"),
           judge=True),
    Metric("if_score_single", Mean("if_score", where=("multi", False), text="mean over single-constraint rows"),
           judge=True),
    Metric("if_score_multi", Mean("if_score", where=("multi", True), text="mean over multi-constraint rows"),
           judge=True),
    Metric("composition_drop", Derived("if_score_single − if_score_multi"), higher_is_better=False, judge=True),
    Metric("hard_pass_rate", Mean("hard_pass", text="share of rows passing every hard label")),
)


def difference_ci(first: list, second: list, samples: int = BOOTSTRAP_SAMPLES,
                  seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95% percentile bootstrap interval of mean(first) − mean(second), the two groups resampled
    independently (they hold different rows), with the shared fixed seed."""
    if not first or not second or any(value is None for value in [*first, *second]):
        return None
    numpy = single_threaded_numpy()
    a, b = numpy.asarray(first, dtype=float), numpy.asarray(second, dtype=float)
    rng = numpy.random.default_rng(seed)
    deltas = numpy.empty(samples)
    for start in range(0, samples, 100):
        stop = min(start + 100, samples)
        count = stop - start
        deltas[start:stop] = (a[rng.integers(0, len(a), size=(count, len(a)))].mean(axis=1)
                              - b[rng.integers(0, len(b), size=(count, len(b)))].mean(axis=1))
    low, high = numpy.percentile(deltas, [2.5, 97.5])
    return [round(float(low), 6), round(float(high), 6)]


def composition_drop(single: list[dict], multi: list[dict], judged: bool) -> dict:
    """if_score over single-constraint rows minus over multi-constraint rows, with its interval."""
    first = [row["if_score"] if judged else None for row in single]
    second = [row["if_score"] if judged else None for row in multi]
    a, b = mean_or_none(first), mean_or_none(second)
    value = None if a is None or b is None else round(a - b, 6)
    return {"value": value, "ci95": difference_ci(first, second), "n_single": len(single), "n_multi": len(multi)}


def group_table(scores: list[dict], groups_of: Callable[[dict], Iterable[str]], judged: bool) -> dict[str, dict]:
    """{group: {n, if_score, hard_pass_rate}}, largest groups first; if_score null without the Judge."""
    members: dict[str, list[dict]] = defaultdict(list)
    for score in scores:
        for group in groups_of(score):
            members[group].append(score)
    return {group: {"n": len(items),
                    "if_score": rounded(mean_or_none([item["if_score"] for item in items])) if judged else None,
                    "hard_pass_rate": rounded(sum(item["hard_pass"] for item in items) / len(items))}
            for group, items in sorted(members.items(), key=lambda pair: (-len(pair[1]), pair[0]))}


def _id_rate(values: list, kind: str, judged: bool) -> dict:
    if not values:
        return {"n": 0}
    if kind == HARD:
        return {"n": len(values), "pass_rate": rounded(sum(values) / len(values))}
    return {"n": len(values), "mean": rounded(mean_or_none(values)) if judged else None}


def by_id(scores: list[dict], judged: bool) -> dict[str, dict]:
    """Per id: kind, n and pass rate (hard) or mean score (soft), overall, over single rows and
    over multi rows, in label order."""
    values: dict[str, dict[str, list]] = defaultdict(lambda: {"all": [], "single": [], "multi": []})
    for score in scores:
        part = "multi" if score["multi"] else "single"
        for entry in score["constraints"]:
            value = entry["passed"] if entry["kind"] == HARD else entry["score"]
            values[entry["id"]]["all"].append(value)
            values[entry["id"]][part].append(value)
    result = {}
    for cid, kind in ID_KINDS.items():
        if cid in values:
            result[cid] = {"kind": kind, **_id_rate(values[cid]["all"], kind, judged),
                           "single": _id_rate(values[cid]["single"], kind, judged),
                           "multi": _id_rate(values[cid]["multi"], kind, judged)}
    return result


def glossary_fallback(scores: list[dict]) -> dict:
    """How often the glossary rule failed on a present response, and what the Judge made of it."""
    counts = {"rule_failed": 0, "judge_passed": 0, "judge_failed": 0, "skipped": 0}
    for score in scores:
        for entry in score["constraints"]:
            fallback = entry["detail"].get("fallback") if entry["id"] == "glossary" else None
            if fallback:
                counts["rule_failed"] += 1
                counts[{"passed": "judge_passed", "failed": "judge_failed", "skipped": "skipped"}[fallback]] += 1
    return counts


def judge_nulls(scores: list[dict]) -> dict:
    """Soft scores the Judge answered null for (the dimension not found in the instruction): each
    scores 0 and is counted here."""
    by: dict[str, list[str]] = defaultdict(list)
    for score in scores:
        for entry in score["constraints"]:
            if entry["detail"].get("judge_null"):
                by[entry["id"]].append(score["case_id"])
    return {"count": sum(len(ids) for ids in by.values()), "by_id": {cid: len(ids) for cid, ids in sorted(by.items())},
            "case_ids": sorted({case_id for ids in by.values() for case_id in ids})[:20]}


def ifmt_metrics(scores: list[dict], judged: bool) -> dict:
    """The summary's metric block (SPEC §14)."""
    single = [score for score in scores if not score["multi"]]
    multi = [score for score in scores if score["multi"]]
    return {
        **headline_blocks(scores, HEADLINE_METRICS, judged, {"composition_drop": composition_drop(single, multi, judged)}),
        "by_constraint": by_id(scores, judged),
        "by_label_combination": group_table(scores, lambda s: ["+".join(sorted(s["constraint_ids"]))], judged),
        "by_instruction_lang": group_table(scores, lambda s: [s["instruction_lang"] or "-"], judged),
        "by_language_pair": group_table(scores, lambda s: [f"{s['source_lang'] or '-'}-{s['target_lang'] or '-'}"],
                                        judged),
        "by_source_lang": group_table(scores, lambda s: [s["source_lang"] or "-"], judged),
        "by_target_lang": group_table(scores, lambda s: [s["target_lang"] or "-"], judged),
        "by_data_format": group_table(scores, lambda s: [s["data_format"]] if s["data_format"] else [], judged),
        "by_constraint_count": group_table(scores, lambda s: [str(len(s["constraint_ids"]))], judged),
        "glossary_fallback": glossary_fallback(scores),
        "judge_nulls": judge_nulls(scores),
    }
