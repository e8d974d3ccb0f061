"""Placing a run beside the authors' published tables (SPEC §16).

`python -m eval.published RUN_DIR [RUN_DIR ...]` and the report's "Beside the published tables"
section put a run's numbers inside each published table of its benchmark (data/published/*.json,
one file per source page and version), in rank order with the run's 95 % interval, and give
each column a verdict: comparable, or not comparable with every reason. The reasons come from
the run's summary.json alone (data identity, subset, Judge, protocol, counter, scorer version)
against the protocol the table states; where a table leaves a setting unstated, no run can be
shown to match it, and the verdict says so. Self-judging is flagged for the run and for the
published rows whose Judge is the system itself or of its family (eval/judge/self_judging.py).

The figures stay the page's strings ("0.6901", "74.42%"); they are compared as Decimal, never
as binary floats. A benchmark says how its summary answers each published metric
(`ReleaseHooks.published_metrics`); this module names none.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from decimal import Decimal
from pathlib import Path

from eval.benchmark import Benchmark, PublishedMetric
from eval.config import RELEASE
from eval.errors import ConfigError
from eval.io.paths import bundle_root
from eval.judge.self_judging import normalise_model, self_judging

PUBLISHED_DIR = bundle_root() / "data" / "published"
UNSTATED = "unstated"
OFFICIAL = "official release"
UNITS = ("fraction", "percent", "ratio")
BETTER = ("higher", "lower", "closer to 1")
_FIGURE = re.compile(r"([-+]?(?:\d{1,6}(?:\.\d{0,8})?|\.\d{1,8}))(%?)")
NO_FIGURE = ("—", "-", "–", "")


# ---------------------------------------------------------------------------------------------
# The tables
# ---------------------------------------------------------------------------------------------

def parse_figure(text: str) -> Decimal | None:
    """A published cell as a Decimal on the column's own scale ("74.42%" -> 74.42); None for a
    dash (no figure). Anything else raises ValueError: the file is broken."""
    if not isinstance(text, str):
        raise ValueError(f"a figure must be the page's string, got {type(text).__name__}")
    if text.strip() in NO_FIGURE:
        return None
    match = _FIGURE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a figure")
    return Decimal(match.group(1))


def as_fraction(figure: Decimal, unit: str) -> Decimal:
    """A figure on the scale the summaries use (percent -> fraction)."""
    return figure / 100 if unit == "percent" else figure


def check_page(page: object, where: str) -> dict:
    """A published-table file, checked for the shape this module reads and for consistency:
    every row has exactly the table's columns, every cell is a figure in the column's unit, the
    row count is the one the table states. A problem is one ConfigError naming the file."""
    def fail(message: str) -> None:
        raise ConfigError(f"{where}: {message}", "restore the file from the repository (data/published/)")

    if not isinstance(page, dict) or not isinstance(page.get("tables"), list) or not page["tables"]:
        fail("not a published-tables file (no tables)")
    for key in ("id", "source"):
        if key not in page:
            fail(f"missing {key!r}")
    for field in ("address", "commit", "date"):
        if not isinstance(page["source"].get(field), str):
            fail(f"source has no {field!r}")
    for table in page["tables"]:
        columns = table.get("columns") or []
        keys = [column.get("key") for column in columns]
        if not columns or len(set(keys)) != len(keys):
            fail(f"table {table.get('id')!r}: columns missing or repeated")
        for column in columns:
            if column.get("unit") not in UNITS or column.get("better") not in BETTER:
                fail(f"table {table.get('id')!r} column {column.get('key')!r}: unit or direction unknown")
            for field in ("benchmark", "metric", "header", "meaning", "protocol"):
                if not column.get(field):
                    fail(f"table {table.get('id')!r} column {column.get('key')!r}: no {field!r}")
            for field in ("data", "rows", "judge_model", "scorer_version"):
                if field not in column["protocol"]:
                    fail(f"table {table.get('id')!r} column {column['key']!r}: the protocol has no {field!r} "
                         f"(write \"{UNSTATED}\" where the page does not state it)")
        rows = table.get("rows") or []
        if table.get("n_systems") != len(rows):
            fail(f"table {table.get('id')!r}: {len(rows)} rows, the table states {table.get('n_systems')}")
        for row in rows:
            if set(row.get("cells") or {}) != set(keys):
                fail(f"table {table.get('id')!r} row {row.get('system')!r}: cells {sorted(row.get('cells') or {})} "
                     f"are not the columns {sorted(keys)}")
            for column in columns:
                text = row["cells"][column["key"]]
                try:
                    parse_figure(text)
                except ValueError as error:
                    fail(f"table {table['id']!r} row {row['system']!r} column {column['key']!r}: {error}")
                if (isinstance(text, str) and text.strip() not in NO_FIGURE
                        and text.strip().endswith("%") != (column["unit"] == "percent")):
                    fail(f"table {table['id']!r} row {row['system']!r} column {column['key']!r}: {text!r} is "
                         f"not in the column's unit ({column['unit']})")
    return page


def load_pages(folder: Path | None = None) -> list[dict]:
    """Every published-tables file, checked, in file-name order."""
    pages = []
    for path in sorted(Path(folder or PUBLISHED_DIR).glob("*.json")):
        try:
            page = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise ConfigError(f"{path}: cannot be read ({error})", "restore the file from the repository")
        pages.append(check_page(page, str(path)))
    return pages


def shown_pages(pages: list[dict], every: bool = False) -> list[dict]:
    """The pages a report shows: not a translated copy nor a superseded version (unless `every`)."""
    return pages if every else [page for page in pages if not page.get("copy_of") and not page.get("superseded_by")]


# ---------------------------------------------------------------------------------------------
# A run's number and its verdict
# ---------------------------------------------------------------------------------------------

def run_value(summary: dict, metric: PublishedMetric | None) -> tuple[float | None, list | None]:
    """(value, ci95) of a published metric in a summary; (None, None) where it has none."""
    if metric is None or metric.path is None:
        return None, None
    node: object = summary
    for key in metric.path:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        value, interval = node.get("value"), node.get("ci95")
    else:
        value, interval = node, None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, None
    ok_interval = isinstance(interval, list) and len(interval) == 2 and all(
        isinstance(bound, (int, float)) and not isinstance(bound, bool) for bound in interval)
    return float(value), interval if ok_interval else None


def _legacy_subset(summary: dict) -> str | None:
    """A subset in a summary written before the "subset" block existed (its reasons name it)."""
    for reason in summary.get("non_formal_reasons") or ():
        if isinstance(reason, str) and reason.startswith(("--limit", "--case-ids")):
            return reason
    return None


def _rows_reasons(summary: dict, rows: object) -> list[str]:
    subset = summary.get("subset")
    n = (summary.get("data") or {}).get("n_instances")
    published_list = rows.get("list") if isinstance(rows, dict) else None
    on_list = isinstance(subset, dict) and subset.get("protocol") is not None and subset.get("protocol") == published_list
    reasons = []
    if "subset" not in summary:
        legacy = _legacy_subset(summary)
        if legacy:
            reasons.append(f"rows: a subset ({legacy})")
    elif isinstance(subset, dict) and not on_list:
        what = "--limit" if subset.get("kind") == "limit" else f"a subset ({subset.get('kind')})"
        reasons.append(f"rows: {what}, {subset.get('count')} ids from {subset.get('source')} "
                       f"(sha256 {str(subset.get('sha256'))[:12]}), not the table's rows")
    if not isinstance(rows, dict) or rows.get("count") == UNSTATED:
        reasons.append("rows: the table does not state which rows it scores")
    elif rows.get("removed") and not on_list:
        reasons.append(f"rows: the table scores {rows['count']} of {rows.get('of')} rows ({rows['removed']} removed; "
                       f"{'their list is not bundled' if not published_list else 'list ' + published_list}), "
                       f"this run {n}")
    elif isinstance(rows.get("count"), int) and rows["count"] != n and not on_list:
        reasons.append(f"rows: the table scores {rows['count']} rows, this run {n}")
    return reasons


def column_verdict(summary: dict, column: dict, bench: Benchmark) -> list[str]:
    """Every reason the run's number in `column` is not comparable with the table's ([]: comparable)."""
    metric = bench.release.published_metrics.get(column["metric"])
    protocol = column["protocol"]
    reasons: list[str] = []
    if metric is None:
        reasons.append(f"{bench.title} has no reading of the published metric {column['metric']!r}")
    elif metric.path is None:
        reasons.append(metric.absent)
    data = summary.get("data") or {}
    known = data.get("known_as")
    if protocol["data"] != OFFICIAL:
        reasons.append(f"data: the table scores another set ({protocol['data']})")
    if known == "bundled":
        reasons.append(f"data: the bundled set ({data.get('n_instances')} rows), not the official release")
    elif not isinstance(known, str):
        reasons.append(f"data: own data (sha256 {str(data.get('sha256'))[:12]}), not the official release")
    elif not known.startswith(OFFICIAL):
        reasons.append(f"data: {known}, not the official release")
    reasons += _rows_reasons(summary, protocol["rows"])
    if summary.get("oracle"):
        reasons.append("--oracle: the references were scored, not a system")
    judge = summary.get("judge")
    release = summary.get("protocol")
    needs_judge = metric is None or metric.judge
    needs_counter = metric is not None and metric.counter
    if needs_judge:
        if not isinstance(judge, dict):
            reasons.append("no Judge (--skip-judge): the column needs Judge verdicts")
        else:
            stated = protocol["judge_model"]
            if stated == UNSTATED:
                reasons.append(f"Judge: the table does not state its Judge model (this run: {judge.get('model')})")
            elif normalise_model(stated) != normalise_model(str(judge.get("model"))):
                reasons.append(f"Judge: {judge.get('model')}, the table's is {stated}")
            params = protocol.get("judge_params", UNSTATED)
            if isinstance(params, dict) and params != judge.get("params"):
                reasons.append(f"Judge parameters: {json.dumps(judge.get('params'), sort_keys=True)}, the table's "
                               f"are {json.dumps(params, sort_keys=True)}")
        if not isinstance(release, dict):
            reasons.append("protocol: this harness's Judge prompts and requests, not the release's "
                           "(--protocol release)")
    if needs_counter:
        if not isinstance(release, dict) or release.get("syllable_counter") != RELEASE:
            reasons.append("counter: this harness's syllable counter, not the release's "
                           "(--protocol release --trust-release-code)")
        if protocol.get("syllable_counter", UNSTATED) == UNSTATED:
            reasons.append("counter: the table does not state its syllable counter")
    run_version = summary.get("scorer_version")
    if run_version is None:
        reasons.append("scorer version not recorded")
    if protocol["scorer_version"] == UNSTATED:
        reasons.append("scorer version: the table does not state it")
    elif run_version is not None and run_version != protocol["scorer_version"]:
        reasons.append(f"scorer version: {run_version}, the table's is {protocol['scorer_version']}")
    return reasons


def run_self_judging(summary: dict) -> str | None:
    system, judge = summary.get("system"), summary.get("judge")
    return self_judging(system.get("model") if isinstance(system, dict) else None,
                        judge.get("model") if isinstance(judge, dict) else None)


def row_self_judging(system: str, columns: list[dict], default_judge: str) -> str | None:
    """Self-judging of a published row: its system against each column's stated Judge; where the
    Judge is unstated, against the benchmark's default Judge, said as a possibility."""
    for column in columns:
        stated = column["protocol"]["judge_model"]
        if stated != UNSTATED:
            found = self_judging(system, stated)
            if found:
                return found
    if any(column["protocol"]["judge_model"] == UNSTATED for column in columns):
        found = self_judging(system, default_judge)
        if found:
            return f"possible {found} (the table does not name its Judge; {default_judge} is the default)"
    return None


