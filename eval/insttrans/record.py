"""InstTrans-Bench's record for the run pipeline (SPEC §1–§11): the functions eval/benchmark.py's
seam asks for, from the package's modules (see eval/insttrans/__init__.py)."""

from __future__ import annotations

from dataclasses import replace

from eval.benchmark import (Benchmark, CompareHooks, DataHooks, JudgeHooks, Option, PromptSet, PublishedMetric,
                            ReleaseHooks, ReportHooks, scorer_version_option)
from eval.config import HARNESS, RELEASE, RunConfig
from eval.insttrans.rules import CONSTRAINT_KINDS, DEFAULT_RULE_SET, RULE_SETS, SOFT_IDS, constraint_line_for
from eval.errors import ConfigError
import eval.insttrans.compare as compare
import eval.insttrans.manifest as manifest
import eval.insttrans.report_html as report_html
from eval.insttrans.explorer import explorer_view
from eval.insttrans.failures import failure_lists
from eval.insttrans.metrics import HEADLINE_METRICS, metrics as metric_block
from eval.insttrans.prompts import PROMPT_VERSIONS
from eval.insttrans.report import console_table, report_markdown
from eval.insttrans.rows import DEFAULT_DATA, DEFAULT_DATASET, drop_unset_optionals, validate_rows
from eval.insttrans.scoring import score_instance
from eval.inputs.predictions import is_missing
from eval.scoring.rule_contract import DEFAULT_CONTEXT, ScoringContext
from eval.insttrans.scorer_versions import DEFAULT_SCORER_VERSION, SCORER_VERSIONS
from eval.insttrans.strict_summary import STRICT, add_strict_to_summary, strict_instance, strict_summary
from eval.insttrans.verdicts import JudgeItem, JudgeResult

DEFAULT_JUDGE_MODEL = "gpt-5.6-sol"


def model_input(row: dict) -> dict:
    """The only things a model may see: the id (to match its answer) and the prompt as a chat turn."""
    return {"case_id": row["case_id"], "messages": [{"role": "user", "content": row["prompt"]}]}


def rule_set(config: RunConfig) -> str:
    """The run's hard-rule set (SPEC §7, §7b): chosen with --rule-set, else the original rules."""
    return config.options.get("rule_set", DEFAULT_RULE_SET)


def scorer_version(config: RunConfig) -> str:
    """The official scorer version whose rules the original set applies (SPEC §7c): --scorer-version,
    the one a release folder was recognised as, else the newest."""
    return config.options.get("scorer_version", DEFAULT_SCORER_VERSION)


def check_config(config: RunConfig) -> list[str]:
    chosen = rule_set(config)
    if chosen not in RULE_SETS:
        raise ConfigError(f"unknown rule set {chosen!r}", f"use one of: {', '.join(sorted(RULE_SETS))}")
    if chosen != DEFAULT_RULE_SET:
        return [f"--rule-set {chosen}: not the protocol's hard rules (published scores use the original rules)"]
    return []


def judge_item(row: dict, prediction: str) -> JudgeItem:
    """What the two Judge prompts need of one instance."""
    soft = tuple((cid, constraint_line_for(row, cid)) for cid in row["constraint_ids"] if cid in SOFT_IDS)
    return JudgeItem(row["case_id"], row["source_lang"], row["target_lang"], row["source_text"],
                     row["reference"], prediction, soft)


def item_requests(item: JudgeItem) -> list:
    """The quality prompt, and the soft prompt when the item has soft ids (SPEC §10)."""
    from eval.insttrans.verdicts import soft_validator, validate_quality
    from eval.judge_client import JudgeRequest
    from eval.insttrans.prompts import render_quality_prompt, render_soft_prompt

    requests = [JudgeRequest(item.case_id, "quality", render_quality_prompt(item), validate_quality)]
    if item.soft:
        requests.append(JudgeRequest(item.case_id, "soft", render_soft_prompt(item),
                                     soft_validator([cid for cid, _ in item.soft])))
    return requests


def judge_requests(rows: list[dict], predictions: dict) -> list:
    """Every instance with a prediction; a missing one gets no call (SPEC §6, §9)."""
    return [request for row in rows if not is_missing(predictions.get(row["case_id"]))
            for request in item_requests(judge_item(row, predictions[row["case_id"]]))]


def judge_result(case_id: str, verdicts: dict) -> JudgeResult:
    """One instance's verdicts, as the scorer takes them."""
    soft = verdicts[(case_id, "soft")]["scores"] if (case_id, "soft") in verdicts else {}
    replies = getattr(verdicts, "replies", {})  # cache key and raw reply per prompt (judge_client.Verdicts)
    return JudgeResult(quality=verdicts[(case_id, "quality")]["quality"], soft=dict(soft),
                       replies={name: dict(replies[(case_id, name)]) for name in ("quality", "soft")
                                if (case_id, name) in replies})


def score_rows(rows: list[dict], predictions: dict, verdicts: dict | None, config: RunConfig,
               scoring: ScoringContext = DEFAULT_CONTEXT) -> list[dict]:
    """scores.jsonl rows in data order; `verdicts` is None without the Judge. The rules run under
    the pipeline's context (the run's counter) with the run's rule set and scorer version."""
    context = replace(scoring, rule_set=rule_set(config), scorer_version=scorer_version(config))
    scores = []
    for row in rows:
        prediction = predictions.get(row["case_id"])
        judge = None if verdicts is None or is_missing(prediction) else judge_result(row["case_id"], verdicts)
        scores.append(score_instance(row, prediction, judge, context))
    return scores


