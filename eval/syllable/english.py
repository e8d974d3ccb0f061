"""English words: the CMU dictionary first, then its affixes, then spelling rules."""

from __future__ import annotations

import re
import unicodedata

from eval.syllable.resources import _cmu_syllables


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


# --- English: CMU dictionary lookup, then rules ---------------------------------------------

def _english_word(word: str) -> int:
    """CMU dictionary first (with simple affix stripping), then the spelling rules."""
    word = word.replace("\u2019", "'")
    cmu = _cmu_syllables()
    if word in cmu:
        return cmu[word]
    found = _english_affix_lookup(word, cmu)
    if found is not None:
        return found
    return english_rule_syllables(word)


_EN_SUFFIXES = (  # (suffix, replacement, syllables added)
    ("'s", "", 0), ("s", "", 0), ("es", "", 1), ("ed", "", 1), ("ed", "e", 0), ("d", "", 0),
    ("ing", "", 1), ("ing", "e", 1), ("er", "", 1), ("ers", "", 1), ("ly", "", 1),
    ("ness", "", 1), ("less", "", 1), ("ful", "", 1), ("ment", "", 1), ("able", "", 2),
)


def _english_affix_lookup(word: str, cmu: dict):
    for suffix, replacement, added in _EN_SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)] + replacement
            if stem in cmu:
                if suffix in ("es", "ed") and not replacement:
                    if suffix == "es" and not re.search(r"(s|x|z|ch|sh)$", stem):
                        added = 0
                    if suffix == "ed" and not stem.endswith(("t", "d")):
                        added = 0
                return cmu[stem] + added
    if len(word) >= 6:
        for cut in range(3, len(word) - 2):
            head, tail = word[:cut], word[cut:]
            if head in cmu and tail in cmu and len(tail) >= 3:
                return cmu[head] + cmu[tail]
    return None


_EN_VOWEL_GROUPS = re.compile(r"[aeiouy]+")


_EN_HIATUS = re.compile(
    r"(?<![tscgx])i[aou](?!u)|(?<![q])u[ao]|(?<![qg])ui(?=ng)|eo|ea(?=l$)|ie(?=t)|y[aoi]|oe(?!s?$)"
    r"|ii|uu|ao|eu(?=m)|oa(?=s)|[aeo]i(?=ng)|(?<![qg])ue(?=n|l)"
)
_EN_SILENT_E_SUFFIX = re.compile(
    r"[aeiouy][^aeiouy]e(?=(ment|ments|ly|ful|less|ness|some|like|wise|stone|work|time|way|how)$)"
)


def english_rule_syllables(word: str) -> int:
    """English syllables from spelling alone (used when the CMU dictionary has no entry): vowel
    groups, hiatus inside a group (cre-ate, go-ing, ra-di-o but not na-tion), silent final e, -es
    and -ed, silent e before -ment/-ly/-ness, syllabic l and m (bot-tled, pris-m)."""
    word = re.sub(r"[^a-z]", "", _strip_accents(word.lower()))
    if not word:
        return 0
    if len(word) <= 2:
        return 1 if re.search(r"[aeiouy]", word) else 0
    count = 0
    for match in _EN_VOWEL_GROUPS.finditer(word):
        group = match.group()
        start = match.start()
        if group.startswith("y") and start == 0 and len(group) > 1:
            group = group[1:]
        count += 1
        if len(group) > 1:
            context = word[max(0, start - 1):match.end() + 2]
            count += len(_EN_HIATUS.findall(context[:len(group) + (1 if start else 0) + 2]))
    count -= len(_EN_SILENT_E_SUFFIX.findall(word))
    if word.endswith("e") and not word.endswith(("le", "ee", "ie", "ye", "oe")) and count > 1:
        if not re.search(r"[aeiouy]e$", word):
            count -= 1
    elif word.endswith("le") and len(word) > 2 and word[-3] in "aeiouy" and count > 1:
        count -= 1
    elif word.endswith(("es", "ed")) and count > 1:
        stem = word[:-2]
        if re.search(r"[^aeiouy]l$", stem):
            pass  # bot-tled, ca-bles: syllabic l
        elif word.endswith("ed") and not stem.endswith(("t", "d")) and not re.search(r"[aeiouy]$", stem):
            count -= 1
        elif word.endswith("es") and not re.search(r"(s|x|z|ch|sh|g|c|[aeiouy])$", stem):
            if re.search(r"[aeiouy][^aeiouy]e?$", stem + "e"):
                count -= 1
    if re.search(r"[^aeiouy](ism|sm|thm)$", word):
        count += 1
    if re.search(r"(?<=[^aeiouyr])[^aeiouy]ling$", word):
        count += 1
    return max(count, 1)
