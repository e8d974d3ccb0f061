"""The five hard rules, pinned to SPEC §7 as tables: a passing and a failing table per rule.

The lenient spots of the original scorer are pinned too (they are the published semantics);
every failing case also checks that the detail names what failed.
"""

from __future__ import annotations

import json
import random
import re
import time

import pytest

from conftest import make_row as shared_make_row

from eval.insttrans.rules import (CONSTRAINT_KINDS, HARD_IDS, HTML_TAG, CONSTRAINTS, RULE_SETS, check_format_preserve,
                                  check_layout_break, check_social_preserve, check_syllable_order,
                                  check_term_compliance, glossary_terms, html_tags, reduce_tag, markdown_has,
                                  social_elements, without_tags)


def make_row(source_text: str = "原文", constraints=(), source_lang: str = "zh", target_lang: str = "en",
             duration_s=None) -> dict:
    """The shared row builder with the fields these rules read given positionally."""
    lines = list(constraints) or ["保持原文格式"]
    return shared_make_row(source_text=source_text, constraints=lines, constraint_ids=["format_preserve"] * len(lines),
                           source_lang=source_lang, target_lang=target_lang,
                           **({} if duration_s is None else {"duration_s": list(duration_s)}))


def assert_serialisable(detail: dict) -> None:
    assert json.loads(json.dumps(detail, ensure_ascii=False)) == detail


# --- format_preserve (§7.1) ------------------------------------------------------------------

FORMAT_PASSES = [
    # (name, source_text, prediction, source_lang, target_lang)
    ("json_value_changed_keys_intact", '{"title": "你好", "body": {"text": "世界"}}',
     '{"title": "Hello", "body": {"text": "World"}}', "zh", "en"),
    ("json_key_order_free", '{"1": "一", "2": "二"}', '{"2": "two", "1": "one"}', "zh", "en"),
    ("json_whitespace_around_prediction", '{"1": "一"}', '\n  {"1": "one"}\n', "zh", "en"),
    ("json_string_array_length_not_compared", '{"tags": ["一", "二", "三"]}', '{"tags": ["one"]}', "zh", "en"),
    ("json_nested_array_paths", '{"a": [{"c": "甲"}, {"c": "乙", "d": {"e": "丙"}}]}',
     '{"a": [{"c": "A"}, {"c": "B", "d": {"e": "C"}}]}', "zh", "en"),
    ("json_top_level_array_of_objects", '[{"k": "值"}, {"k": "值"}]', '[{"k": "v"}, {"k": "w"}]', "zh", "en"),
    ("json_value_types_not_compared", '{"a": {"b": "x"}, "n": 1}', '{"a": {"b": 2}, "n": "one"}', "zh", "en"),
    # Lenient: a string-only array has no key path, so any JSON value matches its empty set.
    ("json_string_array_source_scalar_prediction", '["一", "二"]', '"one two"', "zh", "en"),
    ("source_json_that_does_not_parse_is_no_json", "[笑哭] 哈哈哈", "haha", "zh", "en"),
    ("no_trigger_plain_text", "今天天气很好。", "Nice weather today.", "zh", "en"),
    ("html_href_changed", '<a href="https://a.cn/x">点击这里</a>', '<a href="https://a.com/en">Click here</a>', "zh", "en"),
    ("html_attribute_changed_and_added", '<p class="a">你好</p>', '<p id="b" class="c">Hello</p>', "zh", "en"),
    ("html_br_space_slash_vs_attributes", "一<br />二", 'one<br class="x"/>two', "zh", "en"),
    ("html_br_slash_kept", "一<br/>二", "one<br/>two", "zh", "en"),
    ("html_tag_split_over_lines_last_line_attributes_free",
     '<a\nhref="x"\nclass="y">文字</a>', '<a\nhref="x"\nclass="z">Text</a>', "zh", "en"),
    ("html_zh_to_ja_kanji_allowed", "<p>今天天气很好</p>", "<p>今日は天気がいいです</p>", "zh", "ja"),
    ("html_en_source_chinese_not_checked", "<p>Hello</p>", "<p>你好</p>", "en", "zh"),
    ("html_chinese_in_attribute_ignored", '<a title="中文">你好</a>', '<a title="中文">Hello</a>', "zh", "en"),
    ("html_cjk_share_exactly_one_percent", "<p>你好</p>", "<p>" + "a" * 99 + "好</p>", "zh", "en"),
    ("markdown_list_loses_one_of_three", "- 一\n- 二\n- 三", "- one\n- two", "zh", "en"),
    ("markdown_counts_not_compared", "**重要** 和 **注意**", "**important** and note", "zh", "en"),
    ("markdown_features_kept", "# 标题\n\n**粗** `代码` [链接](https://x.cn)\n> 引用\n1. 第一",
     "# Title\n\n**bold** `code` [link](https://x.cn)\n> quote\n1. first", "zh", "en"),
    # Lenient: italic, ordered items and tables alone do not trigger the Markdown part.
    ("markdown_italic_alone_not_triggered", "这是*斜体*", "this is italic", "zh", "en"),
    ("markdown_table_alone_not_triggered", "| 名 | 值 |\n|---|---|", "name value", "zh", "en"),
    ("markdown_ordered_alone_not_triggered", "1. 打开\n2. 关闭", "open, close", "zh", "en"),
    ("placeholder_kept", "你好，{name}！共%d条，{{count}}个，$1", "Hi {name}! %d items, {{count}}, $1", "zh", "en"),
    ("placeholder_added_allowed", "你好 {name}", "Hello {name}, {extra} %s", "zh", "en"),
    ("placeholder_price_kept", "只要$100", "only $100", "zh", "en"),
    ("placeholder_brace_digit_is_none", "第{0}页", "Page 1", "zh", "en"),
    ("placeholder_positional_printf_is_none", "共%1$s条", "total", "zh", "en"),
    ("placeholder_numbered_tag_is_none", "点击<0>这里</0>", "click here", "zh", "en"),
]

