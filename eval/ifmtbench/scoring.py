"""IFMTBench's Judge requests and score rows (SPEC §14).

A single-constraint row's if_score is its one score (hard 1/0, soft value / 5); a multi-constraint
row's is the product of its hard verdicts times the mean of its soft scores (1.0 when it has
none): one formula serves both. A missing prediction scores 0 on every label, stays in every
denominator and gets no Judge call (SPEC §6). Without the Judge a soft score is null, and a
glossary rule failure stays a failure (`detail.fallback: "skipped"`).
"""

from __future__ import annotations

import dataclasses

from eval.ifmtbench.labels import HARD, ID_KINDS, SOFT
from eval.ifmtbench.prompt import (GLOSSARY, RUBRIC, render_glossary_prompt, render_rubric_prompt, validate_glossary,
                                   validate_rubric)
from eval.ifmtbench.rows import data_format_group
from eval.ifmtbench.rules import RULES, forget_glossary_verdicts, glossary_verdict
from eval.inputs.predictions import is_missing
from eval.scoring.rule_contract import DEFAULT_CONTEXT, ScoringContext
from eval.scoring.score_rows import ConstraintResult, Fallback, ScoreRow, Status, missing_detail, skipped_detail


def needs_rubric(row: dict) -> bool:
    return any(ID_KINDS[cid] == SOFT for cid in row["constraint_ids"])


def judge_requests(rows: list[dict], predictions: dict) -> list:
    """One rubric request per row with style or background (both read from one answer), and one
    glossary request per row whose glossary rule fails; none for a missing prediction."""
    from eval.judge_client import JudgeRequest

    requests = []
    forget_glossary_verdicts()
    for row in rows:
        response = predictions.get(row["case_id"])
        if is_missing(response):
            continue
        if needs_rubric(row):
            requests.append(JudgeRequest(row["case_id"], RUBRIC, render_rubric_prompt(row, response), validate_rubric))
        if "glossary" in row["constraint_ids"] and not glossary_verdict(row, response, remember=True).passed:
            requests.append(JudgeRequest(row["case_id"], GLOSSARY, render_glossary_prompt(row, response),
                                         validate_glossary))
    return requests


def _reply(verdicts, case_id: str, name: str) -> dict:
    """{cache_key, reply} of a verdict, for audit in the score's detail."""
    return dict(getattr(verdicts, "replies", {}).get((case_id, name), {}))


def _with_fallback(rule: ConstraintResult, row: dict, verdicts: dict | None) -> ConstraintResult:
    """The glossary's result once its Judge fallback is read: the rule's pass stands; a failure
    stands without the Judge (skipped), else the Judge's 0/1 decides (SPEC §14)."""
    if rule.passed:
        return dataclasses.replace(rule, detail={"method": "rule", **rule.detail})
    if verdicts is None:
        return dataclasses.replace(rule, detail={"method": "rule", "fallback": Fallback.SKIPPED, **rule.detail})
    answer = verdicts[(row["case_id"], GLOSSARY)]["glossary"]
    return dataclasses.replace(rule, passed=answer == 1, detail={
        "method": "judge_fallback", "fallback": Fallback.PASSED if answer == 1 else Fallback.FAILED,
        "rule": dict(rule.detail), "reason": rule.detail.get("reason", ""),
        "judge": _reply(verdicts, row["case_id"], GLOSSARY)})


def _soft_entry(row: dict, cid: str, verdicts: dict | None, index: int) -> ConstraintResult:
    if verdicts is None:
        return ConstraintResult(cid, SOFT, score=None, detail=skipped_detail(), index=index)
    value = verdicts[(row["case_id"], RUBRIC)][cid]
    judge = _reply(verdicts, row["case_id"], RUBRIC)
    if value is None:
        return ConstraintResult(cid, SOFT, score=0.0, index=index,
                                detail={"judge_null": True, "value": None, "judge": judge,
                                        "reason": f"the Judge found no {cid} requirement in the instruction"})
    return ConstraintResult(cid, SOFT, score=value / 5, detail={"value": value, "judge": judge}, index=index)


def score_row(row: dict, response: str | None, verdicts: dict | None,
              context: ScoringContext = DEFAULT_CONTEXT) -> ScoreRow:
    """The scores.jsonl row of one instance; `verdicts` is None without the Judge."""
    missing = is_missing(response)
    constraints = []
    for index, cid in enumerate(row["constraint_ids"], 1):
        kind = ID_KINDS[cid]
        if missing:
            entry = ConstraintResult(cid, kind, False, 0.0, missing_detail(), index)
        elif kind == HARD:  # the glossary's verdict is the request builder's when it ran the rule
            verdict = glossary_verdict(row, response) if cid == "glossary" else RULES[cid](row, response, context)
            entry = ConstraintResult(cid, kind, passed=verdict.passed, detail=verdict.detail, index=index)
            if cid == "glossary":
                entry = _with_fallback(entry, row, verdicts)
        else:
            entry = _soft_entry(row, cid, verdicts, index)
        constraints.append(entry)
    hard_pass = not missing and all(entry.passed for entry in constraints if entry.hard)
    soft = [entry.score for entry in constraints if entry.kind == SOFT]
    if missing:
        soft_mean, if_score = 0.0, 0.0
    else:
        soft_mean = None if None in soft else (sum(soft) / len(soft) if soft else 1.0)
        if_score = None if soft_mean is None else float(hard_pass) * soft_mean
    return ScoreRow.of(
        case_id=row["case_id"],
        md5=row["md5"],
        instruction_lang=row.get("instruction_lang"),
        source_lang=row.get("origin_language"),
        target_lang=row.get("target_language"),
        data_format=data_format_group(row) if "structured" in row["constraint_ids"] else None,
        data_file=row.get("data_file"),
        constraint_ids=list(row["constraint_ids"]),
        multi=len(row["constraint_ids"]) > 1,
        status=Status.MISSING if missing else Status.OK,
        constraints=constraints,
        hard_pass=hard_pass,
        soft_mean=soft_mean,
        if_score=if_score,
        judge_nulls=sum(1 for entry in constraints if entry.detail.get("judge_null")),
    )


def score_rows(rows: list[dict], predictions: dict, verdicts: dict | None, config=None,
               scoring: ScoringContext = DEFAULT_CONTEXT) -> list[ScoreRow]:
    """scores.jsonl rows in data order; the rules run under the pipeline's scoring context."""
    return [score_row(row, predictions.get(row["case_id"]), verdicts, scoring) for row in rows]