# ---------------------------------------------------------------------------------------------
# Placing
# ---------------------------------------------------------------------------------------------

def _format(value: float, unit: str) -> str:
    if unit == "percent":
        return f"{value * 100:.2f}%"
    return f"{value:.3f}" if unit == "ratio" else f"{value:.4f}"


def _sort_key(value: Decimal | float, better: str) -> Decimal:
    number = Decimal(str(value)) if isinstance(value, float) else value
    if better == "higher":
        return -number
    return abs(number - 1) if better == "closer to 1" else number


def place(runs: list[tuple[str, dict, Benchmark]], table: dict) -> dict | None:
    """One published table with the runs inserted: its columns of the runs' benchmark, its rows
    and the runs' in rank order of the first column the runs have a number for, each run's rank
    and interval per column, and each run's verdict per column."""
    bench = runs[0][2]
    columns = [column for column in table["columns"] if column["benchmark"] == bench.name]
    if not columns:
        return None
    entries = []
    for row in table["rows"]:
        cells = {}
        for column in columns:
            figure = parse_figure(row["cells"][column["key"]])
            cells[column["key"]] = (None if figure is None else as_fraction(figure, column["unit"]),
                                    row["cells"][column["key"]])
        entries.append({"system": row["system"], "cells": cells, "run": False,
                        "self_judging": row_self_judging(row["system"], columns, bench.default_judge_model)})
    verdicts = {}
    for label, summary, run_bench in runs:
        cells = {}
        for column in columns:
            value, interval = run_value(summary, run_bench.release.published_metrics.get(column["metric"]))
            text = "—" if value is None else _format(value, column["unit"])
            if value is not None and interval is not None:
                text += f" [{_format(interval[0], column['unit'])}, {_format(interval[1], column['unit'])}]"
            cells[column["key"]] = (value, text)
        entries.append({"system": label, "cells": cells, "run": True, "self_judging": run_self_judging(summary)})
        verdicts[label] = {column["key"]: column_verdict(summary, column, run_bench) for column in columns}
    ranked = [column for column in columns if any(entry["run"] and entry["cells"][column["key"]][0] is not None
                                                  for entry in entries)]
    lead = (ranked or columns)[0]
    for column in columns:
        order = sorted((entry for entry in entries if entry["cells"][column["key"]][0] is not None),
                       key=lambda entry: _sort_key(entry["cells"][column["key"]][0], column["better"]))
        for rank, entry in enumerate(order, 1):
            entry.setdefault("ranks", {})[column["key"]] = rank
    entries.sort(key=lambda entry: (entry.get("ranks", {}).get(lead["key"]) is None,
                                    entry.get("ranks", {}).get(lead["key"], 0)))
    return {"table": table, "columns": columns, "lead": lead["key"], "entries": entries, "verdicts": verdicts}


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def placement_markdown(page: dict, placed: dict) -> list[str]:
    table, columns = placed["table"], placed["columns"]
    source = page["source"]
    lines = ["", f"### {_cell(page['id'])}: {_cell(table['title'])}", "",
             f"Source: {source['address']} (commit {source['commit'][:7]}, date {source['date']}). "
             f"Ranked by {_cell(next(c['header'] for c in columns if c['key'] == placed['lead']))}; "
             "a run's cell gives its rank in that column and its 95 % interval.", "",
             "| # | system | " + " | ".join(_cell(column["header"]) for column in columns) + " |",
             "|---:|---|" + "---:|" * len(columns)]
    for entry in placed["entries"]:
        rank = entry.get("ranks", {}).get(placed["lead"], "—")
        name = f"**{_cell(entry['system'])}** (run)" if entry["run"] else _cell(entry["system"])
        if entry["self_judging"]:
            name += " ⚠ self-judging" if entry["run"] or not entry["self_judging"].startswith("possible") \
                else " ⚠ possibly self-judged"
        cells = []
        for column in columns:
            text = entry["cells"][column["key"]][1]
            column_rank = entry.get("ranks", {}).get(column["key"])
            cells.append(_cell(f"**{text}** (#{column_rank})" if entry["run"] and column_rank else
                               f"**{text}**" if entry["run"] else text))
        lines.append(f"| {rank} | {name} | " + " | ".join(cells) + " |")
    lines.append("")
    for column in columns:
        lines.append(f"- {_cell(column['header'])}: {_cell(column['meaning'])}.")
    for label, by_column in placed["verdicts"].items():
        lines += ["", f"Verdicts for {_cell(label)}:", ""]
        for column in columns:
            reasons = by_column[column["key"]]
            if not reasons:
                lines.append(f"- {_cell(column['header'])}: **comparable**")
            else:
                lines.append(f"- {_cell(column['header'])}: **not comparable**: " + "; ".join(_cell(r) for r in reasons))
    flagged = [entry for entry in placed["entries"] if entry["self_judging"]]
    if flagged:
        lines += ["", "Self-judging:", ""]
        lines += [f"- {_cell(entry['system'])}: {_cell(entry['self_judging'])}" for entry in flagged]
    return lines