FORMAT_FAILS = [
    # (name, source_text, prediction, source_lang, target_lang, failed part, expected detail items)
    ("json_translated_key", '{"标题": "你好"}', '{"title": "Hello"}', "zh", "en", "json",
     {"missing_paths": ["标题"], "extra_paths": ["title"]}),
    ("json_dropped_key", '{"1": "一", "2": "二"}', '{"1": "one"}', "zh", "en", "json",
     {"missing_paths": ["2"]}),
    ("json_nested_path_renamed", '{"a": [{"c": "甲"}]}', '{"a": [{"d": "A"}]}', "zh", "en", "json",
     {"missing_paths": ["a[0].c"], "extra_paths": ["a[0].d"]}),
    ("json_object_array_shorter", '{"a": [{"c": "甲"}, {"c": "乙"}]}', '{"a": [{"c": "A"}]}', "zh", "en",
     "json", {"missing_paths": ["a[1].c"]}),
    ("json_prose_around", '{"1": "一"}', 'Here is the translation: {"1": "one"}', "zh", "en", "json",
     {"prediction_starts": "Here is the transla…"}),
    ("json_code_fence", '{"1": "一"}', '```json\n{"1": "one"}\n```', "zh", "en", "json",
     {"prediction_starts": "```json\n{\"1\": \"one\"…"}),
    ("html_tag_dropped", "<p>你好<b>世界</b></p>", "<p>Hello world</p>", "zh", "en", "html",
     {"missing_tags": ["<b>", "</b>"], "first_difference": {"index": 1, "source": "<b>", "prediction": "</p>"}}),
    ("html_tag_renamed", "<b>粗体</b>", "<strong>bold</strong>", "zh", "en", "html",
     {"missing_tags": ["<b>", "</b>"], "extra_tags": ["<strong>", "</strong>"]}),
    ("html_tag_recased", "<B>粗体</B>", "<b>bold</b>", "zh", "en", "html",
     {"first_difference": {"index": 0, "source": "<B>", "prediction": "<b>"}}),
    ("html_tags_reordered", "<i>一</i><b>二</b>", "<b>two</b><i>one</i>", "zh", "en", "html",
     {"first_difference": {"index": 0, "source": "<i>", "prediction": "<b>"}}),
    ("html_br_slash_vs_space_slash", "一<br/>二", "one<br />two", "zh", "en", "html",
     {"first_difference": {"index": 0, "source": "<br/>", "prediction": "<br>"}}),
    ("html_tag_split_over_lines_early_attribute_changed",
     '<a\nhref="x"\nclass="y">文字</a>', '<a\nhref="z"\nclass="y">Text</a>', "zh", "en", "html",
     {"first_difference": {"index": 0, "source": '<a\nhref="x">', "prediction": '<a\nhref="z">'}}),
    ("html_chinese_left_in_zh_en", "<p>你好世界</p>", "<p>Hello 世界</p>", "zh", "en", "html",
     {"untranslated_chinese": True, "cjk_chars": 2, "cjk_share": 0.2857}),
    ("html_chinese_left_in_zh_ko", "<p>你好</p>", "<p>안녕 你好</p>", "zh", "ko", "html",
     {"untranslated_chinese": True, "cjk_chars": 2}),
    ("markdown_list_loses_all", "- 一\n- 二\n- 三", "one, two, three", "zh", "en", "markdown",
     {"lost": ["list_item"]}),
    ("markdown_heading", "# 标题\n正文", "Title\nBody", "zh", "en", "markdown", {"lost": ["heading"]}),
    ("markdown_bold", "这是**重点**", "this is key", "zh", "en", "markdown", {"lost": ["bold", "italic"]}),
    ("markdown_italic", "`代码` 和 *斜体*", "`code` and italic", "zh", "en", "markdown", {"lost": ["italic"]}),
    ("markdown_inline_code", "运行 `npm i` 安装", "run npm i to install", "zh", "en", "markdown",
     {"lost": ["inline_code"]}),
    ("markdown_code_block", "示例：\n```\nprint(1)\n```", "Example:\n`print(1)`", "zh", "en", "markdown",
     {"lost": ["code_block"]}),
    ("markdown_ordered_item", "# 步骤\n1. 打开\n2. 关闭", "# Steps\nopen, close", "zh", "en", "markdown",
     {"lost": ["ordered_item"]}),
    ("markdown_link", "见[文档](https://x.cn)", "see the docs (https://x.cn)", "zh", "en", "markdown",
     {"lost": ["link"]}),
    ("markdown_image", "![图](a.png)", "[picture](a.png)", "zh", "en", "markdown", {"lost": ["image"]}),
    ("markdown_quote", "> 引用的话", "quoted words", "zh", "en", "markdown", {"lost": ["quote"]}),
    ("markdown_table", "**表**\n| 名 | 值 |\n|---|---|", "**Table**\nname value", "zh", "en", "markdown",
     {"lost": ["table"]}),
    ("placeholder_name_dropped", "你好，{name}！", "Hello!", "zh", "en", "placeholders", {"missing": ["{name}"]}),
    ("placeholder_name_translated", "你好，{name}！", "Hello, {nombre}!", "zh", "es", "placeholders",
     {"missing": ["{name}"]}),
    ("placeholder_printf_dropped", "已下载%s，失败%d", "downloaded %s", "zh", "en", "placeholders",
     {"missing": ["%d"]}),
    ("placeholder_price_changed", "只要$100", "only 100 dollars", "zh", "en", "placeholders",
     {"missing": ["$100"]}),
    ("placeholder_dollar_must_match_whole", "第$1项", "item $10", "zh", "en", "placeholders",
     {"missing": ["$1"]}),
    ("placeholder_double_brace_to_single", "共{{count}}条", "{count} items", "zh", "en", "placeholders",
     {"missing": ["{{count}}"]}),
]


