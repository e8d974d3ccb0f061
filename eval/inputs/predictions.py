"""Loading a predictions JSONL (SPEC §6): strict about the file, exact about the text.

The prediction text is kept exactly as given: the rules see it unstripped and unnormalised.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable, Iterable

from eval.io.data import file_sha256, read_jsonl_objects
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


DIAGNOSTICS = ("code_fence", "think_block", "text_around_json", "source_script", "echoes_source",
               "wrong_target_script", "echoes_prompt", "refusal_or_preamble", "cut_off")
ECHO_MIN_CHARS = 10  # a source with fewer letters is often kept as it is (a name, code, a number): no echo


def predictions_block(path: Path, lines: int, missing: int, scored: Iterable[tuple],
                      case_ids: list[str] | None = None, cut_ids: set[str] | frozenset = frozenset()) -> dict:
    """The summary's `predictions` block: file, its SHA-256, line count, missing count and output
    diagnostics.

    `scored` yields (prediction, source text[, target language[, prompt text]]) for every scored
    instance; with `case_ids` (in the same order) the block also names the instances of each
    diagnostic, for the report's failures section and the explorer (SPEC §11). `cut_ids` are the
    instances whose answer the predictions file marks as cut by a length limit (`cut_case_ids`).
    The SHA-256 lets eval.compare tell that two runs scored the same predictions (Judge
    agreement, SPEC §12).
    """
    counts: dict[str, int] = dict.fromkeys(DIAGNOSTICS, 0)
    named: dict[str, list[str]] = {name: [] for name in DIAGNOSTICS}
    for position, (prediction, source_text, *rest) in enumerate(scored):
        if not is_missing(prediction):
            found = wrapper_diagnostics(prediction, source_text, *rest)
            if case_ids is not None and case_ids[position] in cut_ids:
                found["cut_off"] = True
            for name, present in found.items():
                counts[name] += present
                if present and case_ids is not None:
                    named[name].append(case_ids[position])
    block = {"path": str(path), "sha256": file_sha256(Path(path)), "rows": lines, "missing": missing,
             "diagnostics": counts}
    if case_ids is not None:
        block["diagnostic_case_ids"] = named
    return block


def cut_case_ids(path: Path) -> set[str]:
    """The case_ids whose line in a predictions file says the answer was cut by a length limit:
    predict.py writes `"response": {"truncated": true, ...}` (finish_reason "length", Responses
    status "incomplete"). Read line by line; a line of any other shape is no mark (the loader has
    already judged the file)."""
    cut: set[str] = set()
    try:
        with open(path, "rb") as handle:
            for raw in handle:
                if b'"truncated"' not in raw:
                    continue
                try:
                    entry = json.loads(raw)
                except (ValueError, RecursionError):
                    continue
                response = entry.get("response") if isinstance(entry, dict) else None
                if (isinstance(response, dict) and response.get("truncated") is True
                        and isinstance(entry.get("case_id"), str)):
                    cut.add(entry["case_id"])
    except OSError:
        return set()
    return cut


def is_missing(prediction: str | None) -> bool:
    """SPEC §6: null, empty or whitespace-only predictions are missing."""
    return prediction is None or not prediction.strip()


def wrapper_diagnostics(prediction: str, source_text: str = "", target_lang: str | None = None,
                        prompt_text: str = "") -> dict[str, bool]:
    """Which kinds of wrapper a prediction carries, and whether it translated at all; reported,
    never scored (SPEC §6; docs/predict.md#output-diagnostics).

    A fence or `<think>` block that the source itself contains (a Markdown code block, say) is
    content, not a wrapper, and is not counted. `source_script`: the prediction is written mostly
    in the source's script, which is not a script of `target_lang` (a model that answered in the
    source language); `echoes_source`: the whole source text (10 characters or more) stands in
    the prediction (a model that repeated its prompt); a source of fewer than 10 letters (code, a
    name, a number) is often rightly kept as it is and is not counted. `wrong_target_script`: a
    target whose script is known, and under 20% of the prediction's own letters (10 or more, words
    copied from the source left out) in it.
    `echoes_prompt`: an instruction line of the prompt (`prompt_text`, the source's own lines
    left out) stands in the prediction, compared without case, punctuation or spacing.
    `refusal_or_preamble`: the prediction opens with a refusal ("I'm sorry, I cannot translate")
    or a preamble ("Here is the translation:"), from short lists in several languages, and the
    source does not open so itself. `cut_off` is set by
    `predictions_block` from the predictions file's own mark.
    """
    stripped = source_text.strip()
    return {
        "code_fence": bool(_FENCE.search(prediction)) and not _FENCE.search(source_text),
        "think_block": _has_think_block(prediction) and not _has_think_block(source_text),
        "text_around_json": _has_text_around_json(prediction) and not _is_json(prediction),
        "source_script": _in_source_script(prediction, source_text, target_lang),
        "echoes_source": (len(stripped) >= ECHO_MIN_CHARS and stripped in prediction
                          and sum(script_counts(stripped).values()) >= ECHO_MIN_CHARS),
        "wrong_target_script": wrong_target_script(prediction, target_lang, source_text),
        "echoes_prompt": bool(echoed_prompt_lines(prediction, prompt_text, source_text, limit=1)),
        "refusal_or_preamble": opens_with_refusal_or_preamble(prediction) and not opens_with_refusal_or_preamble(
            source_text),
        "cut_off": False,
    }


# The prompt's instruction lines, compared after `normalise`: a line of fewer than ECHO_LINE_MIN
# letters and digits, or of one word only, is too common to tell an echo ("[Source text]", "Rules:").
ECHO_LINE_MIN = 8
_NOT_WORD = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Case folded, every run of punctuation, symbols and spaces one space: one changed colon,
    arrow or line break does not hide an echo."""
    return " ".join(_NOT_WORD.sub(" ", text.casefold()).split())


