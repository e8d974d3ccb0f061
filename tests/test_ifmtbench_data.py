"""The bundled IFMTBench set keeps its promises: current files, every reference passing its own hard
rules (as eval/ifmtbench/ reads them), the coverage the issue asks for, example predictions that
join in the original's format, and a manifest entry that identifies the set."""

from __future__ import annotations

import json
from collections import Counter

from eval.io.data import files_sha256
from eval.ifmtbench.predictions import load_ifmt_predictions
from eval.ifmtbench.rows import validate_ifmt_rows
from eval.ifmtbench.manifest import bundled_entry as build_ifmtbench_entry
from scripts import build_ifmtbench as builder

ROWS_SINGLE, ROWS_MULTI, PREDICTIONS = builder.build()
ROWS = ROWS_SINGLE + ROWS_MULTI


def ids(row: dict) -> list[str]:
    return [builder.LABEL_IDS[label] for label in row["class"]]


def test_files_are_current_and_every_reference_passes():
    assert builder.problems(ROWS_SINGLE, ROWS_MULTI) == []
    assert builder.main(["--check"]) == 0


def test_coverage():
    assert len(ROWS) >= 200
    assert all(len(ids(row)) == 1 for row in ROWS_SINGLE)
    assert {len(ids(row)) for row in ROWS_MULTI} == {2, 3, 4}
    assert {label for row in ROWS for label in ids(row)} == set(builder.LABELS)
    formats = {builder.data_format_of(row) for row in ROWS if "structured" in ids(row)}
    assert formats == set(builder.DATA_FORMATS)
    for field in ("origin_language", "target_language", "instruction_lang"):
        assert len({row[field] for row in ROWS}) >= 7, field
    md5s = Counter(row["md5"] for row in ROWS)
    repeated = [md5 for md5, n in md5s.items() if n > 1]
    assert repeated
    for md5 in repeated:  # a repeat is the same item in another instruction language, within one file
        group = [row for row in ROWS if row["md5"] == md5]
        assert len({row["instruction_lang"] for row in group}) == len(group)
        assert len({(row["output"], row["origin_text"], json.dumps(row["class"])) for row in group}) == 1
        assert len({row["input"] for row in group}) == len(group)
        assert len({id(rows) for rows in (ROWS_SINGLE, ROWS_MULTI) for row in rows if row["md5"] == md5}) == 1


def test_example_predictions_are_realistic():
    keys = {(row["md5"], row["instruction_lang"]) for row in ROWS}
    answered = [(p["md5"], p["instruction_lang"]) for p in PREDICTIONS]
    assert len(answered) == len(set(answered)) and set(answered) <= keys
    assert 1 <= len(keys) - len(answered) <= 5
    rates = builder.expected_pass_rates(ROWS, PREDICTIONS)
    for label_id, (n, passed) in rates.items():
        assert 0.6 <= passed / n < 1.0, label_id


def test_example_predictions_join_in_the_original_format():
    rows, warnings = validate_ifmt_rows([(f"row {number}", row) for number, row in enumerate(ROWS, 1)])
    assert warnings == []
    predictions, lines = load_ifmt_predictions(builder.PREDICTIONS_PATH, rows)
    assert lines == len(PREDICTIONS)
    assert set(predictions) <= {row["case_id"] for row in rows}
    repeated = [row["case_id"] for row in rows if ":" in row["case_id"]]
    assert repeated and all(case_id in predictions for case_id in repeated[:10])


def test_manifest_identifies_both_files_as_the_bundled_set():
    entry = build_ifmtbench_entry()
    paths = [builder.SINGLE_PATH, builder.MULTI_PATH]
    assert entry["sha256"] == files_sha256(paths)
    assert entry["n_instances"] == len(ROWS)
    assert "NOT the official" in entry["provenance"]
