"""The strict rule set, pinned to SPEC §7b as tables: a passing and a failing table per rule and part.

Each failing case also checks that the detail names what failed (the value, the attribute, the
lost item, the placeholder, the URL, the element, the line). The last sections check the registry,
the bundled references, the differential against the original rules, and the reporting helpers.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from eval.insttrans.rules import HARD_IDS, RULE_SETS, RULE_TABLE, explain, glossary_terms
from eval.scoring.rule_contract import ScoringContext
from eval.insttrans.strict_rules import (
    check_format_preserve_strict,
    check_layout_break_strict,
    check_social_preserve_strict,
    check_syllable_order_strict,
    indent_width,
    html_tag_sequence,
    markdown_structure,
    normalise,
    parse_markdown_structure,
    placeholders,
    social_elements_in,
    urls,
)
from eval.insttrans.strict_rules import MARKDOWN_CAPPED_FROM, _html_tags, _indent_problems
from eval.insttrans.strict_summary import (
    strict_instance,
    add_strict_to_summary,
    rule_set_disagreements,
    strict_instances,
    strict_summary,
    strict_verdicts,
)

ROOT = Path(__file__).resolve().parent.parent
STRICT_RULES = RULE_SETS["strict"]
check_term_compliance_strict = STRICT_RULES["term_compliance"]


def make_row(source_text: str = "原文", constraints=(), source_lang: str = "zh", target_lang: str = "en",
             duration_s=None, constraint_ids=None) -> dict:
    row = {"case_id": "s-001", "source_text": source_text, "constraints": list(constraints),
           "source_lang": source_lang, "target_lang": target_lang,
           "constraint_ids": list(constraint_ids or ["format_preserve"])}
    if duration_s is not None:
        row["duration_s"] = list(duration_s)
    return row


def assert_serialisable(detail: dict) -> None:
    assert json.loads(json.dumps(detail, ensure_ascii=False)) == detail


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


# --- shared normalisation ----------------------------------------------------------------------

@pytest.mark.parametrize("text, normalised", [
    ("\ufeffHello", "Hello"),                       # a leading BOM
    ("a\r\nb\rc", "a\nb\nc"),                       # CRLF and lone CR
    ("\n  \n\t\nHello", "Hello"),                   # leading blank lines
    ("\n    indented", "    indented"),             # the first non-blank line keeps its indentation
    ("Hello \n\n\t", "Hello"),                      # trailing whitespace
    ("a\u2028b", "a\u2028b"),                       # U+2028 is not a line end here
])
def test_normalisation(text, normalised):
    assert normalise(text) == normalised


@pytest.mark.parametrize("rule", sorted(STRICT_RULES))
@pytest.mark.parametrize("prediction", ["\ufeff", "\ufeff\n\r\n", "\ufeff  \t"])
def test_a_prediction_empty_after_normalisation_fails_every_rule(rule, prediction):
    row = make_row("你好", ["术语对照：你好→Hello"], duration_s=[1.0, 2.0])
    verdict = STRICT_RULES[rule](row, prediction)
    assert not verdict.passed
    assert "empty after normalisation" in verdict.detail["error"]
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("prediction", ["\ufeff{\"1\": \"one\"}", "{\"1\": \"one\"}\n", "\r\n{\"1\": \"one\"}\r\n"])
def test_bom_and_line_ends_do_not_decide_json(prediction):
    assert check_format_preserve_strict(make_row('{"1": "一"}'), prediction).passed


# --- format_preserve: JSON ---------------------------------------------------------------------

JSON_PASSES = [
    # (name, source_text, prediction)
    ("values_translated", '{"title": "你好", "body": {"text": "世界"}}', '{"title": "Hello", "body": {"text": "World"}}'),
    ("key_order_free", '{"1": "一", "2": "二"}', '{"2": "two", "1": "one"}'),
    ("whitespace_around", '  {"1": "一"}\n', '\n{"1": "one"}\n'),
    ("string_array_same_length", '{"tags": ["一", "二"]}', '{"tags": ["one", "two"]}'),
    ("numbers_booleans_null_kept", '{"n": 3, "x": 1.5, "ok": true, "none": null}',
     '{"n": 3, "x": 1.5, "ok": true, "none": null}'),
    ("integer_equals_its_float", '{"n": 1}', '{"n": 1.0}'),
    ("top_level_array", '[{"k": "值"}, "二"]', '[{"k": "value"}, "two"]'),
    ("inline_html_kept_in_a_value", '{"1": "<b>你好</b>"}', '{"1": "<b>Hello</b>"}'),
    ("placeholder_kept_in_a_value", '{"1": "你好 {name}"}', '{"1": "Hi {name}"}'),
    ("scalar_source_is_no_json_part", '"只是一个字符串"', "just a string"),
    ("unparsable_source_is_no_json_part", "[笑哭] 哈哈哈", "haha"),
]

JSON_FAILS = [
    # (name, source_text, prediction, expected first difference items)
    ("number_changed", '{"n": 3, "t": "三"}', '{"n": 4, "t": "three"}', {"path": "n", "problem": "value", "source": 3,
                                                                          "prediction": 4}),
    ("string_array_shorter", '{"tags": ["一", "二", "三"]}', '{"tags": ["one"]}',
     {"path": "tags", "problem": "length", "source": 3, "prediction": 1}),
    ("key_translated", '{"标题": "你好"}', '{"title": "Hello"}',
     {"path": "(top)", "problem": "keys", "missing": ["标题"], "extra": ["title"]}),
    ("key_dropped", '{"1": "一", "2": "二"}', '{"1": "one"}', {"problem": "keys", "missing": ["2"], "extra": []}),
    ("number_became_string", '{"n": 3}', '{"n": "three"}',
     {"path": "n", "problem": "type", "source": "number", "prediction": "string"}),
    ("boolean_became_number", '{"ok": true}', '{"ok": 1}', {"problem": "type", "source": "boolean",
                                                            "prediction": "number"}),
    ("null_became_string", '{"v": null}', '{"v": "null"}', {"problem": "type", "source": "null"}),
    ("string_array_became_string", '["一", "二"]', '"one two"', {"path": "(top)", "problem": "type",
                                                                "source": "array", "prediction": "string"}),
    ("nested_path_named", '{"a": [{"c": "甲"}, {"c": "乙"}]}', '{"a": [{"c": "A"}, {"d": "B"}]}',
     {"path": "a[1]", "problem": "keys", "missing": ["c"], "extra": ["d"]}),
    ("tag_lost_inside_a_value", '{"1": "<b>你好</b>"}', '{"1": "Hello"}',
     {"path": "1", "problem": "html", "missing_tags": ["<b>", "</b>"]}),
    ("placeholder_lost_inside_a_value", '{"1": "{name}你好"}', '{"1": "Hello"}',
     {"path": "1", "problem": "placeholders", "missing": ["{name}"]}),
]


@pytest.mark.parametrize("name, source, prediction", JSON_PASSES, ids=[case[0] for case in JSON_PASSES])
def test_json_passes(name, source, prediction):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert verdict.passed, verdict.detail
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, source, prediction, expected", JSON_FAILS, ids=[case[0] for case in JSON_FAILS])
def test_json_fails(name, source, prediction, expected):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert not verdict.passed and verdict.detail["failed"] == ["json"]
    difference = verdict.detail["json"]["differences"][0]
    for key, value in expected.items():
        assert difference[key] == value, (key, difference)
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("prediction", ['```json\n{"1": "one"}\n```', 'Translation: {"1": "one"}', '{"1": "one",}'])
def test_json_prediction_that_does_not_parse_fails_with_its_error(prediction):
    detail = check_format_preserve_strict(make_row('{"1": "一"}'), prediction).detail
    assert detail["json"]["error"].startswith("prediction is not JSON:")


def test_deep_json_prediction_does_not_crash():
    deep = "[" * 5000 + "]" * 5000
    assert not check_format_preserve_strict(make_row('{"1": "一"}'), deep).passed
    assert not check_format_preserve_strict(make_row('{"1": "一"}'), '{"1": ' + "[" * 900 + "]" * 900 + "}").passed


# --- format_preserve: HTML -----------------------------------------------------------------------

HTML_PASSES = [
    # (name, source_text, prediction)
    ("text_translated_href_kept", '<a href="https://a.cn/x">点击这里</a>', '<a href="https://a.cn/x">Click here</a>'),
    ("translatable_attributes_free", '<img src="a.png" alt="猫" title="标题"><input placeholder="搜索" aria-label="搜"'
     ' label="框">', '<img src="a.png" alt="cat" title="Title"><input placeholder="Search" aria-label="s" label="box">'),
    ("attribute_order_and_quotes_free", "<p class='a' id=b>你好</p>", '<p id="b" class="a">Hello</p>'),
    ("tag_case_free", "<B>粗</B>", "<b>bold</b>"),
    ("br_forms_equal", "一<br>二<br/>三<br />", "one<br/>two<br />three<br>"),
    ("entity_in_a_value", '<a href="?a=1&amp;b=2">链接</a>', '<a href="?a=1&b=2">link</a>'),
    ("comment_ignored", "<!-- <b> --><p>你好</p>", "<p>Hello</p>"),
    ("untranslated_chinese_is_not_format", "<p>你好世界</p>", "<p>Hello 世界</p>"),
    ("lone_angle_brackets_are_no_tags", "价格 < 100 > 50", "price < 100 > 50"),
]

HTML_FAILS = [
    # (name, source_text, prediction, expected detail items)
    ("href_changed", '<a href="https://a.cn/x">点这里</a>', '<a href="https://a.com/en">click</a>',
     {"attributes": [{"index": 0, "tag": "<a>", "attribute": "href", "source": "https://a.cn/x",
                      "prediction": "https://a.com/en"}]}),
    ("class_changed", '<p class="note">注意</p>', '<p class="hint">Note</p>',
     {"attributes": [{"index": 0, "tag": "<p>", "attribute": "class", "source": "note", "prediction": "hint"}]}),
    ("attribute_added", "<p>你好</p>", '<p id="x">Hello</p>',
     {"attributes": [{"index": 0, "tag": "<p>", "extra_attributes": ["id"]}]}),
    ("attribute_dropped", '<img src="a.png" alt="猫">', '<img alt="cat">',
     {"attributes": [{"index": 0, "tag": "<img>", "missing_attributes": ["src"]}]}),
    ("tag_dropped", "<p>你好<b>世界</b></p>", "<p>Hello world</p>",
     {"missing_tags": ["<b>", "</b>"], "first_difference": {"index": 1, "source": "<b>", "prediction": "</p>"}}),
    ("tag_renamed", "<b>粗体</b>", "<strong>bold</strong>", {"extra_tags": ["<strong>", "</strong>"]}),
    ("tags_reordered", "<i>一</i><b>二</b>", "<b>two</b><i>one</i>",
     {"first_difference": {"index": 0, "source": "<i>", "prediction": "<b>"}}),
    ("closing_tag_lost", "<p>你好</p>", "<p>Hello", {"missing_tags": ["</p>"]}),
]


@pytest.mark.parametrize("name, source, prediction", HTML_PASSES, ids=[case[0] for case in HTML_PASSES])
def test_html_passes(name, source, prediction):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert verdict.passed, verdict.detail
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, source, prediction, expected", HTML_FAILS, ids=[case[0] for case in HTML_FAILS])
def test_html_fails(name, source, prediction, expected):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert not verdict.passed and "html" in verdict.detail["failed"]
    for key, value in expected.items():
        assert verdict.detail["html"][key] == value, (key, verdict.detail["html"])
    assert_serialisable(verdict.detail)


class _ReferenceTags(HTMLParser):
    """The standard library's reading of tags, to check the tag regex against."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(("open", tag, {name: value or "" for name, value in reversed(attrs)}))

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        self.tags.append(("close", tag, {}))


