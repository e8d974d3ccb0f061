"""Acronyms: spelled letter by letter unless read as a word (SPEC §8)."""

from __future__ import annotations

import re
import unicodedata


# ---------------------------------------------------------------------------------------------
# Acronyms: spelled letter by letter unless read as a word (SPEC §8).
# ---------------------------------------------------------------------------------------------

_READ_AS_WORD = frozenset("""
NASA NATO UNESCO UNICEF COVID OPEC ASEAN FIFA UEFA NASDAQ AIDS SARS MERS LASER RADAR SCUBA
IKEA LEGO GIF JPEG PIN RAM ROM SIM WIFI ZIP APEC NAFTA DARPA FEMA INTERPOL CAPTCHA YOLO FOMO
LOL ONU OTAN OVNI SIDA UNAM ENA ASAP
""".split())

# Syllables of each letter's name, per language (index 0 = A ... 25 = Z).
_LETTER_SYLLABLES = {
    "en": [1] * 22 + [3] + [1] * 3,
    "es": [1, 1, 1, 1, 1, 2, 1, 2, 1, 2, 1, 2, 2, 2, 1, 1, 1, 2, 2, 1, 1, 2, 3, 2, 1, 2],
    "it": [1, 1, 1, 1, 1, 2, 1, 2, 1, 3, 2, 2, 2, 2, 1, 1, 1, 2, 2, 1, 1, 1, 3, 1, 3, 2],
    "pt": [1, 1, 1, 1, 1, 2, 1, 2, 1, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 1, 1, 1, 3, 1, 3, 1],
    "fr": [1] * 22 + [3, 1, 2, 1],
    "de": [1] * 24 + [3, 1],
    "ro": [1] * 22 + [3, 1, 2, 1],
    "pl": [1] * 24 + [2, 1],
    "sv": [1] * 22 + [3, 1, 1, 1],
    "nl": [1] * 26,
    "id": [1] * 26,
    "tr": [1] * 22 + [2, 1, 1, 1],
    "vi": [1] * 22 + [2, 1, 1, 1],
}


def _spelled_syllables(letters: str, lang: str) -> int:
    table = _LETTER_SYLLABLES.get(lang if lang in _LETTER_SYLLABLES else "en")
    total = 0
    for char in letters.upper():
        index = ord(unicodedata.normalize("NFD", char)[0]) - 65
        total += table[index] if 0 <= index < 26 else 1
    return total


_EN_ONSETS = frozenset(
    "bl br ch cl cr dr fl fr gl gr kn ph pl pr qu sc sh sk sl sm sn sp st sw th tr tw wh wr".split()
)


def _looks_pronounceable(word: str) -> bool:
    """Whether an all-capitals word of four or more letters is read as a word (NASA, NATO)."""
    lower = word.lower()
    vowels = "aeiouy"
    if not any(c in vowels for c in lower):
        return False
    if re.search(r"[^aeiouy]{3,}", lower) or re.search(r"[aeiou]{3,}", lower):
        return False
    head = re.match(r"[^aeiouy]*", lower).group()
    if len(head) >= 2 and head[:2] not in _EN_ONSETS:
        return False
    tail = re.search(r"[^aeiouy]*$", lower).group()
    if len(tail) >= 2 and tail not in ("st", "nt", "nd", "ng", "ck", "sh", "ch", "th", "rs", "ts", "ds", "ks", "rt", "rd", "rk", "lt"):
        return False
    return True


def _acronym_kind(token: str):
    """'spell', 'word' or None (not an acronym)."""
    if len(token) < 2 or not token.isupper():
        return None
    if token in _READ_AS_WORD:
        return "word"
    if len(token) >= 4 and _looks_pronounceable(token):
        return "word"
    return "spell"