@pytest.mark.parametrize("name, source, prediction, source_lang, target_lang", FORMAT_PASSES,
                         ids=[case[0] for case in FORMAT_PASSES])
def test_format_preserve_passes(name, source, prediction, source_lang, target_lang):
    verdict = check_format_preserve(make_row(source, source_lang=source_lang, target_lang=target_lang), prediction)
    assert verdict.passed, verdict.detail
    assert verdict.detail["failed"] == []
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, source, prediction, source_lang, target_lang, part, expected", FORMAT_FAILS,
                         ids=[case[0] for case in FORMAT_FAILS])
def test_format_preserve_fails(name, source, prediction, source_lang, target_lang, part, expected):
    verdict = check_format_preserve(make_row(source, source_lang=source_lang, target_lang=target_lang), prediction)
    assert not verdict.passed
    assert verdict.detail["failed"] == [part]
    for key, value in expected.items():
        assert verdict.detail[part][key] == value, (key, verdict.detail[part])
    assert_serialisable(verdict.detail)


def test_format_preserve_names_the_triggered_parts():
    source = '{"1": "<b>你好</b> {name}", "2": "二"}'
    verdict = check_format_preserve(make_row(source), '{"1": "hello {name}", "2": "two"}')
    assert verdict.detail["parts"] == ["json", "html", "placeholders"]
    assert verdict.detail["failed"] == ["html"]


def test_format_preserve_json_parse_error_is_named():
    detail = check_format_preserve(make_row('{"1": "一"}'), '{"1": "one",}').detail
    assert detail["json"]["error"].startswith("prediction is not JSON:")


def test_format_preserve_no_trigger_names_no_part():
    verdict = check_format_preserve(make_row("普通的一句话"), "whatever")
    assert verdict.passed and verdict.detail == {"parts": [], "failed": []}


def random_texts(alphabet: str, count: int = 4000, longest: int = 16, seed: int = 7) -> list[str]:
    generator = random.Random(seed)
    return ["".join(generator.choices(alphabet, k=generator.randint(0, longest))) for _ in range(count)]


@pytest.mark.parametrize("feature, pattern", [("link", r"\[.*?\]\(.*?\)"), ("image", r"!\[.*?\]\(.*?\)")])
def test_linear_link_check_equals_the_spec_pattern(feature, pattern):
    compiled = re.compile(pattern)
    for text in random_texts("[]()!\n", longest=24):
        assert markdown_has(feature, text) == bool(compiled.search(text)), text


@pytest.mark.parametrize("alphabet", ["<>/ab \n_=", "<a> \n\t\r\x1c\x85\u3000\u2028x"])
def test_tag_scan_equals_the_spec_pattern(alphabet):
    reduce = re.compile(r"\s+.*?>")
    for text in random_texts(alphabet, longest=20):
        expected = [reduce.sub(">", tag, count=1) for tag in HTML_TAG.findall(text)]
        assert html_tags(text) == expected, text
        assert without_tags(text) == re.sub(r"<[^>]+>", "", text), text  # §7.1: any `<` up to the next `>`


def test_tag_reduction_equals_the_spec_pattern_on_every_short_tag():
    reduce = re.compile(r"\s+.*?>")
    for body in random_texts(" \n\t\x1c\u3000\u2028x=", count=6000, longest=10, seed=3):
        tag = f"<a{body}>"
        assert reduce_tag(tag) == reduce.sub(">", tag, count=1), repr(tag)


def test_degenerate_predictions_stay_fast():
    row = make_row("看[这里](https://x.cn) <b>粗</b>")
    start = time.perf_counter()
    for prediction in ("[doge]" * 5000, "<a" * 10000, "![" * 10000):
        assert not check_format_preserve(row, prediction).passed
    assert time.perf_counter() - start < 0.5  # the plain patterns take over a second here


# --- syllable_order (§7.2); counts: zh one per Han character, ko one per Hangul block ---------

EMPTY_JSON_VALUES = ["null", "0", "false", "[]", "{}", '""']
ONE_INVERSION_IN_TEN = '{"1": "一二", "2": "一", "3": "一二三", "4": "一二三四", "5": "一二三四五"}'

SYLLABLE_PASSES = [
    # (name, prediction, duration_s, target_lang)
    ("no_durations", "not even JSON", None, "zh"),
    ("empty_durations", "not even JSON", [], "zh"),
    ("empty_object", "{}", [1.0, 2.0, 3.0], "zh"),
    ("missing_key_is_empty_line", '{"2": "你好", "3": "你好吗"}', [1.0, 2.0, 3.0], "zh"),
    *[(f"empty_value_{value}_is_empty_line", f'{{"1": {value}, "2": "你好"}}', [1.0, 2.0], "zh")
      for value in EMPTY_JSON_VALUES],
    ("fewer_than_two_lines", '{"1": "很长很长的一句话"}', [0.5], "zh"),
    ("ordered_lengths", '{"1": "好", "2": "你好", "3": "你好吗"}', [1.0, 2.0, 3.0], "zh"),
    ("equal_durations_not_comparable", '{"1": "一", "2": "一二三四"}', [2.0, 2.0], "zh"),
    ("equal_durations_partly", '{"1": "一二三", "2": "一", "3": "一二三四"}', [2.0, 2.0, 3.0], "zh"),
    ("equal_counts_not_inversions", '{"1": "你好", "2": "再见"}', [1.0, 3.0], "zh"),
    ("concordance_exactly_0_9", ONE_INVERSION_IN_TEN, [1.0, 2.0, 3.0, 4.0, 5.0], "zh"),
    ("extra_keys_ignored", '{"1": "你", "2": "你好", "3": "很长很长很长很长"}', [1.0, 2.0], "zh"),
    ("korean_blocks", '{"1": "안녕", "2": "안녕하세요"}', [1.0, 2.5], "ko"),
    ("json_whitespace_around", '\n{"1": "你", "2": "你好"}\n', [1.0, 2.0], "zh"),
]

