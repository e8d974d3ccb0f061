"""The benchmarks by name, and recognising which one a data file belongs to."""

from __future__ import annotations

import json
from pathlib import Path

from eval.benchmark import Benchmark
from eval.data import first_jsonl_object
from eval.insttrans import INSTTRANS
from eval.paths import ROOT
from eval.sandglass import SANDGLASS
from eval.sandglass.rows import looks_like_sandglass

BENCHMARKS: dict[str, Benchmark] = {bench.name: bench for bench in (INSTTRANS, SANDGLASS)}


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

        path = resolve_data_file(dataset)  # a file, a snapshot's data file, the hub's cached file
        if path is None or path.suffix != ".jsonl":
            return "sandglass" if "sandglass" in dataset.lower() else "insttrans"
    if path is None:
        return "insttrans"
    first = first_jsonl_object(path)  # the first row only: the loader reads (and checks) every line
    return "sandglass" if first is not None and looks_like_sandglass(first) else "insttrans"


def other_benchmark_hint(running: str, case_id: str) -> str | None:
    """"pass --benchmark NAME" when a case_id missing from the data has another benchmark's shape or
    is in its bundled set (read only on this error path)."""
    quoted = json.dumps(case_id, ensure_ascii=False)
    for bench in BENCHMARKS.values():
        if bench.name == running:
            continue
        claimed = bench.claims_case_id is not None and bench.claims_case_id(case_id)
        if claimed or (bench.default_data.is_file() and quoted in bench.default_data.read_text(encoding="utf-8")):
            try:
                bundled = bench.default_data.relative_to(ROOT)
            except ValueError:
                bundled = bench.default_data
            return (f"these look like {bench.title} predictions: run them with --benchmark {bench.name} and its "
                    f"data (without --data: the bundled {bundled.as_posix()})")
    return None
