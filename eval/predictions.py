"""Loading a predictions JSONL (SPEC §6): strict about the file, exact about the text.

The prediction text is kept exactly as given: the rules see it unstripped and unnormalised.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

from eval.data import file_sha256, read_jsonl_objects
from eval.errors import PredictionError

_FENCE = re.compile(r"```")
_DECODER = json.JSONDecoder()


HARNESS_LINE = '{"case_id": "...", "prediction": "..."}'


def load_predictions(path: Path, known_ids: set[str], ignored_ids: set[str] = frozenset(),
                     other_benchmark_hint: Callable[[str], str | None] | None = None,
                     other_line_hint: Callable[[dict], str | None] | None = None) -> tuple[dict, int]:
    """({case_id: prediction or None}, number of lines) from a predictions file of
    `{case_id, prediction}` lines (the checks are `read_predictions`'). `other_benchmark_hint(case_id)`
    may name the flag that fits an id this data lacks (predictions of another benchmark)."""
    return read_predictions(path, known_ids, ignored_ids, _harness_line, HARNESS_LINE, other_benchmark_hint,
                            other_line_hint)


def _harness_line(entry: dict, where: str) -> tuple[str, str]:
    """(case_id, "prediction") of a `{case_id, prediction}` line."""
    case_id = entry.get("case_id")
    wrapped = [key for key, value in entry.items() if isinstance(value, list)] if "case_id" not in entry else []
    if wrapped:
        raise PredictionError(f"{where}: the line is a wrapper object holding a list under {wrapped[0]!r}, "
                              "not one prediction", f"write JSONL, one object per line: {HARNESS_LINE}")
    if not isinstance(case_id, str):
        problem = "has no case_id" if "case_id" not in entry else f"has a case_id of type {type(case_id).__name__}"
        raise PredictionError(f"{where}: the line {problem}", "case_id must be the data row's id, as a string")
    return case_id, "prediction"


def read_predictions(path: Path, known_ids: set[str], ignored_ids: set[str],
                     line_of: Callable[[dict, str], tuple[str, str]], line_forms: str,
                     other_benchmark_hint: Callable[[str], str | None] | None = None,
                     other_line_hint: Callable[[dict], str | None] | None = None) -> tuple[dict, int]:
    """({case_id: text or None}, number of lines), every line's case_id and text field given by
    `line_of(entry, "path:line")` (a benchmark's own line forms, `line_forms` in the hints).

    Stops with PredictionError (file, line, hint) on every error SPEC §6 lists: no line, a line
    that is no object, a missing or non-string text (null is a missing prediction), a second
    prediction for a case, an id the data lacks. `ignored_ids` are data rows outside a `--limit`
    run: their predictions are accepted and left unscored.
    """
    entries = read_jsonl_objects(Path(path), kind=PredictionError)
    if not entries:
        raise PredictionError(f"{path}: the predictions file holds no prediction; a run where every instance is "
                              f"missing is not an evaluation", f"write one line per instance: {line_forms}")
    predictions: dict[str, str | None] = {}
    first_line: dict[str, int] = {}
    for number, entry in entries:
        where = f"{path}:{number}"
        if not isinstance(entry, dict):
            raise PredictionError(f"{where}: a prediction line must be a JSON object, got {type(entry).__name__}",
                                  f"write JSONL, one object per line: {line_forms}")
        if number == entries[0][0]:  # the first line tells a wrong file (inputs, data, another benchmark's)
            refuse_wrong_file(entry, path, where, other_line_hint)
        case_id, field = line_of(entry, where)
        if field not in entry:
            raise PredictionError(f"{where}: case_id {case_id!r} has no {field!r} field",
                                  "write the translation as a string, or null when there is none")
        text = entry[field]
        if text is not None and not isinstance(text, str):
            raise PredictionError(
                f"{where}: the {field} of {case_id!r} is a JSON {type(text).__name__}, not a string or null",
                "serialise JSON-format translations to a string (json.dumps(obj, ensure_ascii=False))")
        if case_id in first_line:
            raise PredictionError(f"{where}: duplicate case_id {case_id!r} (first at line {first_line[case_id]})",
                                  "keep one prediction per case_id")
        first_line[case_id] = number
        if case_id not in known_ids and case_id not in ignored_ids:
            hint = other_benchmark_hint(case_id) if other_benchmark_hint is not None else None
            raise PredictionError(f"{where}: case_id {case_id!r} is not in the data",
                                  hint or "check that the predictions belong to this data file (--data / --dataset)")
        if case_id in known_ids:
            predictions[case_id] = text
    return predictions, len(entries)


TEXT_FIELDS = ("prediction", "response")  # the text of a predictions line, in every benchmark's form
DATA_ROW_KEYS = ("reference", "prompt", "origin_text")  # what a data row holds and a predictions line never does


def refuse_wrong_file(entry: dict, path: Path, where: str, other_line_hint: Callable[[dict], str | None] | None) -> None:
    """One line naming what the file is and the command that makes predictions of it, when the
    first line of a predictions file is a model-inputs line, a data row or another benchmark's line."""
    if any(field in entry for field in TEXT_FIELDS):
        hint = other_line_hint(entry) if other_line_hint is not None and "case_id" not in entry else None
        if hint:
            raise PredictionError(f"{where}: the line has no case_id", hint)
        return
    if isinstance(entry.get("messages"), list):
        raise PredictionError(f"{path} is a model-inputs file (prepare_inputs.py's {{case_id, messages}} lines), "
                              "not predictions",
                              f"ask the model first: python predict.py --inputs {path} --output predictions.jsonl "
                              "--model NAME, then pass --predictions predictions.jsonl")
    if any(key in entry for key in DATA_ROW_KEYS):
        raise PredictionError(f"{path} is a data file (its rows hold the prompt and the reference), not predictions",
                              f"pass it as --data {path}; its model inputs come from python prepare_inputs.py "
                              f"--data {path} --output inputs.jsonl, and predictions from predict.py")


DIAGNOSTICS = ("code_fence", "think_block", "text_around_json", "source_script", "echoes_source")
ECHO_MIN_CHARS = 10  # a source with fewer letters is often kept as it is (a name, code, a number): no echo


def predictions_block(path: Path, lines: int, missing: int, scored: list[tuple[str | None, str]],
                      case_ids: list[str] | None = None) -> dict:
    """The summary's `predictions` block: file, its SHA-256, line count, missing count and wrapper
    diagnostics.

    `scored` holds (prediction, source text) for every scored instance; with `case_ids` (in the
    same order) the block also names the instances of each diagnostic, for the report's failures
    section (SPEC §11). The SHA-256 lets eval.compare tell that two runs scored the same
    predictions (Judge agreement, SPEC §12).
    """
    counts: dict[str, int] = dict.fromkeys(DIAGNOSTICS, 0)
    named: dict[str, list[str]] = {name: [] for name in DIAGNOSTICS}
    for position, (prediction, source_text, *target) in enumerate(scored):
        if not is_missing(prediction):
            for name, present in wrapper_diagnostics(prediction, source_text, *target).items():
                counts[name] += present
                if present and case_ids is not None:
                    named[name].append(case_ids[position])
    block = {"path": str(path), "sha256": file_sha256(Path(path)), "rows": lines, "missing": missing,
             "diagnostics": counts}
    if case_ids is not None:
        block["diagnostic_case_ids"] = named
    return block


def is_missing(prediction: str | None) -> bool:
    """SPEC §6: null, empty or whitespace-only predictions are missing."""
    return prediction is None or not prediction.strip()


def wrapper_diagnostics(prediction: str, source_text: str = "", target_lang: str | None = None) -> dict[str, bool]:
    """Which kinds of wrapper a prediction carries, and whether it translated at all; reported,
    never scored (SPEC §6).

    A fence or `<think>` block that the source itself contains (a Markdown code block, say) is
    content, not a wrapper, and is not counted. `source_script`: the prediction is written mostly
    in the source's script, which is not a script of `target_lang` (a model that answered in the
    source language); `echoes_source`: the whole source text (10 characters or more) stands in
    the prediction (a model that repeated its prompt); a source of fewer than 10 letters (code, a
    name, a number) is often rightly kept as it is and is not counted.
    """
    stripped = source_text.strip()
    return {
        "code_fence": bool(_FENCE.search(prediction)) and not _FENCE.search(source_text),
        "think_block": _has_think_block(prediction) and not _has_think_block(source_text),
        "text_around_json": _has_text_around_json(prediction) and not _is_json(prediction),
        "source_script": _in_source_script(prediction, source_text, target_lang),
        "echoes_source": (len(stripped) >= ECHO_MIN_CHARS and stripped in prediction
                          and sum(script_counts(stripped).values()) >= ECHO_MIN_CHARS),
    }


# Scripts by code point (the letters that tell languages apart); every other character is ignored:
# digits, punctuation and symbols below U+00C0 are no script's.
_SCRIPT_CLASSES = {"Latin": "A-Za-z\u00c0-\u024f", "Cyrillic": "\u0400-\u04ff", "Arabic": "\u0600-\u06ff",
                   "Devanagari": "\u0900-\u097f", "Thai": "\u0e00-\u0e7f", "Hangul": "\u1100-\u11ff\uac00-\ud7af",
                   "Kana": "\u3040-\u30ff", "Han": "\u3400-\u4dbf\u4e00-\u9fff"}
_LETTERS = re.compile("[" + "".join(_SCRIPT_CLASSES.values()) + "]+")
_SCRIPT_RUN = re.compile("|".join(f"(?P<{name}>[{characters}]+)" for name, characters in _SCRIPT_CLASSES.items()))
_TARGET_SCRIPTS = {"zh": {"Han"}, "ja": {"Han", "Kana"}, "ko": {"Hangul", "Han"}, "ru": {"Cyrillic"},
                   "ar": {"Arabic"}, "th": {"Thai"}, "hi": {"Devanagari"}}  # any other code: Latin


def script_counts(text: str) -> dict[str, int]:
    """How many of the text's letters each script has, in the order the scripts first appear (the
    most frequent script's ties go to the first). The letters are taken out first, so a text in
    one script is one run: counted in C, not a Python call per character."""
    letters = "".join(_LETTERS.findall(text))
    if letters.isascii():
        return {"Latin": len(letters)} if letters else {}
    counts: dict[str, int] = {}
    for run in _SCRIPT_RUN.finditer(letters):
        counts[run.lastgroup] = counts.get(run.lastgroup, 0) + run.end() - run.start()
    return counts


def _in_source_script(prediction: str, source_text: str, target_lang: str | None) -> bool:
    """The source's script is not the target's, and the prediction has almost no letter of the
    target's script (under 5%) while most are the source's: markup, keys and names in another
    script beside a real translation do not count."""
    if not target_lang or not source_text:
        return False
    source_counts = script_counts(source_text)
    targets = _TARGET_SCRIPTS.get(target_lang, {"Latin"})
    source = max(source_counts, key=source_counts.get) if source_counts else None
    if source is None or source in targets:
        return False
    counts = script_counts(prediction)
    letters = sum(counts.values())
    in_target = sum(counts.get(script, 0) for script in targets)
    return letters > 0 and in_target < 0.05 * letters and counts.get(source, 0) > 0.5 * letters


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _has_think_block(text: str) -> bool:
    """A `<think>` block: closed anywhere, or opened at the start and never closed (cut off)."""
    lowered = text.lower()
    start = lowered.find("<think>")
    if start < 0:
        return False
    return lowered.find("</think>", start) >= 0 or not text[:start].strip()


def _has_text_around_json(prediction: str, attempts: int = 64) -> bool:
    """True when a JSON object sits inside other text (prose, a fence) rather than alone.

    Tries the first `attempts` opening braces only, so degenerate output stays linear.
    """
    start = prediction.find("{")
    for _ in range(attempts):
        if start == -1:
            return False
        try:
            value, end = _DECODER.raw_decode(prediction, start)
        except (ValueError, RecursionError):  # not JSON there, or nested too deep to read
            start = prediction.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return bool(prediction[:start].strip() or prediction[end:].strip())
        start = prediction.find("{", end)
    return False
