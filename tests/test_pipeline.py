"""evaluate.py end to end on small files: outputs, scoring algebra, --limit, and every §6 error."""

from __future__ import annotations

import json

import pytest

import evaluate
import prepare_inputs
from conftest import make_row, write_jsonl

JSON_SOURCE = '{"title": "标题", "items": [{"name": "甲"}]}'
ROWS = [
    make_row("r1"),  # plain text with a format_preserve line: nothing triggers, passes
    make_row("r2", source_text=JSON_SOURCE, reference='{"title": "Title", "items": [{"name": "A"}]}',
             constraints=["保持原文格式：JSON 键名不变", "专名/术语对照：标题→Title"],
             constraint_ids=["format_preserve", "term_compliance"], scenario="doc_textbook", domain="网页文本"),
    make_row("r3", target_lang="ja", reference="こんにちは、世界", scenario="novel", domain="小说",
             constraints=["保持原文格式", "译文语体：正式"], constraint_ids=["format_preserve", "style_consistency"],
             style={"formality": "formal"}),
    make_row("r4", source_lang="en", target_lang="zh", source_text="Hello #tag#", reference="你好 #tag#",
             constraints=["保留以下社交元素，不得翻译或改动：#tag#"], constraint_ids=["social_preserve"]),
]


def run(tmp_path, predictions, *extra, rows=ROWS):
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    preds = write_jsonl(tmp_path / "preds.jsonl", predictions)
    out = tmp_path / "out"
    status = evaluate.main(["--data", str(data), "--predictions", str(preds), "--output-dir", str(out),
                            "--skip-judge", "--quiet", *extra])
    return status, out


def scores_of(out):
    return [json.loads(line) for line in (out / "scores.jsonl").read_text(encoding="utf-8").split("\n") if line]


def test_skip_judge_run_scores_hard_rules_and_writes_every_output(tmp_path):
    predictions = [
        {"case_id": "r4", "prediction": "你好 #标签#"},  # social element altered: fails
        {"case_id": "r1", "prediction": "Hello, world"},
        {"case_id": "r2", "prediction": '{"title": "Title", "items": [{"name": "A"}]}'},
        {"case_id": "r3", "prediction": "こんにちは"},
    ]
    status, out = run(tmp_path, predictions)
    assert status == 0
    scores = scores_of(out)
    assert [s["case_id"] for s in scores] == ["r1", "r2", "r3", "r4"]  # data order
    by_id = {s["case_id"]: s for s in scores}
    assert by_id["r1"]["if_score"] == 1.0 and by_id["r1"]["quality"] is None
    assert by_id["r2"]["hard_pass"] is True and by_id["r2"]["if_score"] == 1.0
    assert by_id["r3"]["hard_pass"] is True and by_id["r3"]["if_score"] is None  # soft constraint, no Judge
    assert by_id["r3"]["constraints"][1] == {"index": 2, "id": "style_consistency", "kind": "soft", "score": None,
                                             "detail": {"reason": "Judge skipped (--skip-judge)"}}
    assert by_id["r4"]["hard_pass"] is False and by_id["r4"]["if_score"] == 0.0
    assert by_id["r4"]["constraints"][0]["detail"]["missing"] == ["#tag#"]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["formal"] is False
    assert any("--skip-judge" in reason for reason in summary["non_formal_reasons"])
    assert any("manifest.json" in reason for reason in summary["non_formal_reasons"])  # data not the bundled set
    assert summary["hard_pass_rate"]["value"] == 0.75 and summary["if_score"]["value"] is None
    assert summary["quality"]["value"] is None and summary["judge"] is None
    assert summary["by_constraint"]["social_preserve"] == {"kind": "hard", "n": 1, "pass_rate": 0.0,
                                                           "pass_rate_strict": 0.0}
    assert summary["by_language_pair"]["zh-en"]["n"] == 2
    assert summary["by_constraint_count"]["2"]["hard_pass_rate"] == 1.0
    assert "judge:none" in summary["signature"] and summary["data"]["n_instances"] == 4
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "NOT formal" in report and "| social_preserve | hard | 1 | 0.0000 |" in report


