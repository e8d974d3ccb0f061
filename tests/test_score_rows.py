"""Typed score rows (eval/scoring/score_rows.py): scores.jsonl read back and written again is the file's
bytes for every benchmark; the enums cover every state a run writes; a missing row's detail is no
other row's; reports classify by status and fallback state, never by a reason's wording; a
malformed row is one line naming the field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import evaluate
from conftest import make_row
from eval.exits import run_cli
from eval.compare import load_run
from eval.errors import CompareError
from eval.reports.failures import failures, failures_markdown
from eval.ifmtbench import IFMTBENCH
from eval.ifmtbench.report import failure_reason as ifmt_failure_reason
from eval.ifmtbench.scoring import score_row as ifmt_score_row
from eval.insttrans.record import INSTTRANS
from eval.insttrans.scoring import score_instance
from eval.io.outputs import jsonl_lines
from eval.scoring.score_rows import (ConstraintResult, Fallback, ScoreRow, ScoreRowError, Status, row_dict, row_from_dict)
from eval.ifmtbench.rows import validate_ifmt_rows
from tests.ifmtbench.helpers import ifmt_handler, ifmt_row
from tests.judge_server import JudgeServer, default_handler

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-score-rows-test-key-00000000"
BUNDLED = {
    "insttrans": (["--predictions", str(ROOT / "data" / "example_predictions.jsonl")], default_handler),
    "sandglass": (["--benchmark", "sandglass", "--predictions",
                   str(ROOT / "data" / "sandglass" / "example_predictions.jsonl")], default_handler),
    "ifmtbench": (["--dataset", str(ROOT / "data" / "ifmtbench"), "--predictions",
                   str(ROOT / "data" / "ifmtbench" / "example_predictions.jsonl")], ifmt_handler),
}


@pytest.fixture(scope="module")
def bundled_runs(tmp_path_factory) -> dict[str, Path]:
    """Each benchmark's bundled predictions, offline and judged by the stand-in Judge."""
    base, runs = tmp_path_factory.mktemp("score-rows"), {}
    monkeypatch = pytest.MonkeyPatch()
    try:
        for name, (argv, handler) in BUNDLED.items():
            runs[f"{name}-offline"] = base / f"{name}-offline"
            assert run_cli(evaluate.main, [*argv, "--quiet", "--skip-judge", "--output-dir",
                                           str(runs[f"{name}-offline"])]) == 0
            runs[f"{name}-judged"] = base / f"{name}-judged"
            monkeypatch.setenv("JUDGE_API_KEY", KEY)
            with JudgeServer(handler) as server:
                monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
                assert run_cli(evaluate.main, [*argv, "--quiet", "--judge-backoff", "0.001", "--output-dir",
                                               str(runs[f"{name}-judged"])]) == 0
    finally:
        monkeypatch.undo()
    return runs


def ifmt_rows(*rows: dict) -> list[dict]:
    return validate_ifmt_rows([(f"d.jsonl:{number}", row) for number, row in enumerate(rows, 1)])[0]


