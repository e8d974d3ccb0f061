"""Hindi (Devanagari): vowel nuclei with schwa deletion."""

from __future__ import annotations

import re
from functools import lru_cache


# ---------------------------------------------------------------------------------------------
# Hindi (Devanagari): vowel nuclei with schwa deletion.
# ---------------------------------------------------------------------------------------------

_DEVA_INDEPENDENT = set(chr(c) for c in list(range(0x0904, 0x0915)) + [0x0960, 0x0961, 0x0972, 0x0973, 0x0974, 0x0975, 0x0976, 0x0977])
_DEVA_CONSONANT = set(chr(c) for c in list(range(0x0915, 0x093A)) + list(range(0x0958, 0x0960)) + list(range(0x0978, 0x0980)))
_DEVA_MATRA = set(chr(c) for c in list(range(0x093A, 0x093C)) + list(range(0x093E, 0x094D)) + [0x094E, 0x094F, 0x0955, 0x0956, 0x0957, 0x0962, 0x0963])
_VIRAMA = "\u094D"
_SEMIVOWELS = set("यरलव")


@lru_cache(maxsize=100_000)
def _hindi_word_syllables(token: str) -> int:
    return sum(_hindi_one_word(word) for word in re.split(r"[\u200c\u200d]+", token) if word)


def _hindi_one_word(word: str) -> int:
    """Aksharas carrying a vowel, minus schwas deleted by the usual Hindi rules: the final schwa
    (kept after a cluster ending in य र ल व) and a medial schwa in V C _ C V, right to left."""
    units = []  # [vowel kind: 'a' schwa, 'v' other vowel, None none; cluster-onset flag; last consonant]
    i = 0
    n = len(word)
    pending_cluster = False
    while i < n:
        c = word[i]
        if c in _DEVA_INDEPENDENT:
            units.append(["v", False, ""])
            pending_cluster = False
            i += 1
            continue
        if c in _DEVA_CONSONANT:
            i += 1
            while i < n and word[i] == "\u093C":
                i += 1
            if i < n and word[i] == _VIRAMA:
                i += 1
                pending_cluster = True
                continue
            vowel = "a"
            if i < n and word[i] in _DEVA_MATRA:
                vowel = "v"
                i += 1
            units.append([vowel, pending_cluster, c])
            pending_cluster = False
            continue
        i += 1
    if not units:
        return 1 if pending_cluster else 0
    if len(units) > 1 and units[-1][0] == "a" and not pending_cluster:
        if not (units[-1][1] and units[-1][2] in _SEMIVOWELS):
            units[-1][0] = None
    for index in range(len(units) - 2, 0, -1):
        unit = units[index]
        if unit[0] != "a" or unit[1]:
            continue
        before, after = units[index - 1], units[index + 1]
        if before[0] is not None and after[0] is not None and not after[1]:
            unit[0] = None
    return sum(1 for unit in units if unit[0] is not None)
