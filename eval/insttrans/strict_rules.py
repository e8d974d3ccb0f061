"""The strict companion rule set (SPEC §7b): the gates the protocol means, never formal.

Reported beside the original rules (SPEC §7), never instead of them. All five rules share one
normalisation of the prediction (a BOM, CR line ends, leading blank lines and trailing whitespace
do not decide a verdict) and fail a prediction that is empty after it. Each verdict's detail names
what decided it: the JSON path and value, the tag and attribute, the lost list item, the
placeholder, the URL, the social element, the line whose indentation moved.

Each rule has its explainer beside it, which turns a failing detail into the one-line reason the
report shows. eval/insttrans/rules.py puts both into the constraint table (handing the strict
term rule its glossary reader), so this module never imports it.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from typing import Callable

from eval.insttrans.markdown_tokens import markdown_parser, parse_blocks, parse_inline
from eval.insttrans.rule_parts import (capped, explain_concordance, explain_tag_changes, json_type, not_json, parse_json,
                                       prediction_json, multiset_changes, short, source_json, syllable_concordance)
from eval.scoring.reasons import listed
from eval.scoring.substrings import occurring
from eval.scoring.rule_contract import DEFAULT_CONTEXT, ScoringContext, explained



def _short(text: str, limit: int = 60) -> str:
    return short(text, limit)


# --- shared normalisation (SPEC §7b) ----------------------------------------------------------

_LEADING_BLANK_LINES = re.compile(r"\A(?:[^\S\n]*\n)+")
_EMPTY_AFTER_NORMALISATION = {"error": "prediction is empty after normalisation (BOM, line ends, blank lines, "
                                       "trailing whitespace removed)"}


def normalise(text: str) -> str:
    """§7b: a leading BOM removed, CRLF and lone CR turned into LF, leading blank lines and
    trailing whitespace removed. The first non-blank line keeps its indentation."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _LEADING_BLANK_LINES.sub("", text).rstrip()


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# --- HTML (SPEC §7b format_preserve) ----------------------------------------------------------

TRANSLATABLE_ATTRIBUTES = frozenset({"alt", "title", "placeholder", "aria-label", "label"})


