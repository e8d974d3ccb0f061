"""A table across runs (SPEC §12): one row per run, sorted by the headline metric.

    python -m eval.leaderboard RUN [RUN ...] [--csv PATH] [--markdown PATH] [--latex PATH]

Columns: run (the system's model when predictions.meta.json recorded one, else the directory
name), n, formal, the benchmark's headline metrics with their 95% interval bounds, its extra
columns (InstTrans: the per-constraint rates; Sandglass: the card's shares, slope and quality
gaps), the signature, and `differs_from_first`:
the signature keys in which a run differs from the first one given (empty when comparable; the
`system:` part never counts). Runs of different benchmarks do not share a table.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import sys
from pathlib import Path

from eval.benchmark import Benchmark
from eval.compare import BROKEN, RERUN_HINT, Run, blame, brief, kind_of, read_summary_file, signature_check
from eval.errors import CompareError
from eval.flags import HarnessParser
TEXT_COLUMNS = {"run", "signature", "differs_from_first", "path"}
INT_COLUMNS = {"n"}
BOOL_COLUMNS = {"formal"}


def read_summary(path: Path) -> Run:
    """A run for the table: only its summary.json is needed (read strictly: eval.compare)."""
    return Run(Path(path), Path(path).name or str(path), read_summary_file(path))


def _headline(run: Run, metric: str) -> tuple[object, object, object]:
    """(value, low, high) of a headline metric's block, each a number or None; exit 2 naming the
    field when the block is of another shape."""
    entry = run.summary.get(metric)
    if entry is None:
        return None, None, None
    where = f"{run.summary_path}: field {metric}"
    if not isinstance(entry, dict):
        raise CompareError(f"{where}: expected an object with value and ci95, found {kind_of(entry)}", RERUN_HINT)
    value, interval = entry.get("value"), entry.get("ci95")
    interval = [None, None] if interval is None else interval
    if not (isinstance(interval, list) and len(interval) == 2):
        raise CompareError(f"{where}.ci95: expected [low, high] or null, found {kind_of(interval)}", RERUN_HINT)
    for name, number in (("value", value), ("ci95", interval[0]), ("ci95", interval[1])):
        if number is not None and (isinstance(number, bool) or not isinstance(number, (int, float))):
            raise CompareError(f"{where}.{name}: expected a number or null, found {kind_of(number)}", RERUN_HINT)
    return value, interval[0], interval[1]


def _extra_value(bench: Benchmark, run: Run, column: str) -> object:
    """A benchmark's extra column for one run: a finite number or None, else exit 2 naming the file."""
    try:
        value = bench.compare.leaderboard_value(run.summary, column)
    except BROKEN as error:
        raise CompareError(f"{run.summary_path}: the leaderboard cannot read this summary (column {column}: "
                           f"{brief(error)})", RERUN_HINT) from None
    if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value)):
        raise CompareError(f"{run.summary_path}: the leaderboard's column {column} is {kind_of(value)} here, not a "
                           "number", RERUN_HINT)
    return value


def _system_name(run: Run) -> str:
    system = run.summary.get("system") or {}
    return system.get("model") or run.name


def distinct_names(names: list[str], paths: list[Path]) -> list[str]:
    """Each repeated name followed by as many trailing parts of its run's path as tell the runs apart
    (`model (a/run)`, `model (b/run)`); the whole path where no suffix does. Unique names stay bare."""
    out = list(names)
    for name in {name for name in names if names.count(name) > 1}:
        indexes = [index for index, other in enumerate(names) if other == name]
        parts = [Path(paths[index]).resolve().parts for index in indexes]
        for depth in range(1, max(len(part) for part in parts) + 1):
            suffixes = ["/".join(part[-depth:]) for part in parts]
            if len(set(suffixes)) == len(suffixes):
                break
        else:
            suffixes = [str(paths[index]) for index in indexes]
        for index, suffix in zip(indexes, suffixes):
            out[index] = f"{name} ({suffix})"
    return out


def headline_of(bench: Benchmark, rows: list[dict]) -> str:
    """The column the table is sorted by: the benchmark's first sort metric (InstTrans: if_score)
    when any run has it, else its fallback (hard_pass_rate), which needs no Judge."""
    first, fallback = bench.sort_metrics
    return first if any(row.get(first) is not None for row in rows) else fallback


