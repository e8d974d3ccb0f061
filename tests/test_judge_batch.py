"""`--judge-batch` (SPEC §18) against the stand-in Batch API (tests/batch_server.py): bodies
byte-identical to the online ones, the online run's verdicts, partial errors, failed, expired and
cancelled batches retried online, the wait bound, re-attach after a stop, after a lost batch id
and after SIGKILL during the wait (the server counts the batches created: exactly one). Time is
counted in retrieves and the sleeps are injected: no real waits."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest

from batch_server import BatchServer
from eval.exits import run_cli
from eval.run import judge_batch
from evaluate import main as evaluate_main
from eval.insttrans.record import item_requests
from eval.run.judge_batch import BatchWaitStopped, fill_cache_by_batch
from eval.judge.cache import cache_key
from eval.judge_client import first_body, request_url, run_judge_prompts
from eval.config import JudgeSettings
from eval.insttrans.prompts import PROMPT_VERSIONS
from eval.insttrans.verdicts import JudgeItem
from judge_server import invalid_handler

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-batch-test-0123456789abcdef"
EXAMPLE = ROOT / "data" / "example_predictions.jsonl"
STYLE = ("style_consistency", "译文语体：正式，全文保持一致")


def judge_items(n: int) -> list[JudgeItem]:
    return [JudgeItem(f"b{i}", "zh", "en", f"你好。（{i}）", "Hello.", f"Hello number {i}. [q=0.5]" if i % 3 else
                      f"Hello {i}.", (STYLE,) if i % 2 == 0 else ()) for i in range(n)]


REQUESTS = [request for item in judge_items(8) for request in item_requests(item)]


def settings_for(base_url: str, model: str = "qwen-judge", **changes) -> JudgeSettings:
    return replace(JudgeSettings(model=model, api_base=base_url, api_key=KEY, concurrency=4, max_retries=2,
                                 timeout=5.0, backoff=0.01, backoff_max=0.05, deadline=2.0,
                                 batch=True, batch_poll=0.0), **changes)


def batch_run(server, cache: Path, requests=REQUESTS, **changes):
    settings = settings_for(server.base_url, **changes)
    return run_judge_prompts(requests, settings, cache, PROMPT_VERSIONS, progress=False, prefill=fill_cache_by_batch)


def online_run(server, cache: Path, requests=REQUESTS, **changes):
    settings = settings_for(server.base_url, batch=False, **changes)
    return run_judge_prompts(requests, settings, cache, PROMPT_VERSIONS, progress=False)


def keys_of(server, requests=REQUESTS, **changes) -> list[str]:
    settings = settings_for(server.base_url, **changes)
    return [cache_key(request_url(settings, None), first_body(settings, None, request)) for request in requests]


# ---------------------------------------------------------------------------------------------
# The same questions, the same verdicts
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["qwen-judge", "gpt-5.6-sol"])
def test_batch_bodies_are_the_online_bodies_and_the_verdicts_are_the_online_ones(tmp_path, model):
    with BatchServer() as server:
        verdicts, block = batch_run(server, tmp_path / "b.sqlite", model=model)
        assert server.online_posts() == [] and server.created == 1
        sent = dict(server.received)
        online, online_block = online_run(server, tmp_path / "o.sqlite", model=model)
        online_bodies = {cache_key(request_url(settings_for(server.base_url, model=model), None), post.raw): post.raw
                         for post in server.online_posts()}
    assert sent == online_bodies  # custom_id = cache key, body = the online bytes, for every request
    assert sorted(sent) == sorted(set(keys_of(server, model=model)))
    assert dict(verdicts) == dict(online) and verdicts.replies == online.replies
    assert block["calls"] == 0 and block["cache_hits"] == len(REQUESTS)
    assert block["batch"]["lines"] == block["batch"]["answered"] == len(REQUESTS)
    assert block["batch"]["retried_online"] == 0 and block["batch"]["usage"] == online_block["usage"]
    # every verdict came from the cache, filled by the batch: the stand-in is named all the same (issue 33 G)
    assert block["stand_in"] == online_block["stand_in"] == BatchServer.identity


def test_an_invalid_batch_answer_is_repaired_online_as_the_online_path_does(tmp_path):
    with BatchServer(invalid_handler()) as server:
        verdicts, block = batch_run(server, tmp_path / "b.sqlite")
        repairs_online = len(server.online_posts())
        online, online_block = online_run(server, tmp_path / "o.sqlite")
    assert repairs_online == len(REQUESTS)  # each first answer came by batch; each repair turn online
    assert dict(verdicts) == dict(online) and block["repairs"] == online_block["repairs"]
    with BatchServer(invalid_handler()) as server, pytest.raises(Exception, match="from its batch"):
        batch_run(server, tmp_path / "r0.sqlite", repairs=0)


def test_the_request_file_is_split_to_the_line_limit(tmp_path, monkeypatch):
    with BatchServer() as server:
        settings = settings_for(server.base_url)
        verdicts, block = run_judge_prompts(
            REQUESTS, settings, tmp_path / "b.sqlite", PROMPT_VERSIONS, progress=False,
            prefill=lambda *args: fill_cache_by_batch(*args, max_lines=5))
        assert server.created == -(-len(REQUESTS) // 5) and server.online_posts() == []
    assert block["batch"]["batches"] == server.created and len(verdicts) == len(REQUESTS)


# ---------------------------------------------------------------------------------------------
# What fails goes online
# ---------------------------------------------------------------------------------------------

def test_error_lines_are_asked_online_and_counted(tmp_path):
    with BatchServer() as probe:
        failing = frozenset(keys_of(probe)[:3])
    with BatchServer() as server:
        server.error_ids = set(keys_of(server)[:3])
        verdicts, block = batch_run(server, tmp_path / "b.sqlite")
        assert len(server.online_posts()) == 3
    assert len(verdicts) == len(REQUESTS) and block["batch"]["retried_online"] == 3 and len(failing) == 3


class ForgetfulBatchServer(BatchServer):
    """A provider that has deleted a finished batch's output file (or kept it past its retention)."""

    def finish(self, batch: dict, status: str) -> None:
        super().finish(batch, status)
        self.files.pop(batch.get("output_file_id"), None)


