"""IFMTBench rows: the release schema, case_ids, validation, recognition, the model input (SPEC §14).

Errors are what would crash the original scorer or mislead a run (a meta_data that is not an
object, a candidate or asset that is not a string, an unknown label, an md5 repeated without
instruction_lang); warnings are what the original silently scores 0 (an unknown data_format,
source_chunks that disagree with the source's split, a multi-candidate term that the reference
does not use). A row is scored as the original scores it either way.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from eval.errors import DataError
from eval.ifmtbench.labels import DATA_FORMATS, LABELS
from eval.ifmtbench.rules import chunk_count, data_format_of, parse_term_dict, term_candidates
from eval.io.paths import bundle_root
from eval.scoring.substrings import occurring

ROOT = bundle_root()  # the checkout, or the installed share folder (eval/io/paths.py)
RECOGNISED_BY = ("md5", "class", "input", "output", "origin_text")
REQUIRED_STRINGS = ("md5", "input", "output", "origin_text")
OPTIONAL_STRINGS = ("instruction_lang", "origin_language", "target_language")  # case_ids and breakdowns read them
RELEASE_FILES = ("test_single_constraint.jsonl", "test_multi_constraint.jsonl")
RELEASE_ROW_COUNTS = {"test_single_constraint.jsonl": 4506, "test_multi_constraint.jsonl": 2838}
# The release files' bytes and SHA-256 as a third-party port pinned them at Hy-MT2 ff1903e (RELEASE-FACTS
# §0, added 2026-12-06): the release is recognised by them as well as by its row counts.
RELEASE_FILE_SHA256 = {
    "test_single_constraint.jsonl": (8478197, "ffaab0947722711e5a7d0c47d6f7931868164ad9a068c253acc7ba909defc691"),
    "test_multi_constraint.jsonl": (14066944, "c9fb393c49880e688e58515b215e1e586f9b72d143a404546f20de4a01a3e17f"),
}
SCHEMA_HINT = "fix the row; docs/ifmtbench.md, 'The row schema', lists every field"


def looks_like_ifmtbench(row: object) -> bool:
    """An IFMTBench row carries md5, class, input, output and origin_text."""
    return isinstance(row, dict) and all(name in row for name in RECOGNISED_BY)


def dataset_files(directory: Path) -> list[Path] | None:
    """The release's data files under `directory/data/` (or `directory` itself), single first;
    None when the folder holds neither file."""
    directory = Path(directory)
    for folder in (directory / "data", directory):
        found = [folder / name for name in RELEASE_FILES if (folder / name).is_file()]
        if found:
            return found
    return None


def release_by_rows(rows: list[dict]) -> bool:
    """Two data files with exactly the release's row counts (4,506 single, 2,838 multi): the
    release publishes no checksum, so this is how it is known (SPEC §14)."""
    counts = Counter(row["data_file"] for row in rows)
    return sorted(counts.values()) == sorted(RELEASE_ROW_COUNTS.values())


def labels_of(row: dict) -> list[str]:
    """The row's class labels: a list as given, a bare string as one label."""
    labels = row["class"]
    return [labels] if isinstance(labels, str) else list(labels)


def split_where(where: str) -> tuple[str, str]:
    """("file", "line") of a loader's `path:line` location ("" for the line of a hub row)."""
    path, _, line = where.rpartition(":")
    return (path, line) if line.isdigit() else (where, "")


