"""The compare page (`python -m eval.compare A B --html PATH`, docs/explorer.md).

The metric deltas of each comparison with their 95% intervals and p-values as an SVG chart, and
every instance whose verdict or score changed between the first run and any other, side by side,
with the facets the benchmark declares (`ReportHooks.explorer_view`, as in explorer.html). The
changed instances are computed from the runs' scores.jsonl rows alone: an instance is listed when
any of its checks' verdicts or any of its numbers differ (`changed_case_ids`).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from eval.errors import HarnessError
from eval.reports.explorer import generic_view, page, pane, run_meta, texts_of
from eval.scoring.pairing import metric_rows

# `Run` in annotations is eval.compare's; it is not imported, not even for type checkers, because
# eval.compare imports this module for --html (an import back would draw a circle).

SIGNIFICANCE = 0.05  # as eval.compare's table marks it (a test keeps them equal)

_BETTER, _WORSE, _NEUTRAL = "#2a7a3b", "#b03a2e", "#8a8f99"


def _e(value) -> str:
    return html.escape(str(value), quote=True)


# ---------------------------------------------------------------------------------------------
# Which instances changed
# ---------------------------------------------------------------------------------------------

def check_outcome(check: dict):
    """A check's outcome: its `value` (the pass or score the verdict states), else the verdict as
    shown. How a verdict was reached (a rule or a Judge fallback) is not a change."""
    return check["value"] if "value" in check else (check.get("verdict"), check.get("passed"))


def outcome_key(view: dict) -> tuple:
    """What a flip is about: every check's outcome and every number of the instance."""
    return (tuple((check["name"], check_outcome(check)) for check in view.get("checks", [])),
            tuple(sorted(view.get("numbers", {}).items())))


def views_of(run: Run) -> dict[str, dict]:
    bench = _bench(run)
    view_of = (bench.reports.explorer_view or generic_view) if bench else generic_view
    return {case_id: view_of(None, score) for case_id, score in run.scores.items()}


def recorded_predictions(run: Run) -> dict[str, str | None]:
    """The run's predictions when they can be had unchanged: from the score rows (--log-samples),
    else from the predictions file named in the summary if it still has the recorded SHA-256."""
    from eval.io.data import file_sha256

    if any("prediction" in score for score in run.scores.values()):
        return {case_id: score.get("prediction") for case_id, score in run.scores.items()}
    block = run.summary.get("predictions") or {}
    for candidate in (Path(str(block.get("path"))), run.path / Path(str(block.get("path"))).name):
        try:
            if candidate.is_file() and file_sha256(candidate) == block.get("sha256"):
                out = {}
                for line in candidate.read_text(encoding="utf-8").split("\n"):
                    if line.strip():
                        record = json.loads(line)
                        out[record["case_id"]] = record.get("prediction")
                return out
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return {}


def _bench(run: Run):
    """The run's benchmark record (eval.compare has checked that it is known), or None."""
    try:
        return run.bench
    except HarnessError:
        return None


def changed_case_ids(a: Run, b: Run) -> list[str]:
    """The paired case_ids (A's order) whose verdicts or scores differ between A and B."""
    views_a, views_b = views_of(a), views_of(b)
    return [case_id for case_id in views_a if case_id in views_b
            and outcome_key(views_a[case_id]) != outcome_key(views_b[case_id])]


# ---------------------------------------------------------------------------------------------
# The chart
# ---------------------------------------------------------------------------------------------



def nice_extent(largest: float) -> float:
    """The axis half-width: the first of 1, 2, 2.5, 5 × 10^k at or above `largest` (at least 0.01)."""
    for power in range(-2, 4):
        for step in (1, 2, 2.5, 5):
            if step * 10 ** power >= largest:
                return step * 10 ** power
    return largest