def test_a_result_file_that_is_gone_is_asked_online_and_the_rerun_does_not_fail_again(tmp_path, capfd):
    """A 404 on a finished batch's output file: its requests go online (said in one line), the
    batch is collected, and a rerun answers from the cache without touching the batch again."""
    with ForgetfulBatchServer() as server:
        verdicts, block = batch_run(server, tmp_path / "b.sqlite")
        assert len(server.online_posts()) == len(REQUESTS) and len(verdicts) == len(REQUESTS)
        created = server.created
        again, _ = batch_run(server, tmp_path / "b.sqlite")
        assert server.created == created and len(server.online_posts()) == len(REQUESTS) and again == verdicts
    assert block["batch"]["retried_online"] == len(REQUESTS)
    assert "is gone (HTTP 404" in capfd.readouterr().err


@pytest.mark.parametrize("mode, changes", [("expired", {"expire_after": 4}), ("failed", {"fail": True})])
def test_an_expired_or_failed_batch_is_reported_and_its_rest_asked_online(tmp_path, capfd, mode, changes):
    with BatchServer(**changes) as server:
        verdicts, block = batch_run(server, tmp_path / "b.sqlite")
        online = len(server.online_posts())
    answered = 4 if mode == "expired" else 0
    assert online == len(REQUESTS) - answered and len(verdicts) == len(REQUESTS)
    assert block["batch"]["failed_batches"] == [{"id": "batch_1", "status": mode}]
    assert f"batch batch_1 {mode}" in capfd.readouterr().err


def test_a_cancelled_batch_is_reported_and_its_rest_asked_online(tmp_path, capfd, monkeypatch):
    server = BatchServer(hold=True, per_poll=2)

    def cancel_then_sleep(seconds):  # someone cancels the batch in the provider's dashboard
        import httpx

        server.hold = False
        httpx.post(f"{server.base_url}/batches/batch_1/cancel", headers={"Authorization": f"Bearer {KEY}"})

    monkeypatch.setattr(judge_batch, "SLEEP", cancel_then_sleep)
    with server:
        verdicts, block = batch_run(server, tmp_path / "b.sqlite")
        online = len(server.online_posts())
    assert block["batch"]["cancelled"] == ["batch_1"] and online == len(REQUESTS) - block["batch"]["answered"]
    assert len(verdicts) == len(REQUESTS)
    assert "batch batch_1 was cancelled" in capfd.readouterr().err


