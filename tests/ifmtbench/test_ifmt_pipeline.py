"""IFMTBench through evaluate.py (SPEC §14, §11): offline runs, judged runs against the stand-in
Judge, an abort and a resume, a kill and a resume, and a comparison of two runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import evaluate
from eval.run import known_data
from eval.exits import run_cli
from eval.compare import main as compare_main
from eval.leaderboard import main as leaderboard_main
from tests.conftest import count_replies, write_jsonl
from tests.ifmtbench.helpers import ifmt_handler, ifmt_row
from tests.judge_server import JudgeServer, Reply

ROOT = Path(__file__).resolve().parent.parent.parent
KEY = "sk-ifmt-test-key-000000000000"
GOOD = "First line\nSecond line"
BAD = "First line Second line"

SINGLE = [
    ifmt_row("s1"),
    ifmt_row("s2"),
    ifmt_row("s3", ids=("style",), instruction_lang="zh"),
    ifmt_row("s3", ids=("style",), instruction_lang="ja"),
    ifmt_row("s4", ids=("glossary",), term_dict={"line": "Zeile"}, output="Erste Zeile"),
    ifmt_row("s5", ids=("structured",), data_format="CSV", origin_text="a,b\n1,2", output="x,y\n3,4"),
]
MULTI = [
    ifmt_row("m1", ids=("layout", "style", "background")),
    ifmt_row("m2", ids=("layout", "inline_code"), meta_data={"primary_delimiter": "\n", "source_chunks": [1, 2],
                                                            "extracted_assets": ["`id`"]}),
    ifmt_row("m3", ids=("background", "glossary"), term_dict={"line": "line"}),
]
PREDICTIONS = [
    {"md5": "s1", "response": GOOD},
    {"case_id": "s2", "prediction": BAD},
    {"md5": "s3", "instruction_lang": "zh", "response": "styled [style=4]"},
    {"md5": "s3", "instruction_lang": "ja", "response": "styled [style=null]"},
    {"md5": "s4", "response": "Erste Zeil [glossary=1]"},
    {"md5": "s5", "response": "x,y\n3,4"},
    {"md5": "m1", "response": GOOD + " [style=3] [background=5]"},
    {"md5": "m2", "response": BAD + " `id`"},
    # m3 has no line: missing, scores 0, no Judge call
]
N_REQUESTS = 4  # rubric: s3:zh, s3:ja, m1; glossary fallback: s4 (m3 is missing, m2 and the rest are hard only)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    single = write_jsonl(tmp_path / "test_single_constraint.jsonl", SINGLE)
    multi = write_jsonl(tmp_path / "test_multi_constraint.jsonl", MULTI)
    predictions = write_jsonl(tmp_path / "predictions.jsonl", PREDICTIONS)
    manifest = tmp_path / "manifest.json"
    from eval.io.data import files_sha256

    manifest.write_text(json.dumps({"ifmtbench": {"sha256": files_sha256([single, multi])}}), encoding="utf-8")
    monkeypatch.setattr(known_data, "MANIFEST_PATH", manifest)
    return single, multi, predictions, tmp_path / "out"


def run(files, *extra, server=None, monkeypatch=None, out=None):
    single, multi, predictions, default_out = files
    if server is not None:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
    return run_cli(evaluate.main, ["--data", str(single), "--data", str(multi), "--predictions", str(predictions),
                                   "--output-dir", str(out or default_out), "--judge-backoff", "0.001", "--quiet",
                                   *extra])


def read(out: Path):
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    scores = {row["case_id"]: row for row in map(json.loads, (out / "scores.jsonl").read_text().splitlines())}
    return summary, scores


def test_an_offline_run_scores_the_hard_rules_and_leaves_the_judged_numbers_null(files, capfd):
    assert run(files, "--skip-judge") == 0, capfd.readouterr().err
    summary, scores = read(files[3])
    assert summary["benchmark"] == "ifmtbench" and summary["data"]["n_instances"] == 9
    assert summary["data"]["known_as"] == "bundled" and summary["data"]["warnings"] == []
    assert " + " in summary["data"]["source"]
    assert summary["formal"] is False and any("--skip-judge" in reason for reason in summary["non_formal_reasons"])
    assert summary["if_score"]["value"] is None and summary["composition_drop"]["value"] is None
    assert summary["hard_pass_rate"]["value"] == pytest.approx(5 / 9)  # s1, s3 x2 (no hard label), s5, m1
    assert scores["s4"]["constraints"][0]["detail"]["fallback"] == "skipped"
    assert scores["m3"]["status"] == "missing" and scores["m3"]["if_score"] == 0.0
    assert scores["s1"]["data_file"] == "test_single_constraint.jsonl"
    assert summary["predictions"]["missing"] == 1 and summary["judge"] is None
    report = (files[3] / "report.md").read_text(encoding="utf-8")
    assert "# IFMTBench evaluation report" in report and "## By label combination" in report
    assert "### layout (hard): 2 of 4 failed" in report and "### style (soft): not judged" in report
    html = (files[3] / "report.html").read_text(encoding="utf-8")
    assert "IFMTBench evaluation report" in html and "single vs multi" in html


def test_skip_judge_sends_nothing_even_with_a_judge_configured(files, monkeypatch):
    """The original's --skip-llm still calls the Judge (a departure, docs/ifmtbench.md)."""
    with JudgeServer(ifmt_handler) as server:
        assert run(files, "--skip-judge", server=server, monkeypatch=monkeypatch) == 0
    assert server.requests == []


