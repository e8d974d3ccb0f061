"""Toy-Bench: a fourth benchmark that lives outside eval/, to show that a benchmark is its own
package plus one registry line (tests/test_fourth_benchmark.py adds the line and runs every
command). Short texts translated within a word budget using required terms: two hard rules
(`rules`), one Judge prompt with its own request parameters (`prompt`), scores and the summary
(`scoring`), reports and failure lists (`report`), compare and leaderboard (`compare`), the
explorer view (`explorer`) and manifest.json's entry (`manifest`). This module builds the record.
"""

from __future__ import annotations

from eval.benchmark import HARNESS, Benchmark, Metric, PromptSet
from eval.config import RunConfig
from eval.errors import ConfigError

from . import compare, manifest
from .explorer import explorer_view
from .prompt import JUDGE_PARAMS, PROMPT_VERSIONS, judge_requests
from .report import console_table, failure_lists, report_html, report_markdown
from .rows import DEFAULT_DATA, looks_like_toy, model_input, validate_toy_rows, words
from .scoring import score_rows, toy_metrics


def check_config(config: RunConfig) -> list[str]:
    if config.options.get("rule_set", "original") != "original":
        raise ConfigError("--rule-set does not apply to Toy-Bench", "drop --rule-set")
    return []


TOYBENCH = Benchmark(
    name="toybench",
    title="Toy-Bench",
    default_data=DEFAULT_DATA,
    default_dataset="example/Toy-Bench",
    default_judge_model="toy-judge-1",
    signature_tag="toybench",
    unscored_without_judge="toy_score and adequacy were",
    looks_like=looks_like_toy,
    validate_rows=validate_toy_rows,
    model_input=model_input,
    diagnostics_source=lambda row: row["source"],
    manifest_section="toybench",
    manifest_entry=manifest.manifest_entry,
    data_statistics=manifest.data_statistics,
    check_config=check_config,
    settings=lambda config: {"word_budget": {"counter": "whitespace words", "rule": "words <= max_words"}},
    signature_parts=lambda config: ("words:whitespace",),
    prompt_sets={HARNESS: PromptSet(PROMPT_VERSIONS, judge_requests, params=JUDGE_PARAMS)},
    counters={HARNESS: lambda text, lang: words(text)},
    score_rows=score_rows,
    headline_metrics=(Metric("toy_score", aggregation="mean over rows of hard pass × adequacy"),
                      Metric("hard_pass_rate"), Metric("adequacy"),
                      Metric("words_over", higher_is_better=False, aggregation="mean words beyond the budget")),
    metrics=toy_metrics,
    report_markdown=report_markdown,
    console_table=console_table,
    report_html=report_html,
    failure_lists=failure_lists,
    compare_units=compare.compare_units,
    compare_sections=("by_genre",),
    judge_labels=compare.judge_labels,
    judge_label_order=("adequacy",),
    prediction_field="prediction",
    sort_metrics=("toy_score", "hard_pass_rate"),
    leaderboard_columns=compare.leaderboard_columns,
    leaderboard_value=compare.leaderboard_value,
    explorer_view=explorer_view,
    diagnostics_target=lambda row: row["target_lang"],
)
