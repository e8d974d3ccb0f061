"""Thai: orthographic syllables (no spaces between words)."""

from __future__ import annotations

import re
from functools import lru_cache


# ---------------------------------------------------------------------------------------------
# Thai: orthographic syllables (no spaces between words).
# ---------------------------------------------------------------------------------------------

_TH_CONSONANTS = set(chr(c) for c in range(0x0E01, 0x0E2F))
_TH_LEADING = set("เแโใไ")
_TH_DEPENDENT = set("ะัาำิีึืุูๅ็")  # vowel signs written after/above/below the consonant
_TH_TONES = set("่้๊๋ํ๎")
# True initial clusters (the second letter is sounded) and clusters whose ร is silent (จริง).
_TH_CLUSTERS = frozenset(
    "กร กล กว ขร ขล ขว คร คล คว ปร ปล พร พล ตร บร บล ดร ฟร ฟล ทร จร ซร ศร สร".split()
)
_TH_H_LEADS = set("งญนมยรลว")


@lru_cache(maxsize=100_000)
def _thai_syllables(text: str) -> int:
    """Count Thai syllables by spelling: leading vowels and vowel signs mark nuclei, a run of bare
    consonants carries implicit vowels (ถนน = tha-non), ์ silences its consonant, ๆ repeats."""
    text = _thai_drop_silent(text)
    consonants = "".join(sorted(_TH_CONSONANTS))
    text = re.sub(f"(?<=[{consonants}])รร(?=[{consonants}])", "ั", text)
    text = re.sub(f"(?<=[{consonants}])รร$", "ัน", text)
    chars = [c for c in text if c not in _TH_TONES]
    n = len(chars)

    def is_cons(j: int) -> bool:
        return 0 <= j < n and chars[j] in _TH_CONSONANTS

    def onset_length(j: int) -> int:
        """Letters of the onset at j: ห/อ leaders (หน, อย) and true clusters take two."""
        if not is_cons(j):
            return 0
        if is_cons(j + 1):
            pair = chars[j] + chars[j + 1]
            if (chars[j] == "ห" and chars[j + 1] in _TH_H_LEADS) or pair == "อย" or pair in _TH_CLUSTERS:
                after = chars[j + 2] if j + 2 < n else ""
                if after in _TH_DEPENDENT or (pair in _TH_CLUSTERS and after == "อ"):
                    return 2
        return 1

    def starts_syllable(j: int) -> bool:
        """Consonant at j is an onset: a vowel sign follows its onset, or อ used as a vowel."""
        if not is_cons(j):
            return False
        k = j + onset_length(j)
        nxt = chars[k] if k < n else ""
        if nxt in _TH_DEPENDENT:
            return True
        return nxt == "อ" and (k + 1 >= n or chars[k + 1] not in _TH_DEPENDENT)

    def take_final(j: int) -> int:
        """Skip one final consonant after a nucleus when it does not start the next syllable."""
        if is_cons(j) and not starts_syllable(j):
            return j + 1
        return j

    i = 0
    count = 0
    while i < n:
        c = chars[i]
        if c == "ๆ":
            count += 1
            i += 1
            continue
        if c in _TH_LEADING:
            count += 1
            lead = c
            i += 1
            if chars[i:i + 1] and chars[i] in _TH_CONSONANTS:
                length = onset_length(i)
                if length == 1 and is_cons(i + 1) and (
                        chars[i] + chars[i + 1] in _TH_CLUSTERS
                        or (chars[i] == "ห" and chars[i + 1] in _TH_H_LEADS)):
                    length = 2  # ไกล, เปล่า, ไหม: cluster or ห leader after a leading vowel
                i += length
            open_vowel = lead in "ไใ"
            if open_vowel and i < n and chars[i] == "ย" and not starts_syllable(i):
                i += 1  # ไทย: the ย only spells the vowel
            while i < n and chars[i] in _TH_DEPENDENT:
                if chars[i] in "าะ":
                    open_vowel = open_vowel or (lead == "เ" and chars[i] == "า") or chars[i] == "ะ"
                i += 1
            if i < n and chars[i] in "ยอ" and chars[i - 1] in "ีื":
                i += 1  # เ-ีย, เ-ือ
            elif i < n and chars[i] == "อ" and (i + 1 >= n or chars[i + 1] not in _TH_DEPENDENT or chars[i + 1] == "ะ"):
                i += 1  # เ-อ, เ-อะ
            if i < n and chars[i] == "ะ":
                i += 1
                open_vowel = True
            if not open_vowel:
                i = take_final(i)
            continue
        if c in _TH_CONSONANTS:
            j = i + onset_length(i) - 1
            nxt = chars[j + 1] if j + 1 < n else ""
            if nxt in _TH_DEPENDENT:
                count += 1
                i = j + 1
                vowel = nxt
                while i < n and chars[i] in _TH_DEPENDENT:
                    i += 1
                if vowel == "ั" and i < n and chars[i] == "ว":
                    i += 1
                    if i < n and chars[i] == "ะ":
                        i += 1
                elif vowel == "ื" and i < n and chars[i] == "อ":
                    i += 1
                if chars[i - 1] not in "ะำ":
                    i = take_final(i)
                continue
            if nxt == "อ" and (j + 2 >= n or chars[j + 2] not in _TH_DEPENDENT):
                count += 1
                i = take_final(j + 2)
                continue
            if nxt == "ว" and is_cons(j + 2) and not starts_syllable(j + 2):
                count += 1  # ควร, สวย: ว is the vowel ua
                i = j + 3
                continue
            # bare consonants: an implicit o between two of them, an implicit a on a lone one
            k = i
            while is_cons(k) and not starts_syllable(k):
                k += 1
            run = max(k - i, 1)
            count += (run + 1) // 2
            i = max(k, i + 1)
            continue
        if c in "ฤฦ":
            count += 1
        i += 1
    return count


def _thai_drop_silent(text: str) -> str:
    """Remove consonants silenced by ์ (and a bare consonant just before them: ศาสตร์)."""
    out = list(text)
    index = 0
    while index < len(out):
        if out[index] == "์":
            cut = index
            start = index - 1
            while start >= 0 and out[start] in "ิุ":
                start -= 1
            if start >= 0 and out[start] in _TH_CONSONANTS:
                if start >= 2 and out[start - 1] in _TH_CONSONANTS and out[start - 2] in _TH_CONSONANTS:
                    start -= 1
                del out[start:cut + 1]
                index = start
                continue
            del out[index]
            continue
        index += 1
    return "".join(out)
