"""The registry of benchmarks, and recognising which one a data file belongs to.

Adding a benchmark is its package under eval/ and one line in BENCHMARKS (docs/architecture.md).
The first entry is the default: data no benchmark recognises is loaded as its, so that its loader
reports the problem, and a summary without a `benchmark` field (an older harness) is its.
"""

from __future__ import annotations

import json
from pathlib import Path

from eval.benchmark import Benchmark
from eval.io.data import first_jsonl_object, read_data_entries
from eval.errors import DataError
from eval.ifmtbench import IFMTBENCH
from eval.insttrans.record import INSTTRANS
from eval.io.paths import ROOT
from eval.sandglass import SANDGLASS

BENCHMARKS: dict[str, Benchmark] = {bench.name: bench for bench in (INSTTRANS, SANDGLASS, IFMTBENCH)}
DEFAULT_BENCHMARK = next(iter(BENCHMARKS))


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}") from None


def listed(items) -> str:
    """"a, b or c", for a help text."""
    items = list(items)
    return ", ".join(items[:-1]) + " or " + items[-1] if len(items) > 1 else "".join(items)


def titles_listed() -> str:
    """"A, B or C": the registry's benchmark titles, for a help text."""
    return listed(bench.title for bench in BENCHMARKS.values())


def hub_files() -> tuple[str, ...]:
    """Every benchmark's release data file names (`ReleaseHooks.hub_files`), for recognising a snapshot folder."""
    return tuple(name for bench in BENCHMARKS.values() for name in bench.release.hub_files)


def option_flag(name: str) -> str:
    """The command-line flag of a benchmark option (`Benchmark.options`), as the registry declares it."""
    declared = (option.flag for bench in BENCHMARKS.values() for option in bench.options if option.name == name)
    return next(declared, "--" + name.replace("_", "-"))


def recognise(row: object) -> str:
    """The benchmark whose `looks_like` accepts the row; the default when none does."""
    others = [bench for name, bench in BENCHMARKS.items() if name != DEFAULT_BENCHMARK]
    return next((bench.name for bench in others if bench.looks_like(row)), DEFAULT_BENCHMARK)


def detect_benchmark(path: Path | None, dataset: str | None) -> str:
    """A benchmark's name from the data itself: the first row's shape (a file, a snapshot
    directory's data file, the hub's cached file), else the hub name (a dataset not cached).
    A data file is read once: the loader that follows takes the lines read here. Anything
    unreadable falls back to the default, whose loader then reports the problem."""
    if dataset:
        from eval.io.hub import resolve_data_file

        for bench in BENCHMARKS.values():  # a folder that holds a benchmark's own data files
            if bench.data.dataset_files is not None and Path(dataset).is_dir() and bench.data.dataset_files(Path(dataset)):
                return bench.name
        data_file = resolve_data_file(dataset, hub_files())  # a file, a snapshot's data file, the hub's cached file
        if data_file is None or data_file.suffix != ".jsonl":
            others = [name for name in BENCHMARKS if name != DEFAULT_BENCHMARK]
            return next((name for name in others if name in dataset.lower()), DEFAULT_BENCHMARK)
        first = first_jsonl_object(data_file)  # `datasets` reads the file its own way after this
        return DEFAULT_BENCHMARK if first is None else recognise(first)
    if path is None:
        return DEFAULT_BENCHMARK
    try:
        entries = read_data_entries(Path(path), keep=True)
    except DataError:  # a broken file: its first row alone decides, as the loader will say what is broken
        first = first_jsonl_object(Path(path))
        return DEFAULT_BENCHMARK if first is None else recognise(first)
    return recognise(entries[0][1]) if entries else DEFAULT_BENCHMARK


def other_benchmark_line_hint(running: str, entry: dict) -> str | None:
    """"run them with --benchmark NAME" when a predictions line without case_id has the keys of
    another benchmark's own line form (IFMTBench's {md5, response})."""
    for bench in BENCHMARKS.values():
        if bench.name != running and bench.data.prediction_line_keys and bench.data.prediction_line_keys <= entry.keys():
            return _run_them_with(bench)
    return None


def _run_them_with(bench) -> str:
    try:
        bundled = bench.default_data.relative_to(ROOT)
    except ValueError:
        bundled = bench.default_data
    return (f"these look like {bench.title} predictions: run them with --benchmark {bench.name} and its "
            f"data (without --data: the bundled {bundled.as_posix()})")


def other_benchmark_hint(running: str, case_id: str) -> str | None:
    """"run them with --benchmark NAME" when a case_id missing from the data has another benchmark's
    release form or is in its bundled set (read only on this error path)."""
    quoted = json.dumps(case_id, ensure_ascii=False)
    for bench in BENCHMARKS.values():
        if bench.name == running:
            continue
        claimed = bench.release.release_case_id is not None and bench.release.release_case_id.match(case_id)
        if claimed or (bench.default_data.is_file() and quoted in bench.default_data.read_text(encoding="utf-8")):
            return _run_them_with(bench)
    return None
