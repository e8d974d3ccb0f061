"""A line counted (SPEC §8): its tokens dispatched to their script's counter, numbers read aloud in
the target language, and the Japanese and Arabic lines, which are read whole."""

from __future__ import annotations

import re
from functools import lru_cache

from eval.syllable.arabic import _arabic_phrase_syllables, _arabic_word_syllables
from eval.syllable.cjk import _japanese_morae, _kana_morae
from eval.syllable.cyrillic import _cyrillic_token_syllables
from eval.syllable.devanagari import _hindi_word_syllables
from eval.syllable.latin import _latin_token_syllables
from eval.syllable.resources import _num2words
from eval.syllable.thai import _thai_syllables
from eval.syllable.tokens import _LATIN_CHARS, _LATIN_LANGS, _SYMBOL_SYLLABLES, _TOKEN_RE, _check_lang, _normalise, _tokens


def count_syllables(text: str, lang: str) -> int:
    """Number of syllables (morae for Japanese) a speaker says for `text` in `lang` (SPEC §8)."""
    code = _check_lang(lang)
    if text is None:
        return 0
    if not isinstance(text, str):
        raise TypeError(f"count_syllables expects a string, got {type(text).__name__}")
    if not text:
        return 0
    try:
        return _count_text(text, code)
    except RecursionError:  # pragma: no cover - defensive: never crash on an input string
        return 0


def cal_syllable_count(text: str, lang: str) -> int:
    """Alias of `count_syllables` under the Sandglass-Bench name (SPEC §8)."""
    return count_syllables(text, lang)


@lru_cache(maxsize=1 << 16)
def _count_text(text: str, lang: str) -> int:
    """Pure in (text, lang), so cached: a line counted by the original and the strict
    syllable_order rules, or by a rerun of the same text, is counted once."""
    text = _normalise(text)
    if lang == "ja":
        return _count_japanese_line(text)
    if lang == "ar":
        return _count_arabic_line(text)
    if lang == "ro":
        text = re.sub(r"(?<=[^\W\d_])-(?=[^\W\d_])", "", text)  # mi-e, dă-mi, s-a: one word
    total = 0
    tokens = [(m.lastgroup, m.group(), m.start(), m.end()) for m in _TOKEN_RE.finditer(text)]
    shouted = lang in _LATIN_LANGS and _is_shouted_line(tokens)
    for index, (kind, token, start, end) in enumerate(tokens):
        if kind == "num":
            total += _number_syllables(token, lang, _number_context(text[end:end + 6], lang))
        elif kind == "latin":
            previous = tokens[index - 1] if index else None
            if previous and previous[0] == "num" and previous[3] == start and _is_ordinal_suffix(token, lang):
                continue  # already read as an ordinal with its number
            total += _latin_token_syllables(token, lang, shouted)
        else:
            total += _script_token_syllables(kind, token, lang)
    return total


def _is_shouted_line(tokens: list[tuple[str, str, int, int]]) -> bool:
    """A line written in capitals (a title, a slogan, a shout): at least two Latin-script words
    and not one lower-case letter among them. Its short capitalised words are words (IT IS OK, NO
    ME DIGAS), where in a line with lower case they are acronyms (I work in IT)."""
    words = [token for kind, token, _, _ in tokens if kind == "latin" and any(c.isalpha() for c in token)]
    return len(words) >= 2 and not any(c.islower() for word in words for c in word)


def _script_token_syllables(kind: str, token: str, lang: str) -> int:
    if kind == "sym":
        return _SYMBOL_SYLLABLES[lang]["%" if token == "\u066A" else token]
    if kind == "cyr":
        return _cyrillic_token_syllables(token)
    if kind == "arabic":
        return _arabic_word_syllables(token)
    if kind == "thai":
        return _thai_syllables(token)
    if kind == "deva":
        return _hindi_word_syllables(token)
    if kind == "hangul":
        return len(token)
    if kind == "kana":
        return _kana_morae(token)
    if kind == "han":
        return len(token)
    return 0


# ---------------------------------------------------------------------------------------------
# Numbers read aloud (SPEC §8).
# ---------------------------------------------------------------------------------------------

