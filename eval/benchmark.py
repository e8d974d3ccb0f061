"""The seam between the run pipeline and a benchmark.

A benchmark is one package under eval/ that builds one `Benchmark` record: the fourteen things
every benchmark has (its data, its Judge prompts, its scores and metrics, its reports), and
settings and sub-records with defaults for what only some have (data hooks, Judge labels, failure
lists, compare and leaderboard, the release), so that a benchmark states only what it has.
eval/run/pipeline.py runs any of them through the same stages (settings → data → predictions → Judge
→ scoring → aggregation → outputs); compare, leaderboard, report.html and the manifest read them
through the record too, so no shared module names a benchmark. eval/benchmarks.py is the registry:
adding a benchmark is its package and one line there (docs/architecture.md walks through it).

Every field is documented where it is declared; the records are frozen and hold no state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

if TYPE_CHECKING:
    from eval.config import JudgeSettings, RunConfig
    from eval.scoring.pairing import UnitValues
    from eval.scoring.rule_contract import ScoringContext
# Named in annotations only, never imported here, so that the record stays on the ground floor
# (both modules import this one): RequestShape is eval.judge_client's, ReleaseProtocol
# eval.release.protocol's.

from eval.config import HARNESS  # the prompt set and counter this harness ships (SPEC §15 adds "release")


@dataclass(frozen=True)
class Mean:
    """A metric that is the mean over instances of one scores.jsonl field (weight 1 per instance),
    or, with `where`, over the instances whose boolean field `where[0]` equals `where[1]` (weight 0
    elsewhere). Compare resamples these per-instance values (eval/scoring/pairing.py `headline_units`)."""

    field: str
    where: tuple[str, bool] | None = None
    text: str = "mean over instances"


@dataclass(frozen=True)
class Derived:
    """A metric computed from other numbers (a difference, a slope): no per-instance unit of its
    own, so compare gets its units, if any, from the benchmark's `CompareHooks.compare_units`."""

    text: str


@dataclass(frozen=True)
class Metric:
    """One headline metric, declared once (as lm-eval's metric registry does): the summary's
    top-level `{value, ci95, n}` block `name` (its path in summary.json), which way is good
    (`higher_is_better`; None: neither, such as a slope whose ideal is 1), how per-instance values
    become the number (`aggregation`), and whether it needs the Judge (`judge`). The console table,
    the report cards, the leaderboard's columns and sort, and compare's units are read from it."""

    name: str
    aggregation: Mean | Derived
    higher_is_better: bool | None = True
    judge: bool = False

    @property
    def path(self) -> tuple[str, ...]:
        return (self.name,)


def metric_names(metrics: tuple[Metric, ...]) -> tuple[str, ...]:
    return tuple(metric.name for metric in metrics)


@dataclass(frozen=True)
class Option:
    """A setting only some benchmarks have (InstTrans's rule set): RunConfig.options[name] holds
    the value a run chose; eval/run/cli.py builds `flag` from the registry, and the pipeline refuses an
    option the running benchmark does not declare. `choices` lists the default first."""

    name: str
    flag: str
    choices: tuple[str, ...]
    help: str
    metavar: str | None = None  # None: argparse lists the choices; a name: the help text does


SCORER_VERSION = "scorer_version"  # the option naming the official scorer version (SPEC §7c)


def scorer_version_option(versions: tuple[str, ...]) -> Option:
    """`--scorer-version`: the official scorer versions whose rules a benchmark applies, newest first."""
    return Option(SCORER_VERSION, "--scorer-version", versions,
                  "the official scorer version whose rules score the run, newest first and by default "
                  "({choices}; docs/protocol.md lists what differs)", metavar="NAME")


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


def _no_labels(row: dict) -> dict[str, float]:
    return {}


@dataclass(frozen=True)
class DataHooks:
    """What some benchmarks' data needs beyond the record's four data fields."""

    default_dataset: str = ""                   # the release's hub id ("": none, --dataset DIR)
    dataset_files: Callable[[Path], list[Path] | None] | None = None  # a --dataset DIR (or a default_data
                                                # folder) -> the data files to read, in order
    clean_hub_row: Callable[[dict], dict] | None = None  # undo what `datasets` adds to a row
    load_predictions: Callable[[Path, list[dict], list[dict]], tuple[dict, int]] | None = None  # (path, scored
                                                # rows, rows outside --limit) -> (predictions, lines)
    prediction_line_keys: frozenset[str] = frozenset()  # keys that mark a predictions line without case_id as
                                                # this benchmark's own form (for the other benchmarks' hint)
    diagnostics_source: Callable[[dict], str] = lambda row: ""  # the text a wrapper diagnostic must not
                                                # blame on the model ("": none)
    diagnostics_target: Callable[[dict], str | None] = lambda row: None  # the language a prediction should be
                                                # written in (`source_script`, `wrong_target_script`; None: unknown)
    reference_field: str | None = None          # SPEC §16: the row field `--oracle` scores as the prediction
    prediction_field: str | None = None         # a scores.jsonl field holding the prediction text, if any


