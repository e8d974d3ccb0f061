"""Pins where the harness once departed from the original scorer and its metric code, undocumented:
format_preserve's visible text (SPEC §7.1) and three Sandglass metrics."""

from __future__ import annotations

import json

import pytest

import evaluate
from conftest import make_row
from eval.insttrans.rules import HTML_TAG, check_format_preserve, without_tags
from eval.sandglass.metrics import group_stats, quality_gap, score_item
from judge_server import JudgeServer
from test_sandglass import item, make_sg_row
from test_sandglass import judged_files as sandglass_files  # noqa: F401  (a shared fixture)

LATIN = "I love this so much and I will keep saying it " * 4


def html_row(source: str, target: str) -> dict:
    return make_row(source_text=source, target_lang=target, reference=source)


# (name, source, target, prediction, passed): the original removes every `<[^>]+>` match from both
# texts before it counts CJK ideographs, so what a stray `<` swallows is never visible.
RESIDUE_CASES = [
    ("<中文> inside an es sentence", "<span>这局赢定了，冲啊！</span>", "es",
     "<span>¡La partida está ganada, <中文>a por ello!</span>", True),
    ("a comment inside an sv heading", "<h2>产品介绍</h2>", "sv",
     "<h2>Produktintroduktion<!--回把求 c --></h2>", True),
    ("a comment across lines", "<p>第一段</p>", "de", "<p>Erster Absatz<!--\n注释\n--></p>", True),
    ("a stray <3 hides the Latin text", "<p>我爱这个</p>", "en", f"<p>爱 <3 {LATIN}</p>", False),
    ("nothing visible is left in the prediction", "<b>中文</b>", "en", "<b><中文></b>", True),
    ("visible Chinese still fails", "<b>你好</b>", "fr", "<b>Bonjour 你好</b>", False),
    ("ja is never checked", "<b>你好</b>", "ja", "<b>你好</b>", True),
]


@pytest.mark.parametrize("name, source, target, prediction, passed", RESIDUE_CASES, ids=[c[0] for c in RESIDUE_CASES])
def test_untranslated_chinese_reads_the_text_outside_every_angle_span(name, source, target, prediction, passed):
    verdict = check_format_preserve(html_row(source, target), prediction)
    assert verdict.passed is passed, verdict.detail
    assert verdict.detail["html"]["passed"] is passed  # the tag lists agree: the CJK share decides
    if not passed:
        assert verdict.detail["html"]["untranslated_chinese"] is True


@pytest.mark.parametrize("prediction, visible", [
    ("¡ganada, <中文>a por ello!</span>", "¡ganada, a por ello!"),
    ("<h2>Rubrik<!--回把求 c --></h2>", "Rubrik"),
    ("a <3 b > c", "a  c"),
    ("a < b", "a < b"),           # no `>` after it: nothing to remove
    ("<>kept<>", "<>kept<>"),     # `<[^>]+>` needs one character inside
    ("x <a\nhref='y'>z", "x z"),  # across lines
])
def test_without_tags_removes_every_spec_match(prediction, visible):
    assert without_tags(prediction) == visible


def test_the_departed_pattern_would_have_flipped_these_verdicts():
    """The tag pattern alone keeps `<中文>` and comments visible, and shows what a stray `<` hides."""
    assert "中文" in HTML_TAG.sub("", "<span>¡ganada, <中文>a por ello!</span>")
    assert "回把求" in HTML_TAG.sub("", "<h2>Rubrik<!--回把求 c --></h2>")
    assert LATIN in HTML_TAG.sub("", f"<p>爱 <3 {LATIN}</p>")


# --- Sandglass metrics -----------------------------------------------------------------------

