"""IFMTBench as a benchmark of the run pipeline: instruction-following translation (SPEC §14).

Seven class labels over seven languages: five hard gates checked by rules with the original
scorer's semantics (`rules`), two soft dimensions scored 0–5 by the Judge, and a Judge fallback
when the glossary rule fails (`prompt`). Everything that is IFMTBench's lives in this package:
labels (`labels`), rows, case_ids and validation (`rows`), the prediction join (`predictions`),
score rows (`scoring`), the summary (`metrics`), the reports and failure lists (`report`),
compare and leaderboard (`compare`), manifest.json's entry (`manifest`). This module builds the
record. docs/ifmtbench.md is the user's page.
"""

from __future__ import annotations

from eval.benchmark import HARNESS, Benchmark, Metric, PromptSet, PublishedMetric
from eval.config import RunConfig
from eval.errors import ConfigError
from eval.ifmtbench import compare, explorer, manifest
from eval.ifmtbench.labels import ID_KINDS, LABELS
from eval.ifmtbench.metrics import ifmt_metrics
from eval.ifmtbench.predictions import load_ifmt_predictions
from eval.ifmtbench.prompt import JUDGE_PARAMS, PROMPT_VERSIONS
from eval.ifmtbench.report import console_table, failure_lists, report_markdown
from eval.ifmtbench.report_html import report_html
from eval.ifmtbench.rows import (RELEASE_FILE_SHA256, ROOT, dataset_files, looks_like_ifmtbench, model_input, release_by_rows,
                                 validate_ifmt_rows)
from eval.ifmtbench.scoring import judge_requests, score_rows

DEFAULT_DATA = ROOT / "data" / "ifmtbench"  # a folder: its data/ holds the two files, as the release's does
DEFAULT_DATASET = ""  # the release is a folder of the Hy-MT2 repository, not a hub dataset: --dataset DIR
DEFAULT_JUDGE_MODEL = "gpt-4o"  # SPEC §14; the request parameters are the prompt set's (JUDGE_PARAMS)


def no_syllable_counter(text: str, lang: str) -> int:
    """IFMTBench counts no syllables; the registry entry exists so that the default counter name is valid."""
    raise NotImplementedError("IFMTBench has no syllable rule")


def open_release(root, trust_code: bool):
    """`--protocol release` (SPEC §15): the plug-in in eval.ifmtbench.release, imported only for such a run."""
    from eval.ifmtbench.release import open_release as open_plugin

    return open_plugin(root, trust_code)


def check_config(config: RunConfig) -> list[str]:
    if config.options.get("rule_set", "original") != "original":
        raise ConfigError("--rule-set applies to InstTrans-Bench only (IFMTBench has one rule set: its original "
                          "scorer's)", "drop --rule-set for an IFMTBench run")
    return []


def settings(config: RunConfig) -> dict:
    return {"scoring": {"single": "the row's one score (hard 1/0, soft Judge value / 5)",
                        "multi": "product of the hard verdicts × mean of the soft scores (1.0 without soft)",
                        "glossary_fallback": "the Judge's 0/1 when the rule fails (a failure without the Judge)"}}


IFMTBENCH = Benchmark(
    name="ifmtbench",
    title="IFMTBench",
    default_data=DEFAULT_DATA,
    default_dataset=DEFAULT_DATASET,
    default_judge_model=DEFAULT_JUDGE_MODEL,
    signature_tag="ifmtbench",
    unscored_without_judge="if_score and the style and background scores were",
    looks_like=looks_like_ifmtbench,
    validate_rows=validate_ifmt_rows,
    model_input=model_input,
    diagnostics_source=lambda row: row["origin_text"],
    diagnostics_target=lambda row: row.get("target_language") or None,
    manifest_section="ifmtbench",
    manifest_entry=manifest.manifest_entry,
    data_statistics=manifest.data_statistics,
    check_config=check_config,
    settings=settings,
    signature_parts=lambda config: (),
    options={"scorer_version": ("hy-mt2-a42ea25",)},  # one official scorer version (SPEC §7c)
    prompt_sets={HARNESS: PromptSet(PROMPT_VERSIONS, judge_requests, params=JUDGE_PARAMS)},
    counters={HARNESS: no_syllable_counter},
    score_rows=score_rows,
    headline_metrics=(
        Metric("if_score", aggregation="mean over rows of hard product × soft mean (missing rows 0)"),
        Metric("if_score_single", aggregation="mean over single-constraint rows"),
        Metric("if_score_multi", aggregation="mean over multi-constraint rows"),
        Metric("composition_drop", higher_is_better=False, aggregation="if_score_single − if_score_multi"),
        Metric("hard_pass_rate", aggregation="share of rows passing every hard label"),
    ),
    metrics=ifmt_metrics,
    report_markdown=report_markdown,
    console_table=console_table,
    report_html=report_html,
    failure_lists=failure_lists,
    compare_units=compare.compare_units,
    judge_labels=compare.judge_labels,
    judge_label_order=compare.JUDGE_LABEL_ORDER,
    sort_metrics=("if_score", "hard_pass_rate"),
    leaderboard_columns=compare.leaderboard_columns,
    leaderboard_value=compare.leaderboard_value,
    dataset_files=dataset_files,
    release_by_rows=release_by_rows,
    release_files=RELEASE_FILE_SHA256,
    load_predictions=load_ifmt_predictions,
    prediction_line_keys=frozenset({"md5", "response"}),
    explorer_view=explorer.explorer_view,
    open_release=open_release,
    reference_field="output",  # the release's reference translation
    published_metrics={
        "if_score": PublishedMetric(("if_score",), judge=True),
        "xcomet_xxl": PublishedMetric(None, absent="this harness does not compute XCOMET-XXL (a reference-based "
                                                   "neural metric run outside it)"),
    },
)

__all__ = ["IFMTBENCH", "DEFAULT_DATA", "DEFAULT_JUDGE_MODEL", "ID_KINDS", "JUDGE_PARAMS", "LABELS", "PROMPT_VERSIONS"]
