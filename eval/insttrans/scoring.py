"""One instance's score row (SPEC §9, §11): hard gates, soft mean, IF_Score and quality."""

from __future__ import annotations

from eval.insttrans.rules import CONSTRAINT_KINDS, HARD, RULE_TABLE
from eval.predictions import is_missing
from eval.insttrans.verdicts import JudgeResult
from eval.rule_contract import DEFAULT_CONTEXT, ScoringContext

MISSING_DETAIL = {"reason": "missing prediction (null, empty or whitespace only, or no line)"}


def score_instance(row: dict, prediction: str | None, judge: JudgeResult | None,
                   context: ScoringContext = DEFAULT_CONTEXT) -> dict:
    """The scores.jsonl row of one instance.

    `judge` is None when the Judge is skipped (soft scores, quality and, for instances with soft
    constraints, if_score become null) or when the prediction is missing (everything scores 0).
    """
    missing = is_missing(prediction)
    constraints = []
    for index, cid in enumerate(row["constraint_ids"], 1):
        entry = {"index": index, "id": cid, "kind": CONSTRAINT_KINDS[cid]}
        if missing:
            entry.update(({"passed": False} if entry["kind"] == HARD else {"score": 0.0}), detail=MISSING_DETAIL)
        elif entry["kind"] == HARD:
            verdict = RULE_TABLE.check(cid, row, prediction, context)  # the context's rule set and version
            entry.update(passed=verdict.passed, detail=verdict.detail)
        elif judge is None:
            entry.update(score=None, detail={"reason": "Judge skipped (--skip-judge)"})
        else:
            entry.update(score=judge.soft[cid], detail={"judge": "soft-constraint verdict", **judge.replies.get("soft", {})})
        constraints.append(entry)

    hard_pass = all(entry["passed"] for entry in constraints if entry["kind"] == HARD) and not missing
    soft_scores = [entry["score"] for entry in constraints if entry["kind"] != HARD]
    if missing:
        soft_mean, if_score, quality = 0.0, 0.0, 0.0
    else:
        soft_mean = None if None in soft_scores else (sum(soft_scores) / len(soft_scores) if soft_scores else 1.0)
        if_score = None if soft_mean is None else float(hard_pass) * soft_mean
        quality = judge.quality if judge is not None else None
    return {
        "case_id": row["case_id"],
        "source_lang": row["source_lang"],
        "target_lang": row["target_lang"],
        "scenario": row["scenario"],
        "domain": row["domain"],
        "constraint_ids": list(row["constraint_ids"]),
        "status": "missing" if missing else "ok",
        "constraints": constraints,
        "hard_pass": hard_pass,
        "soft_mean": soft_mean,
        "if_score": if_score,
        "quality": quality,
        # where the quality score came from: the cache key of its request and the Judge's raw reply
        "quality_detail": (judge.replies.get("quality") or None) if judge is not None and not missing else None,
    }