SYLLABLE_FAILS = [
    # (name, prediction, duration_s, target_lang, expected detail items)
    ("not_json", "你好\n再见", [1.0, 2.0], "zh", {}),
    ("code_fence", '```json\n{"1": "你", "2": "你好"}\n```', [1.0, 2.0], "zh", {}),
    ("json_array_not_object", '["你", "你好"]', [1.0, 2.0], "zh", {}),
    ("number_value", '{"1": 5, "2": "你好"}', [1.0, 2.0], "zh", {"line": 1}),
    ("list_value", '{"1": "你", "2": ["a"]}', [1.0, 2.0], "zh", {"line": 2}),
    ("true_value", '{"1": true, "2": "你好"}', [1.0, 2.0], "zh", {"line": 1}),
    ("non_string_value_even_on_one_line", '{"1": 5}', [1.0], "zh", {"line": 1}),
    *[(f"empty_value_{value}_counts_zero", f'{{"1": "你好", "2": {value}}}', [1.0, 2.0], "zh",
       {"counts": [2, 0], "inversions": 1, "inverted_pairs": [[1, 2]]}) for value in EMPTY_JSON_VALUES],
    ("inverted_lengths", '{"1": "很长很长的一句话", "2": "短"}', [1.0, 3.0], "zh",
     {"counts": [8, 1], "durations": [1.0, 3.0], "comparable": 1, "inversions": 1, "concordance": 0.0,
      "inverted_pairs": [[1, 2]]}),
    ("concordance_0_8", '{"1": "一二", "2": "一", "3": "一二三", "4": "一二三四五", "5": "一二三四"}',
     [1.0, 2.0, 3.0, 4.0, 5.0], "zh", {"comparable": 10, "inversions": 2, "concordance": 0.8,
                                       "inverted_pairs": [[1, 2], [4, 5]]}),
    ("korean_inverted", '{"1": "안녕하세요", "2": "네"}', [1.0, 2.0], "ko", {"counts": [5, 1]}),
]


@pytest.fixture(scope="module")
def syllable_counter():
    return pytest.importorskip("eval.syllable")


@pytest.mark.parametrize("name, prediction, durations, target_lang", SYLLABLE_PASSES,
                         ids=[case[0] for case in SYLLABLE_PASSES])
def test_syllable_order_passes(syllable_counter, name, prediction, durations, target_lang):
    verdict = check_syllable_order(make_row(target_lang=target_lang, duration_s=durations), prediction)
    assert verdict.passed, verdict.detail
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, prediction, durations, target_lang, expected", SYLLABLE_FAILS,
                         ids=[case[0] for case in SYLLABLE_FAILS])
def test_syllable_order_fails(syllable_counter, name, prediction, durations, target_lang, expected):
    verdict = check_syllable_order(make_row(target_lang=target_lang, duration_s=durations), prediction)
    assert not verdict.passed
    if not expected:
        assert "error" in verdict.detail
    for key, value in expected.items():
        assert verdict.detail[key] == value, (key, verdict.detail)
    assert_serialisable(verdict.detail)


def test_syllable_order_detail_holds_counts_and_concordance(syllable_counter):
    row = make_row(target_lang="zh", duration_s=[1.0, 2.0, 3.0, 4.0, 5.0])
    detail = check_syllable_order(row, ONE_INVERSION_IN_TEN).detail
    assert detail == {"counts": [2, 1, 3, 4, 5], "durations": [1.0, 2.0, 3.0, 4.0, 5.0], "comparable": 10,
                      "inversions": 1, "concordance": 0.9, "inverted_pairs": [[1, 2]]}


def test_syllable_order_non_string_value_names_its_type():
    verdict = check_syllable_order(make_row(duration_s=[1.0, 2.0]), '{"1": 5, "2": "x"}')
    assert verdict.detail["error"] == 'line "1" is a JSON number, not a string'


# --- term_compliance (§7.3) ------------------------------------------------------------------

GLOSSARY = "专名/术语对照：原神→Genshin Impact、米哈游→miHoYo"

TERM_PASSES = [
    # (name, constraints, prediction)
    ("all_terms_present", [GLOSSARY], "Genshin Impact is made by miHoYo."),
    ("ascii_colon", ["术语对照:原神→Genshin Impact"], "I play Genshin Impact."),
    ("fullwidth_colon_no_prefix", ["术语对照：原神→Genshin Impact"], "I play Genshin Impact."),
    ("prefix_without_slash", ["专名术语对照：原神→Genshin Impact"], "I play Genshin Impact."),
    ("comma_separators", ["术语对照：原神→Genshin Impact,米哈游→miHoYo，崩坏→Honkai"],
     "Genshin Impact, Honkai: miHoYo"),
    ("spaces_around_arrow_stripped", ["术语对照： 原神 → Genshin Impact 、 米哈游 →  miHoYo "],
     "Genshin Impact by miHoYo"),
    ("punctuation_and_apostrophe_bound_a_term", ["术语对照：哔哩哔哩→Bilibili"], "Bilibili'de (Bilibili)."),
    ("cjk_term_inside_longer_text", ["术语对照：Genshin→原神"], "我最近一直在玩原神游戏"),
    ("kana_term_inside_longer_text", ["术语对照：原神→ゲンシン"], "ゲンシンが大好きです"),
    ("piece_without_arrow_ignored", ["术语对照：原神→Genshin Impact、注意大小写"], "Genshin Impact"),
    ("empty_target_ignored", ["术语对照：原神→、米哈游→miHoYo"], "by miHoYo"),
    ("several_lines", ["术语对照：原神→Genshin Impact", "保持原文格式", "专名/术语对照：米哈游→miHoYo"],
     "miHoYo's Genshin Impact"),
    ("only_first_arrow_splits", ["术语对照：A→B→C"], "we say B→C here"),
]

