"""InstTrans-Bench's Judge verdicts (SPEC §10): what the two prompts need of an instance
(`JudgeItem`), the verdicts the scorer takes (`JudgeResult`), and the validators of the two reply
forms, `{"quality": S}` and `{"scores": {id: S, ...}}`, each S one of 0, 0.5 or 1.

Each validator is a `VerdictForm` that declares what the Judge client's repair turn restates
(`form`, `values`: this benchmark's scale) and what --judge-structured asks an engine to enforce
(`schema`); eval/judge_client.py parses the reply (`parse_verdict_object`) and knows no scale.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from eval.judge_client import VerdictError, VerdictForm, parse_verdict_object

ALLOWED_SCORES = (0, 0.5, 1)
SCALE = "each S is one of the numbers 0, 0.5 or 1"  # the repair turn's words for the scale
SCORE_SCHEMA = {"type": "number", "enum": list(ALLOWED_SCORES)}


@dataclass(frozen=True)
class JudgeItem:
    """What the Judge needs for one instance with a non-missing prediction (SPEC §10)."""

    case_id: str
    source_lang: str
    target_lang: str
    source_text: str
    reference: str
    prediction: str
    soft: tuple[tuple[str, str], ...]  # (constraint id, the line that states it), in row order


@dataclass(frozen=True)
class JudgeResult:
    """The validated verdicts for one instance: quality and one score per soft id. `replies` maps
    "quality" / "soft" to {"cache_key", "reply"}: the verdict's cache key and the Judge's raw
    reply text, kept for audit in the score's detail (SPEC §10, §11)."""

    quality: float
    soft: dict[str, float]
    replies: dict[str, dict] = field(default_factory=dict)


def score_value(value: object, name: str) -> float:
    """A JSON number equal to 0, 0.5 or 1; a boolean or a string is not a score."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value not in ALLOWED_SCORES:
        raise VerdictError(f"{name} = {json.dumps(value)} is not one of the numbers 0, 0.5, 1")
    return float(value) + 0.0  # -0.0 becomes 0.0


def exact_keys(obj: dict, expected: tuple[str, ...], where: str) -> None:
    missing = [key for key in expected if key not in obj]
    extra = [key for key in obj if key not in expected]
    if missing or extra:
        parts = ([f"missing {missing}"] if missing else []) + ([f"unexpected {extra}"] if extra else [])
        raise VerdictError(f"{where}: " + ", ".join(parts))


def object_schema(properties: dict) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _validate_quality(text: str) -> dict:
    """`{"quality": S}` and nothing else."""
    obj = parse_verdict_object(text)
    exact_keys(obj, ("quality",), "verdict keys")
    return {"quality": score_value(obj["quality"], "quality")}


validate_quality = VerdictForm(_validate_quality, '{"quality": S}', SCALE, object_schema({"quality": SCORE_SCHEMA}))


def soft_validator(ids: tuple[str, ...] | list[str]) -> VerdictForm:
    """The form `{"scores": {id: S, ...}}` with exactly `ids`."""
    expected = tuple(dict.fromkeys(ids))

    def validate_soft(text: str) -> dict:
        obj = parse_verdict_object(text)
        exact_keys(obj, ("scores",), "verdict keys")
        scores = obj["scores"]
        if not isinstance(scores, dict):
            raise VerdictError('"scores" is not an object')
        exact_keys(scores, expected, "soft constraint ids")
        return {"scores": {cid: score_value(scores[cid], cid) for cid in expected}}

    return VerdictForm(validate_soft, json.dumps({"scores": {cid: "S" for cid in expected}}).replace('"S"', "S"),
                       SCALE, object_schema({"scores": object_schema({cid: SCORE_SCHEMA for cid in expected})}))