def test_missing_predictions_score_zero_and_stay_in_the_denominator(tmp_path):
    predictions = [{"case_id": "r1", "prediction": None}, {"case_id": "r2", "prediction": "  \n"},
                   {"case_id": "r3", "prediction": ""}]  # r4 has no line at all
    status, out = run(tmp_path, predictions)
    assert status == 0
    for score in scores_of(out):
        assert score["status"] == "missing"
        assert (score["if_score"], score["quality"], score["hard_pass"]) == (0.0, 0.0, False)
        assert all(entry.get("passed", entry.get("score")) in (False, 0.0) for entry in score["constraints"])
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["predictions"]["missing"] == 4 and summary["predictions"]["rows"] == 3
    assert summary["if_score"]["value"] is None  # SPEC §9: null with --skip-judge, whatever the rows
    assert summary["hard_pass_rate"]["value"] == 0.0


def test_the_prediction_text_is_seen_exactly_as_given(tmp_path):
    fenced = '```json\n{"title": "Title", "items": [{"name": "A"}]}\n```'
    status, out = run(tmp_path, [{"case_id": "r2", "prediction": fenced}])
    detail = scores_of(out)[1]["constraints"][0]
    assert status == 0 and detail["passed"] is False
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["predictions"]["diagnostics"] == {"code_fence": 1, "think_block": 0, "text_around_json": 1,
                                                     "source_script": 0, "echoes_source": 0,
                                                     "wrong_target_script": 0, "echoes_prompt": 0,
                                                     "refusal_or_preamble": 0, "cut_off": 0}


def test_limit_scores_the_first_rows_and_accepts_predictions_past_them(tmp_path):
    predictions = [{"case_id": cid, "prediction": "x"} for cid in ("r1", "r2", "r3", "r4")]
    status, out = run(tmp_path, predictions, "--limit", "2")
    assert status == 0
    assert [s["case_id"] for s in scores_of(out)] == ["r1", "r2"]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["data"]["n_instances"] == 2
    assert any("--limit 2" in reason for reason in summary["non_formal_reasons"])


PREDICTION_ERRORS = [
    ("not json", "preds.jsonl:2: not valid JSON", "one JSON object per line"),
    ([1, 2], "preds.jsonl:2: a prediction line must be a JSON object", "case_id"),
    ({"prediction": "x"}, "preds.jsonl:2: the line has no case_id", "as a string"),
    ({"case_id": 4, "prediction": "x"}, "preds.jsonl:2: the line has a case_id of type int", "as a string"),
    ({"case_id": "r2", "prediction": {"title": "T"}}, "is a JSON dict, not a string or null",
     "serialise JSON-format translations to a string"),
    ({"case_id": "r2", "prediction": 3}, "is a JSON int, not a string or null", "serialise"),
    ({"case_id": "r1", "prediction": "again"}, "preds.jsonl:2: duplicate case_id 'r1' (first at line 1)",
     "one prediction per case_id"),
    ({"case_id": "nope", "prediction": "x"}, "preds.jsonl:2: case_id 'nope' is not in the data",
     "belong to this data file"),
    ({"case_id": "r2"}, "preds.jsonl:2: case_id 'r2' has no 'prediction' field", "null"),
]


