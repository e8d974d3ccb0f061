"""Loading and validating data rows (SPEC §1, §5): what loads, and every way a row is refused."""

from __future__ import annotations

import json

import pytest

from conftest import make_row, write_jsonl
from eval.io.data import load_rows_from_file as load_any_file
from eval.inputs.loading import load_rows_from_dataset as load_any_dataset
from eval.insttrans.rows import drop_unset_optionals, extract_prompt, render_prompt, validate_rows


def load_rows_from_file(path):
    return load_any_file(path, validate_rows)


def load_rows_from_dataset(name):
    return load_any_dataset(name, validate_rows, drop_unset_optionals)
from eval.errors import DataError


def test_prompt_round_trip_keeps_unusual_line_breaks():
    source = "第一行\u2028仍是第一行\r\n第二行\n\n  缩进的第三行\n"
    constraints = ["保持原文排版：换行与缩进不变", "译文语体：正式"]
    prompt = render_prompt("zh", "en", constraints, source)
    assert extract_prompt(prompt) == (constraints, source)


def test_extraction_takes_the_first_consecutive_numbered_block():
    prompt = "说明\n1. 甲\n2. 乙\n4. 丙\n原文：\nabc\n原文：\nxyz"
    assert extract_prompt(prompt) == (["甲", "乙"], "abc\n原文：\nxyz")


def test_extraction_without_source_marker_returns_none():
    assert extract_prompt("1. 甲\n没有原文")[1] is None


def test_a_valid_file_loads_in_order(tmp_path):
    rows = [make_row("a"), make_row("b", target_lang="ja", reference="こんにちは")]
    loaded = load_rows_from_file(write_jsonl(tmp_path / "d.jsonl", rows))
    assert [row["case_id"] for row in loaded] == ["a", "b"]


def _syllable_row(**fields):
    base = dict(constraints=["以相同的 JSON 对象返回", "字幕时长：时间越长译文越长"],
                constraint_ids=["format_preserve", "syllable_order"], scenario="ugc_subtitle", domain="UGC字幕",
                source_text='{"1": "你好", "2": "再见"}', reference='{"1": "Hi", "2": "Goodbye"}',
                duration_s=[1.0, 2.0], batch_size=2)
    base.update(fields)
    return make_row(**base)


# What the release schema guarantees (SPEC §1): types, required fields, alignment, known ids and
# codes. Every further check is a data warning (tests/test_data_warnings.py).
BROKEN_ROWS = [
    ("field 'reference' is missing", lambda: {k: v for k, v in make_row().items() if k != "reference"}),
    ("field 'case_id' must be a string", lambda: make_row(case_id=7)),
    ("case_id is empty", lambda: make_row(case_id="  ")),
    ("target_lang 'xx' is not one of the 22 codes", lambda: {**make_row(), "target_lang": "xx"}),
    ("scenario 'chat' is unknown", lambda: make_row(scenario="chat")),
    ("domain '新闻' is unknown", lambda: make_row(domain="新闻")),
    ("constraints has 1 lines but constraint_ids has 2 ids",
     lambda: make_row(constraint_ids=["format_preserve", "layout_break"])),
    ("constraint id 'tone' is unknown", lambda: make_row(constraint_ids=["tone"])),
    ("constraints must be a list of strings", lambda: {**make_row(), "constraints": "保持原文格式"}),
    ("constraint_ids repeats an id", lambda: make_row(constraints=["保持原文格式", "保持格式"],
                                                      constraint_ids=["format_preserve", "format_preserve"])),
    ("duration_s is required on a syllable_order row",
     lambda: {k: v for k, v in _syllable_row().items() if k != "duration_s"}),
    ("duration_s must be a list of numbers", lambda: _syllable_row(duration_s="1.0, 2.0")),
    ("every duration must be a number", lambda: _syllable_row(duration_s=[1.0, True])),
    ("every duration must be a number", lambda: _syllable_row(duration_s=[1.0, "2"])),
    ("batch_size must be an integer", lambda: make_row(batch_size=True)),
    ("batch_size must be an integer", lambda: make_row(batch_size=2.0)),
    ("style must be an object", lambda: make_row(style="casual")),
]


@pytest.mark.parametrize("expected, build", BROKEN_ROWS, ids=[case[0][:40] for case in BROKEN_ROWS])
def test_a_broken_row_stops_the_load_with_its_line_and_rule(tmp_path, expected, build):
    path = write_jsonl(tmp_path / "d.jsonl", [make_row("ok"), build()])
    with pytest.raises(DataError) as error:
        load_rows_from_file(path)
    assert f"{path}:2:" in str(error.value)
    assert expected in str(error.value)


@pytest.mark.parametrize("content, expected", [
    (b"\xef\xbb\xbf" + json.dumps(make_row()).encode(), "byte-order mark"),
    (json.dumps(make_row()).encode() + b"\n\n" + json.dumps(make_row("b")).encode(), ":2: blank line"),
    (b"{not json}\n", ":1: not valid JSON"),
    (b"[1, 2]\n", ":1: a data row must be a JSON object"),
    (b"", "has no rows"),
    (b"\xff\xfe\n", ":1: not valid UTF-8"),
])
def test_a_broken_file_is_refused_with_its_line(tmp_path, content, expected):
    path = tmp_path / "d.jsonl"
    path.write_bytes(content)
    with pytest.raises(DataError, match=expected.replace("(", r"\(")):
        load_rows_from_file(path)


def test_duplicate_case_ids_name_both_lines(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [make_row("same"), make_row("other"), make_row("same")])
    with pytest.raises(DataError, match=r"d.jsonl:3: duplicate case_id 'same' \(first at .*d.jsonl:1\)"):
        load_rows_from_file(path)


def test_the_datasets_path_loads_a_local_file_and_drops_filled_in_nulls(tmp_path):
    rows = [make_row("a"), _syllable_row(case_id="b", style={"formality": "casual"})]
    path = write_jsonl(tmp_path / "test.jsonl", rows)
    loaded = load_rows_from_dataset(str(path))
    assert loaded[0] == rows[0]  # no duration_s/batch_size/style filled in as None
    assert loaded[1]["duration_s"] == [1.0, 2.0] and loaded[1]["style"] == {"formality": "casual"}


def test_the_datasets_path_loads_a_local_dataset_directory(tmp_path):
    write_jsonl(tmp_path / "test.jsonl", [make_row("a"), make_row("b")])
    assert [row["case_id"] for row in load_rows_from_dataset(str(tmp_path))] == ["a", "b"]


def test_the_datasets_path_validates_rows_with_their_index(tmp_path):
    write_jsonl(tmp_path / "test.jsonl", [make_row("a"), {**make_row("b"), "scenario": "chat"}])
    with pytest.raises(DataError, match=r"\[test\]\[1\]: scenario 'chat' is unknown"):
        load_rows_from_dataset(str(tmp_path))


def test_a_dataset_path_that_does_not_exist_is_a_clear_error(tmp_path):
    with pytest.raises(DataError, match="the path does not exist"):
        load_rows_from_dataset(str(tmp_path / "no-such-dataset"))
