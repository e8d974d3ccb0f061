"""Keeping an API key out of every text the harness writes (SPEC §10): cache, outputs, logs, errors.

Shared by the provider layer (eval/provider.py re-exports it), the Judge, predict.py and the lock
files (eval/locking.py), which must not need the provider to write a redacted command line.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"
SECRET_PIECE = 8  # no piece of a secret this long may survive redaction (a provider echoing 8-11 characters)
_BEARER = re.compile(r"(?i)\b(bearer)(\s+|%20|\+)[^\s\"'<>,;\\]+")


def redact(text: str, secrets: tuple[str, ...] | list[str], limit: int | None = None) -> str:
    """`text` without the secrets, any piece of them of 8 characters or more, and any `Bearer`
    value; only then cut to `limit` characters, so a cut can never leave a key's prefix behind."""
    pieces: set[str] = set()
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
        if len(secret) > SECRET_PIECE:
            pieces.update(secret[i:i + SECRET_PIECE] for i in range(len(secret) - SECRET_PIECE + 1))
    if pieces:
        covered = [False] * len(text)
        for start in range(len(text) - SECRET_PIECE + 1):
            if text[start:start + SECRET_PIECE] in pieces:
                covered[start:start + SECRET_PIECE] = [True] * SECRET_PIECE
        if any(covered):
            out, inside = [], False
            for char, hidden in zip(text, covered):
                if hidden and not inside:
                    out.append(REDACTED)
                elif not hidden:
                    out.append(char)
                inside = hidden
            text = "".join(out)
    text = _BEARER.sub(lambda match: f"{match.group(1)} {REDACTED}", text)
    if limit is not None and len(text) > limit:
        text = text[: max(0, limit - 1)] + "…"
    return text
