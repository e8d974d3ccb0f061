"""The JSONL reader both data and predictions go through (SPEC §1, §6): what it accepts, what it
refuses (file, line, the key or the column, a hint), and that refusals keep their error type."""

from __future__ import annotations

import json

import pytest

from conftest import make_row, write_jsonl
from eval.io.data import load_rows_from_file as load_any_file, lone_surrogate, read_jsonl_objects
from eval.insttrans.rows import validate_rows


def load_rows_from_file(path):
    return load_any_file(path, validate_rows)
from eval.errors import DataError, PredictionError


def read(tmp_path, text: str | bytes, kind=DataError):
    path = tmp_path / "f.jsonl"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return read_jsonl_objects(path, kind=kind)


ACCEPTED = [
    ("one object", '{"a": 1}\n', [(1, {"a": 1})]),
    ("no final newline", '{"a": 1}', [(1, {"a": 1})]),
    ("U+2028 inside a string is not a line break", '{"a": "x\u2028y"}\n', [(1, {"a": "x\u2028y"})]),
    ("a surrogate pair escape is one character", '{"a": "\\ud83d\\ude00"}\n', [(1, {"a": "\U0001F600"})]),
    ("an escaped backslash before ud800 is text", '{"a": "\\\\ud800"}\n', [(1, {"a": "\\ud800"})]),
    ("the same key in two objects of a line", '{"a": {"k": 1}, "b": {"k": 2}}\n',
     [(1, {"a": {"k": 1}, "b": {"k": 2}})]),
    ("the same key on two lines", '{"k": 1}\n{"k": 2}\n', [(1, {"k": 1}), (2, {"k": 2})]),
    ("an ordinary escape", '{"a": "\\u00e9\\n"}\n', [(1, {"a": "é\n"})]),
    ("keys that differ only in case", '{"k": 1, "K": 2}\n', [(1, {"k": 1, "K": 2})]),
]


@pytest.mark.parametrize("name, text, expected", ACCEPTED, ids=[case[0] for case in ACCEPTED])
def test_the_reader_accepts(tmp_path, name, text, expected):
    assert read(tmp_path, text) == expected


REFUSED = [
    ("BOM", b'\xef\xbb\xbf{"a": 1}\n', "f.jsonl: the file starts with a UTF-8 byte-order mark", "without BOM"),
    ("bad UTF-8", b'{"a": 1}\n{"a": "\xff"}\n', "f.jsonl:2: not valid UTF-8", "save the file as UTF-8"),
    ("encoded surrogate bytes", b'{"a": "\xed\xa0\x80"}\n', "f.jsonl:1: not valid UTF-8", "UTF-8"),
    ("blank line", '{"a": 1}\n\n{"a": 2}\n', "f.jsonl:2: blank line", "remove blank lines"),
    ("not JSON", '{"a": 1}\nnope\n', "f.jsonl:2: not valid JSON (Expecting value at column 1)", "one JSON object"),
    ("nested too deeply", "[" * 100000 + "\n", "f.jsonl:1: the JSON is nested too deeply to read", "flat"),
    ("repeated key", '{"a": 1}\n{"case_id": "x", "prediction": "a", "prediction": "b"}\n',
     "f.jsonl:2: the key 'prediction' appears twice in one object", "write each key once"),
    ("repeated key in a nested object", '{"style": {"formality": "casual", "formality": "formal"}}\n',
     "f.jsonl:1: the key 'formality' appears twice in one object", "write each key once"),
    ("repeated key with the same value", '{"k": 1, "k": 1}\n', "f.jsonl:1: the key 'k' appears twice", "once"),
    ("lone high surrogate", '{"prediction": "\\ud800x"}\n',
     "f.jsonl:1: column 17: a lone surrogate \\ud800 in the string value at 'prediction', character 1 "
     "(valid JSON, not valid Unicode)", "write valid Unicode"),
    ("lone low surrogate, upper case", '{"a": "ok\\uDC00"}\n',
     "f.jsonl:1: column 10: a lone surrogate \\uDC00 in the string value at 'a', character 3", "valid Unicode"),
    ("high surrogate at the end of a string", '{"a": "x", "b": "\\ud83d"}\n',
     "column 18: a lone surrogate \\ud83d in the string value at 'b', character 1", "write valid Unicode"),
    ("high then high", '{"a": "\\ud83d\\ud83d\\ude00"}\n',
     "column 8: a lone surrogate \\ud83d in the string value at 'a', character 1", "valid Unicode"),
    ("high and low apart", '{"a": "\\ud83d \\ude00"}\n', "column 8: a lone surrogate \\ud83d", "valid Unicode"),
    ("in a key", '{"pr\\ud800ediction": "x"}\n',
     "column 5: a lone surrogate \\ud800 in the key 'pr\\ud800ediction', character 3", "valid Unicode"),
    ("in a nested value", '{"a": "x", "b": {"c": ["y", "z\\udfff"]}}\n',
     "column 31: a lone surrogate \\udfff in the string value at 'b.c[1]', character 2", "valid Unicode"),
    ("in a nested key", '{"a": [{"k\\udc00": 1}]}\n',
     "a lone surrogate \\udc00 in the key 'k\\udc00' inside 'a[0]', character 2", "valid Unicode"),
    ("a lone surrogate after a valid pair", '{"a": "\\ud83d\\ude00\\ud800"}\n',
     "column 20: a lone surrogate \\ud800 in the string value at 'a', character 2", "valid Unicode"),
]