@dataclass(frozen=True)
class JudgeHooks:
    """How a run without the Judge words what it left out, and the verdicts Judge agreement reads."""

    unscored_without_judge: str | None = None   # a --skip-judge reason's words; None: the Judge metrics' names
    judge_labels: Callable[[dict], dict[str, float]] = _no_labels  # one score row's verdicts by kind
    judge_label_order: tuple[str, ...] = ()     # the order agreement rows are listed in


@dataclass(frozen=True)
class ReportHooks:
    """The failures section's lists and the explorer's view of one instance."""

    # (score rows, summary, cap) -> the failures section's lists (eval/reports/failures.py); {}: none
    failure_lists: Callable[[list[dict], dict | None, int], dict] = lambda scores, summary, cap: {}
    # (row or None, score row) -> {facets, numbers, summary, texts, checks, judge, prediction, ...}
    # as explorer.html and the compare page show it (eval/reports/explorer.py); None: status only.
    explorer_view: Callable[[dict | None, dict], dict] | None = None


@dataclass(frozen=True)
class CompareHooks:
    """compare and leaderboard (SPEC §12) beyond the headline metrics, which they read alone."""

    # (run A, run B, paired case_ids) -> groups of {path: UnitValues}, as sacreBLEU's paired tests
    # take any metric's sufficient statistics; each group shares one set of resamples, a path is
    # ("metrics", name) or (section, name[, metric]). None: one group, the headline metrics' units.
    compare_units: Callable[[object, object, list[str]], list[dict[tuple, UnitValues]]] | None = None
    compare_sections: tuple[str, ...] = ()      # result sections beside "metrics" and "by_constraint"
    leaderboard_columns: Callable[[list[dict]], list[str]] = lambda summaries: []  # extra columns
    leaderboard_value: Callable[[dict, str], float | None] = lambda summary, column: None


@dataclass(frozen=True)
class ReleaseHooks:
    """The official release: manifest.json's entry, how data is known as it (SPEC §9), its plug-in
    for `--protocol release` (SPEC §15) and its published tables (SPEC §16)."""

    manifest_section: str | None = None         # the manifest.json key with the bundled set's sha256 (None: the name)
    manifest_entry: Callable[[], dict] = dict   # the top-level manifest.json keys this benchmark writes
    data_statistics: Callable[[list[dict]], dict] = lambda rows: {}  # the counts the release publishes
    official_release: dict | None = None        # the published release's facts (hub id, sha256, statistics)
    release_case_id: re.Pattern | None = None   # the release's case_id form, if it publishes one
    release_files: Mapping[str, tuple[int, str]] | None = None  # file name -> (bytes, sha256) pinned for the
                                                # release's files: "official release (by sha256)"
    release_by_rows: Callable[[list[dict]], bool] | None = None  # data with the release's row counts (no
                                                # published checksum): "official release (by row counts)"
    hub_files: tuple[str, ...] = ()             # the release repository's data file(s), when `datasets`
                                                # cannot tell its test split (eval/io/hub.py)
    # Reads the user's release folder (and, when trusted, imports its counter) into the `release`
    # prompt set and counter a run registers beside `harness`; None: no release plug-in yet.
    open_release: Callable[[Path, bool], ReleaseProtocol] | None = None
    published_metrics: Mapping[str, PublishedMetric] = field(default_factory=dict)  # data/published "metric" names


def _no_settings(config: RunConfig) -> dict:
    return {}


def _no_parts(config: RunConfig) -> tuple[str, ...]:
    return ()


def _no_reasons(config: RunConfig) -> list[str]:
    return []