def random_markup(generator: random.Random) -> str:
    pieces = []
    for _ in range(generator.randint(0, 6)):
        name = generator.choice(["a", "b", "P", "br", "img", "span", "h2", "x-y"])
        attributes = "".join(
            f" {generator.choice(['href', 'class', 'ALT', 'data-x', 'title'])}"
            + generator.choice(["", "=v", '="a b"', "='q&amp;r'", '="&lt;x&gt;"', "=\"\""])
            for _ in range(generator.randint(0, 3)))
        pieces.append(generator.choice([f"<{name}{attributes}>", f"<{name}{attributes}/>", f"</{name}>",
                                        "文字", " text ", "<!-- c <b> -->", "1 < 2", "&amp;"]))
    return "".join(pieces)


def test_tag_regex_reads_well_formed_markup_as_the_standard_parser_does():
    generator = random.Random(15)
    for _ in range(3000):
        text = random_markup(generator)
        reference = _ReferenceTags()
        reference.feed(text)
        reference.close()
        assert html_tag_sequence(text) == reference.tags, text


def test_tag_scan_finds_what_the_comment_or_tag_pattern_finds():
    """The scanner is linear; the pattern it replaces (quadratic on `<!--` × n) defines it."""
    pattern = re.compile(r"<!--.*?-->|<(/?)([A-Za-z][A-Za-z0-9:-]*)((?:[^<>\"']|\"[^\"<]*\"|'[^'<]*')*)>", re.DOTALL)
    generator = random.Random(21)
    for _ in range(20000):
        text = "".join(generator.choices(["<!--", "-->", "<a", "</b", "<", ">", "-", "!", "a", '"', "'", " ", "=",
                                          "/", "\n"], k=generator.randint(0, 14)))
        expected = [match.groups() for match in pattern.finditer(text) if match.group(2) is not None]
        assert [match.groups() for match in _html_tags(text)] == expected, text


# --- format_preserve: Markdown (CommonMark + tables) ----------------------------------------------

MARKDOWN_SOURCE = ("## 标题\n\n1. **先做这个**，然后 `npm i`。\n2. 看[文档](https://x.cn/doc)。\n\n"
                   "> 引用\n\n| 名 | 值 |\n|---|---|\n| a | 1 |\n\n```bash\nnpm run build\n```\n\n![图](a.png)")
MARKDOWN_KEPT = ("## Title\n\n1. **Do this first**, then `npm i`.\n2. Read the [docs](https://x.cn/doc).\n\n"
                 "> Quote\n\n| Name | Value |\n|---|---|\n| a | 1 |\n\n```bash\nnpm run build\n```\n\n![figure](a.png)")

MARKDOWN_PASSES = [
    # (name, source_text, prediction)
    ("everything_kept", MARKDOWN_SOURCE, MARKDOWN_KEPT),
    ("three_items_kept", "- 一\n- 二\n- 三", "- one\n- two\n- three"),
    ("bullet_marker_free", "- 一\n- 二", "* one\n* two"),
    ("emphasis_marker_free", "这是*斜体*", "this is _italic_"),
    ("setext_equals_atx", "标题\n===\n\n正文", "# Title\n\nBody"),
    ("paragraphs_are_not_compared", "第一段\n\n第二段 **粗**", "Paragraph one and **bold** two"),
    ("link_text_translated", "见[文档](https://x.cn)", "see [the docs](https://x.cn)"),
    ("plain_text_is_no_markdown", "今天天气很好。", "# Nice weather today."),
    ("cjk_bold_with_inner_punctuation_is_bold", "**注意：**请先备份", "**Note:** back up first"),
    ("cjk_bold_around_brackets", "这是**「重要」**的", "this is **“important”**"),
    ("code_span_of_words_translated", "点 `启用`", "tap `Enable`"),
    ("code_span_of_words_translated_latin", "Click `Enable`", "Klicka på `Aktivera`"),
    ("code_span_with_code_kept", "运行 `npm i` 后点 `确定`", "run `npm i`, then click `OK`"),
    ("code_span_key_kept", "按 `Ctrl+S` 保存", "press `Ctrl+S` to save"),
]

