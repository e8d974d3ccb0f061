"""`--judge-cache` at a file that is not a Judge cache (issue 34 item 12): another program's SQLite
database or any other file is refused with exit 2 before anything changes, byte for byte and its
mtime; a missing or empty file is a new cache, and a cache of an earlier harness opens as before."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from eval.errors import ConfigError
from eval.judge.cache import APPLICATION_ID, SCHEMA_VERSION, check_cache_file, open_cache, read_reply, write_reply
from judge_server import JudgeServer
from test_state_and_files import evaluate, write_data


def state_of(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in `folder` with its bytes and mtime (a -wal, -shm or -journal appearing counts)."""
    return {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in sorted(folder.iterdir())}


def user_database(path: Path, *statements: str, wal: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    if wal:
        connection.execute("PRAGMA journal_mode=WAL")
    for statement in statements:
        connection.execute(statement)
    connection.commit()
    connection.close()
    old = 1_600_000_000_000_000_000
    os.utime(path, ns=(old, old))  # an mtime a write would change
    return path


FOREIGN = {
    "a notes table": ("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)", "INSERT INTO notes VALUES (1, 'mine')"),
    "in WAL mode": ("CREATE TABLE notes (text TEXT)",),
    "a view only": ("CREATE VIEW v AS SELECT 1",),
    "only a user_version": ("PRAGMA user_version = 7",),
    "another application_id": ("PRAGMA application_id = 1234",),
    "a cache plus a table": ("CREATE TABLE judge_replies (key TEXT PRIMARY KEY, model TEXT NOT NULL, endpoint_kind "
                             "TEXT NOT NULL, request TEXT NOT NULL, reply TEXT NOT NULL, created_at REAL NOT NULL)",
                             "CREATE TABLE accounts (name TEXT)"),
}


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_a_foreign_sqlite_database_is_refused_untouched(tmp_path, name):
    folder = tmp_path / "mine"
    database = user_database(folder / "app.db", *FOREIGN[name], wal=name == "in WAL mode")
    before = state_of(folder)
    with pytest.raises(ConfigError) as caught:
        open_cache(database)
    assert str(database) in caught.value.message and "\n" not in caught.value.message
    assert "of something else" in caught.value.message and "--judge-cache" in caught.value.hint
    assert state_of(folder) == before


@pytest.mark.parametrize("content", [b"my notes\n" * 50, b"SQLite format 2\x00" + b"\x00" * 100,
                                     b"SQLite format 3\x00" + b"\xff" * 200])
def test_a_file_that_is_not_a_sqlite_database_is_refused_untouched(tmp_path, content):
    folder = tmp_path / "mine"
    folder.mkdir()
    path = folder / "notes.txt"
    path.write_bytes(content)
    before = state_of(folder)
    with pytest.raises(ConfigError) as caught:
        open_cache(path)
    assert str(path) in caught.value.message and "--judge-cache" in caught.value.hint
    assert state_of(folder) == before


def test_the_run_refuses_a_foreign_database_with_exit_2_before_anything_changes(tmp_path):
    """The command: one line naming the file, its fix, no request, and neither the database nor the
    previous run's results in --output-dir changed."""
    folder = tmp_path / "mine"
    database = user_database(folder / "app.db", *FOREIGN["a notes table"])
    data, predictions = write_data(tmp_path)
    output = tmp_path / "out"
    output.mkdir()
    (output / "summary.json").write_text("{}\n", encoding="utf-8")
    before, results = state_of(folder), state_of(output)
    with JudgeServer() as server:
        done = evaluate(["--data", str(data), "--predictions", str(predictions), "--output-dir", str(output),
                         "--judge-cache", str(database)], server.base_url)
        assert server.requests == []
    assert done.returncode == 2, done.stderr
    first = done.stderr.splitlines()[0]
    assert str(database) in first and "not a Judge cache" in first and "Traceback" not in done.stderr
    assert "--judge-cache" in done.stderr
    assert state_of(folder) == before and state_of(output) == results


def test_a_missing_or_empty_file_is_a_new_cache_marked_as_one(tmp_path):
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    for path in (tmp_path / "new" / "cache.sqlite", empty):
        check_cache_file(path)
        connection = open_cache(path)
        assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        write_reply(connection, "k", "m", "chat_completions", b"{}", "reply")
        connection.close()
        again = open_cache(path)  # its own cache: opened again, its reply there
        assert read_reply(again, "k") == "reply"
        again.close()


def test_a_cache_of_an_earlier_harness_without_the_mark_still_opens(tmp_path):
    path = tmp_path / "old.sqlite"
    user_database(path, FOREIGN["a cache plus a table"][0], "PRAGMA user_version = 1",  # layout 1's
                  "INSERT INTO judge_replies VALUES ('k', 'm', 'chat', '{}', 'kept', 0)", wal=True)
    connection = open_cache(path)
    assert read_reply(connection, "k") == "kept"
    assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    connection.close()


def test_a_killed_first_run_leaves_a_cache_that_still_opens(tmp_path):
    """A run killed right after creating the file: WAL mode set, no table yet (user_version 0)."""
    path = user_database(tmp_path / "c.sqlite", "PRAGMA journal_mode=WAL")
    open_cache(path).close()