def test_a_judged_run_asks_gpt_4o_with_the_originals_parameters_and_is_formal(files, monkeypatch, capfd):
    with JudgeServer(ifmt_handler) as server:
        status = run(files, server=server, monkeypatch=monkeypatch)
    assert status == 0, capfd.readouterr().err
    assert len(server.requests) == N_REQUESTS
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert (body["model"], body["temperature"], body["top_p"], body["max_tokens"]) == ("gpt-4o", 0, 0.6, 8192)
    summary, scores = read(files[3])
    assert summary["formal"] is True, summary["non_formal_reasons"]
    assert summary["judge"]["params"] == {"temperature": 0, "top_p": 0.6, "max_tokens": 8192}
    assert summary["judge"]["prompt_versions"] == {"ifmt_rubric": "ifmt-rubric-1", "ifmt_glossary": "ifmt-glossary-1",
                                                   "repair": "repair-1"}
    assert scores["s3:zh"]["if_score"] == pytest.approx(0.8)
    assert scores["s3:ja"]["if_score"] == 0.0 and scores["s3:ja"]["judge_nulls"] == 1
    assert scores["s4"]["if_score"] == 1.0 and scores["s4"]["constraints"][0]["detail"]["fallback"] == "passed"
    assert scores["m1"]["if_score"] == pytest.approx(0.8) and scores["m2"]["if_score"] == 0.0
    single = [1, 0, 0.8, 0, 1, 1]
    multi = [0.8, 0, 0]
    assert summary["if_score_single"]["value"] == pytest.approx(sum(single) / 6, abs=1e-6)
    assert summary["if_score_multi"]["value"] == pytest.approx(sum(multi) / 3, abs=1e-6)
    assert summary["composition_drop"]["value"] == pytest.approx(sum(single) / 6 - sum(multi) / 3, abs=1e-6)
    assert summary["if_score"]["value"] == pytest.approx((sum(single) + sum(multi)) / 9, abs=1e-6)
    assert summary["judge_nulls"]["count"] == 1 and summary["glossary_fallback"]["judge_passed"] == 1
    assert "ifmtbench" in summary["signature"] and "prompt.ifmt_rubric:ifmt-rubric-1" in summary["signature"]
    for path in files[3].iterdir():
        assert KEY.encode() not in path.read_bytes(), path


def _invalid_for_m1(reply: str, repair_too: bool):
    """A handler that answers m1's rubric request with `reply` (and its repair turn too, if asked)."""
    def handler(request):
        turns = len(request.body.get("messages", []))
        if "[style=3]" in request.prompt and (turns == 1 or repair_too):
            return Reply(body={"choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant", "content": reply}}]})
        return ifmt_handler(request)
    return handler


@pytest.mark.parametrize("reply", ['{"scores": {"style": 7, "background": null}}', "1",
                                   '{"scores": {"style": true, "background": null}}'])