def leaderboard_rows(paths: list[Path]) -> tuple[list[dict], list[str], str]:
    """(rows sorted by the headline, column names, headline) for the runs in `paths`."""
    if not paths:
        raise CompareError("give at least one run", "python -m eval.leaderboard RUN [RUN ...]")
    runs = [read_summary(path) for path in paths]
    benchmarks = {run.benchmark for run in runs}
    if len(benchmarks) > 1:
        raise CompareError("the runs belong to different benchmarks (" + ", ".join(sorted(benchmarks)) + ")",
                           "make one table per benchmark")
    bench = runs[0].bench
    names = distinct_names([_system_name(run) for run in runs], [run.path for run in runs])
    headlines = [metric.name for metric in bench.headline_metrics]
    try:
        extra = bench.compare.leaderboard_columns([run.summary for run in runs])
    except BROKEN as error:
        raise blame(runs, lambda run: bench.compare.leaderboard_columns([run.summary]), "the leaderboard", error) from None
    columns = ["run", "n", "formal"]
    for name in headlines:
        columns += [name, f"{name}_low", f"{name}_high"]
    columns += extra + ["signature", "differs_from_first", "path"]
    rows = []
    for name, run in zip(names, runs):
        summary = run.summary
        row = {"run": name, "n": summary["data"].get("n_instances"), "formal": bool(summary.get("formal"))}
        for metric in headlines:
            value, low, high = _headline(run, metric)
            row.update({metric: value, f"{metric}_low": low, f"{metric}_high": high})
        for column in extra:
            row[column] = _extra_value(bench, run, column)
        differences = signature_check(runs[0], run)["differences"]
        row.update(signature=summary["signature"], differs_from_first=",".join(item["key"] for item in differences),
                   path=str(run.path))
        rows.append(row)
    headline = headline_of(bench, rows)
    lower_is_better = headline in bench.lower_is_better()
    rows.sort(key=lambda row: (row[headline] is None,
                               0 if row[headline] is None else (row[headline] if lower_is_better else -row[headline]),
                               row["run"]))
    return rows, columns, headline


# ---------------------------------------------------------------------------------------------
# CSV (round-trips) and Markdown
# ---------------------------------------------------------------------------------------------

def _csv_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def leaderboard_csv(rows: list[dict], columns: list[str]) -> str:
    """CSV text; an empty cell is a metric that was not scored."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(column)) for column in columns])
    return buffer.getvalue()


def read_leaderboard_csv(text: str) -> list[dict]:
    """The rows of leaderboard_csv's text, typed back: the inverse of writing."""
    reader = csv.DictReader(io.StringIO(text))
    rows = []
    for raw in reader:
        row = {}
        for column, cell in raw.items():
            if column in TEXT_COLUMNS:
                row[column] = cell
            elif cell == "":
                row[column] = None
            elif column in INT_COLUMNS:
                row[column] = int(cell)
            elif column in BOOL_COLUMNS:
                row[column] = cell == "true"
            else:
                row[column] = float(cell)
        rows.append(row)
    return rows


