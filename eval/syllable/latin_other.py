"""Polish, Turkish, Malay/Indonesian, Filipino and Vietnamese words."""

from __future__ import annotations

import re

from eval.syllable.english import _english_word, _strip_accents


# --- Polish, Turkish, Malay/Indonesian, Filipino, Vietnamese ---------------------------------

def _polish_word(word: str) -> int:
    """Polish vowels; i before a vowel only softens the consonant (nie, się); au/eu are one
    syllable at the start of a word (auto, Europa) and two inside it (na-u-ka, mu-ze-um)."""
    w = re.sub(r"i(?=[aąeęioóuy])", "", word)
    w = re.sub(r"^([ae])u", r"\1", w)
    return len(re.findall(r"[aąeęioóuy]", w))


def _turkish_word(word: str) -> int:
    """Turkish: one syllable per vowel letter (no diphthongs; saat = sa-at)."""
    return len(re.findall(r"[aeıioöuüâîû]", word))


def _malay_word(word: str) -> int:
    """Malay/Indonesian: one per vowel; ai/au/oi/ei are diphthongs at the end of a word or before
    a consonant + vowel (pantai, saudara), hiatus before a final consonant (main, laut)."""
    w = word.replace("é", "e")
    count = len(re.findall(r"[aeiou]", w))
    for match in re.finditer(r"(?=(ai|au|oi|ei))", w):
        end = match.start() + 2
        rest = w[end:]
        if rest == "" or re.match(r"[^aeiou][aeiou]", rest) or re.match(r"(ng|ny|kh|sy)[aeiou]", rest):
            count -= 1
    return max(count, 1) if re.search(r"[aeiou]", w) else 0


def _filipino_word(word: str) -> int:
    """Filipino: one syllable per vowel letter (y and w write the glides); mga = ma-nga."""
    if word == "mga":
        return 2
    if word == "ng":
        return 1
    return len(re.findall(r"[aeiouáéíóúàèìòùâêîôû]", word))


_VI_SYLLABLE = re.compile(
    r"(ngh|ng|nh|ch|gh|gi|kh|ph|qu|th|tr|[bcdđghklmnprstvx])?"
    r"(oa|oă|oe|uâ|uê|uơ|uy|ươ|iê|yê|ua|ia|ưa|uô|[aăâeêioôơuưy])[aăâeêioôơuưy]?"
    r"(ch|ng|nh|[cmnpt]|[iouy])?"
)


def _vietnamese_word(word: str) -> int:
    """One syllable per Vietnamese word; a loanword that is not a Vietnamese syllable by spelling
    (email, online) is counted by the English rules."""
    if "đ" in word or _strip_accents(word) != word or _VI_SYLLABLE.fullmatch(word):
        return 1
    return _english_word(word)
