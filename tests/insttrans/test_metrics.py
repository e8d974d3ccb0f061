"""The aggregation (SPEC §9, §11) pinned to numbers worked out by hand on five instances, and the
bootstrap pinned to exact intervals (its seed, sample count and percentiles are part of the
published numbers: the signature records them)."""

from __future__ import annotations

import numpy
import pytest

from eval.insttrans.metrics import breakdowns, by_constraint, group_metrics
from eval.scoring.stats import BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED, bootstrap_ci, headline, mean_or_none


def score(case_id, pair, scenario, domain, verdicts, if_score, quality):
    """A scores.jsonl row; `verdicts` maps each id to passed (hard, a bool) or score (soft)."""
    source_lang, target_lang = pair.split("-")
    constraints = [{"index": index, "id": cid, "kind": "hard" if isinstance(value, bool) else "soft",
                    **({"passed": value} if isinstance(value, bool) else {"score": value})}
                   for index, (cid, value) in enumerate(verdicts.items(), 1)]
    hard_pass = all(entry["passed"] for entry in constraints if entry["kind"] == "hard")
    return {"case_id": case_id, "source_lang": source_lang, "target_lang": target_lang, "scenario": scenario,
            "domain": domain, "constraint_ids": list(verdicts), "constraints": constraints, "hard_pass": hard_pass,
            "if_score": if_score, "quality": quality}


# Five instances; the expected numbers below are worked out from this table by hand.
#   s1 zh-en social/评论       format ✓ term ✓                 if 1.0  quality 1.0
#   s2 zh-en social/评论       format ✗                        if 0.0  quality 0.5
#   s3 en-zh novel/小说        format ✓ style 0.5              if 0.5  quality 1.0
#   s4 zh-ja novel/小说        format ✓ style 1.0 coref 0.0    if 0.5  quality 0.0
#   s5 zh-en doc_textbook/书籍 layout ✗                        if 0.0  quality 0.5
SCORES = [
    score("s1", "zh-en", "social", "评论", {"format_preserve": True, "term_compliance": True}, 1.0, 1.0),
    score("s2", "zh-en", "social", "评论", {"format_preserve": False}, 0.0, 0.5),
    score("s3", "en-zh", "novel", "小说", {"format_preserve": True, "style_consistency": 0.5}, 0.5, 1.0),
    score("s4", "zh-ja", "novel", "小说",
          {"format_preserve": True, "style_consistency": 1.0, "coref_resolution": 0.0}, 0.5, 0.0),
    score("s5", "zh-en", "doc_textbook", "书籍", {"layout_break": False}, 0.0, 0.5),
]


def test_by_constraint_on_the_five_instances():
    # format_preserve: 3 of 4 pass; style: mean(0.5, 1.0); ids in SPEC §4 order, absent ids left out
    assert list(by_constraint(SCORES).items()) == [
        ("format_preserve", {"kind": "hard", "n": 4, "pass_rate": 0.75}),
        ("term_compliance", {"kind": "hard", "n": 1, "pass_rate": 1.0}),
        ("layout_break", {"kind": "hard", "n": 1, "pass_rate": 0.0}),
        ("style_consistency", {"kind": "soft", "n": 2, "mean": 0.75}),
        ("coref_resolution", {"kind": "soft", "n": 1, "mean": 0.0}),
    ]


def test_by_constraint_without_the_judge_keeps_hard_rates_and_nulls_soft_means():
    result = by_constraint(SCORES, judged=False)
    assert result["format_preserve"] == {"kind": "hard", "n": 4, "pass_rate": 0.75}
    assert result["style_consistency"] == {"kind": "soft", "n": 2, "mean": None}
    assert result["coref_resolution"] == {"kind": "soft", "n": 1, "mean": None}


def test_a_soft_mean_with_an_unknown_score_is_null():
    scores = [score("a", "zh-en", "novel", "小说", {"style_consistency": None}, None, None),
              score("b", "zh-en", "novel", "小说", {"style_consistency": 1.0}, 1.0, 1.0)]
    assert by_constraint(scores)["style_consistency"] == {"kind": "soft", "n": 2, "mean": None}


