"""Sandglass-Bench's sections of report.html: headline cards, the card's shares, per-language bars,
target against output syllables, and the card's tables overall and per group."""

from __future__ import annotations

from eval.benchmark import metric_names
from eval.sandglass.metrics import HEADLINE_METRICS
from eval.reports.report_html import (LANGUAGE_COLOURS, PALETTE, bar_chart_svg, bootstrap_interval, cards, escape,
                              page_head, scatter_svg, table)

SANDGLASS_COLUMNS = ("n", "mean_abs_dev", "pm1", "dev_le_5", "dev_le_10", "dev_le_20", "syllable_reward", "quality",
                     "score", "slope", "q_gap_short", "q_gap_long")
SANDGLASS_SHARES = {"pm1": "hit_pm1", "dev_le_5": "hit_strict5", "dev_le_10": "hit_10", "dev_le_20": "hit_20",
                    "syllable_reward": "syllable_reward", "quality": "quality", "score": "score"}


def _sg_cell(name: str, value) -> str:
    if value is None:
        return "n/a"
    if name == "n":
        return str(value)
    return f"{100 * value:.1f}%" if name in ("pm1", "dev_le_5", "dev_le_10", "dev_le_20") else f"{value:.4f}"


def page_sections(summary: dict, items: list[dict]) -> list[str]:
    parts = page_head(summary, "Sandglass-Bench evaluation report")
    parts.append(cards(summary, metric_names(HEADLINE_METRICS)))
    overall = summary.get("overall", {})
    bars = []
    for name, field in SANDGLASS_SHARES.items():
        value = overall.get(name)
        values = [None if item[field] is None else float(item[field]) for item in items]
        bars.append({"label": name, "value": value, "n": overall.get("n"),
                     "ci95": bootstrap_interval(values) if value is not None else None})
    parts.append("<h2>Card metrics</h2>")
    parts.append(bar_chart_svg(bars, "Shares of items and mean rewards, 95% bootstrap intervals"))
    judged = overall.get("score") is not None
    metric = "score" if judged else "syllable_reward"
    language_bars = []
    for lang, stats in summary.get("by_language", {}).items():
        values = [item[metric] for item in items if item["target_language"] == lang]
        language_bars.append({"label": lang, "value": stats.get(metric), "n": stats["n"],
                              "colour": LANGUAGE_COLOURS.get(lang, PALETTE[0]),
                              "ci95": bootstrap_interval(values) if stats.get(metric) is not None else None})
    parts.append("<h2>By target language</h2>")
    parts.append(bar_chart_svg(language_bars, f"{metric} by target language, 95% bootstrap intervals"))
    points = [{"x": item["target_syllables"], "y": item["hyp_syllables"], "lang": item["target_language"],
               "label": f"{item['case_id']}: target {item['target_syllables']}, output {item['hyp_syllables']}"}
              for item in items if not item.missing]
    parts.append("<h2>Target against output syllables</h2>")
    parts.append(scatter_svg(points, "Output syllables against the target, per item (missing predictions left out)"))
    for key, title in (("overall", "all items"), ("by_language", "language"), ("by_target_kind", "target kind"),
                       ("by_fenqu", "fenqu")):
        groups = {"overall": summary["overall"]} if key == "overall" else (summary.get(key) or {})
        parts.append(f"<h3>{escape(title[0].upper() + title[1:])}</h3>")
        parts.append(table([title, *SANDGLASS_COLUMNS],
                            [[escape(group), *(escape(_sg_cell(column, stats.get(column))) for column in SANDGLASS_COLUMNS)]
                             for group, stats in groups.items()], numeric=set(range(1, len(SANDGLASS_COLUMNS) + 1))))
    return parts


def report_html(summary: dict, items: list[dict]) -> tuple[list[str], list[str]]:
    """(before the failures section, after it)."""
    return page_sections(summary, items), []