def echoed_prompt_lines(prediction: str, prompt_text: str, source_text: str = "", limit: int = 20) -> list[str]:
    """The prompt's instruction lines (not the source's own lines) that stand, normalised, as whole
    words in the normalised prediction; at most `limit`. A line's list marker ("1.", "-") is left
    out; a label of one or two words without a separator inside ("[Source text]", "Rules:") is too
    common to count. Linear: one substring search per line."""
    if not prompt_text:
        return []
    text = f" {normalise(prediction)} "
    source = f" {normalise(source_text)} "
    found: list[str] = []
    lines = dict.fromkeys(_LIST_MARKER.sub("", line) for line in prompt_text.splitlines())
    for raw in lines:
        line = normalise(raw)
        if len(line.replace(" ", "")) < ECHO_LINE_MIN or f" {line} " in source or _is_label(raw, line):
            continue
        if f" {line} " in text:
            found.append(line)
            if len(found) >= limit:
                break
    return found


_LIST_MARKER = re.compile(r"^\s*(?:\d{1,3}[.)、．]|[-*•])\s+|^\s*\d{1,3}[、．]")
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")
_INNER_SEPARATOR = re.compile(r"[^\w\s]")
_UNSPACED = re.compile("[" + "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af" + "]")


def _is_label(raw: str, line: str) -> bool:
    """One or two words with nothing between them but a space, in a script that spaces its words."""
    return (line.count(" ") < 2 and not _INNER_SEPARATOR.search(_EDGES.sub("", raw.strip()))
            and not _UNSPACED.search(line))


# How answers that are no translation open (docs/predict.md#output-diagnostics), casefolded. A
# preamble is an opening; a refusal is an apology or "cannot" AND a word about translating or
# helping, both in the opening: an apology alone is often the text itself ("We're sorry, ...").
PREAMBLES = (
    "here is the translation", "here's the translation", "here is the translated", "here's the translated",
    "here is a translation", "here's a translation", "sure, here", "sure! here", "certainly! here",
    "certainly, here", "translation:", "translated text:",
    "以下是翻译", "以下是译文", "这是翻译", "翻译如下", "译文如下", "翻译：", "译文：", "翻译结果",
    "以下は翻訳", "以下が翻訳", "翻訳：", "翻訳結果",
    "다음은 번역", "번역:", "번역 결과",
    "aquí está la traducción", "aquí tienes la traducción", "traducción:",
    "voici la traduction", "traduction :", "traduction:",
    "hier ist die übersetzung", "übersetzung:",
    "вот перевод", "перевод:",
)
REFUSAL_WORDS = (
    ("sorry", "apologi", "cannot", "can't", "can not", "unable", "as an ai"),
    ("抱歉", "对不起", "无法", "不能"),
    ("申し訳", "できません"),
    ("죄송", "수 없"),
    ("lo siento", "no puedo"),
    ("désolé", "je ne peux"),
    ("tut mir leid", "ich kann"),
    ("извините", "не могу", "к сожалению"),
)
REFUSAL_OBJECTS = ("translat", "assist", "help", "provide", "翻译", "帮助", "协助", "翻訳", "お手伝い", "번역", "도와",
                   "traduc", "ayud", "tradu", "aider", "übersetz", "helfen", "перев", "помо")