def read_rows(out: Path) -> list[ScoreRow]:
    return [row_from_dict(json.loads(line)) for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("run", [f"{name}-{mode}" for name in BUNDLED for mode in ("offline", "judged")])
def test_reading_scores_jsonl_back_and_writing_it_again_gives_the_files_bytes(bundled_runs, run):
    raw = (bundled_runs[run] / "scores.jsonl").read_bytes()
    rows = read_rows(bundled_runs[run])
    assert len(rows) > 50 and all(isinstance(row, ScoreRow) for row in rows)
    assert jsonl_lines(map(row_dict, rows)).encode("utf-8") == raw
    assert jsonl_lines(row_dict(row_from_dict(row.to_dict())) for row in rows).encode("utf-8") == raw


def test_the_enums_cover_every_status_and_fallback_state_the_runs_write(bundled_runs):
    statuses, fallbacks = set(), set()
    for out in bundled_runs.values():
        for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            statuses.add(row["status"])
            fallbacks |= {entry["detail"]["fallback"] for entry in row.get("constraints") or ()
                          if "fallback" in entry["detail"]}
    assert statuses == {status.value for status in Status}  # the bundled runs write both
    assert fallbacks <= {state.value for state in Fallback} and fallbacks >= {"passed", "skipped"}
    for out in bundled_runs.values():  # and the typed rows carry the enums themselves
        for row in read_rows(out):
            assert type(row.status) is Status
            assert all(entry.fallback is None or type(entry.fallback) is Fallback for entry in row.constraints or ())


@pytest.mark.parametrize("answer,state", [(1, Fallback.PASSED), (0, Fallback.FAILED), (None, Fallback.SKIPPED)])
def test_every_glossary_fallback_state_is_its_enum_and_written_as_its_name(answer, state):
    row = ifmt_rows(ifmt_row("g", ids=("glossary",), term_dict={"line": "Zeile"}))[0]
    verdicts = None if answer is None else {(row["case_id"], "ifmt_glossary"): {"glossary": answer}}
    entry = ifmt_score_row(row, "x", verdicts).constraints[0]
    assert entry.fallback is state and entry.passed is (answer == 1)
    assert entry.to_dict()["detail"]["fallback"] == state.value and type(entry.to_dict()["detail"]["fallback"]) is str


def test_a_status_no_enum_names_is_refused_where_the_row_is_built():
    with pytest.raises(ValueError):
        ScoreRow.of(case_id="a", status="judge failed")
    with pytest.raises(TypeError):  # a constraint is a ConstraintResult, never a bare dict
        ScoreRow.of(case_id="a", status=Status.OK, constraints=[{"id": "x", "kind": "hard", "passed": True}])


def test_a_missing_rows_detail_is_no_other_rows_and_cannot_be_changed():
    row = make_row("m-1", constraint_ids=["format_preserve", "style_consistency"],
                   constraints=["保持原文格式", "译文语体：正式"])
    first, second = score_instance(row, None, None), score_instance({**row, "case_id": "m-2"}, "  ", None)
    detail = first.constraints[0].detail
    with pytest.raises(TypeError):
        detail["reason"] = "changed"  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.constraints[0].passed = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        first.columns["if_score"] = 1.0  # type: ignore[index]
    assert second.constraints[1].detail == {"reason": "missing prediction (null, empty or whitespace only, or no line)"}
    assert second.to_dict()["constraints"][0]["detail"] is not first.to_dict()["constraints"][0]["detail"]


def test_a_detail_is_copied_when_the_result_is_built():
    source = {"reason": "term not found"}
    entry = ConstraintResult("term_compliance", "hard", False, detail=source, index=1)
    source["reason"] = "changed afterwards"
    assert entry.detail["reason"] == "term not found"


def _reworded(row: ScoreRow, text: str) -> ScoreRow:
    """The same row with every constraint's reason replaced by `text`."""
    data = row.to_dict()
    for entry in data["constraints"]:
        entry["detail"] = {**entry["detail"], "reason": text}
    return row_from_dict(data)


def test_rewording_a_reason_changes_no_report_classification():
    row = make_row("r-1", source_text="<p>你好<br>世界</p>")
    missing, present = score_instance(row, None, None), score_instance({**row, "case_id": "r-2"}, "<p>Hi</p>", None)
    assert present.constraints[0].passed is False
    for missing_text, present_text in (("no answer at all", "missing prediction: a rule's own words"),
                                       ("missing prediction (null, empty or whitespace only, or no line)", "lost tag")):
        rows = [_reworded(missing, missing_text), _reworded(present, present_text)]
        data = failures(rows, bench=INSTTRANS)
        assert data["missing"] == {"count": 1, "case_ids": ["r-1"]}
        reasons = {case["case_id"]: case["reason"] for case in data["hard"]["format_preserve"]["cases"]}
        assert reasons["r-1"] == "missing prediction" and reasons["r-2"] != "missing prediction"
        assert "Missing predictions (1): `r-1`" in "\n".join(failures_markdown(data))


def test_rewording_an_ifmtbench_reason_changes_no_report_classification():
    row = ifmt_rows(ifmt_row("i", ids=("layout",)))[0]
    missing, present = ifmt_score_row(row, None, None), ifmt_score_row({**row, "case_id": "j"}, "no delimiter", None)
    reworded_missing = _reworded(missing, "the model said nothing")
    reworded_present = _reworded(present, "missing prediction, says the hostile detail")
    assert ifmt_failure_reason(reworded_missing.constraints[0], reworded_missing.missing) == "missing prediction"
    assert ifmt_failure_reason(reworded_present.constraints[0], reworded_present.missing) != "missing prediction"
    data = failures([reworded_missing, reworded_present], bench=IFMTBENCH)
    assert data["missing"]["case_ids"] == ["i"]
    assert [case["reason"] == "missing prediction" for case in data["hard"]["layout"]["cases"]] == [True, False]


GOOD = {"case_id": "a", "status": "ok", "constraints": [{"index": 1, "id": "x", "kind": "hard", "passed": True,
                                                         "detail": {}}]}
MALFORMED = [
    ([], "expected a JSON object, found a list"),
    ({"status": "ok"}, "field case_id: expected a string, found null"),
    ({**GOOD, "case_id": 7}, "field case_id: expected a string, found a number"),
    ({**GOOD, "status": "judged"}, "field status: expected one of ['ok', 'missing'], found 'judged'"),
    ({**GOOD, "status": None}, "field status: expected one of ['ok', 'missing'], found null"),
    ({**GOOD, "constraints": {"x": 1}}, "field constraints: expected a list, found an object"),
    ({**GOOD, "constraints": ["x"]}, "field constraints[0]: expected an object, found a string"),
    ({**GOOD, "constraints": [{"id": "x", "kind": "hard", "passed": "yes", "detail": {}}]},
     "field constraints[0].passed: expected a boolean or null, found a string"),
    ({**GOOD, "constraints": [{"id": "x", "kind": "soft", "score": True, "detail": {}}]},
     "field constraints[0].score: expected a number or null, found a boolean"),
    ({**GOOD, "constraints": [{"id": "x", "kind": "soft", "passed": True, "detail": {}}]},
     "field constraints[0]: expected the keys ['id', 'kind', 'score', 'detail'], found ['id', 'kind', 'passed', 'detail']"),
    ({**GOOD, "constraints": [{"index": "1", "id": "x", "kind": "hard", "passed": True, "detail": {}}]},
     "field constraints[0].index: expected an integer, found a string"),
    ({**GOOD, "constraints": [{"id": "x", "kind": "hard", "passed": True, "detail": []}]},
     "field constraints[0].detail: expected an object, found a list"),
    ({**GOOD, "constraints": [{"id": "x", "kind": "hard", "passed": False, "detail": {"fallback": "maybe"}}]},
     "field constraints[0].detail.fallback: expected one of ['passed', 'failed', 'skipped'], found 'maybe'"),
    ({**GOOD, "constraints": [{"id": "x", "kind": "hard", "passed": True, "detail": {}}] * 10_001},
     "field constraints: more than 10,000 entries"),
]


@pytest.mark.parametrize("row,message", MALFORMED, ids=[str(index) for index in range(len(MALFORMED))])
def test_a_malformed_row_is_one_line_naming_the_field(row, message):
    with pytest.raises(ScoreRowError) as caught:
        row_from_dict(row)
    assert str(caught.value) == message and "\n" not in str(caught.value)


def test_compare_names_the_file_and_line_of_a_malformed_row(bundled_runs, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    source = bundled_runs["insttrans-offline"]
    (run / "summary.json").write_bytes((source / "summary.json").read_bytes())
    lines = (source / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace('"status": "ok"', '"status": "scored"').replace('"status": "missing"', '"status": "?"')
    (run / "scores.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CompareError) as caught:
        load_run(run)
    assert f"{run / 'scores.jsonl'}: line 3: field status: expected one of ['ok', 'missing']" in str(caught.value)


def test_log_samples_columns_come_after_the_rows_own():
    row = ScoreRow.of(case_id="a", status=Status.OK, if_score=1.0)
    logged = row.with_columns(prediction="x", model_input=[])
    assert list(logged.to_dict()) == ["case_id", "status", "if_score", "prediction", "model_input"]
    assert list(row) == ["case_id", "status", "if_score"]  # the row itself is unchanged
