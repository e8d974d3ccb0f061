"""The Judge response cache: one SQLite file (WAL), one row per request that got a complete reply.

SPEC §10: the key is a hash of the full URL and the complete request body, so a verdict is only
ever served back for the very same model, endpoint, parameters and prompt. Each reply is
committed the moment it arrives: an interrupted or aborted run loses nothing, and the rerun only
asks for what is missing (an invalid first reply is kept too, so the rerun goes straight to its
repair turn). The API key is not part of the body and is never stored; the URL is hashed, not
stored, in case a gateway carries a secret in it.

The file records its layout's version (`PRAGMA user_version`); a file of another layout or a newer
version is refused before the first request (ConfigError, exit 2), never after paid requests.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

from eval.errors import ConfigError, JudgeError

SCHEMA_VERSION = 1
COLUMNS = ("key", "model", "endpoint_kind", "request", "reply", "created_at")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    endpoint_kind TEXT NOT NULL,
    request TEXT NOT NULL,
    reply TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


def cache_key(url: str, body: bytes) -> str:
    """SHA-256 of the full URL and the exact request body bytes (SPEC §10)."""
    return hashlib.sha256(url.encode("utf-8") + b"\n" + body).hexdigest()


def open_cache(path: Path) -> sqlite3.Connection:
    """Open (or create) the cache, checking its layout and version first (SPEC §10)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
    try:
        _check_layout(connection, path)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(_SCHEMA)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except sqlite3.DatabaseError as error:
        connection.close()
        raise ConfigError(f"the Judge cache {path} cannot be used ({type(error).__name__}: {error})",
                          hint="point --judge-cache at a new file, or delete the broken one") from None
    except ConfigError:
        connection.close()
        raise
    return connection


def _check_layout(connection: sqlite3.Connection, path: Path) -> None:
    """A cache of another layout or a newer version: one clear refusal before any request."""
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    columns = tuple(row[1] for row in connection.execute("PRAGMA table_info(judge_replies)"))
    fix = "point --judge-cache at a new file, or move this one away (its verdicts are kept there)"
    if version > SCHEMA_VERSION:
        raise ConfigError(f"the Judge cache {path} was written by a newer harness (layout version {version}, "
                          f"this one reads {SCHEMA_VERSION})", hint=fix)
    if columns and sorted(columns) != sorted(COLUMNS):
        raise ConfigError(f"the Judge cache {path} has another table layout (columns {', '.join(columns)}; "
                          f"expected {', '.join(COLUMNS)})", hint=fix)


def read_reply(connection: sqlite3.Connection, key: str) -> str | None:
    """The stored reply text for `key`, or None."""
    row = connection.execute("SELECT reply FROM judge_replies WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def write_reply(connection: sqlite3.Connection, key: str, model: str, endpoint_kind: str,
                request: bytes, reply: str) -> None:
    """Store a validated reply with its request body (kept for audit); committed at once."""
    try:
        connection.execute(
            "INSERT OR REPLACE INTO judge_replies (key, model, endpoint_kind, request, reply, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (key, model, endpoint_kind, request.decode("utf-8"), reply, time.time()),
        )
    except sqlite3.OperationalError as error:  # a full disk, a read-only file: the reply cannot be kept
        raise JudgeError(f"the Judge cache cannot store a reply ({error})",
                         hint="free disk space where --judge-cache lives (or point it elsewhere), then rerun: "
                              "the verdicts stored so far are kept") from None

