"""Lines written in capitals (docs/syllables.md, the 2026-10-05 counter change): a short
capitalised word is read as a word there, and spelled as an initialism in a line with lower case."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.syllable import count_syllables

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("text, lang, count", [
    ("IT IS OK", "en", 4), ("LET US GO", "en", 3), ("AS IF", "en", 2), ("DO IT AGAIN", "en", 4),
    ("NO ME DIGAS", "es", 4), ("ES EL FIN", "es", 3), ("LA ONU LO SABE", "es", 6),
    ("IL EST LÀ", "fr", 3), ("ICH BIN DA", "de", 3), ("TI AMO", "it", 3), ("EU TE AMO", "pt", 4),
    # initialisms the dictionary reads letter by letter, and the two kept spelled, in capital lines
    ("THE FBI IS HERE", "en", 6), ("TURN ON THE TV", "en", 5), ("MADE IN THE USA", "en", 6),
    ("AI IS THE FUTURE", "en", 6), ("SHOW YOUR ID", "en", 4),
    # a vowelless capitalised word is still spelled in a capital line (PP = pe pe)
    ("GANA EL PP", "es", 5),
])
def test_a_line_written_in_capitals_reads_its_short_words_as_words(text, lang, count):
    assert count_syllables(text, lang) == count


@pytest.mark.parametrize("text, lang, count", [
    ("I work in IT", "en", 5), ("The US army", "en", 5), ("Watch it on TV", "en", 5),
    ("El PP ganó", "es", 5),
    ("IT", "en", 2),            # one word is not a line written in capitals: an initialism
    ("ITエンジニア", "ja", 7),   # a Japanese line: the Latin word keeps its English letter names
    ("IT企业", "zh", 4),
])
def test_the_same_words_are_spelled_outside_a_line_written_in_capitals(text, lang, count):
    assert count_syllables(text, lang) == count


def test_the_reading_depends_on_the_line_not_on_the_order_lines_are_counted_in():
    """The per-token cache must not carry a word's capital-line reading into a mixed-case line."""
    assert count_syllables("IT IS OK", "en") == 4
    assert count_syllables("I work in IT", "en") == 5
    assert count_syllables("IT IS OK", "en") == 4


def test_docs_syllables_shows_the_accuracy_table_the_script_prints():
    from scripts.syllable_accuracy import GOLD_DIR, gold_table, table_lines

    docs = (ROOT / "docs" / "syllables.md").read_text(encoding="utf-8")
    for line in table_lines(gold_table(GOLD_DIR)):
        assert line in docs, line
