"""Sandglass-Bench as a benchmark of the run pipeline: syllable-budgeted subtitle translation.

The harness scores how close the prediction's syllable count comes to the row's target, asks the
Judge for quality under the length budget (no reference), and reports every metric of the card
overall, per language, per target kind and per fenqu. Everything that is Sandglass's lives in this
package: rows and targets (`rows`), the Judge prompt (`prompt`), scores and metrics (`metrics`),
report.md (`report`), report.html (`report_html`), the failures lists (`failures`), compare's
units (`compare`) and manifest.json's entry (`manifest`). This module builds the record.
"""

from __future__ import annotations

from eval.benchmark import (Benchmark, CompareHooks, DataHooks, JudgeHooks, PromptSet, PublishedMetric,
                            ReleaseHooks, ReportHooks, scorer_version_option)
from eval.config import HARNESS, RunConfig
from eval.inputs.predictions import is_missing
from eval.scoring.rule_contract import DEFAULT_CONTEXT, ScoringContext
from eval.sandglass import compare, failures, manifest, report_html
from eval.sandglass.explorer import explorer_view
from eval.sandglass.metrics import (HEADLINE_METRICS, metric_tables,
                                    score_item)
from eval.sandglass.prompt import PROMPT_VERSIONS, render_judge_prompt, validate_quality
from eval.sandglass.report import console_table, report_markdown
from eval.scoring.score_rows import ScoreRow
from eval.sandglass.rows import (DEFAULT_DATA, DEFAULT_DATASET, LENGTH_RATIOS, SPEECH_RATES, looks_like_sandglass,
                                 model_input, validate_sandglass_rows)
from eval.scoring.stats import headline_blocks

DEFAULT_JUDGE_MODEL = "gemini-2.5-flash"
EXTRA_COLUMNS = ("pm1", "dev_le_5", "dev_le_10", "dev_le_20", "slope", "q_gap_short", "q_gap_long")


def settings(config: RunConfig) -> dict:
    return {"targets": {"speech_rates": dict(SPEECH_RATES), "ratios": dict(LENGTH_RATIOS),
                        "rounding": "Python round (half to even); short -1 / long +1 when equal to natural"}}


def signature_parts(config: RunConfig) -> tuple[str, ...]:
    return ("rates:" + ",".join(f"{lang}={rate}" for lang, rate in SPEECH_RATES.items()),)


def judge_requests(rows: list[dict], predictions: dict) -> list:
    """One quality verdict per non-missing prediction, through the shared client and cache."""
    from eval.judge_client import JudgeRequest

    return [JudgeRequest(row["case_id"], "sandglass_quality", render_judge_prompt(row, predictions[row["case_id"]]),
                         validate_quality)
            for row in rows if not is_missing(predictions.get(row["case_id"]))]


def count_syllables(text: str, lang: str) -> int:
    """The harness's counter (eval/syllable.py), imported when first used."""
    from eval.syllable import count_syllables as count

    return count(text, lang)


COUNTERS = {HARNESS: count_syllables}


def score_rows(rows: list[dict], predictions: dict, verdicts: dict | None, config: RunConfig,
               scoring: ScoringContext = DEFAULT_CONTEXT) -> list[ScoreRow]:
    """Syllables of every non-missing prediction in its target language (SPEC §8), then the item rows;
    counted by the run's counter (the pipeline's scoring context), else the one `config` names."""
    count = scoring.counter or COUNTERS[config.counter]
    items = []
    for row in rows:
        case_id = row["case_id"]
        prediction = predictions.get(case_id)
        syllables = None if is_missing(prediction) else count(prediction, row["metadata"]["target_language"])
        quality = None  # --skip-judge: null for every item, missing ones included
        if verdicts is not None:  # every prediction has its verdict; a missing one gets no call and quality 0
            quality = verdicts.get((case_id, "sandglass_quality"), {"quality": 0.0})["quality"]
        item = score_item(row, prediction, syllables, quality)
        if verdicts is not None:  # where the quality came from: its cache key and the Judge's raw reply (SPEC §11)
            reply = getattr(verdicts, "replies", {}).get((case_id, "sandglass_quality"))
            item["quality_detail"] = dict(reply) if reply and not is_missing(prediction) else None
        items.append(ScoreRow.of(**item))
    return items


def metric_block(items: list[dict], judged: bool) -> dict:
    """The summary's metric block: the headline numbers and the card's tables."""
    return {**headline_blocks(items, HEADLINE_METRICS, judged), **metric_tables(items)}


def open_release(root, trust_code: bool):
    """`--protocol release` (SPEC §15): the plug-in in eval.sandglass.release, imported only for such a run."""
    from eval.sandglass.release import open_release as open_plugin

    return open_plugin(root, trust_code)


SANDGLASS = Benchmark(
    name="sandglass",
    title="Sandglass-Bench",
    default_data=DEFAULT_DATA,
    looks_like=looks_like_sandglass,
    validate_rows=validate_sandglass_rows,
    model_input=model_input,
    default_judge_model=DEFAULT_JUDGE_MODEL,
    prompt_sets={HARNESS: PromptSet(PROMPT_VERSIONS, judge_requests)},
    score_rows=score_rows,
    headline_metrics=HEADLINE_METRICS,
    metrics=metric_block,
    report_markdown=report_markdown,
    console_table=console_table,
    report_html=report_html.report_html,
    options=(scorer_version_option(("release-3686ba4",)),),  # one official scorer version (SPEC §7c)
    settings=settings,
    signature_parts=signature_parts,
    counters=COUNTERS,
    data=DataHooks(default_dataset=DEFAULT_DATASET, diagnostics_source=lambda row: row["metadata"]["source"],
                   diagnostics_target=lambda row: row["metadata"]["target_language"],
                   prediction_field="hyp", reference_field="label"),  # the release labels its English rows only
    judge=JudgeHooks(unscored_without_judge="quality and score were", judge_labels=compare.judge_labels,
                     judge_label_order=("quality",)),
    reports=ReportHooks(failure_lists=failures.failure_lists, explorer_view=explorer_view),
    compare=CompareHooks(compare_units=compare.compare_units, compare_sections=("by_language",),
                         leaderboard_columns=lambda summaries: list(EXTRA_COLUMNS),
                         leaderboard_value=lambda summary, column: (summary.get("overall") or {}).get(column)),
    release=ReleaseHooks(
        manifest_entry=lambda: manifest.manifest_entry(PROMPT_VERSIONS),
        data_statistics=manifest.data_statistics,
        official_release=manifest.OFFICIAL_RELEASE,
        release_case_id=manifest.RELEASE_CASE_ID,
        hub_files=("sandglass_bench.jsonl",),  # the data file inside the release repository (SPEC §9)
        open_release=open_release,
        published_metrics={
            "quality": PublishedMetric(("quality",), judge=True),
            "mean_abs_dev": PublishedMetric(("mean_abs_dev",), counter=True),
            "within_1": PublishedMetric(("overall", "pm1"), counter=True),
            "within_5pct": PublishedMetric(("overall", "dev_le_5"), counter=True),
            "within_10pct": PublishedMetric(("overall", "dev_le_10"), counter=True),
            "slope": PublishedMetric(("overall", "slope"), counter=True),
        }),
)

__all__ = ["SANDGLASS", "DEFAULT_DATA", "DEFAULT_JUDGE_MODEL"]