def test_pass_rates_are_rounded_to_six_places():
    scores = [score(f"x{i}", "zh-en", "novel", "小说", {"format_preserve": i == 0}, 1.0, 1.0) for i in range(3)]
    assert by_constraint(scores)["format_preserve"]["pass_rate"] == 0.333333
    assert group_metrics(scores, lambda s: ["all"])["all"] == {"n": 3, "if_score": 1.0, "quality": 1.0,
                                                               "hard_pass_rate": 0.333333}


EXPECTED_GROUPS = {
    "by_scenario": [
        ("novel", {"n": 2, "if_score": 0.5, "quality": 0.5, "hard_pass_rate": 1.0}),
        ("social", {"n": 2, "if_score": 0.5, "quality": 0.75, "hard_pass_rate": 0.5}),
        ("doc_textbook", {"n": 1, "if_score": 0.0, "quality": 0.5, "hard_pass_rate": 0.0}),
    ],
    "by_domain": [
        ("小说", {"n": 2, "if_score": 0.5, "quality": 0.5, "hard_pass_rate": 1.0}),
        ("评论", {"n": 2, "if_score": 0.5, "quality": 0.75, "hard_pass_rate": 0.5}),
        ("书籍", {"n": 1, "if_score": 0.0, "quality": 0.5, "hard_pass_rate": 0.0}),
    ],
    "by_language_pair": [
        ("zh-en", {"n": 3, "if_score": 0.333333, "quality": 0.666667, "hard_pass_rate": 0.333333}),
        ("en-zh", {"n": 1, "if_score": 0.5, "quality": 1.0, "hard_pass_rate": 1.0}),
        ("zh-ja", {"n": 1, "if_score": 0.5, "quality": 0.0, "hard_pass_rate": 1.0}),
    ],
    "by_target_lang": [
        ("en", {"n": 3, "if_score": 0.333333, "quality": 0.666667, "hard_pass_rate": 0.333333}),
        ("ja", {"n": 1, "if_score": 0.5, "quality": 0.0, "hard_pass_rate": 1.0}),
        ("zh", {"n": 1, "if_score": 0.5, "quality": 1.0, "hard_pass_rate": 1.0}),
    ],
    "by_constraint_count": [
        ("1", {"n": 2, "if_score": 0.0, "quality": 0.5, "hard_pass_rate": 0.0}),
        ("2", {"n": 2, "if_score": 0.75, "quality": 1.0, "hard_pass_rate": 1.0}),
        ("3", {"n": 1, "if_score": 0.5, "quality": 0.0, "hard_pass_rate": 1.0}),
    ],
}


@pytest.mark.parametrize("name", EXPECTED_GROUPS)
def test_each_group_breakdown_on_the_five_instances(name):
    """Groups in order of size, ties by name; every number worked out from the table above."""
    assert list(breakdowns(SCORES)[name].items()) == EXPECTED_GROUPS[name]


@pytest.mark.parametrize("name", EXPECTED_GROUPS)
def test_without_the_judge_every_group_keeps_n_and_hard_pass_rate_and_nulls_the_rest(name):
    result = breakdowns(SCORES, judged=False)[name]
    assert list(result.items()) == [(group, {**entry, "if_score": None, "quality": None})
                                    for group, entry in EXPECTED_GROUPS[name]]


def test_breakdowns_carry_every_section_11_table():
    assert list(breakdowns(SCORES)) == ["by_constraint", "by_scenario", "by_domain", "by_language_pair",
                                        "by_target_lang", "by_constraint_count"]


def test_a_group_with_an_unknown_if_score_is_null_even_when_judged():
    scores = [score("a", "zh-en", "novel", "小说", {"format_preserve": True}, 1.0, 1.0),
              score("b", "zh-en", "novel", "小说", {"format_preserve": True, "style_consistency": None}, None, None)]
    assert group_metrics(scores, lambda s: [s["scenario"]]) == {
        "novel": {"n": 2, "if_score": None, "quality": None, "hard_pass_rate": 1.0}}


