"""Self-judging (SPEC §16): is the system being scored the Judge's own model, or of its family?

A Judge that scores its own outputs (or a sibling's) is known to favour them, so every place that
shows a run or a published row beside its Judge flags it. Names are compared after normalising
what differs between spellings of one model:

- case, spaces and underscores ("GPT-5.6-Sol" = "gpt-5.6-sol", "Gemini 3.5 Flash" = "gemini-3.5-flash");
- a provider or path prefix: the last "/" or ":" segment ("openai/gpt-5.6-sol", "models/gemini-2.5-flash");
- a note in brackets ("GPT-5.6-Sol (low)", "DeepSeek-V4-Flash (no thinking)");
- a date suffix ("-2026-08-01", "-20260801", "@2026-08-01") and a version suffix ("-latest", "-preview",
  "-exp", "-001", "-0801"; not "-v4", which names a model line, as in "deepseek-v4").

The family rule: a family is the normalised name up to and including its first part that holds a
digit (the model line and its version): "gpt-5.6-sol" and "gpt-5.6-sol-mini" are family "gpt-5.6",
"gemini-2.5-flash" and "gemini-2.5-pro" are "gemini-2.5", "qwen3.5-9b" and "qwen3.5-35b-a3b" are
"qwen3.5". A name without a digit is its own family. Another version of a line ("gpt-5.5" beside
"gpt-5.6") is another family: it is a different model, though of one vendor.
"""

from __future__ import annotations

import re

_NOTE = re.compile(r"\([^()]{0,200}\)|\[[^\[\]]{0,200}\]")
_DATE = re.compile(r"[-@](?:\d{4}-\d{2}-\d{2}|\d{8})$")
_VERSION_SUFFIX = re.compile(r"-(?:latest|preview|exp|experimental|\d{3,4})$")
_SEPARATORS = re.compile(r"[\s_]+")
_MAX_NAME = 300  # a model name longer than this is cut before it is compared (all input is untrusted)


def normalise_model(name: str) -> str:
    """One spelling per model (rules in the module docstring); "" for an empty name."""
    text = str(name)[:_MAX_NAME].strip().lower()
    text = _NOTE.sub(" ", text)
    text = re.split(r"[/:]", text)[-1]
    text = _SEPARATORS.sub("-", text.strip()).strip("-")
    for _ in range(3):  # "-2026-08-01-preview" and "-preview-2026-08-01" both come off
        stripped = _VERSION_SUFFIX.sub("", _DATE.sub("", text))
        if stripped == text or not stripped:
            break
        text = stripped
    return text


def model_family(name: str) -> str:
    """The normalised name up to and including its first part with a digit (module docstring)."""
    parts = normalise_model(name).split("-")
    for index, part in enumerate(parts):
        if any(char.isdigit() for char in part):
            return "-".join(parts[: index + 1])
    return "-".join(parts)


def self_judging(system_model: str | None, judge_model: str | None) -> str | None:
    """Why the Judge is judging itself (one line), or None when it is not, or when either is unknown."""
    if not system_model or not judge_model:
        return None
    system, judge = normalise_model(system_model), normalise_model(judge_model)
    if not system or not judge:
        return None
    if system == judge:
        return f"self-judging: the system {system_model!r} is the Judge model {judge_model!r}"
    family = model_family(system)
    if family == model_family(judge):
        return (f"self-judging: the system {system_model!r} and the Judge model {judge_model!r} are of one "
                f"family ({family})")
    return None