_COMMA_DECIMAL = frozenset(("de", "fr", "es", "it", "pt", "ru", "ro", "pl", "sv", "nl", "tr", "id", "vi"))
_DECIMAL_WORD = {
    "en": "point", "es": "coma", "de": "Komma", "fr": "virgule", "it": "virgola", "pt": "vírgula",
    "ro": "virgulă", "pl": "przecinek", "sv": "komma", "nl": "komma", "tr": "virgül", "id": "koma",
    "ms": "perpuluhan", "vi": "phẩy", "fil": "punto", "ko": "점",
}


def _parse_number(token: str, lang: str):
    """(integer part, fractional digits or None), or None when the token is not one number."""
    if "." in token and "," in token:
        decimal_sep = "," if token.rfind(",") > token.rfind(".") else "."
    else:
        sep = "." if "." in token else ("," if "," in token else None)
        if sep is None:
            return int(token), None
        groups = token.split(sep)
        thousands = all(len(g) == 3 for g in groups[1:]) and 1 <= len(groups[0]) <= 3
        if len(groups) > 2:
            decimal_sep = None if thousands else "?"
        elif lang in _COMMA_DECIMAL:
            decimal_sep = None if (sep == "." and thousands) else sep
        else:
            decimal_sep = None if (sep == "," and thousands) else sep
        if decimal_sep == "?":
            return None
        if decimal_sep is None:
            return int(token.replace(sep, "")), None
    whole, _, frac = token.rpartition(decimal_sep)
    whole_digits = re.sub(r"[.,]", "", whole)
    if not whole_digits or not frac.isdigit():
        return None
    return int(whole_digits), frac


@lru_cache(maxsize=65_536)
def _number_syllables(token: str, lang: str, following: str = "") -> int:
    """Syllables of a digit string read aloud in `lang`."""
    if len(token.replace(".", "").replace(",", "")) > 15:
        return sum(_number_syllables(d, lang) for d in token if d.isdigit())
    parsed = _parse_number(token, lang)
    if parsed is None:
        return sum(_number_syllables(part, lang) for part in re.split(r"[.,]", token) if part)
    whole, frac = parsed
    ordinal = _ordinal_follows(following, lang)
    if frac is None:
        if len(token) > 1 and token.startswith("0") and token.isdigit():
            return sum(_integer_syllables(int(d), lang, following) for d in token)
        return _integer_syllables(whole, lang, following, ordinal=ordinal, raw=token)
    if lang == "ru" and len(frac) <= 3:
        return _plain_syllables(_num2words(float(f"{whole}.{frac}"), "ru"), "ru")  # три целых пять десятых
    total = _integer_syllables(whole, lang, following="")
    if lang in _DECIMAL_WORD:
        total += _plain_syllables(_DECIMAL_WORD[lang], lang)
    else:
        total += _DECIMAL_SYLLABLES.get(lang, 1)
    if frac.startswith("0") or len(frac) > 2 or lang in _DECIMAL_DIGIT_BY_DIGIT:
        total += sum(_integer_syllables(int(d), lang) for d in frac)
    else:
        total += _integer_syllables(int(frac), lang)
    return total


_DECIMAL_SYLLABLES = {"zh": 1, "th": 1, "hi": 3}  # 点 / จุด / दशमलव
# Languages that read the digits after the decimal point one by one (three point one four, 三点一四).
_DECIMAL_DIGIT_BY_DIGIT = frozenset(("en", "zh", "ko", "th", "hi", "de"))


def _number_context(following: str, lang: str) -> str:
    """The little of the text after a number that changes how it is read: an ordinal suffix (1st,
    2e), 年 after a Chinese year, a Korean native counter (세 명). Kept short so results cache."""
    if lang == "zh":
        return "年" if following.startswith("年") else ""
    if lang == "ko":
        rest = following.lstrip()
        return next((counter for counter in _KO_NATIVE_COUNTERS if rest.startswith(counter)), "")
    match = _LATIN_RUN.match(following)
    return match.group() if match and _is_ordinal_suffix(match.group(), lang) else ""


_LATIN_RUN = re.compile(f"[{_LATIN_CHARS}]+")


def _ordinal_follows(following: str, lang: str) -> bool:
    match = _LATIN_RUN.match(following)
    return bool(match) and _is_ordinal_suffix(match.group(), lang)