def delta_chart_svg(comparison: dict, lower_is_better: frozenset[str] = frozenset(), width: int = 980,
                    sections: tuple[str, ...] = ()) -> str:
    """A forest plot of B − A: a dot per metric, its 95% interval as a line, zero marked, the
    numbers and p-value beside it; significant deltas (p < 0.05) coloured by direction
    (`lower_is_better`: the benchmark's metrics where a drop is the improvement); rows in the
    printed table's order (`sections`: the benchmark's own, eval.compare.metric_rows)."""
    rows = metric_rows(comparison, sections)
    label_w, text_w, row_h, top = 220, 330, 20, 40
    plot_w = width - label_w - text_w
    height = top + row_h * max(len(rows), 1) + 30
    extent = nice_extent(max([abs(v) for _, s in rows for v in (s["delta"], *s["ci95"])] + [0.0]))
    x = lambda value: label_w + plot_w * (value + extent) / (2 * extent)  # noqa: E731
    title = f"B − A with 95% paired-bootstrap interval: A = {comparison['a']}, B = {comparison['b']}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{_e(title)}" font-family="system-ui,sans-serif" font-size="12">',
           f'<text x="0" y="16" font-size="14" font-weight="600">{_e(title)}</text>',
           f'<text x="{label_w + plot_w + 10}" y="{top - 8}" fill="#556">Δ [95% CI]   p</text>']
    for fraction in (-1, -0.5, 0, 0.5, 1):
        position = x(extent * fraction)
        out.append(f'<line x1="{position:.1f}" y1="{top - 4}" x2="{position:.1f}" y2="{height - 24}" '
                   f'stroke="{"#556" if fraction == 0 else "#e3e6ee"}"/>')
        out.append(f'<text x="{position:.1f}" y="{height - 8}" text-anchor="middle" fill="#667">'
                   f'{extent * fraction:+g}</text>')
    for index, (label, stats) in enumerate(rows):
        y = top + index * row_h + row_h / 2
        significant = stats["p_value"] < SIGNIFICANCE
        lower_better = label.split()[-1] in lower_is_better
        better = (stats["delta"] < 0) if lower_better else (stats["delta"] > 0)
        colour = _NEUTRAL if not significant or stats["delta"] == 0 else (_BETTER if better else _WORSE)
        low, high = stats["ci95"]
        out.append(f'<text x="{label_w - 8}" y="{y + 4:.1f}" text-anchor="end">{_e(label.strip())}'
                   f'{" (lower is better)" if lower_better else ""}</text>')
        out.append(f'<line x1="{x(low):.1f}" y1="{y:.1f}" x2="{x(high):.1f}" y2="{y:.1f}" stroke="{colour}" '
                   'stroke-width="2"/>')
        out.append(f'<circle cx="{x(stats["delta"]):.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>')
        mark = "**" if stats["p_value"] < 0.01 else "*" if significant else ""
        out.append(f'<text x="{label_w + plot_w + 10}" y="{y + 4:.1f}" font-family="ui-monospace,monospace" '
                   f'font-size="11">{stats["delta"]:+.4f} [{low:+.4f}, {high:+.4f}]  {stats["p_value"]:.4f}{mark}'
                   f'</text>')
    out.append("</svg>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------------

def _direction(view_a: dict, view_b: dict) -> tuple[str, str, float | None]:
    """(direction, number, B − A) on the first number both runs have that differs; the view names
    the numbers where lower is better (`lower_is_better`)."""
    numbers_a, numbers_b = view_a.get("numbers", {}), view_b.get("numbers", {})
    lower = set(view_a.get("lower_is_better", ()))
    for name, value in numbers_a.items():
        other = numbers_b.get(name)
        if value is not None and other is not None and value != other:
            better = (other < value) if name in lower else (other > value)
            return ("B better" if better else "B worse"), name, other - value
    return "same numbers", "", None


def _changed_checks(view_a: dict, view_b: dict) -> list[str]:
    checks_b = {check["name"]: check for check in view_b.get("checks", [])}
    out = []
    for check in view_a.get("checks", []):
        other = checks_b.get(check["name"])
        if other is None or check_outcome(other) != check_outcome(check):
            out.append(check["name"])
    return out or ["none (a number changed)"]


def compare_items(runs: list[Run]) -> list[dict]:
    """The instances that changed between the first run and any other, each with a pane per run."""
    first, others = runs[0], runs[1:]
    views = [views_of(run) for run in runs]
    predictions = [recorded_predictions(run) for run in runs]
    changed_ids: dict[str, None] = {}
    for run in others:
        changed_ids.update(dict.fromkeys(changed_case_ids(first, run)))
    # A facet whose value differs between the runs for some instance belongs to a run ("(A)", "(B)").
    dynamic = {facet for case_id in changed_ids for view in views[1:] if case_id in view
               for facet, value in view[case_id].get("facets", {}).items()
               if value != views[0][case_id].get("facets", {}).get(facet)}
    letters = [chr(ord("A") + index) if index < 26 else str(index) for index in range(len(runs))]
    items = []
    for case_id in [case_id for case_id in first.scores if case_id in changed_ids]:
        view_a = views[0][case_id]
        facets = {facet: value for facet, value in view_a.get("facets", {}).items() if facet not in dynamic}
        numbers: dict[str, float | None] = {}
        summary_parts = []
        panes = []
        for index, (run, run_views) in enumerate(zip(runs, views)):
            if case_id not in run_views:
                continue
            view, score = run_views[case_id], run.scores[case_id]
            for facet in sorted(dynamic):
                if facet in view.get("facets", {}):
                    facets[f"{facet} ({letters[index]})"] = view["facets"][facet]
            if index:
                suffix = "" if len(runs) == 2 else f" ({letters[index]})"
                for number, value in view_a.get("numbers", {}).items():
                    other = view.get("numbers", {}).get(number)
                    numbers[f"Δ {number}{suffix}"] = (None if value is None or other is None
                                                       else round(other - value, 6))
                if outcome_key(view) == outcome_key(view_a):  # this run agrees with A on this instance
                    facets["direction" + suffix], facets["changed check" + suffix] = "same as A", ["none"]
                else:
                    direction, name, delta = _direction(view_a, view)
                    facets["direction" + suffix] = direction
                    facets["changed check" + suffix] = _changed_checks(view_a, view)
                    summary_parts.append(f"{letters[index]}: {direction}, Δ {name} {delta:+.3g}" if delta is not None
                                         else f"{letters[index]}: " + ", ".join(_changed_checks(view_a, view)))
            prediction = view.get("prediction") or predictions[index].get(case_id)
            panes.append(pane(view, score, prediction, [], heading=f"{letters[index]} = {run.name}"))
        facets["status"] = [pane_["st"] for pane_ in panes]
        items.append({"id": case_id, "f": facets, "n": numbers,
                      "s": " · ".join([str(view_a.get("summary", "")).split(" · ")[0], *summary_parts]),
                      "t": texts_of(view_a), "p": panes})
    return items


def check_page_rows(run: Run) -> None:
    """What the page reads of each of a run's rows and of its summary, read once (eval.compare uses
    it to name the row a broken run fails on)."""
    run_meta(run.summary)
    for case_id, view in views_of(run).items():
        outcome_key(view)
        _direction(view, view)
        _changed_checks(view, view)
        texts_of(view)
        str(view.get("summary", ""))
        for facet, value in view.get("facets", {}).items():
            hash(facet), value != value  # a facet name is a key of the page's tables
        pane(view, run.scores[case_id], view.get("prediction"), [], heading="A")


def render_compare_html(result: dict, runs: list[Run]) -> str:
    """The whole compare page for `compare()`'s result over `runs` (the first is A)."""
    bench = _bench(runs[0])
    lower_is_better = bench.lower_is_better() if bench else frozenset()
    sections = bench.compare.compare_sections if bench else ()
    charts = "".join(f"<div class=\"chart\">{delta_chart_svg(comparison, lower_is_better, sections=sections)}</div>"
                     for comparison in result["comparisons"])
    legend = (f"<p class=\"legend\">dot: B − A; line: 95% paired-bootstrap interval; p: paired approximate "
              f"randomization ({result['resamples']} resamples, seed {result['seed']}); * p &lt; {SIGNIFICANCE}, "
              "** p &lt; 0.01; coloured when significant (green: B better, red: B worse). Not corrected for the "
              "number of metrics.</p>")
    items = compare_items(runs)
    numbers: dict[str, None] = {}  # the deltas that are not zero everywhere
    for item in items:
        numbers.update(dict.fromkeys(name for name, value in item["n"].items() if value))
    for item in items:
        item["n"] = {name: value for name, value in item["n"].items() if name in numbers}
    meta = [[f"{chr(ord('A') + index) if index < 26 else index}", f"{run.name}: {run_meta(run.summary)[0][1]}; "
             f"{run.summary.get('signature', '')}"] for index, run in enumerate(runs)]
    meta.append(["changed", f"{len(items)} instances whose verdict or score differs from A's "
                            f"(of {len(runs[0].scores)} in A)"])
    titles = {run.benchmark for run in runs}
    title = f"{bench.title if bench else '/'.join(sorted(titles))}: {' vs '.join(run.name for run in runs)}"
    payload = {"kind": "compare", "title": title, "meta": meta, "numbers": list(numbers), "items": items}
    prelude = f"<details open class=\"fold\"><summary>metric deltas (B − A)</summary>{charts}{legend}</details>"
    return page(f"compare {title}", payload, prelude=prelude)


def write_compare_html(path, result: dict, runs: list[Run]) -> None:
    """The page, written atomically (eval.compare --html)."""
    from eval.io.outputs import write_atomic

    write_atomic(path, render_compare_html(result, runs))
