"""German, Dutch and Swedish words: vowel units (ei, ie, au, doubled vowels)."""

from __future__ import annotations

import re


# --- Germanic languages ----------------------------------------------------------------------

_DE_UNITS = ("aa", "ee", "oo", "ie", "ei", "ai", "au", "eu", "äu", "ey", "ay", "ui")


def _german_word(word: str) -> int:
    """German vowel units (ei, ie, au, eu, äu, doubled vowels); -ien/-ie endings in loans split."""
    w = word
    w = re.sub(r"tion", "zjon", w)
    if len(w) > 5:
        w = re.sub(r"([eä])u(?=(m|ms|s)$)", r"\1-u", w)  # Mu-se-um, Ju-bi-lä-um
    count = _count_units(w, "aeiouäöüy", _DE_UNITS)
    if re.search(r"[aeiouäöü][^aeiouäöü]+i(e|en)$", w) and re.search(r"(l|n|r|d|g)i(e|en)$", w):
        if not re.search(r"(gie|rie|phie|tie|sie|fie|nie|mie)$", w) and len(re.findall(r"[aeiouäöü]+", w)) >= 3:
            count += 1
    return count


_NL_UNITS = ("aai", "ooi", "oei", "eeuw", "ieuw", "eeu", "ieu", "aa", "ee", "oo", "uu", "ie", "oe",
             "eu", "ei", "ij", "ui", "ou", "au", "ëi", "ëu")


def _dutch_word(word: str) -> int:
    """Dutch vowel units (aa, ee, ie, oe, ij, ui, ou, trigraphs); diaeresis marks hiatus."""
    if len(word) > 5:
        word = re.sub(r"eu(?=(m|ms)$)", "e-u", word)  # mu-se-um
    return _count_units(word, "aeiouyàáèéëíïóöúü", _NL_UNITS)


def _swedish_word(word: str) -> int:
    """Swedish: every vowel letter is a nucleus (no native diphthongs)."""
    return _count_units(word, "aeiouyåäöéü", ("au", "eu"))


def _count_units(word: str, vowels: str, units) -> int:
    """Nuclei of a word: at each vowel take the longest listed unit (digraph) starting there."""
    count = 0
    i = 0
    while i < len(word):
        if word[i] not in vowels:
            i += 1
            continue
        for unit in units:
            if word.startswith(unit, i):
                i += len(unit)
                break
        else:
            i += 1
        count += 1
    return count
