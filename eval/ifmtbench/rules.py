"""IFMTBench's hard rules, with the original scorer's semantics (SPEC §14), lenient spots included.

The published gates are defined by these verdicts, so nothing here is stricter or kinder than the
original: the response is never stripped, unfenced or normalised; a JSON side that parses to
null passes; HTML is compared by tag names only; a Markdown table with no data rows is not
row-counted. Every rule is near-linear in the response's length (no backtracking pattern, no
recursion over the response's nesting), since model output is hostile input.

Each rule follows the rule contract (eval/scoring/rule_contract.py): it takes the validated row, the
response and the scoring context and returns a Verdict whose one-line reason says why it failed and
whose `detail` says which term, chunk count, key path, tag or asset decided it (a failing detail
keeps the reason under "reason" too, as scores.jsonl has always carried it). `RULE_TABLE` holds one
spec per label id, soft ones included.
"""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser

from eval.ifmtbench.labels import DATA_FORMATS, ID_KINDS
from eval.scoring.substrings import occurring
from eval.scoring.rule_contract import (DEFAULT_CONTEXT, HARD, ORIGINAL, ConstraintSpec, RuleTable, ScoringContext,
                                 Verdict)

SHOWN = 5  # terms, assets or paths named in a detail


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _verdict(passed: bool, detail: dict) -> Verdict:
    """A verdict whose reason is the one its failing detail states."""
    return Verdict(passed, "" if passed else detail["reason"], detail)


# ---------------------------------------------------------------------------------------------
# glossary
# ---------------------------------------------------------------------------------------------

def parse_term_dict(value: object) -> dict | None:
    """The row's term_dict as an object, or None when it is not (or does not parse to) a
    non-empty one: then the glossary rule fails, as in the original."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value if isinstance(value, dict) and value else None


def term_candidates(target: object) -> list:
    """A term's candidates: a list as given, anything else as a list of one."""
    return target if isinstance(target, list) else [target]


def _string_candidates(targets) -> list[str]:
    return [candidate for target in targets for candidate in term_candidates(target)
            if isinstance(candidate, str) and candidate]


def check_glossary(row: dict, response: str, context: ScoringContext = DEFAULT_CONTEXT) -> Verdict:
    """Every term needs a non-empty candidate that is a case-sensitive substring of the response;
    a term with more than one candidate (and a non-empty reference) needs a hit that is also in
    the reference. Substring matching: a nested term (one inside another) passes with it."""
    terms = parse_term_dict(row.get("term_dict", ""))
    if terms is None:
        return _verdict(False, {"reason": "term_dict is empty or not an object", "terms": 0})
    if not response:
        return _verdict(False, {"reason": "the response is empty", "terms": len(terms)})
    reference = row["output"]
    unmatched, wrong = [], []
    # `candidate in response` and `hit in reference` for every candidate, each text read once
    # (a glossary of many terms is not many passes); a candidate that is no string is tested as before.
    in_response = occurring(_string_candidates(terms.values()), response)
    hits_by_term = {term: [candidate for candidate in term_candidates(target) if candidate
                           and (candidate in in_response if isinstance(candidate, str) else candidate in response)]
                    for term, target in terms.items()}
    in_reference = occurring((hit for term, hits in hits_by_term.items() if len(term_candidates(terms[term])) > 1
                              for hit in hits if isinstance(hit, str)), reference) if isinstance(reference, str) else set()
    for term, target in terms.items():
        candidates = term_candidates(target)
        hits = hits_by_term[term]
        if not hits:
            unmatched.append(term)
        elif len(candidates) > 1 and reference and not any(
                hit in in_reference if isinstance(hit, str) and isinstance(reference, str) else hit in reference
                for hit in hits):
            wrong.append(term)
    detail: dict = {"terms": len(terms), "matched": len(terms) - len(unmatched) - len(wrong)}
    if unmatched:
        detail["unmatched"] = unmatched[:SHOWN]
    if wrong:
        detail["wrong_choice"] = wrong[:SHOWN]
    if unmatched or wrong:
        parts = []
        if unmatched:
            parts.append(f"{len(unmatched)} term(s) not rendered: " + ", ".join(_cut(t, 30) for t in unmatched[:SHOWN]))
        if wrong:
            parts.append(f"{len(wrong)} term(s) with a candidate the reference does not use: "
                         + ", ".join(_cut(t, 30) for t in wrong[:SHOWN]))
        detail["reason"] = "; ".join(parts)
        return _verdict(False, detail)
    return _verdict(True, detail)


