"""Sandglass-Bench rows: the card's targets, the row schema and the bundled prompt.

One Chinese subtitle line, one target language (en ja es ar), one length target (short, natural,
long) per row; the prompt is chat messages and the fields sit under `metadata`.
"""

from __future__ import annotations

import math
from pathlib import Path

from eval.io.data import data_warning
from eval.errors import DataError
from eval.inputs.languages import CHINESE_NAMES
from eval.io.paths import bundle_root

ROOT = bundle_root()  # the checkout, or the installed share folder (eval/io/paths.py)
DEFAULT_DATA = ROOT / "data" / "sandglass" / "test.jsonl"
DEFAULT_DATASET = "IndexTeam/Sandglass-Bench"

# The card's speech rates (syllables per second) and length ratios.
SPEECH_RATES: dict[str, float] = {"en": 6.19, "ja": 7.84, "es": 7.82, "ar": 8.4}
TARGET_KINDS = ("short", "natural", "long")
LENGTH_RATIOS = {"short": 0.75, "natural": 1.0, "long": 1.25}
MESSAGE_ROLES = ("system", "user", "assistant")


def target_syllables(duration: float, lang: str) -> dict[str, int]:
    """{short, natural, long} for a line shown `duration` seconds, in language `lang`.

    anchor = duration × rate; natural = round(anchor); short = round(0.75 × anchor), one less
    when it equals natural; long = round(1.25 × anchor), one more when it equals natural.
    """
    anchor = duration * SPEECH_RATES[lang]
    natural = round(anchor)
    short = round(anchor * LENGTH_RATIOS["short"])
    long = round(anchor * LENGTH_RATIOS["long"])
    if short == natural:
        short -= 1
    if long == natural:
        long += 1
    return {"short": short, "natural": natural, "long": long}


def looks_like_sandglass(row: object) -> bool:
    """A Sandglass row carries its prompt as chat messages and its fields under `metadata`."""
    return isinstance(row, dict) and isinstance(row.get("metadata"), dict) and isinstance(row.get("prompt"), list)


def validate_sandglass_rows(located_rows: list[tuple[str, object]]) -> tuple[list[dict], list[dict]]:
    """(rows, warnings): every row's schema, unique case_ids; a uuid whose rows disagree on source
    or duration is a data warning (SPEC §9), like every check beyond the schema."""
    seen: dict[str, str] = {}
    first_of_uuid: dict[str, tuple[str, dict]] = {}
    rows, warnings = [], []
    for where, row in located_rows:
        messages = validate_sandglass_row(row, where)
        case_id, meta = row["case_id"], row["metadata"]
        if case_id in seen:
            raise DataError(f"{where}: duplicate case_id {case_id!r} (first at {seen[case_id]})",
                            "every case_id must be unique")
        seen[case_id] = where
        if meta["uuid"] in first_of_uuid:
            first_where, first = first_of_uuid[meta["uuid"]]
            messages += [f"metadata.{name} of uuid {meta['uuid']!r} differs from {first_where}; each row is "
                         "scored with its own" for name in ("source", "duration") if meta[name] != first[name]]
        else:
            first_of_uuid[meta["uuid"]] = (where, meta)
        rows.append(row)
        warnings += [data_warning(case_id, where, message) for message in messages]
    return rows, warnings


