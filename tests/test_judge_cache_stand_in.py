"""A rerun answered wholly from the Judge cache still names the stand-in Judge (issue 33 G): each
stored reply records what its x-stand-in header said (cache layout 2); a cache of layout 1, without
that column, is read as it is and gains the column when a run opens it, its verdicts kept."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

import evaluate
from eval.errors import ConfigError
from eval.judge.cache import (COLUMNS, COLUMNS_V1, SCHEMA_VERSION, check_cache_file, open_cache, read_reply,
                              read_stored, write_reply)
from judge_server import JudgeServer

ROOT = Path(__file__).resolve().parent.parent
LAYOUT_1 = ("CREATE TABLE judge_replies (key TEXT PRIMARY KEY, model TEXT NOT NULL, endpoint_kind TEXT NOT NULL, "
            "request TEXT NOT NULL, reply TEXT NOT NULL, created_at REAL NOT NULL)")


def layout_1_cache(path: Path, rows: list[tuple] = ()) -> Path:
    """A cache as the harness of layout 1 wrote it (no stand_in column, user_version 1)."""
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute(LAYOUT_1)
    connection.executemany("INSERT INTO judge_replies VALUES (?, ?, ?, ?, ?, ?)", rows)
    connection.execute("PRAGMA user_version = 1")
    connection.commit()
    connection.close()
    old = 1_600_000_000_000_000_000
    os.utime(path, ns=(old, old))
    return path


def columns_of(connection: sqlite3.Connection) -> tuple[str, ...]:
    return tuple(row[1] for row in connection.execute("PRAGMA table_info(judge_replies)"))


def test_the_layout_is_version_2_with_a_stand_in_column():
    assert SCHEMA_VERSION == 2
    assert COLUMNS == (*COLUMNS_V1, "stand_in") and "stand_in" not in COLUMNS_V1


def test_a_new_cache_stores_and_serves_back_each_replys_stand_in(tmp_path):
    connection = open_cache(tmp_path / "c.sqlite")
    assert columns_of(connection) == COLUMNS
    write_reply(connection, "real", "m", "chat_completions", b"{}", "a verdict")
    write_reply(connection, "double", "m", "chat_completions", b"{}", "another", "tests/judge_server.py")
    connection.close()
    again = open_cache(tmp_path / "c.sqlite")
    assert read_stored(again, "real") == ("a verdict", None)
    assert read_stored(again, "double") == ("another", "tests/judge_server.py")
    assert read_stored(again, "absent") is None and read_reply(again, "double") == "another"
    again.close()


def test_a_layout_1_cache_is_checked_untouched_then_migrated_with_its_verdicts_kept(tmp_path):
    path = layout_1_cache(tmp_path / "old.sqlite", [("k", "m", "chat_completions", "{}", "kept", 0.0)])
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    check_cache_file(path)  # the check before a run only reads
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    connection = open_cache(path)
    assert columns_of(connection) == COLUMNS
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert read_stored(connection, "k") == ("kept", None)  # not known to come from a stand-in
    write_reply(connection, "new", "m", "chat_completions", b"{}", "fresh", "S")
    connection.close()
    reopened = open_cache(path)  # migrated once: opening again changes nothing
    assert columns_of(reopened) == COLUMNS and read_stored(reopened, "new") == ("fresh", "S")
    assert reopened.execute("SELECT COUNT(*) FROM judge_replies").fetchone()[0] == 2
    reopened.close()


def test_two_runs_opening_one_layout_1_cache_add_the_column_once(tmp_path):
    path = layout_1_cache(tmp_path / "old.sqlite")
    first, second = open_cache(path), open_cache(path)
    assert columns_of(first) == columns_of(second) == COLUMNS
    first.close()
    second.close()


def test_a_layout_1_table_with_other_columns_is_still_refused(tmp_path):
    """(A newer layout's refusal is test_state_and_files.py's.)"""
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute(LAYOUT_1.replace("created_at REAL NOT NULL", "created_at REAL NOT NULL, mood TEXT"))
    with pytest.raises(ConfigError, match="another table layout"):
        open_cache(other)


def judged_run(out: Path, cache: Path, monkeypatch, judge: JudgeServer) -> dict:
    monkeypatch.setenv("JUDGE_API_BASE", judge.base_url)
    monkeypatch.setenv("JUDGE_API_KEY", "k")
    monkeypatch.chdir(ROOT)
    assert evaluate.main(["--predictions", "data/example_predictions.jsonl", "--output-dir", str(out), "--quiet",
                          "--limit", "3", "--judge-cache", str(cache), "--judge-backoff", "0.001"]) == 0
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


def test_a_rerun_answered_wholly_from_the_cache_still_names_the_stand_in_judge(tmp_path, monkeypatch):
    cache = tmp_path / "cache.sqlite"
    with JudgeServer() as judge:
        first = judged_run(tmp_path / "first", cache, monkeypatch, judge)
        asked = len(judge.requests)
        second = judged_run(tmp_path / "second", cache, monkeypatch, judge)
        assert len(judge.requests) == asked > 0  # the rerun sent nothing
    assert first["judge"]["calls"] == asked and first["judge"]["cache_hits"] == 0
    assert second["judge"]["calls"] == 0 and second["judge"]["cache_hits"] == asked
    for run, summary in (("first", first), ("second", second)):
        assert summary["judge"]["stand_in"] == JudgeServer.identity, run
        note = f"stand-in Judge: {JudgeServer.identity}"
        for report in ("report.md", "report.html"):
            assert note in (tmp_path / run / report).read_text(encoding="utf-8"), (run, report)
    connection = open_cache(cache)
    assert {said for (said,) in connection.execute("SELECT stand_in FROM judge_replies")} == {JudgeServer.identity}
    connection.close()


def test_a_real_judges_replies_are_cached_naming_no_stand_in(tmp_path, monkeypatch):
    class RealJudge(JudgeServer):
        identity = ""

    cache = tmp_path / "cache.sqlite"
    with RealJudge() as judge:
        judged_run(tmp_path / "first", cache, monkeypatch, judge)
        second = judged_run(tmp_path / "second", cache, monkeypatch, judge)
    assert second["judge"]["calls"] == 0 and "stand_in" not in second["judge"]
    assert "stand-in" not in (tmp_path / "second" / "report.md").read_text(encoding="utf-8")
    connection = open_cache(cache)
    assert {said for (said,) in connection.execute("SELECT stand_in FROM judge_replies")} == {None}
    connection.close()


def test_a_layout_1_cache_keeps_answering_a_rerun(tmp_path, monkeypatch):
    """The verdicts of a cache written before the column serve a rerun (nothing is asked again);
    its replies are not known to come from a stand-in, so that rerun names none."""
    cache = tmp_path / "cache.sqlite"
    with JudgeServer() as judge:
        first = judged_run(tmp_path / "first", cache, monkeypatch, judge)
        connection = sqlite3.connect(cache)
        connection.execute("ALTER TABLE judge_replies DROP COLUMN stand_in")
        connection.execute("PRAGMA user_version = 1")
        connection.commit()
        connection.close()
        asked = len(judge.requests)
        second = judged_run(tmp_path / "second", cache, monkeypatch, judge)
        assert len(judge.requests) == asked
    assert second["judge"]["cache_hits"] == first["judge"]["calls"] > 0 and "stand_in" not in second["judge"]
    for name in ("scores.jsonl",):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes()
