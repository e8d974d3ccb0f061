"""Latin-script tokens: camel case and acronyms split, English words inside other languages, and
each language's own word counter."""

from __future__ import annotations

import re
from functools import lru_cache

from eval.syllable.acronyms import _LETTER_SYLLABLES, _READ_AS_WORD, _acronym_kind, _spelled_syllables
from eval.syllable.english import _english_word
from eval.syllable.germanic import _dutch_word, _german_word, _swedish_word
from eval.syllable.latin_other import (_filipino_word, _malay_word, _polish_word, _turkish_word,
                                       _vietnamese_word)
from eval.syllable.resources import _cmu_syllables
from eval.syllable.romance import _french_word, _italian_word, _portuguese_word, _romanian_word, _spanish_word
from eval.syllable.tokens import _LATIN_LANGS


# ---------------------------------------------------------------------------------------------
# Latin-script words.
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=200_000)
def _latin_token_syllables(token: str, lang: str, shouted: bool = False) -> int:
    """A Latin-script token. Inside a Latin-script language it follows that language's rules
    (CamelCase brand names and words with letters foreign to the language follow English);
    inside any other script it follows English rules, letters named the English way.
    `shouted`: the token stands in a line written in capitals (count.py's _is_shouted_line)."""
    rules_lang = lang if lang in _LATIN_LANGS else "en"
    speller = lang if lang in _LETTER_SYLLABLES else "en"
    if rules_lang != "en" and _looks_english(token, rules_lang):
        rules_lang = "en"
    if _CAMEL_CASE.search(token) and token.lower() not in _cmu_syllables():
        pieces = _CAMEL_PIECES.findall(token)  # ChatGPT = Chat + GPT, OpenAI = Open + AI
        if len(pieces) > 1 and not token.lower().startswith(("mc", "mac")):
            return sum(_latin_token_syllables(piece, lang, shouted) for piece in pieces)
    if rules_lang == "en" and re.search(r"['\u2019]", token):
        lowered = token.lower().replace("\u2019", "'")
        if lowered in _cmu_syllables():
            return _cmu_syllables()[lowered]
        token = re.sub(r"['\u2019](s|t|ll|re|ve|d|m)$", "", token, flags=re.IGNORECASE)
    parts = [p for p in re.split(r"['\u2019]", token) if p]
    total = 0
    for index, part in enumerate(parts):
        elided = index < len(parts) - 1 and len(part) <= 4 and not (len(part) > 1 and part.isupper())
        if elided:
            total += _latin_word_syllables(part.lower(), rules_lang)
        else:
            total += _latin_part_syllables(part, rules_lang, speller, shouted)
    return total


_CAMEL_CASE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_CAMEL_PIECES = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[^A-Za-z]+")
_FOREIGN_LETTERS = {"it": "wkyj", "es": "wk", "pt": "wky", "fr": "wk", "ro": "wky", "tr": "wqx",
                    "id": "qx", "ms": "qx", "pl": "qvx", "sv": "wq"}
# Spellings that a language's own words do not use, so that a word that has them and is an English
# dictionary word is an English loan (game, cute, view, cool, subscribe, weekend).
_ENGLISH_SPELLINGS = {
    "id": r"sh|ck|th|ph|wh|ee|oo|ea|ew|ow|[^aeiou]{3}|[aeiou][^aeiou]e$|[^aeiou]y$",
    "ms": r"sh|ck|th|ph|wh|ee|oo|ea|ew|ow|[^aeiou]{3}|[aeiou][^aeiou]e$|[^aeiou]y$",
    "fil": r"sh|ck|th|ph|wh|ee|oo|ea|ew|ow|[^aeiou]{3}|[aeiou][^aeiou]e$|[^aeiou]y$|[cfjqvxz]",
    "ro": r"sh|ck|th|ph|wh|ee|oo|ea(?=[^aeiou])|ew|ow",
    "tr": r"sh|ck|th|ph|wh|ee|oo|ea|ew|ow",
    "pl": r"sh|ck|th|ph|wh|ee|oo|ea|ew|ow",
    "sv": r"sh|th|ph|wh|ee|oo|ea|ew|ow",
    "es": r"sh|ck|th|ph|wh|ee|oo|ew|ow",
    "it": r"sh|ck|th|ph|wh|ee|oo|ew|ow",
    "pt": r"sh|ck|th|ph|wh|ee|oo|ew|ow",
    "fr": r"sh|ck|th|wh|ee|oo|ew|ow",
}
_NATIVE_LOOKALIKES = frozenset("""
sore sate tape bete pede kare gede rese pare mare sige bale grabe lame mate sale tele pete kite
kode mode rate rose tore
""".split())


