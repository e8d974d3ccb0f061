"""The ten constraints: one table row per id (`CONSTRAINTS`, at the end) and the hard rules.

A row is a `ConstraintSpec` of the rule contract (eval/scoring/rule_contract.py) with InstTrans's own
fields: the id's kind, the keywords that find its lines (SPEC §5), and either its rules (hard: the
original set's rule per scorer version, §7c, and the strict companion of
eval/insttrans/strict_rules.py, each writing its verdict's one-line reason, with the formatter
that reads a stored detail's reason) or its rubric for the Judge (soft). The original rules
restate the original scorer's semantics (SPEC §7), lenient spots included, so that verdicts on
the official release match published numbers; the strict set stands beside them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Callable

import eval.insttrans.strict_rules as strict
from eval.insttrans.rule_parts import (capped, explain_concordance, explain_tag_changes, json_type, not_json,
                                       prediction_json, short, source_json, multiset_changes, syllable_concordance)
from eval.scoring.reasons import listed
from eval.scoring.substrings import occurring
from eval.scoring.rule_contract import (DEFAULT_CONTEXT, HARD, SOFT, ConstraintSpec, Explain, Rule, RuleTable,
                                 ScoringContext, explained, same_rule_for)

def line_states(line: str, constraint_id: str) -> bool:
    """True when `line` carries one of the §5 keywords of `constraint_id`."""
    return any(keyword in line for keyword in CONSTRAINTS[constraint_id].keywords)


def constraint_line_for(row: dict, constraint_id: str) -> str:
    """The line the Judge is shown for a soft id: the first line carrying its keywords (§10).

    Falls back to the line at the id's own position, which validation guarantees exists.
    """
    for line in row["constraints"]:
        if line_states(line, constraint_id):
            return line
    return row["constraints"][row["constraint_ids"].index(constraint_id)]


# ---------------------------------------------------------------------------------------------
# The hard rules (SPEC §7). Each reading takes (row, prediction, context) and returns (passed,
# detail); the table at the end pairs it with the formatter of its reason into a rule of the
# contract (eval/scoring/rule_contract.py), `check_*`.
# ---------------------------------------------------------------------------------------------


def _short(text: str) -> str:
    return short(text, 40)


# --- format_preserve (SPEC §7.1) -------------------------------------------------------------

HTML_TAG = re.compile(r"</?[a-z][a-z0-9]*\b[^>]*>", re.IGNORECASE)
_CJK_IDEOGRAPH = re.compile(r"[\u4e00-\u9fff]")
_WHITESPACE = re.compile(r"\s")
_CJK_SHARE_LIMIT = 0.01

# The Markdown trigger is these five patterns or a link (§7.1).
_MARKDOWN_TRIGGER = re.compile(r"^#{1,6}\s|\*\*|`|^[-*+]\s|^>\s", re.MULTILINE)
MARKDOWN_FEATURES: dict[str, re.Pattern] = {
    name: re.compile(pattern, re.MULTILINE)
    for name, pattern in (
        ("heading", r"^#{1,6}\s"),
        ("bold", r"\*\*[^*]+\*\*"),
        ("italic", r"\*[^*]+\*"),
        ("inline_code", r"`[^`]+`"),
        ("code_block", r"```[\s\S]*?```"),
        ("list_item", r"^[-*+]\s"),
        ("ordered_item", r"^\d+\.\s"),
        ("link", r"\[.*?\]\(.*?\)"),
        ("image", r"!\[.*?\]\(.*?\)"),
        ("quote", r"^>\s"),
        ("table", r"\|.*\|"),
    )
}

PLACEHOLDER_KINDS: dict[str, re.Pattern] = {
    "name": re.compile(r"\{[a-zA-Z_][a-zA-Z0-9_]*\}"),
    "printf": re.compile(r"%[dsf]"),
    "dollar": re.compile(r"\$\d+"),
    "double_brace": re.compile(r"\{\{[a-zA-Z_][a-zA-Z0-9_]*\}\}"),
}


def json_key_paths(value) -> set[str]:
    """Key paths of object keys only (`a`, `a.b`, `a[0].c`); arrays add their index (§7.1).

    Iterative, so a deeply nested prediction cannot exhaust the stack.
    """
    paths: set[str] = set()
    stack = [("", value)]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                path = f"{prefix}.{key}" if prefix else key
                paths.add(path)
                stack.append((path, child))
        elif isinstance(node, list):
            stack.extend((f"{prefix}[{index}]", child) for index, child in enumerate(node))
    return paths


def _through_last_gt(text: str) -> str:
    """`text` up to its last `>`: every tag match ends there, and without the tail a run of
    unclosed `<a<a<a…` (degenerate output) would make the tag pattern quadratic."""
    return text[: text.rfind(">") + 1]


def reduce_tag(tag: str) -> str:
    """`tag` with its leftmost `\\s+.*?>` match replaced by `>` (§7.1), without the pattern.

    A tag (an `HTML_TAG` match) holds one `>`, its last character, so a match runs from its start
    to the end. One starts at a whitespace character i when `.*?` (which stops only at `\\n`) can
    reach the `>` after `\\s+` has taken whitespace from i on: when no `\\n` follows i, or the
    whitespace run from i covers the last `\\n`. The leftmost such i is therefore the start of the
    whitespace run holding the last `\\n`, or with no `\\n` the first whitespace character. The
    pattern itself is cubic on `<a` + spaces + `x\\ny>` (tested equal in tests/test_constraints.py).
    """
    newline = tag.rfind("\n")
    if newline < 0:
        first = _WHITESPACE.search(tag)
        if first is None:
            return tag
        start = first.start()
    else:
        start = newline
        while start > 0 and _WHITESPACE.match(tag, start - 1):
            start -= 1
    return tag[:start] + ">"


def html_tags(text: str) -> list[str]:
    """Every tag of `text` in order, reduced at its leftmost `\\s+.*?>` to `>` (§7.1)."""
    return [reduce_tag(tag) for tag in HTML_TAG.findall(_through_last_gt(text))]


def _has_bracket_link(text: str, opener: str) -> bool:
    """Whether `opener` + `.*?\\]\\(.*?\\)` matches (opener `\\[` for a link, `!\\[` for an image).

    Same answer as the §7.1 pattern (tested against it) in linear time: the regex goes quadratic
    on degenerate output such as `[doge]` repeated thousands of times. `.` stops only at `\\n`.
    """
    for line in text.split("\n"):
        start = line.find(opener)
        if start < 0:
            continue
        close = line.find("](", start + len(opener))
        if close >= 0 and line.find(")", close + 2) >= 0:
            return True
    return False


def markdown_has(feature: str, text: str) -> bool:
    """Whether `text` has a §7.1 Markdown feature (links and images by the linear equivalent)."""
    if feature == "link":
        return _has_bracket_link(text, "[")
    if feature == "image":
        return _has_bracket_link(text, "![")
    return MARKDOWN_FEATURES[feature].search(text) is not None


def _check_json_part(prediction: str, source_value) -> dict:
    value, problem = prediction_json(prediction.strip())
    if problem:
        return {"passed": False, **problem}
    source_paths, prediction_paths = json_key_paths(source_value), json_key_paths(value)
    missing = sorted(source_paths - prediction_paths)
    extra = sorted(prediction_paths - source_paths)
    detail: dict = {"passed": not missing and not extra, "key_paths": len(source_paths)}
    if missing:
        detail["missing_paths"] = capped(missing)
        detail["n_missing"] = len(missing)
    if extra:
        detail["extra_paths"] = capped(extra)
        detail["n_extra"] = len(extra)
    return detail


def _first_difference(source_tags: list[str], prediction_tags: list[str]) -> dict:
    for index in range(max(len(source_tags), len(prediction_tags))):
        source_tag = source_tags[index] if index < len(source_tags) else None
        prediction_tag = prediction_tags[index] if index < len(prediction_tags) else None
        if source_tag != prediction_tag:
            return {"index": index,
                    "source": source_tag and _short(source_tag),
                    "prediction": prediction_tag and _short(prediction_tag)}
    return {}


_ANY_ANGLE_SPAN = re.compile(r"<[^>]+>")


def without_tags(text: str) -> str:
    """The text the untranslated-Chinese test reads: every `<[^>]+>` match removed, as the original
    does (§7.1): not only tags, but `<中文>`, comments and a stray `<` up to the next `>`, across lines."""
    head = _through_last_gt(text)
    return _ANY_ANGLE_SPAN.sub("", head) + text[len(head):]


def _check_html_part(prediction: str, row: dict, visible: Callable[[str], str] = without_tags) -> dict:
    source_tags, prediction_tags = html_tags(row["source_text"]), html_tags(prediction)
    detail: dict = {"passed": True, "source_tags": len(source_tags),
                    "prediction_tags": len(prediction_tags)}
    if source_tags != prediction_tags:
        detail["passed"] = False
        detail["first_difference"] = _first_difference(source_tags, prediction_tags)
        detail.update(multiset_changes(source_tags, prediction_tags, "missing_tags", "extra_tags", _short))
    if row.get("source_lang") == "zh" and row.get("target_lang") not in ("ja", "zh"):
        source_visible = visible(row["source_text"])
        prediction_visible = visible(prediction)
        if source_visible and prediction_visible:
            cjk = len(_CJK_IDEOGRAPH.findall(prediction_visible))
            visible = len(_WHITESPACE.sub("", prediction_visible))
            share = cjk / visible if visible else 0.0
            detail["cjk_chars"] = cjk
            detail["cjk_share"] = round(share, 4)
            if share > _CJK_SHARE_LIMIT:
                detail["passed"] = False
                detail["untranslated_chinese"] = True
    return detail


def _check_markdown_part(prediction: str, source_text: str) -> dict:
    source_features = [name for name in MARKDOWN_FEATURES if markdown_has(name, source_text)]
    lost = [name for name in source_features if not markdown_has(name, prediction)]
    detail: dict = {"passed": not lost, "source_features": source_features}
    if lost:
        detail["lost"] = lost
    return detail


def _check_placeholder_part(prediction: str, source_text: str,
                            kinds: dict[str, re.Pattern] = PLACEHOLDER_KINDS) -> dict:
    detail: dict = {"passed": True, "source": {}}
    missing: list[str] = []
    for kind, pattern in kinds.items():
        wanted = sorted(set(pattern.findall(source_text)))
        if not wanted:
            continue
        detail["source"][kind] = capped(wanted)
        found = set(pattern.findall(prediction))
        missing.extend(token for token in wanted if token not in found)
    if missing:
        detail["passed"] = False
        detail["missing"] = capped(missing)
    return detail


def markdown_triggered(source_text: str) -> bool:
    """public-v1's Markdown trigger (§7.1): five patterns (a lone `**` among them) or a link."""
    return _MARKDOWN_TRIGGER.search(source_text) is not None or markdown_has("link", source_text)


