"""InstTrans-Bench's lists for the report's failures section (SPEC §11): per hard constraint the
failing case_ids with the reason its rule wrote, per soft constraint and quality the lowest
scores. eval/failures.py frames them (the record's `failure_lists`)."""

from __future__ import annotations

from eval.insttrans.rules import CONSTRAINT_KINDS, DEFAULT_RULE_SET, RULE_SETS, explain
from eval.reasons import MISSING_PREDICTION, cut, lowest


def failure_reason(constraint_id: str, detail: dict | None, rule_set: str = DEFAULT_RULE_SET) -> str:
    """One line saying why a hard rule of `rule_set` failed: the explanation its rule writes from
    the verdict's detail (SPEC §7, §7b), cut to one short line. Where the caller cannot know the
    run's rule set (a page built from scores.jsonl alone), a detail in the other set's shape is
    explained by the other set's rule."""
    if not isinstance(detail, dict) or not detail:
        return "no detail recorded"
    if str(detail.get("reason", "")).startswith(MISSING_PREDICTION):
        return MISSING_PREDICTION
    others = [name for name in RULE_SETS if name != rule_set]
    for name in (rule_set, *others):
        try:
            return cut(explain(constraint_id, detail, name))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            continue
    return "detail not recognised by either rule set: " + cut(str(detail), 100)


def judge_note(detail: dict | None) -> str:
    """What a Judge score's detail says beyond the placeholder: the raw reply when it carries one."""
    if not isinstance(detail, dict):
        return ""
    if str(detail.get("reason", "")).startswith(MISSING_PREDICTION):
        return MISSING_PREDICTION
    for key in ("reply", "raw_reply", "raw", "response", "text"):
        if isinstance(detail.get(key), str) and detail[key].strip():
            return cut(f"reply: {detail[key]}")
    return ""


def failure_lists(scores: list[dict], summary: dict | None, cap: int) -> dict:
    """{"hard": …, "soft": …, "quality": …} for eval/failures.py; hard reasons are read with the
    run's rule set (summary `rule_set`, the original's without a summary)."""
    rule_set = (summary or {}).get("rule_set", DEFAULT_RULE_SET)
    hard: dict[str, dict] = {}
    soft: dict[str, list] = {}
    soft_n: dict[str, int] = {}
    quality: list[tuple[str, float, str]] = []
    quality_known = True
    for score in scores:
        for entry in score["constraints"]:
            if entry["kind"] == "hard":
                slot = hard.setdefault(entry["id"], {"n": 0, "failed": 0, "cases": []})
                slot["n"] += 1
                if not entry["passed"]:
                    slot["failed"] += 1
                    if len(slot["cases"]) < cap:
                        slot["cases"].append({"case_id": score["case_id"],
                                              "reason": failure_reason(entry["id"], entry.get("detail"), rule_set)})
            else:
                soft_n[entry["id"]] = soft_n.get(entry["id"], 0) + 1
                if entry.get("score") is None:
                    soft.setdefault(entry["id"], None)
                elif entry["id"] not in soft or soft[entry["id"]] is not None:
                    soft.setdefault(entry["id"], []).append(
                        (score["case_id"], float(entry["score"]), judge_note(entry.get("detail"))))
        if score.get("quality") is None:
            quality_known = False
        else:
            quality.append((score["case_id"], float(score["quality"]),
                            MISSING_PREDICTION if score.get("status") == "missing"
                            else judge_note(score.get("quality_detail"))))
    soft_result = {}
    for cid, entries in soft.items():
        if entries is None:
            soft_result[cid] = {"n": soft_n[cid], "judged": False, "below_full": None, "cases": []}
        else:
            soft_result[cid] = {"n": soft_n[cid], "judged": True, "below_full": sum(s < 1 for _, s, _ in entries),
                                "cases": lowest(entries, cap)}
    quality_result = ({"n": len(scores), "judged": True, "below_full": sum(s < 1 for _, s, _ in quality),
                       "cases": lowest(quality, cap)} if quality_known and scores
                      else {"n": len(scores), "judged": False, "below_full": None, "cases": []})
    order = list(CONSTRAINT_KINDS)
    rank = lambda cid: order.index(cid) if cid in order else len(order)  # noqa: E731
    return {"hard": {cid: hard[cid] for cid in sorted(hard, key=rank)},
            "soft": {cid: soft_result[cid] for cid in sorted(soft_result, key=rank)}, "quality": quality_result}