MARKDOWN_FAILS = [
    # (name, source_text, prediction, expected detail items)
    ("list_loses_one_of_three", "- 一\n- 二\n- 三", "- one\n- two",
     {"lost_blocks": ["bullet list item"], "lost_list_items": ["三"]}),
    ("list_loses_two_of_three", "- 苹果\n- 香蕉\n- 橙子", "- apple, banana and orange",
     {"lost_list_items": ["香蕉", "橙子"]}),
    ("heading_level_changed", "## 标题\n正文", "### Title\nBody", {"lost_blocks": ["heading h2"],
                                                                  "extra_blocks": ["heading h3"]}),
    ("bullet_became_ordered", "- 一\n- 二", "1. one\n2. two", {"lost_blocks": ["bullet list item", "bullet list item"]}),
    ("bold_count_lower", "**重要** 和 **注意**", "**important** and note", {"strong": {"source": 2, "prediction": 1}}),
    ("emphasis_count_higher", "*一* 和 二", "*one* and *two*", {"emphasis": {"source": 1, "prediction": 2}}),
    ("code_span_with_code_translated", "运行 `npm i -g`", "run `npm install --global`", {"code_spans": {"lost": ["npm i -g"]}}),
    ("code_span_key_changed", "按 `Ctrl+S`", "press `Cmd+S`", {"code_spans": {"lost": ["Ctrl+S"]}}),
    ("code_span_path_changed", "见 `设置/高级`", "see `Settings/Advanced`", {"code_spans": {"lost": ["设置/高级"]}}),
    ("code_span_of_words_dropped", "点 `启用`", "tap Enable", {"code_spans": {"source": 1, "prediction": 0}}),
    ("code_span_added", "点 `启用`", "tap `Enable` and `OK`", {"code_spans": {"source": 1, "prediction": 2}}),
    ("cjk_bold_lost", "**注意：**请先备份", "Note: back up first", {"strong": {"source": 1, "prediction": 0}}),
    ("link_target_changed", "见[文档](https://x.cn/zh)", "see [docs](https://x.cn/en)",
     {"links": {"lost": ["https://x.cn/zh"], "extra": ["https://x.cn/en"]}}),
    ("image_target_changed", "![图](zh.png)", "![figure](en.png)", {"images": {"lost": ["zh.png"], "extra": ["en.png"]}}),
    ("fenced_code_content_changed", "```\nprint('你好')\n```", "```\nprint('hello')\n```",
     {"lost_blocks": ["fenced code: print('你好')"], "extra_blocks": ["fenced code: print('hello')"]}),
    ("table_lost_a_row", "| 名 | 值 |\n|---|---|\n| a | 1 |\n| b | 2 |", "| Name | Value |\n|---|---|\n| a | 1 |",
     {"lost_blocks": ["table row of 2 cells"]}),
    ("table_lost_a_column", "| 名 | 值 |\n|---|---|\n| a | 1 |", "| Name |\n|---|\n| a |",
     {"lost_blocks": ["table row of 2 cells", "table row of 2 cells"],
      "extra_blocks": ["table row of 1 cells", "table row of 1 cells"]}),
    ("quote_lost", "> 引用的话\n\n正文", "quoted words\n\nbody", {"lost_blocks": ["block quote"]}),
    ("heading_added", "- 一", "# List\n- one", {"extra_blocks": ["heading h1"]}),
    ("nested_list_flattened", "- 一\n  - 二", "- one\n- two",
     {"lost_blocks": ["bullet list item (depth 2)"], "extra_blocks": ["bullet list item"]}),
    ("blocks_reordered", "# 标题\n> 引用", "> Quote\n# Title", {"blocks_reordered": True}),
]


@pytest.mark.parametrize("name, source, prediction", MARKDOWN_PASSES, ids=[case[0] for case in MARKDOWN_PASSES])
def test_markdown_passes(name, source, prediction):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert verdict.passed, verdict.detail
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, source, prediction, expected", MARKDOWN_FAILS,
                         ids=[case[0] for case in MARKDOWN_FAILS])
def test_markdown_fails(name, source, prediction, expected):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert not verdict.passed and "markdown" in verdict.detail["failed"], verdict.detail
    for key, value in expected.items():
        assert verdict.detail["markdown"][key] == value, (key, verdict.detail["markdown"])
    if "lost_list_items" not in expected:  # named only when the prediction has fewer items
        assert "lost_list_items" not in verdict.detail["markdown"], verdict.detail["markdown"]
    assert_serialisable(verdict.detail)


def test_markdown_pre_check_never_skips_a_text_with_structure():
    """The pre-check only saves parsing: on texts made of Markdown's marks it gives what the full
    parse gives."""
    generator = random.Random(7)
    alphabet = ["#", "# ", "*", "**", "_", "a_b", "`", "```", "~~~", ">", "> ", "|", "- ", "+ ", "1. ", "2) ", "=",
                "---", "[", "]", "(", ")", "](", "!", "<", ">", "<http://x>", "<a@b.c>", "[r]: /u", "\n", "\n\n",
                "    ", "\t", "  ", "文", "word", ":", "x"]
    for _ in range(4000):
        text = "".join(generator.choices(alphabet, k=generator.randint(0, 12)))
        quick, full = markdown_structure(text), parse_markdown_structure(text)
        assert {key: quick[key] for key in ("code_spans", "links", "images", "strong", "emphasis")} == \
               {key: full[key] for key in ("code_spans", "links", "images", "strong", "emphasis")}, repr(text)
        assert list(quick["blocks"]) == full["blocks"], repr(text)


# --- format_preserve: placeholders (a multiset, LaTeX masked first) ------------------------------

PLACEHOLDER_PASSES = [
    # (name, source_text, prediction)
    ("every_kind_kept", "{{count}} ${user} {name} {0} {} %1$s %2$d %(n)s %(m)d %s %d $1 <0>点</0>",
     "<0>tap</0> $1 %d %s %(m)d %(n)s %2$d %1$s {} {0} {name} ${user} {{count}}"),
    ("repeated_kept_as_often", "{name}，{name}！", "{name}, {name}!"),
    ("latex_math_is_no_placeholder", "设 $x_1$ 与 $$\\sum_i y$$ 及 \\(z\\)，共 {n} 项", "Let $a$ and $$b$$ and \\(c\\), {n} terms"),
    ("prices_are_dollar_placeholders", "$5 和 $10", "$5 and $10"),
    ("percent_without_letter_free", "增长了 50%", "grew by 50 percent"),
]

PLACEHOLDER_FAILS = [
    # (name, source_text, prediction, missing, extra)
    ("brace_digit_dropped", "第{0}页", "Page 1", ["{0}"], None),
    ("empty_braces_dropped", "你好 {}", "Hello", ["{}"], None),
    ("named_printf_dropped", "%(name)s 已上线", "is online", ["%(name)s"], None),
    ("positional_printf_reduced", "共%1$s条", "%s items", ["%1$s"], ["%s"]),
    ("numbered_tag_dropped", "点击<0>这里</0>", "click here", ["</0>", "<0>"], None),
    ("dollar_brace_translated", "你好 ${user}", "Hello ${usuario}", ["${user}"], ["${usuario}"]),
    ("double_brace_to_single", "共{{count}}条", "{count} items", ["{{count}}"], ["{count}"]),
    ("one_of_two_repeats_dropped", "{name}，{name}！", "{name}!", ["{name}"], None),
    ("extra_placeholder_added", "你好 {name}", "Hello {name} {extra}", None, ["{extra}"]),
    ("price_changed", "只要$100", "only 100 dollars", ["$100"], None),
]


@pytest.mark.parametrize("name, source, prediction", PLACEHOLDER_PASSES, ids=[case[0] for case in PLACEHOLDER_PASSES])
def test_placeholders_pass(name, source, prediction):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert verdict.passed, verdict.detail
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, source, prediction, missing, extra", PLACEHOLDER_FAILS,
                         ids=[case[0] for case in PLACEHOLDER_FAILS])