TERM_FAILS = [
    # (name, constraints, prediction, missing)
    ("synonym_used", [GLOSSARY], "Genshin Impact is made by Mihoyo.", ["miHoYo"]),
    ("case_sensitive", ["术语对照：原神→Genshin Impact"], "genshin impact rocks", ["Genshin Impact"]),
    ("latin_term_inside_longer_word", ["术语对照：UP主→uploader"], "Our uploaders are great.", ["uploader"]),
    ("latin_term_with_digit_after", ["术语对照：原神→Genshin"], "Genshin2 is coming", ["Genshin"]),
    # Strict spot of §7.3: CJK letters are word characters, so a Latin term glued to Chinese fails.
    ("latin_term_glued_to_chinese", ["术语对照：Genshin Impact→Genshin Impact"], "我在玩Genshin Impact",
     ["Genshin Impact"]),
    # Strict spot: Hangul is neither ideograph nor kana, so a particle glued to the term fails.
    ("hangul_term_with_particle", ["术语对照：原神→원신"], "원신은 재미있다", ["원신"]),
    ("missing_term_on_second_line", ["术语对照：原神→Genshin Impact", "术语对照：米哈游→miHoYo"],
     "Genshin Impact by HoYoverse", ["miHoYo"]),
    ("all_terms_missing", [GLOSSARY], "A game by a company.", ["Genshin Impact", "miHoYo"]),
    ("cjk_term_missing", ["术语对照：Genshin→原神"], "我在玩元神", ["原神"]),
]


@pytest.mark.parametrize("name, constraints, prediction", TERM_PASSES, ids=[case[0] for case in TERM_PASSES])
def test_term_compliance_passes(name, constraints, prediction):
    verdict = check_term_compliance(make_row(constraints=constraints), prediction)
    assert verdict.passed, verdict.detail
    assert verdict.detail["terms"] and verdict.detail["missing"] == []
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, constraints, prediction, missing", TERM_FAILS, ids=[case[0] for case in TERM_FAILS])
def test_term_compliance_fails(name, constraints, prediction, missing):
    verdict = check_term_compliance(make_row(constraints=constraints), prediction)
    assert not verdict.passed
    assert verdict.detail["missing"] == missing
    assert_serialisable(verdict.detail)


def test_term_compliance_without_terms_passes_with_a_note():
    # Validation rejects such a row (§1); the rule itself is vacuous, like the original scorer.
    verdict = check_term_compliance(make_row(constraints=["专名：原神→Genshin Impact"]), "anything")
    assert verdict.passed and verdict.detail["terms"] == [] and "note" in verdict.detail


@pytest.mark.parametrize("constraints, terms", [
    ([GLOSSARY], ["Genshin Impact", "miHoYo"]),
    (["术语对照：原神→Genshin Impact", "术语对照：原神→Genshin Impact"], ["Genshin Impact"]),
    (["术语对照：A→B→C"], ["B→C"]),
    (["专名：原神→Genshin Impact"], []),        # no 术语对照 colon marker: no term
    (["术语对照：原神、米哈游"], []),             # no arrow: no term
    (["保留以下社交元素：原神→Genshin"], []),     # not a glossary line
])
def test_glossary_terms_extraction(constraints, terms):
    assert glossary_terms(make_row(constraints=constraints)) == terms


# --- social_preserve (§7.4) ------------------------------------------------------------------

SOCIAL = "保留以下社交元素，不得翻译或改动：#原神#、@米哈游、[doge]"

SOCIAL_PASSES = [
    # (name, constraints, prediction)
    ("all_elements_present", [SOCIAL], "#原神# so fun @米哈游 [doge]"),
    ("ascii_colon", ["保留以下社交元素:#原神#,@米哈游"], "@米哈游 #原神#"),
    ("empty_pieces_dropped", ["保留以下社交元素：#原神#、、@米哈游，"], "#原神# @米哈游"),
    ("no_colon_no_element", ["保留以下社交元素，不得翻译或改动"], "anything"),
    ("nothing_after_colon_no_element", ["保留以下社交元素："], "anything"),
    ("no_social_line_no_element", ["保持原文格式"], "anything"),
    ("several_lines", ["保留社交元素：#原神#", "保留社交元素：[doge]"], "#原神# [doge]"),
    # Lenient spot: the first ASCII ':' wins even after '：', so only "smile:" is required here.
    ("ascii_colon_wins_over_fullwidth", ["保留以下社交元素：[doge]、:smile:"], "lol :smile:"),
]

SOCIAL_FAILS = [
    # (name, constraints, prediction, missing)
    ("mention_altered", [SOCIAL], "#原神# so fun @miHoYo [doge]", ["@米哈游"]),
    ("hashtag_lost", [SOCIAL], "Genshin so fun @米哈游 [doge]", ["#原神#"]),
    ("emote_translated", [SOCIAL], "#原神# @米哈游 [dog head]", ["[doge]"]),
    ("element_from_second_line", ["保留社交元素：#原神#", "保留社交元素：[doge]"], "#原神# lol", ["[doge]"]),
    ("ascii_colon_element_is_after_it", ["保留以下社交元素：[doge]、:smile:"], "[doge] lol", ["smile:"]),
]