_ORDINAL_SUFFIXES = {
    "en": ("st", "nd", "rd", "th"),
    "fr": ("er", "re", "e", "ème", "eme", "ère"),
    "es": ("o", "a", "os", "as"),
    "it": ("o", "a"),
    "pt": ("o", "a", "os", "as"),
    "nl": ("e", "ste", "de"),
}


def _is_ordinal_suffix(token: str, lang: str) -> bool:
    return token.lower() in _ORDINAL_SUFFIXES.get(lang, ())


@lru_cache(maxsize=4096)
def _integer_syllables(value: int, lang: str, following: str = "", ordinal: bool = False, raw: str = "") -> int:
    if lang == "zh":
        if raw and len(raw) == 4 and following[:1] == "年":
            return len(raw)
        return len(_chinese_reading(value))
    if lang == "th":
        return _thai_number_syllables(value)
    if lang == "hi":
        return _plain_syllables(_hindi_reading(value), "hi")
    if lang == "ms":
        return _plain_syllables(_malay_reading(value), "ms")
    if lang == "fil":
        return _plain_syllables(_filipino_reading(value), "fil")
    if lang == "ko":
        native = _korean_native_reading(value, following)
        if native:
            return len(native)
    reading = _num2words_reading(value, lang, ordinal, raw)
    return _plain_syllables(reading, lang)


def _num2words_reading(value: int, lang: str, ordinal: bool, raw: str) -> str:
    if ordinal:
        try:
            return _num2words(value, lang, to="ordinal")
        except Exception:
            pass
    if raw and len(raw) == 4 and raw.isdigit():
        if lang == "en" and 1100 <= value <= 2099 and not 2000 <= value <= 2009:
            return _num2words(value, "en", to="year")
        if lang in ("de", "nl", "sv") and 1100 <= value <= 1999:
            try:
                return _num2words(value, lang, to="year")
            except Exception:
                pass
    text = _num2words(value, lang)
    if lang == "en":
        text = text.replace(" and ", " ")
    return text


def _plain_syllables(text: str, lang: str) -> int:
    """Count a reading that contains no digits (avoids re-entering number expansion)."""
    return _count_text(text, lang) if text else 0


# --- Chinese, Thai, Malay, Filipino, Hindi and Korean readings of integers --------------------

_ZH_DIGITS = "零一二三四五六七八九"


def _chinese_reading(value: int) -> str:
    if value == 0:
        return "零"
    if value >= 10 ** 16:
        return "".join(_ZH_DIGITS[int(d)] for d in str(value))
    groups = []
    while value:
        groups.append(value % 10000)
        value //= 10000
    parts = []
    units = ["", "万", "亿", "万亿"]
    zero_pending = False
    for index in range(len(groups) - 1, -1, -1):
        group = groups[index]
        if group == 0:
            zero_pending = bool(parts)
            continue
        if parts and (zero_pending or group < 1000):
            parts.append("零")
        parts.append(_chinese_group(group) + units[index])
        zero_pending = False
    text = "".join(parts)
    if text.startswith("一十"):
        text = text[1:]
    return text


def _chinese_group(value: int) -> str:
    out = []
    zero = False
    for power, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = value // power % 10
        if digit:
            if zero and out:
                out.append("零")
            out.append(_ZH_DIGITS[digit] + name)
            zero = False
        else:
            zero = True
    return "".join(out)


def _thai_number_syllables(value: int) -> int:
    """Every Thai numeral word is one syllable: count the words of the reading."""
    if value == 0:
        return 1
    if value >= 1_000_000:
        return _thai_number_syllables(value // 1_000_000) + 1 + (
            _thai_number_syllables(value % 1_000_000) if value % 1_000_000 else 0)
    count = 0
    digits = str(value)
    length = len(digits)
    for position, char in enumerate(digits):
        digit = int(char)
        place = length - position - 1
        if digit == 0:
            continue
        if place == 1:
            count += 1 if digit == 1 else 2  # สิบ / ยี่สิบ / สามสิบ
        elif place == 0:
            count += 1  # หนึ่ง or เอ็ด
        else:
            count += 2  # digit + place word
    return count


_MS_UNITS = ["kosong", "satu", "dua", "tiga", "empat", "lima", "enam", "tujuh", "lapan", "sembilan"]


