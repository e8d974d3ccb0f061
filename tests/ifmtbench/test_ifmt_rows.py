"""IFMTBench rows and predictions (SPEC §14): validation errors and warnings, case_ids, the
model input, recognition, and the prediction join in both formats."""

from __future__ import annotations

import json

import pytest

import prepare_inputs
from eval.errors import DataError, PredictionError
from eval.ifmtbench.predictions import load_ifmt_predictions
from eval.ifmtbench.rows import dataset_files, looks_like_ifmtbench, model_input, release_by_rows, validate_ifmt_rows
from tests.conftest import make_row, write_jsonl
from tests.ifmtbench.helpers import LABEL, ifmt_row


def validate(*rows):
    return validate_ifmt_rows([(f"data.jsonl:{number}", row) for number, row in enumerate(rows, 1)])


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------

ERRORS = [
    ("meta_data not an object", {"meta_data": ["x"]}, "meta_data must be an object"),
    ("meta_data null", {"meta_data": None}, "meta_data must be an object"),
    ("a non-string asset", {"class": [LABEL["inline_code"]], "meta_data": {"extracted_assets": ["ok", 3]}},
     "extracted_assets holds 3"),
    ("assets as a string", {"class": [LABEL["code_tag"]], "meta_data": {"extracted_assets": "`x`"}},
     "extracted_assets must be a list"),
    ("assets null (inline_code)", {"class": [LABEL["inline_code"]], "meta_data": {"extracted_assets": None}},
     "meta_data.extracted_assets is null"),
    ("assets null (code_tag)", {"class": [LABEL["code_tag"]], "meta_data": {"extracted_assets": None}},
     "meta_data.extracted_assets is null"),
    ("source_chunks not a list", {"meta_data": {"source_chunks": 2}}, "source_chunks must be a list"),
    ("delimiter not a string", {"meta_data": {"primary_delimiter": 1}}, "primary_delimiter must be a string"),
    ("a non-string candidate", {"class": [LABEL["glossary"]], "term_dict": {"a": ["b", 1]}}, "term_dict['a'] holds 1"),
    ("a null candidate", {"class": [LABEL["glossary"]], "term_dict": {"a": None}}, "term_dict['a'] holds null"),
    ("a nested candidate list", {"class": [LABEL["glossary"]], "term_dict": {"a": [["b"]]}}, "not a string"),
    ("a non-string candidate inside a JSON-string term_dict", {"class": [LABEL["glossary"]], "term_dict": '{"a": 5}'},
     "term_dict['a'] holds 5"),
    ("term_dict of another type", {"class": [LABEL["glossary"]], "term_dict": 5}, "term_dict must be an object"),
    ("an unknown label", {"class": ["机器翻译-别的"]}, "unknown label '机器翻译-别的'"),
    ("an empty class", {"class": []}, "class is empty"),
    ("a repeated label", {"class": [LABEL["layout"], LABEL["layout"]]}, "class repeats a label"),
    ("class not a list", {"class": 3}, "class must be a list"),
    ("md5 missing", {"md5": None}, "'md5' must be a string"),
    ("input not a string", {"input": ["x"]}, "'input' must be a string"),
    ("data_format a list", {"class": [LABEL["structured"]], "data_format": ["JSON"]}, "data_format must be a string"),
    ("instruction_lang not a string", {"instruction_lang": 7}, "'instruction_lang' must be a string"),
]


@pytest.mark.parametrize("name, change, message", ERRORS, ids=[c[0] for c in ERRORS])
def test_a_row_that_would_crash_or_mislead_is_an_error_naming_file_and_line(name, change, message):
    broken = ifmt_row("m2") | change
    if change.get("md5", "") is None:
        del broken["md5"]
        message = "'md5' is missing"
    with pytest.raises(DataError) as caught:
        validate(ifmt_row("m1"), broken)
    assert "data.jsonl:2" in str(caught.value) and message in str(caught.value)
    assert caught.value.hint


def test_a_field_no_label_of_the_row_reads_is_not_checked():
    """The original reads each field only for its label; a row is refused only for what its labels read."""
    rows, _ = validate(ifmt_row("m1", ids=("style",), term_dict={"a": 5}, data_format=["x"],
                                meta_data={"extracted_assets": [1], "source_chunks": 3, "primary_delimiter": 2},
                                selected_style={"tone": "formal"}))
    assert rows[0]["constraint_ids"] == ["style"]


