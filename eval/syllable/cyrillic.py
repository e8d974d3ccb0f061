"""Cyrillic (Russian) words: one syllable per vowel letter."""

from __future__ import annotations

import re
from functools import lru_cache


# ---------------------------------------------------------------------------------------------
# Cyrillic (Russian).
# ---------------------------------------------------------------------------------------------

_RU_VOWELS = set("аеёиоуыэюяАЕЁИОУЫЭЮЯ")


@lru_cache(maxsize=100_000)
def _cyrillic_token_syllables(token: str) -> int:
    """Russian: one syllable per vowel letter. An all-capital word is spelled with one syllable per
    letter name (ФСБ = эф-эс-бэ, МГУ = эм-гэ-у) unless it is long and pronounceable (НАТО)."""
    token = token.replace("\u0301", "")
    vowels = sum(c in _RU_VOWELS for c in token)
    if len(token) >= 2 and token.isupper():
        pronounceable = (vowels and len(token) >= 4 and not re.search(r"[^АЕЁИОУЫЭЮЯ]{3,}", token)
                         and not re.match(r"[^АЕЁИОУЫЭЮЯ]{2}", token))
        if not pronounceable:
            return len(token)
    return vowels