def _malay_reading(value: int) -> str:
    if value < 10:
        return _MS_UNITS[value]
    if value == 10:
        return "sepuluh"
    if value == 11:
        return "sebelas"
    if value < 20:
        return _MS_UNITS[value - 10] + " belas"
    if value < 100:
        tens, unit = divmod(value, 10)
        return _MS_UNITS[tens] + " puluh" + (" " + _MS_UNITS[unit] if unit else "")
    for size, word, single in ((10 ** 9, "bilion", "satu bilion"), (10 ** 6, "juta", "sejuta"),
                               (1000, "ribu", "seribu"), (100, "ratus", "seratus")):
        if value >= size:
            head, rest = divmod(value, size)
            text = single if head == 1 else _malay_reading(head) + " " + word
            return text + (" " + _malay_reading(rest) if rest else "")
    return ""


_FIL_UNITS = ["sero", "isa", "dalawa", "tatlo", "apat", "lima", "anim", "pito", "walo", "siyam"]
_FIL_TEENS = ["sampu", "labing-isa", "labindalawa", "labintatlo", "labing-apat", "labinlima",
              "labing-anim", "labimpito", "labingwalo", "labinsiyam"]
_FIL_TENS = ["", "", "dalawampu", "tatlumpu", "apatnapu", "limampu", "animnapu", "pitumpu",
             "walumpu", "siyamnapu"]


def _filipino_reading(value: int) -> str:
    """Tagalog cardinal numbers (isa, dalawa, ... sampu, dalawampu't isa, isang daan)."""
    if value < 10:
        return _FIL_UNITS[value]
    if value < 20:
        return _FIL_TEENS[value - 10]
    if value < 100:
        tens, unit = divmod(value, 10)
        return _FIL_TENS[tens] + ("'t " + _FIL_UNITS[unit] if unit else "")
    for size, word in ((10 ** 9, "bilyon"), (10 ** 6, "milyon"), (1000, "libo"), (100, "daan")):
        if value >= size:
            head, rest = divmod(value, size)
            head_text = _filipino_reading(head)
            text = head_text + ("ng " if head_text[-1] in "aeiou" else " na ") + word
            return text + (" " + _filipino_reading(rest) if rest else "")
    return ""


_HI_0_99 = (
    "शून्य एक दो तीन चार पाँच छह सात आठ नौ दस ग्यारह बारह तेरह चौदह पंद्रह सोलह सत्रह अठारह उन्नीस "
    "बीस इक्कीस बाईस तेईस चौबीस पच्चीस छब्बीस सत्ताईस अट्ठाईस उनतीस तीस इकतीस बत्तीस तैंतीस चौंतीस "
    "पैंतीस छत्तीस सैंतीस अड़तीस उनतालीस चालीस इकतालीस बयालीस तैंतालीस चवालीस पैंतालीस छियालीस "
    "सैंतालीस अड़तालीस उनचास पचास इक्यावन बावन तिरपन चौवन पचपन छप्पन सत्तावन अट्ठावन उनसठ साठ "
    "इकसठ बासठ तिरसठ चौंसठ पैंसठ छियासठ सड़सठ अड़सठ उनहत्तर सत्तर इकहत्तर बहत्तर तिहत्तर चौहत्तर "
    "पचहत्तर छिहत्तर सतहत्तर अठहत्तर उन्यासी अस्सी इक्यासी बयासी तिरासी चौरासी पचासी छियासी "
    "सत्तासी अट्ठासी नवासी नब्बे इक्यानवे बानवे तिरानवे चौरानवे पचानवे छियानवे सत्तानवे अट्ठानवे "
    "निन्यानवे"
).split()


