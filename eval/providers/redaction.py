"""Keeping an API key out of every text the harness writes (SPEC §10): cache, outputs, logs, errors.

Shared by the provider layer (eval/providers/health.py re-exports it), the Judge, predict.py and the lock
files (eval/io/locking.py), which must not need the provider to write a redacted command line.
"""

from __future__ import annotations

import functools
import re

REDACTED = "[redacted]"
SECRET_PIECE = 8  # no piece of a secret this long may survive redaction (a provider echoing 8-11 characters)
_BEARER = re.compile(r"(?i)\b(bearer)(\s+|%20|\+)[^\s\"'<>,;\\]+")


def redact(text: str, secrets: tuple[str, ...] | list[str], limit: int | None = None) -> str:
    """`text` without the secrets, any piece of them of 8 characters or more, and any `Bearer`
    value; only then cut to `limit` characters, so a cut can never leave a key's prefix behind."""
    text = without_secrets(text, secrets)
    text = _BEARER.sub(lambda match: f"{match.group(1)} {REDACTED}", text)
    if limit is not None and len(text) > limit:
        text = text[: max(0, limit - 1)] + "…"
    return text


def without_secrets(text: str, secrets: tuple[str, ...] | list[str]) -> str:
    """`text` with each secret, and each run of text that 8-character pieces of one cover, as
    REDACTED; nothing else changes (a provider's text is kept as it is: a translation may say
    "bearer"). Linear in the text (see `_cover`); the stored copy of a Judge reply or of a
    model's answer goes through it (SPEC §10)."""
    kept = _kept(secrets)
    for secret in kept:
        text = text.replace(secret, REDACTED)
    pieces = _pieces(kept)
    return text if pieces is None else _cover(text, pieces)


# The values local servers' documentation tells users to send when the server checks no key (vLLM's
# `EMPTY` and `token-abc123`, llama.cpp's `sk-no-key-required`, Ollama's and LM Studio's names, ...).
# They are public, so hiding them protects nothing, while redacting them would rewrite every answer
# that uses the word (`required`, `empty`): a prediction is scored as written.
PLACEHOLDER_KEYS = frozenset({"empty", "none", "null", "no-key", "nokey", "no_key", "not-needed", "not-used",
                              "sk-no-key-required", "sk-no-key", "sk-dummy", "dummy", "token-abc123", "ollama",
                              "lm-studio", "lmstudio", "llama.cpp", "vllm", "local", "test", "key", "apikey",
                              "api-key", "sk-xxx", "sk-local", "placeholder", "anything"})


def is_placeholder_key(value: str) -> bool:
    """A documented no-key placeholder (PLACEHOLDER_KEYS), whatever its case and surrounding spaces."""
    return value.strip().lower() in PLACEHOLDER_KEYS


def _kept(secrets: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The secrets redact() looks for, longest first (an empty or very short value, or a documented
    no-key placeholder, is no key)."""
    return tuple(sorted((s for s in secrets if s and len(s) >= 4 and not is_placeholder_key(s)),
                        key=len, reverse=True))


@functools.lru_cache(maxsize=16)
def _pieces(secrets: tuple[str, ...]) -> tuple[re.Pattern, frozenset[str]] | None:
    """The secrets' 8-character pieces, and a pattern for the runs of 8 or more characters that
    secrets are made of (only inside such a run can a piece occur); built once per key set."""
    pieces = frozenset(secret[i:i + SECRET_PIECE] for secret in secrets if len(secret) > SECRET_PIECE
                       for i in range(len(secret) - SECRET_PIECE + 1))
    if not pieces:
        return None
    characters = sorted(set("".join(pieces)))
    return re.compile("[" + "".join(map(re.escape, characters)) + "]{%d,}" % SECRET_PIECE), pieces


def _cover(text: str, found: tuple[re.Pattern, frozenset[str]]) -> str:
    """Each maximal run of characters that some occurrence of a piece covers (overlapping ones
    too), as one REDACTED. Linear: one scan for the runs of the secrets' characters (in C), then
    one set look-up per window inside those runs only (ordinary prose has few)."""
    runs_of_key_characters, pieces = found
    covered: list[list[int]] = []
    for run in runs_of_key_characters.finditer(text):
        for start in range(run.start(), run.end() - SECRET_PIECE + 1):
            if text[start:start + SECRET_PIECE] in pieces:
                if covered and start <= covered[-1][1]:
                    covered[-1][1] = start + SECRET_PIECE
                else:
                    covered.append([start, start + SECRET_PIECE])
    if not covered:
        return text
    out, last = [], 0
    for start, end in covered:
        out += [text[last:start], REDACTED]
        last = end
    out.append(text[last:])
    return "".join(out)