@pytest.mark.parametrize("bad_line, message, hint", PREDICTION_ERRORS, ids=[m[:30] for _, m, _ in PREDICTION_ERRORS])
def test_a_broken_predictions_file_stops_with_status_2_file_line_and_hint(tmp_path, capsys, bad_line, message, hint):
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    preds = tmp_path / "preds.jsonl"
    second = bad_line if isinstance(bad_line, str) else json.dumps(bad_line)
    preds.write_text(json.dumps({"case_id": "r1", "prediction": "ok"}) + "\n" + second + "\n", encoding="utf-8")
    out = tmp_path / "out"
    status = evaluate.run_cli(evaluate.main, ["--data", str(data), "--predictions", str(preds),
                                              "--output-dir", str(out), "--skip-judge", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and "hint:" in err and hint in err
    assert "Traceback" not in err
    assert not (out / "summary.json").exists()


def test_a_rerun_refused_before_it_starts_leaves_the_previous_result_as_it_was(tmp_path, capsys):
    status, out = run(tmp_path, [{"case_id": "r1", "prediction": "ok"}])
    assert status == 0 and (out / "summary.json").exists()
    before = {name: (out / name).read_bytes() for name in ("summary.json", "scores.jsonl", "report.md")}
    data = tmp_path / "data.jsonl"
    broken = write_jsonl(tmp_path / "broken.jsonl", [{"case_id": "zzz", "prediction": "x"}])
    for predictions in (broken, tmp_path / "misspelt.jsonl"):  # bad predictions; a typo in the path
        status = evaluate.run_cli(evaluate.main, ["--data", str(data), "--predictions", str(predictions),
                                                  "--output-dir", str(out), "--skip-judge", "--quiet"])
        assert status == 2
        assert {name: (out / name).read_bytes() for name in before} == before


def test_a_bad_data_file_stops_with_status_2(tmp_path, capsys):
    data = write_jsonl(tmp_path / "data.jsonl", [make_row("a"), {**make_row("b"), "target_lang": "xx"}])
    preds = write_jsonl(tmp_path / "preds.jsonl", [])
    status = evaluate.run_cli(evaluate.main, ["--data-file", str(data), "--predictions", str(preds),
                                              "--output-dir", str(tmp_path / "o"), "--skip-judge"])
    assert status == 2 and "data.jsonl:2: target_lang 'xx'" in capsys.readouterr().err


def test_prepare_inputs_exports_only_case_id_and_messages(tmp_path):
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    out = tmp_path / "inputs.jsonl"
    assert prepare_inputs.main(["--data", str(data), "--output", str(out)]) == 0
    exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["case_id"] for row in exported] == ["r1", "r2", "r3", "r4"]
    for row, source in zip(exported, ROWS):
        assert set(row) == {"case_id", "messages"}
        assert row["messages"] == [{"role": "user", "content": source["prompt"]}]
        assert source["reference"] not in json.dumps(row, ensure_ascii=False)


def test_prepare_inputs_limit(tmp_path):
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    out = tmp_path / "inputs.jsonl"
    assert prepare_inputs.main(["--data-file", str(data), "--output", str(out), "--limit", "1"]) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1


def test_the_dataset_flag_runs_through_datasets_on_a_local_directory(tmp_path):
    (tmp_path / "hub").mkdir()
    write_jsonl(tmp_path / "hub" / "test.jsonl", ROWS)
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"case_id": "r1", "prediction": "Hello, world"}])
    out = tmp_path / "out"
    status = evaluate.main(["--dataset", str(tmp_path / "hub"), "--predictions", str(preds), "--output-dir", str(out),
                            "--skip-judge", "--quiet"])
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert status == 0 and summary["data"]["source"] == f"dataset:{tmp_path / 'hub'}"
    assert summary["data"]["n_instances"] == 4 and summary["data"]["manifest_match"] is False


def test_a_fence_the_source_already_has_is_not_counted_as_a_wrapper(tmp_path):
    source = "用法：\n```\npip install x\n```"
    rows = [make_row("m1", source_text=source, reference="Usage:\n```\npip install x\n```")]
    status, out = run(tmp_path, [{"case_id": "m1", "prediction": rows[0]["reference"]}], rows=rows)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert status == 0 and summary["predictions"]["diagnostics"]["code_fence"] == 0


