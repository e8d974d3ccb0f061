"""report.html (SPEC §11): one self-contained page per run, for any benchmark.

This module is the page's frame and its pieces (header, cards, bar chart, scatter plot, tables,
the failures section); each benchmark writes its own sections with them
(`Benchmark.report_html`: eval/insttrans/report_html.py, eval/sandglass/report_html.py).

Inline CSS and hand-written SVG only: no network, no script, no plotting library (a few bars and
one scatter plot do not earn matplotlib's weight). Every text that comes from data, predictions
or settings goes through html.escape. Per-constraint and per-language intervals are bootstrapped
here with eval.scoring.stats (same seed and resamples as the summary) when the summary lacks them.
"""

from __future__ import annotations

import html
from urllib.parse import quote
from typing import TYPE_CHECKING

from eval.reports.report import judge_badge, stand_in_note
from eval.scoring.stats import bootstrap_ci

if TYPE_CHECKING:
    from eval.benchmark import Benchmark

PALETTE = ("#3366aa", "#dd7722", "#339966", "#aa3377", "#777777", "#bbaa22")
LANGUAGE_COLOURS = {"en": "#3366aa", "ja": "#dd7722", "es": "#339966", "ar": "#aa3377"}

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC","Noto Sans CJK JP",
"Noto Sans CJK KR","PingFang SC","Hiragino Sans","Microsoft YaHei","Noto Sans Arabic","Noto Sans Thai",
"Noto Sans Devanagari",sans-serif;
margin:0;padding:24px 32px;color:#1d2330;background:#fff;max-width:1200px}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #dde;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.status{padding:6px 10px;border-radius:4px;display:inline-block;margin:4px 0}
.formal{background:#e3f4e6;color:#1d5e2a}.informal{background:#fdf0d8;color:#7a4b00}
code,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:12px}
.signature{background:#f4f5f8;border:1px solid #e0e3ea;padding:6px 8px;border-radius:4px;overflow-wrap:normal;word-break:normal}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{border:1px solid #dde;border-radius:6px;padding:10px 14px;min-width:170px}
.card .name{color:#556;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .value{font-size:24px;font-weight:600}.card .ci{color:#556;font-size:12px}
table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid #e0e3ea;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f4f5f8}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.reason{max-width:720px}.muted{color:#667}svg{display:block;margin:6px 0 14px}
ul.meta{margin:4px 0;padding-left:18px}
"""


def escape(value) -> str:
    return html.escape(str(value), quote=True)


def number(value, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def bootstrap_interval(values: list) -> list[float] | None:
    """The summary's bootstrap (seeded) over `values`; None when empty or unknown."""
    return bootstrap_ci(values) if values and None not in values else None


# ---------------------------------------------------------------------------------------------
# SVG charts
# ---------------------------------------------------------------------------------------------

def bar_chart_svg(bars: list[dict], title: str, maximum: float = 1.0, width: int = 900) -> str:
    """Horizontal bars, one per {label, value, ci95, n, colour?}, with interval whiskers; the
    scale runs from 0 to `maximum` (1 for rates and means of 0/0.5/1 scores)."""
    label_width, right_pad, bar_height, gap, top = 230, 220, 18, 8, 34
    plot = width - label_width - right_pad
    height = top + len(bars) * (bar_height + gap) + 28
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
           f'aria-label="{escape(title)}" font-family="system-ui,sans-serif" font-size="12">',
           f'<text x="0" y="16" font-size="14" font-weight="600">{escape(title)}</text>']
    for step in range(5):
        fraction = step / 4
        x = label_width + plot * fraction
        out.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 24}" stroke="#e3e6ee"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 8}" text-anchor="middle" fill="#667">'
                   f'{maximum * fraction:g}</text>')
    for index, bar in enumerate(bars):
        y = top + index * (bar_height + gap)
        value, colour = bar.get("value"), bar.get("colour", PALETTE[0])
        out.append(f'<text x="{label_width - 8}" y="{y + bar_height - 4}" text-anchor="end">{escape(bar["label"])}</text>')
        if value is None:
            out.append(f'<text x="{label_width + 4}" y="{y + bar_height - 4}" fill="#889">not scored</text>')
            continue
        length = plot * max(0.0, min(value, maximum)) / maximum
        out.append(f'<rect x="{label_width}" y="{y}" width="{length:.1f}" height="{bar_height}" fill="{colour}" '
                   f'opacity="0.85"><title>{escape(bar["label"])}: {value:.4f}</title></rect>')
        interval = bar.get("ci95")
        if interval:
            low, high = (label_width + plot * max(0.0, min(v, maximum)) / maximum for v in interval)
            middle = y + bar_height / 2
            out.append(f'<line x1="{low:.1f}" y1="{middle}" x2="{high:.1f}" y2="{middle}" stroke="#111" '
                       f'stroke-width="1.5"/>')
            for end in (low, high):
                out.append(f'<line x1="{end:.1f}" y1="{y + 3}" x2="{end:.1f}" y2="{y + bar_height - 3}" '
                           f'stroke="#111" stroke-width="1.5"/>')
        text = f"{value:.3f}" + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")
        text += f"  n={bar['n']}" if bar.get("n") is not None else ""
        out.append(f'<text x="{label_width + plot + 6}" y="{y + bar_height - 4}" fill="#334">{escape(text)}</text>')
    out.append("</svg>")
    return "".join(out)