def test_placeholders_fail(name, source, prediction, missing, extra):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert not verdict.passed and verdict.detail["failed"] == ["placeholders"], verdict.detail
    part = verdict.detail["placeholders"]
    assert part.get("missing") == missing and part.get("extra") == extra, part
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("text, found", [
    ("$x$ costs $5", ["$5"]),                     # math masked, the price stays
    ("$5 and $10", ["$10", "$5"]),                # two prices are no math span
    ("\\[a_{1}\\] {b}", ["{b}"]),
    ("%1$s%s", ["%1$s", "%s"]),
    ("100%", []),
])
def test_placeholder_extraction(text, found):
    assert sorted(placeholders(text).elements()) == found


# --- format_preserve: URLs (a multiset) ----------------------------------------------------------

URL_PASSES = [
    # (name, source_text, prediction)
    ("url_kept", "详见 https://a.cn/x?y=1 。", "See https://a.cn/x?y=1 ."),
    ("trailing_punctuation_dropped", "见 https://a.cn/x。", "see https://a.cn/x."),
    ("cjk_punctuation_ends_a_url", "链接：https://a.cn/x，点开", "link: https://a.cn/x, open it"),
    ("quotes_and_brackets_end_a_url", '（https://a.cn/x）"https://b.cn"', '(https://a.cn/x) "https://b.cn"'),
]

URL_FAILS = [
    # (name, source_text, prediction, missing, extra)
    ("url_localised", "见 https://a.cn/zh/guide", "see https://a.cn/en/guide", ["https://a.cn/zh/guide"],
     ["https://a.cn/en/guide"]),
    ("url_dropped", "见 https://a.cn/x", "see the website", ["https://a.cn/x"], None),
    ("url_repeated", "见 https://a.cn/x", "see https://a.cn/x (https://a.cn/x)", None, ["https://a.cn/x"]),
    ("scheme_changed", "http://a.cn", "https://a.cn", ["http://a.cn"], ["https://a.cn"]),
]


def test_placeholder_scan_finds_what_the_math_or_placeholder_pattern_finds():
    """The scanner is linear; the pattern it replaces (quadratic on `\\(` × n) defines it."""
    pattern = re.compile(
        r"(?P<math>\$\$.+?\$\$|\\\(.+?\\\)|\\\[.+?\\\])|(?P<placeholder>\{\{[A-Za-z_][A-Za-z0-9_]*\}\}"
        r"|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\{[A-Za-z_][A-Za-z0-9_]*\}|\{\d+\}|\{\}|%\d+\$[sd]"
        r"|%\([A-Za-z_][A-Za-z0-9_]*\)[sd]|%[sd]|\$\d+|</?\d+>)|\$(?=\S)[^$\n]*?(?<=\S)\$(?!\d)", re.DOTALL)
    generator = random.Random(7)
    chunks = ["$", "$$", "\\(", "\\)", "\\[", "\\]", "\\", "{", "}", "{a}", "%s", "%1$s", "<0>", "1", "x", " ", "\n"]
    for _ in range(20000):
        text = "".join(generator.choices(chunks, k=generator.randint(0, 12)))
        expected = Counter(m.group("placeholder") for m in pattern.finditer(text) if m.group("placeholder"))
        assert placeholders(text) == expected, text


@pytest.mark.parametrize("name, source, prediction", URL_PASSES, ids=[case[0] for case in URL_PASSES])
def test_urls_pass(name, source, prediction):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert verdict.passed, verdict.detail
    assert verdict.detail["parts"] == ["urls"]


@pytest.mark.parametrize("name, source, prediction, missing, extra", URL_FAILS, ids=[case[0] for case in URL_FAILS])
def test_urls_fail(name, source, prediction, missing, extra):
    verdict = check_format_preserve_strict(make_row(source), prediction)
    assert not verdict.passed and verdict.detail["failed"] == ["urls"]
    assert verdict.detail["urls"].get("missing") == missing and verdict.detail["urls"].get("extra") == extra
    assert_serialisable(verdict.detail)


def test_url_extraction_drops_trailing_punctuation():
    assert sorted(urls("a https://x.cn/a.b. b https://x.cn/?q=1!? c").elements()) == ["https://x.cn/?q=1",
                                                                                     "https://x.cn/a.b"]


def test_parts_are_named_and_a_plain_source_has_none():
    verdict = check_format_preserve_strict(make_row("<b>你好</b> {name} https://a.cn"),
                                           "<b>Hi</b> {name} https://a.cn")
    assert verdict.passed and verdict.detail["parts"] == ["html", "placeholders", "urls"]
    assert check_format_preserve_strict(make_row("普通的一句话"), "whatever").detail == {"parts": [], "failed": []}


def test_degenerate_predictions_stay_fast():
    row = make_row("看[这里](https://x.cn) <b>粗</b> {name}")
    start = time.perf_counter()
    for prediction in ("[doge]" * 5000, "<a" * 10000, "![" * 10000, '<a "' * 5000, "*" * 20000):
        assert not check_format_preserve_strict(row, prediction).passed
    assert time.perf_counter() - start < 5  # generous: linear work takes well under a second


# --- term_compliance ---------------------------------------------------------------------------

TERM_PASSES = [
    # (name, constraints, prediction, target_lang)
    ("term_present", ["专名/术语对照：原神→Genshin Impact、米哈游→miHoYo"], "Genshin Impact by miHoYo", "en"),
    ("korean_particle_attached", ["术语对照：原神→원신"], "원신은 재미있다", "ko"),
    ("german_genitive", ["术语对照：原神→Genshin Impact"], "Genshin Impacts Welt", "de"),
    ("latin_term_glued_to_chinese", ["术语对照：Genshin Impact→Genshin Impact"], "我在玩Genshin Impact", "zh"),
    ("thai_glued", ["术语对照：原神→เก็นชิน"], "ฉันเล่นเก็นชินทุกวัน", "th"),
    ("arabic_clitic", ["术语对照：数据→البيانات"], "وبالبيانات نعمل", "ar"),
    ("inflected_inside_a_longer_word", ["术语对照：UP主→uploader"], "Our uploaders are great.", "en"),
    ("decomposed_prediction_equals_composed_term", ["术语对照：咖啡馆→café"], "un cafe\u0301 noir", "fr"),
    ("decomposed_term_equals_composed_prediction", ["术语对照：咖啡馆→cafe\u0301"], "un café noir", "fr"),
]

TERM_FAILS = [
    # (name, constraints, prediction, missing)
    ("synonym_used", ["术语对照：米哈游→miHoYo"], "made by HoYoverse", ["miHoYo"]),
    ("case_changed", ["术语对照：原神→Genshin Impact"], "genshin impact rocks", ["Genshin Impact"]),
    ("one_of_two_missing", ["术语对照：原神→Genshin Impact", "术语对照：米哈游→miHoYo"], "Genshin Impact by Mihoyo",
     ["miHoYo"]),
    ("split_by_a_space", ["术语对照：原神→원신"], "원 신은", ["원신"]),
]


@pytest.mark.parametrize("name, constraints, prediction, target_lang", TERM_PASSES, ids=[case[0] for case in TERM_PASSES])
def test_term_compliance_passes(name, constraints, prediction, target_lang):
    verdict = check_term_compliance_strict(make_row(constraints=constraints, target_lang=target_lang), prediction)
    assert verdict.passed, verdict.detail
    assert verdict.detail["terms"] and verdict.detail["missing"] == []


@pytest.mark.parametrize("name, constraints, prediction, missing", TERM_FAILS, ids=[case[0] for case in TERM_FAILS])
def test_term_compliance_fails(name, constraints, prediction, missing):
    verdict = check_term_compliance_strict(make_row(constraints=constraints), prediction)
    assert not verdict.passed and verdict.detail["missing"] == missing
    assert_serialisable(verdict.detail)


# --- social_preserve (elements from the source text) ---------------------------------------------