def test_skip_judge_leaves_if_score_and_quality_null_even_when_every_row_is_exact(tmp_path):
    rows = [make_row("a"), make_row("b")]
    predictions = [{"case_id": "a", "prediction": "Hello"}, {"case_id": "b", "prediction": None}]
    status, out = run(tmp_path, predictions, rows=rows)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert status == 0 and [s["if_score"] for s in scores_of(out)] == [1.0, 0.0]  # exact per instance
    assert summary["if_score"] == {"value": None, "ci95": None, "n": 2}
    assert summary["quality"] == {"value": None, "ci95": None, "n": 2}
    assert summary["hard_pass_rate"]["value"] == 0.5
    assert all(group["if_score"] is None and group["quality"] is None for group in summary["by_domain"].values())


@pytest.mark.parametrize("prediction", [
    '{"a":' * 5000,                 # nested too deep for the JSON reader
    "<think>" * 20000,              # would make a naive <think> pattern quadratic
    "{" * 100000,
    "9" * 5000,                     # digits past Python's int-string limit
])
def test_degenerate_predictions_are_scored_not_crashed(tmp_path, prediction):
    rows = [make_row("j", source_text=JSON_SOURCE, reference='{"title": "T", "items": [{"name": "A"}]}',
                     scenario="doc_textbook", domain="网页文本"),
            make_row("s", target_lang="ja", reference='{"1": "はい", "2": "いいえ"}', scenario="ugc_subtitle",
                     domain="UGC字幕", source_text='{"1": "是", "2": "不是"}', duration_s=[1.0, 2.0], batch_size=2,
                     constraints=["以相同的 JSON 对象返回", "字幕时长：时间越长译文越长"],
                     constraint_ids=["format_preserve", "syllable_order"])]
    subtitle = json.dumps({"1": prediction, "2": "x"})
    status, out = run(tmp_path, [{"case_id": "j", "prediction": prediction}, {"case_id": "s", "prediction": subtitle}],
                      rows=rows)
    assert status == 0
    assert scores_of(out)[0]["hard_pass"] is False


def test_a_deeply_nested_predictions_line_is_a_clear_error(tmp_path, capsys):
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"case_id": "r1", "prediction": ' + "[" * 100000 + "\n", encoding="utf-8")
    status = evaluate.run_cli(evaluate.main, ["--data", str(data), "--predictions", str(preds),
                                              "--output-dir", str(tmp_path / "o"), "--skip-judge", "--quiet"])
    assert status == 2 and "preds.jsonl:1: the JSON is nested too deeply" in capsys.readouterr().err


def test_outputs_keep_records_on_one_line_and_are_readable_by_others(tmp_path):
    source = "第一句\u2028第二句"
    rows = [make_row("u", source_text=source, reference="First\u2028second")]
    status, out = run(tmp_path, [{"case_id": "u", "prediction": "First\u2028second"}], rows=rows)
    text = (out / "scores.jsonl").read_text(encoding="utf-8")
    assert status == 0 and len(text.splitlines()) == 1
    inputs = tmp_path / "inputs.jsonl"
    assert prepare_inputs.main(["--data", str(tmp_path / "data.jsonl"), "--output", str(inputs)]) == 0
    exported = inputs.read_text(encoding="utf-8")
    assert len(exported.splitlines()) == 1 and "\u2028" not in exported and "\\u2028" in exported
    assert json.loads(exported)["messages"][0]["content"].endswith(source)
    for name in ("scores.jsonl", "summary.json", "report.md"):
        assert (out / name).stat().st_mode & 0o044, name  # not private to the user who ran it


