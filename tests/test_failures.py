"""The failures section (SPEC §11): one-line reasons from real details, caps, order, report.md."""

from __future__ import annotations

import json

import pytest

import evaluate
from conftest import make_row, write_jsonl
from eval.insttrans.rules import CONSTRAINT_KINDS, RULE_TABLE
from eval.reports.failures import failures, failures_markdown
from eval.insttrans.failures import failure_reason
from eval.insttrans.record import INSTTRANS
from eval.sandglass import SANDGLASS
from eval.scoring.score_rows import ScoreRow, row_from_dict

# (constraint id, row fields, prediction, the reason's expected text): each detail comes from the
# real rule, so a change in a rule's detail shows up here.
SUBTITLE = {"source_text": '{"1": "你好", "2": "再见，朋友们，明天见"}', "target_lang": "en",
            "constraint_ids": ["format_preserve", "syllable_order"], "constraints": ["保持格式", "音节顺序"],
            "duration_s": [1.0, 3.0], "scenario": "pgc_subtitle", "domain": "ogv字幕"}
FAILING = [
    ("format_preserve", SUBTITLE, '{"1": "Hi"}', "JSON: missing key 2"),
    ("format_preserve", SUBTITLE, '```json\n{"1": "Hi", "2": "Bye"}\n```',
     "JSON: not JSON (Expecting value at line 1 column 1), prediction starts '```json"),
    ("format_preserve", SUBTITLE, '{"1": "Hi", "2": "By',
     "JSON: not JSON (Unterminated string starting at line 1 column 18)"),  # once "starting at at line"
    ("format_preserve", {"source_text": "<p>你好<br>世界</p>"}, "<p>Hello world</p>", "HTML: lost tag <br>"),
    ("format_preserve", {"source_text": "<p>你好</p>"}, "<p>Hello 你好世界</p>", "HTML: untranslated Chinese left"),
    ("format_preserve", {"source_text": "# 标题\n**重点**"}, "Title\nimportant", "Markdown: lost heading, bold"),
    ("format_preserve", {"source_text": "你好 {name}，你有 %d 条消息"}, "Hello, you have %d messages",
     "placeholder not kept: {name}"),
    ("syllable_order", SUBTITLE, '{"1": "Good morning to all of you here", "2": "Bye"}',
     "concordance 0.00 < 0.9: 1 of 1 pairs inverted (syllables 8,1 for durations 1,3 s)"),
    ("syllable_order", SUBTITLE, '{"1": "Hi", "2": 5}', 'line "2" is a JSON number, not a string'),
    ("syllable_order", SUBTITLE, "Hi / Bye", "not JSON ("),
    ("term_compliance", {"constraints": ["术语对照：原神→Genshin Impact、米哈游→miHoYo"],
                         "constraint_ids": ["term_compliance"]}, "Genshin Impact by Mihoyo",
     "term not found: miHoYo"),
    ("social_preserve", {"constraints": ["保留以下社交元素，不得翻译或改动：#原神#、@米哈游"],
                         "constraint_ids": ["social_preserve"]}, "#原神# by miHoYo",
     "social element missing: @米哈游"),
    ("layout_break", {"source_text": "第一行\n第二行", "constraints": ["保持原文排版：换行"],
                      "constraint_ids": ["layout_break"]}, "line one line two",
     "1 line breaks in the source, 0 in the prediction"),
    ("layout_break", {"source_text": "  缩进", "constraints": ["保持原文排版：缩进"],
                      "constraint_ids": ["layout_break"]}, "indented",
     "the source starts with whitespace and the prediction does not"),
]
PASSING = [
    ("format_preserve", SUBTITLE, '{"1": "Hi", "2": "Bye"}'),
    ("term_compliance", {"constraints": ["术语对照：原神→Genshin Impact"], "constraint_ids": ["term_compliance"]},
     "Genshin Impact"),
    ("social_preserve", {"constraints": ["保留以下社交元素：#原神#"], "constraint_ids": ["social_preserve"]}, "#原神# ok"),
    ("layout_break", {"source_text": "第一行\n第二行", "constraints": ["保持原文排版：换行"],
                      "constraint_ids": ["layout_break"]}, "one\ntwo"),
]


@pytest.mark.parametrize("cid,fields,prediction,expected", FAILING,
                         ids=[f"{cid}-{index}" for index, (cid, *_rest) in enumerate(FAILING)])
def test_a_failed_rule_gets_a_reason_read_off_its_detail(cid, fields, prediction, expected):
    verdict = RULE_TABLE.check(cid, make_row(**fields), prediction)
    assert not verdict.passed
    reason = failure_reason(cid, verdict.detail)
    assert expected in reason and "\n" not in reason and len(reason) <= 160


def _score(case_id: str, entries: list[tuple[str, bool | float, dict]], quality=1.0, status="ok") -> ScoreRow:
    constraints = []
    for index, (cid, value, detail) in enumerate(entries, 1):
        kind = CONSTRAINT_KINDS[cid]
        constraints.append({"index": index, "id": cid, "kind": kind,
                            **({"passed": value} if kind == "hard" else {"score": value}), "detail": detail})
    return row_from_dict({"case_id": case_id, "status": status, "constraints": constraints, "quality": quality,
                          "constraint_ids": [cid for cid, _, _ in entries]})


