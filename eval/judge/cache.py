"""The Judge response cache: one SQLite file (WAL), one row per request that got a complete reply.

SPEC §10: the key is a hash of the full URL and the complete request body, so a verdict is only
ever served back for the very same model, endpoint, parameters and prompt. Each reply is
committed the moment it arrives: an interrupted or aborted run loses nothing, and the rerun only
asks for what is missing (an invalid first reply is kept too, so the rerun goes straight to its
repair turn). The API key is not part of the body and is never stored; the URL is hashed, not
stored, in case a gateway carries a secret in it.

Each reply records whether it came from a stand-in Judge (`stand_in`: what the reply's x-stand-in
header said, NULL for a real Judge), so a rerun answered wholly from the cache still names the
stand-in. Layout 1 had no such column: a cache of layout 1 is read as it is (its replies name no
stand-in) and gains the column the first time a run opens it for writing (layout 2).

The file records its layout's version (`PRAGMA user_version`) and is marked as a Judge cache
(`PRAGMA application_id`); a file of another layout or a newer version, and any file that is not
a Judge cache (another program's SQLite database, a text file), is refused before the first
request (ConfigError, exit 2), never after paid requests, and is left byte for byte as it was.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

from eval.errors import ConfigError, JudgeError

SCHEMA_VERSION = 2
# `PRAGMA application_id` of a cache ("ITJC"); caches written before it have 0 and are known by layout.
APPLICATION_ID = 0x49544A43
SQLITE_HEADER = b"SQLite format 3\x00"
OWN_OBJECTS = frozenset({"judge_replies", "sqlite_autoindex_judge_replies_1",
                         "judge_batches", "sqlite_autoindex_judge_batches_1"})
NEW_FILE_FIX = "point --judge-cache at a new file (or at an earlier Judge cache); the harness writes only its own"
COLUMNS = ("key", "model", "endpoint_kind", "request", "reply", "created_at", "stand_in")
# The columns of layout 1 (before `stand_in`): such a cache is still read, and migrated on opening.
COLUMNS_V1 = COLUMNS[:-1]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    endpoint_kind TEXT NOT NULL,
    request TEXT NOT NULL,
    reply TEXT NOT NULL,
    created_at REAL NOT NULL,
    stand_in TEXT
)
"""


# The Batch jobs in flight (SPEC §18): made only by --judge-batch, so a cache that never saw a batch
# keeps its layout; each input file is recorded before its batch is created, the batch id as soon as
# it is, and `collected_at` once its answers are in judge_replies.
_BATCH_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_batches (
    input_file_id TEXT PRIMARY KEY,
    batch_id TEXT,
    endpoint TEXT NOT NULL,
    keys TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    collected_at REAL
)
"""


def ensure_batch_table(connection: sqlite3.Connection) -> None:
    connection.execute(_BATCH_SCHEMA)


def cache_key(url: str, body: bytes) -> str:
    """SHA-256 of the full URL and the exact request body bytes (SPEC §10)."""
    return hashlib.sha256(url.encode("utf-8") + b"\n" + body).hexdigest()


def open_cache(path: Path) -> sqlite3.Connection:
    """Open (or create) the cache, checking that it is one first (SPEC §10): a file that is not
    this harness's cache is refused before anything writes to it, or sets a pragma."""
    check_cache_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
    try:
        _check_layout(connection, path)  # again, as the writer sees it (a -wal file included)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(_SCHEMA)
        _migrate(connection)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    except sqlite3.DatabaseError as error:
        connection.close()
        raise ConfigError(f"the Judge cache {path} cannot be used ({type(error).__name__}: {error})",
                          hint="point --judge-cache at a new file, or delete the broken one") from None
    except ConfigError:
        connection.close()
        raise
    return connection


