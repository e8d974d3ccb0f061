"""InstTrans-Bench's sections of report.html: headline cards, per-constraint bars (with the strict
rates beside them), per-language bars, and after the failures the breakdown tables."""

from __future__ import annotations

from collections import defaultdict

from eval.benchmark import metric_names
from eval.insttrans.metrics import HEADLINE_METRICS
from eval.insttrans.report import STRICT_NOTE
from eval.reports.report_html import (PALETTE, bar_chart_svg, bootstrap_interval, cards, escape, number, page_head,
                              table)


def _constraint_bars(summary: dict, scores: list[dict]) -> list[dict]:
    verdicts: dict[str, list] = defaultdict(list)
    for score in scores:
        for entry in score["constraints"]:
            verdicts[entry["id"]].append(float(entry["passed"]) if entry["kind"] == "hard" else entry["score"])
    bars = []
    for cid, entry in summary.get("by_constraint", {}).items():
        value = entry.get("pass_rate", entry.get("mean"))
        interval = entry.get("ci95") or (bootstrap_interval(verdicts[cid]) if value is not None else None)
        bars.append({"label": f"{cid} ({entry['kind']})", "value": value, "ci95": interval, "n": entry["n"],
                     "colour": PALETTE[0] if entry["kind"] == "hard" else PALETTE[1]})
    return bars


def _language_bars(summary: dict, scores: list[dict], metric: str, field: str) -> list[dict]:
    values: dict[str, list] = defaultdict(list)
    for score in scores:
        raw = score[field]
        values[score["target_lang"]].append(None if raw is None else float(raw))
    bars = []
    for lang, entry in summary.get("by_target_lang", {}).items():
        value = entry.get(metric)
        bars.append({"label": lang, "value": value, "n": entry["n"],
                     "ci95": bootstrap_interval(values[lang]) if value is not None else None})
    return bars


def page_sections(summary: dict, scores: list[dict]) -> list[str]:
    parts = page_head(summary, "InstTrans-Bench evaluation report")
    parts.append(cards(summary, metric_names(HEADLINE_METRICS)
                        + (("hard_pass_rate_strict",) if "hard_pass_rate_strict" in summary else ())))
    if "hard_pass_rate_strict" in summary:
        parts.append(f'<p class="muted">hard_pass_rate_strict: {escape(STRICT_NOTE.removeprefix("strict: "))}.</p>')
    parts.append("<h2>By constraint</h2>")
    parts.append(bar_chart_svg(_constraint_bars(summary, scores),
                               "Pass rate (hard) and mean Judge score (soft), 95% bootstrap intervals"))
    strict_rows = [[escape(cid), escape(entry["n"]), escape(number(entry["pass_rate"])), escape(number(entry["pass_rate_strict"]))]
                   for cid, entry in summary.get("by_constraint", {}).items() if "pass_rate_strict" in entry]
    if strict_rows:  # the strict rule set, beside the scores and never instead of them
        parts.append('<p class="muted">Hard pass rates under the original rules (the scores) and the strict '
                     "rule set (reported beside them).</p>")
        parts.append(table(["constraint", "n", "pass rate", "strict pass rate"], strict_rows, numeric={1, 2, 3}))
    judged = summary.get("if_score", {}).get("value") is not None
    metric, field = ("if_score", "if_score") if judged else ("hard_pass_rate", "hard_pass")
    parts.append("<h2>By target language</h2>")
    parts.append(bar_chart_svg(_language_bars(summary, scores, metric, field),
                               f"{metric} by target language, 95% bootstrap intervals"))
    return parts


def breakdown_tables(summary: dict) -> list[str]:
    """The breakdown tables, after the failures: the language-pair table alone is long."""
    parts = ["<h2>Breakdowns</h2>"]
    for key, title in (("by_scenario", "scenario"), ("by_domain", "domain"), ("by_language_pair", "language pair"),
                       ("by_target_lang", "target language"), ("by_constraint_count", "constraints per instance")):
        groups = summary.get(key) or {}
        parts.append(f"<h3>By {escape(title)}</h3>")
        parts.append(table([title, "n", "if_score", "quality", "hard_pass_rate"],
                            [[escape(group), escape(entry["n"]), escape(number(entry["if_score"])), escape(number(entry["quality"])),
                              escape(number(entry["hard_pass_rate"]))] for group, entry in groups.items()],
                            numeric={1, 2, 3, 4}))
    return parts


def report_html(summary: dict, scores: list[dict]) -> tuple[list[str], list[str]]:
    """(before the failures section, after it): the breakdown tables come last, the language-pair
    table alone is long."""
    return page_sections(summary, scores), breakdown_tables(summary)
