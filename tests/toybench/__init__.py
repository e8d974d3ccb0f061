"""Toy-Bench: a fourth benchmark that lives outside eval/, to show that a benchmark is its own
package plus one registry line (tests/test_fourth_benchmark.py adds the line and runs every
command). Short texts translated within a word budget using required terms: two hard rules
(`rules`), one Judge prompt with its own request parameters (`prompt`), scores and the summary
(`scoring`), reports and failure lists (`report`), compare and leaderboard (`compare`), the
explorer view (`explorer`) and manifest.json's entry (`manifest`). This module builds the record.
"""

from __future__ import annotations

from eval.benchmark import (Benchmark, CompareHooks, DataHooks, JudgeHooks, Option, PromptSet, ReleaseHooks,
                            ReportHooks)
from eval.config import HARNESS, RunConfig

from . import compare, manifest
from .explorer import explorer_view
from .metrics import HEADLINE_METRICS
from .prompt import JUDGE_PARAMS, PROMPT_VERSIONS, judge_requests
from .report import console_table, failure_lists, report_html, report_markdown
from .rows import DEFAULT_DATA, looks_like_toy, model_input, validate_toy_rows, words
from .scoring import score_rows, toy_metrics


# Its one option: evaluate.py's --genre-table flag exists because the record declares it (eval/run/cli.py
# builds the flags from the registry); the pipeline refuses it for every other benchmark.
GENRE_TABLE = Option("genre_table", "--genre-table", ("shown", "hidden"),
                     "report.md's per-genre table: shown, or hidden (default: shown)")


def settings(config: RunConfig) -> dict:
    return {"word_budget": {"counter": "whitespace words", "rule": "words <= max_words"},
            "report": {"genre_table": TOYBENCH.option(config, GENRE_TABLE.name)}}


TOYBENCH = Benchmark(
    name="toybench",
    title="Toy-Bench",
    default_data=DEFAULT_DATA,
    looks_like=looks_like_toy,
    validate_rows=validate_toy_rows,
    model_input=model_input,
    default_judge_model="toy-judge-1",
    prompt_sets={HARNESS: PromptSet(PROMPT_VERSIONS, judge_requests, params=JUDGE_PARAMS)},
    score_rows=score_rows,
    headline_metrics=HEADLINE_METRICS,
    metrics=toy_metrics,
    report_markdown=report_markdown,
    console_table=console_table,
    report_html=report_html,
    options=(GENRE_TABLE,),
    settings=settings,
    signature_parts=lambda config: ("words:whitespace",),
    counters={HARNESS: lambda text, lang: words(text)},
    data=DataHooks(default_dataset="example/Toy-Bench", diagnostics_source=lambda row: row["source"],
                   diagnostics_target=lambda row: row["target_lang"], prediction_field="prediction"),
    judge=JudgeHooks(judge_labels=compare.judge_labels, judge_label_order=("adequacy",)),
    reports=ReportHooks(failure_lists=failure_lists, explorer_view=explorer_view),
    compare=CompareHooks(compare_units=compare.compare_units, compare_sections=("by_genre",),
                         leaderboard_columns=compare.leaderboard_columns,
                         leaderboard_value=compare.leaderboard_value),
    release=ReleaseHooks(manifest_entry=manifest.manifest_entry, data_statistics=manifest.data_statistics),
)
