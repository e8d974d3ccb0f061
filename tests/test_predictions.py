"""The predictions reader and the wrapper diagnostics (SPEC §6), at the unit level and through the
CLI: every error names the file and line, the text is kept exactly, diagnostics count but never
score."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import make_row, write_jsonl
from eval.errors import PredictionError
from eval.inputs.predictions import DIAGNOSTICS, is_missing, load_predictions, predictions_block, wrapper_diagnostics

ROOT = Path(__file__).resolve().parent.parent


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# --- load_predictions -----------------------------------------------------------------------

def test_the_reader_returns_every_known_prediction_exactly_and_counts_lines(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [
        {"case_id": "a", "prediction": "  spaced \n", "model": "ignored"},
        {"case_id": "b", "prediction": None},
        {"case_id": "c", "prediction": ""},
    ])
    assert load_predictions(path, {"a", "b", "c", "d"}) == ({"a": "  spaced \n", "b": None, "c": ""}, 3)


def test_predictions_of_ignored_rows_are_accepted_and_left_out(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "late", "prediction": "x"},
                                              {"case_id": "a", "prediction": "y"}])
    assert load_predictions(path, {"a"}, ignored_ids={"late"}) == ({"a": "y"}, 2)


def test_a_file_of_ignored_rows_only_is_still_a_file_with_predictions(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "late", "prediction": "x"}])
    assert load_predictions(path, {"a"}, ignored_ids={"late"}) == ({}, 1)


READER_ERRORS = [
    ("not an object", ['["a"]'], "p.jsonl:1: a prediction line must be a JSON object, got list", "case_id"),
    ("a string line", ['"text"'], "p.jsonl:1: a prediction line must be a JSON object, got str", "case_id"),
    ("no case_id", ['{"prediction": "x"}'], "p.jsonl:1: the line has no case_id", "as a string"),
    ("null case_id", ['{"case_id": null, "prediction": "x"}'], "p.jsonl:1: the line has a case_id of type NoneType",
     "as a string"),
    ("no prediction", ['{"case_id": "a"}'], "p.jsonl:1: case_id 'a' has no 'prediction' field", "null"),
    ("a list prediction", ['{"case_id": "a", "prediction": ["x"]}'],
     "p.jsonl:1: the prediction of 'a' is a JSON list, not a string or null", "json.dumps"),
    ("a boolean prediction", ['{"case_id": "a", "prediction": false}'], "is a JSON bool, not a string or null",
     "serialise"),
    ("duplicate case_id", ['{"case_id": "a", "prediction": "x"}', '{"case_id": "b", "prediction": "y"}',
                           '{"case_id": "a", "prediction": "z"}'],
     "p.jsonl:3: duplicate case_id 'a' (first at line 1)", "one prediction per case_id"),
    ("duplicate of an ignored id", ['{"case_id": "late", "prediction": "x"}', '{"case_id": "late", "prediction": "y"}'],
     "p.jsonl:2: duplicate case_id 'late' (first at line 1)", "one prediction per case_id"),
    ("unknown id", ['{"case_id": "a", "prediction": "x"}', '{"case_id": "zz", "prediction": "x"}'],
     "p.jsonl:2: case_id 'zz' is not in the data", "--data / --dataset"),
    ("repeated key", ['{"case_id": "a", "prediction": "x", "prediction": "y"}'],
     "p.jsonl:1: the key 'prediction' appears twice in one object", "write each key once"),
    ("repeated case_id key", ['{"case_id": "a", "case_id": "b", "prediction": "x"}'],
     "p.jsonl:1: the key 'case_id' appears twice in one object", "write each key once"),
    ("lone surrogate in the prediction", ['{"case_id": "a", "prediction": "ok"}',
                                          '{"case_id": "b", "prediction": "x\\ud800y"}'],
     "p.jsonl:2: column 34: a lone surrogate \\ud800 in the string value at 'prediction', character 2",
     "write valid Unicode"),
    ("lone surrogate in a key", ['{"case_id": "a", "prediction": "x", "n\\udc00te": 1}'],
     "p.jsonl:1: column 39: a lone surrogate \\udc00 in the key 'n\\udc00te', character 2", "write valid Unicode"),
    ("lone surrogate in an ignored field", ['{"case_id": "a", "prediction": "x", "meta": {"m": ["\\ud800"]}}'],
     "a lone surrogate \\ud800 in the string value at 'meta.m[0]', character 1", "write valid Unicode"),
]


@pytest.mark.parametrize("name, lines, message, hint", READER_ERRORS, ids=[case[0] for case in READER_ERRORS])
def test_the_reader_stops_on_every_section_6_error(tmp_path, name, lines, message, hint):
    path = write_lines(tmp_path / "p.jsonl", lines)
    with pytest.raises(PredictionError) as raised:
        load_predictions(path, {"a", "b"}, ignored_ids={"late"})
    assert message in raised.value.message
    assert hint in raised.value.hint


def test_an_empty_predictions_file_is_an_error_not_a_zero_score(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text("", encoding="utf-8")
    with pytest.raises(PredictionError) as raised:
        load_predictions(path, {"a"})
    assert raised.value.message == (f"{path}: the predictions file holds no prediction; a run where every instance "
                                    "is missing is not an evaluation")
    assert "case_id" in raised.value.hint


def test_a_file_whose_only_line_is_a_null_prediction_is_read(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "a", "prediction": None}])
    assert load_predictions(path, {"a"}) == ({"a": None}, 1)


# --- is_missing and the summary block ---------------------------------------------------------

@pytest.mark.parametrize("prediction, missing", [
    (None, True), ("", True), (" ", True), ("\n\t\u3000", True),
    ("x", False), (" x ", False), ("0", False), ("\u200b", False),  # a zero-width space is not whitespace
])
def test_is_missing(prediction, missing):
    assert is_missing(prediction) is missing


def test_predictions_block_counts_each_diagnostic_over_the_scored_instances(tmp_path):
    scored = [
        ('```json\n{"a": 1}\n```', "{}"),          # fence and text around JSON
        ("<think>hmm</think>Hello", "你好"),        # a think block
        ("<think>cut off", "你好"),                 # an unclosed think block at the start
        ("```\ncode\n```", "```\ncode\n```"),      # the source's own fence: content
        (None, "你好"),                             # missing: never looked at
        ("   ", "你好"),                            # missing too
        ('Sure: {"a": 1}', "{}"),                  # text around JSON
        ("plain", "原文"),
    ]
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"x")
    ids = [f"c{index}" for index in range(len(scored))]
    block = predictions_block(path, 9, 2, scored, ids)
    assert block == {"path": str(path), "sha256": hashlib.sha256(b"x").hexdigest(), "rows": 9, "missing": 2,
                     "diagnostics": {"code_fence": 1, "think_block": 2, "text_around_json": 2,
                                     "source_script": 0, "echoes_source": 0, "wrong_target_script": 0,
                                     "echoes_prompt": 0, "refusal_or_preamble": 0, "cut_off": 0},
                     "diagnostic_case_ids": {"code_fence": ["c0"], "think_block": ["c1", "c2"],
                                             "text_around_json": ["c0", "c6"], "source_script": [],
                                             "echoes_source": [], "wrong_target_script": [], "echoes_prompt": [],
                                             "refusal_or_preamble": [], "cut_off": []}}
    assert tuple(block["diagnostics"]) == DIAGNOSTICS
    assert "diagnostic_case_ids" not in predictions_block(path, 9, 2, scored)
    assert predictions_block(path, 9, 2, scored)["diagnostics"] == block["diagnostics"]


def test_predictions_block_of_clean_predictions_counts_zero(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "a", "prediction": "Hello"}])
    block = predictions_block(path, 1, 0, [("Hello", "你好")], ["a"])
    assert block["diagnostics"] == dict.fromkeys(DIAGNOSTICS, 0)
    assert block["diagnostic_case_ids"] == {name: [] for name in DIAGNOSTICS}


# --- wrapper diagnostics: a table per diagnostic ----------------------------------------------

WRAPPERS = [
    # (name, prediction, source, code_fence, think_block, text_around_json)
    ("plain text", "Hello world", "你好世界", False, False, False),
    ("one character", "x", "原文", False, False, False),
    ("a fence", "```\nHello\n```", "你好", True, False, False),
    ("a fence the source has", "```\nx\n```", "```\ny\n```", False, False, False),
    ("a closed think block first", "<think>plan</think>Hello", "你好", False, True, False),
    ("a closed think block later", "Hi <THINK>plan</Think> there", "你好", False, True, False),
    ("an unclosed think block at the start", "<think>I was cut off", "你好", False, True, False),
    ("an unclosed think block after blank space", "\n  <think>cut", "你好", False, True, False),
    ("an unclosed think tag after text", "Hello <think> is a tag", "你好", False, False, False),
    ("a closing tag before the opening one", "</think> then <think>", "你好", False, False, False),
    ("a think block the source has", "<think>a</think>b", "<think>x</think>", False, False, False),
    ("JSON alone", '{"a": 1}', "{}", False, False, False),
    ("JSON alone with space around", ' {"a": 1}\n', "{}", False, False, False),
    ("a JSON array of objects", '[{"a": 1}]', "[]", False, False, False),
    ("text before JSON", 'Here: {"a": 1}', "{}", False, False, True),
    ("text after JSON", '{"a": 1} done', "{}", False, False, True),
    ("fenced JSON", '```json\n{"a": 1}\n```', "{}", True, False, True),
    ("no brace at all", "no JSON here", "{}", False, False, False),
    ("a brace that is not JSON", "a {b} c", "{}", False, False, False),
    ("{x} before the JSON", '{x} then {"a": 1}', "{}", False, False, True),
    ("two bad braces before the JSON", '{x} {y} {"a": 1} end', "{}", False, False, True),
    ("a JSON list before an object", '[1] {"a": 1}', "{}", False, False, True),
    ("an object right after a bad brace", '{{"a": 1}', "{}", False, False, True),
    ("a JSON number inside braces", '{1} {"a": 1}', "{}", False, False, True),
    ("an object inside a list inside text", 'x [{"a": 1}]', "{}", False, False, True),
    ("a string value with a brace first", '"{" {"a": 1}', "{}", False, False, True),
    ("an unclosed object", '{"a": 1', "{}", False, False, False),
    ("only a nested object is JSON", '{"a": {"b": 1}', "{}", False, False, True),
]


@pytest.mark.parametrize("name, prediction, source, fence, think, around", WRAPPERS, ids=[w[0] for w in WRAPPERS])
def test_wrapper_diagnostics(name, prediction, source, fence, think, around):
    assert wrapper_diagnostics(prediction, source) == {"code_fence": fence, "think_block": think,
                                                       "text_around_json": around, "source_script": False,
                                                       "echoes_source": False, "wrong_target_script": False,
                                                       "echoes_prompt": False, "refusal_or_preamble": False,
                                                       "cut_off": False}


def test_text_around_json_tries_only_the_first_64_braces():
    within = "{x} " * 63 + '{"a": 1} tail'
    past = "{x} " * 64 + '{"a": 1} tail'
    assert wrapper_diagnostics(within)["text_around_json"] is True
    assert wrapper_diagnostics(past)["text_around_json"] is False


def test_text_around_json_skips_values_that_are_not_objects():
    assert wrapper_diagnostics('{"a": [1, 2]} and [3]')["text_around_json"] is True
    assert wrapper_diagnostics('"{}" x')["text_around_json"] is True  # braces are found, strings are not read
    assert wrapper_diagnostics('[1] [2]')["text_around_json"] is False  # no object at all


def test_a_deeply_nested_brace_run_is_not_a_crash():
    assert wrapper_diagnostics("{" * 100000)["text_around_json"] is False
    assert wrapper_diagnostics('{"a":' * 5000)["text_around_json"] is False
    assert wrapper_diagnostics("[" * 5000 + '{"a": 1}' + "]" * 5000 + " x")["text_around_json"] is True


# --- through the CLI ----------------------------------------------------------------------------

ROWS = [make_row("r1"), make_row("r2", source_text="你好", reference="Hello")]


def evaluate_cli(tmp_path, predictions_text: str) -> subprocess.CompletedProcess:
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text(predictions_text, encoding="utf-8")
    return subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--data", str(data), "--predictions",
                           str(predictions), "--output-dir", str(tmp_path / "out"), "--skip-judge", "--quiet"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


CLI_ERRORS = [
    ("repeated key", '{"case_id": "r1", "prediction": "x", "prediction": "y"}\n',
     "preds.jsonl:1: the key 'prediction' appears twice in one object", "write each key once"),
    ("lone surrogate", '{"case_id": "r1", "prediction": "ok"}\n{"case_id": "r2", "prediction": "\\ud800x"}\n',
     "preds.jsonl:2: column 34: a lone surrogate \\ud800 in the string value at 'prediction', character 1 "
     "(valid JSON, not valid Unicode)", "write valid Unicode"),
    ("empty file", "", "the predictions file holds no prediction; a run where every instance is missing is not an "
                       "evaluation", "write one line per instance"),
]


@pytest.mark.parametrize("name, text, message, hint", CLI_ERRORS, ids=[case[0] for case in CLI_ERRORS])
def test_the_cli_refuses_with_status_2_and_one_message(tmp_path, name, text, message, hint):
    result = evaluate_cli(tmp_path, text)
    assert result.returncode == 2
    assert message in result.stderr and "hint: " + hint in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "summary.json").exists() and not (tmp_path / "out" / "scores.jsonl").exists()


def test_the_cli_scores_a_valid_surrogate_pair_and_keeps_it(tmp_path):
    result = evaluate_cli(tmp_path, '{"case_id": "r1", "prediction": "Hi \\ud83d\\ude00"}\n')
    assert result.returncode == 0, result.stderr
    scores = [json.loads(line) for line in (tmp_path / "out" / "scores.jsonl").read_text(encoding="utf-8").split("\n")
              if line]
    assert [score["status"] for score in scores] == ["ok", "missing"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["predictions"]["rows"] == 1 and summary["predictions"]["missing"] == 1


def test_the_cli_refuses_a_repeated_key_in_the_data(tmp_path):
    data = tmp_path / "data.jsonl"
    line = json.dumps(make_row("r1"), ensure_ascii=False)
    data.write_text(line[:-1] + ', "scenario": "social"}\n', encoding="utf-8")
    predictions = write_jsonl(tmp_path / "preds.jsonl", [{"case_id": "r1", "prediction": "x"}])
    result = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--data", str(data), "--predictions",
                             str(predictions), "--output-dir", str(tmp_path / "out"), "--skip-judge", "--quiet"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "data.jsonl:1: the key 'scenario' appears twice in one object" in result.stderr
    assert "Traceback" not in result.stderr
