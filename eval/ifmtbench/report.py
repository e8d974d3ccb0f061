"""report.md, the console table and the failure lists of an IFMTBench run.

The failure lists read the score rows: per hard id the failing rows with the rule's one-line
reason (the glossary's Judge fallback named), per soft id the lowest scores and the Judge nulls;
the shared failures section (eval/reports/failures.py) adds the missing predictions and the diagnostics.
"""

from __future__ import annotations

from eval.benchmark import metric_names
from eval.ifmtbench.labels import ID_KINDS
from eval.ifmtbench.metrics import HEADLINE_METRICS
from eval.scoring.reasons import MISSING_PREDICTION
from eval.reports.report import console_text, fmt, headline_cell, headline_rows, judge_lines, run_lines
from eval.scoring.score_rows import ConstraintResult, Fallback, ScoreRow

TITLE = "IFMTBench"
FAILURE_CAP = 20
GROUPS = (("by_label_combination", "label combination"), ("by_instruction_lang", "instruction language"),
          ("by_language_pair", "language pair"), ("by_source_lang", "source language"),
          ("by_target_lang", "target language"), ("by_data_format", "data_format (structured rows)"),
          ("by_constraint_count", "labels per row"))
HEADLINE_NAMES = metric_names(HEADLINE_METRICS)  # report.md's table and report.html's cards


def _cell(text: object) -> str:
    """A Markdown table cell: one line, pipes and angle brackets escaped."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rate(entry: dict) -> str:
    if not entry.get("n"):
        return "-"
    return fmt(entry.get("pass_rate", entry.get("mean")))


def headline_lines(summary: dict) -> list[str]:
    lines = ["| metric | value [95% CI] | n |", "|---|---|---:|"]
    for name in HEADLINE_NAMES:
        metric = summary[name]
        n = metric.get("n", "")
        if name == "composition_drop":
            n = f"{metric['n_single']} single, {metric['n_multi']} multi"
        lines.append(f"| {name} | {headline_cell(metric)} | {n} |")
    return lines


def report_markdown(summary: dict) -> str:
    """report.md: status and signature, the headlines, per id (single vs multi), the breakdowns."""
    lines = [f"# {TITLE} evaluation report", ""] + run_lines(summary, "rows") + judge_lines(summary.get("judge"))
    lines += ["", *headline_lines(summary), "",
              "if_score is the mean over every row (a missing prediction scores 0); composition_drop is "
              "if_score_single − if_score_multi. Without the Judge only hard_pass_rate is measured.", ""]
    lines += ["## By constraint id", "", "| id | kind | n | pass rate / mean | single: n | single | multi: n | multi |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for cid, entry in summary["by_constraint"].items():
        lines.append(f"| {cid} | {entry['kind']} | {entry['n']} | {_rate(entry)} | {entry['single']['n']} "
                     f"| {_rate(entry['single'])} | {entry['multi']['n']} | {_rate(entry['multi'])} |")
    fallback, nulls = summary["glossary_fallback"], summary["judge_nulls"]
    lines += ["", f"- Glossary Judge fallback: the rule failed on {fallback['rule_failed']} present response(s); "
              f"the Judge passed {fallback['judge_passed']}, failed {fallback['judge_failed']}"
              + (f"; {fallback['skipped']} not asked (--skip-judge: counted as failures)" if fallback["skipped"] else ""),
              f"- Judge nulls (a labelled dimension the Judge found not requested; each scores 0): {nulls['count']}"
              + (" (" + ", ".join(f"{cid} {count}" for cid, count in nulls["by_id"].items()) + ")"
                 if nulls["count"] else "")]
    for key, title in GROUPS:
        lines += ["", f"## By {title}", "", f"| {title} | n | if_score | hard_pass_rate |", "|---|---:|---:|---:|"]
        for group, entry in summary[key].items():
            lines.append(f"| {_cell(group)} | {entry['n']} | {fmt(entry['if_score'])} | {fmt(entry['hard_pass_rate'])} |")
    return "\n".join(lines) + "\n"


def console_table(summary: dict) -> str:
    """The compact table printed at the end of a run."""
    rows = headline_rows(summary, HEADLINE_METRICS)
    rows += [(f"  {cid} ({entry['kind']}, n={entry['n']})", _rate(entry)) for cid, entry in summary["by_constraint"].items()]
    fallback = summary["glossary_fallback"]
    notes = [f"glossary is the rule alone: --skip-judge asked no Judge fallback ({fallback['skipped']} response(s) the "
             "rule failed count as failures; a judged run asks the Judge about them)"] if summary.get("judge") is None else []
    return console_text(rows, summary, "rows", notes)


# ---------------------------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------------------------

def failure_reason(entry: ConstraintResult, missing: bool = False) -> str:
    """One line saying why a hard label failed, read off its detail; a missing prediction (the
    row's status) says so, and the glossary's Judge fallback is named by its state."""
    if missing:
        return MISSING_PREDICTION
    reason = str(entry.detail.get("reason") or "no reason recorded")
    if entry.fallback is Fallback.FAILED:
        reason += "; the Judge fallback said 0"
    elif entry.fallback is Fallback.SKIPPED:
        reason += "; Judge fallback not asked (--skip-judge)"
    return _cut(reason)


def soft_note(entry: ConstraintResult, missing: bool = False) -> str:
    if missing:
        return MISSING_PREDICTION
    detail = entry.detail
    if detail.get("judge_null"):
        return "Judge null: dimension not found in the instruction"
    reply = (detail.get("judge") or {}).get("reply")
    return _cut(f"reply: {reply}") if reply else ""


def failure_lists(scores: list[ScoreRow], summary: dict | None = None, cap: int = FAILURE_CAP) -> dict:
    """{hard: {id: {n, failed, cases}}, judge: {id: {n, judged, below_full, cases, kind}}}: per hard
    id the failing rows with their reasons (data order), per soft id the lowest scores."""
    hard: dict[str, dict] = {}
    soft: dict[str, dict] = {}
    for score in scores:
        for entry in score.constraints:
            cid = entry.id
            if entry.hard:
                slot = hard.setdefault(cid, {"n": 0, "failed": 0, "cases": []})
                slot["n"] += 1
                if not entry.passed:
                    slot["failed"] += 1
                    if len(slot["cases"]) < cap:
                        slot["cases"].append({"case_id": score.case_id, "reason": failure_reason(entry, score.missing)})
            else:
                slot = soft.setdefault(cid, {"n": 0, "judged": True, "entries": []})
                slot["n"] += 1
                if entry.score is None:
                    slot["judged"] = False
                else:
                    slot["entries"].append((entry.score, len(slot["entries"]), score.case_id,
                                            soft_note(entry, score.missing)))
    soft_result = {}
    for cid, slot in soft.items():
        below = sorted(item for item in slot["entries"] if item[0] < 1)
        soft_result[cid] = {"n": slot["n"], "judged": slot["judged"],
                            "below_full": len(below) if slot["judged"] else None,
                            "cases": [{"case_id": case_id, "score": value, "reason": note}
                                      for value, _, case_id, note in below[:cap]] if slot["judged"] else [],
                            "kind": "soft"}
    order = list(ID_KINDS)
    return {"hard": {cid: hard[cid] for cid in order if cid in hard},
            "judge": {cid: soft_result[cid] for cid in order if cid in soft_result}}
