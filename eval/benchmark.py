"""The seam between the run pipeline and a benchmark (InstTrans-Bench, Sandglass-Bench).

A benchmark is a small record of functions; eval/pipeline.py runs any of them through the same
stages (settings → data → predictions → Judge → scoring → aggregation → outputs), so the two
benchmarks are peers and neither knows about the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from eval.config import RunConfig
    from eval.judge_client import JudgeRequest

BENCHMARK_NAMES = ("insttrans", "sandglass")


@dataclass(frozen=True)
class Benchmark:
    name: str
    title: str                                  # for reports: "InstTrans-Bench"
    default_data: Path                          # the bundled set
    default_dataset: str                        # the release's hub id
    default_judge_model: str
    manifest_section: str                       # where manifest.json records the bundled set
    signature_tag: str | None                   # the signature's leading bench: part
    prompt_versions: dict[str, str]             # the Judge prompts' versions (signature, summary)
    unscored_without_judge: str                 # how a --skip-judge reason words what is left out
    validate_rows: Callable[[list[tuple[str, object]]], tuple[list[dict], list[dict]]]  # (rows, warnings)
    model_input: Callable[[dict], dict]         # {case_id, messages}: all a model may see
    diagnostics_source: Callable[[dict], str]   # the text a wrapper diagnostic must not blame on the model
    check_config: Callable[[RunConfig], list[str]]       # raises on a setting it cannot honour;
                                                         # returns its own non-formal reasons
    settings: Callable[[RunConfig], dict]       # the summary block(s) the benchmark adds (rule set, targets)
    signature_parts: Callable[[RunConfig], tuple[str, ...]]
    judge_requests: Callable[[list[dict], dict], list[JudgeRequest]]
    score_rows: Callable[[list[dict], dict, dict | None, RunConfig], list[dict]]
    metrics: Callable[[list[dict], bool], dict]  # the summary's metric block (judged or not)
    report_markdown: Callable[[dict], str]
    console_table: Callable[[dict], str]


def get_benchmark(name: str) -> Benchmark:
    """The benchmark of that name (imported on demand: each brings its own modules)."""
    if name == "insttrans":
        from eval.insttrans import INSTTRANS

        return INSTTRANS
    if name == "sandglass":
        from eval.sandglass import SANDGLASS

        return SANDGLASS
    raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARK_NAMES)}")


def detect_benchmark(path: Path | None, dataset: str | None) -> str:
    """`insttrans` or `sandglass` from the data itself: the first row's shape (a file, a snapshot
    directory's data file, the hub's cached file), else the name (a hub dataset not cached).
    Anything unreadable falls back to `insttrans`, whose loader then reports the problem exactly
    as it always has."""
    from eval.data import read_jsonl_objects
    from eval.errors import DataError
    from eval.sandglass.rows import looks_like_sandglass

    if dataset:
        from eval.hub import resolve_data_file

        path = resolve_data_file(dataset)  # a file, a snapshot's data file, the hub's cached file
        if path is None or path.suffix != ".jsonl":
            return "sandglass" if "sandglass" in dataset.lower() else "insttrans"
    if path is None:
        return "insttrans"
    try:
        entries = read_jsonl_objects(path)
    except DataError:
        return "insttrans"
    return "sandglass" if entries and looks_like_sandglass(entries[0][1]) else "insttrans"