# The glossary rule runs once per row and run (issue 37): a judged run must know before the Judge
# stage which rows' rule fails (their fallback is asked), and scoring needs the same verdict. The
# request builder remembers its verdicts here, scoring takes each back once. An entry is the row
# object itself, so it can only be taken back for that row and response; a miss (an estimate that
# never scores, another run's call in between) only runs the rule again. One run's rows at most:
# the builder forgets the previous run's entries first.
_REMEMBERED: dict[int, tuple[dict, str, Verdict]] = {}


def forget_glossary_verdicts() -> None:
    _REMEMBERED.clear()


def glossary_verdict(row: dict, response: str, remember: bool = False) -> Verdict:
    """check_glossary(row, response), taken back when the request builder already ran it; with
    `remember`, kept for the one call that takes it back."""
    entry = _REMEMBERED.pop(id(row), None)
    if entry is not None and entry[0] is row and entry[1] == response:
        return entry[2]
    verdict = check_glossary(row, response)
    if remember:
        _REMEMBERED[id(row)] = (row, response, verdict)
    return verdict


# ---------------------------------------------------------------------------------------------
# layout
# ---------------------------------------------------------------------------------------------

def chunk_count(text: str, delimiter: str) -> int:
    """len(text.split(delimiter)) without building the pieces."""
    return text.count(delimiter) + 1


def check_layout(row: dict, response: str, context: ScoringContext = DEFAULT_CONTEXT) -> Verdict:
    """The source, the response and meta_data.source_chunks split into the same number of chunks
    on the primary delimiter (an empty delimiter or source fails)."""
    meta = row.get("meta_data") or {}
    delimiter = meta.get("primary_delimiter") or ""
    expected = len(meta.get("source_chunks") or [])
    origin = row["origin_text"]
    if not delimiter:
        return _verdict(False, {"reason": "primary_delimiter is empty"})
    if not origin:
        return _verdict(False, {"reason": "origin_text is empty"})
    if not response:
        return _verdict(False, {"reason": "the response is empty"})
    source, output = chunk_count(origin, delimiter), chunk_count(response, delimiter)
    detail = {"delimiter": delimiter, "source": source, "response": output, "source_chunks": expected}
    if source == output == expected:
        return _verdict(True, detail)
    detail["reason"] = (f"{output} chunk(s) on {delimiter!r} in the response, {source} in the source, "
                        f"{expected} source_chunks")
    return _verdict(False, detail)


# ---------------------------------------------------------------------------------------------
# structured
# ---------------------------------------------------------------------------------------------

def data_format_of(row: dict) -> object:
    """The top-level data_format whenever the key exists (even null), else meta_data's."""
    if "data_format" in row:
        return row["data_format"]
    return (row.get("meta_data") or {}).get("data_format", "")


