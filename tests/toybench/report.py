"""Toy-Bench's report.md, console table, report.html sections and failure lists, in the shared
frames (eval/reports/report.py, eval/reports/report_html.py, eval/reports/failures.py)."""

from __future__ import annotations

from eval.benchmark import metric_names
from eval.scoring.reasons import cut, lowest
from eval.reports.report import console_footer, fmt, headline_cell, judge_lines, run_lines
from eval.reports.report_html import cards, escape, page_head, table

from .metrics import HEADLINE_METRICS
from .rules import RULES

HEADLINES = metric_names(HEADLINE_METRICS)
TITLE = "Toy-Bench evaluation report"


def genre_rows(summary: dict) -> list[list[str]]:
    return [[genre, str(stats["n"]), fmt(stats["hard_pass_rate"]), fmt(stats["toy_score"])]
            for genre, stats in summary["by_genre"].items()]


def report_markdown(summary: dict) -> str:
    lines = [f"# {TITLE}", ""] + run_lines(summary, "items") + judge_lines(summary.get("judge"))
    lines += ["", "| metric | value [95% CI] |", "|---|---|"]
    lines += [f"| {name} | {headline_cell(summary[name])} |" for name in HEADLINES]
    if (summary.get("report") or {}).get("genre_table") != "hidden":  # the run's --genre-table
        lines += ["", "## By genre", "", "| genre | n | hard_pass_rate | toy_score |", "|---|---:|---:|---:|"]
        lines += ["| " + " | ".join(row) + " |" for row in genre_rows(summary)]
    return "\n".join(lines) + "\n"


def console_table(summary: dict) -> str:
    out = [f"{name:<16} {fmt(summary[name]['value'])}" for name in HEADLINES]
    return "\n".join(out + console_footer(summary))


def report_html(summary: dict, scores: list[dict]) -> tuple[list[str], list[str]]:
    """(before the failures section, after it): the cards, then the per-genre table after."""
    before = page_head(summary, TITLE) + [cards(summary, HEADLINES)]
    after = ["<h2>By genre</h2>",
             table(["genre", "n", "hard_pass_rate", "toy_score"],
                   [[escape(cell) for cell in row] for row in genre_rows(summary)], numeric={1, 2, 3})]
    return before, after


def failure_lists(scores: list[dict], summary: dict | None, cap: int) -> dict:
    """Per hard rule the failing case_ids with their reason; the lowest adequacy verdicts."""
    hard = {}
    for name in RULES:
        failed = [(score.case_id, check.detail["reason"]) for score in scores for check in score.constraints
                  if check.id == name and not check.passed]
        hard[name] = {"n": len(scores), "failed": len(failed),
                      "cases": [{"case_id": cid, "reason": reason} for cid, reason in failed[:cap]]}
    judged = bool(scores) and all(score["adequacy"] is not None for score in scores)
    quality = ({"n": len(scores), "judged": True, "below_full": sum(score["adequacy"] < 1 for score in scores),
                "cases": lowest([(score["case_id"], score["adequacy"], cut(score["prediction"] or "missing", 60))
                                 for score in scores], cap)}
               if judged else {"n": len(scores), "judged": False, "below_full": None, "cases": []})
    over = [[score["case_id"], score["words_over"]] for score in scores if score["words_over"] > 0]
    table = {"heading": f"Word budget: {len(over)} of {len(scores)} over", "columns": ["case_id", "words over"],
             "numeric": [1], "rows": over[:cap]}
    return {"hard": hard, "tables": [table], "judge": {"adequacy": {**quality, "kind": "Judge"}}}
