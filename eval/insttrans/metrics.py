"""InstTrans-Bench aggregation (SPEC §9, §11): the headline numbers and the breakdowns by
constraint, scenario, domain, language pair, target language and count.

One function, `group_metrics`, serves every breakdown: each instance says which groups it belongs
to and the metrics are averaged per group. The statistics are shared (eval/scoring/stats.py).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable

from eval.benchmark import Mean, Metric
from eval.insttrans.rules import CONSTRAINT_KINDS
from eval.scoring.rule_contract import HARD
from eval.scoring.stats import headline_blocks, mean_or_none, rounded

# The headline metrics, declared once: the record, report.md, the console table, report.html's
# cards, the leaderboard and compare read them from here.
HEADLINE_METRICS = (
    Metric("if_score", Mean("if_score", text="mean over instances of hard_pass × soft_mean"), judge=True),
    Metric("quality", Mean("quality"), judge=True),
    Metric("hard_pass_rate", Mean("hard_pass", text="share of instances passing every gate")),
)


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


def metrics(scores: list[dict], judged: bool) -> dict:
    """The headline numbers and every breakdown (SPEC §9, §11)."""
    return {**headline_blocks(scores, HEADLINE_METRICS, judged), **breakdowns(scores, judged=judged)}