def _load_json(text: str) -> tuple[bool, object]:
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def _json_mismatch(origin: object, output: object) -> str | None:
    """The first path where the two differ in Python type, key set or list length; None when the
    structures agree. Scalar values are not compared. Iterative: the response's depth is hostile."""
    stack = [("$", origin, output)]
    while stack:
        path, a, b = stack.pop()
        if type(a) is not type(b):
            return f"type differs at {path} ({type(a).__name__} in the source, {type(b).__name__} in the response)"
        if isinstance(a, dict):
            if a.keys() != b.keys():
                missing = [key for key in a if key not in b][:SHOWN]
                extra = [key for key in b if key not in a][:SHOWN]
                return (f"keys differ at {path}" + (f": missing {missing}" if missing else "")
                        + (f"; extra {extra}" if extra else ""))
            stack.extend((f"{path}.{key}", a[key], b[key]) for key in reversed(list(a)))
        elif isinstance(a, list):
            if len(a) != len(b):
                return f"array length differs at {path} ({len(a)} in the source, {len(b)} in the response)"
            stack.extend((f"{path}[{index}]", x, y) for index, (x, y) in reversed(list(enumerate(zip(a, b)))))
    return None


def _check_json(origin: str, response: str) -> tuple[bool, str]:
    ok_origin, origin_value = _load_json(origin)
    ok_output, output_value = _load_json(response)
    if not ok_origin or not ok_output:
        return False, "the source is not JSON" if not ok_origin else "the response is not JSON"
    if origin_value is None or output_value is None:  # the original compares nothing then
        return True, "a side is JSON null (not compared, as in the original)"
    mismatch = _json_mismatch(origin_value, output_value)
    return mismatch is None, mismatch or ""


