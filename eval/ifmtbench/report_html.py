"""IFMTBench's sections of report.html: headline cards, per-id bars single against multi, the
glossary fallback and Judge nulls, and after the failures the breakdown tables."""

from __future__ import annotations

from eval.ifmtbench.report import GROUPS, HEADLINE_NAMES, _rate
from eval.reports.report_html import PALETTE, bar_chart_svg, cards, escape, number, page_head, table


def _id_bars(summary: dict) -> list[dict]:
    bars = []
    for cid, entry in summary["by_constraint"].items():
        for part, colour in (("single", PALETTE[0]), ("multi", PALETTE[1])):
            slot = entry[part]
            if slot.get("n"):
                bars.append({"label": f"{cid} {part}", "value": slot.get("pass_rate", slot.get("mean")),
                             "n": slot["n"], "ci95": None, "colour": colour})
    return bars


def report_html(summary: dict, scores: list[dict]) -> tuple[list[str], list[str]]:
    """The parts before the failures section and after it."""
    before = page_head(summary, "IFMTBench evaluation report")
    before.append(cards(summary, HEADLINE_NAMES))
    before.append("<h2>By constraint id: single vs multi</h2>")
    before.append(bar_chart_svg(_id_bars(summary), "Pass rate (hard) and mean Judge score (soft) over single- "
                                                   "and multi-constraint rows"))
    before.append(table(["id", "kind", "n", "all", "single", "single n", "multi", "multi n"],
                        [[escape(cid), escape(entry["kind"]), escape(entry["n"]), escape(_rate(entry)),
                          escape(_rate(entry["single"])), escape(entry["single"]["n"]),
                          escape(_rate(entry["multi"])), escape(entry["multi"]["n"])]
                         for cid, entry in summary["by_constraint"].items()], numeric={2, 3, 4, 5, 6, 7}))
    fallback, nulls = summary["glossary_fallback"], summary["judge_nulls"]
    before.append(f'<p class="muted">Glossary Judge fallback: the rule failed on {escape(fallback["rule_failed"])} '
                  f'present responses; the Judge passed {escape(fallback["judge_passed"])}, failed '
                  f'{escape(fallback["judge_failed"])}, not asked {escape(fallback["skipped"])}. Judge nulls (a '
                  f'labelled dimension answered null, scored 0): {escape(nulls["count"])}.</p>')
    after = ["<h2>Breakdowns</h2>"]
    for key, title in GROUPS:
        after.append(f"<h3>By {escape(title)}</h3>")
        after.append(table([title, "n", "if_score", "hard_pass_rate"],
                           [[escape(group), escape(entry["n"]), escape(number(entry["if_score"])),
                             escape(number(entry["hard_pass_rate"]))] for group, entry in summary[key].items()],
                           numeric={1, 2, 3}))
    return before, after
