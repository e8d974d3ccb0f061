"""Sandglass-Bench as a benchmark of the run pipeline: syllable-budgeted subtitle translation.

The harness scores how close the prediction's syllable count comes to the row's target, asks the
Judge for quality under the length budget (no reference), and reports every metric of the card
overall, per language, per target kind and per fenqu. Rows and targets are in `rows`, the Judge
prompt in `prompt`, scores and metrics in `metrics`, the report in `report`.
"""

from __future__ import annotations

from pathlib import Path

from eval.benchmark import Benchmark
from eval.config import RunConfig
from eval.insttrans.rules import DEFAULT_RULE_SET
from eval.errors import ConfigError
from eval.metrics import headline
from eval.predictions import is_missing
from eval.sandglass.failures import failure_sections
from eval.sandglass.metrics import (OUTPUT_FIELDS, controllability_slope, group_stats, metric_tables, quality_gap,
                                    score_item, syllable_reward)
from eval.sandglass.prompt import PROMPT_VERSION, PROMPT_VERSIONS, render_judge_prompt
from eval.sandglass.report import console_table, report_markdown
from eval.sandglass.rows import (LENGTH_RATIOS, SPEECH_RATES, TARGET_KINDS, looks_like_sandglass, model_input,
                                 render_messages, sandglass_row_warnings, target_syllables, validate_sandglass_row,
                                 validate_sandglass_rows)

ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_DATA = ROOT / "data" / "sandglass" / "test.jsonl"
DEFAULT_DATASET = "IndexTeam/Sandglass-Bench"
DEFAULT_JUDGE_MODEL = "gemini-2.5-flash"


def check_config(config: RunConfig) -> list[str]:
    if config.rule_set != DEFAULT_RULE_SET:
        raise ConfigError("--rule-set applies to InstTrans-Bench only", "drop --rule-set for a Sandglass run")
    return []


def settings(config: RunConfig) -> dict:
    return {"targets": {"speech_rates": dict(SPEECH_RATES), "ratios": dict(LENGTH_RATIOS),
                        "rounding": "Python round (half to even); short -1 / long +1 when equal to natural"}}


def signature_parts(config: RunConfig) -> tuple[str, ...]:
    return ("rates:" + ",".join(f"{lang}={rate}" for lang, rate in SPEECH_RATES.items()),)


def judge_requests(rows: list[dict], predictions: dict) -> list:
    """One quality verdict per non-missing prediction, through the shared client and cache."""
    from eval.judge_client import JudgeRequest, validate_quality

    return [JudgeRequest(row["case_id"], "sandglass_quality", render_judge_prompt(row, predictions[row["case_id"]]),
                         validate_quality)
            for row in rows if not is_missing(predictions.get(row["case_id"]))]


def score_rows(rows: list[dict], predictions: dict, verdicts: dict | None, config: RunConfig) -> list[dict]:
    """Syllables of every non-missing prediction in its target language (SPEC §8), then the item rows."""
    from eval.syllable import count_syllables

    items = []
    for row in rows:
        case_id = row["case_id"]
        prediction = predictions.get(case_id)
        syllables = None if is_missing(prediction) else count_syllables(prediction, row["metadata"]["target_language"])
        quality = None  # --skip-judge: null for every item, missing ones included
        if verdicts is not None:  # every prediction has its verdict; a missing one gets no call and quality 0
            quality = verdicts.get((case_id, "sandglass_quality"), {"quality": 0.0})["quality"]
        items.append(score_item(row, prediction, syllables, quality))
    return items


def metrics(items: list[dict], judged: bool) -> dict:
    return {
        "score": headline(items, "score"),
        "syllable_reward": headline(items, "syllable_reward"),
        "quality": headline(items, "quality"),
        "mean_abs_dev": headline(items, "dev"),
        **metric_tables(items),
    }


SANDGLASS = Benchmark(
    name="sandglass",
    title="Sandglass-Bench",
    default_data=DEFAULT_DATA,
    default_dataset=DEFAULT_DATASET,
    default_judge_model=DEFAULT_JUDGE_MODEL,
    manifest_section="sandglass",
    signature_tag="sandglass",
    prompt_versions=PROMPT_VERSIONS,
    unscored_without_judge="quality and score were",
    validate_rows=validate_sandglass_rows,
    model_input=model_input,
    diagnostics_source=lambda row: "",
    check_config=check_config,
    settings=settings,
    signature_parts=signature_parts,
    judge_requests=judge_requests,
    score_rows=score_rows,
    metrics=metrics,
    report_markdown=report_markdown,
    console_table=console_table,
    failure_sections=failure_sections,
)

__all__ = ["SANDGLASS", "DEFAULT_DATA", "DEFAULT_DATASET", "DEFAULT_JUDGE_MODEL", "OUTPUT_FIELDS", "PROMPT_VERSION",
           "PROMPT_VERSIONS", "SPEECH_RATES", "TARGET_KINDS", "LENGTH_RATIOS", "controllability_slope",
           "group_stats", "looks_like_sandglass", "metric_tables", "model_input", "quality_gap",
           "render_judge_prompt", "render_messages", "sandglass_row_warnings", "score_item", "syllable_reward",
           "target_syllables", "validate_sandglass_row", "validate_sandglass_rows"]
