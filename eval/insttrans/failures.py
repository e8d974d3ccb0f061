"""InstTrans-Bench's lists for the report's failures section (SPEC §11): per hard constraint the
failing case_ids with the reason its rule wrote, per soft constraint and quality the lowest
scores. eval/reports/failures.py frames them (the record's `failure_lists`)."""

from __future__ import annotations

from collections.abc import Mapping

from eval.insttrans.rules import CONSTRAINT_KINDS, DEFAULT_RULE_SET, RULE_SETS, explain
from eval.scoring.reasons import MISSING_PREDICTION, cut, lowest
from eval.scoring.score_rows import ScoreRow


def failure_reason(constraint_id: str, detail: Mapping | None, rule_set: str = DEFAULT_RULE_SET, *,
                   missing: bool = False) -> str:
    """One line saying why a hard rule of `rule_set` failed: the explanation its rule writes from
    the verdict's detail (SPEC §7, §7b), cut to one short line; a missing prediction (the row's
    status) says so. Where the caller cannot know the run's rule set (a page built from
    scores.jsonl alone), a detail in the other set's shape is explained by the other set's rule."""
    if missing:
        return MISSING_PREDICTION
    if not isinstance(detail, Mapping) or not detail:
        return "no detail recorded"
    others = [name for name in RULE_SETS if name != rule_set]
    for name in (rule_set, *others):
        try:
            return cut(explain(constraint_id, detail, name))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            continue
    return "detail not recognised by either rule set: " + cut(str(detail), 100)


def judge_note(detail: Mapping | None, *, missing: bool = False) -> str:
    """What a Judge score's detail says beyond the placeholder: the raw reply when it carries one."""
    if missing:
        return MISSING_PREDICTION
    if not isinstance(detail, Mapping):
        return ""
    for key in ("reply", "raw_reply", "raw", "response", "text"):
        if isinstance(detail.get(key), str) and detail[key].strip():
            return cut(f"reply: {detail[key]}")
    return ""


def failure_lists(scores: list[ScoreRow], summary: dict | None, cap: int) -> dict:
    """{"hard": …, "judge": …} for eval/reports/failures.py (the soft ids, then quality); hard reasons are
    read with the run's rule set (summary `rule_set`, the original's without a summary)."""
    rule_set = (summary or {}).get("rule_set", DEFAULT_RULE_SET)
    hard: dict[str, dict] = {}
    soft: dict[str, list] = {}
    soft_n: dict[str, int] = {}
    quality: list[tuple[str, float, str]] = []
    quality_known = True
    for score in scores:
        for entry in score.constraints:
            if entry.hard:
                slot = hard.setdefault(entry.id, {"n": 0, "failed": 0, "cases": []})
                slot["n"] += 1
                if not entry.passed:
                    slot["failed"] += 1
                    if len(slot["cases"]) < cap:
                        slot["cases"].append({"case_id": score.case_id, "reason": failure_reason(
                            entry.id, entry.detail, rule_set, missing=score.missing)})
            else:
                soft_n[entry.id] = soft_n.get(entry.id, 0) + 1
                if entry.score is None:
                    soft.setdefault(entry.id, None)
                elif entry.id not in soft or soft[entry.id] is not None:
                    soft.setdefault(entry.id, []).append(
                        (score.case_id, float(entry.score), judge_note(entry.detail, missing=score.missing)))
        if score.get("quality") is None:
            quality_known = False
        else:
            quality.append((score.case_id, float(score["quality"]),
                            judge_note(score.get("quality_detail"), missing=score.missing)))
    soft_result = {}
    for cid, entries in soft.items():
        if entries is None:
            soft_result[cid] = {"n": soft_n[cid], "judged": False, "below_full": None, "cases": [], "kind": "soft"}
        else:
            soft_result[cid] = {"n": soft_n[cid], "judged": True, "below_full": sum(s < 1 for _, s, _ in entries),
                                "cases": lowest(entries, cap), "kind": "soft"}
    quality_result = ({"n": len(scores), "judged": True, "below_full": sum(s < 1 for _, s, _ in quality),
                       "cases": lowest(quality, cap)} if quality_known and scores
                      else {"n": len(scores), "judged": False, "below_full": None, "cases": []})
    order = list(CONSTRAINT_KINDS)
    rank = lambda cid: order.index(cid) if cid in order else len(order)  # noqa: E731
    return {"hard": {cid: hard[cid] for cid in sorted(hard, key=rank)},
            "judge": {**{cid: soft_result[cid] for cid in sorted(soft_result, key=rank)},
                      "quality": {**quality_result, "kind": "Judge"}}}