def placements_markdown(runs: list[tuple[str, dict, Benchmark]], pages: list[dict]) -> list[str]:
    """Every published table with columns of the runs' benchmark, the runs placed in it."""
    lines = []
    for page in pages:
        for table in page["tables"]:
            placed = place(runs, table)
            if placed is not None:
                lines += placement_markdown(page, placed)
    return lines


def published_markdown(summary: dict, bench: Benchmark, pages: list[dict] | None = None) -> str:
    """report.md's section "Beside the published tables" for one run ("" when no table has a column
    of its benchmark)."""
    try:
        pages = shown_pages(load_pages() if pages is None else pages)
    except ConfigError as error:  # a damaged table file never costs a finished run its results
        return f"\n## Beside the published tables\n\nThe published tables cannot be read: {error}\n"
    body = placements_markdown([("this run", summary, bench)], pages)
    if not body:
        return ""
    comparable = ("some columns are comparable" if any(line.endswith(": **comparable**") for line in body)
                  else "no column is comparable")
    flag = run_self_judging(summary)
    return "\n".join(["", "## Beside the published tables", "",
                      *([f"**Self-judging:** {_cell(flag)}.", ""] if flag else []),
                      f"The run's numbers placed in the authors' published tables (data/published/); {comparable}, "
                      "each verdict says why (docs/published.md).", *body, ""])