@pytest.mark.parametrize("name, constraints, prediction", SOCIAL_PASSES, ids=[case[0] for case in SOCIAL_PASSES])
def test_social_preserve_passes(name, constraints, prediction):
    verdict = check_social_preserve(make_row(constraints=constraints), prediction)
    assert verdict.passed, verdict.detail
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, constraints, prediction, missing", SOCIAL_FAILS,
                         ids=[case[0] for case in SOCIAL_FAILS])
def test_social_preserve_fails(name, constraints, prediction, missing):
    verdict = check_social_preserve(make_row(constraints=constraints), prediction)
    assert not verdict.passed
    assert verdict.detail["missing"] == missing
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("constraints, elements", [
    ([SOCIAL], ["#原神#", "@米哈游", "[doge]"]),
    (["保留以下社交元素：#原神#、、@米哈游，"], ["#原神#", "@米哈游"]),
    (["保留以下社交元素：[doge]、:smile:"], ["smile:"]),
    (["保留以下社交元素"], []),
])
def test_social_elements_extraction(constraints, elements):
    assert social_elements(make_row(constraints=constraints)) == elements


# --- layout_break (§7.5) ---------------------------------------------------------------------

LAYOUT_PASSES = [
    # (name, constraints, source_text, prediction)
    ("default_features_kept", ["保持原文排版"], "第一行\n第二行", "line one\nline two"),
    ("both_indented", ["保持原文排版：换行与缩进不变"], "\t第一段\n第二段", "  Paragraph one\nParagraph two"),
    ("crlf_counts_its_newline", ["保持原文排版"], "一\n二", "one\r\ntwo"),
    # Lenient spots: indent looks at the first character only; newlines count '\n' only.
    ("indent_of_later_lines_not_checked", ["保持原文排版"], "一\n  二", "one\ntwo"),
    ("line_separator_not_a_newline", ["保持原文排版"], "一二", "one\u2028two"),
    ("only_newlines_named", ["保持换行布局"], "　　第一段\n第二段", "Paragraph one\nParagraph two"),
    ("only_indent_named", ["保持缩进排版"], "　　第一段", "  Paragraph one\nand more\n"),
    ("table_kept", ["保持表格布局"], "| 名 | 值 |\n|---|---|\n| a | 1 |", "| name | value |"),
    ("table_named_source_without_table", ["保持表格布局"], "没有表格", "no table"),
    ("line_without_layout_word_uses_defaults", ["保持表格"], "| 名 | 值 |", "name value"),
]

LAYOUT_FAILS = [
    # (name, constraints, source_text, prediction, failed, expected detail items)
    ("extra_trailing_newline", ["保持原文排版"], "第一行\n第二行", "line one\nline two\n", ["newlines"],
     {"newlines": {"source": 1, "prediction": 2}}),
    ("merged_lines_default_features", ["保持原文排版"], "第一行\n第二行", "line one line two", ["newlines"],
     {"features": ["newlines", "indent"]}),
    ("indent_lost", ["保持原文排版：换行与缩进不变"], "　　第一段", "Paragraph one", ["indent"],
     {"indent": {"source": True, "prediction": False}}),
    ("indent_added", ["保持原文排版"], "第一段", " Paragraph one", ["indent"],
     {"indent": {"source": False, "prediction": True}}),
    ("table_lost", ["保持表格布局"], "| 名 | 值 |\n|---|---|", "name value", ["table"],
     {"table": {"source": True, "prediction": False}, "features": ["table"]}),
    ("table_row_with_one_bar", ["保持表格布局"], "| 名 | 值 |", "name | value", ["table"], {}),
    ("all_three_features", ["保持原文排版：换行、缩进与表格不变"], " | a | b |\n| 1 | 2 |", "a b",
     ["newlines", "indent", "table"], {"features": ["newlines", "indent", "table"]}),
    ("features_from_several_lines", ["保持换行布局", "保持表格排版"], "| a | b |\n| 1 | 2 |", "| a | b | 1 | 2 |",
     ["newlines"], {"features": ["newlines", "table"]}),
]


@pytest.mark.parametrize("name, constraints, source, prediction", LAYOUT_PASSES,
                         ids=[case[0] for case in LAYOUT_PASSES])
def test_layout_break_passes(name, constraints, source, prediction):
    verdict = check_layout_break(make_row(source, constraints=constraints), prediction)
    assert verdict.passed, verdict.detail
    assert verdict.detail["failed"] == []
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, constraints, source, prediction, failed, expected", LAYOUT_FAILS,
                         ids=[case[0] for case in LAYOUT_FAILS])
def test_layout_break_fails(name, constraints, source, prediction, failed, expected):
    verdict = check_layout_break(make_row(source, constraints=constraints), prediction)
    assert not verdict.passed
    assert verdict.detail["failed"] == failed
    for key, value in expected.items():
        assert verdict.detail[key] == value, (key, verdict.detail)
    assert_serialisable(verdict.detail)


# --- registry ----------------------------------------------------------------------------------

def test_original_rules_cover_every_hard_id():
    assert set(RULE_SETS["original"]) == set(HARD_IDS) == {cid for cid, kind in CONSTRAINT_KINDS.items() if kind == "hard"}


def test_every_id_has_a_rule_or_a_rubric_and_every_line_keyword_finds_it():
    for cid, constraint in CONSTRAINTS.items():
        assert bool(constraint.rules) == (constraint.kind == "hard"), cid
        assert (constraint.rubric is not None) == (constraint.kind == "soft"), cid


def test_the_judge_is_shown_the_first_line_carrying_a_soft_ids_keywords():
    from eval.insttrans.rules import constraint_line_for

    row = {"constraints": ["保持原文格式", "译文风格：轻松", "译文语体：正式"],
           "constraint_ids": ["format_preserve", "style_consistency", "term_cross_sentence"]}
    assert constraint_line_for(row, "style_consistency") == "译文风格：轻松"
    # no line carries term_cross_sentence's keywords: the line at its own position is shown
    assert constraint_line_for(row, "term_cross_sentence") == "译文语体：正式"


