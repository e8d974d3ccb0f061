"""`evaluate.py` with the Judge on, end to end against a local server (SPEC §6, §9–§11)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import evaluate
from conftest import make_row, write_jsonl
from eval.exits import run_cli
from conftest import count_replies
from judge_server import JudgeServer, Reply, candidate_of, default_handler, is_soft_prompt

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-e2e-SECRET-key-9f8e7d6c5b4a"
STYLE_LINE = "译文语体：正式，全文保持一致"
COREF_LINE = '指代一致：文中的"她"均指林晓'
ROWS = [
    make_row("r1", source_text="他走进了房间。", reference="He walked into the room.", scenario="novel",
             domain="小说", constraints=[STYLE_LINE], constraint_ids=["style_consistency"],
             style={"formality": "formal"}),
    make_row("r2", source_text="林晓说她明天来。", reference="Lin Xiao said she would come tomorrow.",
             scenario="novel", domain="小说", constraints=[COREF_LINE], constraint_ids=["coref_resolution"]),
    make_row("r3"),
    make_row("r4", source_text="她笑了。", reference="She smiled.", scenario="novel", domain="小说",
             constraints=[COREF_LINE], constraint_ids=["coref_resolution"]),
    make_row("r5", source_text="天亮了。", reference="Day broke.", scenario="novel", domain="小说",
             constraints=[STYLE_LINE], constraint_ids=["style_consistency"], style={"formality": "formal"}),
    make_row("r6", source_text="你好", reference="Hi"),
]
PREDICTIONS = [
    {"case_id": "r1", "prediction": "He entered the room. [q=0.5] [s=0.5]"},
    {"case_id": "r2", "prediction": "Lin Xiao said she would come tomorrow."},
    {"case_id": "r3", "prediction": "Hello, world [q=0]"},
    {"case_id": "r4", "prediction": None},
    {"case_id": "r5", "prediction": ""},
    {"case_id": "r6", "prediction": " \n\t"},
]
N_REQUESTS = 5  # quality for r1–r3, soft for r1 and r2; none for the three missing predictions


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    predictions = write_jsonl(tmp_path / "predictions.jsonl", PREDICTIONS)
    return data, predictions, tmp_path / "out"


def evaluate_with(server: JudgeServer, files, monkeypatch, *extra: str) -> int:
    monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
    data, predictions, out = files
    return run_cli(evaluate.main, ["--data", str(data), "--predictions", str(predictions), "--output-dir", str(out),
                                   "--judge-backoff", "0.001", *extra])


def read_scores(out) -> dict:
    return {row["case_id"]: row for row in map(json.loads, (out / "scores.jsonl").read_text().splitlines())}


def test_a_full_run_scores_soft_constraints_and_quality(files, monkeypatch, capfd):
    with JudgeServer() as server:
        status = evaluate_with(server, files, monkeypatch)
    out = files[2]
    stdout, stderr = capfd.readouterr()
    assert status == 0, stderr
    assert len(server.requests) == N_REQUESTS
    scores = read_scores(out)
    assert (scores["r1"]["quality"], scores["r1"]["constraints"][0]["score"], scores["r1"]["if_score"]) == (0.5, 0.5, 0.5)
    assert (scores["r2"]["quality"], scores["r2"]["if_score"]) == (1.0, 1.0)
    assert (scores["r3"]["quality"], scores["r3"]["if_score"]) == (0.0, 1.0)
    for case_id in ("r4", "r5", "r6"):
        assert scores[case_id]["status"] == "missing" and scores[case_id]["quality"] == 0.0
    summary = json.loads((out / "summary.json").read_text())
    judge = summary["judge"]
    assert (judge["model"], judge["endpoint_kind"], judge["calls"], judge["cache_hits"]) == (
        "gpt-5.6-sol", "responses", N_REQUESTS, 0)
    assert judge["prompt_versions"] == {"quality": "quality-1", "soft": "soft-1", "repair": "repair-1"}
    for part in ("judge:gpt-5.6-sol", "endpoint:responses", "quality-1", "soft-1"):
        assert part in summary["signature"]
    assert summary["signature"] in (out / "report.md").read_text()
    for path in out.iterdir():
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in stdout and KEY not in stderr


def test_a_persistent_500_aborts_without_a_summary_and_the_rerun_resumes(files, monkeypatch, capfd):
    def handler(request):
        prompt = request.prompt
        if "come tomorrow" in candidate_of(prompt) and not is_soft_prompt(prompt):  # r2's quality prompt
            return Reply(500, {"error": {"message": f"backend down for {KEY}"}})
        return default_handler(request)

    out = files[2]
    with JudgeServer(handler) as server:
        status = evaluate_with(server, files, monkeypatch, "--judge-max-retries", "1", "--judge-concurrency", "1")
        stderr = capfd.readouterr().err
        assert status == 3
        assert "case r2 (quality prompt)" in stderr and KEY not in stderr
        assert not any((out / name).exists() for name in ("summary.json", "scores.jsonl", "report.md"))
        kept = count_replies(out / "judge_cache.sqlite")
        assert 0 < kept < N_REQUESTS
        server.handler, server.requests = default_handler, []  # same URL, so the same cache keys
        assert evaluate_with(server, files, monkeypatch, "--quiet") == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge"]["calls"] == len(server.requests) == N_REQUESTS - kept
    assert summary["judge"]["cache_hits"] == kept
    assert read_scores(out)["r2"]["quality"] == 1.0


@pytest.mark.parametrize("variable", ["JUDGE_API_BASE", "JUDGE_API_KEY"])
def test_missing_endpoint_settings_stop_before_any_work(files, monkeypatch, capfd, variable):
    with JudgeServer() as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        monkeypatch.delenv(variable)
        data, predictions, out = files
        status = run_cli(evaluate.main, ["--data", str(data), "--predictions", str(predictions), "--output-dir", str(out)])
    assert status == 2 and variable in capfd.readouterr().err
    assert server.requests == [] and not (out / "summary.json").exists()


def test_a_shared_cache_path_serves_a_second_output_dir(files, monkeypatch, tmp_path):
    data, predictions, out = files
    cache = tmp_path / "shared.sqlite"
    with JudgeServer() as server:
        assert evaluate_with(server, files, monkeypatch, "--quiet", "--judge-cache", str(cache)) == 0
        second = (data, predictions, tmp_path / "out2")
        assert evaluate_with(server, second, monkeypatch, "--quiet", "--judge-cache", str(cache)) == 0
    assert len(server.requests) == N_REQUESTS
    assert json.loads((tmp_path / "out2" / "summary.json").read_text())["judge"]["cache_hits"] == N_REQUESTS
    assert not (out / "judge_cache.sqlite").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum, status, words", [
    (signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "stopped by SIGTERM"),
    (signal.SIGHUP, 129, "stopped by SIGHUP"),
])
def test_an_interrupted_run_keeps_its_verdicts_and_the_rerun_asks_for_the_rest(files, monkeypatch, signum, status,
                                                                                words):
    data, predictions, out = files
    hold = threading.Event()  # the third reply is held (an order, not a time) until the run is stopped

    def handler(request):
        reply = default_handler(request)
        reply.release = hold if len(server.requests) >= 3 else None
        return reply
    with JudgeServer(handler) as server:
        env = {**os.environ, "JUDGE_API_BASE": server.base_url, "JUDGE_API_KEY": KEY}
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "evaluate.py"), "--data", str(data), "--predictions", str(predictions),
             "--output-dir", str(out), "--judge-concurrency", "1"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # a background shell ignores SIGINT
        deadline = time.monotonic() + 30
        while len(server.requests) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=30)
        hold.set()
        assert process.returncode == status, stderr
        assert words in stderr and "no result was written" in stderr
        assert "Traceback" not in stderr and KEY not in stdout + stderr
        assert not any((out / name).exists() for name in ("summary.json", "scores.jsonl", "report.md"))
        kept = count_replies(out / "judge_cache.sqlite")
        assert 2 <= kept < N_REQUESTS
        server.requests = []
        assert evaluate_with(server, files, monkeypatch, "--quiet") == 0
    assert len(server.requests) == N_REQUESTS - kept



@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_a_stop_signal_landing_inside_an_asyncio_socket_write_still_stops_the_run(signum, status, capsys):
    """asyncio logs and drops any exception a socket write raises but KeyboardInterrupt and
    SystemExit ("Fatal write error on socket transport"): a SIGTERM or SIGHUP whose handler ran
    there was lost, and the run went on to write its results (seen under load)."""
    import asyncio
    import socket

    class SignalledWhileSending(socket.socket):
        def send(self, data, *flags):
            signal.raise_signal(signum)  # its handler runs here, inside the transport's write
            return super().send(data, *flags)

    def main(argv):
        async def write_and_finish():
            mine, theirs = socket.socketpair()
            sock = SignalledWhileSending(mine.family, mine.type, fileno=mine.detach())
            transport, _ = await asyncio.get_running_loop().create_connection(asyncio.Protocol, sock=sock)
            try:
                transport.write(b"request")
                await asyncio.sleep(0)
            finally:
                transport.close()
                theirs.close()
            return 0  # a lost signal: the run finishes and would write its results

        return asyncio.run(write_and_finish())

    assert run_cli(main, []) == status
    assert capsys.readouterr().err.startswith("interrupted" if signum == signal.SIGINT else
                                              f"stopped by {signal.Signals(signum).name}")


SCORE_ROW_KEYS = {"case_id", "source_lang", "target_lang", "scenario", "domain", "constraint_ids", "status",
                  "constraints", "hard_pass", "soft_mean", "if_score", "quality", "quality_detail"}
SUMMARY_KEYS = {"harness_version", "benchmark", "scorer_version", "formal", "non_formal_reasons", "data", "predictions", "rule_set", "judge",
                "system", "subset", "signature", "signature_fields", "if_score", "quality", "hard_pass_rate", "hard_pass_rate_strict", "by_constraint", "by_scenario", "by_domain",
                "by_language_pair", "by_target_lang", "by_constraint_count"}


def test_the_bundled_data_with_the_judge_on_is_a_formal_run_with_the_spec_outputs(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    out = tmp_path / "out"
    with JudgeServer() as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, ["--predictions", str(ROOT / "data" / "example_predictions.jsonl"),
                                         "--output-dir", str(out), "--quiet", "--judge-backoff", "0.001"])
    assert status == 0, capfd.readouterr().err
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (summary["formal"], summary["non_formal_reasons"], summary["data"]["manifest_match"]) == (True, [], True)
    assert set(summary) == SUMMARY_KEYS
    assert set(summary["data"]) == {"source", "sha256", "identity", "known_as", "manifest_match", "n_instances",
                                    "warnings"}
    assert (summary["data"]["known_as"], summary["data"]["identity"], summary["data"]["warnings"]) == (
        "bundled", "file", [])
    assert "|known:bundled|" in summary["signature"]
    assert {"model", "endpoint_kind", "host", "params", "prompt_versions", "calls", "cache_hits"} <= set(summary["judge"])
    for name in ("if_score", "quality", "hard_pass_rate"):
        assert summary[name]["value"] is not None and len(summary[name]["ci95"]) == 2
    assert summary["by_constraint"]["style_consistency"]["mean"] is not None
    rows = read_scores(out)
    assert len(rows) == summary["data"]["n_instances"] and all(set(row) == SCORE_ROW_KEYS for row in rows.values())
    # every Judge score can be traced to its request: the cache key and the raw reply
    judged = [row for row in rows.values() if row["status"] == "ok"]
    assert judged and all(set(row["quality_detail"]) == {"cache_key", "reply"} for row in judged)
    assert all(row["quality_detail"] is None for row in rows.values() if row["status"] == "missing")
    soft = [entry for row in judged for entry in row["constraints"] if entry["kind"] == "soft"]
    assert soft and all({"cache_key", "reply"} <= set(entry["detail"]) for entry in soft)
    assert all(json.loads(row["quality_detail"]["reply"]) == {"quality": row["quality"]} for row in judged)
    entry_keys = {frozenset(entry) for row in rows.values() for entry in row["constraints"]}
    assert entry_keys <= {frozenset({"index", "id", "kind", "passed", "detail"}),
                          frozenset({"index", "id", "kind", "score", "detail"})}
    assert KEY not in "".join(path.read_text(errors="ignore") for path in out.iterdir() if path.is_file())
