"""Untrusted text inside a Judge prompt (SPEC §10): every benchmark's prompts show the candidate,
and the texts beside it, in fenced blocks whose marker no text can forge.

The tag is derived from the texts themselves (so the rendering stays deterministic and the cache
keeps working) and chosen so that it occurs in none of them: a prediction cannot close the block
early and speak to the Judge in its own voice.
"""

from __future__ import annotations

import hashlib


def delimiter_tag(*texts: str) -> str:
    """A short tag that occurs in none of `texts`, stable for the same texts."""
    seed = "\x00".join(texts).encode("utf-8")
    for salt in range(1000):
        tag = hashlib.sha256(seed + str(salt).encode()).hexdigest()[:12]
        if not any(tag in text for text in texts):
            return tag
    raise ValueError("no delimiter tag fits these texts")  # not reachable for real text


def delimited_block(name: str, tag: str, text: str) -> str:
    return f"<<<{name} {tag}>>>\n{text}\n<<<END {name} {tag}>>>"
