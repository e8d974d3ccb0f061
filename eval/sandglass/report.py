"""report.md and the console table of a Sandglass-Bench run."""

from __future__ import annotations

from eval.reports.report import INTERVAL_LEGEND, console_footer, headline_rows, judge_lines, missing_line, run_lines
from eval.sandglass.metrics import HEADLINE_METRICS

TABLE_COLUMNS = ("n", "mean_abs_dev", "pm1", "dev_le_5", "dev_le_10", "dev_le_20", "syllable_reward", "quality",
                 "score", "slope", "q_gap_short", "q_gap_long")
PERCENT_COLUMNS = ("pm1", "dev_le_5", "dev_le_10", "dev_le_20")


def _cell(name: str, value) -> str:
    if value is None:
        return "n/a"
    if name == "n":
        return str(value)
    return f"{100 * value:.1f}%" if name in PERCENT_COLUMNS else f"{value:.4f}"


def _table(title: str, groups: dict[str, dict]) -> list[str]:
    lines = [f"| {title} | " + " | ".join(TABLE_COLUMNS) + " |", "|---|" + "---:|" * len(TABLE_COLUMNS)]
    for name, stats in groups.items():
        lines.append(f"| {name} | " + " | ".join(_cell(col, stats[col]) for col in TABLE_COLUMNS) + " |")
    return lines


def report_markdown(summary: dict) -> str:
    lines = ["# Sandglass-Bench evaluation report", ""] + run_lines(summary, "items") + judge_lines(summary.get("judge"))
    lines += ["", "| metric | value [95% CI] |", "|---|---|"]
    lines += [f"| {name} | {cell} |" for name, cell in headline_rows(summary, HEADLINE_METRICS)]
    lines += ["", "Shares (±1, dev ≤ 5/10/20%) are of all items; slope and q_gap need the three targets of a "
              "line (n/a per target kind).", ""]
    lines += _table("all", {"overall": summary["overall"]})
    for key, title in (("by_language", "language"), ("by_target_kind", "target kind"), ("by_fenqu", "fenqu")):
        lines += ["", f"## By {title}", ""] + _table(title, summary[key])
    return "\n".join(lines) + "\n"


def console_table(summary: dict) -> str:
    """The headline metrics with their intervals, the per-language table, the missing count, the footer."""
    rows = headline_rows(summary, HEADLINE_METRICS)
    width = max(len(name) for name, _ in rows)
    out = [f"{name:<{width}}  {cell}" for name, cell in rows] + [INTERVAL_LEGEND, ""]
    out.append(f"{'metric':<16}  {'overall':>8}  " + "  ".join(f"{lang:>8}" for lang in summary["by_language"]))
    for name in TABLE_COLUMNS[1:]:
        cells = [summary["overall"][name]] + [stats[name] for stats in summary["by_language"].values()]
        out.append(f"{name:<16}  " + "  ".join(f"{_cell(name, value):>8}" for value in cells))
    return "\n".join(out + [missing_line(summary, "items")] + console_footer(summary))