@pytest.mark.parametrize("name, text, message, hint", REFUSED, ids=[case[0] for case in REFUSED])
def test_the_reader_refuses_with_file_line_and_hint(tmp_path, name, text, message, hint):
    with pytest.raises(DataError) as raised:
        read(tmp_path, text)
    assert message in raised.value.message
    assert hint in raised.value.hint


@pytest.mark.parametrize("text", ['{"a": 1, "a": 2}\n', '{"a": "\\ud800"}\n', "{\n"])
def test_a_refusal_has_the_callers_error_type(tmp_path, text):
    with pytest.raises(PredictionError):
        read(tmp_path, text, kind=PredictionError)


def test_an_unreadable_file_names_the_path(tmp_path):
    with pytest.raises(DataError, match="cannot read the file"):
        read_jsonl_objects(tmp_path / "absent.jsonl")


@pytest.mark.parametrize("line", ['{"a": "plain"}', '{"a": "\\ud83d\\ude00"}', '{"a": "\\\\ud800"}',
                                  '{"a": "\\\\\\\\ud800"}', '{"a": "\\u0041"}'])
def test_lone_surrogate_finds_none_in_valid_unicode(line):
    assert lone_surrogate(line, json.loads(line)) is None


def test_the_data_reader_refuses_a_repeated_key_in_a_row(tmp_path):
    line = json.dumps(make_row("d1"), ensure_ascii=False)
    path = tmp_path / "data.jsonl"
    path.write_text(line[:-1] + ', "case_id": "d2"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"data.jsonl:1: the key 'case_id' appears twice in one object"):
        load_rows_from_file(path)


def test_the_data_reader_refuses_a_lone_surrogate_in_a_row(tmp_path):
    good = json.dumps(make_row("d1"), ensure_ascii=False)
    bad = json.dumps(make_row("d2", reference="Hello \ud800"))  # json.dumps writes the escape as \ud800
    path = tmp_path / "data.jsonl"
    path.write_text(good + "\n" + bad + "\n", encoding="utf-8")
    with pytest.raises(DataError) as raised:
        load_rows_from_file(path)
    assert "data.jsonl:2: column" in raised.value.message
    assert "a lone surrogate \\ud800 in the string value at 'reference', character 7" in raised.value.message


def test_valid_rows_with_escapes_still_load(tmp_path):
    rows = [make_row("e1", reference="Hi \U0001F600"), make_row("e2", source_text="第一句\u2028第二句")]
    path = write_jsonl(tmp_path / "data.jsonl", rows)
    escaped = tmp_path / "escaped.jsonl"
    escaped.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")  # \\u escapes only
    assert load_rows_from_file(path) == load_rows_from_file(escaped) == rows


@pytest.mark.parametrize("text, first", [
    ('{"a": 1}\n{"b": 2}\nbroken\n', {"a": 1}),    # only the first line is read
    ('{"a": 1}', {"a": 1}),
    ("", None),
    ("\n{}\n", None),                               # a blank first line
    ("nope\n", None),
    ('{"a": 1, "a": 2}\n', None),
    (b'\xef\xbb\xbf{"a": 1}\n', None),
    (b'{"a": "\xff"}\n', None),
])
def test_first_jsonl_object_reads_the_first_line_or_gives_none(tmp_path, text, first):
    from eval.io.data import first_jsonl_object

    path = tmp_path / "f.jsonl"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    assert first_jsonl_object(path) == first
    assert first_jsonl_object(tmp_path / "absent.jsonl") is None


def test_a_file_read_through_datasets_is_refused_the_same_way(tmp_path):
    """`--dataset FILE` goes through `datasets`, which keeps one of two repeated keys silently and
    fails on a lone surrogate without a line: the same refusals as `--data` come first."""
    from eval.io.data import refuse_repeated_keys_and_lone_surrogates
    from eval.inputs.loading import load_rows_from_dataset as load_any_dataset

    def load_rows_from_dataset(name):
        return load_any_dataset(name, validate_rows)

    line = json.dumps(make_row("d1"), ensure_ascii=False)
    repeated = tmp_path / "repeated.jsonl"
    repeated.write_text(line + "\n" + line[:-1] + ', "domain": "评论"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"repeated.jsonl:2: the key 'domain' appears twice in one object"):
        load_rows_from_dataset(str(repeated))
    surrogate = tmp_path / "surrogate.jsonl"
    surrogate.write_text(json.dumps(make_row("d2", reference="x\ud800")) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"surrogate.jsonl:1: column \d+: a lone surrogate \\ud800 in the string "
                                        r"value at 'reference', character 2"):
        refuse_repeated_keys_and_lone_surrogates(surrogate)
    other = tmp_path / "other.jsonl"
    other.write_text(line + "\n\nnot json\n", encoding="utf-8")  # left to datasets, as before
    assert refuse_repeated_keys_and_lone_surrogates(other) is None


def test_rows_of_one_file_share_their_keys_and_short_values(tmp_path):
    """100,000 rows hold one copy of each key and short value (issue 34: 1.2 KB of a 3.1 KB row);
    the texts stay each row's own, and what the rows hold is unchanged."""
    long_text = "a translation longer than the shared length of twenty-four characters"
    line = {"case_id_x": "row", "scenario": "academic", "constraint_ids": ["term_cross_sentence", long_text],
            "style": {"formality": "formal"}, "reference": long_text}
    rows = read(tmp_path, "".join(json.dumps(dict(line, case_id_x=f"row-{n}")) + "\n" for n in range(2)))
    (_, first), (_, second) = rows
    assert [value for _, value in rows] == [dict(line, case_id_x="row-0"), dict(line, case_id_x="row-1")]
    assert all(a is b for a, b in zip(first, second))  # the keys
    assert first["scenario"] is second["scenario"]
    assert first["constraint_ids"][0] is second["constraint_ids"][0]
    assert next(iter(first["style"])) is next(iter(second["style"]))
    assert first["style"]["formality"] is second["style"]["formality"]
    assert first["reference"] is not second["reference"]  # a long text is no id: not kept in the intern table
    assert first["constraint_ids"][1] is not second["constraint_ids"][1]