@dataclass(frozen=True)
class Benchmark:
    # --- what every benchmark has (14 fields) ---------------------------------------------------
    name: str                                   # the registry key, `--benchmark NAME`, summary["benchmark"]
    title: str                                  # for reports: "Toy-Bench"
    default_data: Path                          # the bundled set (a file, or a folder DataHooks.dataset_files reads)
    looks_like: Callable[[object], bool]        # is this parsed data row one of ours? (--benchmark auto)
    validate_rows: Callable[[list[tuple[str, object]]], tuple[list[dict], list[dict]]]  # (rows, warnings)
    model_input: Callable[[dict], dict]         # {case_id, messages}: all a model may see
    default_judge_model: str
    prompt_sets: Mapping[str, PromptSet]        # by name; RunConfig.prompt_set chooses ("harness")
    # (rows, predictions, verdicts, config, scoring: eval/scoring/rule_contract.py ScoringContext with the run's counter)
    score_rows: Callable[[list[dict], dict, dict | None, RunConfig, ScoringContext], list[ScoreRow]]  # eval/scoring/score_rows.py
    headline_metrics: tuple[Metric, ...]        # summary's top-level {value, ci95, n} blocks, report order
    metrics: Callable[[list[dict], bool], dict]  # the summary's metric block (judged or not)
    report_markdown: Callable[[dict], str]
    console_table: Callable[[dict], str]
    report_html: Callable[[dict, list[dict]], tuple[list[str], list[str]]]  # report.html parts before
                                                                            # and after the failures

    # --- settings (defaults: none) ----------------------------------------------------------------
    options: tuple[Option, ...] = ()            # settings only this benchmark has (InstTrans: rule_set)
    check_config: Callable[[RunConfig], list[str]] = _no_reasons  # raises on a setting it cannot honour;
                                                # returns its own non-formal reasons
    settings: Callable[[RunConfig], dict] = _no_settings  # the summary block(s) it adds (rule set, targets)
    signature_parts: Callable[[RunConfig], tuple[str, ...]] = _no_parts
    untagged_signature: bool = False            # True: signatures carry no bench: part (the first
                                                # benchmark's, as they always have); else bench:NAME
    counters: Mapping[str, Callable[[str, str], int]] = field(default_factory=dict)  # syllable counters by
                                                # name; RunConfig.counter chooses (none: counts nothing)
    # Metrics reported beside the scores, never instead of them (InstTrans: the strict rule set,
    # SPEC §7b): adds to the summary in place from the rows, predictions and scores.
    companion_metrics: Callable[[dict, list[dict], dict, list[dict], RunConfig], None] | None = None

    # --- what only some benchmarks have -------------------------------------------------------------
    data: DataHooks = DataHooks()
    judge: JudgeHooks = JudgeHooks()
    reports: ReportHooks = ReportHooks()
    compare: CompareHooks = CompareHooks()
    release: ReleaseHooks = ReleaseHooks()

    @property
    def prompt_versions(self) -> Mapping[str, str]:
        """The versions of the default prompt set (manifest.json records them)."""
        return self.prompt_sets[HARNESS].versions

    @property
    def signature_tag(self) -> str | None:
        """The signature's leading bench: part (None: none)."""
        return None if self.untagged_signature else self.name

    @property
    def manifest_section(self) -> str:
        return self.release.manifest_section or self.name

    @property
    def unscored_without_judge(self) -> str:
        """How a --skip-judge reason words what is left out: declared, else the Judge metrics' names."""
        if self.judge.unscored_without_judge is not None:
            return self.judge.unscored_without_judge
        names = [metric.name for metric in self.headline_metrics if metric.judge]
        return (" and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]) + " were"

    @property
    def sort_metrics(self) -> tuple[str, str]:
        """The leaderboard's sort column (the first headline metric) and its fallback when a run
        lacks it (the first one measured without the Judge)."""
        first = self.headline_metrics[0].name
        return first, next((metric.name for metric in self.headline_metrics if not metric.judge), first)

    def compare_groups(self, a, b, case_ids: list[str]) -> list[dict[tuple, UnitValues]]:
        """compare's units (SPEC §12): the benchmark's own groups, else one group of the headline
        metrics that are means over instances."""
        if self.compare.compare_units is not None:
            return self.compare.compare_units(a, b, case_ids)
        from eval.scoring.pairing import headline_units

        return [headline_units(a, b, case_ids, self.headline_metrics)]

    def option_named(self, name: str) -> Option | None:
        return next((option for option in self.options if option.name == name), None)

    def option(self, config: RunConfig, name: str) -> str:
        """The value of one of this benchmark's options in a run: chosen, else its default."""
        return config.options.get(name, self.option_named(name).choices[0])

    def lower_is_better(self) -> frozenset[str]:
        return frozenset(metric.name for metric in self.headline_metrics if metric.higher_is_better is False)