def strict_metrics(summary: dict, rows: list[dict], predictions: dict, scores: list[dict], config: RunConfig) -> None:
    """The strict hard-pass rate and per-constraint strict rates beside the original's (SPEC §7b);
    a strict run's own scores are reused, any other run scores the strict rules once more."""
    instances = scores if rule_set(config) == STRICT else (
        strict_instance(row, predictions.get(row["case_id"])) for row in rows)  # one at a time, none kept
    add_strict_to_summary(summary, strict_summary(instances))


def published_denominators(summary: dict, scores: list[dict], config: RunConfig) -> None:
    """Under --protocol release with public-v1 (SPEC §7c): beside each hard pass rate, the rate as
    that version computes it, over the rows with a prediction only (it leaves a missing one out of
    the denominator; this harness and 2026-10-05 count it as a failure). Only when a row is missing,
    where the two differ."""
    from eval.scoring.rule_contract import HARD
    from eval.insttrans.rules import PUBLIC_V1
    from eval.scoring.stats import rounded

    if config.protocol != RELEASE or scorer_version(config) != PUBLIC_V1:
        return
    present = [score for score in scores if score["status"] != "missing"]
    if len(present) == len(scores):
        return
    for cid, entry in summary.get("by_constraint", {}).items():
        if entry.get("kind") != HARD:
            continue
        verdicts = [item["passed"] for score in present for item in score["constraints"] if item["id"] == cid]
        entry["pass_rate_public_v1"] = rounded(sum(verdicts) / len(verdicts)) if verdicts else None
        entry["n_public_v1"] = len(verdicts)


def companion_metrics(summary: dict, rows: list[dict], predictions: dict, scores: list[dict], config: RunConfig) -> None:
    """Figures reported beside the scores: the strict rates, and public-v1's own denominators."""
    strict_metrics(summary, rows, predictions, scores, config)
    published_denominators(summary, scores, config)


def count_syllables(text: str, lang: str) -> int:
    """The harness's counter (eval/syllable.py), which the syllable_order rule uses."""
    from eval.syllable import count_syllables as count

    return count(text, lang)


def looks_like(row: object) -> bool:
    """An InstTrans row carries its prompt as one string (the §5 layout)."""
    return isinstance(row, dict) and isinstance(row.get("prompt"), str)


def leaderboard_columns(summaries: list[dict]) -> list[str]:
    """The constraints any of the runs scored, in SPEC §4 order."""
    present = {cid for summary in summaries for cid in summary.get("by_constraint", {})}
    return [cid for cid in CONSTRAINT_KINDS if cid in present]


def leaderboard_value(summary: dict, column: str) -> float | None:
    entry = summary.get("by_constraint", {}).get(column) or {}
    return entry.get("pass_rate", entry.get("mean"))


def open_release(root, trust_code: bool):
    """`--protocol release` (SPEC §15): the plug-in in eval.insttrans.release, imported only for such a run."""
    from eval.insttrans.release import open_release as open_plugin

    return open_plugin(root, trust_code)


INSTTRANS = Benchmark(
    name="insttrans",
    title="InstTrans-Bench",
    default_data=DEFAULT_DATA,
    looks_like=looks_like,
    validate_rows=validate_rows,
    model_input=model_input,
    default_judge_model=DEFAULT_JUDGE_MODEL,
    prompt_sets={HARNESS: PromptSet(PROMPT_VERSIONS, judge_requests)},
    score_rows=score_rows,
    headline_metrics=HEADLINE_METRICS,
    metrics=metric_block,
    report_markdown=report_markdown,
    console_table=console_table,
    report_html=report_html.report_html,
    options=(Option("rule_set", "--rule-set", tuple(sorted(RULE_SETS, key=lambda name: name != DEFAULT_RULE_SET)),
                    "hard-rule semantics (default: the original scorer's)"),
             scorer_version_option(tuple(SCORER_VERSIONS))),  # newest first: the default
    check_config=check_config,
    settings=lambda config: {"rule_set": rule_set(config)},
    signature_parts=lambda config: (f"rules:{rule_set(config)}",),
    untagged_signature=True,  # the first benchmark's signatures carry no bench: part, as they always have
    counters={HARNESS: count_syllables},
    companion_metrics=companion_metrics,
    data=DataHooks(default_dataset=DEFAULT_DATASET, clean_hub_row=drop_unset_optionals,
                   diagnostics_source=lambda row: row["source_text"], diagnostics_target=lambda row: row["target_lang"],
                   reference_field="reference"),
    judge=JudgeHooks(unscored_without_judge="soft constraints and quality were", judge_labels=compare.judge_labels,
                     judge_label_order=compare.JUDGE_LABEL_ORDER),
    reports=ReportHooks(failure_lists=failure_lists, explorer_view=explorer_view),
    compare=CompareHooks(compare_units=compare.compare_units, leaderboard_columns=leaderboard_columns,
                         leaderboard_value=leaderboard_value),
    release=ReleaseHooks(
        manifest_section="data",
        manifest_entry=lambda: manifest.manifest_entry(PROMPT_VERSIONS),
        data_statistics=manifest.data_statistics,
        official_release=manifest.OFFICIAL_RELEASE,
        hub_files=("data/test.jsonl",),  # the data file inside the release repository (SPEC §9)
        open_release=open_release,
        published_metrics={
            "quality": PublishedMetric(("quality",), judge=True),
            "if_score": PublishedMetric(("if_score",), judge=True),
            "off_target": PublishedMetric(None, absent="this harness does not measure the off-target rate"),
        }),
)