def validate_ifmt_row(row: object, where: str) -> list[str]:
    """Raise DataError naming `where`, the field and the fix when the row would crash the original
    scorer or mislead the run; return the row's data warnings (what the original scores 0)."""

    def fail(rule: str, hint: str = SCHEMA_HINT) -> None:
        raise DataError(f"{where}: {rule}", hint)

    if not isinstance(row, dict):
        fail(f"a data row must be a JSON object, got {type(row).__name__}")
    if "constraint_ids" in row and "md5" not in row:
        fail("this is an InstTrans-Bench row, not an IFMTBench row", "drop --benchmark ifmtbench")
    for name in REQUIRED_STRINGS:
        if not isinstance(row.get(name), str):
            fail(f"field {name!r} must be a string" if name in row else f"field {name!r} is missing")
    if not row["md5"].strip():
        fail("md5 is empty", "every row needs its md5 (the case_id and the prediction join use it)")
    for name in OPTIONAL_STRINGS:
        if row.get(name) is not None and not isinstance(row[name], str):
            fail(f"field {name!r} must be a string, got {type(row[name]).__name__}")
    if "class" not in row:
        fail("field 'class' is missing", "give the row's labels as a list, e.g. [\"机器翻译-布局保留翻译\"]")
    labels = row["class"]
    if isinstance(labels, str):
        labels = [labels]
    if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
        fail("class must be a list of label strings (or one label string)")
    if not labels:
        fail("class is empty: the row has no constraint to score", "give at least one label")
    for label in labels:
        if label not in LABELS:
            fail(f"unknown label {label!r}", "use one of: " + ", ".join(LABELS))
    if len(set(labels)) != len(labels):
        fail("class repeats a label", "each label appears once per row")

    meta = row.get("meta_data", {})
    if not isinstance(meta, dict):
        fail(f"meta_data must be an object, got {type(meta).__name__}",
             'write meta_data as {"data_format": ..., "primary_delimiter": ..., "source_chunks": [...], '
             '"extracted_assets": [...]}')
    # Each field is checked where a rule reads it (the original reads it only there).
    ids = {LABELS[label][0] for label in labels}
    delimiter = meta.get("primary_delimiter")
    if "layout" in ids and delimiter is not None and not isinstance(delimiter, str):
        fail(f"meta_data.primary_delimiter must be a string, got {type(delimiter).__name__}")
    if "layout" in ids and "source_chunks" in meta and not isinstance(meta["source_chunks"], list):
        fail(f"meta_data.source_chunks must be a list, got {type(meta['source_chunks']).__name__}",
             "list the source's chunks (only their number is used)")
    assets = meta.get("extracted_assets")
    if ids & {"inline_code", "code_tag"} and "extracted_assets" in meta:
        if assets is None:  # the original iterates it and crashes
            fail("meta_data.extracted_assets is null",
                 "write the assets as a list of strings ([] when there is none), or leave the key out")
        if not isinstance(assets, list):
            fail(f"meta_data.extracted_assets must be a list of strings, got {type(assets).__name__}")
        for asset in assets:
            if not isinstance(asset, str):
                fail(f"meta_data.extracted_assets holds {json.dumps(asset)[:40]}, not a string",
                     "write every asset as the exact string the response must contain")
    for owner, value in (("data_format", row.get("data_format")), ("meta_data.data_format", meta.get("data_format"))):
        if "structured" in ids and value is not None and not isinstance(value, str):
            fail(f"{owner} must be a string, got {type(value).__name__}",
                 "use one of: " + ", ".join(DATA_FORMATS))
    terms_value = row.get("term_dict") if "glossary" in ids else None
    terms = parse_term_dict(terms_value) if terms_value is not None else None
    if terms_value is not None and not isinstance(terms_value, (str, dict)):
        fail(f"term_dict must be an object (or a JSON string of one), got {type(terms_value).__name__}")
    for term, target in (terms or {}).items():
        for candidate in term_candidates(target):
            if not isinstance(candidate, str):
                fail(f"term_dict[{term!r}] holds {json.dumps(candidate, ensure_ascii=False)[:40]}, not a string",
                     "give each term a target string or a list of candidate strings")
    return row_warnings(row, labels, meta, terms)