def _number(value, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _escape_cell(text: str) -> str:
    return str(text).replace("|", "\\|")  # GFM: a pipe in a cell is escaped


def signature_footnotes(rows: list[dict]) -> tuple[list[int], list[str]]:
    """(footnote number per row, footnote lines): runs with the same signature share a note; a note
    says in which signature keys it differs from the first run's."""
    numbers: dict[str, int] = {}
    per_row, notes = [], []
    for row in rows:
        if row["signature"] not in numbers:
            numbers[row["signature"]] = len(numbers) + 1
            flag = f" (differs from the first run in: {row['differs_from_first']})" if row["differs_from_first"] else ""
            notes.append(f"[{numbers[row['signature']]}] `{row['signature']}`{flag}")
        per_row.append(numbers[row["signature"]])
    return per_row, notes


def first_run_name(rows: list[dict], first_path: Path) -> str | None:
    """The table's name of the run given first (the one the † mark compares every run with)."""
    return next((row["run"] for row in rows if row["path"] == str(first_path)), None)


def leaderboard_markdown(rows: list[dict], columns: list[str], headline: str, first_run: str | None = None) -> str:
    """Markdown that stays readable in a terminal and a diff: the headline table (metrics with their
    interval), the per-constraint rates transposed (one line per rate, one column per run), and each
    distinct signature once, as a numbered footnote."""
    metrics = [column for column in columns if f"{column}_low" in columns]
    rates = [column for column in columns if column not in metrics and not column.endswith(("_low", "_high"))
             and column not in ("run", "n", "formal", "signature", "differs_from_first", "path")]
    notes_of, notes = signature_footnotes(rows)
    versus = f"that of {_escape_cell(first_run)}, the first run given" if first_run else "that of the first run given"
    lines = [f"Sorted by {headline}; [95% interval]. † the run's signature differs from {versus} on the command "
             "line (not comparable with it); [N]: the run's signature, below.", "",
             "| # | run | n | formal | " + " | ".join(metrics) + " | signature |",
             "|---:|---|---:|---|" + "---:|" * len(metrics) + "---|"]
    for index, (row, note) in enumerate(zip(rows, notes_of), 1):
        cells = [str(index), _escape_cell(row["run"]) + (" †" if row["differs_from_first"] else ""), str(row["n"]),
                 "yes" if row["formal"] else "no"]
        for metric in metrics:
            value, low, high = row[metric], row[f"{metric}_low"], row[f"{metric}_high"]
            cells.append("n/a" if value is None else
                         f"{value:.4f} [{_number(low)}, {_number(high)}]" if low is not None else f"{value:.4f}")
        cells.append(f"[{note}]")
        lines.append("| " + " | ".join(cells) + " |")
    if rates:
        lines += ["", "| rate | " + " | ".join(f"#{index}" for index in range(1, len(rows) + 1)) + " |",
                  "|---|" + "---:|" * len(rows)]
        lines += ["| " + " | ".join([rate, *(_number(row[rate]) for row in rows)]) + " |" for rate in rates]
    lines += ["", "Signatures:", ""] + [f"{note}  " if position < len(notes) - 1 else note
                                        for position, note in enumerate(notes)]
    return "\n".join(lines) + "\n"


def leaderboard_latex(rows: list[dict], columns: list[str], headline: str, first_run: str | None = None) -> str:
    """The headline table as a booktabs `tabular` for a paper: one row per run, each metric with its
    95% interval; the signatures as comments above it, a dagger on a run not comparable with the first."""
    from eval.reports.latex import latex_escape, tabular, value_with_interval

    metrics = [column for column in columns if f"{column}_low" in columns]
    notes_of, notes = signature_footnotes(rows)
    body = []
    for row, note in zip(rows, notes_of):
        name = latex_escape(row["run"]) + (r"$^\dagger$" if row["differs_from_first"] else "")
        body.append([name, str(row["n"]), "yes" if row["formal"] else "no",
                     *(value_with_interval(row[metric], row[f"{metric}_low"], row[f"{metric}_high"])
                       for metric in metrics), str(note)])
    comments = [f"python -m eval.leaderboard --latex: sorted by {headline}; [95% bootstrap interval]; "
                "-- not scored; needs \\usepackage{booktabs}",
                f"dagger: the run's signature differs from that of {first_run or 'the first run'}, the first RUN "
                "given on the command line (not comparable with it); sig.: the run's signature, numbered:",
                *notes]
    return tabular(["run", "n", "formal", *metrics, "sig."], body, "lrl" + "r" * len(metrics) + "r", comments)


def build_parser() -> argparse.ArgumentParser:
    parser = HarnessParser(prog="python -m eval.leaderboard",
                                     description="One row per run, sorted by the headline metric (docs/compare.md).")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="output directories of evaluate.py")
    parser.add_argument("--csv", type=Path, metavar="PATH", help="write the table as CSV")
    parser.add_argument("--markdown", type=Path, metavar="PATH", help="write the table as Markdown")
    parser.add_argument("--latex", type=Path, metavar="PATH",
                        help="write the headline table as a booktabs LaTeX tabular (metrics with their 95%% "
                             "intervals) for a paper")
    return parser


def main(argv: list[str] | None = None) -> int:
    from eval.exits import run_cli
    from eval.io.outputs import write_atomic

    def run(arguments: list[str] | None) -> int:
        args = build_parser().parse_args(arguments)
        rows, columns, headline = leaderboard_rows(args.runs)
        first = first_run_name(rows, args.runs[0])
        table = leaderboard_markdown(rows, columns, headline, first)
        print(table, end="")
        if args.csv:
            write_atomic(args.csv, leaderboard_csv(rows, columns))
            print(f"wrote {args.csv}")
        if args.markdown:
            write_atomic(args.markdown, table)
            print(f"wrote {args.markdown}")
        if args.latex:
            write_atomic(args.latex, leaderboard_latex(rows, columns, headline, first))
            print(f"wrote {args.latex}")
        return 0

    return run_cli(run, argv)


if __name__ == "__main__":
    sys.exit(main())
