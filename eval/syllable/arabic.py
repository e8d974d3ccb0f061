"""Arabic: syllable onsets estimated from consonants and long-vowel letters."""

from __future__ import annotations

from functools import lru_cache


# ---------------------------------------------------------------------------------------------
# Arabic: syllable onsets estimated from consonants and long-vowel letters.
# ---------------------------------------------------------------------------------------------

_AR_HARAKAT = set("\u064E\u064F\u0650")
_AR_TANWEEN = set("\u064B\u064C\u064D")
_AR_SUKUN = "\u0652"
_AR_SHADDA = "\u0651"
_AR_IGNORED = set("\u0640\u0653\u0654\u0655\u0656\u0657\u0658\u0670")
# Words written without their long ā (the dagger alif of the Qurʾānic spelling), respelled.
_AR_HIDDEN_ALIF = {
    "هذا": "هاذا", "هذه": "هاذه", "هذان": "هاذان", "هذين": "هاذين", "هؤلاء": "هاؤلاء",
    "ذلك": "ذالك", "لكن": "لاكن", "لكنه": "لاكنه", "هكذا": "هاكذا", "الله": "اللاه", "لله": "للاه",
    "إله": "إلاه", "إلهي": "إلاهي", "الرحمن": "الرحمان", "طه": "طاها", "لقد": "لَقد",
    "عشر": "عَشَر", "أحد": "أَحَد",  # the numerals 11-19 (أحد عشر = ʾa-ḥa-da ʿa-shar)
}
# Indeclinable words that end in a consonant and never take a case vowel inside a phrase.
_AR_NO_CASE = frozenset("من عن إن أن لن لم قد لقد هل بل منذ كم ثم كي لكن".split())


def _arabic_phrase_syllables(words: list) -> int:
    """Formal reading of a phrase (SPEC §8): inside the phrase, words keep their case vowel and
    the article's hamza is silent after a vowel; the last word is read in pause."""
    total = 0
    for index, word in enumerate(words):
        total += _arabic_word_syllables(word, after_word=index > 0, final=index == len(words) - 1)
    return total


@lru_cache(maxsize=100_000)
def _arabic_word_syllables(word: str, after_word: bool = False, final: bool = True) -> int:
    """Every Arabic syllable starts with one consonant (CV, CVV, CVC; CVVC and CVCC only in pause).
    Long-vowel letters and harakat are nuclei; a consonant with no written vowel opens a syllable
    with a short vowel unless it closes the previous one."""
    chars = "".join(c for c in word if c not in _AR_IGNORED)
    if not chars:
        return 0
    key = chars
    chars = _AR_HIDDEN_ALIF.get(chars, chars)
    bare = chars
    count = 0
    if len(chars) > 3 and chars[0] in "وبفك" and chars[1:3] == "ال":
        count, chars = 1, chars[3:]  # wal-, bil-, fal-, kal- + noun
    elif len(chars) > 3 and chars.startswith("لل"):
        count, chars = 1, chars[2:]  # lil-
    elif len(chars) > 3 and chars.startswith("ال"):
        count, chars = (0 if after_word else 1), chars[2:]  # (a)l- : silent hamza after a word
    if len(chars) > 3 and chars.endswith("ية") and chars[-3] not in "اوي":
        chars = chars[:-1] + "ية"  # nisba -iyya (العربية = al-ʿa-ra-biy-yah): the ي is doubled
    seq = _arabic_segments(chars)
    consonants = sum(1 for item in seq if item != "V")
    allow_final_cluster = consonants <= 3 and not bare.endswith(("كم", "هم", "كن", "هن"))
    i = 0
    n = len(seq)
    while i < n:
        item = seq[i]
        if item == "V":
            count += 1
            i += 1
            long_vowel = True
        elif i + 1 < n and seq[i + 1] == "V":
            count += 1
            i += 2
            long_vowel = True
        else:
            count += 1  # consonant + unwritten short vowel
            i += 1
            long_vowel = False
        if i < n and seq[i] != "V" and (i + 1 >= n or seq[i + 1] != "V"):
            if not long_vowel or i + 1 >= n:
                i += 1  # closing consonant (after a long vowel only at the end of the word)
                if i == n - 1 and seq[i] != "V" and allow_final_cluster:
                    i += 1  # pausal CVCC: baḥr, film
    if not final and key not in _AR_NO_CASE:
        last = bare[-1]
        if last == "ة" or (last not in "اىوي" and last not in _AR_TANWEEN and last not in _AR_HARAKAT):
            count += 1  # case ending (or -tun of ta marbuta) inside the phrase
    return max(count, 1)


def _arabic_segments(chars: str) -> list:
    """'C' consonant, 'V' written vowel (long-vowel letter or haraka), 'N' consonant with sukun."""
    seq = []
    for index, c in enumerate(chars):
        prev = seq[-1] if seq else None
        nxt = chars[index + 1] if index + 1 < len(chars) else ""
        if c in _AR_HARAKAT or c in _AR_TANWEEN:
            if seq and seq[-1] in "CN":
                seq[-1] = "C"
                seq.append("V")
            continue
        if c == _AR_SUKUN:
            if seq and seq[-1] == "C":
                seq[-1] = "N"
            continue
        if c == _AR_SHADDA:
            if seq and seq[-1] == "C":
                seq[-1] = "N"
                seq.append("C")
            continue
        if c in "اٱ":
            if index == 0:
                seq.append("C")  # hamza seat: an onset with a short vowel
            elif prev == "V" and index == len(chars) - 1:
                continue  # the alif after tanwin -an
            elif prev == "V":
                seq.append("C")
            else:
                seq.append("V")
            continue
        if c == "آ":
            seq.extend(["C", "V"])
            continue
        if c in "ىة":
            seq.append("V")
            continue
        if c in "وي":
            if index == 0 or prev == "V" or nxt in "اٱى" or nxt in "وي" and index + 2 >= len(chars):
                seq.append("C")
            else:
                seq.append("V")
            continue
        seq.append("C")
    merged = []
    for item in seq:
        if item == "V" and merged and merged[-1] == "V":
            continue
        merged.append(item)
    return merged