SOCIAL_PASSES = [
    # (name, source_text, constraints, prediction)
    ("all_kept", "#原神# 太好玩了 @米哈游 [doge] #Genshin", [], "#原神# so fun @米哈游 [doge] #Genshin"),
    ("constraint_line_not_read", "今天好开心", ["保留以下社交元素：#原神#、@米哈游"], "so happy today"),
    ("repeats_kept", "[doge][doge] 哈哈", [], "[doge][doge] haha"),
    ("more_in_prediction_allowed", "[doge] 哈哈", [], "[doge] haha [doge]"),
    ("markdown_link_is_no_emote", "看[这里](https://x.cn)", [], "see here"),
    ("underscore_in_mention", "@Kiri_Yume 老师的视频", [], "@Kiri_Yume's video"),
    ("punctuation_ends_a_mention", "@米哈游，新角色呢", [], "@米哈游, where is the new character"),
    ("no_element_in_source", "普通评论", [], "a plain comment"),
    ("heading_hash_is_no_hashtag", "# 标题", [], "Title"),
    ("lone_at_is_no_mention", "邮箱里的 @ 符号", [], "the at sign in the address"),
]

SOCIAL_FAILS = [
    # (name, source_text, prediction, expected missing entries)
    ("topic_translated", "#原神# 太好玩了", "#Genshin# so fun", [{"element": "#原神#", "source": 1, "prediction": 0}]),
    ("hashtag_lost", "好玩 #Genshin", "fun Genshin", [{"element": "#Genshin", "source": 1, "prediction": 0}]),
    ("emote_translated", "[doge] 哈哈", "[dog head] haha", [{"element": "[doge]", "source": 1, "prediction": 0}]),
    ("mention_altered", "@米哈游 出新角色了", "@miHoYo has a new character",
     [{"element": "@米哈游", "source": 1, "prediction": 0}]),
    ("mention_extended_is_another_mention", "@米哈游 你好", "@米哈游官方 hello",
     [{"element": "@米哈游", "source": 1, "prediction": 0}]),
    ("one_of_two_repeats_lost", "[doge][doge] 哈哈", "[doge] haha", [{"element": "[doge]", "source": 2, "prediction": 1}]),
]


@pytest.mark.parametrize("name, source, constraints, prediction", SOCIAL_PASSES, ids=[case[0] for case in SOCIAL_PASSES])
def test_social_preserve_passes(name, source, constraints, prediction):
    verdict = check_social_preserve_strict(make_row(source, constraints), prediction)
    assert verdict.passed, verdict.detail
    assert ("note" in verdict.detail) is (name in ("constraint_line_not_read", "no_element_in_source",
                                                   "markdown_link_is_no_emote", "heading_hash_is_no_hashtag",
                                                   "lone_at_is_no_mention")), verdict.detail
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, source, prediction, missing", SOCIAL_FAILS, ids=[case[0] for case in SOCIAL_FAILS])
def test_social_preserve_fails(name, source, prediction, missing):
    verdict = check_social_preserve_strict(make_row(source), prediction)
    assert not verdict.passed and verdict.detail["missing"] == missing
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("text, elements", [
    ("#原神# #崩坏 星穹铁道# #tag", ["#原神#", "#崩坏 星穹铁道#", "#tag"]),
    ("# 标题 #", []),                                      # a topic does not start or end with a space
    ("#" + "长" * 41 + "#", ["#" + "长" * 41]),               # over 40 characters: a hashtag, not a topic
    ("[doge][笑哭][" + "x" * 21 + "]", ["[doge]", "[笑哭]"]),
    ("[链接](https://x.cn)", []),
    ("@a_b @米哈游！@" + "x" * 35, ["@a_b", "@米哈游", "@" + "x" * 30]),
    ("@ 和 @，以及 @@", []),                                  # an @ with nothing after it is no mention
    ("@@a", ["@a"]),                                           # a lone @ right before a mention
])
def test_social_element_patterns(text, elements):
    assert sorted(social_elements_in(text).elements()) == sorted(elements)


# --- layout_break (line by line) -------------------------------------------------------------------

LAYOUT_PASSES = [
    # (name, source_text, prediction)
    ("lines_kept", "第一行\n第二行", "line one\nline two"),
    ("trailing_newline_normalised", "第一行\n第二行", "line one\nline two\n"),
    ("crlf_normalised", "一\n二", "one\r\ntwo"),
    ("leading_blank_lines_normalised", "一\n二", "\n\none\ntwo"),
    ("ideographic_indent_kept", "　　第一段\n　　第二段", "　　Paragraph one\n　　Paragraph two"),
    ("tab_indent_and_tabs_kept", "\t名\t值", "\tname\tvalue"),
    ("blank_lines_aligned", "一\n\n二", "one\n\ntwo"),
    ("table_pipes_kept", "| 名 | 值 |\n|---|---|", "| name | value |\n|---|---|"),
    ("trailing_spaces_of_a_line_free", "一  \n二", "one\ntwo"),
    ("ideographic_indent_as_four_spaces", "　　第一段\n　　第二段", "    Paragraph one\n    Paragraph two"),
    ("four_spaces_as_ideographic_indent", "    第一段", "　　段落"),
    ("two_spaces_widened_to_four", "一\n  二\n  三", "one\n    two\n    three"),
    ("nesting_order_kept_at_other_widths", "一\n  二\n    三\n  四", "one\n   two\n      three\n   four"),
    ("first_line_indent_kept_after_normalisation", "\n  一\n二", "  one\ntwo"),
    ("blank_line_of_spaces_is_blank", "一\n  \n二", "one\n\ntwo"),
]

LAYOUT_FAILS = [
    # (name, source_text, prediction, failed, expected first line problem)
    ("merged_lines", "第一行\n第二行", "line one line two", ["line_count"], None),
    ("later_line_indent_lost", "一\n  二", "one\ntwo", ["indent"],
     {"line": 2, "problem": "indent", "source": "  ", "prediction": ""}),
    ("indent_added", "一\n二", "one\n  two", ["indent"], {"line": 2, "problem": "indent", "source": "", "prediction": "  "}),
    ("nesting_flattened", "一\n  二\n    三", "one\n  two\n  three", ["indent"],
     {"line": 3, "problem": "indent", "source": "    ", "prediction": "  "}),
    ("nesting_inverted", "  一\n    二", "    one\n  two", ["indent"], {"line": 2, "problem": "indent"}),
    ("equal_widths_made_unequal", "　　一\n　　二", "    one\n  two", ["indent"],
     {"line": 2, "problem": "indent", "source": "　　", "prediction": "  "}),
    ("blank_line_moved", "一\n\n二\n三", "one\ntwo\n\nthree", ["blank"], {"line": 2, "problem": "blank"}),
    ("pipe_lost", "| 名 | 值 |", "name | value", ["bars"], {"line": 1, "problem": "bars", "source": 3, "prediction": 1}),
    ("tab_lost", "名\t值", "name value", ["tabs"], {"line": 1, "problem": "tabs", "source": 1, "prediction": 0}),
    ("tab_indent_as_spaces_still_counts_its_tab", "\t名", "    name", ["tabs"], {"line": 1, "problem": "tabs"}),
]


@pytest.mark.parametrize("name, source, prediction", LAYOUT_PASSES, ids=[case[0] for case in LAYOUT_PASSES])
def test_layout_break_passes(name, source, prediction):
    verdict = check_layout_break_strict(make_row(source, ["保持原文排版"]), prediction)
    assert verdict.passed, verdict.detail
    assert verdict.detail["failed"] == []


@pytest.mark.parametrize("name, source, prediction, failed, problem", LAYOUT_FAILS, ids=[case[0] for case in LAYOUT_FAILS])
def test_layout_break_fails(name, source, prediction, failed, problem):
    verdict = check_layout_break_strict(make_row(source, ["保持原文排版"]), prediction)
    assert not verdict.passed and verdict.detail["failed"] == failed, verdict.detail
    if problem:
        for key, value in problem.items():
            assert verdict.detail["lines"][0][key] == value, (key, verdict.detail["lines"][0])
    assert_serialisable(verdict.detail)