def test_an_instance_in_several_groups_counts_in_each():
    groups = group_metrics(SCORES, lambda s: s["constraint_ids"])
    assert groups["format_preserve"] == {"n": 4, "if_score": 0.5, "quality": 0.625, "hard_pass_rate": 0.75}
    assert list(groups) == ["format_preserve", "style_consistency", "coref_resolution", "layout_break",
                            "term_compliance"]


# --- headline numbers -------------------------------------------------------------------------

def test_headlines_on_the_five_instances():
    # if_score mean(1, 0, .5, .5, 0) = 0.4; quality mean(1, .5, 1, 0, .5) = 0.6; hard_pass 3 of 5
    assert headline(SCORES, "if_score") == {"value": 0.4, "ci95": [0.1, 0.7], "n": 5}
    assert headline(SCORES, "quality") == {"value": 0.6, "ci95": [0.3, 0.9], "n": 5}
    assert headline(SCORES, "hard_pass") == {"value": 0.6, "ci95": [0.2, 1.0], "n": 5}


def test_a_headline_not_measured_is_null_with_its_n():
    assert headline(SCORES, "if_score", known=False) == {"value": None, "ci95": None, "n": 5}
    assert headline(SCORES, "hard_pass", known=False) == {"value": None, "ci95": None, "n": 5}


def test_a_headline_with_one_unknown_value_is_null():
    scores = [dict(SCORES[0]), {**SCORES[1], "quality": None}]
    assert headline(scores, "quality") == {"value": None, "ci95": None, "n": 2}


def test_a_headline_value_is_rounded_to_six_places():
    scores = [{**SCORES[0], "if_score": value} for value in (1.0, 0.0, 0.0)]
    assert headline(scores, "if_score")["value"] == 0.333333


@pytest.mark.parametrize("values, mean", [([1.0, 0.0], 0.5), ([0.5], 0.5), ([1, 1, 0, 0, 0], 0.4), ([], None),
                                          ([1.0, None], None), ([None], None), ([0.0, 0.0], 0.0)])
def test_mean_or_none(values, mean):
    assert mean_or_none(values) == mean


# --- the bootstrap --------------------------------------------------------------------------

GOLDEN = [round((k * 0.6180339887) % 1, 4) for k in range(1, 41)]  # 40 spread values: no ties among the means


def test_the_bootstrap_constants_are_the_published_ones():
    assert (BOOTSTRAP_SEED, BOOTSTRAP_SAMPLES) == (20260929, 1000)


def test_the_bootstrap_interval_is_pinned_exactly():
    assert bootstrap_ci(GOLDEN) == [0.40382, 0.586906]


def test_the_bootstrap_is_a_percentile_interval_of_resampled_means():
    """The same numbers from a plain restatement: 1000 resamples in one draw, 2.5th and 97.5th
    percentiles (the chunks of 100 in the module only bound memory)."""
    data = numpy.asarray(GOLDEN)
    rng = numpy.random.default_rng(20260929)
    means = data[rng.integers(0, len(data), size=(1000, len(data)))].mean(axis=1)
    low, high = numpy.percentile(means, [2.5, 97.5])
    assert bootstrap_ci(GOLDEN) == [round(float(low), 6), round(float(high), 6)]


@pytest.mark.parametrize("samples, seed, expected", [
    (999, 20260929, [0.403801, 0.586949]),
    (1001, 20260929, [0.40384, 0.586862]),
    (1000, 20260928, [0.406901, 0.587453]),
    (1000, 20260930, [0.406671, 0.579785]),
])
def test_the_interval_moves_with_the_sample_count_and_the_seed(samples, seed, expected):
    assert bootstrap_ci(GOLDEN, samples=samples, seed=seed) == expected


def test_the_interval_lies_around_the_mean_and_inside_the_range():
    low, high = bootstrap_ci(GOLDEN)
    assert min(GOLDEN) < low < sum(GOLDEN) / len(GOLDEN) < high < max(GOLDEN)


@pytest.mark.parametrize("values, interval", [([5.0], [5.0, 5.0]), ([1.0, 1.0, 1.0], [1.0, 1.0]),
                                              ([], None), ([1.0, None], None), ([None], None)])
def test_bootstrap_edge_cases(values, interval):
    assert bootstrap_ci(values) == interval


