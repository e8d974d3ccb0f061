"""State and files under real conditions (issue 22, SPEC §10, §11, §13): a Judge cache of another
layout or version, a full disk while caching, a symlinked cache, predictions rewritten during a
judged run, pipes and FIFOs as inputs, predict.py killed before its first answer, a late signal
while the results are renamed, and the write paths of eval/io/outputs.py. Real files, real servers
on 127.0.0.1, real child processes."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval.io import outputs
from eval.errors import ConfigError, JudgeError
from eval.judge.cache import SCHEMA_VERSION, open_cache, write_reply
from eval.io.locking import hold_lock
from eval.io.outputs import RESULT_FILES, remove_previous_results, write_atomic, write_results
from judge_server import JudgeServer, default_handler
from model_server import ModelServer

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-files-SECRET-0123456789abcdef"
ROWS = [json.loads(line) for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").splitlines()[:4]]


def write_data(tmp_path: Path) -> tuple[Path, Path]:
    data, predictions = tmp_path / "data.jsonl", tmp_path / "predictions.jsonl"
    data.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in ROWS), encoding="utf-8")
    predictions.write_text("".join(json.dumps({"case_id": row["case_id"], "prediction": row["reference"]},
                                              ensure_ascii=False) + "\n" for row in ROWS), encoding="utf-8")
    return data, predictions


def evaluate(args: list[str], base_url: str | None = None, stdin=None, timeout=60) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("JUDGE_API")}
    if base_url:
        env.update(JUDGE_API_BASE=base_url, JUDGE_API_KEY=KEY)
    return subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--quiet", *args], env=env, stdin=stdin,
                          capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------------------------------------
# The Judge cache
# ---------------------------------------------------------------------------------------------

def test_a_cache_of_another_layout_is_refused_before_any_request(tmp_path):
    cache = tmp_path / "judge_cache.sqlite"
    with sqlite3.connect(cache) as connection:
        connection.execute("CREATE TABLE judge_replies (key TEXT PRIMARY KEY, verdict TEXT)")
    data, predictions = write_data(tmp_path)
    with JudgeServer() as server:
        done = evaluate(["--data", str(data), "--predictions", str(predictions), "--output-dir",
                         str(tmp_path / "out"), "--judge-cache", str(cache)], server.base_url)
        assert server.requests == []
    assert done.returncode == 2, done.stderr
    assert "another table layout" in done.stderr and "--judge-cache" in done.stderr and "Traceback" not in done.stderr


def test_a_cache_of_a_newer_version_or_not_a_database_is_refused(tmp_path):
    newer = tmp_path / "newer.sqlite"
    open_cache(newer).close()
    with sqlite3.connect(newer) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(ConfigError, match="newer harness"):
        open_cache(newer)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(ConfigError, match="is not a SQLite file"):
        open_cache(junk)
    fresh = open_cache(tmp_path / "fresh.sqlite")
    assert fresh.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_full_disk_while_caching_says_so_with_a_hint(tmp_path):
    connection = open_cache(tmp_path / "c.sqlite")
    connection.execute("PRAGMA max_page_count = 8")  # the file may not grow: SQLite's "database or disk is full"
    with pytest.raises(JudgeError, match="cannot store a reply") as caught:
        for number in range(100):
            write_reply(connection, f"k{number}", "m", "chat_completions", b"{}", "x" * 4000)
    assert "free disk space" in caught.value.hint


def test_a_symlinked_cache_is_locked_where_it_really_is(tmp_path):
    real = tmp_path / "real.sqlite"
    link = tmp_path / "link.sqlite"
    link.symlink_to(real)
    with hold_lock(real, "Judge cache", is_dir=False):
        with pytest.raises(ConfigError, match="in use"):
            with hold_lock(link, "Judge cache", is_dir=False):
                pass


# ---------------------------------------------------------------------------------------------
# Inputs: the bytes read, pipes, FIFOs
# ---------------------------------------------------------------------------------------------

def test_predictions_rewritten_during_the_run_are_identified_by_the_bytes_scored(tmp_path):
    data, predictions = write_data(tmp_path)
    original = hashlib.sha256(predictions.read_bytes()).hexdigest()

    def rewriting(request):
        predictions.write_text("rewritten\n", encoding="utf-8")
        return default_handler(request)

    with JudgeServer(rewriting) as server:
        done = evaluate(["--data", str(data), "--predictions", str(predictions), "--output-dir",
                         str(tmp_path / "out")], server.base_url)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["predictions"]["sha256"] == original


def test_predictions_and_data_through_pipes_are_read_once_and_hashed_right(tmp_path):
    data, predictions = write_data(tmp_path)
    with open(predictions, "rb") as stdin:
        piped = evaluate(["--data", str(data), "--predictions", "/dev/stdin", "--output-dir", str(tmp_path / "a"),
                          "--skip-judge"], stdin=stdin)
    assert piped.returncode == 0, piped.stderr
    summary = json.loads((tmp_path / "a" / "summary.json").read_text(encoding="utf-8"))
    assert summary["predictions"]["sha256"] == hashlib.sha256(predictions.read_bytes()).hexdigest()
    substituted = subprocess.run(["bash", "-c", f'"{sys.executable}" "{ROOT / "evaluate.py"}" --quiet --skip-judge '
                                  f'--data <(cat "{data}") --predictions <(cat "{predictions}") '
                                  f'--output-dir "{tmp_path / "b"}"'], capture_output=True, text=True, timeout=60)
    assert substituted.returncode == 0, substituted.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text(encoding="utf-8"))
    assert summary["data"]["sha256"] == hashlib.sha256(data.read_bytes()).hexdigest()
    assert summary["predictions"]["rows"] == len(ROWS)


def test_a_named_fifo_is_refused_with_one_line_not_a_hang(tmp_path):
    data, _ = write_data(tmp_path)
    fifo = tmp_path / "predictions.fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    done = evaluate(["--data", str(data), "--predictions", str(fifo), "--output-dir", str(tmp_path / "out"),
                     "--skip-judge"], timeout=30)
    assert time.monotonic() - started < 30 and done.returncode == 2, done.stderr
    assert "named pipe" in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------------------------------------
# predict.py killed before its first answer
# ---------------------------------------------------------------------------------------------

def test_predict_killed_before_its_first_answer_resumes(tmp_path):
    from model_server import reference_rows

    rows = reference_rows(ROOT / "data" / "test.jsonl")[:3]
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("".join(json.dumps({"case_id": row["case_id"], "messages": row["messages"]},
                                         ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    output = tmp_path / "predictions.jsonl"
    meta = tmp_path / "predictions.meta.json"

    def predict(base_url: str) -> subprocess.Popen:
        env = {**os.environ, "MODEL_API_BASE": base_url, "MODEL_API_KEY": KEY}
        return subprocess.Popen([sys.executable, str(ROOT / "predict.py"), "--inputs", str(inputs), "--output",
                                 str(output), "--model", "stand-in", "--quiet"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    with ModelServer(rows, mode="hang") as hung:
        process = predict(hung.base_url)
        deadline = time.monotonic() + 30
        while not hung.posts() and time.monotonic() < deadline:
            time.sleep(0.05)
        process.kill()  # SIGKILL: no handler runs
        process.wait(10)
    assert meta.exists() and json.loads(meta.read_text())["complete"] is False
    with ModelServer(rows) as server:
        rerun = predict(server.base_url)
        out, err = rerun.communicate(timeout=60)
    assert rerun.returncode == 0, err
    assert [json.loads(line)["case_id"] for line in output.read_text().splitlines()] == [row["case_id"] for row in rows]


# ---------------------------------------------------------------------------------------------
# eval/io/outputs.py: failed writes, the umask, a late signal, summary.json first
# ---------------------------------------------------------------------------------------------

def test_a_failed_write_raises_and_leaves_no_temporary(tmp_path):
    with pytest.raises(UnicodeEncodeError):
        write_atomic(tmp_path / "a.txt", "lone \ud800 surrogate")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_rename_raises_and_leaves_no_temporary(tmp_path):
    (tmp_path / "target").mkdir()
    with pytest.raises(OSError):
        write_atomic(tmp_path / "target", "text")
    assert [path.name for path in tmp_path.iterdir()] == ["target"]


@pytest.mark.parametrize("umask, mode", [(0o027, 0o640), (0o022, 0o644), (0o002, 0o664)])
def test_writing_leaves_the_process_umask_as_it_was_and_the_file_readable_as_it_allows(tmp_path, umask, mode):
    before = os.umask(umask)
    try:
        write_atomic(tmp_path / "a.txt", "x")
        now = os.umask(umask)
        assert now == umask
        assert (tmp_path / "a.txt").stat().st_mode & 0o777 == mode
    finally:
        os.umask(before)


def test_a_signal_while_the_results_are_renamed_leaves_a_whole_result(tmp_path, monkeypatch):
    texts = {name: f"{name}\n" for name in RESULT_FILES}
    real_replace = os.replace
    fired = []

    def replace_and_signal(source, target):
        real_replace(source, target)
        if not fired:
            fired.append(target)
            os.kill(os.getpid(), signal.SIGTERM)  # held back until every file is in place, then dropped

    def stop(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        monkeypatch.setattr(outputs.os, "replace", replace_and_signal)
        write_results(tmp_path, texts)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert fired and sorted(path.name for path in tmp_path.iterdir()) == sorted(RESULT_FILES)


def test_an_old_summary_that_cannot_be_removed_leaves_the_old_result_whole(tmp_path):
    for name in RESULT_FILES[:-1]:
        (tmp_path / name).write_text("old")
    (tmp_path / "summary.json").mkdir()  # cannot be unlinked
    with pytest.raises(OSError):
        remove_previous_results(tmp_path)
    assert all((tmp_path / name).exists() for name in RESULT_FILES)


def test_writing_creates_missing_directories_and_reuses_existing_ones(tmp_path):
    write_atomic(tmp_path / "a" / "b" / "c.txt", "one")
    write_atomic(tmp_path / "a" / "b" / "d.txt", "two")
    assert (tmp_path / "a" / "b" / "c.txt").read_text() == "one" and (tmp_path / "a" / "b" / "d.txt").read_text() == "two"


def test_under_the_scripts_edge_a_signal_after_the_results_are_in_place_is_ignored(tmp_path):
    previous = {signum: signal.getsignal(signum) for signum in outputs.STOP_SIGNALS}
    write_results(tmp_path / "library", {name: "x\n" for name in RESULT_FILES})  # a library caller: handlers kept
    assert all(signal.getsignal(signum) == previous[signum] for signum in outputs.STOP_SIGNALS)
    try:
        placed = write_results(tmp_path, {name: "x\n" for name in RESULT_FILES}, settle=True)
        assert all(signal.getsignal(signum) is signal.SIG_IGN for signum in outputs.STOP_SIGNALS)
        os.kill(os.getpid(), signal.SIGTERM)  # nothing happens: the run is done
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert placed == [tmp_path / name for name in RESULT_FILES]
    write_results(tmp_path / "again", {name: "x\n" for name in RESULT_FILES})
    assert all(signal.getsignal(signum) == previous[signum] for signum in outputs.STOP_SIGNALS)
    assert not hasattr(outputs, "SETTLE_AFTER_RESULTS")  # no module flag: the caller says it


def test_evaluate_py_as_its_own_process_ignores_a_signal_once_its_results_are_in_place(tmp_path, monkeypatch):
    """main(None) (the script's own process: its flags from sys.argv) runs the real pipeline with
    `settle`: the stop signals are ignored once the files are placed; in-process, they are not."""
    import evaluate

    previous = {signum: signal.getsignal(signum) for signum in outputs.STOP_SIGNALS}
    argv = ["--predictions", str(ROOT / "data" / "example_predictions.jsonl"), "--skip-judge", "--quiet",
            "--limit", "3"]
    try:
        assert evaluate.main([*argv, "--output-dir", str(tmp_path / "in-process")]) == 0
        assert all(signal.getsignal(signum) == previous[signum] for signum in outputs.STOP_SIGNALS)
        monkeypatch.setattr(sys, "argv", ["evaluate.py", *argv, "--output-dir", str(tmp_path / "own")])
        assert evaluate.main(None) == 0 and (tmp_path / "own" / "summary.json").is_file()
        assert all(signal.getsignal(signum) is signal.SIG_IGN for signum in outputs.STOP_SIGNALS)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def test_only_the_scripts_own_process_settles(tmp_path, monkeypatch):
    """evaluate.py's main asks for `settle` only as its own process (argv None), never in-process."""
    import types

    import evaluate
    from eval.config import RunResult

    asked = []
    monkeypatch.setattr(evaluate, "run_evaluation",
                        lambda config, settle=False: asked.append(settle) or RunResult(7, config.output_dir))
    monkeypatch.setattr(evaluate, "run_config_from_args", lambda argv: types.SimpleNamespace(output_dir=tmp_path))
    monkeypatch.setattr(evaluate, "evaluate_parser", lambda: types.SimpleNamespace(parse_args=lambda argv: argv))
    assert evaluate.main(["--in-process"]) == 7 and evaluate.main(None) == 7
    assert asked == [False, True]