def test_an_output_dir_that_is_a_file_is_one_clear_error(tmp_path, capsys):
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"case_id": "r1", "prediction": "x"}])  # an empty file is refused
    blocker = tmp_path / "out"
    blocker.write_text("not a directory")
    status = evaluate.run_cli(evaluate.main, ["--data", str(data), "--predictions", str(preds),
                                              "--output-dir", str(blocker), "--skip-judge", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and f"error: --output-dir {blocker} is a file, not a directory" in err and "Traceback" not in err
    assert blocker.read_text() == "not a directory"


@pytest.mark.parametrize("prediction, wrapped", [
    ('[{"q": "Why?", "a": "Because."}]', False),   # a JSON array of objects is JSON, not text around it
    ('{"a": 1}', False),
    ('Here it is: {"a": 1}', True),
    ('```json\n{"a": 1}\n```', True),
])
def test_text_around_json_diagnostic(prediction, wrapped):
    from eval.inputs.predictions import wrapper_diagnostics

    assert wrapper_diagnostics(prediction)["text_around_json"] is wrapped


def test_a_local_file_has_the_same_identity_through_data_and_dataset(tmp_path):
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"case_id": "r1", "prediction": "Hello, world"}])
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    hashes = []
    for flag in ("--data", "--dataset"):
        out = tmp_path / flag.strip("-")
        assert evaluate.main([flag, str(data), "--predictions", str(preds), "--output-dir", str(out),
                              "--skip-judge", "--quiet"]) == 0
        hashes.append(json.loads((out / "summary.json").read_text(encoding="utf-8"))["data"]["sha256"])
    assert hashes[0] == hashes[1]


@pytest.mark.parametrize("limit, n_used, skip_judge, reason", [
    (None, 4, False, None),                         # the whole data, the Judge on
    (9, 4, False, None),                            # a --limit past the end scores everything
    (2, 2, False, "--limit 2: 2 of 4 instances scored"),
    (None, 4, True, "--skip-judge: soft constraints and quality were not scored"),
])
def test_each_reason_a_run_is_not_formal(limit, n_used, skip_judge, reason):
    from eval.provenance import run_reasons

    reasons = run_reasons(n_used, 4, limit, None, skip_judge, unscored="soft constraints and quality were")
    if reason is None:
        assert reasons == []
    else:
        assert len(reasons) == 1 and reasons[0].startswith(reason)
    # the data's own reasons (unknown data, release look-alikes): tests/test_known_data.py


def test_a_missing_judge_setting_leaves_the_previous_results_alone(tmp_path, capsys, monkeypatch):
    status, out = run(tmp_path, [{"case_id": "r1", "prediction": "ok"}])
    assert status == 0
    monkeypatch.delenv("JUDGE_API_KEY", raising=False)
    monkeypatch.delenv("JUDGE_API_BASE", raising=False)
    status = evaluate.run_cli(evaluate.main, ["--data", str(tmp_path / "data.jsonl"), "--predictions",
                                              str(tmp_path / "preds.jsonl"), "--output-dir", str(out), "--quiet"])
    assert status == 2 and "JUDGE_API_BASE and JUDGE_API_KEY are not set" in capsys.readouterr().err
    assert (out / "summary.json").exists()  # nothing ran, so nothing of the earlier run is lost


# --- the order of a run and its results (SPEC §11) ----------------------------------------------