def _looks_english(token: str, lang: str) -> bool:
    """CamelCase names (YouTube, iPhone), words with letters the language does not use, and
    English dictionary words spelled the English way (game, cool, subscribe)."""
    if re.search(r"[a-z][A-Z]", token):
        return True
    if token.isupper():
        return False
    lower = token.lower()
    foreign = _FOREIGN_LETTERS.get(lang, "")
    if foreign and any(c in foreign for c in lower):
        return True
    pattern = _ENGLISH_SPELLINGS.get(lang)
    return bool(pattern) and lower not in _NATIVE_LOOKALIKES and bool(re.search(pattern, lower)) \
        and lower in _cmu_syllables()


# Two-letter words a subtitle writes in capitals to shout (NO WAY, OH MY GOD), never as acronyms.
_SHOUTED_SHORT_WORDS = frozenset("NO OH GO SO MY HI DO BE WE ME HE UP ON IN OF TO AT IS AM AN OR BY".split())


def _is_shouted_word(part: str) -> bool:
    """An English word in capitals (NO, WAY, STOP) rather than an acronym (FBI, AI, US).

    The CMU dictionary reads acronyms it knows letter by letter (FBI, TV, CEO), so for three
    letters or more its reading is right either way; two-letter words are ambiguous (US, IT,
    AI) and only a short list of words is taken as shouting."""
    if len(part) < 2 or not part.isupper() or part in _READ_AS_WORD:
        return False
    if part.lower() not in _cmu_syllables():
        return False
    return len(part) >= 3 or part in _SHOUTED_SHORT_WORDS


# Two-letter initialisms the CMU dictionary also lists as rare words (ai, id): spelled even in
# a line written in capitals (AI IS THE FUTURE, SHOW YOUR ID).
_INITIALISMS_OVER_WORDS = frozenset(("AI", "ID"))


def _shouted_word_syllables(part: str, rules_lang: str) -> int | None:
    """A capitalised word of two to six letters in a line written in capitals, read as a word:
    in English when the CMU dictionary has it (which reads the initialisms it knows, FBI, TV,
    USA, letter by letter), in the other languages when it has a vowel. None: not such a word."""
    if not 2 <= len(part) <= 6 or not part.isupper() or part in _INITIALISMS_OVER_WORDS:
        return None
    if rules_lang == "en":
        return _cmu_syllables().get(part.lower())
    if not any(c in "aeiouyàáâãäåèéêëìíîïòóôõöùúûüýÿąęėįųıœæ" for c in part.lower()):
        return None
    return _latin_word_syllables(part.lower(), rules_lang) or None


def _latin_part_syllables(part: str, rules_lang: str, speller: str, shouted: bool = False) -> int:
    """One word: an acronym is spelled (or read as a word), a vowelless lower-case word of two
    to five letters is spelled too (tv, dvd), anything else follows the language's rules. In a
    line written in capitals a short capitalised word is read as a word first (IT IS OK)."""
    if shouted:
        count = _shouted_word_syllables(part, rules_lang)
        if count is not None:
            return count
    if len(part) == 1:
        if part.isupper() and not (rules_lang == "pl" and part in "WZ"):
            count = _latin_word_syllables(part.lower(), rules_lang)
            return count or _spelled_syllables(part, speller)
        return _latin_word_syllables(part, rules_lang)
    if rules_lang == "en" and _is_shouted_word(part):
        return _cmu_syllables()[part.lower()]
    acronym = _acronym_kind(part)
    if acronym is None and len(part) >= 3 and part[:-1].isupper() and part[-1] == "s" and len(part) <= 6:
        acronym = _acronym_kind(part[:-1])
        if acronym == "spell":
            return _spelled_syllables(part[:-1], speller)
    if acronym == "spell":
        return _spelled_syllables(part, speller)
    count = _latin_word_syllables(part.lower(), rules_lang)
    if count == 0 and len(part) <= 5:
        return _spelled_syllables(part, speller)
    return count


@lru_cache(maxsize=200_000)
def _latin_word_syllables(word: str, lang: str) -> int:
    counter = _LATIN_COUNTERS.get(lang, _english_word)
    return counter(word)


_LATIN_COUNTERS = {
    "en": _english_word,
    "es": _spanish_word,
    "it": _italian_word,
    "pt": _portuguese_word,
    "ro": _romanian_word,
    "fr": _french_word,
    "de": _german_word,
    "nl": _dutch_word,
    "sv": _swedish_word,
    "pl": _polish_word,
    "tr": _turkish_word,
    "id": _malay_word,
    "ms": _malay_word,
    "fil": _filipino_word,
    "vi": _vietnamese_word,
}