def run_sections(summary: dict, bench: Benchmark, oracle_list: list[dict] | None = None) -> tuple[str, str, str]:
    """report.md's SPEC §16 sections of a run, from its summary: the subset line, the oracle
    section (with the first failures when `oracle_list` is given) and the published tables."""
    from eval.oracle import oracle_markdown
    from eval.inputs.subsets import subset_markdown

    return (subset_markdown(summary.get("subset")), oracle_markdown(summary.get("oracle"), failures=oracle_list),
            published_markdown(summary, bench))


def markdown_html(text: str) -> str:
    """report.html's rendering of a report.md section (CommonMark with tables; raw HTML escaped)."""
    if not text.strip():
        return ""
    from markdown_it import MarkdownIt

    return '<section class="published">' + MarkdownIt("commonmark", {"html": False}).enable("table").render(text) \
        + "</section>"


def sections_html(summary: dict, bench: Benchmark) -> tuple[str, ...]:
    """report.html's SPEC §16 sections of a run (the oracle's failures are in its file)."""
    return tuple(html for html in map(markdown_html, run_sections(summary, bench)) if html)


# ---------------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------------

def read_run(folder: Path) -> dict:
    path = Path(folder) / "summary.json"
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ConfigError(f"{path}: cannot be read ({type(error).__name__})",
                          "give an output directory of evaluate.py (it holds summary.json)")
    if not isinstance(summary, dict) or not isinstance(summary.get("benchmark", "insttrans"), str):
        raise ConfigError(f"{path}: not a summary written by evaluate.py", "give an output directory of evaluate.py")
    return summary


