"""The seam between the run pipeline and a benchmark (InstTrans-Bench, Sandglass-Bench).

A benchmark is a small record of functions; eval/pipeline.py runs any of them through the same
stages (settings → data → predictions → Judge → scoring → aggregation → outputs), so the two
benchmarks are peers and neither knows about the other. eval/benchmarks.py names them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from eval.config import RunConfig
    from eval.judge_client import JudgeRequest

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
    # Metrics reported beside the scores, never instead of them (InstTrans: the strict rule set,
    # SPEC §7b): adds to the summary in place from the rows, predictions and scores.
    companion_metrics: Callable[[dict, list[dict], dict, list[dict], RunConfig], None] | None = None
    # The report's failure lists (SPEC §11): (score rows, summary or None, cap) -> {section: …} for
    # eval/failures.py, which frames them (it also reads "prediction_texts", {case_id: text},
    # when the rows carry the predictions).
    failure_sections: Callable[[list[dict], dict | None, int], dict] | None = None
