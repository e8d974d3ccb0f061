"""The Judge response cache: one SQLite file (WAL), one row per request that got a valid verdict.

SPEC §10: the key is a hash of the full URL and the complete request body, so a verdict is only
ever served back for the very same model, endpoint, parameters and prompt. Each verdict is
committed the moment it arrives: an interrupted or aborted run loses nothing, and the rerun only
asks for what is missing. The API key is not part of the body and is never stored; the URL is
hashed, not stored, in case a gateway carries a secret in it.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

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
    """Open (or create) the cache; WAL lets two runs share one file (`--judge-cache`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute(_SCHEMA)
    return connection


def read_reply(connection: sqlite3.Connection, key: str) -> str | None:
    """The stored reply text for `key`, or None."""
    row = connection.execute("SELECT reply FROM judge_replies WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def write_reply(connection: sqlite3.Connection, key: str, model: str, endpoint_kind: str,
                request: bytes, reply: str) -> None:
    """Store a validated reply with its request body (kept for audit); committed at once."""
    connection.execute(
        "INSERT OR REPLACE INTO judge_replies (key, model, endpoint_kind, request, reply, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (key, model, endpoint_kind, request.decode("utf-8"), reply, time.time()),
    )

