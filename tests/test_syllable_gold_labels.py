"""The hand-labelled syllable set is consistent with itself: each label equals the number of
pieces of its written-out breakdown, and every language has enough phrases (issue 3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GOLD = Path(__file__).parent / "data" / "syllable_gold"
LANGS = "zh en ja ko vi es de fr it pt ru ro pl sv nl tr id ms ar fil th hi".split()
PIECE_SEPARATORS = re.compile(r"[\s\-·]+")


def gold_lines(lang: str) -> list[tuple[int, str, int, str]]:
    lines = (GOLD / f"{lang}.tsv").read_text(encoding="utf-8").split("\n")
    assert lines[0] == "text\tsyllables\tbreakdown"
    entries = []
    for number, line in enumerate(lines[1:], 2):
        if not line or line.startswith("#"):
            continue
        text, count, breakdown = line.split("\t")
        entries.append((number, text, int(count), breakdown))
    return entries


@pytest.mark.parametrize("lang", LANGS)
def test_each_label_equals_its_breakdown(lang):
    wrong = [(number, text, count, len(PIECE_SEPARATORS.split(breakdown.strip())))
             for number, text, count, breakdown in gold_lines(lang)
             if count != len(PIECE_SEPARATORS.split(breakdown.strip()))]
    assert wrong == []


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_has_enough_phrases(lang):
    assert len(gold_lines(lang)) >= (12 if lang in ("th", "hi") else 25)