def test_indentation_check_equals_the_pairwise_definition():
    """§7b: indented iff the source line is; for every pair of lines, deeper in the source is deeper
    in the prediction and equal stays equal. The check sorts instead of comparing every pair."""
    generator = random.Random(11)
    indents = ["", " ", "  ", "\u3000", "    ", "\u3000\u3000", "\t", "      "]
    for _ in range(5000):
        pairs = [(generator.choice(indents), generator.choice(indents)) for _ in range(generator.randint(1, 5))]
        widths = [(indent_width(source), indent_width(prediction)) for source, prediction in pairs]
        expected = all((s > 0) == (p > 0) for s, p in widths) and all(
            (s1 > s2) == (p1 > p2) and (s1 == s2) == (p1 == p2) for s1, p1 in widths for s2, p2 in widths)
        problems = _indent_problems([(number, source, prediction, "x") for number, (source, prediction) in
                                     enumerate(pairs, 1)])
        assert (not problems) == expected, pairs


# --- syllable_order --------------------------------------------------------------------------------

SUBTITLE_SOURCE = '{"1": "短", "2": "长一点", "3": "最长的一句话"}'

SYLLABLE_PASSES = [
    # (name, source_text, prediction, duration_s)
    ("json_lines_ordered", SUBTITLE_SOURCE, '{"1": "好", "2": "你好吗", "3": "很长很长的话"}', [1.0, 2.0, 3.0]),
    ("prediction_key_order_free", SUBTITLE_SOURCE, '{"3": "很长很长的话", "1": "好", "2": "你好吗"}', [1.0, 2.0, 3.0]),
    ("plain_lines_blank_ones_skipped", "短\n长一点", "好\n\n你好吗\n", [1.0, 2.0]),
    ("one_line", '{"1": "一句"}', '{"1": "很长很长很长"}', [1.0]),
    ("no_durations", SUBTITLE_SOURCE, "anything at all", []),
    ("equal_durations_not_comparable", '{"1": "一", "2": "二"}', '{"1": "一二三四", "2": "一"}', [2.0, 2.0]),
]

SYLLABLE_FAILS = [
    # (name, source_text, prediction, duration_s, expected detail items)
    ("missing_key", SUBTITLE_SOURCE, '{"1": "好", "2": "你好吗"}', [1.0, 2.0, 3.0],
     {"missing_keys": ["3"], "extra_keys": []}),
    ("empty_object", SUBTITLE_SOURCE, "{}", [1.0, 2.0, 3.0], {"missing_keys": ["1", "2", "3"]}),
    ("extra_key", '{"1": "一", "2": "二"}', '{"1": "好", "2": "你好", "3": "多"}', [1.0, 2.0], {"extra_keys": ["3"]}),
    ("null_value", '{"1": "一", "2": "二"}', '{"1": null, "2": "你好"}', [1.0, 2.0], {"line": "1"}),
    ("not_json", SUBTITLE_SOURCE, "好\n你好吗\n很长很长的话", [1.0, 2.0, 3.0], {}),
    ("array_not_object", '{"1": "一", "2": "二"}', '["好", "你好"]', [1.0, 2.0], {}),
    ("plain_line_count_differs", "短\n长一点", "好 你好吗", [1.0, 2.0], {"lines": 1, "durations": 2}),
    ("inverted_lengths", '{"1": "一", "2": "二"}', '{"1": "很长很长的一句话", "2": "短"}', [1.0, 3.0],
     {"counts": [8, 1], "inversions": 1, "concordance": 0.0, "inverted_pairs": [[1, 2]]}),
]


@pytest.mark.parametrize("name, source, prediction, durations", SYLLABLE_PASSES, ids=[case[0] for case in SYLLABLE_PASSES])
def test_syllable_order_passes(name, source, prediction, durations):
    verdict = check_syllable_order_strict(make_row(source, target_lang="zh", duration_s=durations), prediction)
    assert verdict.passed, verdict.detail
    assert_serialisable(verdict.detail)


@pytest.mark.parametrize("name, source, prediction, durations, expected", SYLLABLE_FAILS,
                         ids=[case[0] for case in SYLLABLE_FAILS])
def test_syllable_order_fails(name, source, prediction, durations, expected):
    verdict = check_syllable_order_strict(make_row(source, target_lang="zh", duration_s=durations), prediction)
    assert not verdict.passed
    if not expected:
        assert "error" in verdict.detail
    for key, value in expected.items():
        assert verdict.detail[key] == value, (key, verdict.detail)
    assert_serialisable(verdict.detail)


# --- registry, bundled data, differential ------------------------------------------------------------

def test_strict_set_is_registered_beside_the_original():
    assert set(RULE_SETS) == {"original", "strict"}
    assert set(RULE_SETS["strict"]) == set(HARD_IDS) == set(RULE_SETS["original"])
    assert STRICT_RULES["term_compliance"].keywords == {"glossary_terms": glossary_terms}  # the original's reader
    strict = ScoringContext(rule_set="strict")
    assert RULE_TABLE.check("layout_break", make_row("一"), "one", strict) == check_layout_break_strict(make_row("一"), "one")


BUNDLED_ROWS = read_jsonl(ROOT / "data" / "test.jsonl")
EXAMPLE_PREDICTIONS = {entry["case_id"]: entry["prediction"]
                       for entry in read_jsonl(ROOT / "data" / "example_predictions.jsonl")}


@pytest.mark.parametrize("row", BUNDLED_ROWS, ids=[row["case_id"] for row in BUNDLED_ROWS])
def test_every_bundled_reference_passes_the_strict_rules(row):
    for cid, verdict in strict_verdicts(row, row["reference"]).items():
        assert verdict.passed, (cid, verdict.detail)


# Every (instance, hard id) where the two sets disagree on the bundled example predictions, and why;
# docs/strict-rules.md lists the same rows with their details.
EXPECTED_DISAGREEMENTS = {
    # the original's untranslated-Chinese share inside HTML rows is not a format check in §7b
    ("itb-social-074", "format_preserve"): (False, True),
    ("itb-social-028", "format_preserve"): (False, True),
    ("itb-doc-027", "format_preserve"): (False, True),
    ("itb-lit-036", "format_preserve"): (False, True),
    # a placeholder translated inside a fenced code block: presence-only Markdown lets it through
    ("itb-lit-041", "format_preserve"): (True, False),
    # (a dropped subtitle line, itb-subtitle-060, disagreed under public-v1, which reads a missing key
    # as an empty line; the default 2026-10-05 scorer fails it as strict does)
}


def test_differential_against_the_original_on_the_example_predictions():
    found = rule_set_disagreements(BUNDLED_ROWS, EXAMPLE_PREDICTIONS)
    assert {(entry["case_id"], entry["id"]): (entry["original"], entry["strict"]) for entry in found} == \
           EXPECTED_DISAGREEMENTS
    assert all(entry["reason"] for entry in found)


def test_the_docs_list_every_disagreement():
    docs = (ROOT / "docs" / "strict-rules.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| (itb-[\w-]+) \| (\w+) \| (?:pass|fail) \| (?:pass|fail) \|", docs, re.MULTILINE))
    assert listed == set(EXPECTED_DISAGREEMENTS)


# --- reporting helpers -------------------------------------------------------------------------------

def test_strict_summary_rates_and_interval():
    rows = [make_row("一\n二", ["保持原文排版"], constraint_ids=["layout_break"]) | {"case_id": f"r{i}"}
            for i in range(4)]
    predictions = {"r0": "one\ntwo", "r1": "one\ntwo\n", "r2": "one two", "r3": None}
    strict = strict_summary(strict_instances(rows, predictions))
    assert strict["hard_pass_rate_strict"]["value"] == 0.5 and strict["hard_pass_rate_strict"]["n"] == 4
    assert len(strict["hard_pass_rate_strict"]["ci95"]) == 2
    assert strict["pass_rate_strict"] == {"layout_break": 0.5}
    # one pass, nothing kept: a run hands it a generator of instances (issue 34, memory)
    assert strict_summary(strict_instance(row, predictions[row["case_id"]]) for row in rows) == strict


