"""Toy-Bench scores and its summary block.

Per row: each hard rule's verdict, `hard_pass` (both pass), `adequacy` (the Judge's quality; 0 for
a missing prediction; null without the Judge), `toy_score` = hard_pass × adequacy, and
`words_over` (words beyond the budget, lower is better). The summary has the headline blocks over
eval/scoring/stats.py and a per-genre table.
"""

from __future__ import annotations

from eval.config import RunConfig
from eval.inputs.predictions import is_missing
from eval.scoring.rule_contract import DEFAULT_CONTEXT, ScoringContext, Verdict
from eval.scoring.score_rows import ConstraintResult, ScoreRow, Status
from eval.scoring.stats import headline_blocks, mean_or_none, rounded

from .metrics import HEADLINE_METRICS
from .prompt import ADEQUACY
from .rows import words
from .rules import RULES

MISSING = Verdict(False, "missing prediction")



def score_row(row: dict, prediction: str | None, verdict: dict | None, judged: bool,
              context: ScoringContext = DEFAULT_CONTEXT) -> ScoreRow:
    missing = is_missing(prediction)
    checks = []
    for index, (name, rule) in enumerate(RULES.items(), 1):
        result = MISSING if missing else rule(row, prediction, context)
        checks.append(ConstraintResult(name, "hard", result.passed, detail={"reason": result.reason}, index=index))
    hard_pass = int(all(check.passed for check in checks))
    adequacy = None if not judged else 0.0 if missing else float((verdict or {"quality": 0.0})["quality"])
    return ScoreRow.of(case_id=row["case_id"], genre=row["genre"], target_lang=row["target_lang"],
                       status=Status.MISSING if missing else Status.OK, prediction=prediction, constraints=checks,
                       hard_pass=hard_pass, adequacy=adequacy,
                       toy_score=None if adequacy is None else hard_pass * adequacy,
                       words_over=max(0, (0 if missing else words(prediction)) - row["max_words"]))


def score_rows(rows: list[dict], predictions: dict, verdicts: dict | None, config: RunConfig,
               scoring: ScoringContext = DEFAULT_CONTEXT) -> list[ScoreRow]:
    judged = verdicts is not None
    return [score_row(row, predictions.get(row["case_id"]), (verdicts or {}).get((row["case_id"], ADEQUACY)), judged,
                      scoring) for row in rows]


def by_genre(scores: list[dict]) -> dict:
    genres: dict[str, list[dict]] = {}
    for score in scores:
        genres.setdefault(score["genre"], []).append(score)
    return {genre: {"n": len(group), "hard_pass_rate": rounded(mean_or_none([s["hard_pass"] for s in group])),
                    "toy_score": rounded(mean_or_none([s["toy_score"] for s in group]))}
            for genre, group in genres.items()}


def toy_metrics(scores: list[dict], judged: bool) -> dict:
    return {**headline_blocks(scores, HEADLINE_METRICS, judged), "by_genre": by_genre(scores)}
