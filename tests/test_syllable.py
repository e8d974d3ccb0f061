"""Syllable counting (SPEC §8): per-language tables, numbers, acronyms, mixed scripts, symbols,
robustness, and the accuracy thresholds on the hand-labelled set in tests/data/syllable_gold/."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from eval.syllable import SUPPORTED_LANGS, TIERS, cal_syllable_count, count_syllables

GOLD_DIR = Path(__file__).parent / "data" / "syllable_gold"


@pytest.mark.parametrize("text, lang, expected", [
    ("こんにちは", "ja", 5),
    ("Hello world", "en", 3),
])
def test_spec_examples(text, lang, expected):
    assert count_syllables(text, lang) == expected


@pytest.mark.parametrize("text, lang, expected", [
    ("我们明天见", "zh", 5),
    ("Welcome back to my channel", "en", 7),
    ("They wanted a little cake", "en", 7),
    ("東京に行きます", "ja", 9),          # と-う-きょ-う-に-い-き-ま-す
    ("ちょっと待って", "ja", 6),          # ちょ-っ-と-ま-っ-て
    ("私は明日行きます", "ja", 11),       # わたし は あした いきます: spoken, not ワタクシ / アス
    ("안녕하세요", "ko", 5),
    ("Xin chào các bạn", "vi", 4),
    ("Xem video trên Facebook", "vi", 7),  # xem vi-de-o trên Face-book
    ("¿Qué día es hoy?", "es", 5),        # qué dí-a es hoy
    ("La ciudad es bonita", "es", 7),     # la ciu-dad es bo-ni-ta
    ("Ich habe keine Zeit", "de", 6),
    ("Das Feuer ist heiß", "de", 5),      # das feu-er ist heiß
    ("Ils parlent lentement", "fr", 5),   # ils parlent len-te-ment
    ("Une belle journée", "fr", 4),
    ("Buongiorno a tutti", "it", 6),      # buon-gior-no a tut-ti
    ("Le due ragazze", "it", 6),          # le du-e ra-gaz-ze
    ("Minha mãe fez pão", "pt", 5),       # mi-nha mãe fez pão
    ("Ainda não", "pt", 4),               # a-in-da não
    ("As crianças brincam", "pt", 6),     # as cri-an-ças brin-cam
    ("Привет, как дела?", "ru", 5),
    ("Bună ziua, copii", "ro", 6),        # bu-nă zi-ua co-pii
    ("Mi-e foame", "ro", 3),              # mie foa-me: a hyphenated clitic is one word
    ("Aici sunt pomi", "ro", 4),          # a-ici sunt pomi
    ("Dzień dobry, nie wiem", "pl", 5),
    ("Hur mår du?", "sv", 3),
    ("Goedemorgen, hoe gaat het", "nl", 7),
    ("Merhaba, nasılsın", "tr", 6),
    ("Saya mau makan di pantai", "id", 8),  # sa-ya mau ma-kan di pan-tai
    ("Main di laut", "ms", 5),            # ma-in di la-ut
    ("السلام عليكم", "ar", 7),            # as-sa-laa-mu a-lay-kum
    ("مع السلامة", "ar", 5),              # ma-ʿas-sa-laa-mah
    ("ذهبنا إلى البحر", "ar", 6),          # dha-hab-naa ʾi-lal-bahr
    ("Kumusta ka? mga bata", "fil", 8),   # ku-mus-ta ka ma-nga ba-ta
    ("สวัสดีครับ", "th", 4),              # สะ-หวัด-ดี-ครับ
    ("ผมชอบกินข้าว", "th", 4),
    ("नमस्ते, आप कैसे हैं?", "hi", 7),    # na-mas-te aap kai-se hain
    ("समझना", "hi", 3),                   # sa-majh-naa
])
def test_counts_each_language(text, lang, expected):
    assert count_syllables(text, lang) == expected


def test_every_language_counts_something():
    samples = {
        "zh": "你好", "en": "hello", "ja": "はい", "ko": "네", "vi": "vâng", "es": "hola",
        "de": "hallo", "fr": "bonjour", "it": "ciao", "pt": "olá", "ru": "привет", "ro": "salut",
        "pl": "cześć", "sv": "hej", "nl": "hallo", "tr": "selam", "id": "halo", "ms": "helo",
        "ar": "مرحبا", "fil": "kumusta", "th": "สวัสดี", "hi": "नमस्ते",
    }
    assert set(samples) == set(SUPPORTED_LANGS)
    for lang, text in samples.items():
        assert count_syllables(text, lang) > 0, lang


@pytest.mark.parametrize("text, lang, expected", [
    ("2024", "en", 5),         # twenty twenty-four
    ("15%", "en", 4),          # fifteen percent
    ("1.5", "en", 3),          # one point five
    ("3rd", "en", 1),          # third
    ("$5", "en", 3),           # five dollars
    ("€3", "en", 3),           # three euros
    ("2024年", "zh", 5),       # 二零二四年
    ("15%", "zh", 5),          # 百分之十五
    ("3.5", "zh", 3),          # 三点五
    ("100", "zh", 2),          # 一百
    ("2024年", "ja", 9),       # に-せ-ん-に-じゅ-う-よ-ね-ん
    ("3人", "ja", 4),          # さ-ん-に-ん
    ("2024년", "ko", 6),       # 이천이십사 년
    ("3명", "ko", 2),          # 세 명
    ("15%", "vi", 4),          # mười lăm phần trăm
    ("2024", "es", 6),         # dos mil vein-ti-cua-tro
    ("1,5", "de", 4),          # eins Kom-ma fünf
    ("2024", "fr", 4),         # deux mille vingt-quatre
    ("2024", "ru", 9),         # две ты-ся-чи два-дцать че-ты-ре
    ("100", "tr", 1),          # yüz
    ("15%", "ms", 7),          # li-ma be-las pe-ra-tus
    ("3", "fil", 2),           # tat-lo
    ("2024", "hi", 5),         # do ha-zaar chau-biis
    ("2024", "th", 5),         # สอง-พัน-ยี่-สิบ-สี่
    ("100", "ar", 2),          # mi-ʾah
    ("11", "ar", 5),           # ʾa-ḥa-da ʿa-shar
    ("3,5", "ru", 7),          # три це-лых пять де-ся-тых
    ("1990", "de", 6),         # neun-zehn-hun-dert-neun-zig
    ("2,5%", "fr", 6),         # deux vir-gule cinq pour cent
    ("١٠٠", "ar", 2),          # Arabic-Indic digits
])
def test_numbers_are_read_aloud(text, lang, expected):
    assert count_syllables(text, lang) == expected


@pytest.mark.parametrize("text, lang, expected", [
    ("FBI", "en", 3),
    ("NASA", "en", 2),
    ("WWE", "en", 7),          # dou-ble-you dou-ble-you ee
    ("the TVs", "en", 3),
    ("PDF", "es", 4),          # pe de e-fe
    ("la ONU", "es", 3),       # la o-nu
    ("SNCF", "fr", 4),
    ("tv", "nl", 2),
    ("ФСБ", "ru", 3),          # эф эс бэ
    ("НАТО", "ru", 2),
    ("我在FBI工作", "zh", 7),
    ("NHKのニュース", "ja", 7),  # English letters (SPEC §8 convention) + の-にゅ-ー-す
    ("Plan B", "en", 2),
])
def test_acronyms_spelled_unless_read_as_word(text, lang, expected):
    assert count_syllables(text, lang) == expected


@pytest.mark.parametrize("text, lang, expected", [
    ("我用iPhone看YouTube", "zh", 7),      # 我 用 i-phone 看 you-tube
    ("今日はYouTubeを見た", "ja", 8),       # きょ-う-わ You-Tube を み-た
    ("TV 보면서", "ko", 5),
    ("ดูคลิปใน YouTube", "th", 5),
    ("मुझे cricket पसंद है", "hi", 7),     # mu-jhe crick-et pa-sand hai
    ("Привет, world", "ru", 3),
    ("Subí un vídeo a YouTube", "es", 9),  # CamelCase brand read the English way
    ("用ChatGPT和OpenAI", "zh", 10),        # 用 chat-G-P-T 和 o-pen-A-I
    ("Ayo main game", "id", 5),            # a-yo ma-in game
    ("東京", "zh", 2),                     # Han characters in any line: one each
])
def test_mixed_scripts_counted_by_their_own_rules(text, lang, expected):
    assert count_syllables(text, lang) == expected


@pytest.mark.parametrize("text, lang", [
    ("", "en"), ("   ", "zh"), ("🎉🎉🎉", "ja"), ("!!! ... ???", "fr"), ("—「」『』", "ja"),
    ("😂", "ar"), ("#@&*", "ko"), ("\u2028\u200b\ufeff", "th"),
])
def test_punctuation_emoji_and_symbols_count_nothing(text, lang):
    assert count_syllables(text, lang) == 0


def test_emoji_do_not_change_a_count():
    assert count_syllables("Hello world 😂😂!!", "en") == count_syllables("Hello world", "en")


@pytest.mark.parametrize("lang", SUPPORTED_LANGS)
def test_never_crashes_on_odd_strings(lang):
    rng = random.Random(7)
    alphabet = ("abcXYZ019.,%$€ 　'’-_/\\\n\t\u0301\u0300éñüßøœ漢字かなカナ한글ㅋㅋ"
                "привет مرحباً ٠١٢ ไทยๆ์ हिन्दी़ं ️🎉👍🏽\u200d\u2028\ufffd\x00\ud800")
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert count_syllables(text, lang) >= 0
    for text in ("9" * 400, "1.2.3.4.5", "1,,2", "0.000001", "007", "١٫٥", "Ⅻ", "½", "x" * 50):
        assert count_syllables(text, lang) >= 0


def test_very_long_input_is_counted():
    line = "This is a fairly long subtitle line. " * 2000
    assert count_syllables(line, "en") == 2000 * count_syllables("This is a fairly long subtitle line.", "en")
    assert count_syllables("こんにちは" * 3000, "ja") == 15000


def test_unknown_language_names_the_supported_codes():
    with pytest.raises(ValueError) as error:
        count_syllables("hello", "xx")
    for code in ("zh", "fil", "hi"):
        assert code in str(error.value)


def test_alias_matches_count_syllables():
    for text, lang in (("Hello world", "en"), ("こんにちは", "ja"), ("Hola a todos", "es")):
        assert cal_syllable_count(text, lang) == count_syllables(text, lang)


def test_every_language_has_a_tier():
    assert set(TIERS) == set(SUPPORTED_LANGS)


# --- the hand-labelled reference sets ---------------------------------------------------------
# syllable_gold: the development set (the counter was tuned against its misses);
# syllable_heldout: labelled later by another team member and measured once before any fix.

LABELLED_DIRS = {"gold": GOLD_DIR, "heldout": GOLD_DIR.parent / "syllable_heldout"}


def _load_labelled(directory: Path) -> dict[str, list[tuple[str, int]]]:
    rows: dict[str, list[tuple[str, int]]] = {}
    for lang in SUPPORTED_LANGS:
        for line in (directory / f"{lang}.tsv").read_text(encoding="utf-8").split("\n")[1:]:
            if line.strip() and not line.startswith("#"):
                text, count, _ = line.split("\t")
                rows.setdefault(lang, []).append((text, int(count)))
    return rows


LABELLED = {name: _load_labelled(directory) for name, directory in LABELLED_DIRS.items()}
GOLD = LABELLED["gold"]
THRESHOLDS = {"high": 0.95, "medium": 0.90, "approximate": 0.80}


def _misses(rows):
    return [(lang, text, gold, count_syllables(text, lang)) for lang, text, gold in rows
            if count_syllables(text, lang) != gold]


@pytest.mark.parametrize("labelled", sorted(LABELLED))
@pytest.mark.parametrize("tier", ["high", "medium"])
def test_exact_match_per_tier(labelled, tier):
    rows = [(lang, text, gold) for lang, items in LABELLED[labelled].items() if TIERS[lang] == tier
            for text, gold in items]
    misses = _misses(rows)
    assert 1 - len(misses) / len(rows) >= THRESHOLDS[tier], misses


@pytest.mark.parametrize("labelled", sorted(LABELLED))
@pytest.mark.parametrize("lang", ["th", "hi"])
def test_exact_match_approximate_languages(labelled, lang):
    rows = [(lang, text, gold) for text, gold in LABELLED[labelled][lang]]
    misses = _misses(rows)
    assert 1 - len(misses) / len(rows) >= THRESHOLDS["approximate"], misses


@pytest.mark.parametrize("lang", sorted(SUPPORTED_LANGS))
def test_gold_no_language_breaks(lang):
    """A floor per language on the larger set, so that one language cannot collapse behind a good
    tier average (the held-out set has 10–15 phrases a language: too few for a floor)."""
    rows = [(lang, text, gold) for text, gold in GOLD[lang]]
    misses = _misses(rows)
    assert 1 - len(misses) / len(rows) >= 0.85, misses


@pytest.mark.parametrize("labelled", sorted(LABELLED))
def test_within_one_overall(labelled):
    rows = [(lang, text, gold) for lang, items in LABELLED[labelled].items() for text, gold in items]
    far = [(lang, text, gold, count_syllables(text, lang)) for lang, text, gold in rows
           if abs(count_syllables(text, lang) - gold) > 1]
    assert 1 - len(far) / len(rows) >= 0.98, far


@pytest.mark.parametrize("labelled", sorted(LABELLED))
def test_labelled_sets_cover_every_language(labelled):
    assert set(LABELLED[labelled]) == set(SUPPORTED_LANGS)


@pytest.mark.parametrize("text, lang, expected", [
    ("Wait... what?! NO WAY!!!", "en", 4),   # shouting, not acronyms
    ("STOP", "en", 1),
    ("FBI", "en", 3),                        # acronyms still spelled
    ("AI is here", "en", 4),
    ("US and IT", "en", 5),
    ("NO WAY 太离谱了", "zh", 6),
])
def test_capitals_shout_words_but_spell_acronyms(text, lang, expected):
    assert count_syllables(text, lang) == expected


def test_french_silent_final_e_decides_what_the_spec_pattern_did():
    import re

    from eval.syllable import _french_silent_final_e

    def by_pattern(w):
        if re.search(r"[aeiouyéèêàâîïôûùœ].*(e|es)$", w) and not w.endswith(("ée", "ées")):
            return re.sub(r"(e|es)$", "", w)
        if w.endswith(("ée", "ées")):
            return re.sub(r"(e|es)$", "", w)
        return w

    generator = random.Random(5)
    for _ in range(20000):
        word = "".join(generator.choices("eésxœa", k=generator.randint(0, 7)))
        assert _french_silent_final_e(word) == by_pattern(word), word