# --- pins found by the mutation check (scripts/mutation_check.py, docs/testing.md) -----------

HTML_TAG_COUNTS = [
    # (name, source, prediction, first_difference, missing_tags, extra_tags)
    ("more tags than the source", "<b>x</b>", "<b>x</b><i>y</i>",
     {"index": 2, "source": None, "prediction": "<i>"}, None, ["<i>", "</i>"]),
    ("one extra tag at the end", "<p>x</p>", "<p>x</p><br>", {"index": 2, "source": None, "prediction": "<br>"},
     None, ["<br>"]),
    ("fewer tags than the source", "<b>x</b><i>y</i>", "<b>x</b>",
     {"index": 2, "source": "<i>", "prediction": None}, ["<i>", "</i>"], None),
    ("no tag at all in the prediction", "<b>x</b>", "x", {"index": 0, "source": "<b>", "prediction": None},
     ["<b>", "</b>"], None),
    ("same count, the last one differs", "<b>x</b><i>y</i>", "<b>x</b><i>y</u>",
     {"index": 3, "source": "</i>", "prediction": "</u>"}, ["</i>"], ["</u>"]),
]


@pytest.mark.parametrize("name, source, prediction, difference, missing, extra", HTML_TAG_COUNTS,
                         ids=[case[0] for case in HTML_TAG_COUNTS])
def test_html_tag_lists_of_different_lengths_name_the_first_difference(name, source, prediction, difference,
                                                                        missing, extra):
    verdict = check_format_preserve(make_row(source, source_lang="en"), prediction)
    html = verdict.detail["html"]
    assert verdict.passed is False and html["passed"] is False
    assert html["first_difference"] == difference
    assert html.get("missing_tags") == missing and html.get("extra_tags") == extra
    assert (html["source_tags"], html["prediction_tags"]) == (len(html_tags(source)), len(html_tags(prediction)))


def test_equal_tag_lists_have_no_difference_entry():
    verdict = check_format_preserve(make_row('<a href="x">你好</a>'), '<a href="y">Hi</a>')
    assert verdict.passed is True
    assert verdict.detail["html"] == {"passed": True, "source_tags": 2, "prediction_tags": 2,
                                      "cjk_chars": 0, "cjk_share": 0.0}


CHINESE_RESIDUE = [
    # (name, source, prediction, source_lang, target_lang, passed, cjk detail or None when not measured)
    ("a source of tags only is not measured", "<br><b></b>", "<br><b>中文</b>", "zh", "en", True, None),
    ("a prediction of tags only is not measured", "<b>你好</b>", "<b></b>", "zh", "en", True, None),
    ("Chinese kept is measured", "<b>你好</b>", "<b>你好</b>", "zh", "en", False, (2, 1.0)),
    ("a blank visible prediction has share 0", "<b>你好</b>", "<b>  </b>", "zh", "en", True, (0, 0.0)),
    ("one in three", "<b>你好</b>", "<b>a好b</b>", "zh", "en", False, (1, 0.3333)),
    ("exactly one percent passes", "<p>你好</p>", "<p>" + "a" * 99 + "好</p>", "zh", "en", True, (1, 0.01)),
    ("two percent fails", "<p>你好</p>", "<p>" + "a" * 98 + "好好</p>", "zh", "en", False, (2, 0.02)),
    ("a Japanese target is not measured", "<b>你好</b>", "<b>你好</b>", "zh", "ja", True, None),
    ("a Chinese target is not measured", "<b>你好</b>", "<b>你好</b>", "zh", "zh", True, None),
    ("a source that is not Chinese is not measured", "<b>hello</b>", "<b>你好</b>", "en", "fr", True, None),
]


@pytest.mark.parametrize("name, source, prediction, source_lang, target_lang, passed, cjk", CHINESE_RESIDUE,
                         ids=[case[0] for case in CHINESE_RESIDUE])
def test_the_untranslated_chinese_check(name, source, prediction, source_lang, target_lang, passed, cjk):
    verdict = check_format_preserve(make_row(source, source_lang=source_lang, target_lang=target_lang), prediction)
    html = verdict.detail["html"]
    assert verdict.passed is passed and html["passed"] is passed
    if cjk is None:
        assert "cjk_chars" not in html and "cjk_share" not in html and "untranslated_chinese" not in html
    else:
        assert (html["cjk_chars"], html["cjk_share"]) == cjk
        assert html.get("untranslated_chinese") is (None if passed else True)


def test_the_judge_is_shown_the_keyword_line_even_when_it_is_not_at_the_ids_position():
    from eval.insttrans.rules import constraint_line_for

    row = {"constraints": ["译文风格：正式", "保持原文格式", "指代一致：她指林晓"],
           "constraint_ids": ["format_preserve", "style_consistency", "coref_resolution"]}
    assert constraint_line_for(row, "style_consistency") == "译文风格：正式"   # line 1, not line 2
    assert constraint_line_for(row, "coref_resolution") == "指代一致：她指林晓"
    assert constraint_line_for(row, "format_preserve") == "译文风格：正式"     # no keywords: its own line


def test_a_social_line_without_a_colon_lists_no_element():
    assert social_elements(make_row(constraints=["保留社交元素"])) == []
    assert social_elements(make_row(constraints=["保留社交元素", "社交元素：#a#"])) == ["#a#"]
    assert social_elements(make_row(constraints=["社交元素：#a#", "保留社交元素"])) == ["#a#"]
    verdict = check_social_preserve(make_row(constraints=["保留社交元素"]), "anything")
    assert verdict.passed is True and verdict.detail["note"] == "no social element in the constraint lines"


