"""InstTrans-Bench's record for the run pipeline (SPEC §1–§11).

It glues the InstTrans modules to the seam in eval/benchmark.py: rows are validated by
eval/data.py, hard rules live in eval/insttrans/rules.py, the Judge prompts in eval/prompts.py, one
instance's score in eval/scoring.py, aggregation in eval/metrics.py and the report in
eval/report.py.
"""

from __future__ import annotations

from eval.benchmark import Benchmark
from eval.config import RunConfig
from eval.insttrans.rules import DEFAULT_RULE_SET, RULE_SETS, SOFT_IDS, constraint_line_for
from eval.data import DEFAULT_DATA, DEFAULT_DATASET, validate_rows
from eval.errors import ConfigError
from eval.insttrans.failures import failure_sections
from eval.metrics import breakdowns, headline
from eval.predictions import is_missing
from eval.prompts import PROMPT_VERSIONS
from eval.report import console_table, report_markdown
from eval.scoring import score_instance
from eval.insttrans.strict_summary import STRICT, add_strict_to_summary, strict_instances, strict_summary
from eval.types import JudgeItem, JudgeResult

DEFAULT_JUDGE_MODEL = "gpt-5.6-sol"


def model_input(row: dict) -> dict:
    """The only things a model may see: the id (to match its answer) and the prompt as a chat turn."""
    return {"case_id": row["case_id"], "messages": [{"role": "user", "content": row["prompt"]}]}


def check_config(config: RunConfig) -> list[str]:
    if config.rule_set not in RULE_SETS:
        raise ConfigError(f"unknown rule set {config.rule_set!r}", f"use one of: {', '.join(sorted(RULE_SETS))}")
    if config.rule_set != DEFAULT_RULE_SET:
        return [f"--rule-set {config.rule_set}: not the protocol's hard rules (published scores use the original rules)"]
    return []


def judge_item(row: dict, prediction: str) -> JudgeItem:
    """What the two Judge prompts need of one instance."""
    soft = tuple((cid, constraint_line_for(row, cid)) for cid in row["constraint_ids"] if cid in SOFT_IDS)
    return JudgeItem(row["case_id"], row["source_lang"], row["target_lang"], row["source_text"],
                     row["reference"], prediction, soft)


def item_requests(item: JudgeItem) -> list:
    """The quality prompt, and the soft prompt when the item has soft ids (SPEC §10)."""
    from eval.judge_client import JudgeRequest, soft_validator, validate_quality
    from eval.prompts import render_quality_prompt, render_soft_prompt

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


def score_rows(rows: list[dict], predictions: dict, verdicts: dict | None, config: RunConfig) -> list[dict]:
    """scores.jsonl rows in data order; `verdicts` is None without the Judge."""
    scores = []
    for row in rows:
        prediction = predictions.get(row["case_id"])
        judge = None if verdicts is None or is_missing(prediction) else judge_result(row["case_id"], verdicts)
        scores.append(score_instance(row, prediction, judge, config.rule_set))
    return scores


def metrics(scores: list[dict], judged: bool) -> dict:
    """The headline numbers and every breakdown (SPEC §9, §11)."""
    return {
        "if_score": headline(scores, "if_score", known=judged),
        "quality": headline(scores, "quality", known=judged),
        "hard_pass_rate": headline(scores, "hard_pass"),
        **breakdowns(scores, judged=judged),
    }


def strict_metrics(summary: dict, rows: list[dict], predictions: dict, scores: list[dict], config: RunConfig) -> None:
    """The strict hard-pass rate and per-constraint strict rates beside the original's (SPEC §7b);
    a strict run's own scores are reused, any other run scores the strict rules once more."""
    instances = scores if config.rule_set == STRICT else strict_instances(rows, predictions)
    add_strict_to_summary(summary, strict_summary(instances))


INSTTRANS = Benchmark(
    name="insttrans",
    title="InstTrans-Bench",
    default_data=DEFAULT_DATA,
    default_dataset=DEFAULT_DATASET,
    default_judge_model=DEFAULT_JUDGE_MODEL,
    manifest_section="data",
    signature_tag=None,  # the first benchmark's signatures carry no bench: part, as they always have
    prompt_versions=PROMPT_VERSIONS,
    unscored_without_judge="soft constraints and quality were",
    validate_rows=validate_rows,
    model_input=model_input,
    diagnostics_source=lambda row: row["source_text"],
    check_config=check_config,
    settings=lambda config: {"rule_set": config.rule_set},
    signature_parts=lambda config: (f"rules:{config.rule_set}",),
    judge_requests=judge_requests,
    score_rows=score_rows,
    metrics=metrics,
    report_markdown=report_markdown,
    console_table=console_table,
    companion_metrics=strict_metrics,
    failure_sections=failure_sections,
)
