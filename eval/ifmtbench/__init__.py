"""IFMTBench as a benchmark of the run pipeline: instruction-following translation (SPEC §14).

Seven class labels over seven languages: five hard gates checked by rules with the original
scorer's semantics (`rules`), two soft dimensions scored 0–5 by the Judge, and a Judge fallback
when the glossary rule fails (`prompt`). Rows, case_ids and validation are in `rows`, the
prediction join in `predictions`, score rows in `scoring`, the summary in `metrics`, the reports
in `report`. docs/ifmtbench.md is the user's page.
"""

from __future__ import annotations

from pathlib import Path

from eval.benchmark import Benchmark
from eval.config import RunConfig
from eval.constraints import DEFAULT_RULE_SET
from eval.errors import ConfigError
from eval.ifmtbench.labels import ID_KINDS, LABELS
from eval.ifmtbench.metrics import ifmt_metrics
from eval.ifmtbench.predictions import load_ifmt_predictions
from eval.ifmtbench.prompt import PROMPT_VERSIONS
from eval.ifmtbench.report import console_table, failures_markdown, html_sections, report_markdown
from eval.ifmtbench.rows import dataset_files, looks_like_ifmtbench, model_input, release_by_rows, validate_ifmt_rows
from eval.ifmtbench.scoring import judge_requests, score_rows

ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_DATA = ROOT / "data" / "ifmtbench"
DEFAULT_DATASET = "Tencent-Hunyuan/IFMTBench"
DEFAULT_JUDGE_MODEL = "gpt-4o"
# SPEC §14: the original scorer's Judge request parameters (chat completions)
JUDGE_PARAMS = {"temperature": 0, "top_p": 0.6, "max_tokens": 8192}


def check_config(config: RunConfig) -> list[str]:
    if config.rule_set != DEFAULT_RULE_SET:
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
    manifest_section="ifmtbench",
    signature_tag="ifmtbench",
    prompt_versions=PROMPT_VERSIONS,
    unscored_without_judge="if_score and the style and background scores were",
    validate_rows=validate_ifmt_rows,
    model_input=model_input,
    diagnostics_source=lambda row: row["origin_text"],
    check_config=check_config,
    settings=settings,
    signature_parts=lambda config: (),
    judge_requests=judge_requests,
    score_rows=score_rows,
    metrics=ifmt_metrics,
    report_markdown=report_markdown,
    console_table=console_table,
    failures_markdown=failures_markdown,
    report_html_sections=html_sections,
    load_predictions=load_ifmt_predictions,
    dataset_files=dataset_files,
    release_by_rows=release_by_rows,
    judge_params=JUDGE_PARAMS,
    looks_like=looks_like_ifmtbench,
)

__all__ = ["IFMTBENCH", "DEFAULT_DATA", "DEFAULT_JUDGE_MODEL", "ID_KINDS", "JUDGE_PARAMS", "LABELS", "PROMPT_VERSIONS"]