def test_an_md5_repeated_without_instruction_lang_is_an_error():
    with pytest.raises(DataError, match=r"data.jsonl:2: md5 'm1' occurs 2 times .* no instruction_lang"):
        validate(ifmt_row("m1", instruction_lang="en"), ifmt_row("m1", instruction_lang=None))
    with pytest.raises(DataError, match="duplicate case_id 'm1:en'"):
        validate(ifmt_row("m1", instruction_lang="en"), ifmt_row("m1", instruction_lang="en"))


WARNINGS = [
    ("unknown data_format", {"class": [LABEL["structured"]], "data_format": "YAML"}, "data_format 'YAML'"),
    ("top-level null data_format wins", {"class": [LABEL["structured"]], "data_format": None}, "data_format None"),
    ("source_chunks disagree with the source split", {"meta_data": {"primary_delimiter": "\n", "source_chunks": ["a"]}},
     "splits into 2 chunks"),
    ("an empty delimiter on a layout row", {"meta_data": {"primary_delimiter": "", "source_chunks": []}},
     "primary_delimiter is empty"),
    ("a multi-candidate term the reference does not use",
     {"class": [LABEL["glossary"]], "term_dict": {"line": ["Zeile", "Linie"]}}, "term 'line' has 2 candidates"),
    ("no term_dict on a glossary row", {"class": [LABEL["glossary"]], "term_dict": {}}, "term_dict is missing"),
    ("an unparsable term_dict string", {"class": [LABEL["glossary"]], "term_dict": "{oops"}, "term_dict is missing"),
]


@pytest.mark.parametrize("name, change, message", WARNINGS, ids=[c[0] for c in WARNINGS])
def test_what_the_original_scores_zero_is_a_warning(name, change, message):
    rows, warnings = validate(ifmt_row("m1") | change)
    assert len(rows) == 1
    assert any(message in warning["message"] for warning in warnings), warnings
    assert warnings[0]["case_id"] == "m1" and warnings[0]["where"] == "data.jsonl:1"


def test_a_clean_row_has_no_warning_and_a_bare_string_class_is_one_label():
    rows, warnings = validate(ifmt_row("m1") | {"class": LABEL["layout"]})
    assert warnings == [] and rows[0]["constraint_ids"] == ["layout"]


def test_a_json_string_term_dict_with_a_used_candidate_is_clean():
    row = ifmt_row("m1", ids=("glossary",), term_dict=json.dumps({"line": ["line", "row"]}), output="First line")
    assert validate(row)[1] == []


# ---------------------------------------------------------------------------------------------
# case_ids, model input, recognition, files
# ---------------------------------------------------------------------------------------------

def test_case_ids_are_md5_or_md5_and_instruction_lang_when_the_md5_repeats():
    rows, _ = validate(ifmt_row("a", instruction_lang="zh"), ifmt_row("b", instruction_lang="en"),
                       ifmt_row("a", instruction_lang="ja"))
    assert [row["case_id"] for row in rows] == ["a:zh", "b", "a:ja"]
    assert rows[0]["data_file"] == "data.jsonl"


def test_the_model_input_is_the_input_field_only():
    row = validate(ifmt_row("m1"))[0][0]
    assert model_input(row) == {"case_id": "m1", "messages": [{"role": "user", "content": row["input"]}]}


def test_recognition_needs_the_five_fields():
    assert looks_like_ifmtbench(ifmt_row())
    assert not looks_like_ifmtbench({k: v for k, v in ifmt_row().items() if k != "origin_text"})
    assert not looks_like_ifmtbench(make_row())


def test_dataset_files_finds_the_release_files_under_data(tmp_path):
    (tmp_path / "data").mkdir()
    for name in ("test_multi_constraint.jsonl", "test_single_constraint.jsonl"):
        (tmp_path / "data" / name).write_text("{}\n")
    assert [path.name for path in dataset_files(tmp_path)] == ["test_single_constraint.jsonl",
                                                               "test_multi_constraint.jsonl"]
    assert dataset_files(tmp_path / "data") is not None
    assert dataset_files(tmp_path / "nothing") is None


def test_the_release_is_known_by_its_two_row_counts():
    single = [{"data_file": "test_single_constraint.jsonl"}] * 4506
    multi = [{"data_file": "test_multi_constraint.jsonl"}] * 2838
    assert release_by_rows(single + multi)
    assert not release_by_rows(single + multi[:-1])
    assert not release_by_rows(single)