def row_warnings(row: dict, labels: list[str], meta: dict, terms: dict | None) -> list[str]:
    """What the original scores 0 without a word, on a row that meets the schema."""
    ids = {LABELS[label][0] for label in labels}
    warnings = []
    if "structured" in ids:
        data_format = data_format_of(row)
        if data_format not in DATA_FORMATS:
            warnings.append(f"data_format {data_format!r} is not one of {', '.join(DATA_FORMATS)}: the structured "
                            "rule fails for every response, as in the original scorer")
    if "layout" in ids:
        delimiter = meta.get("primary_delimiter") or ""
        if not delimiter:
            warnings.append("meta_data.primary_delimiter is empty: the layout rule fails for every response, as in "
                            "the original scorer")
        else:
            expected = len(meta.get("source_chunks") or [])
            source = chunk_count(row["origin_text"], delimiter)
            if source != expected:
                warnings.append(f"origin_text splits into {source} chunks on {delimiter!r} but source_chunks has "
                                f"{expected}: the layout rule fails for every response, as in the original scorer")
    if "glossary" in ids:
        if terms is None:
            warnings.append("term_dict is missing, empty or not an object: the glossary rule fails for every response "
                            "(the Judge fallback decides), as in the original scorer")
        elif row["output"]:
            # `c in row["output"]` for every candidate of a multi-candidate term, the reference read once
            several = [term_candidates(target) for target in terms.values() if len(term_candidates(target)) > 1]
            in_output = (occurring((c for candidates in several for c in candidates if isinstance(c, str) and c),
                                   row["output"]) if isinstance(row["output"], str) else set())
            for term, target in terms.items():
                candidates = term_candidates(target)
                if len(candidates) > 1 and not any(
                        c and (c in in_output if isinstance(c, str) and isinstance(row["output"], str)
                               else c in row["output"]) for c in candidates):
                    warnings.append(f"term {term!r} has {len(candidates)} candidates and the reference uses none: the "
                                    "glossary rule fails for every response (the Judge fallback decides), as in the "
                                    "original scorer")
    return warnings


def validate_ifmt_rows(located_rows: list[tuple[str, object]]) -> tuple[list[dict], list[dict]]:
    """(rows, warnings). Each row is validated, then given its case_id: md5, or
    md5:instruction_lang for every row whose md5 occurs more than once (SPEC §14)."""
    from eval.io.data import data_warning

    checked = []
    for where, row in located_rows:
        checked.append((where, row, validate_ifmt_row(row, where)))
    md5_count = Counter(row["md5"] for _, row, _ in checked)
    seen: dict[str, str] = {}
    rows, warnings = [], []
    for where, row, messages in checked:
        md5 = row["md5"]
        case_id = md5
        if md5_count[md5] > 1:
            lang = row.get("instruction_lang")
            if not lang:
                first = next(w for w, r, _ in checked if r["md5"] == md5)
                raise DataError(f"{where}: md5 {md5!r} occurs {md5_count[md5]} times (first at {first}) and this row "
                                "has no instruction_lang, so its case_id and its predictions cannot be told apart",
                                "give every row of a repeated md5 its instruction_lang")
            case_id = f"{md5}:{lang}"
        if case_id in seen:
            raise DataError(f"{where}: duplicate case_id {case_id!r} (first at {seen[case_id]})",
                            "a repeated md5 needs a different instruction_lang on each row")
        seen[case_id] = where
        labels = labels_of(row)
        ids = [LABELS[label][0] for label in labels]
        file_name, _ = split_where(where)
        rows.append({**row, "case_id": case_id, "constraint_ids": ids, "data_file": Path(file_name).name})
        warnings += [data_warning(case_id, where, message) for message in messages]
    return rows, warnings


def model_input(row: dict) -> dict:
    """`{case_id, messages}`: the row's `input` as one user message (the whole prompt the model sees)."""
    return {"case_id": row["case_id"], "messages": [{"role": "user", "content": row["input"]}]}


def data_format_group(row: dict) -> str:
    """The structured row's data_format as the breakdown names it (rows without one: "-")."""
    value = data_format_of(row)
    return value if isinstance(value, str) and value else "-"