def test_a_missing_prediction_fails_every_strict_rule():
    row = make_row("你好", constraint_ids=["format_preserve", "style_consistency", "layout_break"])
    verdicts = strict_verdicts(row, "   ")
    assert set(verdicts) == {"format_preserve", "layout_break"}
    assert not any(verdict.passed for verdict in verdicts.values())


def test_add_strict_to_summary_puts_the_rate_beside_the_original_and_changes_nothing_else():
    summary = {"if_score": {}, "hard_pass_rate": {"value": 1.0}, "by_constraint": {
        "layout_break": {"kind": "hard", "n": 2, "pass_rate": 1.0}, "style_consistency": {"kind": "soft", "n": 2}}}
    before = json.loads(json.dumps(summary))
    add_strict_to_summary(summary, {"hard_pass_rate_strict": {"value": 0.5}, "pass_rate_strict": {"layout_break": 0.5}})
    assert list(summary) == ["if_score", "hard_pass_rate", "hard_pass_rate_strict", "by_constraint"]
    assert summary["by_constraint"]["layout_break"] == {**before["by_constraint"]["layout_break"], "pass_rate_strict": 0.5}
    assert summary["by_constraint"]["style_consistency"] == before["by_constraint"]["style_consistency"]
    assert summary["hard_pass_rate"] == before["hard_pass_rate"]


# --- end to end: a user's file, both rule sets ----------------------------------------------------

def user_rows():
    from conftest import make_row as make_data_row

    return [
        make_data_row("u1", source_text="- 一\n- 二\n- 三", reference="- one\n- two\n- three",
                      constraints=["保留 Markdown 标记"], constraint_ids=["format_preserve"]),
        make_data_row("u2", source_text='<a href="https://a.cn/x">点这里</a>', reference='<a href="https://a.cn/x">here</a>',
                      constraints=["保留 HTML 标签与属性"], constraint_ids=["format_preserve"]),
        make_data_row("u3", source_lang="zh", target_lang="ko", source_text="我爱原神", reference="나는 원신을 사랑해",
                      constraints=["术语对照：原神→원신"], constraint_ids=["term_compliance"]),
        make_data_row("u4"),
    ]


USER_PREDICTIONS = [
    {"case_id": "u1", "prediction": "- one\n- two"},                                # strict fails: an item lost
    {"case_id": "u2", "prediction": '<a href="https://a.com/en">here</a>'},         # strict fails: href changed
    {"case_id": "u3", "prediction": "나는 원신을 사랑해"},                            # original fails: particle
    {"case_id": "u4", "prediction": None},                                          # missing: both fail
]


def run_user_file(tmp_path, *extra):
    from conftest import write_jsonl

    import evaluate

    data = write_jsonl(tmp_path / "data.jsonl", user_rows())
    predictions = write_jsonl(tmp_path / "predictions.jsonl", USER_PREDICTIONS)
    out = tmp_path / "out"
    assert evaluate.main(["--data", str(data), "--predictions", str(predictions), "--output-dir", str(out),
                          "--skip-judge", "--quiet", *extra]) == 0
    scores = [json.loads(line) for line in (out / "scores.jsonl").read_text(encoding="utf-8").split("\n") if line]
    return json.loads((out / "summary.json").read_text(encoding="utf-8")), scores, out


def test_a_default_run_reports_the_strict_rate_beside_the_original_scores(tmp_path):
    # public-v1's rules, where u3's particle-attached Korean term fails (2026-10-05 passes it)
    summary, scores, out = run_user_file(tmp_path, "--scorer-version", "public-v1")
    assert [score["hard_pass"] for score in scores] == [True, True, False, False]  # the original's verdicts
    assert summary["hard_pass_rate"]["value"] == 0.5 and summary["rule_set"] == "original"
    assert summary["hard_pass_rate_strict"]["value"] == 0.25 and summary["hard_pass_rate_strict"]["n"] == 4
    assert len(summary["hard_pass_rate_strict"]["ci95"]) == 2
    assert summary["by_constraint"]["format_preserve"] == {"kind": "hard", "n": 3, "pass_rate": round(2 / 3, 6),
                                                           "pass_rate_strict": 0.0}
    assert summary["by_constraint"]["term_compliance"]["pass_rate_strict"] == 1.0
    assert "rules:original" in summary["signature"]
    assert not any("rule-set" in reason for reason in summary["non_formal_reasons"])
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| hard_pass_rate_strict | 0.2500" in report
    assert "| format_preserve | hard | 3 | 0.6667 | 0.0000 |" in report
    page = (out / "report.html").read_text(encoding="utf-8")
    assert 'hard_pass_rate_strict</div><div class="value">0.2500' in page
    assert '<td>format_preserve</td><td class="num">3</td><td class="num">0.6667</td><td class="num">0.0000</td>' in page


def test_rule_set_strict_scores_a_users_file_with_the_strict_rules_and_is_never_formal(tmp_path):
    summary, scores, _ = run_user_file(tmp_path, "--rule-set", "strict")
    assert [score["hard_pass"] for score in scores] == [False, False, True, False]
    assert scores[0]["constraints"][0]["detail"]["markdown"]["lost_list_items"] == ["三"]
    assert scores[1]["constraints"][0]["detail"]["html"]["attributes"][0]["attribute"] == "href"
    assert summary["hard_pass_rate"] == summary["hard_pass_rate_strict"]
    assert summary["formal"] is False and summary["rule_set"] == "strict" and "rules:strict" in summary["signature"]
    assert "--rule-set strict: not the protocol's hard rules (published scores use the original rules)" in \
           summary["non_formal_reasons"]


def test_the_console_table_shows_both_rates(tmp_path, capsys):
    from conftest import write_jsonl

    import evaluate

    data = write_jsonl(tmp_path / "data.jsonl", user_rows())
    predictions = write_jsonl(tmp_path / "predictions.jsonl", USER_PREDICTIONS)
    assert evaluate.main(["--data", str(data), "--predictions", str(predictions), "--output-dir",
                          str(tmp_path / "out"), "--skip-judge", "--scorer-version", "public-v1"]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"^hard_pass_rate\s+0\.5000 ", printed, re.MULTILINE)
    assert re.search(r"^hard_pass_rate_strict\s+0\.2500 ", printed, re.MULTILINE)
    assert re.search(r"format_preserve \(hard, n=3\)\s+0\.6667  strict 0\.0000", printed)


def test_the_bundled_data_runs_under_both_rule_sets(tmp_path):
    import evaluate

    for rule_set in ("original", "strict"):
        out = tmp_path / rule_set
        assert evaluate.main(["--predictions", str(ROOT / "data" / "example_predictions.jsonl"), "--output-dir",
                              str(out), "--skip-judge", "--quiet", "--rule-set", rule_set]) == 0
    default = json.loads((tmp_path / "original" / "summary.json").read_text(encoding="utf-8"))
    strict = json.loads((tmp_path / "strict" / "summary.json").read_text(encoding="utf-8"))
    assert default["hard_pass_rate_strict"] == strict["hard_pass_rate"] == strict["hard_pass_rate_strict"]
    # 251 and 254 of 318 rows (the ten rows of the two rarest soft constraints carry no hard constraint)
    assert (default["hard_pass_rate"]["value"], default["hard_pass_rate_strict"]["value"]) == (
        round(251 / 318, 6), round(254 / 318, 6)) == (0.789308, 0.798742)


# --- explanations: every strict failure names its cause ------------------------------------------------