def check_cache_file(path: Path) -> None:
    """Refuse a file at `path` that is not a Judge cache of this harness, leaving it untouched
    (read through a read-only, immutable connection: no lock, no -wal, no pragma). No file, or an
    empty one, is a new cache. Raises ConfigError (exit 2) naming the file and the fix."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as error:
        raise ConfigError(f"the Judge cache {path} cannot be read ({type(error).__name__}: {error.strerror})",
                          hint=NEW_FILE_FIX) from None
    if not head:
        return
    if head != SQLITE_HEADER:
        raise ConfigError(f"the Judge cache {path} is not a SQLite file (left untouched)", hint=NEW_FILE_FIX)
    try:
        probe = sqlite3.connect(path.resolve().as_uri() + "?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as error:
        raise ConfigError(f"the Judge cache {path} cannot be read ({type(error).__name__}: {error})",
                          hint=NEW_FILE_FIX) from None
    try:
        _check_layout(probe, path)
    except sqlite3.DatabaseError as error:
        raise ConfigError(f"the Judge cache {path} cannot be used ({type(error).__name__}: {error}; left untouched)",
                          hint=NEW_FILE_FIX) from None
    finally:
        probe.close()


def _check_layout(connection: sqlite3.Connection, path: Path) -> None:
    """A database of something else, or a cache of another layout or a newer version: one clear
    refusal before any request (only reads: the file is unchanged)."""
    application_id = connection.execute("PRAGMA application_id").fetchone()[0]
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    names = [name for (name,) in connection.execute("SELECT name FROM sqlite_master ORDER BY name")]
    others = [name for name in names if name not in OWN_OBJECTS and not name.startswith("sqlite_stat")]
    ours = "judge_replies" in names
    if application_id not in (0, APPLICATION_ID) or others or (not ours and version != 0):
        listed = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        what = f"its tables: {listed}" if others else f"application_id {application_id}, user_version {version}"
        raise ConfigError(f"the Judge cache {path} is a SQLite database of something else ({what}), "
                          "not a Judge cache of this harness; it was left untouched", hint=NEW_FILE_FIX)
    columns = tuple(row[1] for row in connection.execute("PRAGMA table_info(judge_replies)"))
    fix = "point --judge-cache at a new file, or move this one away (its verdicts are kept there)"
    if version > SCHEMA_VERSION:
        raise ConfigError(f"the Judge cache {path} was written by a newer harness (layout version {version}, "
                          f"this one reads {SCHEMA_VERSION})", hint=fix)
    layout_1 = sorted(columns) == sorted(COLUMNS_V1)  # read as it is; opened for writing, it gains the column
    if columns and sorted(columns) != sorted(COLUMNS) and not layout_1:
        raise ConfigError(f"the Judge cache {path} has another table layout (columns {', '.join(columns)}; "
                          f"expected {', '.join(COLUMNS)})", hint=fix)


def _migrate(connection: sqlite3.Connection) -> None:
    """Layout 1 to 2: add the `stand_in` column (NULL for the replies already stored: a reply of
    layout 1 is not known to come from a stand-in). Under the write lock, so that two runs opening
    the same old cache at once add it once."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(judge_replies)")}
        if "stand_in" not in columns:
            connection.execute("ALTER TABLE judge_replies ADD COLUMN stand_in TEXT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def read_reply(connection: sqlite3.Connection, key: str) -> str | None:
    """The stored reply text for `key`, or None."""
    stored = read_stored(connection, key)
    return None if stored is None else stored[0]


def read_stored(connection: sqlite3.Connection, key: str) -> tuple[str, str | None] | None:
    """(reply text, what its stand-in Judge said or None) for `key`, or None when nothing is stored."""
    row = connection.execute("SELECT reply, stand_in FROM judge_replies WHERE key = ?", (key,)).fetchone()
    return None if row is None else (row[0], row[1])


def write_reply(connection: sqlite3.Connection, key: str, model: str, endpoint_kind: str,
                request: bytes, reply: str, stand_in: str | None = None) -> None:
    """Store a validated reply with its request body (kept for audit) and, when the reply came from
    a stand-in Judge, what its x-stand-in header said; committed at once."""
    try:
        connection.execute(
            "INSERT OR REPLACE INTO judge_replies (key, model, endpoint_kind, request, reply, created_at, stand_in)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, model, endpoint_kind, request.decode("utf-8"), reply, time.time(), stand_in),
        )
    except sqlite3.OperationalError as error:  # a full disk, a read-only file: the reply cannot be kept
        raise JudgeError(f"the Judge cache cannot store a reply ({error})",
                         hint="free disk space where --judge-cache lives (or point it elsewhere), then rerun: "
                              "the verdicts stored so far are kept") from None

