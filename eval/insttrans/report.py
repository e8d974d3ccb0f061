"""report.md and the console table of an InstTrans-Bench run, inside the shared frame (eval/reports/report.py)."""

from __future__ import annotations

from eval.benchmark import metric_names
from eval.insttrans.metrics import HEADLINE_METRICS
from eval.reports.report import console_text, fmt, headline_cell, headline_rows, judge_lines, run_lines


def report_markdown(summary: dict) -> str:
    """report.md: headline numbers, the run's status and signature, and the breakdown tables."""
    lines = ["# InstTrans-Bench evaluation report", ""] + run_lines(summary, "instances")
    lines += judge_lines(summary.get("judge"))
    lines.append("")
    lines += ["| metric | value [95% CI] |", "|---|---|"]
    for name in (*metric_names(HEADLINE_METRICS), "hard_pass_rate_strict"):
        if name in summary:
            lines.append(f"| {name} | {headline_cell(summary[name])} |")
    if "hard_pass_rate_strict" in summary:
        lines += ["", STRICT_NOTE[0].upper() + STRICT_NOTE[1:] + "."]
    lines += ["", "## By constraint", "", "| constraint | kind | n | pass rate / mean | strict pass rate |",
              "|---|---|---:|---:|---:|"]
    for cid, entry in summary["by_constraint"].items():
        value = entry.get("pass_rate", entry.get("mean"))
        strict = fmt(entry["pass_rate_strict"]) if "pass_rate_strict" in entry else ""
        lines.append(f"| {cid} | {entry['kind']} | {entry['n']} | {fmt(value)} | {strict} |")
    for key, title in (("by_scenario", "scenario"), ("by_domain", "domain"), ("by_language_pair", "language pair"),
                       ("by_target_lang", "target language"), ("by_constraint_count", "constraints per instance")):
        lines += ["", f"## By {title}", "", f"| {title} | n | if_score | quality | hard_pass_rate |",
                  "|---|---:|---:|---:|---:|"]
        for group, entry in summary[key].items():
            lines.append(f"| {group} | {entry['n']} | {fmt(entry['if_score'])} | {fmt(entry['quality'])} "
                         f"| {fmt(entry['hard_pass_rate'])} |")
    return "\n".join(lines) + "\n"


def console_table(summary: dict) -> str:
    """The compact table printed at the end of a run."""
    rows = headline_rows(summary, HEADLINE_METRICS)
    notes = []
    if "hard_pass_rate_strict" in summary:
        rows.append(("hard_pass_rate_strict", headline_cell(summary["hard_pass_rate_strict"])))
        notes.append(STRICT_NOTE)
    rows += [(f"  {cid} ({entry['kind']}, n={entry['n']})", fmt(entry.get("pass_rate", entry.get("mean")))
              + (f"  strict {fmt(entry['pass_rate_strict'])}" if "pass_rate_strict" in entry else ""))
             for cid, entry in summary["by_constraint"].items()]
    return console_text(rows, summary, "instances", notes)


STRICT_NOTE = ("strict: the same predictions under the strict rule set (docs/strict-rules.md), shown beside the "
               "original scorer's rates, never instead of them")
