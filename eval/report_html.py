"""report.html (SPEC §11): one self-contained page per run, for either benchmark.

Inline CSS and hand-written SVG only: no network, no script, no plotting library (a few bars and
one scatter plot do not earn matplotlib's weight). Every text that comes from data, predictions
or settings goes through html.escape. Per-constraint and per-language intervals are bootstrapped
here with eval.metrics (same seed and resamples as the summary) when the summary lacks them.
"""

from __future__ import annotations

import html
from collections import defaultdict

from eval.failures import failures
from eval.metrics import bootstrap_ci

PALETTE = ("#3366aa", "#dd7722", "#339966", "#aa3377", "#777777", "#bbaa22")
LANGUAGE_COLOURS = {"en": "#3366aa", "ja": "#dd7722", "es": "#339966", "ar": "#aa3377"}

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",sans-serif;
margin:0;padding:24px 32px;color:#1d2330;background:#fff;max-width:1200px}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #dde;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.status{padding:6px 10px;border-radius:4px;display:inline-block;margin:4px 0}
.formal{background:#e3f4e6;color:#1d5e2a}.informal{background:#fdf0d8;color:#7a4b00}
code,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:12px}
.signature{background:#f4f5f8;border:1px solid #e0e3ea;padding:6px 8px;border-radius:4px;word-break:break-all}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{border:1px solid #dde;border-radius:6px;padding:10px 14px;min-width:170px}
.card .name{color:#556;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .value{font-size:24px;font-weight:600}.card .ci{color:#556;font-size:12px}
table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid #e0e3ea;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f4f5f8}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.reason{max-width:720px}.muted{color:#667}svg{display:block;margin:6px 0 14px}
ul.meta{margin:4px 0;padding-left:18px}
"""


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _interval(values: list) -> list[float] | None:
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
           f'aria-label="{_e(title)}" font-family="system-ui,sans-serif" font-size="12">',
           f'<text x="0" y="16" font-size="14" font-weight="600">{_e(title)}</text>']
    for step in range(5):
        fraction = step / 4
        x = label_width + plot * fraction
        out.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 24}" stroke="#e3e6ee"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 8}" text-anchor="middle" fill="#667">'
                   f'{maximum * fraction:g}</text>')
    for index, bar in enumerate(bars):
        y = top + index * (bar_height + gap)
        value, colour = bar.get("value"), bar.get("colour", PALETTE[0])
        out.append(f'<text x="{label_width - 8}" y="{y + bar_height - 4}" text-anchor="end">{_e(bar["label"])}</text>')
        if value is None:
            out.append(f'<text x="{label_width + 4}" y="{y + bar_height - 4}" fill="#889">not scored</text>')
            continue
        length = plot * max(0.0, min(value, maximum)) / maximum
        out.append(f'<rect x="{label_width}" y="{y}" width="{length:.1f}" height="{bar_height}" fill="{colour}" '
                   f'opacity="0.85"><title>{_e(bar["label"])}: {value:.4f}</title></rect>')
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
        out.append(f'<text x="{label_width + plot + 6}" y="{y + bar_height - 4}" fill="#334">{_e(text)}</text>')
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
           f'aria-label="{_e(title)}" font-family="system-ui,sans-serif" font-size="12">',
           f'<text x="0" y="16" font-size="14" font-weight="600">{_e(title)}</text>',
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
                   f'fill-opacity="0.65"><title>{_e(point["label"])}</title></circle>')
    languages = sorted({point["lang"] for point in points}, key=lambda lang: list(LANGUAGE_COLOURS).index(lang)
                       if lang in LANGUAGE_COLOURS else 99)
    legend_x = left + plot_w + 16
    for index, lang in enumerate(languages):
        y = top + 10 + index * 20
        out.append(f'<circle cx="{legend_x}" cy="{y}" r="5" fill="{LANGUAGE_COLOURS.get(lang, "#777")}"/>')
        out.append(f'<text x="{legend_x + 10}" y="{y + 4}">{_e(lang)}</text>')
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

def _table(header: list[str], rows: list[list], numeric: set[int] = frozenset()) -> str:
    head = "".join(f"<th>{_e(cell)}</th>" for cell in header)
    body = []
    for row in rows:
        cells = []
        for index, cell in enumerate(row):
            css = ' class="num"' if index in numeric else ""
            cells.append(f"<td{css}>{cell}</td>")  # cells arrive escaped
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _head(summary: dict, title: str) -> list[str]:
    formal = summary.get("formal")
    status = ("formal run" if formal else "NOT a formal run: " + "; ".join(summary.get("non_formal_reasons", [])))
    data, predictions = summary["data"], summary["predictions"]
    judge = summary.get("judge")
    judge_line = (f"{_e(judge['model'])} ({_e(judge['endpoint_kind'])}) at {_e(judge['host'])}; "
                  f"{_e(judge.get('calls'))} calls, {_e(judge.get('cache_hits'))} cache hits" if judge else "skipped")
    system = summary.get("system") or {}
    known_as = data.get("known_as") or "not a known data set"
    if data.get("warnings"):
        known_as += f", {len(data['warnings'])} data warnings"
    parts = [f"<h1>{_e(title)}</h1>",
             f'<div class="status {"formal" if formal else "informal"}">{_e(status)}</div>',
             f'<p>Signature: <code class="signature">{_e(summary["signature"])}</code></p>',
             '<ul class="meta">',
             f"<li>Data: {_e(data['source'])} ({_e(data['n_instances'])} instances, sha256 "
             f"<code>{_e(data['sha256'][:12])}</code>, known as: {_e(known_as)})</li>",
             f"<li>Predictions: {_e(predictions['path'])} ({_e(predictions['rows'])} lines, "
             f"{_e(predictions['missing'])} missing)</li>",
             f"<li>Judge: {judge_line}</li>"]
    if system.get("model"):
        parts.append(f"<li>System: {_e(system['model'])}</li>")
    parts.append("</ul>")
    protocol = summary.get("protocol")  # only under --protocol release (SPEC §15)
    if protocol:
        parts += ["<h2>Protocol: release</h2>", '<ul class="meta">',
                  f"<li>protocol: release; syllable counter: {_e(protocol['syllable_counter'])}</li>"]
        parts += [f"<li><code>{_e(path)}</code> sha256 <code>{_e(entry['sha256'])}</code>"
                  + ("" if entry["matches_examined_copy"] else " (differs from the copy the facts were checked on)")
                  + "</li>" for path, entry in protocol["files"].items()]
        parts += [f"<li>Comparable with: {_e(item)}</li>" for item in protocol["comparable_with"]]
        parts += [f"<li>Not comparable with: {_e(item)}</li>" for item in protocol["not_comparable_with"]]
        parts.append("</ul>")
    return parts


def _cards(summary: dict, names: tuple[str, ...]) -> str:
    cards = []
    for name in names:
        metric = summary.get(name) or {}
        value, interval = metric.get("value"), metric.get("ci95")
        ci = f"95% CI [{interval[0]:.4f}, {interval[1]:.4f}]" if interval else "not scored"
        cards.append(f'<div class="card"><div class="name">{_e(name)}</div><div class="value">{_e(_fmt(value))}</div>'
                     f'<div class="ci">{_e(ci)}</div></div>')
    return f'<div class="cards">{"".join(cards)}</div>'


def _failures_html(data: dict) -> list[str]:
    out = ['<h2 id="failures">Failures</h2>',
           f'<p class="muted">The first {_e(data["cap"])} per list, in data order (soft and quality: lowest '
           "first); scores.jsonl holds every instance and the full detail.</p>"]
    if data["missing"]["count"]:
        ids = ", ".join(f"<code>{_e(cid)}</code>" for cid in data["missing"]["case_ids"])
        out.append(f"<p>Missing predictions ({_e(data['missing']['count'])}): {ids}</p>")
    for cid, slot in data.get("hard", {}).items():
        out.append(f"<h3>{_e(cid)} (hard): {_e(slot['failed'])} of {_e(slot['n'])} failed</h3>")
        if slot["cases"]:
            out.append(_table(["case_id", "reason"], [[f"<code>{_e(case['case_id'])}</code>", _e(case["reason"])]
                                                      for case in slot["cases"]]))
    if "syllables" in data:
        block = data["syllables"]
        out.append(f"<h3>Syllable budget: {_e(block['below_full_reward'])} of {_e(block['n'])} below full reward "
                   "(largest deviations first)</h3>")
        if block["cases"]:
            out.append(_table(["case_id", "target", "output", "deviation", "reason"],
                              [[f"<code>{_e(case['case_id'])}</code>", _e(case["target"]), _e(case["output"]),
                                _e(f"{100 * case['dev']:+.0f}%"), _e(case["reason"])] for case in block["cases"]],
                              numeric={1, 2, 3}))
    for cid, slot in list(data.get("soft", {}).items()) + [("quality", data.get("quality"))]:
        if slot is None:
            continue
        kind = "Judge" if cid == "quality" else "soft"
        if not slot["judged"]:
            out.append(f"<h3>{_e(cid)} ({kind}): not judged (--skip-judge)</h3>")
            continue
        out.append(f"<h3>{_e(cid)} ({kind}): {_e(slot['below_full'])} of {_e(slot['n'])} below 1</h3>")
        if slot["cases"]:
            out.append(_table(["case_id", "score", "note"], [[f"<code>{_e(case['case_id'])}</code>",
                                                              _e(f"{case['score']:g}"), _e(case["reason"])]
                                                             for case in slot["cases"]], numeric={1}))
    out.append("<h3>Prediction diagnostics (no effect on scores)</h3><ul>")
    for name, entry in data["diagnostics"].items():
        ids = "" if not entry["case_ids"] else ": " + ", ".join(f"<code>{_e(cid)}</code>" for cid in entry["case_ids"])
        more = (f" (+{entry['count'] - len(entry['case_ids'])} more)"
                if entry["case_ids"] is not None and entry["count"] > len(entry["case_ids"]) else "")
        out.append(f"<li>{_e(name.replace('_', ' '))}: {_e(entry['count'])}{ids}{_e(more)}</li>")
    out.append("</ul>")
    return out


# ---------------------------------------------------------------------------------------------
# InstTrans-Bench
# ---------------------------------------------------------------------------------------------

def _constraint_bars(summary: dict, scores: list[dict]) -> list[dict]:
    verdicts: dict[str, list] = defaultdict(list)
    for score in scores:
        for entry in score["constraints"]:
            verdicts[entry["id"]].append(float(entry["passed"]) if entry["kind"] == "hard" else entry["score"])
    bars = []
    for cid, entry in summary.get("by_constraint", {}).items():
        value = entry.get("pass_rate", entry.get("mean"))
        interval = entry.get("ci95") or (_interval(verdicts[cid]) if value is not None else None)
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
                     "ci95": _interval(values[lang]) if value is not None else None})
    return bars


def _insttrans_page(summary: dict, scores: list[dict]) -> list[str]:
    parts = _head(summary, "InstTrans-Bench evaluation report")
    parts.append(_cards(summary, ("if_score", "quality", "hard_pass_rate")
                        + (("hard_pass_rate_strict",) if "hard_pass_rate_strict" in summary else ())))
    parts.append("<h2>By constraint</h2>")
    parts.append(bar_chart_svg(_constraint_bars(summary, scores),
                               "Pass rate (hard) and mean Judge score (soft), 95% bootstrap intervals"))
    strict_rows = [[_e(cid), _e(entry["n"]), _e(_fmt(entry["pass_rate"])), _e(_fmt(entry["pass_rate_strict"]))]
                   for cid, entry in summary.get("by_constraint", {}).items() if "pass_rate_strict" in entry]
    if strict_rows:  # the strict rule set, beside the scores and never instead of them
        parts.append('<p class="muted">Hard pass rates under the original rules (the scores) and the strict '
                     "rule set (reported beside them).</p>")
        parts.append(_table(["constraint", "n", "pass rate", "strict pass rate"], strict_rows, numeric={1, 2, 3}))
    judged = summary.get("if_score", {}).get("value") is not None
    metric, field = ("if_score", "if_score") if judged else ("hard_pass_rate", "hard_pass")
    parts.append("<h2>By target language</h2>")
    parts.append(bar_chart_svg(_language_bars(summary, scores, metric, field),
                               f"{metric} by target language, 95% bootstrap intervals"))
    return parts


def _insttrans_tables(summary: dict) -> list[str]:
    """The breakdown tables, after the failures: the language-pair table alone is long."""
    parts = ["<h2>Breakdowns</h2>"]
    for key, title in (("by_scenario", "scenario"), ("by_domain", "domain"), ("by_language_pair", "language pair"),
                       ("by_target_lang", "target language"), ("by_constraint_count", "constraints per instance")):
        groups = summary.get(key) or {}
        parts.append(f"<h3>By {_e(title)}</h3>")
        parts.append(_table([title, "n", "if_score", "quality", "hard_pass_rate"],
                            [[_e(group), _e(entry["n"]), _e(_fmt(entry["if_score"])), _e(_fmt(entry["quality"])),
                              _e(_fmt(entry["hard_pass_rate"]))] for group, entry in groups.items()],
                            numeric={1, 2, 3, 4}))
    return parts


# ---------------------------------------------------------------------------------------------
# Sandglass-Bench
# ---------------------------------------------------------------------------------------------

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


def _sandglass_page(summary: dict, items: list[dict]) -> list[str]:
    parts = _head(summary, "Sandglass-Bench evaluation report")
    parts.append(_cards(summary, ("score", "syllable_reward", "quality", "mean_abs_dev")))
    overall = summary.get("overall", {})
    bars = []
    for name, field in SANDGLASS_SHARES.items():
        value = overall.get(name)
        values = [None if item[field] is None else float(item[field]) for item in items]
        bars.append({"label": name, "value": value, "n": overall.get("n"),
                     "ci95": _interval(values) if value is not None else None})
    parts.append("<h2>Card metrics</h2>")
    parts.append(bar_chart_svg(bars, "Shares of items and mean rewards, 95% bootstrap intervals"))
    judged = overall.get("score") is not None
    metric = "score" if judged else "syllable_reward"
    language_bars = []
    for lang, stats in summary.get("by_language", {}).items():
        values = [item[metric] for item in items if item["target_language"] == lang]
        language_bars.append({"label": lang, "value": stats.get(metric), "n": stats["n"],
                              "colour": LANGUAGE_COLOURS.get(lang, PALETTE[0]),
                              "ci95": _interval(values) if stats.get(metric) is not None else None})
    parts.append("<h2>By target language</h2>")
    parts.append(bar_chart_svg(language_bars, f"{metric} by target language, 95% bootstrap intervals"))
    points = [{"x": item["target_syllables"], "y": item["hyp_syllables"], "lang": item["target_language"],
               "label": f"{item['case_id']}: target {item['target_syllables']}, output {item['hyp_syllables']}"}
              for item in items if item["status"] == "ok"]
    parts.append("<h2>Target against output syllables</h2>")
    parts.append(scatter_svg(points, "Output syllables against the target, per item (missing predictions left out)"))
    for key, title in (("overall", "all items"), ("by_language", "language"), ("by_target_kind", "target kind"),
                       ("by_fenqu", "fenqu")):
        groups = {"overall": summary["overall"]} if key == "overall" else (summary.get(key) or {})
        parts.append(f"<h3>{_e(title[0].upper() + title[1:])}</h3>")
        parts.append(_table([title, *SANDGLASS_COLUMNS],
                            [[_e(group), *(_e(_sg_cell(column, stats.get(column))) for column in SANDGLASS_COLUMNS)]
                             for group, stats in groups.items()], numeric=set(range(1, len(SANDGLASS_COLUMNS) + 1))))
    return parts


# ---------------------------------------------------------------------------------------------

def render_report_html(summary: dict, scores: list[dict]) -> str:
    """The whole page of one run: headline numbers with intervals, the signature, the charts,
    the breakdown tables and the failures section (SPEC §11)."""
    sandglass = summary.get("benchmark") == "sandglass"
    parts = _sandglass_page(summary, scores) if sandglass else _insttrans_page(summary, scores)
    parts += _failures_html(failures(scores, summary))
    if not sandglass:
        parts += _insttrans_tables(summary)
    title = "Sandglass-Bench" if sandglass else "InstTrans-Bench"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)} report</title><meta name=\"viewport\" content=\"width=device-width\">"
            f"<style>{CSS}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n")
