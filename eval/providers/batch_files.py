"""OpenAI Batch API lines (SPEC §18): the request file that the OpenAI Batch API and vLLM's
`run_batch` read, and the output / error files they write.

A request line is `{"custom_id", "method": "POST", "url", "body"}`; its `body` is spliced in as the
very bytes the online path sends, so "byte-identical to the online request" holds by construction
and a test can cut it back out (`body_bytes`). An output line is `{"id", "custom_id", "response":
{"status_code", "request_id", "body"} | null, "error": {"code", "message"} | "text" | null}` (vLLM
writes the error as a string). Everything read from an output file is outside text: shapes are
checked, messages cut short.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable

from eval.providers.openai_api import CHAT, RESPONSES

# The OpenAI Batch API's limits on one input file (a batch is one file).
MAX_LINES = 50_000
MAX_BYTES = 200 * 1024 * 1024
ENDPOINT_PATHS = {CHAT: "/v1/chat/completions", RESPONSES: "/v1/responses"}
BODY_MARK = b', "body": '
MAX_MESSAGE_CHARS = 300


def request_line(custom_id: str, kind: str, body: bytes) -> bytes:
    """One input line, `body` spliced in unchanged (the online request's exact bytes)."""
    head = json.dumps({"custom_id": custom_id, "method": "POST", "url": ENDPOINT_PATHS[kind]}, ensure_ascii=False)
    return head[:-1].encode("utf-8") + BODY_MARK + body + b"}\n"


def body_bytes(line: bytes) -> bytes:
    """The body of a line `request_line` wrote. The mark cannot occur inside the JSON head (a quote
    inside a JSON string is escaped), so its first occurrence is the body's start."""
    start = line.index(BODY_MARK) + len(BODY_MARK)
    return line.rstrip(b"\n")[start:-1]


def split_lines(lines: Iterable[bytes], max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> list[list[bytes]]:
    """Lines in order, cut into files of at most `max_lines` lines and `max_bytes` bytes each;
    ValueError names a single line that is larger than a whole file may be."""
    files: list[list[bytes]] = []
    current: list[bytes] = []
    size = 0
    for number, line in enumerate(lines, 1):
        if len(line) > max_bytes:
            raise ValueError(f"request line {number} has {len(line)} bytes, more than a batch file may hold "
                             f"({max_bytes})")
        if current and (len(current) >= max_lines or size + len(line) > max_bytes):
            files.append(current)
            current, size = [], 0
        current.append(line)
        size += len(line)
    if current:
        files.append(current)
    return files


@dataclass(frozen=True)
class Outcome:
    """One output or error line: the answer body (status 200), or what went wrong."""

    custom_id: str
    status_code: int | None
    body: dict | None
    error: str | None   # None: a 200 with a body


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + "…"


def _error_text(error: object) -> str | None:
    if error is None:
        return None
    if isinstance(error, dict):
        code, message = error.get("code"), error.get("message")
        parts = [str(part) for part in (code, message) if isinstance(part, (str, int)) and not isinstance(part, bool)]
        return _short(": ".join(parts) or json.dumps(error, ensure_ascii=False)[:MAX_MESSAGE_CHARS])
    return _short(str(error))


def outcome_of(entry: object) -> Outcome:
    """Read one output / error line; ValueError says what is wrong with its shape."""
    if not isinstance(entry, dict):
        raise ValueError("a batch output line must be a JSON object")
    custom_id = entry.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        raise ValueError("the line has no non-empty string custom_id")
    response = entry.get("response")
    if response is not None and not isinstance(response, dict):
        raise ValueError(f"custom_id {custom_id!r}: response must be an object or null")
    response = response or {}
    status = response.get("status_code")
    status = status if isinstance(status, int) and not isinstance(status, bool) else None
    body = response.get("body") if isinstance(response.get("body"), dict) else None
    error = _error_text(entry.get("error"))
    if error is None and status != 200:
        inner = body.get("error") if isinstance(body, dict) else None
        error = _error_text(inner) or (f"HTTP {status}" if status is not None else "no response and no error")
    if error is None and body is None:
        error = "status 200 without a body"
    return Outcome(custom_id, status, body if error is None else None, error)