# ---------------------------------------------------------------------------------------------
# The wait, a stop, and re-attaching
# ---------------------------------------------------------------------------------------------

def test_the_wait_bound_stops_like_an_interrupted_run_and_the_rerun_reattaches(tmp_path, capfd):
    cache = tmp_path / "b.sqlite"
    with BatchServer(hold=True) as server:
        with pytest.raises(BatchWaitStopped, match=r"stopped waiting for the Judge batches after 0 s") as stopped:
            batch_run(server, cache, batch_wait=0.0)
        assert stopped.value.exit_status == 130 and "re-attach" in stopped.value.hint
        rows = sqlite3.connect(cache).execute("SELECT batch_id, status, collected_at FROM judge_batches").fetchall()
        assert rows == [("batch_1", "validating", None)]  # recorded before the wait
        assert "Judge batch: 1 validating; 0/%d requests done" % len(REQUESTS) in capfd.readouterr().err
        server.hold = False
        verdicts, block = batch_run(server, cache)
        assert server.created == 1 and server.online_posts() == []  # re-attached: nothing sent twice
        assert block["batch"]["reattached"] == 1 and len(verdicts) == len(REQUESTS)
        again, block = batch_run(server, cache)  # everything cached: no batch at all
        assert server.created == 1 and block["batch"]["batches"] == 0


def test_the_progress_line_tells_status_counts_and_elapsed_time_from_the_injected_clock(tmp_path, capfd, monkeypatch):
    ticks = iter(range(0, 10_000, 7))
    monkeypatch.setattr(judge_batch, "CLOCK", lambda: next(ticks))
    with BatchServer(per_poll=5) as server:
        batch_run(server, tmp_path / "b.sqlite")
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("Judge: Judge batch:")]
    assert lines[0] == f"Judge: Judge batch: 1 validating; 0/{len(REQUESTS)} requests done, 0 failed; 7 s elapsed"  # 0 at the start, 7 at the first look
    assert any(f"1 in_progress; 5/{len(REQUESTS)} requests done" in line for line in lines)
    assert lines[-1].startswith(f"Judge: Judge batch: 1 completed; {len(REQUESTS)}/{len(REQUESTS)} requests done")
    assert [int(line.rsplit("; ", 1)[1].split(" ")[0]) for line in lines] == sorted(
        int(line.rsplit("; ", 1)[1].split(" ")[0]) for line in lines)


def test_a_batch_id_lost_between_create_and_record_is_found_by_its_file(tmp_path, monkeypatch):
    cache = tmp_path / "b.sqlite"
    real = judge_batch._record_batch

    def killed(*args):
        raise KeyboardInterrupt  # the process dies right after the provider created the batch

    monkeypatch.setattr(judge_batch, "_record_batch", killed)
    with BatchServer() as server:
        with pytest.raises(KeyboardInterrupt):
            batch_run(server, cache)
        assert server.created == 1
        monkeypatch.setattr(judge_batch, "_record_batch", real)
        verdicts, block = batch_run(server, cache)
        assert server.created == 1 and server.online_posts() == [] and len(verdicts) == len(REQUESTS)