# A tag regex, as §7b allows (the standard library's HTMLParser gives the same tags on well-formed
# markup at several times the cost). Possessive, so a tag name never gives characters back to the
# body (the body takes them all the same): `<` + 20,000 letters stays linear. A tag's body stops
# at `<`, so a run of unclosed `<a<a<a` stays linear too.
_HTML_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*+)((?:[^<>\"']|\"[^\"<]*\"|'[^'<]*')*+)>")
_HTML_ATTRIBUTE = re.compile(r"""([^\s/>"'=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")


def _html_tags(text: str):
    """The tag matches of `text`, left to right, skipping comments: what `finditer` of
    `<!--.*?-->|` + the tag pattern (DOTALL) finds, with the comment's closing `-->` found once
    per comment instead of searched again from every unclosed `<!--` (quadratic on `<!--` × n)."""
    position, comments_close = 0, True  # False once a `<!--` has no `-->` after it: no later one has
    while True:
        start = text.find("<", position)
        if start < 0:
            return
        if comments_close and text.startswith("<!--", start):
            closing = text.find("-->", start + 4)
            if closing >= 0:
                position = closing + 3
                continue
            comments_close = False
        match = _HTML_TAG.match(text, start)
        if match:
            yield match
            position = match.end()
        else:
            position = start + 1


def html_tag_sequence(text: str) -> list[tuple[str, str, dict]]:
    """The tags of `text` in order as (`open` | `close`, lower-cased name, {attribute: value});
    `<br/>` opens a br as `<br>` does, and values are read with entities decoded (§7b)."""
    if "<" not in text:
        return []
    tags = []
    for match in _html_tags(text):
        slash, name, body = match.groups()
        if slash:
            tags.append(("close", name.lower(), {}))
            continue
        attributes = {}
        for attribute in _HTML_ATTRIBUTE.finditer(body):
            value = next((group for group in attribute.groups()[1:] if group is not None), "")
            attributes.setdefault(attribute.group(1).lower(), html.unescape(value))
        tags.append(("open", name.lower(), attributes))
    return tags


def _tag_text(tag: tuple[str, str, dict]) -> str:
    kind, name, _ = tag
    return f"</{name}>" if kind == "close" else f"<{name}>"


def check_html_part(source: str, prediction: str) -> dict | None:
    """Same tag sequence, the same attribute names per tag, the same values but the translatable
    ones; None when the source has no tag."""
    source_tags = html_tag_sequence(source)
    if not source_tags:
        return None
    prediction_tags = html_tag_sequence(prediction)
    detail: dict = {"passed": True, "source_tags": len(source_tags), "prediction_tags": len(prediction_tags)}
    source_names = [(kind, name) for kind, name, _ in source_tags]
    prediction_names = [(kind, name) for kind, name, _ in prediction_tags]
    if source_names != prediction_names:
        detail["passed"] = False
        for index in range(max(len(source_names), len(prediction_names))):
            source_tag = source_tags[index] if index < len(source_tags) else None
            prediction_tag = prediction_tags[index] if index < len(prediction_tags) else None
            if source_tag is None or prediction_tag is None or source_tag[:2] != prediction_tag[:2]:
                detail["first_difference"] = {"index": index,
                                              "source": source_tag and _tag_text(source_tag),
                                              "prediction": prediction_tag and _tag_text(prediction_tag)}
                break
        detail.update(multiset_changes(map(_tag_text, source_tags), map(_tag_text, prediction_tags),
                                       "missing_tags", "extra_tags"))
        return detail
    attribute_problems = []
    for index, ((_, name, source_attrs), (_, _, prediction_attrs)) in enumerate(zip(source_tags, prediction_tags)):
        missing = sorted(set(source_attrs) - set(prediction_attrs))
        extra = sorted(set(prediction_attrs) - set(source_attrs))
        if missing or extra:
            problem: dict = {"index": index, "tag": f"<{name}>"}
            if missing:
                problem["missing_attributes"] = missing
            if extra:
                problem["extra_attributes"] = extra
            attribute_problems.append(problem)
        for attribute in sorted(set(source_attrs) & set(prediction_attrs) - TRANSLATABLE_ATTRIBUTES):
            if source_attrs[attribute] != prediction_attrs[attribute]:
                attribute_problems.append({"index": index, "tag": f"<{name}>", "attribute": attribute,
                                           "source": _short(source_attrs[attribute]),
                                           "prediction": _short(prediction_attrs[attribute])})
    if attribute_problems:
        detail["passed"] = False
        detail["attributes"] = capped(attribute_problems)
        detail["n_attribute_problems"] = len(attribute_problems)
    return detail


# --- Markdown (CommonMark + tables through markdown-it-py) -----------------------------------

# Every Markdown construct the comparison reads needs one of these marks (a text with none has no
# structure to keep and is not parsed): `*`, a `_` not inside a word (intraword `_` never opens or
# closes emphasis), backticks, table pipes, `](` (links and images), autolinks; or, at the start
# of a line (up to three spaces in), an ATX heading, quote, list marker, setext underline, fence or
# `[` (a reference definition; its label may span lines, so only the `[` is looked for); or an
# indented line (indented code, nested lists). Three scans, the first a plain character class,
# are several times faster than one alternation.
_INLINE_MARK_CHARACTERS = re.compile(r"[*`|_\[<]")
_INLINE_MARKS_IN_CONTEXT = re.compile(r"[*`|]|(?<!\w)_|_(?!\w)|\]\(|<[A-Za-z][A-Za-z0-9+.\-]{1,31}:|<[^\s<>@]+@")
_LINE_START_MARKS = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|[>+=~\-\[]|\d{1,9}[.)])|^ {4}|^ {0,3}\t",
                               re.MULTILINE)


def _may_have_markdown(text: str) -> bool:
    return bool((_INLINE_MARK_CHARACTERS.search(text) and _INLINE_MARKS_IN_CONTEXT.search(text))
                or _LINE_START_MARKS.search(text))


_INLINE_MARKS = re.compile(r"[*_`\[<]")  # code spans, emphasis, links, images and autolinks need one


# The block tokens that `markdown_structure` lists, and the inline ones it counts, by what they count.
_BLOCK_TOKENS = frozenset({"heading_open", "list_item_open", "blockquote_open", "tr_open", "fence", "code_block"})
_COUNTED_INLINE = {"code_inline": "code_spans", "link_open": "links", "image": "images", "strong_open": "strong",
                   "em_open": "emphasis"}


class StructureExceeded(Exception):
    """A capped parse stopped: the text has more of `what` than `limit` (see `markdown_structure`)."""

    def __init__(self, what: str, limit: int):
        super().__init__(what, limit)
        self.what, self.limit = what, limit


class _CappedBlockTokens(list):
    """The block parser's token list, which stops the parse once the listed blocks outnumber the
    limit (markdown-it only ever appends to it)."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit, self.blocks = limit, 0

    def append(self, token) -> None:
        super().append(token)
        if token.type in _BLOCK_TOKENS:
            self.blocks += 1
            if self.blocks > self.limit:
                raise StructureExceeded("blocks", self.limit)


def _markdown_tokens(text: str, limits: dict | None = None) -> list:
    """markdown-it's tokens for `text`: the block parse, then the inline parse of each inline token
    that has a mark the comparison reads (the others can hold no code span, link, image or
    emphasis, so their inline parse would add nothing). With `limits` (a count per `_COMPARED`
    key), StructureExceeded stops the parse as soon as the text has more of one than its limit."""
    parser = markdown_parser()
    env: dict = {}
    tokens: list = [] if limits is None else _CappedBlockTokens(limits["blocks"])
    parse_blocks(parser, text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd"), env, tokens)
    counted = Counter()
    for token in tokens:
        if token.type == "inline":
            token.children = []
            if _INLINE_MARKS.search(token.content):
                inline = parser if "]" in token.content else markdown_parser(links=False)
                parse_inline(inline, token.content, env, token.children)
                if limits is not None:
                    counted.update(_COUNTED_INLINE[child.type] for child in token.children
                                   if child.type in _COUNTED_INLINE)
                    for what, count in counted.items():
                        if count > limits[what]:
                            raise StructureExceeded(what, limits[what])
    return list(tokens)


_COMPARED = ("blocks", "code_spans", "links", "images", "strong", "emphasis")


def markdown_structure(text: str, limits: dict | None = None) -> dict:
    """What §7b compares: the block sequence and the inline multisets (code spans, link and image
    targets) and counts (strong, emphasis); `item_texts` (each list item's first line) only names
    a lost item in a detail. Texts without a Markdown mark are not parsed. With `limits`, raises
    StructureExceeded as soon as the text has more of one compared thing than its limit."""
    if not _may_have_markdown(text):
        return _NO_MARKDOWN
    return parse_markdown_structure(text, limits)


def parse_markdown_structure(text: str, limits: dict | None = None) -> dict:
    """`markdown_structure` without the pre-check (the test of the pre-check compares the two)."""
    structure: dict = {"blocks": [], "code_spans": Counter(), "links": Counter(), "images": Counter(),
                       "strong": 0, "emphasis": 0, "item_texts": []}
    lists: list[str] = []
    cells, item_pending = 0, False
    for token in _markdown_tokens(text, limits):
        kind = token.type
        if kind == "heading_open":
            structure["blocks"].append(f"heading h{token.tag[1:]}")
        elif kind in ("bullet_list_open", "ordered_list_open"):
            lists.append("bullet" if kind == "bullet_list_open" else "ordered")
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            structure["blocks"].append(f"{lists[-1]} list item" + (f" (depth {len(lists)})" if len(lists) > 1 else ""))
            if item_pending:  # the previous item had no text of its own
                structure["item_texts"].append("")
            item_pending = True
        elif kind == "blockquote_open":
            structure["blocks"].append("block quote")
        elif kind == "tr_open":
            cells = 0
        elif kind in ("th_open", "td_open"):
            cells += 1
        elif kind == "tr_close":
            structure["blocks"].append(f"table row of {cells} cells")
        elif kind in ("fence", "code_block"):
            label = "fenced code" if kind == "fence" else "indented code"
            structure["blocks"].append(f"{label}: {token.content}")
        elif kind == "inline":
            if item_pending:
                structure["item_texts"].append(_short(token.content.split("\n", 1)[0]))
                item_pending = False
            for child in token.children or ():
                if child.type == "code_inline":
                    structure["code_spans"][child.content] += 1
                elif child.type == "link_open":
                    structure["links"][child.attrs.get("href", "")] += 1
                elif child.type == "image":
                    structure["images"][child.attrs.get("src", "")] += 1
                elif child.type == "strong_open":
                    structure["strong"] += 1
                elif child.type == "em_open":
                    structure["emphasis"] += 1
    if item_pending:
        structure["item_texts"].append("")
    return structure


_NO_MARKDOWN: dict = {"blocks": (), "code_spans": Counter(), "links": Counter(), "images": Counter(),
                      "strong": 0, "emphasis": 0, "item_texts": ()}  # shared, never changed


def _has_structure(structure: dict) -> bool:
    return any(structure[key] for key in _COMPARED)


def _block_label(block: str) -> str:
    """A block for a detail: code blocks shortened to their first line."""
    return _short(block.split("\n", 1)[0] + ("…" if "\n" in block.rstrip("\n") else ""))


# A prediction longer than this (characters) is parsed with the source's counts as limits: the
# parse stops, and the part fails, as soon as the prediction has more blocks, code spans, links,
# images, strong or emphasis than the source. Counts only grow as the parse goes on, so the verdict
# is the full parse's; only the detail is shorter. A degenerate 10 MB list stops after a few
# items instead of building millions of tokens (docs/strict-rules.md).
MARKDOWN_CAPPED_FROM = 32_768


def holds_code(span: str) -> bool:
    """Whether a code span holds anything but letters, marks and spaces (§7b): code, a path, a key,
    `Ctrl+S`, a number. A span of words alone (a UI label) may be translated."""
    return any(unicodedata.category(character)[0] not in "LMZ" for character in span)


def _code_span_problem(source_spans: Counter, prediction_spans: Counter) -> dict:
    """§7b code spans: the same number, and every source span that holds code present with its
    content (as often as in the source). Empty when they are kept."""
    problem: dict = {}
    source_count, prediction_count = sum(source_spans.values()), sum(prediction_spans.values())
    if source_count != prediction_count:
        problem.update(source=source_count, prediction=prediction_count)
    lost = Counter({span: count for span, count in source_spans.items() if holds_code(span)}) - prediction_spans
    if lost:
        problem["lost"] = capped(_short(span) for span in sorted(lost.elements()))
    return problem


def check_markdown_part(source: str, prediction: str) -> dict | None:
    """Block sequence equal; as many code spans, those holding code kept verbatim; link and image
    targets equal as multisets; strong and emphasis counts equal. None when the source has no
    Markdown structure."""
    source_structure = markdown_structure(source)
    if source_structure is _NO_MARKDOWN or not _has_structure(source_structure):
        return None
    detail: dict = {"passed": True, "source_blocks": len(source_structure["blocks"])}
    limits = None
    if len(prediction) > MARKDOWN_CAPPED_FROM:
        limits = {key: len(value) if key == "blocks" else value if isinstance(value, int) else sum(value.values())
                  for key, value in source_structure.items() if key in _COMPARED}
    try:
        prediction_structure = markdown_structure(prediction, limits)
    except StructureExceeded as exceeded:
        return {**detail, "passed": False,
                "exceeds_source": {"what": exceeded.what, "source": exceeded.limit, "prediction": f"over {exceeded.limit}"}}
    source_blocks, prediction_blocks = source_structure["blocks"], prediction_structure["blocks"]
    if list(source_blocks) != list(prediction_blocks):
        detail["passed"] = False
        changes = multiset_changes(source_blocks, prediction_blocks, "lost_blocks", "extra_blocks", _block_label)
        detail.update(changes or {"blocks_reordered": True})
        source_items, prediction_items = source_structure["item_texts"], prediction_structure["item_texts"]
        if len(prediction_items) < len(source_items):
            # Items are translated, so the lost ones are named by their source text: the items past
            # the prediction's last one (a translation keeps the order).
            detail["lost_list_items"] = capped(source_items[len(prediction_items):])
    code_spans = _code_span_problem(source_structure["code_spans"], prediction_structure["code_spans"])
    if code_spans:
        detail["passed"] = False
        detail["code_spans"] = code_spans
    for key in ("links", "images"):
        lost = source_structure[key] - prediction_structure[key]
        added = prediction_structure[key] - source_structure[key]
        if lost or added:
            detail["passed"] = False
            detail[key] = {"lost": capped(_short(item) for item in lost.elements()),
                           "extra": capped(_short(item) for item in added.elements())}
    for key in ("strong", "emphasis"):
        if source_structure[key] != prediction_structure[key]:
            detail["passed"] = False
            detail[key] = {"source": source_structure[key], "prediction": prediction_structure[key]}
    return detail


# --- placeholders and URLs --------------------------------------------------------------------

# LaTeX math is masked first (§7b), so `$x$` is no placeholder: one left-to-right scan where
# `$$…$$`, `\(…\)` and `\[…\]` win, then the placeholders (so `${name}`, `%1$s` and a price `$5`
# are never read as the start of math), then a `$…$` span, which opens on a `$` followed by a
# non-space and closes on a `$` preceded by a non-space and not followed by a digit (Pandoc's rule).
_PLACEHOLDER_OR_INLINE_MATH = re.compile(
    r"(?P<placeholder>"
    r"\{\{[A-Za-z_][A-Za-z0-9_]*\}\}"       # {{name}}
    r"|\$\{[A-Za-z_][A-Za-z0-9_]*\}"        # ${name}
    r"|\{[A-Za-z_][A-Za-z0-9_]*\}"          # {name}
    r"|\{\d+\}|\{\}"                        # {0} {}
    r"|%\d+\$[sd]"                          # %1$s %1$d
    r"|%\([A-Za-z_][A-Za-z0-9_]*\)[sd]"     # %(name)s %(name)d
    r"|%[sd]"                               # %s %d
    r"|\$\d+"                               # $ + digits
    r"|</?\d+>)"                           # <0> </0>
    r"|\$(?=\S)[^$\n]*?(?<=\S)\$(?!\d)")
_MATH_CLOSING = {"$$": "$$", "\\(": "\\)", "\\[": "\\]"}
_PLACEHOLDER_START = re.compile(r"[{%$<\\]")


def _placeholder_matches(text: str):
    """The placeholders of `text`, left to right: what `finditer` of the display math (`$$.+?$$`,
    `\\(.+?\\)`, `\\[.+?\\]`, DOTALL) or `_PLACEHOLDER_OR_INLINE_MATH` yields as `placeholder`,
    with each math closing found once instead of searched again from every unclosed opening
    (quadratic on `\\(` × n; tested against the pattern in tests/test_strict_rules.py)."""
    last_search: dict[str, tuple[int, int]] = {}  # closing -> (searched from, found at or -1)
    position = 0
    while True:
        found = _PLACEHOLDER_START.search(text, position)
        if found is None:
            return
        start = found.start()
        closing = _MATH_CLOSING.get(text[start:start + 2])
        if closing is not None:  # `.+?` needs one character, so the closing starts at start + 3 or later
            searched_from, end = last_search.get(closing, (len(text) + 1, -1))
            if searched_from > start + 3 or 0 <= end < start + 3:
                end = text.find(closing, start + 3)
                last_search[closing] = (start + 3, end)
            if end >= 0:
                position = end + 2
                continue
        match = _PLACEHOLDER_OR_INLINE_MATH.match(text, start)
        if match is None:
            position = start + 1
            continue
        if match.group("placeholder"):
            yield match.group("placeholder")
        position = match.end()
URL = re.compile(r"https?://[^\s\"'<>()\[\]{}\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]+")
_URL_TRAILING = ".,;:!?"


_NOTHING: Counter = Counter()  # shared and never changed


def placeholders(text: str) -> Counter:
    """The §7b placeholders of `text` as a multiset, LaTeX math masked first."""
    if "{" not in text and "%" not in text and "$" not in text and "<" not in text:
        return _NOTHING
    return Counter(_placeholder_matches(text))


def urls(text: str) -> Counter:
    """The `http(s)://` URLs of `text` as a multiset, trailing `.,;:!?` dropped (§7b)."""
    if "http" not in text:
        return _NOTHING
    return Counter(url.rstrip(_URL_TRAILING) for url in URL.findall(text))


def _multiset_part(source_items: Counter, prediction: str, extract: Callable[[str], Counter]) -> dict | None:
    if not source_items:
        return None
    prediction_items = extract(prediction)
    if prediction_items == source_items:
        return {"passed": True, "source": capped(sorted(source_items.elements()))}
    missing = source_items - prediction_items
    extra = prediction_items - source_items
    detail: dict = {"passed": not missing and not extra, "source": capped(sorted(source_items.elements()))}
    if missing:
        detail["missing"] = capped(sorted(missing.elements()))
    if extra:
        detail["extra"] = capped(sorted(extra.elements()))
    return detail


# --- format_preserve (SPEC §7b) ----------------------------------------------------------------


def inline_structure_parts(source: str, prediction: str) -> dict[str, dict]:
    """The inline parts the source has (HTML, Markdown, placeholders, URLs), each with its detail."""
    parts = {
        "html": check_html_part(source, prediction),
        "markdown": check_markdown_part(source, prediction),
        "placeholders": _multiset_part(placeholders(source), prediction, placeholders),
        "urls": _multiset_part(urls(source), prediction, urls),
    }
    return {name: part for name, part in parts.items() if part is not None}


def _json_path(prefix: str, key) -> str:
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else str(key)


def compare_json_structure(source_value, prediction_value) -> tuple[list[dict], int]:
    """(differences, number of values compared): objects the same keys, arrays the same length,
    strings the same inline structure, other scalars the same type and value. Iterative, so deep
    JSON cannot exhaust the stack."""
    differences: list[dict] = []
    compared = 0
    stack = [("", source_value, prediction_value)]
    while stack:
        path, source_node, prediction_node = stack.pop()
        compared += 1
        where = path or "(top)"
        source_type, prediction_type = json_type(source_node), json_type(prediction_node)
        if source_type != prediction_type:
            differences.append({"path": where, "problem": "type", "source": source_type,
                                "prediction": prediction_type})
        elif source_type == "object":
            missing = [key for key in source_node if key not in prediction_node]
            extra = [key for key in prediction_node if key not in source_node]
            if missing or extra:
                differences.append({"path": where, "problem": "keys", "missing": capped(missing),
                                    "extra": capped(extra)})
            stack.extend((_json_path(path, key), source_node[key], prediction_node[key])
                         for key in reversed(list(source_node)) if key in prediction_node)
        elif source_type == "array":
            if len(source_node) != len(prediction_node):
                differences.append({"path": where, "problem": "length", "source": len(source_node),
                                    "prediction": len(prediction_node)})
            stack.extend((_json_path(path, index), source_node[index], prediction_node[index])
                         for index in reversed(range(min(len(source_node), len(prediction_node)))))
        elif source_type == "string":
            for name, part in inline_structure_parts(source_node, prediction_node).items():
                if not part["passed"]:
                    differences.append({"path": where, "problem": name,
                                        **{key: value for key, value in part.items() if key != "passed"}})
        elif source_node != prediction_node:
            differences.append({"path": where, "problem": "value", "source": source_node,
                                "prediction": prediction_node})
    return differences, compared


def _check_json_part(prediction: str, source_value) -> dict:
    value, problem = prediction_json(prediction)
    if problem:
        return {"passed": False, **problem}
    differences, compared = compare_json_structure(source_value, value)
    detail: dict = {"passed": not differences, "values_compared": compared}
    if differences:
        detail["differences"] = capped(differences)
        detail["n_differences"] = len(differences)
    return detail


def read_format_preserve_strict(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> tuple[bool, dict]:
    """§7b format_preserve: a JSON source keeps its structure recursively; any other source keeps
    the inline structure it has (HTML, Markdown, placeholders, URLs). A source with none passes."""
    prediction = normalise(prediction)
    if not prediction:
        return (False, {"parts": [], "failed": ["empty"], **_EMPTY_AFTER_NORMALISATION})
    source_text = row["source_text"]
    source_value = source_json(source_text)
    if source_value is not None:
        parts = {"json": _check_json_part(prediction, source_value[0])}
    else:
        parts = inline_structure_parts(source_text, prediction)
    failed = [name for name, part in parts.items() if not part["passed"]]
    return (not failed, {"parts": list(parts), "failed": failed, **parts})


_EMPTY_REASON = "empty after normalisation"


def _lost_extra(part: dict, what: str) -> str:
    pieces = []
    if part.get("missing") or part.get("lost"):
        pieces.append(f"lost {what} {listed(part.get('missing') or part.get('lost'))}")
    if part.get("extra"):
        pieces.append(f"extra {what} {listed(part['extra'])}")
    return "; ".join(pieces)


def _explain_html(part: dict) -> str:
    pieces = explain_tag_changes(part)
    for problem in part.get("attributes", ())[:2]:
        if "attribute" in problem:
            pieces.append(f"{problem['tag']} {problem['attribute']}={problem['prediction']!r}, "
                          f"source {problem['source']!r}")
        else:
            lost, extra = problem.get("missing_attributes"), problem.get("extra_attributes")
            pieces.append(f"{problem['tag']}" + (f" lost {listed(lost)}" if lost else "")
                          + (f" added {listed(extra)}" if extra else ""))
    more = part.get("n_attribute_problems", 0) - min(2, len(part.get("attributes", ())))
    return "HTML: " + "; ".join(pieces) + (f" (+{more} more)" if more > 0 else "")


def _explain_markdown(part: dict) -> str:
    if part.get("exceeds_source"):
        exceeded = part["exceeds_source"]
        return f"Markdown: more {exceeded['what'].replace('_', ' ')} than the source's {exceeded['source']}"
    pieces = []
    if part.get("lost_list_items"):
        pieces.append(f"lost list item {listed(part['lost_list_items'], limit=2)}")
    elif part.get("lost_blocks"):
        pieces.append(f"lost {listed(part['lost_blocks'], limit=3)}")
    if part.get("extra_blocks"):
        pieces.append(f"extra {listed(part['extra_blocks'], limit=3)}")
    if part.get("blocks_reordered"):
        pieces.append("blocks reordered")
    spans = part.get("code_spans")
    if spans:
        if "source" in spans:
            pieces.append(f"{spans['prediction']} code spans for the source's {spans['source']}")
        if spans.get("lost"):
            pieces.append(f"code span changed: {listed(spans['lost'], limit=2)}")
    for key, what in (("links", "link target"), ("images", "image target")):
        if part.get(key):
            pieces.append(_lost_extra(part[key], what))
    for key, what in (("strong", "bold"), ("emphasis", "italic")):
        if part.get(key):
            pieces.append(f"{part[key]['prediction']} {what} for the source's {part[key]['source']}")
    return "Markdown: " + "; ".join(pieces)


def _explain_json(part: dict) -> str:
    if part.get("error"):
        return "JSON: " + not_json(part["error"], part.get("prediction_starts"))
    pieces = [_explain_json_difference(difference) for difference in part["differences"][:2]]
    more = part["n_differences"] - len(pieces)
    return "JSON: " + "; ".join(pieces) + (f" (+{more} more)" if more > 0 else "")


def _explain_json_difference(difference: dict) -> str:
    where, problem = difference["path"], difference["problem"]
    if problem == "type":
        return f"{where} is a {difference['prediction']}, the source's a {difference['source']}"
    if problem == "keys":
        return f"{where} keys differ: " + _lost_extra(difference, "key")
    if problem == "length":
        return f"{where} has {difference['prediction']} items for the source's {difference['source']}"
    if problem == "value":
        return f"{where} is {difference['prediction']!r}, the source's {difference['source']!r}"
    return f"{where} " + _EXPLAIN_PART[problem](difference)  # an inline part of a string value


_EXPLAIN_PART = {
    "json": _explain_json,
    "html": _explain_html,
    "markdown": _explain_markdown,
    "placeholders": lambda part: "placeholders: " + _lost_extra(part, "placeholder"),
    "urls": lambda part: "URLs: " + _lost_extra(part, "URL"),
}


def explain_format_preserve_strict(detail: dict) -> str:
    """The failed parts of a §7b format_preserve verdict, each with what changed."""
    if detail["failed"] == ["empty"]:
        return _EMPTY_REASON
    return "; ".join(_EXPLAIN_PART[name](detail[name]) for name in detail["failed"])


# --- term_compliance (SPEC §7b) ------------------------------------------------------------------

def read_term_compliance_strict(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT, *,
                                glossary_terms: Callable[[dict], list[str]]) -> tuple[bool, dict]:
    """§7b term_compliance: each glossary target term, NFC, is a substring of the NFC prediction;
    no word-boundary test, so inflected and particle-attached forms count. `glossary_terms` is the
    §5 line reader of eval/constraints.py (see `strict_rule_table`)."""
    terms = glossary_terms(row)
    text = nfc(normalise(prediction))
    if not text:
        return (False, {"terms": terms, "missing": terms, **_EMPTY_AFTER_NORMALISATION})
    normalised = {term: nfc(term) for term in terms}
    present = occurring(normalised.values(), text)  # `nfc(term) in text` for each, in one pass
    missing = [term for term in terms if normalised[term] not in present]
    detail: dict = {"terms": terms, "missing": missing}
    if not terms:
        detail["note"] = "no glossary term in the constraint lines"
    return (not missing, detail)


def explain_term_compliance_strict(detail: dict) -> str:
    if detail.get("error"):
        return _EMPTY_REASON
    return "term not found (NFC substring): " + listed(detail["missing"])


# --- social_preserve (SPEC §7b) -------------------------------------------------------------------

_TOPIC = re.compile(r"#[^#\s](?:[^#\n]{0,38}[^#\s])?#")
_HASHTAG = re.compile(r"#\w+")
_EMOTE = re.compile(r"\[[^\[\]\n]{1,20}\](?!\()")
_MENTION_LIMIT = 30


def _is_mention_char(char: str) -> bool:
    return char == "_" or not (char.isspace() or unicodedata.category(char).startswith("P"))


def _mentions(text: str) -> list[str]:
    found, start = [], text.find("@")
    while start >= 0:
        end = start + 1
        while end < len(text) and end - start <= _MENTION_LIMIT and _is_mention_char(text[end]):
            end += 1
        if end > start + 1:
            found.append(text[start:end])
        start = text.find("@", end if end > start + 1 else start + 1)
    return found


def social_elements_in(text: str) -> Counter:
    """The §7b social elements of a text, counted: `#topic#` first (masked), then `#hashtag`,
    `[emote]` not followed by `(` (a Markdown link), `@mention`."""
    elements: Counter = Counter()
    if "#" in text:
        topics = _TOPIC.findall(text)
        elements.update(topics)
        elements.update(_HASHTAG.findall(_TOPIC.sub(" ", text) if topics else text))
    if "[" in text:
        elements.update(_EMOTE.findall(text))
    if "@" in text:
        elements.update(_mentions(text))
    return elements


def read_social_preserve_strict(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> tuple[bool, dict]:
    """§7b social_preserve: each element of the source text occurs in the prediction, read with the
    same patterns, at least as often as in the source. A source without elements passes."""
    source_elements = social_elements_in(row["source_text"])
    text = normalise(prediction)
    listed = capped(sorted(source_elements))
    if not text:
        return (False, {"elements": listed, "missing": listed, **_EMPTY_AFTER_NORMALISATION})
    prediction_elements = social_elements_in(text)
    short = source_elements - prediction_elements
    missing = [{"element": element, "source": source_elements[element], "prediction": prediction_elements[element]}
               for element in sorted(short)]
    detail: dict = {"elements": listed, "n_elements": sum(source_elements.values()), "missing": capped(missing)}
    if not source_elements:
        detail["note"] = "no social element in the source text"
    return (not missing, detail)


def explain_social_preserve_strict(detail: dict) -> str:
    if detail.get("error"):
        return _EMPTY_REASON
    return "social element short: " + listed(f"{item['element']} ({item['prediction']} of {item['source']})"
                                             for item in detail["missing"])


# --- layout_break (SPEC §7b) ----------------------------------------------------------------------

_INDENT = re.compile(r"[ \t\u3000]*")


def indent_width(indent: str) -> int:
    """The width of a line's leading whitespace (§7b): a space 1, U+3000 2, a tab to the next
    multiple of 4."""
    width = 0
    for character in indent:
        width = (width // 4 + 1) * 4 if character == "\t" else width + (2 if character == "\u3000" else 1)
    return width


def _indent_problems(indents: list[tuple[int, str, str, str]]) -> list[dict]:
    """(line, source indent, prediction indent, prediction line) of the non-blank paired lines ->
    one problem per line whose indentation breaks the layout (§7b): indented in one text only, or
    out of the source's order of widths (deeper stays deeper, equal stays equal)."""
    problems, by_source_width = [], {}
    for number, source_indent, prediction_indent, line in indents:
        source_width, prediction_width = indent_width(source_indent), indent_width(prediction_indent)
        problem = {"line": number, "problem": "indent", "source": source_indent, "prediction": prediction_indent,
                   "prediction_line": _short(line, 30)}
        if (source_width > 0) != (prediction_width > 0):
            problems.append({**problem, "reason": "indented in one text only"})
            continue
        by_source_width.setdefault(source_width, []).append((prediction_width, problem))
    # Equal source widths keep one prediction width (the first line's); deeper source widths get
    # strictly deeper prediction widths than every shallower one.
    deepest_below = -1
    for source_width in sorted(by_source_width):
        lines = by_source_width[source_width]
        kept = lines[0][0]
        for prediction_width, problem in lines:
            if prediction_width != kept:
                problems.append({**problem, "reason": "the source indents it as deep as line "
                                                      f"{lines[0][1]['line']}, the prediction does not"})
            elif prediction_width <= deepest_below:
                problems.append({**problem, "reason": "the source indents it deeper than a line the prediction "
                                                      "indents as deep or deeper"})
        deepest_below = max(deepest_below, kept)
    return sorted(problems, key=lambda problem: problem["line"])


def read_layout_break_strict(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> tuple[bool, dict]:
    """§7b layout_break: after normalising both texts, the same number of lines, and per line the
    same blankness, the same counts of `|` and tabs, and indentation compared by width and order:
    indented iff the source line is, deeper where the source is deeper, equal where it is equal."""
    source_lines = normalise(row["source_text"]).split("\n")
    text = normalise(prediction)
    if not text:
        return (False, {"source_lines": len(source_lines), "failed": ["empty"],
                                   **_EMPTY_AFTER_NORMALISATION})
    prediction_lines = text.split("\n")
    detail: dict = {"source_lines": len(source_lines), "prediction_lines": len(prediction_lines)}
    failed: list[str] = []
    if len(source_lines) != len(prediction_lines):
        failed.append("line_count")
    problems: list[dict] = []
    indents = []
    for number, (source_line, prediction_line) in enumerate(zip(source_lines, prediction_lines), 1):
        source_blank, prediction_blank = not source_line.strip(), not prediction_line.strip()
        if source_blank != prediction_blank:
            problems.append({"line": number, "problem": "blank", "source_blank": source_blank,
                             "prediction": _short(prediction_line, 30)})
            continue
        if source_blank:
            continue
        indents.append((number, _INDENT.match(source_line).group(), _INDENT.match(prediction_line).group(),
                        prediction_line))
        for mark, name in (("|", "bars"), ("\t", "tabs")):
            if source_line.count(mark) != prediction_line.count(mark):
                problems.append({"line": number, "problem": name, "source": source_line.count(mark),
                                 "prediction": prediction_line.count(mark)})
    problems = sorted(_indent_problems(indents) + problems, key=lambda problem: problem["line"])
    for problem in problems:
        if problem["problem"] not in failed:
            failed.append(problem["problem"])
    if problems:
        detail["lines"] = capped(problems)
        detail["n_line_problems"] = len(problems)
    detail["failed"] = failed
    return (not failed, detail)


def _explain_line(problem: dict) -> str:
    where = f"line {problem['line']}"
    if problem["problem"] == "blank":
        return f"{where} is blank in the {'source' if problem['source_blank'] else 'prediction'} only"
    if problem["problem"] == "indent":
        return (f"{where} indented {indent_width(problem['prediction'])} wide for the source's "
                f"{indent_width(problem['source'])}: {problem['reason']}")
    mark = "|" if problem["problem"] == "bars" else "tabs"
    return f"{where} has {problem['prediction']} {mark} for the source's {problem['source']}"


def explain_layout_break_strict(detail: dict) -> str:
    """The line count, then the first line problems, of a §7b layout_break verdict."""
    if detail["failed"] == ["empty"]:
        return _EMPTY_REASON
    pieces = []
    if "line_count" in detail["failed"]:
        pieces.append(f"{detail['prediction_lines']} lines for the source's {detail['source_lines']}")
    lines = detail.get("lines", [])
    pieces += [_explain_line(problem) for problem in lines[:2]]
    more = detail.get("n_line_problems", 0) - min(2, len(lines))
    return "; ".join(pieces) + (f" (+{more} more)" if more > 0 else "")


# --- syllable_order (SPEC §7b, counts by §8) -------------------------------------------------------


def _subtitle_lines(prediction: str, row: dict) -> tuple[list | None, dict]:
    """(lines, {}) or (None, the detail of why there are none), per §7b."""
    source_value, error = parse_json(row["source_text"].strip())
    if error is None and isinstance(source_value, dict) and all(isinstance(v, str) for v in source_value.values()):
        value, problem = prediction_json(prediction)
        if problem:
            return None, problem
        if not isinstance(value, dict):
            return None, {"error": f"prediction is a JSON {json_type(value)}, not an object"}
        missing = [key for key in source_value if key not in value]
        extra = [key for key in value if key not in source_value]
        if missing or extra:
            return None, {"error": "the prediction's keys differ from the source's",
                          "missing_keys": capped(missing), "extra_keys": capped(extra)}
        lines = [value[key] for key in source_value]
        for key, line in zip(source_value, lines):
            if not isinstance(line, str):
                return None, {"error": f'line "{key}" is a JSON {json_type(line)}, not a string', "line": key}
        return lines, {}
    return [line for line in prediction.split("\n") if line.strip()], {}


def read_syllable_order_strict(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> tuple[bool, dict]:
    """§7b syllable_order: one string per duration (JSON values in the source's key order, or the
    non-blank lines), then longer-shown lines must not get fewer syllables (concordance ≥ 0.9)."""
    durations = row.get("duration_s") or []
    text = normalise(prediction)
    if not text:
        return (False, dict(_EMPTY_AFTER_NORMALISATION))
    if not durations:
        return (True, {"note": "no durations"})
    lines, problem = _subtitle_lines(text, row)
    if lines is None:
        return (False, problem)
    if len(lines) != len(durations):
        return (False, {"error": f"{len(lines)} lines for {len(durations)} durations",
                                   "lines": len(lines), "durations": len(durations)})
    return syllable_concordance(lines, durations, row["target_lang"], context.counter)


def explain_syllable_order_strict(detail: dict) -> str:
    """Why the lines could not be read (with the keys or counts that differ), or the inversions."""
    if detail.get("error") and detail.get("missing_keys") is not None:
        return "keys differ from the source's: " + _lost_extra({"missing": detail["missing_keys"],
                                                                "extra": detail["extra_keys"]}, "key")
    return explain_concordance(detail)


# --- the strict rules: each reading with the formatter of its failing reason (eval/scoring/rule_contract.py)

check_format_preserve_strict = explained(explain_format_preserve_strict)(read_format_preserve_strict)
check_term_compliance_strict = explained(explain_term_compliance_strict)(read_term_compliance_strict)  # + glossary_terms
check_social_preserve_strict = explained(explain_social_preserve_strict)(read_social_preserve_strict)
check_layout_break_strict = explained(explain_layout_break_strict)(read_layout_break_strict)
check_syllable_order_strict = explained(explain_syllable_order_strict)(read_syllable_order_strict)
