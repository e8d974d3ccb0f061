"""One instance's score row (SPEC §9, §11): the gate × mean algebra with one, two and three soft
ids, the missing case, the skipped Judge, and every field of the row."""

from __future__ import annotations

import pytest

from conftest import make_row
from eval.insttrans.rules import CONSTRAINTS
from eval.insttrans.scoring import score_instance
from eval.insttrans.verdicts import JudgeResult
from eval.scoring.rule_contract import ScoringContext, Verdict
from eval.scoring.score_rows import missing_detail

MISSING_DETAIL = {"reason": "missing prediction (null, empty or whitespace only, or no line)"}
SOFT3 = ["style_consistency", "term_cross_sentence", "coref_resolution"]


def row_with(ids: list[str], **fields) -> dict:
    lines = {"format_preserve": "保持原文格式", "social_preserve": "保留以下社交元素，不得翻译或改动：#tag#",
             "style_consistency": "译文语体：正式", "term_cross_sentence": "跨句术语一致：「模型」全文统一",
             "coref_resolution": "指代一致：文中的\"她\"均指林晓",
             "context_disambiguate": "歧义消解：文中的\"苹果\"指手机品牌"}
    return make_row("c1", source_text="你好 #tag#", reference="Hello #tag#", constraints=[lines[cid] for cid in ids],
                    constraint_ids=ids, scenario="novel", domain="小说", **fields)


def judge(quality: float, **soft: float) -> JudgeResult:
    return JudgeResult(quality=quality, soft=soft)


SOFT_MEANS = [
    # (hard ids + soft ids, soft scores, hard passes?, soft_mean, if_score)
    ("one soft id", ["format_preserve", "style_consistency"], {"style_consistency": 0.5}, True, 0.5, 0.5),
    ("two soft ids", ["format_preserve", "style_consistency", "coref_resolution"],
     {"style_consistency": 1.0, "coref_resolution": 0.5}, True, 0.75, 0.75),
    ("three soft ids", ["format_preserve", *SOFT3],
     {"style_consistency": 1.0, "term_cross_sentence": 0.5, "coref_resolution": 0.0}, True, 0.5, 0.5),
    ("three soft ids, all 1", SOFT3, {cid: 1.0 for cid in SOFT3}, True, 1.0, 1.0),
    ("three soft ids, all 0.5", SOFT3, {cid: 0.5 for cid in SOFT3}, True, 0.5, 0.5),
    ("two soft ids behind a failed gate", ["social_preserve", "style_consistency", "coref_resolution"],
     {"style_consistency": 1.0, "coref_resolution": 0.5}, False, 0.75, 0.0),
    ("no soft id: the mean is 1", ["format_preserve"], {}, True, 1.0, 1.0),
    ("no soft id behind a failed gate", ["social_preserve"], {}, False, 1.0, 0.0),
]


@pytest.mark.parametrize("name, ids, soft, hard_pass, soft_mean, if_score", SOFT_MEANS,
                         ids=[case[0] for case in SOFT_MEANS])
def test_soft_mean_and_if_score(name, ids, soft, hard_pass, soft_mean, if_score):
    prediction = "Hello #tag#" if hard_pass else "Hello"  # the social element kept, or lost
    scored = score_instance(row_with(ids), prediction, judge(0.5, **soft))
    assert scored["hard_pass"] is hard_pass
    assert scored["soft_mean"] == soft_mean
    assert scored["if_score"] == if_score
    assert scored["quality"] == 0.5
    assert [entry.get("score") for entry in scored["constraints"] if entry["kind"] == "soft"] == list(soft.values())


def test_the_full_row_of_a_judged_instance():
    row = row_with(["social_preserve", "style_consistency", "coref_resolution"], style={"formality": "formal"})
    replies = {"quality": {"cache_key": "kq", "reply": '{"quality": 1}'},
               "soft": {"cache_key": "ks", "reply": '{"scores": {"style_consistency": 0.5, "coref_resolution": 1}}'}}
    result = JudgeResult(quality=1.0, soft={"style_consistency": 0.5, "coref_resolution": 1.0}, replies=replies)
    scored = score_instance(row, "Hello #tag#", result)
    assert scored == {
        "case_id": "c1", "source_lang": "zh", "target_lang": "en", "scenario": "novel", "domain": "小说",
        "constraint_ids": ["social_preserve", "style_consistency", "coref_resolution"],
        "status": "ok",
        "constraints": [
            {"index": 1, "id": "social_preserve", "kind": "hard", "passed": True,
             "detail": {"elements": ["#tag#"], "missing": []}},
            {"index": 2, "id": "style_consistency", "kind": "soft", "score": 0.5,
             "detail": {"judge": "soft-constraint verdict", **replies["soft"]}},
            {"index": 3, "id": "coref_resolution", "kind": "soft", "score": 1.0,
             "detail": {"judge": "soft-constraint verdict", **replies["soft"]}},
        ],
        "hard_pass": True, "soft_mean": 0.75, "if_score": 0.75, "quality": 1.0,
        "quality_detail": replies["quality"],
    }
    assert scored["constraint_ids"] is not row["constraint_ids"]  # a copy: the row is never shared