def test_an_invalid_verdict_and_an_invalid_repair_abort_and_the_rerun_asks_only_the_repair(files, monkeypatch, capfd,
                                                                                           reply):
    out = files[3]
    with JudgeServer(_invalid_for_m1(reply, repair_too=True)) as server:
        assert run(files, "--judge-concurrency", "1", server=server, monkeypatch=monkeypatch) == 3
        assert "m1" in capfd.readouterr().err
        assert len(server.requests) == N_REQUESTS + 1  # the repair turn was asked, and answered wrongly again
        assert not (out / "summary.json").exists() and not (out / "scores.jsonl").exists()
        server.handler, server.requests = ifmt_handler, []
        assert run(files, server=server, monkeypatch=monkeypatch) == 0
    summary, scores = read(out)
    assert len(server.requests) == 1 and len(server.requests[0].body["messages"]) == 3  # the repair turn only
    assert summary["judge"]["repairs"] == {"ifmt_rubric": 1}
    assert scores["m1"]["constraints"][1]["detail"]["judge"]["repaired"] is True


def test_a_repaired_verdict_is_the_verdict(files, monkeypatch, capfd):
    with JudgeServer(_invalid_for_m1("Style: 3/5, background: 5/5", repair_too=False)) as server:
        assert run(files, server=server, monkeypatch=monkeypatch) == 0, capfd.readouterr().err
    repair = [request for request in server.requests if len(request.body["messages"]) == 3]
    assert len(repair) == 1 and "an integer from 0 to 5, or null" in repair[0].body["messages"][2]["content"]
    summary, scores = read(files[3])
    assert summary["judge"]["repairs"] == {"ifmt_rubric": 1}
    assert scores["m1"]["if_score"] == pytest.approx(0.8)


def test_without_repairs_the_first_invalid_verdict_aborts(files, monkeypatch, capfd):
    with JudgeServer(_invalid_for_m1("4", repair_too=False)) as server:
        status = run(files, "--judge-repairs", "0", "--judge-concurrency", "1", server=server, monkeypatch=monkeypatch)
    assert status == 3 and "m1" in capfd.readouterr().err
    assert all(len(request.body["messages"]) == 1 for request in server.requests)


def test_a_killed_run_resumes_with_only_the_missing_requests(files, tmp_path):
    single, multi, predictions, out = files
    env = {**os.environ, "JUDGE_API_KEY": KEY, "PYTHONPATH": str(ROOT)}
    held = {"after": 2}  # the first run's later requests are held, so the signal lands mid-run however busy the machine

    def holding(request):
        reply = ifmt_handler(request)
        held["after"] -= 1
        if held["after"] < 0:
            reply.delay = 60
        return reply

    with JudgeServer(holding) as server:
        env["JUDGE_API_BASE"] = server.base_url
        command = [sys.executable, str(ROOT / "evaluate.py"), "--data", str(single), "--data", str(multi),
                   "--predictions", str(predictions), "--output-dir", str(out), "--quiet", "--judge-concurrency", "1"]
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while len(server.requests) < 3 and time.monotonic() < deadline:  # one at a time: two answered, cached
            time.sleep(0.02)
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
        assert process.returncode == 128 + signal.SIGTERM
        assert not (out / "summary.json").exists()
        cached = count_replies(out / "judge_cache.sqlite")
        assert 2 <= cached < N_REQUESTS
        server.requests = []
        held["after"] = N_REQUESTS
        done = subprocess.run(command, env=env, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
    summary, _ = read(out)
    assert summary["judge"]["cache_hits"] == cached and len(server.requests) == N_REQUESTS - cached


def test_two_runs_compare_and_share_a_leaderboard(files, monkeypatch, tmp_path, capfd):
    with JudgeServer(ifmt_handler) as server:
        assert run(files, server=server, monkeypatch=monkeypatch) == 0
        better = write_jsonl(tmp_path / "better.jsonl", [dict(line, response=GOOD + " `id`") if line.get("md5") == "m2" else line
                                                         for line in PREDICTIONS])
        second = tmp_path / "second"
        status = run_cli(evaluate.main, ["--data", str(files[0]), "--data", str(files[1]), "--predictions", str(better),
                                         "--output-dir", str(second), "--quiet"])
        assert status == 0
    report = tmp_path / "compare.json"
    assert compare_main([str(files[3]), str(second), "--json", str(report)]) == 0
    comparison = json.loads(report.read_text(encoding="utf-8"))
    assert comparison["metrics"]["if_score"]["delta"] == pytest.approx(1 / 9, abs=1e-6)
    assert "layout" in comparison["by_constraint"]
    table = tmp_path / "board.csv"
    assert leaderboard_main([str(files[3]), str(second), "--csv", str(table)]) == 0
    assert table.read_text(encoding="utf-8").count("\n") == 3


def test_a_dataset_folder_holding_data_is_read_as_the_two_files(files, tmp_path, capfd):
    single, multi, predictions, out = files
    folder = tmp_path / "IFMTBench"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / single.name).write_bytes(single.read_bytes())
    (folder / "data" / multi.name).write_bytes(multi.read_bytes())
    status = run_cli(evaluate.main, ["--dataset", str(folder), "--predictions", str(predictions), "--output-dir",
                                     str(out), "--skip-judge", "--quiet"])
    assert status == 0, capfd.readouterr().err
    summary, _ = read(out)
    assert summary["benchmark"] == "ifmtbench" and summary["data"]["known_as"] == "bundled"
    assert summary["data"]["n_instances"] == 9


