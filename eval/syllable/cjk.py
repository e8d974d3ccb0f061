"""Japanese morae from the fugashi + unidic-lite reading, kana, and Han characters."""

from __future__ import annotations

import re

from eval.syllable.resources import _tagger


# ---------------------------------------------------------------------------------------------
# Japanese (fugashi + unidic-lite morae), kana, Chinese (one per Han character), Korean.
# ---------------------------------------------------------------------------------------------

_SMALL_KANA = set("ゃゅょぁぃぅぇぉゎャュョァィゥェォヮㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ")


def _kana_morae(kana: str) -> int:
    """Morae of a kana string: every kana except small ya/yu/yo/vowels; っ, ん and ー count."""
    return sum(1 for c in kana if ("\u3041" <= c <= "\u30FF" or "\u31F0" <= c <= "\u31FF")
               and c not in _SMALL_KANA and c not in "\u30FB\u309B\u309C\u30A0")


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