def test_repeated_data_flags_concatenate_files_and_prepare_inputs_exports_them(tmp_path):
    first = write_jsonl(tmp_path / "single.jsonl", [ifmt_row("a")])
    second = write_jsonl(tmp_path / "multi.jsonl", [ifmt_row("b", ids=("layout", "style"))])
    output = tmp_path / "inputs.jsonl"
    assert prepare_inputs.main(["--data", str(first), "--data", str(second), "--output", str(output)]) == 0
    exported = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [line["case_id"] for line in exported] == ["a", "b"]
    assert all(set(line) == {"case_id", "messages"} for line in exported)


# ---------------------------------------------------------------------------------------------
# The prediction join
# ---------------------------------------------------------------------------------------------

@pytest.fixture
def joined_rows():
    rows, _ = validate(ifmt_row("a", instruction_lang="zh"), ifmt_row("a", instruction_lang="en"),
                       ifmt_row("b", instruction_lang="en"), ifmt_row("c", instruction_lang=None))
    return rows


def load(tmp_path, rows, lines, ignored=()):
    return load_ifmt_predictions(write_jsonl(tmp_path / "p.jsonl", lines), rows, list(ignored))


def test_both_formats_join_in_one_file(tmp_path, joined_rows):
    predictions, count = load(tmp_path, joined_rows, [
        {"case_id": "a:zh", "prediction": "zh answer"},
        {"md5": "a", "response": "en answer", "instruction_lang": "en"},
        {"md5": "b", "response": "b answer"},
        {"md5": "c", "response": "c answer", "instruction_lang": "fr"},  # the row has no instruction_lang
    ])
    assert count == 4
    assert predictions == {"a:zh": "zh answer", "a:en": "en answer", "b": "b answer", "c": "c answer"}


def test_nothing_is_borrowed_across_instruction_languages(tmp_path, joined_rows):
    predictions, _ = load(tmp_path, joined_rows, [{"md5": "a", "response": "zh", "instruction_lang": "zh"}])
    assert predictions == {"a:zh": "zh"}  # a:en stays missing


@pytest.mark.parametrize("line, message", [
    ({"md5": "a", "response": "x"}, "md5 'a' occurs 2 times"),
    ({"md5": "a", "response": "x", "instruction_lang": "ja"}, "instruction_lang 'ja' is not in the data"),
    ({"md5": "b", "response": "x", "instruction_lang": "zh"}, "instruction_lang 'zh' is not in the data"),
    ({"md5": "z", "response": "x"}, "md5 'z' is not in the data"),
    ({"md5": "b"}, "has no 'response' field"),
    ({"md5": "b", "response": {"x": 1}}, "is a JSON dict"),
    ({"response": "x"}, "has neither case_id nor md5"),
    ({"case_id": "a", "prediction": "x"}, "case_id 'a' is not in the data"),
    ({"case_id": 5, "prediction": "x"}, "has a case_id of type int"),
    ({"md5": 5, "response": "x"}, "has an md5 of type int"),
    ({"md5": "b", "response": "x", "instruction_lang": 3}, "instruction_lang must be a string"),
    ([1], "must be a JSON object"),
])
def test_a_line_that_cannot_join_is_an_error_naming_the_line(tmp_path, joined_rows, line, message):
    with pytest.raises(PredictionError) as caught:
        load(tmp_path, joined_rows, [{"case_id": "b", "prediction": "ok"} if line != {"md5": "b"} else
                                     {"case_id": "c", "prediction": "ok"}, line])
    assert "p.jsonl:2" in str(caught.value) and message in str(caught.value)


def test_two_lines_for_one_case_in_different_formats_are_a_duplicate(tmp_path, joined_rows):
    with pytest.raises(PredictionError, match=r"p.jsonl:2: duplicate case_id 'b' \(first at line 1\)"):
        load(tmp_path, joined_rows, [{"case_id": "b", "prediction": "x"}, {"md5": "b", "response": "y"}])


def test_null_and_empty_responses_are_kept_as_missing_and_ignored_rows_are_accepted(tmp_path, joined_rows):
    scored, ignored = joined_rows[:2], joined_rows[2:]
    predictions, _ = load(tmp_path, scored, [{"md5": "a", "response": None, "instruction_lang": "zh"},
                                             {"md5": "a", "response": "", "instruction_lang": "en"},
                                             {"md5": "b", "response": "past the limit"}], ignored)
    assert predictions == {"a:zh": None, "a:en": ""}