def _failing_cases():
    cases = []
    for name, source, prediction, *_ in JSON_FAILS + HTML_FAILS + MARKDOWN_FAILS + PLACEHOLDER_FAILS + URL_FAILS:
        cases.append(("format_preserve", name, prediction, make_row(source)))
    cases += [("term_compliance", name, prediction, make_row(constraints=constraints))
              for name, constraints, prediction, _ in TERM_FAILS]
    cases += [("social_preserve", name, prediction, make_row(source)) for name, source, prediction, _ in SOCIAL_FAILS]
    cases += [("layout_break", name, prediction, make_row(source, ["保持原文排版"]))
              for name, source, prediction, *_ in LAYOUT_FAILS]
    cases += [("syllable_order", name, prediction, make_row(source, target_lang="zh", duration_s=durations))
              for name, source, prediction, durations, _ in SYLLABLE_FAILS]
    cases += [(cid, f"empty-{cid}", "\ufeff ", make_row("你好", ["术语对照：你好→Hello"], duration_s=[1.0, 2.0]))
              for cid in STRICT_RULES]
    return cases


FAILING_CASES = _failing_cases()


@pytest.mark.parametrize("cid, name, prediction, row", FAILING_CASES, ids=[case[1] for case in FAILING_CASES])
def test_every_strict_failure_is_explained_by_its_rule(cid, name, prediction, row):
    verdict = STRICT_RULES[cid](row, prediction)
    assert not verdict.passed
    reason = explain(cid, verdict.detail, "strict")
    assert reason.strip() and "\n" not in reason and '"passed"' not in reason, reason
    assert not reason.rstrip().endswith(":") and ": ;" not in reason, reason  # every part names what changed


@pytest.mark.parametrize("cid, source, prediction, expected", [
    ("format_preserve", '{"a": 1}', '{"a": 2}', "JSON: a is 2, the source's 1"),
    ("format_preserve", '<a href="x">链接</a>', '<a href="y">link</a>', "HTML: <a> href='y', source 'x'"),
    ("format_preserve", "- 一\n- 二\n- 三", "- one\n- two", "Markdown: lost list item 三"),
    ("format_preserve", "按 `Ctrl+S`", "press `Cmd+S`", "Markdown: code span changed: Ctrl+S"),
    ("format_preserve", "你好 {name}", "Hello", "placeholders: lost placeholder {name}"),
    ("format_preserve", "见 https://x.cn/a", "see https://x.cn/b", "URLs: lost URL https://x.cn/a; extra URL https://x.cn/b"),
    ("layout_break", "一\n  二\n    三", "one\n  two\n  three", "line 3 indented 2 wide for the source's 4: the source indents it deeper"),
    ("layout_break", "一\n二", "one two", "1 lines for the source's 2"),
    ("social_preserve", "#原神# 好玩 #原神#", "#原神# fun", "social element short: #原神# (1 of 2)"),
    ("syllable_order", '{"1": "一", "2": "二"}', '{"1": "好"}', "lost key 2"),
    ("format_preserve", "见[文档](https://x.cn)", "see [docs](https://y.cn)",
     "Markdown: lost link target https://x.cn; extra link target https://y.cn"),
    ("format_preserve", "**一** 和 *二*", "one and *two*", "Markdown: 0 bold for the source's 1"),
    ("format_preserve", '{"a": 1}', "not json", "JSON: not JSON (Expecting value"),
    ("term_compliance", "你好", "Hi", "term not found (NFC substring): Hello"),
    ("format_preserve", "<p>你好<br>世界</p>", "<p>Hello world</p>", "HTML: lost tag <br>"),
    ("format_preserve", '<a href="x">链接</a>', '<a href="x" class="c">link</a>', "HTML: <a> added class"),
    ("format_preserve", '<a href="x" id="i">链接</a>', '<a href="x">link</a>', "HTML: <a> lost id"),
    ("format_preserve", "- 一", "# List\n- one", "Markdown: extra heading h1"),
    ("format_preserve", "`a-1` `b-1` `c-1`", "`x` `y` `z`", "Markdown: code span changed: a-1, b-1 (+1 more)"),
])
def test_strict_explanations_name_the_cause(cid, source, prediction, expected):
    row = make_row(source, ["保持原文排版"], duration_s=[1.0, 2.0] if cid == "syllable_order" else None)
    if cid == "term_compliance":
        row = make_row(source, ["术语对照：你好→Hello"])
    verdict = STRICT_RULES[cid](row, prediction)
    assert not verdict.passed
    assert expected in explain(cid, verdict.detail, "strict")


def test_a_single_json_difference_is_not_followed_by_a_count():
    verdict = STRICT_RULES["format_preserve"](make_row('{"a": 1}'), '{"a": 2}')
    assert explain("format_preserve", verdict.detail, "strict") == "JSON: a is 2, the source's 1"


@pytest.mark.parametrize("indent, width", [("", 0), (" ", 1), ("\u3000", 2), ("\t", 4), (" \t", 4), ("    \t", 8),
                                           ("\u3000\u3000", 4), ("\t ", 5)])
def test_indent_width(indent, width):
    assert indent_width(indent) == width


def test_a_strict_run_reports_the_strict_reasons(tmp_path):
    import evaluate
    from conftest import make_row as full_row, write_jsonl

    rows = [full_row("lay", source_text="一\n  二\n    三", constraints=["保持原文排版"], constraint_ids=["layout_break"])]
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "lay", "prediction": "one\n  two\n  three"}])
    out = tmp_path / "out"
    assert evaluate.main(["--data", str(data), "--predictions", str(predictions), "--output-dir", str(out),
                          "--skip-judge", "--quiet", "--rule-set", "strict"]) == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| `lay` | line 3 indented 2 wide for the source's 4: the source indents it deeper" in report


# --- long predictions: the capped Markdown parse keeps the full parse's verdict ------------------------

LONG = 34_000  # past MARKDOWN_CAPPED_FROM (32,768), by a little over a thousand characters


@pytest.mark.parametrize("extra, capped_parse", [(0, False), (1, True)])
def test_the_parse_is_capped_past_32768_characters_only(extra, capped_parse):
    assert MARKDOWN_CAPPED_FROM == 32_768  # the number docs/strict-rules.md gives
    prediction = "- one\n- two\n- three\n"
    prediction += "x" * (MARKDOWN_CAPPED_FROM + extra - len(prediction))
    detail = check_format_preserve_strict(make_row("- 一\n- 二"), prediction).detail["markdown"]
    assert ("exceeds_source" in detail) is capped_parse, detail
    assert ("extra_blocks" in detail) is not capped_parse, detail


@pytest.mark.parametrize("source, prediction, passed, exceeded", [
    ("- 一\n- 二", "- one\n- two\n" + "- more\n" * (LONG // 7), False, {"what": "blocks", "source": 2}),
    ("**一** 和 二", "**one** and two " + "**x** " * (LONG // 6), False, {"what": "strong", "source": 1}),
    ("点 `a`", "tap `a` " + "`b` " * (LONG // 4), False, {"what": "code_spans", "source": 1}),
    ("见[文档](https://x.cn)", "see [docs](https://x.cn) " + "[y](https://y.cn) " * (LONG // 18), False,
     {"what": "links", "source": 1}),
    ("- 一\n- 二", "- one " + "word " * (LONG // 5) + "\n- two", True, None),
    ("**一** 和 `二`", "**one** and `二` " + "plain words " * (LONG // 12), True, None),
])
def test_a_long_prediction_gets_the_full_parses_verdict(source, prediction, passed, exceeded):
    assert len(prediction) > MARKDOWN_CAPPED_FROM
    verdict = check_format_preserve_strict(make_row(source), prediction)
    full = parse_markdown_structure(prediction)
    source_structure = parse_markdown_structure(source)
    full_passes = all(full[key] == source_structure[key] for key in ("blocks", "links", "images", "strong",
                                                                       "emphasis")) and \
        sum(full["code_spans"].values()) == sum(source_structure["code_spans"].values())
    assert verdict.passed is passed is full_passes, verdict.detail
    if exceeded:
        assert verdict.detail["markdown"]["exceeds_source"] == {**exceeded, "prediction": f"over {exceeded['source']}"}
        assert explain("format_preserve", verdict.detail, "strict").startswith("Markdown: more ")