def test_a_failed_hard_rule_keeps_its_detail_and_zeroes_if_score_only():
    scored = score_instance(row_with(["social_preserve", "style_consistency"]), "Hello",
                            judge(1.0, style_consistency=1.0))
    assert scored["constraints"][0] == {"index": 1, "id": "social_preserve", "kind": "hard", "passed": False,
                                        "detail": {"elements": ["#tag#"], "missing": ["#tag#"]}}
    assert (scored["hard_pass"], scored["soft_mean"], scored["if_score"], scored["quality"]) == (False, 1.0, 0.0, 1.0)


def test_every_hard_rule_must_pass():
    row = row_with(["format_preserve", "social_preserve"])
    assert score_instance(row, "Hello #tag#", None)["hard_pass"] is True
    assert score_instance(row, "Hello", None)["hard_pass"] is False
    row = row_with(["social_preserve", "format_preserve"])
    assert score_instance(row, "Hello", None)["hard_pass"] is False


@pytest.mark.parametrize("prediction", [None, "", "  \n\t"])
@pytest.mark.parametrize("with_judge", [True, False])
def test_a_missing_prediction_scores_zero_everywhere(prediction, with_judge):
    row = row_with(["format_preserve", "style_consistency", "coref_resolution"])
    scored = score_instance(row, prediction, judge(1.0, style_consistency=1.0, coref_resolution=1.0)
                            if with_judge else None)
    assert scored["status"] == "missing"
    assert scored.to_dict()["constraints"] == [
        {"index": 1, "id": "format_preserve", "kind": "hard", "passed": False, "detail": MISSING_DETAIL},
        {"index": 2, "id": "style_consistency", "kind": "soft", "score": 0.0, "detail": MISSING_DETAIL},
        {"index": 3, "id": "coref_resolution", "kind": "soft", "score": 0.0, "detail": MISSING_DETAIL},
    ]
    assert (scored["hard_pass"], scored["soft_mean"], scored["if_score"], scored["quality"]) == (False, 0.0, 0.0, 0.0)
    assert all(isinstance(scored[field], float) for field in ("soft_mean", "if_score", "quality"))


def test_a_missing_prediction_with_only_hard_ids_is_not_a_pass():
    scored = score_instance(row_with(["format_preserve"]), None, None)
    assert (scored["hard_pass"], scored["soft_mean"], scored["if_score"]) == (False, 0.0, 0.0)
    assert missing_detail() == MISSING_DETAIL


def test_without_the_judge_soft_scores_and_quality_are_null():
    scored = score_instance(row_with(["format_preserve", "style_consistency", "coref_resolution"]), "Hello", None)
    assert [entry for entry in scored["constraints"] if entry["kind"] == "soft"] == [
        {"index": 2, "id": "style_consistency", "kind": "soft", "score": None,
         "detail": {"reason": "Judge skipped (--skip-judge)"}},
        {"index": 3, "id": "coref_resolution", "kind": "soft", "score": None,
         "detail": {"reason": "Judge skipped (--skip-judge)"}},
    ]
    assert (scored["status"], scored["hard_pass"], scored["soft_mean"], scored["if_score"], scored["quality"]) == \
        ("ok", True, None, None, None)


def test_without_the_judge_if_score_is_exact_when_there_is_no_soft_id():
    passed = score_instance(row_with(["format_preserve", "social_preserve"]), "Hello #tag#", None)
    failed = score_instance(row_with(["format_preserve", "social_preserve"]), "Hello", None)
    assert (passed["soft_mean"], passed["if_score"], passed["quality"]) == (1.0, 1.0, None)
    assert (failed["soft_mean"], failed["if_score"], failed["quality"]) == (1.0, 0.0, None)
    assert isinstance(passed["if_score"], float)


def test_the_rule_set_chooses_the_hard_rule(monkeypatch):
    seen = []

    def strict_social(row, prediction, context):
        seen.append(prediction)
        return Verdict(False, "stand-in", {"rule": "stand-in"})

    rules = CONSTRAINTS["social_preserve"].rules
    monkeypatch.setitem(rules, "stand-in", {version: strict_social for version in rules["original"]})
    scored = score_instance(row_with(["social_preserve"]), "Hello #tag#", None, ScoringContext(rule_set="stand-in"))
    assert seen == ["Hello #tag#"]
    assert scored["constraints"][0]["detail"] == {"rule": "stand-in"} and scored["hard_pass"] is False
    assert score_instance(row_with(["social_preserve"]), "Hello #tag#", None)["hard_pass"] is True


def test_a_missing_prediction_with_only_soft_ids_is_not_a_hard_pass():
    """No hard rule to fail, yet a missing instance passes no gate (SPEC §6)."""
    scored = score_instance(row_with(["style_consistency", "coref_resolution"]), None, None)
    assert (scored["hard_pass"], scored["soft_mean"], scored["if_score"], scored["quality"]) == (False, 0.0, 0.0, 0.0)
    scored = score_instance(row_with(["style_consistency"]), "Hello", judge(1.0, style_consistency=1.0))
    assert scored["hard_pass"] is True and scored["if_score"] == 1.0
