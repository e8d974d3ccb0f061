"""One instance's score row (SPEC §9, §11): hard gates, soft mean, IF_Score and quality."""

from __future__ import annotations

from eval.insttrans.rules import CONSTRAINT_KINDS, RULE_TABLE
from eval.scoring.rule_contract import HARD
from eval.inputs.predictions import is_missing
from eval.insttrans.verdicts import JudgeResult
from eval.scoring.rule_contract import DEFAULT_CONTEXT, ScoringContext
from eval.scoring.score_rows import ConstraintResult, ScoreRow, Status, missing_detail, skipped_detail


def score_instance(row: dict, prediction: str | None, judge: JudgeResult | None,
                   context: ScoringContext = DEFAULT_CONTEXT) -> ScoreRow:
    """The scores.jsonl row of one instance.

    `judge` is None when the Judge is skipped (soft scores, quality and, for instances with soft
    constraints, if_score become null) or when the prediction is missing (everything scores 0).
    """
    missing = is_missing(prediction)
    constraints = []
    for index, cid in enumerate(row["constraint_ids"], 1):
        kind = CONSTRAINT_KINDS[cid]
        if missing:
            entry = ConstraintResult(cid, kind, False, 0.0, missing_detail(), index)
        elif kind == HARD:
            verdict = RULE_TABLE.check(cid, row, prediction, context)  # the context's rule set and version
            entry = ConstraintResult(cid, kind, passed=verdict.passed, detail=verdict.detail, index=index)
        elif judge is None:
            entry = ConstraintResult(cid, kind, score=None, detail=skipped_detail(), index=index)
        else:
            entry = ConstraintResult(cid, kind, score=judge.soft[cid], index=index,
                                     detail={"judge": "soft-constraint verdict", **judge.replies.get("soft", {})})
        constraints.append(entry)

    hard_pass = all(entry.passed for entry in constraints if entry.hard) and not missing
    soft_scores = [entry.score for entry in constraints if not entry.hard]
    if missing:
        soft_mean, if_score, quality = 0.0, 0.0, 0.0
    else:
        soft_mean = None if None in soft_scores else (sum(soft_scores) / len(soft_scores) if soft_scores else 1.0)
        if_score = None if soft_mean is None else float(hard_pass) * soft_mean
        quality = judge.quality if judge is not None else None
    return ScoreRow.of(
        case_id=row["case_id"],
        source_lang=row["source_lang"],
        target_lang=row["target_lang"],
        scenario=row["scenario"],
        domain=row["domain"],
        constraint_ids=list(row["constraint_ids"]),
        status=Status.MISSING if missing else Status.OK,
        constraints=constraints,
        hard_pass=hard_pass,
        soft_mean=soft_mean,
        if_score=if_score,
        quality=quality,
        # where the quality score came from: the cache key of its request and the Judge's raw reply
        quality_detail=(judge.replies.get("quality") or None) if judge is not None and not missing else None,
    )
