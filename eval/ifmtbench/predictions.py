"""The IFMTBench prediction join (SPEC §14): the harness's `{case_id, prediction}` lines or the
original's `{md5, response[, instruction_lang]}` lines, in one file, either or both.

A line with instruction_lang joins on (md5, instruction_lang); a line without it joins only where
that md5 is unique in the data, since the original, keyed on md5 alone, lends one language's
answer to every other (SPEC §14: nothing is borrowed). Every other check is the shared reader's
(SPEC §6): one prediction per case_id, no unknown id, a string or null.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from eval.errors import PredictionError
from eval.inputs.predictions import read_predictions

LINE_FORMS = ('{"case_id": "...", "prediction": "..."} or the original scorer\'s '
              '{"md5": "...", "response": "...", "instruction_lang": "..."}')


def _join_index(rows: list[dict]) -> tuple[dict, dict]:
    """({md5: [(case_id, instruction_lang), ...]}, {(md5, instruction_lang): case_id}) over the data."""
    by_md5: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    by_pair: dict[tuple[str, str], str] = {}
    for row in rows:
        by_md5[row["md5"]].append((row["case_id"], row.get("instruction_lang")))
        if row.get("instruction_lang"):
            by_pair[(row["md5"], row["instruction_lang"])] = row["case_id"]
    return by_md5, by_pair


def _case_id_of(entry: dict, where: str, by_md5: dict, by_pair: dict) -> tuple[str, str]:
    """(case_id, text field name) of one line; PredictionError naming the line when it cannot join."""
    if "case_id" in entry:
        case_id = entry["case_id"]
        if not isinstance(case_id, str):
            raise PredictionError(f"{where}: the line has a case_id of type {type(case_id).__name__}",
                                  "case_id must be the data row's id, as a string")
        return case_id, "prediction"
    md5 = entry.get("md5")
    if not isinstance(md5, str):
        problem = "has neither case_id nor md5" if md5 is None else f"has an md5 of type {type(md5).__name__}"
        raise PredictionError(f"{where}: the line {problem}", f"write {LINE_FORMS}")
    lang = entry.get("instruction_lang")
    if lang is not None and not isinstance(lang, str):
        raise PredictionError(f"{where}: instruction_lang must be a string, got {type(lang).__name__}",
                              "write the data row's instruction_lang, e.g. \"en\"")
    matches = by_md5.get(md5, [])
    if lang:
        if (md5, lang) in by_pair:
            return by_pair[(md5, lang)], "response"
        if len(matches) == 1 and not matches[0][1]:
            return matches[0][0], "response"  # the data row has no instruction_lang: nothing to disagree with
        if matches:
            raise PredictionError(f"{where}: md5 {md5!r} with instruction_lang {lang!r} is not in the data (the data "
                                  f"has it as {', '.join(case_id for case_id, _ in matches[:4])})",
                                  "answer each row in its own instruction language; nothing is borrowed across "
                                  "instruction languages")
        raise PredictionError(f"{where}: md5 {md5!r} is not in the data",
                              "check that the predictions belong to this data (--data / --dataset)")
    if len(matches) > 1:
        raise PredictionError(f"{where}: md5 {md5!r} occurs {len(matches)} times in the data (instruction languages "
                              "differ) and the line has no instruction_lang",
                              "add the row's instruction_lang to the line, or write its case_id "
                              f"({matches[0][0]!r}, ...)")
    if not matches:
        raise PredictionError(f"{where}: md5 {md5!r} is not in the data",
                              "check that the predictions belong to this data (--data / --dataset)")
    return matches[0][0], "response"


def load_ifmt_predictions(path: Path, rows: list[dict], ignored_rows: list[dict] = ()) -> tuple[dict, int]:
    """({case_id: text or None}, number of lines) for the scored `rows`; lines for `ignored_rows`
    (outside a --limit) are accepted and left unscored. The shared reader checks each line; this
    module only finds its case_id."""
    by_md5, by_pair = _join_index(list(rows) + list(ignored_rows))
    return read_predictions(path, {row["case_id"] for row in rows}, {row["case_id"] for row in ignored_rows},
                            lambda entry, where: _case_id_of(entry, where, by_md5, by_pair), LINE_FORMS)