def test_predictions_saved_under_a_result_name_are_refused_and_kept(tmp_path, capsys):
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    out = tmp_path / "out"
    out.mkdir()
    predictions = write_jsonl(out / "scores.jsonl", [{"case_id": "r1", "prediction": "Hello, world"}])
    (out / "report.md").write_text("someone's notes")
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    status = evaluate.run_cli(evaluate.main, ["--data", str(data), "--predictions", str(predictions),
                                              "--output-dir", str(out), "--skip-judge", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "--predictions" in err and "result files" in err
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


def test_a_write_failure_leaves_no_result_file(tmp_path, monkeypatch, capsys):
    import os

    from eval.io import outputs

    status, out = run(tmp_path, [{"case_id": "r1", "prediction": "Hello, world"}])
    assert status == 0
    real_replace = os.replace

    def full_disk(source, target):
        if os.path.basename(target) == "summary.json":
            raise OSError(28, "No space left on device", str(target))
        real_replace(source, target)

    monkeypatch.setattr(outputs.os, "replace", full_disk)
    data, preds = tmp_path / "data.jsonl", tmp_path / "preds.jsonl"
    status = evaluate.run_cli(evaluate.main, ["--data", str(data), "--predictions", str(preds), "--output-dir",
                                              str(out), "--skip-judge", "--quiet"])
    assert status == 2 and "No space left" in capsys.readouterr().err
    assert sorted(path.name for path in out.iterdir()) == []  # no result, and the lock file removed


def test_case_ids_score_exactly_the_listed_instances_and_say_so(tmp_path):
    ids = tmp_path / "ids.txt"
    ids.write_text("r4\n\nr2\n", encoding="utf-8")
    predictions = [{"case_id": "r2", "prediction": '{"title": "Title", "items": [{"name": "A"}]}'},
                   {"case_id": "r4", "prediction": "你好 #tag#"}, {"case_id": "r1", "prediction": "ignored"}]
    status, out = run(tmp_path, predictions, "--case-ids", str(ids))
    assert status == 0
    assert [score["case_id"] for score in scores_of(out)] == ["r2", "r4"]  # data order, not the file's
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["data"]["n_instances"] == 2 and summary["hard_pass_rate"]["value"] == 1.0
    assert any(reason.startswith(f"--case-ids {ids}: 2 of 4 instances scored") for reason in summary["non_formal_reasons"])


@pytest.mark.parametrize("content, message", [
    ("r1\nr9\n", "ids.txt:2: case_id 'r9' is not in the data"),
    ("r1\nr1\n", "ids.txt:2: case_id 'r1' is listed twice (first at line 1)"),
    ("\n\n", "lists no case_id"),
    ("r1\n", "--case-ids and --limit"),
])
def test_a_bad_case_ids_file_is_one_clear_error(tmp_path, capsys, content, message):
    ids = tmp_path / "ids.txt"
    ids.write_text(content, encoding="utf-8")
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"case_id": "r1", "prediction": "x"}])
    limit = ["--limit", "1"] if "--limit" in message else []
    status = evaluate.run_cli(evaluate.main, ["--data", str(data), "--predictions", str(preds), "--output-dir",
                                              str(tmp_path / "out"), "--skip-judge", "--quiet", "--case-ids", str(ids),
                                              *limit])
    assert status == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_more_than_half_missing_is_said_in_one_prominent_line(tmp_path, capsys):
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"case_id": "r1", "prediction": "Hello, world"}])
    out = tmp_path / "out"
    assert evaluate.main(["--data", str(data), "--predictions", str(preds), "--output-dir", str(out),
                          "--skip-judge"]) == 0
    console = capsys.readouterr().out
    notice = "3 of 4 instances have no prediction and score 0"
    assert notice in console and "--case-ids" in console
    assert notice in (out / "report.md").read_text(encoding="utf-8")
    # half or fewer: no warning
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"case_id": cid, "prediction": "x"} for cid in ("r1", "r2")])
    assert evaluate.main(["--data", str(data), "--predictions", str(preds), "--output-dir", str(out), "--skip-judge"]) == 0
    assert "WARNING" not in capsys.readouterr().out and "WARNING" not in (out / "report.md").read_text(encoding="utf-8")


def test_a_second_run_on_a_held_output_directory_is_refused_and_changes_nothing(tmp_path, capsys):
    from eval.io.locking import hold_lock

    status, out = run(tmp_path, [{"case_id": "r1", "prediction": "Hello, world"}])
    assert status == 0
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.name != ".lock"}
    with hold_lock(out, "output directory", is_dir=True):
        status = evaluate.run_cli(evaluate.main, ["--data", str(tmp_path / "data.jsonl"), "--predictions",
                                                  str(tmp_path / "preds.jsonl"), "--output-dir", str(out),
                                                  "--skip-judge", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "is in use by pid" in err and f"pid {__import__('os').getpid()}" in err
    assert {path.name: path.read_bytes() for path in out.iterdir() if path.name != ".lock"} == before
