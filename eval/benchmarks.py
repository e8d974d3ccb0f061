"""The registry of benchmarks, and recognising which one a data file belongs to.

Adding a benchmark is its package under eval/ and one line in BENCHMARKS (docs/architecture.md).
The first entry is the default: data no benchmark recognises is loaded as its, so that its loader
reports the problem, and a summary without a `benchmark` field (an older harness) is its.
"""

from __future__ import annotations

from pathlib import Path

from eval.benchmark import Benchmark
from eval.data import first_jsonl_object, read_data_entries
from eval.errors import DataError
from eval.insttrans import INSTTRANS
from eval.sandglass import SANDGLASS

BENCHMARKS: dict[str, Benchmark] = {bench.name: bench for bench in (INSTTRANS, SANDGLASS)}
DEFAULT_BENCHMARK = next(iter(BENCHMARKS))


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}") from None


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
        from eval.hub import resolve_data_file

        data_file = resolve_data_file(dataset)  # a file, a snapshot's data file, the hub's cached file
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