class _TagSequence(HTMLParser):
    """(start|end, tag name) as html.parser reports them; a self-closing tag is a start and an end."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(("start", tag))

    def handle_endtag(self, tag):
        self.tags.append(("end", tag))


def html_tags(text: str) -> list[tuple[str, str]] | None:
    """The tag sequence of `text` (fed once, close() not called), or None when the parser raises."""
    parser = _TagSequence()
    try:
        parser.feed(text)
    except Exception:  # html.parser raises AssertionError and others on some malformed input
        return None
    return parser.tags


def _check_html(origin: str, response: str) -> tuple[bool, str]:
    source, output = html_tags(origin), html_tags(response)
    if source is None or output is None:
        return False, "the source cannot be parsed as HTML" if source is None else "the response cannot be parsed as HTML"
    if len(source) != len(output):
        return False, f"{len(output)} tag events in the response, {len(source)} in the source"
    for index, (a, b) in enumerate(zip(source, output)):
        if a != b:
            return False, f"tag event #{index + 1} is {b[0]} <{b[1]}>, the source has {a[0]} <{a[1]}>"
    return True, ""


def csv_shape(text: str) -> list[int] | None:
    """Columns per row as csv.reader's default dialect reads `text` (a blank line is a row of
    none), or None when the reader raises."""
    try:
        return [len(fields) for fields in csv.reader(io.StringIO(text))]
    except Exception:  # csv.Error (an over-long field, a stray line break), as the original catches
        return None


def _check_csv(origin: str, response: str) -> tuple[bool, str]:
    source, output = csv_shape(origin), csv_shape(response)
    if source is None or output is None:
        return False, "the source cannot be read as CSV" if source is None else "the response cannot be read as CSV"
    if len(source) != len(output):
        return False, f"{len(output)} CSV rows in the response, {len(source)} in the source"
    for index, (a, b) in enumerate(zip(source, output)):
        if a != b:
            return False, f"row {index + 1} has {b} columns in the response, {a} in the source"
    return True, ""


_SEPARATOR = re.compile(r"[\|\s\-:]+")


def markdown_table(text: str) -> tuple[int, int] | str:
    """(header columns, data rows) of a Markdown table, or why it is not one: lines split on
    `\\n`, stripped, empty ones dropped; line 2 made only of `|`, whitespace, `-` and `:`."""
    lines = [line.strip() for line in text.strip().split("\n")]
    lines = [line for line in lines if line]
    if len(lines) < 2:
        return "fewer than two table lines"
    if not _SEPARATOR.fullmatch(lines[1]):
        return "line 2 is not a separator row"
    return len(lines[0].strip("|").split("|")), len(lines) - 2


def _check_markdown(origin: str, response: str) -> tuple[bool, str]:
    source, output = markdown_table(origin), markdown_table(response)
    if isinstance(source, str) or isinstance(output, str):
        return False, f"the source: {source}" if isinstance(source, str) else f"the response: {output}"
    if source[0] != output[0]:
        return False, f"{output[0]} header columns in the response, {source[0]} in the source"
    if source[1] and output[1] and source[1] != output[1]:
        return False, f"{output[1]} data rows in the response, {source[1]} in the source"
    return True, ""


STRUCTURE_CHECKS = {"json": _check_json, "html": _check_html, "csv": _check_csv, "markdown": _check_markdown}


def check_structured(row: dict, response: str, context: ScoringContext = DEFAULT_CONTEXT) -> Verdict:
    """The response keeps the structure of origin_text in the row's data_format (SPEC §14); an
    unknown data_format fails (and is a data warning)."""
    data_format = data_format_of(row)
    kind = DATA_FORMATS.get(data_format) if isinstance(data_format, str) else None
    if kind is None:
        return _verdict(False, {"data_format": data_format, "reason": f"unknown data_format {data_format!r}"})
    if not row["origin_text"] or not response:
        return _verdict(False, {"data_format": data_format,
                                   "reason": "origin_text is empty" if not row["origin_text"] else "the response is empty"})
    passed, why = STRUCTURE_CHECKS[kind](row["origin_text"], response)
    detail = {"data_format": data_format}
    if why:
        detail["reason" if not passed else "note"] = why
    return _verdict(passed, detail)


# ---------------------------------------------------------------------------------------------
# inline_code, code_tag
# ---------------------------------------------------------------------------------------------

def check_assets(row: dict, response: str, context: ScoringContext = DEFAULT_CONTEXT) -> Verdict:
    """Every element of meta_data.extracted_assets is a substring of the response; an empty or
    missing list passes."""
    assets = (row.get("meta_data") or {}).get("extracted_assets") or []
    if assets and not response:
        return _verdict(False, {"assets": len(assets), "matched": 0, "lost": [_cut(a) for a in assets[:SHOWN]],
                                   "reason": "the response is empty"})
    present = occurring((asset for asset in assets if isinstance(asset, str)), response)  # one pass, any count
    lost = [asset for asset in assets if (asset not in present if isinstance(asset, str) else asset not in response)]
    detail = {"assets": len(assets), "matched": len(assets) - len(lost)}
    if lost:
        detail["lost"] = [_cut(asset) for asset in lost[:SHOWN]]
        detail["reason"] = f"{len(lost)} of {len(assets)} asset(s) missing: " + ", ".join(
            repr(_cut(asset, 40)) for asset in lost[:SHOWN])
        return _verdict(False, detail)
    return _verdict(True, detail)


# ---------------------------------------------------------------------------------------------
# The table: one spec per label id (SPEC §14), its kind from the label table
# ---------------------------------------------------------------------------------------------

SCORER_VERSION = "a42ea25"  # the Hy-MT2 IFMTBench/ scorer these rules reproduce (RELEASE-FACTS §3); one today
_HARD_RULES = {"glossary": check_glossary, "layout": check_layout, "structured": check_structured,
               "inline_code": check_assets, "code_tag": check_assets}


def stored_reason(detail: dict) -> str:
    """A stored failing detail's reason: the rules keep it in the detail."""
    return str(detail.get("reason", ""))


RULE_TABLE = RuleTable({cid: ConstraintSpec(cid, kind, rules={ORIGINAL: {SCORER_VERSION: _HARD_RULES[cid]}},
                                            explain={ORIGINAL: stored_reason})
                        if kind == HARD else ConstraintSpec(cid, kind)
                        for cid, kind in ID_KINDS.items()},
                       rule_sets=(ORIGINAL,), scorer_versions=(SCORER_VERSION,))
RULES = RULE_TABLE.rule_set(ORIGINAL)  # hard id -> rule