def scatter_svg(points: list[dict], title: str, width: int = 900, height: int = 460) -> str:
    """Target (x) against output (y) syllables, one dot per item coloured by language, with the
    diagonal (on target) and the ±20% band."""
    left, bottom, top, right = 56, 44, 34, 150
    plot_w, plot_h = width - left - right, height - top - bottom
    limit = max([max(p["x"], p["y"]) for p in points] + [10])
    limit = int(limit * 1.05) + 1

    def sx(value: float) -> float:
        return left + plot_w * value / limit

    def sy(value: float) -> float:
        return top + plot_h * (1 - value / limit)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
           f'aria-label="{escape(title)}" font-family="system-ui,sans-serif" font-size="12">',
           f'<text x="0" y="16" font-size="14" font-weight="600">{escape(title)}</text>',
           f'<polygon points="{sx(0):.1f},{sy(0):.1f} {sx(limit / 1.2):.1f},{sy(limit):.1f} '
           f'{sx(limit):.1f},{sy(limit):.1f} {sx(limit):.1f},{sy(limit * 0.8):.1f}" fill="#e6f0df"/>']
    tick = max(1, round(limit / 6 / 5) * 5)
    for value in range(0, limit + 1, tick):
        out.append(f'<line x1="{sx(value):.1f}" y1="{top}" x2="{sx(value):.1f}" y2="{top + plot_h}" stroke="#eceef3"/>')
        out.append(f'<line x1="{left}" y1="{sy(value):.1f}" x2="{left + plot_w}" y2="{sy(value):.1f}" stroke="#eceef3"/>')
        out.append(f'<text x="{sx(value):.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#667">{value}</text>')
        out.append(f'<text x="{left - 6}" y="{sy(value) + 4:.1f}" text-anchor="end" fill="#667">{value}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#99a"/>')
    out.append(f'<line x1="{sx(0):.1f}" y1="{sy(0):.1f}" x2="{sx(limit):.1f}" y2="{sy(limit):.1f}" '
               f'stroke="#555" stroke-dasharray="4 3"/>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle">target syllables</text>')
    out.append(f'<text x="14" y="{top + plot_h / 2}" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + plot_h / 2})">output syllables</text>')
    for point in points:
        colour = LANGUAGE_COLOURS.get(point["lang"], "#777")
        out.append(f'<circle cx="{sx(point["x"]):.1f}" cy="{sy(point["y"]):.1f}" r="3.2" fill="{colour}" '
                   f'fill-opacity="0.65"><title>{escape(point["label"])}</title></circle>')
    languages = sorted({point["lang"] for point in points}, key=lambda lang: list(LANGUAGE_COLOURS).index(lang)
                       if lang in LANGUAGE_COLOURS else 99)
    legend_x = left + plot_w + 16
    for index, lang in enumerate(languages):
        y = top + 10 + index * 20
        out.append(f'<circle cx="{legend_x}" cy="{y}" r="5" fill="{LANGUAGE_COLOURS.get(lang, "#777")}"/>')
        out.append(f'<text x="{legend_x + 10}" y="{y + 4}">{escape(lang)}</text>')
    y = top + 10 + len(languages) * 20 + 10
    out.append(f'<line x1="{legend_x - 6}" y1="{y}" x2="{legend_x + 6}" y2="{y}" stroke="#555" stroke-dasharray="4 3"/>')
    out.append(f'<text x="{legend_x + 10}" y="{y + 4}">on target</text>')
    out.append(f'<rect x="{legend_x - 6}" y="{y + 14}" width="12" height="10" fill="#e6f0df"/>')
    out.append(f'<text x="{legend_x + 10}" y="{y + 23}">within ±20%</text>')
    out.append("</svg>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Page parts
# ---------------------------------------------------------------------------------------------

def table(header: list[str], rows: list[list], numeric: set[int] = frozenset()) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = []
    for row in rows:
        cells = []
        for index, cell in enumerate(row):
            css = ' class="num"' if index in numeric else ""
            cells.append(f"<td{css}>{cell}</td>")  # cells arrive escaped
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def page_head(summary: dict, title: str) -> list[str]:
    formal = summary.get("formal")
    status = ("formal run" + judge_badge(summary) if formal
              else "NOT a formal run: " + "; ".join(summary.get("non_formal_reasons", []))) + stand_in_note(summary)
    data, predictions = summary["data"], summary["predictions"]
    judge = summary.get("judge")
    judge_line = (f"{escape(judge['model'])} ({escape(judge['endpoint_kind'])}) at {escape(judge['host'])}; "
                  f"{escape(judge.get('calls'))} calls, {escape(judge.get('cache_hits'))} cache hits" if judge else "skipped")
    system = summary.get("system") or {}
    known_as = data.get("known_as") or "not a known data set"
    if data.get("warnings"):
        known_as += f", {len(data['warnings'])} data warnings"
    parts = [f"<h1>{escape(title)}</h1>",
             f'<div class="status {"formal" if formal else "informal"}">{escape(status)}</div>',
             f'<p>Signature: <code class="signature">{"|<wbr>".join(escape(part) for part in summary["signature"].split("|"))}</code></p>',
             '<ul class="meta">',
             f"<li>Data: {escape(data['source'])} ({escape(data['n_instances'])} instances, sha256 "
             f"<code>{escape(data['sha256'][:12])}</code>, known as: {escape(known_as)})</li>",
             f"<li>Predictions: {escape(predictions['path'])} ({escape(predictions['rows'])} lines, "
             f"{escape(predictions['missing'])} missing)</li>",
             *([f"<li>Rules: the official scorer's, scorer version {escape(summary['scorer_version'])}</li>"]
               if summary.get("scorer_version") else []),
             f"<li>Judge: {judge_line}</li>"]
    if system.get("model"):
        parts.append(f"<li>System: {escape(system['model'])}</li>")
    parts.append("</ul>")
    protocol = summary.get("protocol")  # only under --protocol release (SPEC §15)
    if protocol:
        parts += ["<h2>Protocol: release</h2>", '<ul class="meta">',
                  f"<li>protocol: release; syllable counter: {escape(protocol['syllable_counter'] or 'none')}</li>"]
        parts += [f"<li><code>{escape(path)}</code> sha256 <code>{escape(entry['sha256'])}</code>"
                  + ("" if entry["matches_examined_copy"] else " (differs from the copy the facts were checked on)")
                  + "</li>" for path, entry in protocol["files"].items()]
        parts += [f"<li>Comparable with: {escape(item)}</li>" for item in protocol["comparable_with"]]
        parts += [f"<li>Not comparable with: {escape(item)}</li>" for item in protocol["not_comparable_with"]]
        parts.append("</ul>")
    return parts


def cards(summary: dict, names: tuple[str, ...]) -> str:
    cards = []
    for name in names:
        metric = summary.get(name) or {}
        value, interval = metric.get("value"), metric.get("ci95")
        ci = f"95% CI [{interval[0]:.4f}, {interval[1]:.4f}]" if interval else "not scored"
        cards.append(f'<div class="card"><div class="name">{escape(name)}</div><div class="value">{escape(number(value))}</div>'
                     f'<div class="ci">{escape(ci)}</div></div>')
    return f'<div class="cards">{"".join(cards)}</div>'


def _case_link(case_id: str) -> str:
    """A case_id that opens its instance in explorer.html, the run's page of every instance."""
    return (f'<a href="explorer.html#case={escape(quote(str(case_id), safe=""))}">'
            f"<code>{escape(case_id)}</code></a>")


def _calibration_html(judge: dict | None) -> list[str]:
    """The Judge's calibration per prompt kind (SPEC §17); nothing without a Judge."""
    from eval.judge.calibration import CALIBRATION_COLUMNS, UNCALIBRATED, calibration_rows

    if not judge:
        return []
    out = ['<h2 id="judge-calibration">Judge calibration</h2>']
    calibration = judge.get("calibration")
    if not calibration:
        return out + [f'<p class="muted">{escape(UNCALIBRATED.replace("`", ""))}</p>']
    out.append(f'<p class="muted">Calibrated by <code>{escape(calibration["file"])}</code> (sha256 '
               f'{escape(calibration["sha256"][:12])}): the Judge against known answers, per prompt kind.</p>')
    return out + [table(CALIBRATION_COLUMNS, [[escape(cell) for cell in row] for row in calibration_rows(judge)],
                        numeric={1, 2, 3, 4, 5})]


def _failures_html(data: dict) -> list[str]:
    out = ['<h2 id="failures">Failures</h2>',
           f'<p class="muted">The first {escape(data["cap"])} per list, in data order (soft and quality: lowest '
           "first); scores.jsonl holds every instance and the full detail, and explorer.html beside this page shows "
           "each of them (a case_id below opens it there).</p>"]
    if data["missing"]["count"]:
        ids = ", ".join(_case_link(cid) for cid in data["missing"]["case_ids"])
        out.append(f"<p>Missing predictions ({escape(data['missing']['count'])}): {ids}</p>")
    for cid, slot in data.get("hard", {}).items():
        out.append(f"<h3>{escape(cid)} (hard): {escape(slot['failed'])} of {escape(slot['n'])} failed</h3>")
        if slot["cases"]:
            out.append(table(["case_id", "reason"], [[_case_link(case['case_id']), escape(case["reason"])]
                                                      for case in slot["cases"]]))
    for block in data.get("tables", []):
        out.append(f"<h3>{escape(block['heading'])}</h3>")
        if block["rows"]:
            out.append(table(block["columns"], [[_case_link(row[0]), *(escape(cell) for cell in row[1:])]
                                                for row in block["rows"]], numeric=set(block.get("numeric", ()))))
    for cid, slot in data.get("judge", {}).items():
        kind = slot["kind"]
        if not slot["judged"]:
            out.append(f"<h3>{escape(cid)} ({kind}): not judged (--skip-judge)</h3>")
            continue
        out.append(f"<h3>{escape(cid)} ({kind}): {escape(slot['below_full'])} of {escape(slot['n'])} below 1</h3>")
        if slot["cases"]:
            out.append(table(["case_id", "score", "note"], [[_case_link(case['case_id']),
                                                              escape(f"{case['score']:g}"), escape(case["reason"])]
                                                             for case in slot["cases"]], numeric={1}))
    out.append("<h3>Prediction diagnostics (no effect on scores)</h3><ul>")
    for name, entry in data["diagnostics"].items():
        ids = "" if not entry["case_ids"] else ": " + ", ".join(_case_link(cid) for cid in entry["case_ids"])
        more = (f" (+{entry['count'] - len(entry['case_ids'])} more)"
                if entry["case_ids"] is not None and entry["count"] > len(entry["case_ids"]) else "")
        out.append(f"<li>{escape(name.replace('_', ' '))}: {escape(entry['count'])}{ids}{escape(more)}</li>")
    out.append("</ul>")
    return out


# ---------------------------------------------------------------------------------------------

def render_report_html(summary: dict, scores: list[dict], bench: Benchmark, failure_lists: dict,
                       extra: tuple[str, ...] = ()) -> str:
    """The whole page of one run: the benchmark's sections (headline numbers with intervals, the
    signature, the charts, the breakdown tables) around the failures section (SPEC §11), whose
    lists (`eval.reports.failures.failures`) report.md shows too; `extra` HTML sections come last (SPEC
    §16's: eval/published.py `sections_html`)."""
    before, after = bench.report_html(summary, scores)
    parts = before + _failures_html(failure_lists) + after + list(extra) + _calibration_html(summary.get("judge"))
    title = bench.title
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)} report</title><meta name=\"viewport\" content=\"width=device-width\">"
            f"<style>{CSS}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n")
