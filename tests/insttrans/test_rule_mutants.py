"""Verdict tables that pin what issue 37's 60-mutant samples of the InstTrans rule modules found
unpinned (eval/insttrans/rules.py, strict_rules.py, rule_parts.py; docs/testing.md lists the
figures and the survivors judged equivalent). Every rule is called through the rule table and a
scoring context, per rule set and scorer version, as a run calls it."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import make_row
from eval.insttrans.failures import failure_reason
from eval.insttrans.rules import (FORMAT_1005, PUBLIC_V1, PUBLIC_V1_FORMAT, PUBLIC_V1_TERMS, RULE_SET_NAMES, RULE_TABLE,
                                  SOCIAL_ONLY_IDS, STRICT, TERMS_1005, V2026_10_05)

ORIGINAL = "original"
VERSIONS = (V2026_10_05, PUBLIC_V1)


def check(cid: str, row: dict, prediction: str, rule_set: str = ORIGINAL, version: str = V2026_10_05):
    return RULE_TABLE.check(cid, row, prediction, RULE_TABLE.context(rule_set=rule_set, scorer_version=version))


@pytest.mark.parametrize("version", VERSIONS)
def test_a_kept_markdown_part_names_no_lost_feature(version):
    # rules.py `if lost:` — a passing part's detail (written to scores.jsonl) carries no empty "lost"
    verdict = check("format_preserve", make_row(source_text="**粗体** 文本"), "**Bold** text", version=version)
    assert verdict.passed and verdict.reason == ""
    assert verdict.detail["markdown"] == {"passed": True, "source_features": ["bold", "italic"]}
    failing = check("format_preserve", make_row(source_text="**粗体** 文本"), "Bold text", version=version)
    assert not failing.passed and failing.detail["markdown"]["lost"] == ["bold", "italic"]


def test_a_strict_json_detail_is_explained_by_the_strict_formatter_not_as_an_empty_original_one():
    # rules.py's `raise KeyError("not a §7.1 JSON detail")`: without it the original formatter
    # reads a strict JSON detail as "JSON: " and the failures page loses the reason
    row = make_row(source_text='{"a": "x"}')
    for version in VERSIONS:
        assert check("format_preserve", row, '{"a": 1}', version=version).passed  # §7.1 reads key paths only
        strict = check("format_preserve", row, '{"a": 1}', STRICT, version)
        assert not strict.passed and strict.reason == "JSON: a is a number, the source's a string"
        with pytest.raises(KeyError):
            RULE_TABLE.explain("format_preserve", strict.detail, ORIGINAL)
        # a page that cannot know the run's rule set still gives the strict reason
        assert failure_reason("format_preserve", strict.detail, ORIGINAL) == strict.reason


def test_the_ids_the_bundled_social_rows_may_carry():
    # rules.py's `on_social_rows=True` on format_preserve (SPEC §3: social rows carry these three only)
    assert SOCIAL_ONLY_IDS == ("format_preserve", "term_compliance", "social_preserve")


def test_the_shared_scorer_version_readings_cannot_be_changed_by_a_caller():
    # a reading is the module default of every run's rules: a caller that could set a field would
    # change the scorer for every later row
    for reading, field in ((PUBLIC_V1_FORMAT, "markdown_trigger"), (FORMAT_1005, "markdown_trigger"),
                           (PUBLIC_V1_TERMS, "blocker"), (TERMS_1005, "blocker")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(reading, field, None)


def test_every_rule_set_is_in_the_table():
    assert RULE_TABLE.rule_sets == RULE_SET_NAMES == (ORIGINAL, STRICT)


# --- eval/insttrans/strict_rules.py ----------------------------------------------------------------

@pytest.mark.parametrize("cid, row, prediction, reason", [
    # one attribute problem is not followed by a count of more (`more > 0`)
    ("format_preserve", make_row(source_text='<a href="x">链接</a>'), '<a href="y">link</a>',
     "HTML: <a> href='y', source 'x'"),
    # a tab and a bar count each name their own mark
    ("layout_break", make_row(source_text="一\ta\n二"), "one a\ntwo", "line 1 has 0 tabs for the source's 1"),
    ("layout_break", make_row(source_text="| 一 | 二 |\n三"), "| one two\nthree", "line 1 has 1 | for the source's 3"),
])
def test_strict_reasons_exactly(cid, row, prediction, reason):
    for version in VERSIONS:
        verdict = check(cid, row, prediction, STRICT, version)
        assert not verdict.passed and verdict.reason == reason
        assert RULE_TABLE.explain(cid, verdict.detail, STRICT) == reason


def test_the_strict_term_rule_notes_a_row_without_glossary_terms_only():
    with_terms = check("term_compliance", make_row(constraints=["术语对照：你好→Hello"]), "Hello there", STRICT)
    assert with_terms.passed and with_terms.detail == {"terms": ["Hello"], "missing": []}
    without = check("term_compliance", make_row(), "anything", STRICT)
    assert without.passed
    assert without.detail == {"terms": [], "missing": [], "note": "no glossary term in the constraint lines"}


@pytest.mark.parametrize("rule_set", RULE_SET_NAMES)
@pytest.mark.parametrize("version", VERSIONS)
def test_an_html_part_names_the_lost_and_extra_tags_else_the_first_changed_place_counted_from_one(rule_set, version):
    # rule_parts.py explain_tag_changes: the lost and the extra tags first; a reorder names tag #2 (1-based), not #1
    lost = check("format_preserve", make_row(source_text="<p><b>粗体</b>文本</p>"), "<p>Bold text</p>", rule_set, version)
    assert (lost.passed, lost.reason) == (False, "HTML: lost tag <b>, </b>")
    extra = check("format_preserve", make_row(source_text="<p>文本</p>"), "<p><b>Text</b></p>", rule_set, version)
    assert (extra.passed, extra.reason) == (False, "HTML: extra tag <b>, </b>")
    moved = check("format_preserve", make_row(source_text="<p><b>粗</b><i>斜</i></p>"), "<p><i>It</i><b>B</b></p>",
                  rule_set, version)
    assert (moved.passed, moved.reason) == (False, "HTML: tag #2 is <i>, source has <b> (order changed)")