def test_the_bundled_references_pass_every_hard_label_offline(tmp_path, capfd):
    """The bundled set through evaluate.py with its references as predictions (the original's
    {md5, response, instruction_lang} form): known as bundled, every hard label passes."""
    rows = [json.loads(line) for name in ("test_single_constraint.jsonl", "test_multi_constraint.jsonl")
            for line in (ROOT / "data" / "ifmtbench" / "data" / name).read_text(encoding="utf-8").splitlines()]
    references = write_jsonl(tmp_path / "references.jsonl", [
        {"md5": row["md5"], "instruction_lang": row["instruction_lang"], "response": row["output"]} for row in rows])
    out = tmp_path / "out"
    status = run_cli(evaluate.main, ["--benchmark", "ifmtbench", "--predictions", str(references), "--output-dir",
                                     str(out), "--skip-judge", "--quiet"])
    assert status == 0, capfd.readouterr().err
    summary, scores = read(out)
    assert summary["data"]["known_as"] == "bundled" and summary["data"]["warnings"] == []
    assert summary["data"]["n_instances"] == len(rows) >= 200
    assert summary["hard_pass_rate"]["value"] == 1.0
    assert summary["glossary_fallback"]["rule_failed"] == 0


def test_a_prediction_for_the_wrong_instruction_language_is_refused(files, tmp_path, capfd):
    single, multi, _, out = files
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"md5": "s3", "response": "x"}])
    status = run_cli(evaluate.main, ["--data", str(single), "--data", str(multi), "--predictions", str(bad),
                                     "--output-dir", str(out), "--skip-judge", "--quiet"])
    err = capfd.readouterr().err
    assert status == 2 and "bad.jsonl:1" in err and "md5 's3' occurs 2 times" in err
    assert not out.exists() or not any(out.iterdir())


def test_structured_verdicts_send_each_kinds_schema(files, monkeypatch, capfd):
    with JudgeServer(ifmt_handler) as server:
        assert run(files, "--judge-structured", server=server, monkeypatch=monkeypatch) == 0, capfd.readouterr().err
    schemas = {json.dumps(request.body["response_format"], sort_keys=True) for request in server.requests}
    assert len(schemas) == 2  # the rubric's and the glossary fallback's
    rubric = next(request.body["response_format"] for request in server.requests if "style" in
                  json.dumps(request.body["response_format"]))
    style = rubric["json_schema"]["schema"]["properties"]["scores"]["properties"]["style"]
    assert style == {"anyOf": [{"type": "integer", "enum": [0, 1, 2, 3, 4, 5]}, {"type": "null"}]}


def test_two_files_with_the_release_row_counts_are_known_as_the_release(tmp_path, capfd):
    """The release publishes no checksum: its two row counts make it known (and formal with the Judge)."""
    folder = tmp_path / "IFMTBench" / "data"
    folder.mkdir(parents=True)
    write_jsonl(folder / "test_single_constraint.jsonl", [ifmt_row(f"s{i:05d}") for i in range(4506)])
    write_jsonl(folder / "test_multi_constraint.jsonl",
                [ifmt_row(f"m{i:05d}", ids=("layout", "code_tag")) for i in range(2838)])
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"md5": "s00000", "response": GOOD}])
    out = tmp_path / "out"
    status = run_cli(evaluate.main, ["--dataset", str(folder.parent), "--predictions", str(predictions),
                                     "--output-dir", str(out), "--skip-judge", "--quiet"])
    assert status == 0, capfd.readouterr().err
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["data"]["known_as"] == "official release (by row counts)"
    assert summary["data"]["n_instances"] == 7344 and len(summary["data"]["sha256"]) == 64
    assert [reason for reason in summary["non_formal_reasons"] if "skip-judge" not in reason] == []
    assert "known:official-release" in summary["signature"]
