"""The seam between the run pipeline and a benchmark (InstTrans-Bench, Sandglass-Bench, ...).

A benchmark is one package under eval/ that builds one `Benchmark` record: its defaults, a few
declarations and a small set of functions. eval/pipeline.py runs any of them through the same
stages (settings → data → predictions → Judge → scoring → aggregation → outputs); compare,
leaderboard, report.html and the manifest read them through the record too, so no shared module
names a benchmark. eval/benchmarks.py is the registry: adding a benchmark is its package and one
line there (docs/architecture.md walks through it).

Every field is documented where it is declared; the record is frozen and holds no state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

if TYPE_CHECKING:
    from eval.config import JudgeSettings, RunConfig
    from eval.pairing import UnitValues
    from eval.rule_contract import ScoringContext
# Named in annotations only, never imported here, so that the record stays on the ground floor
# (both modules import this one): RequestShape is eval.judge_client's, ReleaseProtocol
# eval.release_protocol's.

from eval.config import HARNESS  # the prompt set and counter this harness ships (SPEC §15 adds "release")


@dataclass(frozen=True)
class Metric:
    """One metric a benchmark reports, declared once (as lm-eval's metric registry does).

    `higher_is_better` tells compare and leaderboard which way is good (None: neither, such as a
    slope whose ideal is 1); `aggregation` says in words how per-instance values become the number.
    """

    name: str
    higher_is_better: bool | None = True
    aggregation: str = "mean over instances"


@dataclass(frozen=True)
class PublishedMetric:
    """How one metric of a published table (data/published/, SPEC §16) is read from a run's summary.

    `path` leads into summary.json to a `{value, ci95}` block or a bare number (None: this harness
    does not compute the metric, and `absent` says so); `judge` and `counter` say whether the
    number depends on the Judge and on the syllable counter, so that eval/published.py knows which
    of a run's settings make it comparable."""

    path: tuple[str, ...] | None
    judge: bool = False
    counter: bool = False
    absent: str = ""


@dataclass(frozen=True)
class PromptSet:
    """One set of Judge prompts of a benchmark (SPEC §10): the requests the instances with a
    prediction need, the versions the signature and summary record, and how they are sent. The
    request parameters live here, beside the prompts they were tuned for, so that a benchmark's
    Judge is described in one place and a second prompt set can bring its own."""

    versions: Mapping[str, str]
    judge_requests: Callable[[list[dict], dict], list]   # (rows, predictions) -> [JudgeRequest]
    # The request each prompt becomes when it is not SPEC §10's (a release's own, §15); None: §10's.
    shape: Callable[[JudgeSettings], RequestShape] | None = None
    # Chat request parameters of SPEC §10's request (and its repair turn) instead of the shared
    # ones (IFMTBench: its original scorer's); they become the run's JudgeSettings.params. None: shared.
    params: Mapping[str, object] | None = None


@dataclass(frozen=True)
class Benchmark:
    # --- identity and defaults ---------------------------------------------------------------
    name: str                                   # the registry key, `--benchmark NAME`, summary["benchmark"]
    title: str                                  # for reports: "InstTrans-Bench"
    default_data: Path                          # the bundled set
    default_dataset: str                        # the release's hub id
    default_judge_model: str
    signature_tag: str | None                   # the signature's leading bench: part (None: none, as always)
    unscored_without_judge: str                 # how a --skip-judge reason words what is left out

    # --- data: recognition, schema, model input -------------------------------------------------
    looks_like: Callable[[object], bool]        # is this parsed data row one of ours? (--benchmark auto)
    validate_rows: Callable[[list[tuple[str, object]]], tuple[list[dict], list[dict]]]  # (rows, warnings)
    model_input: Callable[[dict], dict]         # {case_id, messages}: all a model may see
    diagnostics_source: Callable[[dict], str]   # the text a wrapper diagnostic must not blame on the model

    # --- manifest.json and known data (SPEC §9) -------------------------------------------------
    manifest_section: str                       # the manifest.json key whose entry has the bundled set's sha256
    manifest_entry: Callable[[], dict]          # the top-level manifest.json keys this benchmark writes
    data_statistics: Callable[[list[dict]], dict]  # the counts the release publishes, from rows

    # --- settings -------------------------------------------------------------------------------
    check_config: Callable[[RunConfig], list[str]]  # raises on a setting it cannot honour; returns
                                                    # its own non-formal reasons
    settings: Callable[[RunConfig], dict]       # the summary block(s) the benchmark adds (rule set, targets)
    signature_parts: Callable[[RunConfig], tuple[str, ...]]

    # --- Judge, scoring, metrics ----------------------------------------------------------------
    prompt_sets: Mapping[str, PromptSet]        # by name; RunConfig.prompt_set chooses ("harness")
    counters: Mapping[str, Callable[[str, str], int]]  # syllable counters by name; RunConfig.counter chooses
    # (rows, predictions, verdicts, config, scoring: eval/rule_contract.py ScoringContext with the run's counter)
    score_rows: Callable[[list[dict], dict, dict | None, RunConfig, ScoringContext], list[ScoreRow]]  # eval/score_rows.py
    headline_metrics: tuple[Metric, ...]        # summary's top-level {value, ci95, n} blocks, report order
    metrics: Callable[[list[dict], bool], dict]  # the summary's metric block (judged or not)

    # --- reports --------------------------------------------------------------------------------
    report_markdown: Callable[[dict], str]
    console_table: Callable[[dict], str]
    report_html: Callable[[dict, list[dict]], tuple[list[str], list[str]]]  # report.html parts before
                                                                            # and after the failures
    failure_lists: Callable[[list[dict], dict | None, int], dict]  # the failures section's lists from the score
                                                # rows and the summary (the run's settings), capped per list

    # --- compare and leaderboard (SPEC §12) -----------------------------------------------------
    # Per-unit statistics for paired tests, as sacreBLEU's paired tests take any metric's
    # sufficient statistics: (run A, run B, paired case_ids) -> groups of {path: UnitValues}; each
    # group shares one set of resamples, a path is ("metrics", name) or (section, name[, metric]).
    compare_units: Callable[[object, object, list[str]], list[dict[tuple, UnitValues]]]
    judge_labels: Callable[[dict], dict[str, float]]  # one instance's Judge verdicts by kind (agreement)
    judge_label_order: tuple[str, ...]          # the order agreement rows are listed in
    sort_metrics: tuple[str, str]               # the leaderboard's sort column, and its fallback
    leaderboard_columns: Callable[[list[dict]], list[str]]  # extra columns for these summaries
    leaderboard_value: Callable[[dict, str], float | None]  # one extra column's value of a summary

    # --- optional -------------------------------------------------------------------------------
    # Settings only this benchmark has: option name -> its choices, the default first
    # (InstTrans: rule_set). RunConfig.options carries the values a run chose.
    options: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Metrics reported beside the scores, never instead of them (InstTrans: the strict rule set,
    # SPEC §7b): adds to the summary in place from the rows, predictions and scores.
    companion_metrics: Callable[[dict, list[dict], dict, list[dict], RunConfig], None] | None = None
    clean_hub_row: Callable[[dict], dict] | None = None  # undo what `datasets` adds to a row
    official_release: dict | None = None        # the published release's facts (hub id, sha256, statistics)
    release_case_id: re.Pattern | None = None   # the release's case_id form, if it publishes one
    compare_sections: tuple[str, ...] = ()      # compare's result sections beside "metrics" and "by_constraint"
    prediction_field: str | None = None         # a scores.jsonl field holding the prediction text, if any
    # Generic hooks IFMTBench introduced (its Judge's request parameters are PromptSet.params); None
    # keeps the shared behaviour (docs/architecture.md lists what each is for).
    dataset_files: Callable[[Path], list[Path] | None] | None = None  # a --dataset DIR (or a default_data folder)
                                                                  # -> the data files to read, in order
    release_by_rows: Callable[[list[dict]], bool] | None = None   # data with the release's row counts (no
                                                                  # published checksum): "official release (by row counts)"
    release_files: Mapping[str, tuple[int, str]] | None = None    # file name -> (bytes, sha256) pinned for the release's
                                                                  # files: "official release (by sha256)"
    load_predictions: Callable[[Path, list[dict], list[dict]], tuple[dict, int]] | None = None  # (path, scored
                                                                  # rows, rows outside --limit) -> (predictions, lines)
    prediction_line_keys: frozenset[str] = frozenset()  # keys that mark a predictions line without case_id as
                                                        # this benchmark's own form (for the other benchmarks' hint)
    # One instance as explorer.html and the compare page show it (eval/explorer.py): (row or None,
    # score row) -> {facets, numbers, summary, texts, checks, judge, prediction, ...}; None: status only.
    explorer_view: Callable[[dict | None, dict], dict] | None = None
    # The language a prediction should be written in, for the `source_script` and `wrong_target_script`
    # diagnostics (None: unknown).
    diagnostics_target: Callable[[dict], str | None] = lambda row: None
    # `--protocol release` (SPEC §15): reads the user's release folder (and, when trusted, imports
    # its counter) into the `release` prompt set and counter a run registers beside `harness`;
    # None where the benchmark has no release plug-in yet.
    open_release: Callable[[Path, bool], ReleaseProtocol] | None = None
    # SPEC §16: the row field holding the reference (`--oracle` scores it as the prediction), and
    # the published tables' metric names (data/published/*.json "metric") read from a summary.
    reference_field: str | None = None
    published_metrics: Mapping[str, PublishedMetric] = field(default_factory=dict)

    @property
    def prompt_versions(self) -> Mapping[str, str]:
        """The versions of the default prompt set (manifest.json records them)."""
        return self.prompt_sets[HARNESS].versions

    def option(self, config: RunConfig, name: str) -> str:
        """The value of one of this benchmark's options in a run: chosen, else its default."""
        return config.options.get(name, self.options[name][0])

    def lower_is_better(self) -> frozenset[str]:
        return frozenset(metric.name for metric in self.headline_metrics if metric.higher_is_better is False)
