"""What both hard-rule sets share (SPEC §7, §7b): reading a JSON text with a one-line reason, the
cap on detail lists, and the syllable concordance that decides syllable_order once the lines are
read."""

from __future__ import annotations

from collections import Counter

import json

from eval.scoring.reasons import listed
from eval.scoring.rule_contract import SyllableCounter

DETAIL_LIST_LIMIT = 10  # long lists in a detail are cut to this many items
SYLLABLE_CONCORDANCE_MIN = 0.9


def parse_json(text: str):
    """(value, None) when `text` parses as JSON, else (None, a one-line reason)."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as error:
        return None, f"{error.msg} at line {error.lineno} column {error.colno}"
    except (ValueError, RecursionError) as error:
        return None, type(error).__name__


def short(text: str, limit: int) -> str:
    """A snippet for a detail: enough to recognise a tag, a value or a prefix, never a full text."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def source_json(source_text: str):
    """(value,) when the source is a JSON source (§7.1, §7b): stripped, it starts with `{` or `[`
    and parses (so to an object or an array); else None."""
    stripped = source_text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    value, error = parse_json(stripped)
    return None if error else (value,)


def prediction_json(prediction: str):
    """(value, None) when the prediction parses as JSON, else (None, the detail of why not): the
    parser's reason and how the prediction starts (a fence, a sentence), as both rule sets say it."""
    value, error = parse_json(prediction)
    if error:
        return None, {"error": f"prediction is not JSON: {error}", "prediction_starts": short(prediction, 20)}
    return value, None


def json_type(value) -> str:
    """The JSON name of a parsed value's type, for a detail ("a JSON array, not an object")."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}.get(type(value), "value")


def capped(items) -> list:
    """The first few items of a detail list, so scores.jsonl stays compact."""
    return list(items)[:DETAIL_LIST_LIMIT]


def multiset_changes(expected, found, lost_key: str, added_key: str, label=lambda item: item) -> dict:
    """What `found` lacks of `expected` and holds beyond it, repeats counted, as capped detail
    lists under `lost_key` and `added_key` (a key only when its list is not empty)."""
    expected, found = Counter(expected), Counter(found)
    changes = {}
    if lost := expected - found:
        changes[lost_key] = capped(label(item) for item in lost.elements())
    if added := found - expected:
        changes[added_key] = capped(label(item) for item in added.elements())
    return changes


def syllable_concordance(lines: list[str], durations: list, lang: str,
                         counter: SyllableCounter | None = None) -> tuple[bool, dict]:
    """§7.2: (passed, detail). Over every pair of lines with different durations, an inversion is
    a pair whose syllable counts differ and are ordered against the durations; passes at
    concordance ≥ 0.9 (fewer than two lines, or no comparable pair, passes). `counter` is the
    run's (the scoring context's, §15); None: this harness's, eval/syllable/."""
    if counter is None:
        from eval.syllable import count_syllables as counter
    counts = [counter(line, lang) for line in lines]
    detail: dict = {"counts": counts, "durations": list(durations)}
    if len(lines) < 2:
        return (True, {**detail, "note": "fewer than two lines"})
    comparable = 0
    inverted: list[list[int]] = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            if durations[i] == durations[j]:
                continue
            comparable += 1
            if counts[i] != counts[j] and (counts[i] < counts[j]) != (durations[i] < durations[j]):
                inverted.append([i + 1, j + 1])
    detail["comparable"] = comparable
    detail["inversions"] = len(inverted)
    if not comparable:
        return (True, {**detail, "note": "no comparable pair"})
    concordance = 1 - len(inverted) / comparable
    detail["concordance"] = round(concordance, 4)
    if inverted:
        detail["inverted_pairs"] = capped(inverted)
    return (concordance >= SYLLABLE_CONCORDANCE_MIN, detail)


# --- explanations: the one-line reasons the rules write for a failing verdict (SPEC §11) -------


def explain_tag_changes(part: dict) -> list[str]:
    """An HTML part's tag differences (both sets' details): the tags lost and added, or, when none
    is, the first place the order changed."""
    pieces = []
    if part.get("missing_tags"):
        pieces.append(f"lost tag {listed(part['missing_tags'])}")
    if part.get("extra_tags"):
        pieces.append(f"extra tag {listed(part['extra_tags'])}")
    difference = part.get("first_difference")
    if difference and not pieces:
        pieces.append(f"tag #{difference['index'] + 1} is {difference['prediction']}, "
                      f"source has {difference['source']} (order changed)")
    return pieces


def not_json(error: str, starts: str | None) -> str:
    """`prediction is not JSON: Expecting value ...` as `not JSON (Expecting value ...)`."""
    # json's "Unterminated string starting at" meets the detail's own "at line 1 column 5"
    cause = error.removeprefix("prediction is not JSON: ").replace(" at at line ", " at line ")
    text = f"not JSON ({cause})" if cause != error else error
    return text + (f", prediction starts {starts!r}" if starts else "")


def explain_concordance(detail: dict) -> str:
    """A syllable_order verdict read after its lines (both sets): the error, or the inversions."""
    if detail.get("error"):
        return not_json(detail["error"], detail.get("prediction_starts"))
    counts = ",".join(str(count) for count in detail["counts"])
    durations = ",".join(f"{value:g}" for value in detail["durations"])
    return (f"concordance {detail['concordance']:.2f} < {SYLLABLE_CONCORDANCE_MIN}: {detail['inversions']} of "
            f"{detail['comparable']} pairs inverted (syllables {counts} for durations {durations} s)")