@pytest.mark.parametrize("cid,fields,prediction", PASSING, ids=[cid for cid, *_ in PASSING])
def test_a_passed_rule_is_not_listed(cid, fields, prediction):
    verdict = RULE_TABLE.check(cid, make_row(**fields), prediction)
    assert verdict.passed
    data = failures([_score("ok-1", [(cid, True, verdict.detail)])], bench=INSTTRANS)
    assert data["hard"][cid] == {"n": 1, "failed": 0, "cases": []}


def test_failing_ids_are_capped_in_data_order_and_counted_in_full():
    scores = [_score(f"c{index:02d}", [("term_compliance", index % 2 == 0, {"terms": ["X"], "missing": ["X"]})])
              for index in range(50)]
    slot = failures(scores, cap=20, bench=INSTTRANS)["hard"]["term_compliance"]
    assert slot["failed"] == 25 and slot["n"] == 50
    assert [case["case_id"] for case in slot["cases"]] == [f"c{index:02d}" for index in range(1, 50, 2)][:20]


def test_soft_and_quality_list_the_lowest_scores_first():
    scores = [_score("a", [("style_consistency", 0.5, {})], quality=0.5),
              _score("b", [("style_consistency", 1.0, {})], quality=0.0),
              _score("c", [("style_consistency", 0.0, {"reply": '{"scores": {"style_consistency": 0}}'})], quality=1.0)]
    data = failures(scores, bench=INSTTRANS)
    assert [(case["case_id"], case["score"]) for case in data["judge"]["style_consistency"]["cases"]] == [("c", 0.0),
                                                                                                       ("a", 0.5)]
    assert data["judge"]["style_consistency"]["cases"][0]["reason"].startswith("reply: ")
    assert [case["case_id"] for case in data["judge"]["quality"]["cases"]] == ["b", "a"]
    assert [slot["kind"] for slot in data["judge"].values()] == ["soft", "Judge"]


def test_an_unjudged_run_says_so():
    data = failures([_score("a", [("style_consistency", None, {})], quality=None)], bench=INSTTRANS)
    assert data["judge"]["style_consistency"]["judged"] is False and data["judge"]["quality"]["judged"] is False
    assert "not judged (--skip-judge)" in "\n".join(failures_markdown(data))


def test_diagnostics_name_their_case_ids_from_the_predictions():
    scores = [_score(cid, [("format_preserve", True, {})]) for cid in ("a", "b", "c")]
    predictions = {"a": "```\nHello\n```", "b": "<think>hmm</think>Hello", "c": 'Here: {"1": "x"}'}
    data = failures(scores, predictions=predictions, bench=INSTTRANS)
    assert {name: entry["case_ids"] for name, entry in data["diagnostics"].items()} == {
        "code_fence": ["a"], "think_block": ["b"], "text_around_json": ["c"], "source_script": [],
        "echoes_source": [], "wrong_target_script": [], "echoes_prompt": [], "refusal_or_preamble": [], "cut_off": []}


def test_report_md_names_the_failing_ids_and_their_reasons(tmp_path):
    rows = [make_row("r-terms", constraints=["术语对照：原神→Genshin Impact"], constraint_ids=["term_compliance"]),
            make_row("r-ok", constraints=["术语对照：原神→Genshin Impact"], constraint_ids=["term_compliance"]),
            make_row("r-fence", source_text='{"1": "你好"}'),
            make_row("r-missing")]
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    predictions = write_jsonl(tmp_path / "p.jsonl", [
        {"case_id": "r-terms", "prediction": "Genshin"}, {"case_id": "r-ok", "prediction": "Genshin Impact"},
        {"case_id": "r-fence", "prediction": '```json\n{"1": "Hello"}\n```'}, {"case_id": "r-missing", "prediction": ""}])
    out = tmp_path / "out"
    assert evaluate.main(["--data", str(data), "--predictions", str(predictions), "--output-dir", str(out),
                          "--skip-judge", "--quiet"]) == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    section = report[report.index("## Failures"):]
    assert "| `r-terms` | term not found: Genshin Impact |" in section
    assert "`r-ok`" not in section
    assert "| `r-fence` | JSON: not JSON (" in section
    assert "Missing predictions (1): `r-missing`" in section
    assert "- code fence: 1: `r-fence`" in section
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["predictions"]["diagnostic_case_ids"]["code_fence"] == ["r-fence"]
    assert len(summary["predictions"]["sha256"]) == 64


def test_sandglass_failures_rank_the_largest_syllable_misses():
    def item(case_id, target, output, status="ok"):
        dev = abs(output - target) / target
        return ScoreRow.of(case_id=case_id, status=status, hyp=None if status == "missing" else "x " * output,
                           target_syllables=target, hyp_syllables=output, abs_diff=abs(output - target),
                           syllable_reward=1.0 if abs(output - target) <= 1 else max(0.0, 1 - (dev - 0.05) / 0.45),
                           target_language="en", target_kind="natural", quality=None)

    data = failures([item("near", 10, 10), item("far", 10, 20), item("gone", 10, 0, "missing"), item("mid", 10, 13)],
                    bench=SANDGLASS)
    assert data["benchmark"] == "sandglass"
    assert [case["case_id"] for case in data["syllables"]["cases"]] == ["far", "gone", "mid"]
    assert data["syllables"]["cases"][1]["reason"] == "missing prediction"
    assert data["missing"]["case_ids"] == ["gone"]