def test_quality_gaps_count_only_complete_groups():
    items = [item("a", "short", 9, 9, quality=1.0), item("a", "natural", 12, 12, quality=0.5),
             item("a", "long", 15, 15, quality=0.5),
             item("b", "short", 9, 9, quality=0.0), item("b", "natural", 12, 12, quality=1.0)]  # cut: no long
    assert quality_gap(items, "short") == (0.5, 1)  # each kind with natural on its own would give -0.25
    assert quality_gap(items, "long") == (0.0, 1)
    assert group_stats(items)["q_gap_short_pairs"] == group_stats(items)["slope_groups"] == 1


def test_mean_abs_dev_is_the_mean_of_per_item_devs_rounded_to_six_decimals():
    items = [item("a", "natural", 3, 3), item("b", "natural", 3, 4)]  # dev 0 and 0.333333
    assert group_stats(items)["mean_abs_dev"] == 0.166666  # not round(1/6, 6) = 0.166667


@pytest.mark.parametrize("prediction", [None, "", "   "])
def test_skip_judge_writes_null_quality_score_and_judge_error_on_missing_items(prediction):
    result = score_item(make_sg_row(), prediction, None, None)
    assert (result["quality"], result["score"], result["judge_error"]) == (None, None, None)
    assert (result["status"], result["syllable_reward"], result["hyp_syllables"]) == ("missing", 0.0, 0)


def test_a_limit_that_cuts_a_group_leaves_its_rows_out_of_the_quality_gaps(sandglass_files, monkeypatch):
    data, predictions, out = sandglass_files
    with JudgeServer() as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        assert evaluate.main(["--data", str(data), "--predictions", str(predictions), "--output-dir", str(out),
                              "--judge-backoff", "0.001", "--quiet", "--limit", "5"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    # u1 (en) is complete: short 0.5 − natural 1.0; u2 (ja) lost its long row to --limit
    assert (summary["overall"]["q_gap_short"], summary["overall"]["q_gap_short_pairs"]) == (-0.5, 1)
    assert summary["by_language"]["ja"]["q_gap_short"] is None and summary["by_language"]["ja"]["q_gap_short_pairs"] == 0


def test_a_skip_judge_run_writes_null_for_the_missing_item(sandglass_files):
    data, predictions, out = sandglass_files
    assert evaluate.main(["--data", str(data), "--predictions", str(predictions), "--output-dir", str(out),
                          "--skip-judge", "--quiet"]) == 0
    scores = {s["case_id"]: s for s in map(json.loads, (out / "scores.jsonl").read_text().splitlines())}
    missing = scores["u2:ja:natural"]
    assert missing["status"] == "missing"
    assert (missing["quality"], missing["score"], missing["judge_error"]) == (None, None, None)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    items = list(scores.values())
    assert summary["mean_abs_dev"]["value"] == summary["overall"]["mean_abs_dev"] == round(
        sum(s["dev"] for s in items) / len(items), 6)


def test_the_sandglass_numbers_quoted_in_the_docs_come_from_a_run(tmp_path):
    """docs/release.md quotes `python -m scripts.sandglass_example_numbers`; a rerun must agree."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "out"
    assert evaluate.main(["--data", str(root / "data" / "sandglass" / "test.jsonl"), "--predictions",
                          str(root / "data" / "sandglass" / "example_predictions.jsonl"), "--output-dir", str(out),
                          "--skip-judge", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    text = (root / "docs" / "release.md").read_text(encoding="utf-8")
    quoted = re.search(r"overall slope (\d\.\d{4}), ja (\d\.\d{4}), en (\d\.\d{4}), es (\d\.\d{4}),\s+ar "
                       r"(\d\.\d{4}); mean\|dev\| (\d\.\d{4}) overall", text)
    assert quoted, "docs/release.md no longer quotes the example numbers"
    measured = [summary["overall"]["slope"]] + [summary["by_language"][lang]["slope"] for lang in ("ja", "en", "es", "ar")]
    measured.append(summary["overall"]["mean_abs_dev"])
    assert [f"{value:.4f}" for value in measured] == list(quoted.groups())
