"""The languages, the tokeniser (one regex, one named group per script), the normalisation of a
line, and what %, $ and € are read as (SPEC §8)."""

from __future__ import annotations

import re
import unicodedata


SUPPORTED_LANGS = (
    "zh", "en", "ja", "ko", "vi", "es", "de", "fr", "it", "pt", "ru",
    "ro", "pl", "sv", "nl", "tr", "id", "ms", "ar", "fil", "th", "hi",
)

# Reliability tiers (see notes/syllable.md for the reasons and the measured accuracy).
TIERS = {
    **{code: "high" for code in ("zh", "en", "ja", "ko", "vi", "es", "de", "fr", "it", "pt")},
    **{code: "medium" for code in ("ru", "ro", "pl", "sv", "nl", "tr", "id", "ms", "ar", "fil")},
    "th": "approximate",
    "hi": "approximate",
}

_LATIN_LANGS = frozenset(
    ("en", "vi", "es", "de", "fr", "it", "pt", "ro", "pl", "sv", "nl", "tr", "id", "ms", "fil")
)


def _check_lang(lang: str) -> str:
    code = lang.strip().lower() if isinstance(lang, str) else lang
    if code not in SUPPORTED_LANGS:
        raise ValueError(
            f"unsupported language {lang!r}; supported: {', '.join(SUPPORTED_LANGS)}"
        )
    return code


# ---------------------------------------------------------------------------------------------
# Tokenising: one regex, one named group per script.
# ---------------------------------------------------------------------------------------------

_LATIN_CHARS = "A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u1E00-\u1EFF\u0300-\u036F"
_TOKEN_RE = re.compile(
    "(?P<num>[0-9]+(?:[.,][0-9]+)*)"
    f"|(?P<latin>[{_LATIN_CHARS}]+(?:['\u2019][{_LATIN_CHARS}]+)*)"
    "|(?P<cyr>[\u0400-\u04FF\u0301]+)"
    "|(?P<arabic>[\u0621-\u065F\u0670-\u06D3\u06D5\u06FA-\u06FF\u0750-\u077F\u08A0-\u08FF]+)"
    "|(?P<thai>[\u0E01-\u0E2E\u0E30-\u0E4E]+)"
    "|(?P<deva>[\u0900-\u0963\u0971-\u097F\u200c\u200d]+)"
    "|(?P<hangul>[\uAC00-\uD7A3]+)"
    "|(?P<kana>[\u3041-\u3096\u309D-\u309F\u30A1-\u30FA\u30FC-\u30FF\u31F0-\u31FF]+)"
    "|(?P<han>[\u3005\u3007\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\U00020000-\U0003134F]+)"
    "|(?P<sym>[%$€\u066A])"
)

# Native digits of Arabic, Persian, Devanagari and Thai become ASCII digits; NFKC already maps
# full-width digits.
_DIGITS = {}
for _base in (0x0660, 0x06F0, 0x0966, 0x0E50):
    for _i in range(10):
        _DIGITS[_base + _i] = str(_i)
_DIGITS[0x066B] = "."  # Arabic decimal separator
_DIGITS[0x066C] = ","  # Arabic thousands separator


_UNSPEAKABLE = re.compile("[\x00\ud800-\udfff]")  # NUL and lone surrogates (MeCab cannot take them)


def _normalise(text: str) -> str:
    if text.isascii():  # NFKC leaves ASCII unchanged and it holds no native digits
        return text.replace("\x00", " ") if "\x00" in text else text
    return _UNSPEAKABLE.sub(" ", unicodedata.normalize("NFKC", text).translate(_DIGITS))


def _tokens(text: str):
    """(kind, token, start, end) for every countable token."""
    for match in _TOKEN_RE.finditer(text):
        yield match.lastgroup, match.group(), match.start(), match.end()


# Syllables of the words a speaker says for %, $ and € (SPEC §8).
_SYMBOL_SYLLABLES = {
    #        "%": percent        "$": dollars       "€": euros
    "zh": {"%": 3, "$": 2, "€": 2},    # 百分之 / 美元 / 欧元
    "en": {"%": 2, "$": 2, "€": 2},    # percent / dollars / euros
    "ja": {"%": 5, "$": 2, "€": 3},    # パーセント / ドル / ユーロ (morae)
    "ko": {"%": 3, "$": 2, "€": 2},    # 퍼센트 / 달러 / 유로
    "vi": {"%": 2, "$": 2, "€": 2},    # phần trăm / đô la / ơ-rô
    "es": {"%": 3, "$": 3, "€": 2},    # por ciento / dólares / euros
    "de": {"%": 2, "$": 2, "€": 2},    # Prozent / Dollar / Euro
    "fr": {"%": 2, "$": 2, "€": 2},    # pour cent / dollars / euros
    "it": {"%": 3, "$": 3, "€": 2},    # per cento / dollari / euro
    "pt": {"%": 3, "$": 3, "€": 2},    # por cento / dólares / euros
    "ru": {"%": 3, "$": 3, "€": 2},    # процентов / долларов / евро
    "ro": {"%": 3, "$": 3, "€": 2},    # la sută / dolari / euro
    "pl": {"%": 2, "$": 3, "€": 2},    # procent / dolarów / euro
    "sv": {"%": 2, "$": 2, "€": 2},    # procent / dollar / euro
    "nl": {"%": 2, "$": 2, "€": 2},    # procent / dollar / euro
    "tr": {"%": 2, "$": 2, "€": 2},    # yüzde / dolar / avro
    "id": {"%": 2, "$": 2, "€": 2},    # persen / dolar / euro
    "ms": {"%": 3, "$": 2, "€": 2},    # peratus / dolar / euro
    "ar": {"%": 3, "$": 2, "€": 2},    # بالمئة / دولار / يورو
    "fil": {"%": 3, "$": 2, "€": 2},   # porsyento / dolyar / euro
    "th": {"%": 2, "$": 2, "€": 2},    # เปอร์เซ็นต์ / ดอลลาร์ / ยูโร
    "hi": {"%": 3, "$": 2, "€": 2},    # प्रतिशत / डॉलर / यूरो
}
