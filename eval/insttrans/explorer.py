"""One InstTrans-Bench instance as the explorer shows it (docs/explorer.md): facets, numbers,
texts, each constraint's verdict with its one-line reason, and the Judge's replies.

`row` is None where only scores.jsonl is at hand (the compare page); everything but the texts
comes from the score row.
"""

from __future__ import annotations

from collections.abc import Mapping

from eval.insttrans.failures import failure_reason
from eval.scoring.reasons import MISSING_PREDICTION
from eval.scoring.score_rows import ConstraintResult, ScoreRow

_JUDGE_SKIP = {"cache_key", "judge"}


def _verdict(entry: ConstraintResult) -> tuple[str, bool | None]:
    if entry.hard:
        return ("pass" if entry.passed else "fail"), bool(entry.passed)
    score = entry.score
    return ("not judged", None) if score is None else (f"{score:g}", score >= 1)


def _explanation(entry: ConstraintResult, missing: bool) -> str:
    if missing:
        return MISSING_PREDICTION
    if entry.hard:
        return "" if entry.passed else failure_reason(entry.id, entry.detail)
    if entry.detail.get("repaired"):
        return "repaired verdict (the Judge's first answer was invalid)"
    return "" if entry.score is None or entry.score >= 1 else "Judge score below 1 (reply below)"


def judge_replies(label: str, detail) -> list[tuple[str, str]]:
    """Every text a Judge detail carries, labelled: the reply, or after a repair turn (SPEC §10)
    the invalid first reply and then the reply that became the verdict; any other field as is."""
    if not isinstance(detail, Mapping):
        return []
    out = []
    repaired = bool(detail.get("repaired"))
    if repaired and isinstance(detail.get("invalid_reply"), str):
        out.append((f"{label}: first reply (invalid, answered with a repair turn)", detail["invalid_reply"]))
    for key, value in detail.items():
        if key in _JUDGE_SKIP or value in (None, "", False) or (repaired and key in ("repaired", "invalid_reply")):
            continue
        text = value if isinstance(value, str) else str(value)
        name = "reply after the repair turn" if repaired and key == "reply" else key.replace("_", " ")
        out.append((f"{label} {name}" if not repaired else f"{label}: {name}", text))
    return out


def explorer_view(row: dict | None, score: ScoreRow) -> dict:
    """The instance's facets, sortable numbers, texts, checks and Judge replies."""
    ids = list(score["constraint_ids"])
    checks, failed, verdicts = [], [], []
    soft_detail = None
    for entry in score.constraints:
        verdict, passed = _verdict(entry)
        checks.append({"name": entry.id, "kind": entry.kind, "verdict": verdict, "passed": passed,
                       "value": entry.passed if entry.hard else entry.score,
                       "explanation": _explanation(entry, score.missing)})
        verdicts.append(f"{entry.id}: {verdict}")
        if passed is False:
            failed.append(entry.id)
        if entry.kind == "soft" and soft_detail is None:
            soft_detail = entry.detail
    quality = score.get("quality")
    repaired = isinstance(score.get("quality_detail"), dict) and score["quality_detail"].get("repaired")
    checks.append({"name": "quality", "kind": "Judge", "value": quality,
                   "passed": None if quality is None else quality >= 1,
                   "verdict": "not judged" if quality is None else f"{quality:g}",
                   "explanation": "repaired verdict (the Judge's first answer was invalid)" if repaired else
                   "" if quality is None or quality >= 1 else
                   MISSING_PREDICTION if score.missing else "Judge score below 1 (reply below)"})
    hard_pass = score.get("hard_pass")
    facets = {
        "outcome": "missing" if score.missing else ("hard pass" if hard_pass else "hard fail"),
        "constraint": ids,
        "verdict": verdicts,
        "failed": failed or ["none"],
        "label combination": " + ".join(sorted(set(ids))),
        "language pair": f"{score['source_lang']}-{score['target_lang']}",
        "target language": score["target_lang"],
        "scenario": score["scenario"],
        "domain": score["domain"],
        "quality": "not judged" if quality is None else f"{quality:g}",
    }
    layout_failed = any(entry.id == "layout_break" and entry.passed is False for entry in score.constraints)
    texts = []
    if row is not None:
        prompt, source = row["prompt"], row["source_text"]
        instruction = prompt[: len(prompt) - len(source)] if prompt.endswith(source) else prompt
        texts = [{"label": "source", "text": source, "lang": row["source_lang"]},
                 {"label": "reference", "text": row["reference"], "lang": row["target_lang"]},
                 {"label": "instruction (the prompt before the source text)", "text": instruction, "folded": True,
                  "lang": "zh"}]
    elif isinstance(score.get("model_input"), list):  # a --log-samples run
        texts = [{"label": f"model input ({message.get('role')})", "text": message.get("content", ""), "folded": True}
                 for message in score["model_input"] if isinstance(message, dict)]
    judge = judge_replies("quality", score.get("quality_detail")) + judge_replies("soft constraints", soft_detail)
    summary = " · ".join([facets["language pair"], facets["outcome"]]
                         + [f"✗ {cid}" for cid in failed]
                         + ([f"if {score['if_score']:.2f}"] if score.get("if_score") is not None else []))
    return {"facets": facets, "summary": summary, "texts": texts, "checks": checks, "judge": judge,
            "numbers": {"if_score": score.get("if_score"), "quality": quality, "soft_mean": score.get("soft_mean"),
                        "hard_pass": None if hard_pass is None else int(hard_pass), "constraints": len(ids)},
            "prediction": score.get("prediction"), "prediction_lang": score["target_lang"],
            "show_whitespace": layout_failed}