@dataclass(frozen=True)
class FormatReading:
    """Where a scorer version's format_preserve reads a text its own way (SPEC §7.1, §7c)."""

    markdown_trigger: Callable[[str], bool]
    placeholder_kinds: dict[str, re.Pattern]
    visible_text: Callable[[str], str]  # what the untranslated-Chinese share is read on


def format_preserve_rule(row: dict, prediction: str, reading: FormatReading) -> tuple[bool, dict]:
    """SPEC §7.1: each part the source triggers (JSON, HTML, Markdown, placeholders) must hold.

    A source that triggers no part passes; the detail names the parts and what each lost.
    """
    source_text = row["source_text"]
    parts: dict[str, dict] = {}
    source_value = source_json(source_text)
    if source_value is not None:
        parts["json"] = _check_json_part(prediction, source_value[0])
    if HTML_TAG.search(_through_last_gt(source_text)):
        parts["html"] = _check_html_part(prediction, row, reading.visible_text)
    if reading.markdown_trigger(source_text):
        parts["markdown"] = _check_markdown_part(prediction, source_text)
    if any(pattern.search(source_text) for pattern in reading.placeholder_kinds.values()):
        parts["placeholders"] = _check_placeholder_part(prediction, source_text, reading.placeholder_kinds)
    failed = [name for name, part in parts.items() if not part["passed"]]
    return not failed, {"parts": list(parts), "failed": failed, **parts}