OPENING_CHARS = 80
_LEAD = re.compile(r"[\s*_#>\"'“”‘’「」『』]*")


_SENTENCE_END = re.compile(r"[.!?。！？\n]")


def opens_with_refusal_or_preamble(text: str) -> bool:
    """Whether `text` opens (spaces and emphasis marks skipped) with one of PREAMBLES, or its first
    sentence (within OPENING_CHARS characters) holds a REFUSAL_WORDS word and a REFUSAL_OBJECTS word."""
    opening = text[_LEAD.match(text[:OPENING_CHARS * 2]).end():][:OPENING_CHARS].casefold().replace("’", "'")
    if opening.startswith(PREAMBLES):
        return True
    end = _SENTENCE_END.search(opening)
    sentence = opening[:end.start()] if end else opening
    return (any(word in sentence for words in REFUSAL_WORDS for word in words)
            and any(word in sentence for word in REFUSAL_OBJECTS))


# The script each target language is written in, for `wrong_target_script`: codes outside the table
# (Greek, Hebrew, Serbian in two scripts, ...) are not checked.
LATIN_TARGETS = frozenset(
    "en de fr es it pt nl ro pl cs sk sl hr bs sv da no nb nn fi et lv lt hu tr az vi id ms tl ca eu gl "
    "ga cy is mt sq sw af fil".split())
_WRONG_SCRIPT_SHARE = 0.2
_WRONG_SCRIPT_MIN_LETTERS = 10


def target_scripts(target_lang: str | None) -> set[str] | None:
    """The scripts of a target language code (its part before "-" or "_"), or None when unknown."""
    if not target_lang:
        return None
    code = target_lang.replace("_", "-").split("-")[0].lower()
    if code in _TARGET_SCRIPTS:
        return _TARGET_SCRIPTS[code]
    if code in _MORE_TARGET_SCRIPTS:
        return _MORE_TARGET_SCRIPTS[code]
    return {"Latin"} if code in LATIN_TARGETS else None


_ENTITY = re.compile(r"&#?\w{1,10};")


def wrong_target_script(prediction: str, target_lang: str | None, source_text: str = "") -> bool:
    """Under 20% of the prediction's letters (10 or more) are in the target language's script,
    counting only words the source does not hold (names, markup and code copied from the source
    are no language) and no HTML entity."""
    scripts = target_scripts(target_lang)
    if scripts is None:
        return False
    copied = set(_LETTERS.findall(source_text))
    own = "".join(word for word in _LETTERS.findall(_ENTITY.sub(" ", prediction)) if word not in copied)
    counts = script_counts(own)
    letters = sum(counts.values())
    if letters < _WRONG_SCRIPT_MIN_LETTERS:
        return False
    return sum(counts.get(script, 0) for script in scripts) < _WRONG_SCRIPT_SHARE * letters


# Scripts by code point (the letters that tell languages apart); every other character is ignored:
# digits, punctuation and symbols below U+00C0 are no script's.
_SCRIPT_CLASSES = {"Latin": "A-Za-z\u00c0-\u024f", "Cyrillic": "\u0400-\u04ff", "Arabic": "\u0600-\u06ff",
                   "Devanagari": "\u0900-\u097f", "Thai": "\u0e00-\u0e7f", "Hangul": "\u1100-\u11ff\uac00-\ud7af",
                   "Kana": "\u3040-\u30ff", "Han": "\u3400-\u4dbf\u4e00-\u9fff"}
_LETTERS = re.compile("[" + "".join(_SCRIPT_CLASSES.values()) + "]+")
_SCRIPT_RUN = re.compile("|".join(f"(?P<{name}>[{characters}]+)" for name, characters in _SCRIPT_CLASSES.items()))
_TARGET_SCRIPTS = {"zh": {"Han"}, "ja": {"Han", "Kana"}, "ko": {"Hangul", "Han"}, "ru": {"Cyrillic"},
                   "ar": {"Arabic"}, "th": {"Thai"}, "hi": {"Devanagari"}}  # any other code: Latin
_MORE_TARGET_SCRIPTS = {"uk": {"Cyrillic"}, "bg": {"Cyrillic"}, "be": {"Cyrillic"}, "kk": {"Cyrillic"},
                        "mk": {"Cyrillic"}, "fa": {"Arabic"}, "ur": {"Arabic"}, "mr": {"Devanagari"},
                        "ne": {"Devanagari"}}


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
