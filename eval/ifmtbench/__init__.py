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

from eval.benchmark import (Benchmark, CompareHooks, DataHooks, JudgeHooks, PromptSet, PublishedMetric,
                            ReleaseHooks, ReportHooks, scorer_version_option)
from eval.config import HARNESS, RunConfig
from eval.ifmtbench import compare, explorer, manifest
from eval.ifmtbench.metrics import HEADLINE_METRICS, ifmt_metrics
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


def open_release(root, trust_code: bool):
    """`--protocol release` (SPEC §15): the plug-in in eval.ifmtbench.release, imported only for such a run."""
    from eval.ifmtbench.release import open_release as open_plugin

    return open_plugin(root, trust_code)


def settings(config: RunConfig) -> dict:
    return {"scoring": {"single": "the row's one score (hard 1/0, soft Judge value / 5)",
                        "multi": "product of the hard verdicts × mean of the soft scores (1.0 without soft)",
                        "glossary_fallback": "the Judge's 0/1 when the rule fails (a failure without the Judge)"}}


IFMTBENCH = Benchmark(
    name="ifmtbench",
    title="IFMTBench",
    default_data=DEFAULT_DATA,
    looks_like=looks_like_ifmtbench,
    validate_rows=validate_ifmt_rows,
    model_input=model_input,
    default_judge_model=DEFAULT_JUDGE_MODEL,
    prompt_sets={HARNESS: PromptSet(PROMPT_VERSIONS, judge_requests, params=JUDGE_PARAMS)},
    score_rows=score_rows,
    headline_metrics=HEADLINE_METRICS,
    metrics=ifmt_metrics,
    report_markdown=report_markdown,
    console_table=console_table,
    report_html=report_html,
    options=(scorer_version_option(("hy-mt2-a42ea25",)),),  # one official scorer version (SPEC §7c)
    settings=settings,
    data=DataHooks(default_dataset=DEFAULT_DATASET, dataset_files=dataset_files, load_predictions=load_ifmt_predictions,
                   prediction_line_keys=frozenset({"md5", "response"}), diagnostics_source=lambda row: row["origin_text"],
                   diagnostics_target=lambda row: row.get("target_language") or None,
                   reference_field="output"),  # the release's reference translation
    judge=JudgeHooks(unscored_without_judge="if_score and the style and background scores were",
                     judge_labels=compare.judge_labels, judge_label_order=compare.JUDGE_LABEL_ORDER),
    reports=ReportHooks(failure_lists=failure_lists, explorer_view=explorer.explorer_view),
    compare=CompareHooks(compare_units=compare.compare_units, leaderboard_columns=compare.leaderboard_columns,
                         leaderboard_value=compare.leaderboard_value),
    release=ReleaseHooks(
        manifest_entry=manifest.manifest_entry,
        data_statistics=manifest.data_statistics,
        release_files=RELEASE_FILE_SHA256,
        release_by_rows=release_by_rows,
        open_release=open_release,
        published_metrics={
            "if_score": PublishedMetric(("if_score",), judge=True),
            "xcomet_xxl": PublishedMetric(None, absent="this harness does not compute XCOMET-XXL (a reference-based "
                                                       "neural metric run outside it)"),
        }),
)

__all__ = ["IFMTBENCH", "DEFAULT_DATA", "DEFAULT_JUDGE_MODEL"]