PUBLIC_V1_FORMAT = FormatReading(markdown_triggered, PLACEHOLDER_KINDS, without_tags)


def read_format_preserve(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> tuple[bool, dict]:
    """format_preserve as public-v1 reads it (SPEC §7.1 as written)."""
    return format_preserve_rule(row, prediction, PUBLIC_V1_FORMAT)


def _explain_json_part(part: dict) -> str:
    if part.get("error"):
        return "JSON: " + not_json(part["error"], part.get("prediction_starts"))
    if "key_paths" not in part:
        raise KeyError("not a §7.1 JSON detail")  # the strict one compares values instead
    pieces = []
    if part.get("missing_paths"):
        pieces.append(f"missing key {listed(part['missing_paths'])}"
                      + (f" ({part['n_missing']} in all)" if part["n_missing"] > len(part["missing_paths"]) else ""))
    if part.get("extra_paths"):
        pieces.append(f"extra key {listed(part['extra_paths'])}")
    return "JSON: " + "; ".join(pieces)


def _explain_html_part(part: dict) -> str:
    pieces = explain_tag_changes(part)
    if part.get("untranslated_chinese"):
        pieces.append(f"untranslated Chinese left ({part['cjk_chars']} ideographs, "
                      f"{100 * part['cjk_share']:.1f}% of the text)")
    return "HTML: " + "; ".join(pieces)


_EXPLAIN_FORMAT_PART = {
    "json": _explain_json_part,
    "html": _explain_html_part,
    "markdown": lambda part: "Markdown: lost " + listed(part["lost"], limit=6),
    "placeholders": lambda part: "placeholder not kept: " + listed(part["missing"]),
}


def explain_format_preserve(detail: dict) -> str:
    """The failed parts of a §7.1 verdict, each with what it lost."""
    return "; ".join(_EXPLAIN_FORMAT_PART[name](detail[name]) for name in detail["failed"])


# --- syllable_order (SPEC §7.2) --------------------------------------------------------------


def _subtitle_object(prediction: str, durations: list) -> dict | tuple[bool, dict]:
    """The prediction's JSON object of subtitle lines, or the verdict that ends the rule before
    any line is read (no durations: pass; not JSON or not an object: fail); both versions."""
    if not durations:
        return True, {"note": "no durations"}
    value, problem = prediction_json(prediction)
    if problem:
        return False, {**problem, "prediction_starts": short(prediction.strip(), 20)}
    if not isinstance(value, dict):
        return False, {"error": f"prediction is a JSON {json_type(value)}, not an object"}
    return value


def read_syllable_order(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> tuple[bool, dict]:
    """SPEC §7.2 (public-v1): longer-shown lines must not get fewer syllables (pairwise,
    concordance ≥ 0.9); a missing or empty-valued key is an empty line.

    Counts come from the context's counter, else eval/syllable/, in the target language (§8).
    """
    durations = row.get("duration_s") or []
    value = _subtitle_object(prediction, durations)
    if isinstance(value, tuple):
        return value
    lines: list[str] = []
    for number in range(1, len(durations) + 1):
        line = value.get(str(number))
        if not line:  # missing, null, 0, false, "", [] and {} are an empty line
            line = ""
        elif not isinstance(line, str):
            return False, {"error": f'line "{number}" is a JSON '
                                    f"{json_type(line)}, not a string",
                           "line": number}
        lines.append(line)
    return syllable_concordance(lines, durations, row["target_lang"], context.counter)


# --- term_compliance (SPEC §7.3) -------------------------------------------------------------

_GLOSSARY_AFTER = re.compile(r"术语对照[:：](.*)")
_LIST_SEPARATORS = re.compile(r"[、,，]")
_CJK_OR_KANA = re.compile(r"[\u4e00-\u9fff\u3040-\u30ff]")


def glossary_terms(row: dict) -> list[str]:
    """The target terms of every glossary line (§7.3), in order, without repeats.

    Validation uses it too: a term_compliance row for which this is empty is a data error (§1).
    """
    terms: list[str] = []
    seen: set[str] = set()  # alongside the ordered list: a membership test per term is not a scan
    for line in row["constraints"]:
        if not line_states(line, "term_compliance"):
            continue
        found = _GLOSSARY_AFTER.search(line)
        if not found:
            continue
        for piece in _LIST_SEPARATORS.split(found.group(1)):
            if "→" not in piece:
                continue
            term = piece.split("→", 1)[1].strip()
            if term and term not in seen:
                seen.add(term)
                terms.append(term)
    return terms


def term_occurs(term: str, prediction: str) -> bool:
    """A CJK/kana term as a substring; any other with no `\\w` right before or after it (§7.3)."""
    if _CJK_OR_KANA.search(term):
        return term in prediction
    return _standalone_term(term).search(prediction) is not None


def _is_standalone_term(term: str) -> bool:
    """term_occurs's choice: a term with no CJK or kana needs no `\\w` on either side."""
    return _CJK_OR_KANA.search(term) is None


@lru_cache(maxsize=4096)
def _standalone_term(term: str) -> re.Pattern:
    return re.compile(rf"(?<!\w){re.escape(term)}(?!\w)")


@dataclass(frozen=True)
class TermMatch:
    """How a scorer version finds a glossary term, for all of a row's terms in one pass: a term for
    which `standalone(term)` holds needs no `blocker` character right before or after it."""
    standalone: Callable[[str], bool]
    blocker: re.Pattern


PUBLIC_V1_TERMS = TermMatch(_is_standalone_term, re.compile(r"\w"))  # = term_occurs


def read_term_compliance(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT,
                         match: TermMatch = PUBLIC_V1_TERMS) -> tuple[bool, dict]:
    """SPEC §7.3: every glossary target term occurs in the prediction, case-sensitive."""
    terms = glossary_terms(row)
    present = occurring(terms, prediction, match.standalone, match.blocker)  # term_occurs, in one pass
    missing = [term for term in terms if term not in present]
    detail: dict = {"terms": terms, "missing": missing}
    if not terms:
        detail["note"] = "no glossary term in the constraint lines"
    return not missing, detail


def explain_term_compliance(detail: dict) -> str:
    return "term not found: " + listed(detail["missing"])


# --- social_preserve (SPEC §7.4) -------------------------------------------------------------


def social_elements(row: dict) -> list[str]:
    """The elements of every `社交元素` line (§7.4): after the first `:` (else the first `：`)."""
    elements: list[str] = []
    seen: set[str] = set()
    for line in row["constraints"]:
        if not line_states(line, "social_preserve"):
            continue
        if ":" in line:
            listed = line.split(":", 1)[1]
        elif "：" in line:
            listed = line.split("：", 1)[1]
        else:
            continue
        for piece in _LIST_SEPARATORS.split(listed):
            element = piece.strip()
            if element and element not in seen:
                seen.add(element)
                elements.append(element)
    return elements


def read_social_preserve(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> tuple[bool, dict]:
    """SPEC §7.4: each listed social element occurs verbatim; no element listed passes."""
    elements = social_elements(row)
    present = occurring(elements, prediction)  # `element in prediction` for each, in one pass
    missing = [element for element in elements if element not in present]
    detail: dict = {"elements": elements, "missing": missing}
    if not elements:
        detail["note"] = "no social element in the constraint lines"
    return not missing, detail


def explain_social_preserve(detail: dict) -> str:
    if not all(isinstance(element, str) for element in detail["missing"]):
        raise TypeError("not a §7.4 detail")  # the strict detail lists counts per element
    return "social element missing: " + listed(detail["missing"])


# --- layout_break (SPEC §7.5) ----------------------------------------------------------------

_LAYOUT_FEATURE_WORDS = (("换行", "newlines"), ("缩进", "indent"), ("表格", "table"))
_DEFAULT_LAYOUT_FEATURES = ("newlines", "indent")


def layout_features(row: dict) -> list[str]:
    """Features named by the `布局`/`排版` lines (§7.5); newlines and indent when none is named."""
    named = {feature for line in row["constraints"] if line_states(line, "layout_break")
             for word, feature in _LAYOUT_FEATURE_WORDS if word in line}
    return [feature for _, feature in _LAYOUT_FEATURE_WORDS if feature in named] or list(_DEFAULT_LAYOUT_FEATURES)


def _has_table_line(text: str) -> bool:
    return any(line.count("|") >= 2 for line in text.splitlines())


def starts_indented(text: str) -> bool:
    """public-v1's indent flag (§7.5): the text begins with whitespace, a line break included."""
    return text[:1].isspace()


def read_layout_break(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT,
                      indented: Callable[[str], bool] = starts_indented) -> tuple[bool, dict]:
    """SPEC §7.5: equal `\\n` counts, the same leading-whitespace flag, table rows kept."""
    source_text = row["source_text"]
    features = layout_features(row)
    detail: dict = {"features": features}
    failed: list[str] = []
    if "newlines" in features:
        source_count, prediction_count = source_text.count("\n"), prediction.count("\n")
        detail["newlines"] = {"source": source_count, "prediction": prediction_count}
        if source_count != prediction_count:
            failed.append("newlines")
    if "indent" in features:
        source_indented, prediction_indented = indented(source_text), indented(prediction)
        detail["indent"] = {"source": source_indented, "prediction": prediction_indented}
        if source_indented != prediction_indented:
            failed.append("indent")
    if "table" in features:
        source_table = _has_table_line(source_text)
        prediction_table = _has_table_line(prediction)
        detail["table"] = {"source": source_table, "prediction": prediction_table}
        if source_table and not prediction_table:
            failed.append("table")
    detail["failed"] = failed
    return not failed, detail


def explain_layout_break(detail: dict) -> str:
    """What each failed §7.5 feature lost."""
    pieces = []
    for feature in detail["failed"]:
        counts = detail[feature]
        if feature == "newlines":
            pieces.append(f"{counts['source']} line breaks in the source, {counts['prediction']} in the prediction")
        elif feature == "indent":
            pieces.append("the source starts with whitespace and the prediction does not" if counts["source"]
                          else "the prediction starts with whitespace and the source does not")
        else:
            pieces.append("the source's table (a line with two |) is gone")
    return "; ".join(pieces)


# ---------------------------------------------------------------------------------------------
# The 2026-10-05 scorer version (SPEC §7c; docs/protocol.md lists each difference with an example).
# Every other reading is public-v1's, so these rules reuse the parts above.
# ---------------------------------------------------------------------------------------------

# The Markdown trigger starts on the shapes the feature check reads: a whole emphasis span (which
# a bold one is too), an ordered-list line and a pipe-table line join heading, backtick, list,
# quote and link; a `**` with nothing closed after it no longer starts the check.
_MARKDOWN_TRIGGER_1005 = re.compile(r"^#{1,6}\s|`|^[-*+]\s|^\d+\.\s|^>\s", re.MULTILINE)


def markdown_triggered_1005(source_text: str) -> bool:
    return (_MARKDOWN_TRIGGER_1005.search(source_text) is not None
            or any(markdown_has(feature, source_text) for feature in ("italic", "table", "link")))


# `$` + digits (a price, `$1`) is no placeholder any more; `$name` and `%(name)s` are.
PLACEHOLDER_KINDS_1005: dict[str, re.Pattern] = {
    "name": PLACEHOLDER_KINDS["name"],
    "double_brace": PLACEHOLDER_KINDS["double_brace"],
    "printf": PLACEHOLDER_KINDS["printf"],
    "named_printf": re.compile(r"%\([a-zA-Z_][a-zA-Z0-9_]*\)[dsf]"),
    "dollar_name": re.compile(r"\$[a-zA-Z_][a-zA-Z0-9_]*"),
}

_CODE_ELEMENT_NAME = re.compile(r"<(script|style)\b", re.IGNORECASE)  # an opener ends at the next ">"
_CODE_ELEMENT_CLOSE = re.compile(r"</(script|style)>", re.IGNORECASE)


def _backreference_key(name: str) -> str:
    """What a case-insensitive backreference compares: each character's simple lower case (the
    first character of its full one), so `İ` equals `i` there while `ſ` does not equal `s`."""
    return "".join(char.lower()[:1] for char in name)


def without_code_elements(text: str) -> str:
    """`text` with each `<script …>…</script>` / `<style …>…</style>` element replaced by a space,
    as the 2026-10-05 scorer drops them before the untranslated-Chinese share: its pattern
    `<(script|style)\\b[^>]*>.*?</\\1>` (any case, across lines), restated.

    The closing tag is the nearest one that equals the opening name as a case-insensitive
    backreference does. Linear where the backtracking pattern is not: an opener that finds no such
    closing tag fails, and so does every later opener of the same name, so each name is given up
    after one failure; an opener ends at the first ">" after its name, found once for all the
    openers before it (the pattern's `[^>]*>` rescanned to it from every `<style`)."""
    pieces: list[str] = []
    kept_from = position = 0
    given_up: set[str] = set()
    next_gt = -1  # the first ">" at or after the last opener's name: openers only move forward
    while True:
        opener = _CODE_ELEMENT_NAME.search(text, position)
        if opener is None:
            break
        if next_gt < opener.end():
            next_gt = text.find(">", opener.end())
        if next_gt < 0:  # `[^>]*>` finds no ">": no later opener can either
            break
        key = _backreference_key(opener.group(1))
        closer = None
        if key not in given_up:
            for candidate in _CODE_ELEMENT_CLOSE.finditer(text, next_gt + 1):
                if _backreference_key(candidate.group(1)) == key:
                    closer = candidate
                    break
        if closer is None:
            given_up.add(key)
            position = opener.start() + 1
            continue
        pieces.append(text[kept_from:opener.start()])
        pieces.append(" ")
        kept_from = position = closer.end()
    pieces.append(text[kept_from:])
    return "".join(pieces)


def visible_text_1005(text: str) -> str:
    return without_tags(without_code_elements(text))


FORMAT_1005 = FormatReading(markdown_triggered_1005, PLACEHOLDER_KINDS_1005, visible_text_1005)


def read_format_preserve_1005(row: dict, prediction: str,
                              context: ScoringContext = DEFAULT_CONTEXT) -> tuple[bool, dict]:
    """format_preserve as the 2026-10-05 scorer reads it (SPEC §7c)."""
    return format_preserve_rule(row, prediction, FORMAT_1005)


def first_line_indented(text: str) -> bool:
    """2026-10-05's indent flag: the first line (up to the first `\n`) begins with whitespace, so a
    text that opens with a line break is not indented."""
    return text[:1].isspace() and text[:1] != "\n"


read_layout_break_1005 = partial(read_layout_break, indented=first_line_indented)

# Scripts written without spaces between words (Thai, CJK punctuation, kana, Han, Hangul and their
# extensions): a term holding one of them is a plain substring, and a neighbour of them does not
# block the word-boundary match of any other term.
NO_SPACE_SCRIPTS = ("\u0e00-\u0e7f\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f\u3400-\u4dbf"
                    "\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f\ua960-\ua97f"
                    "\ud7b0-\ud7ff\uffa0-\uffdc\U0001aff0-\U0001afff\U0001b000-\U0001b16f"
                    "\U00020000-\U0002ee5f\U0002f800-\U0002fa1d\U00030000-\U000323af")
_NO_SPACE_CHAR = re.compile(f"[{NO_SPACE_SCRIPTS}]")


def term_occurs_1005(term: str, prediction: str) -> bool:
    if _NO_SPACE_CHAR.search(term):
        return term in prediction
    return _bounded_term_1005(term).search(prediction) is not None


@lru_cache(maxsize=4096)
def _bounded_term_1005(term: str) -> re.Pattern:
    return re.compile(rf"(?:(?<!\w)|(?<=[{NO_SPACE_SCRIPTS}])){re.escape(term)}"
                      rf"(?:(?!\w)|(?=[{NO_SPACE_SCRIPTS}]))")


# = term_occurs_1005: a word character of a script written without spaces does not block a term
TERMS_1005 = TermMatch(lambda term: _NO_SPACE_CHAR.search(term) is None,
                       re.compile(rf"(?![{NO_SPACE_SCRIPTS}])\w"))
read_term_compliance_1005 = partial(read_term_compliance, match=TERMS_1005)


def read_syllable_order_1005(row: dict, prediction: str,
                             context: ScoringContext = DEFAULT_CONTEXT) -> tuple[bool, dict]:
    """syllable_order as the 2026-10-05 scorer reads it: every key "1".."N" must hold a string
    with a non-blank character (else the rule fails, before the fewer-than-two-lines pass)."""
    durations = row.get("duration_s") or []
    value = _subtitle_object(prediction, durations)
    if isinstance(value, tuple):
        return value
    lines: list[str] = []
    for number in range(1, len(durations) + 1):
        line = value.get(str(number))
        if not isinstance(line, str) or not line.strip():
            what = ("missing" if str(number) not in value
                    else f"a JSON {json_type(line)}, not a string" if not isinstance(line, str) else "blank")
            return False, {"error": f'line "{number}" is {what}', "line": number}
        lines.append(line)
    return syllable_concordance(lines, durations, row["target_lang"], context.counter)


# ---------------------------------------------------------------------------------------------
# The rules of the contract (eval/scoring/rule_contract.py): each reading with the formatter of its reason
# ---------------------------------------------------------------------------------------------

check_format_preserve = explained(explain_format_preserve)(read_format_preserve)  # public-v1
check_format_preserve_1005 = explained(explain_format_preserve)(read_format_preserve_1005)
check_syllable_order = explained(explain_concordance)(read_syllable_order)
check_syllable_order_1005 = explained(explain_concordance)(read_syllable_order_1005)
check_term_compliance = explained(explain_term_compliance)(read_term_compliance)
check_term_compliance_1005 = explained(explain_term_compliance)(read_term_compliance_1005)
check_social_preserve = explained(explain_social_preserve)(read_social_preserve)
check_layout_break = explained(explain_layout_break)(read_layout_break)
check_layout_break_1005 = explained(explain_layout_break)(read_layout_break_1005)

# ---------------------------------------------------------------------------------------------
# The table: one row per constraint id (SPEC §4, §5, §7, §7b, §7c, §10)
# ---------------------------------------------------------------------------------------------

DEFAULT_RULE_SET = "original"
STRICT = "strict"
RULE_SET_NAMES = (DEFAULT_RULE_SET, STRICT)  # the original first: the default; strict stands beside it (§7b)

# The official scorer's versions (SPEC §7c), newest first: the default. eval/insttrans/scorer_versions.py
# says where each was published and recognises the one a release folder ships.
PUBLIC_V1 = "public-v1"
V2026_10_05 = "2026-10-05"
SCORER_VERSION_NAMES = (V2026_10_05, PUBLIC_V1)


@dataclass(frozen=True)
class Constraint(ConstraintSpec):
    """Everything the harness knows about one constraint id: one row (SPEC §4, §5, §7, §7b, §10).

    Beside the contract's fields (kind; per rule set and scorer version the rule, each writing its
    verdict's one-line reason; per rule set the formatter that reads a stored detail's reason), the
    keywords that find its lines and, for a soft id, its rubric for the Judge.
    """

    keywords: tuple[str, ...] = ()            # §5: the words that mark a line as stating it
    rubric: dict[str, str] | None = None      # soft: what it asks and what 1 / 0.5 / 0 mean (§10)
    on_social_rows: bool = False              # the bundled set's social-domain rows may carry it (§3)


def _hard(cid: str, versions: dict[str, Rule], explain: Explain, strict_rule: Rule, strict_explain: Explain,
          keywords: tuple[str, ...] = (), on_social_rows: bool = False) -> Constraint:
    """A hard id's row: its rule per scorer version (the original set) and its strict rule, one for
    every version (§7c)."""
    assert tuple(versions) == SCORER_VERSION_NAMES, cid
    return Constraint(cid, HARD, rules={DEFAULT_RULE_SET: versions,
                                        STRICT: same_rule_for(SCORER_VERSION_NAMES, strict_rule)},
                      explain={DEFAULT_RULE_SET: explain, STRICT: strict_explain},
                      keywords=keywords, on_social_rows=on_social_rows)


# In the SPEC's order. format_preserve and syllable_order lines carry no keyword the rules read.
# public-v1 reads §7 as written; 2026-10-05 reads format_preserve, syllable_order, term_compliance
# and layout_break its own way (docs/protocol.md lists each difference with an example).
CONSTRAINTS: dict[str, Constraint] = {c.id: c for c in (
    _hard("format_preserve", {V2026_10_05: check_format_preserve_1005, PUBLIC_V1: check_format_preserve},
          explain_format_preserve, strict.check_format_preserve_strict, strict.explain_format_preserve_strict,
          on_social_rows=True),
    _hard("syllable_order", {V2026_10_05: check_syllable_order_1005, PUBLIC_V1: check_syllable_order},
          explain_concordance, strict.check_syllable_order_strict, strict.explain_syllable_order_strict),
    _hard("term_compliance", {V2026_10_05: check_term_compliance_1005, PUBLIC_V1: check_term_compliance},
          explain_term_compliance,
          # the strict rule reads the terms with the same §5 reader as the original's
          partial(strict.check_term_compliance_strict, glossary_terms=glossary_terms),
          strict.explain_term_compliance_strict, ("术语对照", "专名"), on_social_rows=True),
    _hard("social_preserve", {V2026_10_05: check_social_preserve, PUBLIC_V1: check_social_preserve},
          explain_social_preserve, strict.check_social_preserve_strict, strict.explain_social_preserve_strict,
          ("社交元素",), on_social_rows=True),
    _hard("layout_break", {V2026_10_05: check_layout_break_1005, PUBLIC_V1: check_layout_break},
          explain_layout_break, strict.check_layout_break_strict, strict.explain_layout_break_strict,
          ("布局", "排版")),
    Constraint("style_consistency", SOFT, keywords=("语体", "风格"), rubric={
        "subject": "the register (casual, neutral or formal) the requirement asks for",
        "1": "the whole translation is written in the requested register, from the first sentence to the last",
        "0.5": "the requested register dominates, but a few words, phrases or forms of address slip out of it",
        "0": "the register is not the requested one, or it keeps changing across the text",
    }),
    Constraint("term_cross_sentence", SOFT, keywords=("跨句", "全文统一"), rubric={
        "subject": "one rendering of the term(s) the requirement names, used throughout",
        "1": "every occurrence of the named term gets the same rendering, and that rendering fits its meaning",
        "0.5": "one rendering clearly dominates, with a single stray variant or one occurrence left out",
        "0": "the term is rendered in two or more competing ways, or the chosen rendering misses its meaning",
    }),
    Constraint("academic_format_preserve", SOFT, keywords=("学术", "LaTeX", "学术格式"), rubric={
        "subject": "LaTeX, formulas, symbols and citation markers kept exactly as in the source",
        "1": "every formula, LaTeX command, math symbol and citation marker is unchanged; only the prose is translated",
        "0.5": "all of them survive, with minor damage that changes no meaning (spacing inside a formula, one marker moved or restyled)",
        "0": "a formula, command or citation marker is translated, rewritten, dropped or broken",
    }),
    Constraint("context_disambiguate", SOFT, keywords=("歧义", "消歧"), rubric={
        "subject": "the ambiguous expression translated in the sense the requirement states",
        "1": "every occurrence of the ambiguous expression carries the stated sense, unmistakably",
        "0.5": "the stated sense is chosen, but one occurrence is vague or leans towards another sense",
        "0": "another sense is used, or the translation leaves the ambiguity unresolved",
    }),
    Constraint("coref_resolution", SOFT, keywords=("指代", "代词"), rubric={
        "subject": "references (pronouns, omitted subjects) pointing to the antecedent the requirement names",
        "1": "every reference named by the requirement clearly points to the stated antecedent, with no new ambiguity",
        "0.5": "the chain is right overall, but one reference is unclear or could point elsewhere",
        "0": "a reference points to the wrong person or thing, or the stated antecedent is lost",
    }),
)}
RULE_TABLE = RuleTable(CONSTRAINTS, RULE_SET_NAMES, SCORER_VERSION_NAMES)
CONSTRAINT_KINDS: dict[str, str] = RULE_TABLE.kinds()
HARD_IDS = tuple(cid for cid, c in CONSTRAINTS.items() if c.kind == HARD)
SOFT_IDS = tuple(cid for cid, c in CONSTRAINTS.items() if c.kind == SOFT)
SOCIAL_ONLY_IDS = tuple(cid for cid, c in CONSTRAINTS.items() if c.on_social_rows)  # bundled convention (§3)

# Rule set -> hard id -> rule at the newest scorer version, read off the table (the original set
# is the protocol's; the strict set stands beside it, SPEC §7b, and never replaces it).
RULE_SETS: dict[str, dict[str, Rule]] = {name: RULE_TABLE.rule_set(name) for name in RULE_SET_NAMES}


def explain(constraint_id: str, detail: dict, rule_set: str = DEFAULT_RULE_SET) -> str:
    """The one-line reason a stored failing detail of `rule_set` gives, by its rule's own formatter."""
    return RULE_TABLE.explain(constraint_id, detail, rule_set)