def test_a_social_line_splits_at_the_ascii_colon_first():
    assert social_elements(make_row(constraints=["社交元素：#a#、@b: c、d"])) == ["c", "d"]


def test_long_detail_lists_are_cut_to_ten_with_the_count_beside():
    source = json.dumps({f"k{index:02d}": "值" for index in range(12)}, ensure_ascii=False)
    part = check_format_preserve(make_row(source), "{}").detail["json"]
    assert part["missing_paths"] == [f"k{index:02d}" for index in range(10)] and part["n_missing"] == 12
    ten = json.dumps({f"k{index:02d}": "值" for index in range(10)}, ensure_ascii=False)
    assert check_format_preserve(make_row(ten), "{}").detail["json"]["missing_paths"] == \
        [f"k{index:02d}" for index in range(10)]
    extra = json.dumps({f"x{index:02d}": 1 for index in range(11)})
    part = check_format_preserve(make_row('{"a": "值"}'), extra).detail["json"]
    assert part["extra_paths"] == [f"x{index:02d}" for index in range(10)] and part["n_extra"] == 11


def test_snippets_in_a_detail_are_cut_to_forty_characters():
    source = "<p>你好</p>"
    prediction = "<div" + "x" * 40 + ">Hi</div" + "y" * 40 + ">"   # tags of 45 and 46 characters
    html = check_format_preserve(make_row(source, source_lang="en"), prediction).detail["html"]
    assert html["first_difference"]["prediction"] == ("<div" + "x" * 40)[:39] + "…"
    assert html["extra_tags"] == [("<div" + "x" * 40)[:39] + "…", ("</div" + "y" * 40)[:39] + "…"]
    exactly = "<" + "b" * 38 + ">"                                      # 40 characters: kept whole
    html = check_format_preserve(make_row(source, source_lang="en"), exactly).detail["html"]
    assert html["first_difference"]["prediction"] == exactly


def test_a_prediction_that_is_not_json_shows_its_first_twenty_characters():
    row = make_row('{"a": "值"}')
    part = check_format_preserve(row, "  " + "n" * 30).detail["json"]
    assert part["prediction_starts"] == "n" * 19 + "…"
    assert check_format_preserve(row, "n" * 20).detail["json"]["prediction_starts"] == "n" * 20


@pytest.mark.parametrize("prediction, reason", [
    ("[" * 100000, "RecursionError"),       # nested too deep for the JSON reader
    ("9" * 5000, "ValueError"),             # digits past Python's int-string limit
    ('{"a": 1', "Expecting ',' delimiter at line 1 column 8"),
])
def test_a_prediction_json_cannot_read_names_the_reason(prediction, reason):
    verdict = check_format_preserve(make_row('{"a": "值"}'), prediction)
    assert verdict.passed is False
    assert verdict.detail["json"]["error"] == f"prediction is not JSON: {reason}"
    subtitle = check_syllable_order(make_row('{"1": "是", "2": "不是"}', duration_s=[1.0, 2.0]), prediction)
    assert subtitle.passed is False and subtitle.detail["error"] == f"prediction is not JSON: {reason}"


@pytest.mark.parametrize("source", ["2024", '"引号"', "true", "null", " 3.5 "])
def test_a_source_that_is_json_but_no_object_or_array_triggers_no_json_part(source):
    verdict = check_format_preserve(make_row(source), "translated")
    assert verdict.passed is True and verdict.detail["parts"] == []


def test_the_placeholder_detail_names_only_the_kinds_the_source_has():
    verdict = check_format_preserve(make_row("Hello {name}, %s and %s"), "你好 %s")
    assert verdict.passed is False
    assert verdict.detail["placeholders"] == {"passed": False, "source": {"name": ["{name}"], "printf": ["%s"]},
                                              "missing": ["{name}"]}
    kept = check_format_preserve(make_row("Hello {name}"), "你好 {name}")
    assert kept.detail["placeholders"] == {"passed": True, "source": {"name": ["{name}"]}}


def test_one_subtitle_line_passes_with_its_own_note():
    verdict = check_syllable_order(make_row('{"1": "你好"}', target_lang="zh", duration_s=[2.0]), '{"1": "你好"}')
    assert verdict.passed is True
    assert verdict.detail == {"counts": [2], "durations": [2.0], "note": "fewer than two lines"}


def test_the_concordance_is_rounded_to_four_places():
    # durations rise; the counts 1, 2, 4, 3 invert one pair of six: concordance 5/6
    prediction = json.dumps({"1": "一", "2": "一二", "3": "一二三四", "4": "一二三"}, ensure_ascii=False)
    row = make_row('{"1": "a", "2": "b", "3": "c", "4": "d"}', target_lang="zh", duration_s=[1.0, 2.0, 3.0, 4.0])
    verdict = check_syllable_order(row, prediction)
    assert verdict.passed is False
    assert verdict.detail == {"counts": [1, 2, 4, 3], "durations": [1.0, 2.0, 3.0, 4.0], "comparable": 6,
                              "inversions": 1, "concordance": 0.8333, "inverted_pairs": [[3, 4]]}


def test_the_constraint_table_cannot_be_changed_in_place():
    import dataclasses

    from eval.insttrans.rules import CONSTRAINTS

    with pytest.raises(dataclasses.FrozenInstanceError):
        CONSTRAINTS["format_preserve"].kind = "soft"


def test_a_subtitle_prediction_that_is_not_json_shows_its_first_twenty_characters():
    row = make_row('{"1": "是", "2": "不是"}', duration_s=[1.0, 2.0])
    assert check_syllable_order(row, "  " + "n" * 30).detail["prediction_starts"] == "n" * 19 + "…"
    assert check_syllable_order(row, "n" * 20).detail["prediction_starts"] == "n" * 20