def _hindi_reading(value: int) -> str:
    if value < 100:
        return _HI_0_99[value]
    if 1100 <= value <= 1999 and value % 100:  # years: उन्नीस सौ नब्बे
        return _hindi_reading(value // 100) + " सौ " + _hindi_reading(value % 100)
    for size, word in ((10 ** 7, "करोड़"), (10 ** 5, "लाख"), (1000, "हज़ार"), (100, "सौ")):
        if value >= size:
            head, rest = divmod(value, size)
            return _hindi_reading(head) + " " + word + (" " + _hindi_reading(rest) if rest else "")
    return ""


_KO_NATIVE_UNITS = ["", "한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉"]
_KO_NATIVE_TENS = ["", "열", "스물", "서른", "마흔", "쉰", "예순", "일흔", "여든", "아흔"]
_KO_NATIVE_COUNTERS = ("개", "명", "시", "살", "마리", "번", "잔", "권", "벌", "대", "사람", "가지",
                       "달", "곳", "시간", "병", "그릇", "송이", "장", "켤레")


def _korean_native_reading(value: int, following: str) -> str:
    """Native numbers (한, 두, 세 ...) before native counters such as 개, 명, 시, 살."""
    if not 1 <= value <= 99:
        return ""
    rest = following.lstrip()
    if not rest.startswith(_KO_NATIVE_COUNTERS):
        return ""
    tens, unit = divmod(value, 10)
    if tens == 2 and unit == 0:
        return "스무"
    return _KO_NATIVE_TENS[tens] + _KO_NATIVE_UNITS[unit]


_JA_SYMBOLS = {"%": "パーセント", "$": "ドル", "€": "ユーロ", "\u066A": "パーセント"}


def _count_japanese_line(text: str) -> int:
    """Numbers become kanji numerals so that the tagger reads them with their counters; other
    scripts are counted by their own rules; the rest is read by fugashi and counted in morae."""
    total = 0
    pieces = []
    last = 0
    tokens = list(_tokens(text))
    for index, (kind, token, start, end) in enumerate(tokens):
        if kind in ("kana", "han"):
            continue
        pieces.append(text[last:start])
        last = end
        if kind == "num":
            pieces.append(_japanese_number(token))
        elif kind == "sym":
            pieces.append(_JA_SYMBOLS[token])
        elif kind == "latin":
            previous = tokens[index - 1] if index else None
            if previous and previous[0] == "num" and previous[3] == start and token.lower() in ("st", "nd", "rd", "th"):
                pieces.append("番目")
                continue
            pieces.append(" ")
            total += _latin_token_syllables(token, "ja")
        else:
            pieces.append(" ")
            total += _script_token_syllables(kind, token, "ja")
    pieces.append(text[last:])
    japanese = "".join(pieces)
    if japanese.strip():
        total += _japanese_morae(japanese)
    return total


def _japanese_number(token: str) -> str:
    parsed = None if len(token) > 16 else _parse_number(token, "ja")
    if parsed is None:
        return "".join("〇一二三四五六七八九"[int(d)] for d in token if d.isdigit())
    whole, frac = parsed
    text = _num2words(whole, "ja")
    if frac is not None:
        text += "点" + "".join("〇一二三四五六七八九"[int(d)] for d in frac)
    return text


_AR_SYMBOL_WORDS = {"%": "بالمئة", "\u066A": "بالمئة", "$": "دولار", "€": "يورو"}


def _count_arabic_line(text: str) -> int:
    """Arabic lines are read phrase by phrase (case vowels inside, pause at the end), so numbers
    and symbols are first written out as Arabic words in place."""
    def spell(match):
        token = match.group()
        if token in _AR_SYMBOL_WORDS:
            return " " + _AR_SYMBOL_WORDS[token] + " "
        return " " + _arabic_number_text(token) + " "

    text = re.sub(r"[0-9]+(?:[.,][0-9]+)*|[%$€\u066A]", spell, text)
    total = 0
    phrase = []
    last_end = 0
    for kind, token, start, end in _tokens(text):
        if kind == "arabic" and (not phrase or not text[last_end:start].strip()):
            phrase.append(token)
            last_end = end
            continue
        if phrase:
            total += _arabic_phrase_syllables(phrase)
            phrase = []
        if kind == "arabic":
            phrase.append(token)
            last_end = end
        elif kind == "latin":
            total += _latin_token_syllables(token, "ar")
        else:
            total += _script_token_syllables(kind, token, "ar")
    if phrase:
        total += _arabic_phrase_syllables(phrase)
    return total


def _arabic_number_text(token: str) -> str:
    digits = [d for d in token if d.isdigit()]
    parsed = None if len(digits) > 15 else _parse_number(token, "ar")
    if parsed is None:
        return " ".join(_num2words(int(d), "ar") for d in digits)
    whole, frac = parsed
    text = _num2words(whole, "ar")
    if frac is not None:
        text += " فاصلة " + (" ".join(_num2words(int(d), "ar") for d in frac)
                              if frac.startswith("0") or len(frac) > 2 else _num2words(int(frac), "ar"))
    return text