def evaluate(args: list[str], base_url: str, cwd: Path, **popen) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("JUDGE_API", "MODEL_API"))}
    env.update(JUDGE_API_BASE=base_url, JUDGE_API_KEY=KEY)
    return subprocess.Popen([sys.executable, str(ROOT / "evaluate.py"), "--predictions", str(EXAMPLE), "--quiet",
                             "--limit", "10", *args], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


def evaluate_here(args: list[str], base_url: str, cwd: Path) -> tuple[int, str]:
    """The same command line run by evaluate.py's main in this process (exit status, stderr), where
    the process is not what a test is about: argparse's refusals come from its SystemExit."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("JUDGE_API", "MODEL_API"))}
    env.update(JUDGE_API_BASE=base_url, JUDGE_API_KEY=KEY)
    argv = ["--predictions", str(EXAMPLE), "--quiet", "--limit", "10", *args]
    stderr = io.StringIO()
    before = os.getcwd()
    os.chdir(cwd)
    try:
        with mock.patch.dict(os.environ, env, clear=True), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(stderr):
            try:
                status = run_cli(evaluate_main, argv)
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else 2
    finally:
        os.chdir(before)
    return status, stderr.getvalue()


def test_sigkill_during_the_wait_then_the_rerun_reattaches_and_scores_as_an_online_run(tmp_path):
    out, online_out = tmp_path / "batch", tmp_path / "online"
    with BatchServer(hold=True) as server:
        killed = evaluate(["--output-dir", str(out), "--judge-batch", "--judge-batch-poll", "0.01"],
                          server.base_url, tmp_path)
        deadline = time.monotonic() + 120  # a condition to wait for, not a timing under test
        while not (server.created == 1 and any(request.path.startswith("/v1/batches/") for request in server.requests)):
            assert killed.poll() is None and time.monotonic() < deadline, killed.stderr.read() if killed.poll() else ""
            time.sleep(0.01)
        killed.send_signal(signal.SIGKILL)
        killed.wait(30)
        server.hold = False
        status, err = evaluate_here(["--output-dir", str(out), "--judge-batch", "--judge-batch-poll", "0"],
                                    server.base_url, tmp_path)  # the rerun: what it finds, not how it starts
        assert status == 0, err
        assert server.created == 1 and server.online_posts() == []  # nothing paid twice
        assert "re-attaching to 1 Judge batch(es)" in err
        status, err = evaluate_here(["--output-dir", str(online_out)], server.base_url, tmp_path)
        assert status == 0, err
    assert (out / "scores.jsonl").read_bytes() == (online_out / "scores.jsonl").read_bytes()
    batch_summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    online_summary = json.loads((online_out / "summary.json").read_text(encoding="utf-8"))
    assert batch_summary["judge"]["batch"]["reattached"] == 1
    for summary in (batch_summary, online_summary):
        summary.pop("judge")
        summary["predictions"].pop("path", None)
    assert batch_summary == online_summary  # the same scores, summary and signature


def test_batch_flags_that_cannot_work_are_refused(tmp_path):
    cases = [(["--judge-batch-wait", "5"], "--judge-batch-wait applies to --judge-batch only"),
             (["--judge-batch", "--judge-price", "1,2", "--judge-budget", "1"], "--judge-budget stops online"),
             (["--judge-batch", "--judge-batch-wait", "-1"], "--judge-batch-wait must be 0 or more"),
             (["--skip-judge", "--judge-batch"], "--judge-batch is about the Judge")]
    with BatchServer() as server:
        for args, message in cases:
            status, err = evaluate_here(["--output-dir", str(tmp_path / "run"), *args], server.base_url, tmp_path)
            assert status == 2 and message in err, err
        assert server.requests == []


def test_the_counts_docs_judge_md_shows_are_the_benchmarks(capsys, monkeypatch):
    """The script's two runs of evaluate.py on the bundled set, its command lines as it builds them,
    run in this process (the counts do not depend on the process; its wall time is not compared)."""
    from scripts import bench_judge_batch

    def run_here(argv: list[str], env: dict, capture_output: bool, text: bool) -> subprocess.CompletedProcess:
        assert argv[:2] == [sys.executable, str(ROOT / "evaluate.py")] and capture_output and text
        stdout, stderr = io.StringIO(), io.StringIO()
        with mock.patch.dict(os.environ, env, clear=True), contextlib.redirect_stdout(stdout), \
                contextlib.redirect_stderr(stderr):
            status = run_cli(evaluate_main, argv[2:])
        return subprocess.CompletedProcess(argv, status, stdout.getvalue(), stderr.getvalue())

    monkeypatch.setattr(bench_judge_batch, "subprocess", SimpleNamespace(run=run_here))
    assert bench_judge_batch.main(["--latency", "0"]) == 0
    measured = [line.split(" | ") for line in capsys.readouterr().out.splitlines()[2:]]
    shown = [line.split(" | ") for line in (ROOT / "docs" / "judge.md").read_text(encoding="utf-8").splitlines()
             if line.startswith(("| online | ", "| batch | "))]
    assert len(measured) == len(shown) == 2
    for ours, theirs in zip(measured, shown):
        assert ours[0] == theirs[0] and ours[2:] == theirs[2:]  # all but the wall time