def validate_sandglass_row(row: object, where: str) -> list[str]:
    """Raise DataError naming `where` and the rule when a row breaks the release schema (types,
    required fields, known languages, kinds and roles, a target that can divide); return the data
    warnings of the checks beyond it (docs/release.md classifies each)."""

    def fail(rule: str, hint: str = "fix the row so that it follows the Sandglass row schema") -> None:
        raise DataError(f"{where}: {rule}", hint)

    if not isinstance(row, dict):
        fail(f"a data row must be a JSON object, got {type(row).__name__}")
    if "metadata" not in row and "constraint_ids" in row:
        fail("this is an InstTrans-Bench row, not a Sandglass row", "drop --benchmark sandglass")
    for name in ("case_id", "prompt", "metadata"):
        if name not in row:
            fail(f"field {name!r} is missing")
    if not isinstance(row["case_id"], str) or not row["case_id"].strip():
        fail("case_id must be a non-empty string")
    messages = row["prompt"]
    if not isinstance(messages, list):
        fail("prompt must be a list of chat messages", 'write [{"role": "user", "content": "..."}]')
    for index, message in enumerate(messages):
        if (not isinstance(message, dict) or message.get("role") not in MESSAGE_ROLES
                or not isinstance(message.get("content"), str)):
            fail(f"prompt[{index}] must be an object with a role ({', '.join(MESSAGE_ROLES)}) and a string content")
    if row.get("label") is not None and not isinstance(row["label"], str):
        fail("label must be a string or null")
    meta = row["metadata"]
    if not isinstance(meta, dict):
        fail("metadata must be an object")
    for name in ("uuid", "source", "fenqu"):
        if not isinstance(meta.get(name), str):
            fail(f"metadata.{name} must be a string")
    for name in ("summary", "up_context", "down_context"):
        if meta.get(name) is not None and not isinstance(meta[name], str):
            fail(f"metadata.{name} must be a string or null")
    duration = meta.get("duration")
    if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not math.isfinite(duration):
        fail(f"metadata.duration must be a number of seconds, got {duration!r}")
    lang, kind = meta.get("target_language"), meta.get("target_kind")
    if lang not in SPEECH_RATES:
        fail(f"metadata.target_language {lang!r} is not one of {', '.join(SPEECH_RATES)}")
    if kind not in TARGET_KINDS:
        fail(f"metadata.target_kind {kind!r} is not one of {', '.join(TARGET_KINDS)}")
    target = meta.get("target_syllables")
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:  # dev divides by it
        fail(f"metadata.target_syllables must be a positive integer, got {target!r}")
    return sandglass_row_warnings(row)


def sandglass_row_warnings(row: dict) -> list[str]:
    """The checks beyond the schema on a row that meets it; the row is then scored as given (its
    recorded target, its own fields), which is what the original metric code does."""
    meta, messages = row["metadata"], row["prompt"]
    lang, kind, target, duration = meta["target_language"], meta["target_kind"], meta["target_syllables"], meta["duration"]
    warnings = []
    if not messages:
        warnings.append("prompt has no chat message")
    for name in ("uuid", "source"):
        if not meta[name].strip():
            warnings.append(f"metadata.{name} is empty")
    if duration <= 0:
        warnings.append(f"metadata.duration is {duration!r}, not a number of seconds > 0")
    else:
        expected = target_syllables(duration, lang)[kind]
        if target != expected:
            warnings.append(f"metadata.target_syllables is {target}, but the {kind} target of a {duration:g} s line "
                            f"in {lang} is {expected}; the recorded target is scored")
    if row["case_id"] != f"{meta['uuid']}:{lang}:{kind}":
        warnings.append(f"case_id {row['case_id']!r} is not uuid:target_language:target_kind "
                        f"({meta['uuid']}:{lang}:{kind})")
    if messages and not any(meta["source"] in message["content"] for message in messages):
        warnings.append("metadata.source does not occur in the prompt")
    return warnings


def model_input(row: dict) -> dict:
    """What a model may see: the id and the chat messages, never the label or the metadata."""
    return {"case_id": row["case_id"], "messages": row["prompt"]}



def render_messages(meta: dict) -> list[dict]:
    """The chat prompt of a bundled row, rendered from its metadata."""
    lang = CHINESE_NAMES[meta["target_language"]]
    content = (
        f"把下面这条中文视频字幕翻译成{lang}。这条字幕在画面上显示 {meta['duration']:g} 秒，"
        f"译文请控制在 {meta['target_syllables']} 个音节左右，并且说起来自然。\n"
        f"视频简介：{meta['summary'] or '（无）'}\n"
        f"上一条字幕：{meta['up_context'] or '（无）'}\n"
        f"下一条字幕：{meta['down_context'] or '（无）'}\n"
        "只输出这一条字幕的译文，不要解释。\n\n"
        f"字幕：{meta['source']}"
    )
    return [{"role": "user", "content": content}]