def test_the_bootstrap_is_the_same_on_every_call():
    assert bootstrap_ci(GOLDEN) == bootstrap_ci(list(GOLDEN)) == bootstrap_ci(tuple(GOLDEN))


# --- the same numbers from a whole run on a small file -----------------------------------------

def test_a_skip_judge_run_on_five_rows_gives_the_breakdowns_worked_out_by_hand(tmp_path):
    """a ✓, b ✗ (social element lost), c ✓ (plus a soft id), d ✗ (newline lost), e missing."""
    import json

    import evaluate
    from conftest import make_row, write_jsonl

    rows = [
        make_row("a"),
        make_row("b", source_text="你好 #tag#", reference="Hi #tag#",
                 constraints=["保留以下社交元素，不得翻译或改动：#tag#"], constraint_ids=["social_preserve"]),
        make_row("c", source_lang="en", target_lang="zh", source_text="Hello", reference="你好", scenario="novel",
                 domain="小说", constraints=["保持原文格式", "译文语体：正式"],
                 constraint_ids=["format_preserve", "style_consistency"], style={"formality": "formal"}),
        make_row("d", target_lang="ja", source_text="第一行\n第二行", reference="一行目\n二行目",
                 scenario="doc_textbook", domain="书籍", constraints=["保持原文排版：换行不变"],
                 constraint_ids=["layout_break"]),
        make_row("e", scenario="novel", domain="小说"),
    ]
    predictions = [{"case_id": "a", "prediction": "Hello, world"}, {"case_id": "b", "prediction": "Hi"},
                   {"case_id": "c", "prediction": "你好"}, {"case_id": "d", "prediction": "一行目 二行目"},
                   {"case_id": "e", "prediction": None}]
    data, preds, out = write_jsonl(tmp_path / "d.jsonl", rows), write_jsonl(tmp_path / "p.jsonl", predictions), \
        tmp_path / "o"
    assert evaluate.main(["--data", str(data), "--predictions", str(preds), "--output-dir", str(out), "--skip-judge",
                          "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["hard_pass_rate"] == {"value": 0.4, "ci95": [0.0, 0.8], "n": 5}
    assert summary["if_score"] == {"value": None, "ci95": None, "n": 5}
    original = [(cid, {key: value for key, value in entry.items() if not key.endswith("_strict")})
                for cid, entry in summary["by_constraint"].items()]  # the strict rates beside are §7b's
    assert original == [
        ("format_preserve", {"kind": "hard", "n": 3, "pass_rate": 0.666667}),   # a ✓, c ✓, e missing
        ("social_preserve", {"kind": "hard", "n": 1, "pass_rate": 0.0}),
        ("layout_break", {"kind": "hard", "n": 1, "pass_rate": 0.0}),
        ("style_consistency", {"kind": "soft", "n": 1, "mean": None}),
    ]

    def groups(name):
        return [(group, entry["n"], entry["hard_pass_rate"], entry["if_score"], entry["quality"])
                for group, entry in summary[name].items()]

    assert groups("by_scenario") == [("novel", 2, 0.5, None, None), ("social", 2, 0.5, None, None),
                                     ("doc_textbook", 1, 0.0, None, None)]
    assert groups("by_domain") == [("小说", 2, 0.5, None, None), ("评论", 2, 0.5, None, None),
                                   ("书籍", 1, 0.0, None, None)]
    assert groups("by_language_pair") == [("zh-en", 3, 0.333333, None, None), ("en-zh", 1, 1.0, None, None),
                                          ("zh-ja", 1, 0.0, None, None)]
    assert groups("by_target_lang") == [("en", 3, 0.333333, None, None), ("ja", 1, 0.0, None, None),
                                        ("zh", 1, 1.0, None, None)]
    assert groups("by_constraint_count") == [("1", 4, 0.25, None, None), ("2", 1, 1.0, None, None)]


def test_the_cards_metrics_module_is_a_face_over_the_two_it_stands_for():
    import eval.insttrans.metrics
    import eval.metrics
    import eval.scoring.stats

    for name in eval.metrics.__all__:
        assert getattr(eval.metrics, name) is getattr(eval.scoring.stats, name, None) or \
            getattr(eval.metrics, name) is getattr(eval.insttrans.metrics, name)
