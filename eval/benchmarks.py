"""The benchmarks by name, and recognising which one a data file belongs to."""

from __future__ import annotations

from pathlib import Path

from eval.benchmark import Benchmark
from eval.data import first_jsonl_object
from eval.ifmtbench import IFMTBENCH
from eval.insttrans import INSTTRANS
from eval.sandglass import SANDGLASS
from eval.sandglass.rows import looks_like_sandglass

BENCHMARKS: dict[str, Benchmark] = {bench.name: bench for bench in (INSTTRANS, SANDGLASS, IFMTBENCH)}


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}") from None


def detect_benchmark(path: Path | None, dataset: str | None) -> str:
    """`insttrans` or `sandglass` from the data itself: the first row's shape (a file, a snapshot
    directory's data file, the hub's cached file), else the name (a hub dataset not cached).
    Anything unreadable falls back to `insttrans`, whose loader then reports the problem exactly
    as it always has."""
    if dataset:
        from eval.hub import resolve_data_file

        for bench in BENCHMARKS.values():  # a folder holding a benchmark's own data files
            if bench.dataset_files is not None and Path(dataset).is_dir() and bench.dataset_files(Path(dataset)):
                return bench.name
        path = resolve_data_file(dataset)  # a file, a snapshot's data file, the hub's cached file
        if path is None or path.suffix != ".jsonl":
            return "sandglass" if "sandglass" in dataset.lower() else "insttrans"
    if path is None:
        return "insttrans"
    first = first_jsonl_object(path)  # the first row only: the loader reads (and checks) every line
    for bench in BENCHMARKS.values():
        if bench.looks_like is not None and first is not None and bench.looks_like(first):
            return bench.name
    return "sandglass" if first is not None and looks_like_sandglass(first) else "insttrans"
