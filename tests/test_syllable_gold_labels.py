"""The hand-labelled syllable sets are consistent with themselves: each label equals the number of
pieces of its written-out breakdown, and every language has enough phrases."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SETS = {"gold": (Path(__file__).parent / "data" / "syllable_gold", 25, 12),
        "heldout": (Path(__file__).parent / "data" / "syllable_heldout", 15, 10)}
LANGS = "zh en ja ko vi es de fr it pt ru ro pl sv nl tr id ms ar fil th hi".split()
PIECE_SEPARATORS = re.compile(r"[\s\-·]+")


def gold_lines(lang: str, labelled: str = "gold") -> list[tuple[int, str, int, str]]:
    lines = (SETS[labelled][0] / f"{lang}.tsv").read_text(encoding="utf-8").split("\n")
    assert lines[0] == "text\tsyllables\tbreakdown"
    entries = []
    for number, line in enumerate(lines[1:], 2):
        if not line or line.startswith("#"):
            continue
        text, count, breakdown = line.split("\t")
        entries.append((number, text, int(count), breakdown))
    return entries


@pytest.mark.parametrize("labelled", sorted(SETS))
@pytest.mark.parametrize("lang", LANGS)
def test_each_label_equals_its_breakdown(lang, labelled):
    wrong = [(number, text, count, len(PIECE_SEPARATORS.split(breakdown.strip())))
             for number, text, count, breakdown in gold_lines(lang, labelled)
             if count != len(PIECE_SEPARATORS.split(breakdown.strip()))]
    assert wrong == []


@pytest.mark.parametrize("labelled", sorted(SETS))
@pytest.mark.parametrize("lang", LANGS)
def test_each_language_has_enough_phrases(lang, labelled):
    _, minimum, minimum_th_hi = SETS[labelled]
    assert len(gold_lines(lang, labelled)) >= (minimum_th_hi if lang in ("th", "hi") else minimum)


def test_the_held_out_set_shares_no_phrase_with_the_development_set():
    for lang in LANGS:
        development = {text for _, text, _, _ in gold_lines(lang, "gold")}
        assert not development & {text for _, text, _, _ in gold_lines(lang, "heldout")}, lang