def run_label(folder: Path, summary: dict) -> str:
    system = summary.get("system")
    model = system.get("model") if isinstance(system, dict) else None
    return f"{folder} ({model})" if isinstance(model, str) else str(folder)


def build_parser():
    from eval.flags import HarnessParser

    parser = HarnessParser(prog="python -m eval.published",
                           description="Place runs in the authors' published tables, with a verdict per column.")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="output directories of evaluate.py")
    parser.add_argument("--every-version", action="store_true",
                        help="also the translated copies and superseded versions of each page")
    parser.add_argument("--page", action="append", default=None, metavar="ID",
                        help="only the page with this id (repeatable; default: every current page)")
    return parser


def main(argv: list[str] | None = None) -> int:
    from eval.benchmarks import get_benchmark
    from eval.exits import run_cli

    def command(arguments: list[str] | None) -> int:
        args = build_parser().parse_args(arguments)
        pages = load_pages()
        if args.page:
            unknown = sorted(set(args.page) - {page["id"] for page in pages})
            if unknown:
                raise ConfigError(f"--page {unknown[0]}: no such published page",
                                  f"use one of: {', '.join(page['id'] for page in pages)}")
            pages = [page for page in pages if page["id"] in args.page]
        else:
            pages = shown_pages(pages, args.every_version)
        by_benchmark: dict[str, list] = {}
        for folder in args.runs:
            summary = read_run(folder)
            bench = get_benchmark(summary.get("benchmark", "insttrans"))
            by_benchmark.setdefault(bench.name, []).append((run_label(folder, summary), summary, bench))
        lines = []
        for runs in by_benchmark.values():
            body = placements_markdown(runs, pages)
            lines += body or ["", f"no published table has a {runs[0][2].title} column"]
        print("\n".join(lines).lstrip("\n"))
        return 0

    return run_cli(command, argv)


if __name__ == "__main__":
    sys.exit(main())
