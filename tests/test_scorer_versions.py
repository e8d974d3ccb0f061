"""Scorer versions (SPEC §7c): each difference between public-v1 and 2026-10-05 as a table of
cases with both versions' verdicts, the version tables themselves, the flag, the summary, the
signature and compare, and the differential fuzz's machinery against a synthetic scorer folder."""

from __future__ import annotations

import json
import random
import re
import textwrap
import time
from pathlib import Path

import pytest

from conftest import make_row

from eval.errors import CompareError, ConfigError
from eval.insttrans.rules import (HARD_IDS, RULE_SETS, RULE_TABLE, markdown_triggered_1005, visible_text_1005,
                                  without_code_elements)
from eval.insttrans.scorer_versions import DEFAULT_SCORER_VERSION, SCORER_VERSIONS
from eval.insttrans.rules import PUBLIC_V1, V2026_10_05
from eval.scoring.rule_contract import ScoringContext

ROOT = Path(__file__).resolve().parent.parent
FORMAT = "format_preserve"
LAYOUT = "layout_break"
TERM = "term_compliance"
SYLLABLE = "syllable_order"


def check_hard(cid: str, prediction: str, row: dict, scorer_version: str | None = None):
    """One rule of the original set at a scorer version (None: the newest), read off the one table."""
    return RULE_TABLE.check(cid, row, prediction, ScoringContext(scorer_version=scorer_version))


def row_for(cid: str, **fields) -> dict:
    lines = {TERM: ["术语对照：模型→GPT-4"], LAYOUT: ["排版：保持换行与缩进"]}.get(cid, ["保持原文格式"])
    return make_row(**{"constraints": lines, "constraint_ids": [cid], **fields})


# (name, constraint id, row fields, prediction, public-v1 passes, 2026-10-05 passes)
DIFFERENCES = [
    # format_preserve: the Markdown trigger
    ("md_italic_only_source_lost", FORMAT, {"source_text": "这是*重点*内容"}, "This is key content", True, False),
    ("md_italic_only_source_kept", FORMAT, {"source_text": "这是*重点*内容"}, "This is *key* content", True, True),
    ("md_ordered_list_source_lost", FORMAT, {"source_text": "1. 第一步\n2. 第二步"}, "First step\nSecond step",
     True, False),
    ("md_ordered_list_source_kept", FORMAT, {"source_text": "1. 第一步\n2. 第二步"}, "1. First\n2. Second", True, True),
    ("md_pipe_table_source_lost", FORMAT, {"source_text": "|名称|值|\n|甲|乙|"}, "name value\na b", True, False),
    ("md_pipe_table_source_kept", FORMAT, {"source_text": "|名称|值|\n|甲|乙|"}, "|name|value|\n|a|b|", True, True),
    ("md_bold_source_lost_both", FORMAT, {"source_text": "**注意**：别动"}, "Note: do not touch", False, False),
    # format_preserve: placeholders
    ("ph_price_dropped", FORMAT, {"source_text": "价格 $100"}, "price: 100 dollars", False, True),
    ("ph_positional_dollar_dropped", FORMAT, {"source_text": "第 $1 项"}, "item one", False, True),
    ("ph_dollar_name_dropped", FORMAT, {"source_text": "你好 $name"}, "Hello name", True, False),
    ("ph_dollar_name_kept", FORMAT, {"source_text": "你好 $name"}, "Hello $name", True, True),
    ("ph_named_printf_dropped", FORMAT, {"source_text": "你好 %(user)s"}, "Hello user", True, False),
    ("ph_named_printf_kept", FORMAT, {"source_text": "你好 %(user)s"}, "Hello %(user)s", True, True),
    ("ph_latex_math_reworded", FORMAT, {"source_text": "其中 $k$ 为常数"}, "where k is a constant", True, False),
    ("ph_latex_math_kept", FORMAT, {"source_text": "其中 $k$ 为常数"}, "where $k$ is a constant", True, True),
    ("ph_printf_dropped_both", FORMAT, {"source_text": "共 %d 条"}, "items in all", False, False),
    # format_preserve: script/style text before the untranslated-Chinese share
    ("html_chinese_inside_script", FORMAT,
     {"source_text": "<p>你好</p><script>var 提示 = '你好';</script>"},
     "<p>Hello</p><script>var 提示 = '你好';</script>", False, True),
    ("html_chinese_inside_style_any_case", FORMAT,
     {"source_text": "<p>你好</p><STYLE>.标题{}</STYLE>"}, "<p>Hello</p><STYLE>.标题{}</STYLE>", False, True),
    ("html_chinese_outside_script", FORMAT,
     {"source_text": "<p>你好</p><script>x()</script>"}, "<p>你好</p><script>x()</script>", False, False),
    ("html_unclosed_script_keeps_its_text", FORMAT,
     {"source_text": "<p>你好</p><script>"}, "<p>Hello</p><script>var 提示 = 1", False, False),
    # layout_break: the indent of the first line only
    ("indent_prediction_opens_with_a_line_break", LAYOUT,
     {"source_text": "第一行", "constraints": ["排版：保持缩进"]}, "\nline one", False, True),
    ("indent_source_opens_with_a_line_break", LAYOUT,
     {"source_text": "\n第一行", "constraints": ["排版：保持缩进"]}, "line one", False, True),
    ("indent_both_spaces", LAYOUT, {"source_text": "  第一行", "constraints": ["排版：保持缩进"]}, "  line one",
     True, True),
    ("indent_lost", LAYOUT, {"source_text": "\u3000\u3000第一行", "constraints": ["排版：保持缩进"]}, "line one",
     False, False),
    # term_compliance: no-space scripts
    ("term_latin_glued_to_han", TERM, {}, "我用GPT-4写代码", False, True),
    ("term_latin_glued_to_hangul", TERM, {"target_lang": "ko"}, "GPT-4는 좋다", False, True),
    ("term_latin_glued_to_kana", TERM, {"target_lang": "ja"}, "GPT-4を使う", False, True),
    ("term_latin_glued_to_thai", TERM, {"target_lang": "th"}, "ใช้GPT-4ดี", False, True),
    ("term_latin_glued_to_cjk_punct", TERM, {}, "「GPT-4」", True, True),
    ("term_latin_inside_latin_word", TERM, {}, "GPT-4s are here", False, False),
    ("term_latin_after_digit", TERM, {}, "2GPT-4", False, False),
    ("term_hangul_with_particle", TERM, {"constraints": ["术语对照：原神→원신"], "target_lang": "ko"},
     "나는 원신을 사랑해", False, True),
    ("term_thai_inside_a_word", TERM, {"constraints": ["术语对照：泰语→ไทย"], "target_lang": "th"}, "ภาษาไทยดี",
     False, True),
    ("term_cjk_punct_only_term", TERM, {"constraints": ["术语对照：句号→〆x"]}, "a〆xb", False, True),
    ("term_latin_umlaut_inside_a_word", TERM, {"constraints": ["术语对照：油→Öl"], "target_lang": "de"},
     "Ölüberfluss", False, False),
    # syllable_order: keys 1..N
    ("syllable_one_duration_key_missing", SYLLABLE, {"duration_s": [1.0]}, "{}", True, False),
    ("syllable_empty_object", SYLLABLE, {"duration_s": [2.0, 1.0]}, "{}", True, False),
    ("syllable_blank_line", SYLLABLE, {"duration_s": [2.0, 1.0]}, '{"1": "a long line of text", "2": "  "}',
     True, False),
    ("syllable_null_line", SYLLABLE, {"duration_s": [2.0, 1.0]}, '{"1": "a long line of text", "2": null}',
     True, False),
    ("syllable_false_line", SYLLABLE, {"duration_s": [2.0, 1.0]}, '{"1": "a long line of text", "2": false}',
     True, False),
    ("syllable_number_line", SYLLABLE, {"duration_s": [2.0, 1.0]}, '{"1": "a long line of text", "2": 5}',
     False, False),
    ("syllable_ordered_lines", SYLLABLE, {"duration_s": [2.0, 1.0]}, '{"1": "a long line of text", "2": "short"}',
     True, True),
    ("syllable_inverted_lines", SYLLABLE, {"duration_s": [1.0, 2.0]}, '{"1": "a long line of text", "2": "short"}',
     False, False),
]


@pytest.mark.parametrize("name, cid, fields, prediction, v1, v1005", DIFFERENCES, ids=[case[0] for case in DIFFERENCES])
def test_each_difference_under_both_versions(name, cid, fields, prediction, v1, v1005):
    row = row_for(cid, **fields)
    for version, expected in ((PUBLIC_V1, v1), (V2026_10_05, v1005)):
        verdict = check_hard(cid, prediction, row, scorer_version=version)
        assert verdict.passed is expected, (version, verdict.detail)
        json.dumps(verdict.detail, ensure_ascii=False)
    assert check_hard(cid, prediction, row).passed is v1005  # the default is the newest


def test_a_lone_double_star_starts_the_markdown_check_only_in_public_v1():
    row = row_for(FORMAT, source_text="5 ** 2 等于 25")
    assert check_hard(FORMAT, "5 squared is 25", row, scorer_version=PUBLIC_V1).detail["parts"] == ["markdown"]
    assert check_hard(FORMAT, "5 squared is 25", row, scorer_version=V2026_10_05).detail["parts"] == []


def test_the_new_syllable_failure_names_the_line():
    detail = check_hard(SYLLABLE, '{"1": "x"}', row_for(SYLLABLE, duration_s=[1.0, 2.0])).detail
    assert detail == {"error": 'line "2" is missing', "line": 2}


def test_every_version_has_a_rule_for_every_hard_id_and_the_default_is_the_newest():
    assert list(SCORER_VERSIONS) == [V2026_10_05, PUBLIC_V1] and DEFAULT_SCORER_VERSION == V2026_10_05
    for table in SCORER_VERSIONS.values():
        assert set(table.rules) == set(HARD_IDS)
    assert RULE_SETS["original"] == SCORER_VERSIONS[DEFAULT_SCORER_VERSION].rules
    assert SCORER_VERSIONS[PUBLIC_V1].published < SCORER_VERSIONS[V2026_10_05].published


# --- the linear readings equal the patterns they stand for --------------------------------------

CODE_ELEMENT = re.compile(r"<(script|style)\b[^>]*>.*?</\1>", re.IGNORECASE | re.DOTALL)
TRIGGER_1005 = re.compile(r"^#{1,6}\s|\*\*[^*]+\*\*|\*[^*]+\*|`|^[-*+]\s|^\d+\.\s|^>\s|\[.*?\]\(.*?\)|\|.*\|",
                          re.MULTILINE)


def test_without_code_elements_equals_the_pattern_on_random_text():
    rng = random.Random(30)
    pieces = ["<script>", "</script>", "<STYLE a=1>", "</style>", "</Script>", "<scripts>", "<script", ">", "x",
              "中", "\n", "</script >", "<style>", "<", "<ſcript>", "</ſtyle>", "<scrİpt>", "</scrİpt>", "</SCRıPT>",
              "<ſtyle>", "</ſcript>", "<scrıpt>"]
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert without_code_elements(text) == CODE_ELEMENT.sub(" ", text), text


def test_the_markdown_trigger_equals_the_pattern_on_random_text():
    rng = random.Random(5)
    pieces = ["*", "**", "a", " ", "\n", "1. ", "# ", "|", "`", "[", "](", ")", "> ", "- ", "1.", "#"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        assert markdown_triggered_1005(text) is (TRIGGER_1005.search(text) is not None), text


DEGENERATE_1005 = {  # model output built to make a scanner rescan: openers with no closer, no ">" until the end
    "script openers": lambda n: "<script>" * n,
    "style openers without >": lambda n: "<style" * n + ">",
    "script openers, a style closer": lambda n: "<script>中" * n + "</style>",
    "stars": lambda n: "*a" * n,
}


def _reading_cost(text: str) -> float:
    """The thread's CPU seconds of both 2026-10-05 readings of `text`, the better of two tries."""
    best = float("inf")
    for _ in range(2):
        started = time.thread_time()
        visible_text_1005(text)
        markdown_triggered_1005(text)
        best = min(best, time.thread_time() - started)
    return best


@pytest.mark.parametrize("shape", sorted(DEGENERATE_1005))
def test_the_new_readings_stay_linear_on_degenerate_output(shape):
    """4x the input, well under 10x the time (linear: about 4x; the opener search that rescanned to
    the end for every `<style`, measured: 15-19x at these sizes)."""
    make = DEGENERATE_1005[shape]
    small, large = _reading_cost(make(6000)), _reading_cost(make(24000))
    assert large < 10 * max(small, 1e-3), (shape, small, large)


# --- the flag, the summary, the signature, compare -------------------------------------------

def run(tmp_path, name, *extra, limit="20"):
    import evaluate

    out = tmp_path / name
    status = evaluate.main(["--predictions", str(ROOT / "data" / "example_predictions.jsonl"), "--output-dir",
                            str(out), "--skip-judge", "--quiet", "--limit", limit, *extra])
    return status, out


def test_the_summary_and_signature_name_the_version(tmp_path):
    for name, extra, expected in (("default", (), V2026_10_05),
                                  ("old", ("--scorer-version", PUBLIC_V1), PUBLIC_V1)):
        status, out = run(tmp_path, name, *extra)
        assert status == 0
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert summary["scorer_version"] == expected
        assert f"|scorer:{expected}|" in summary["signature"]
        assert f"scorer version {expected}" in (out / "report.md").read_text(encoding="utf-8")
        assert expected in (out / "report.html").read_text(encoding="utf-8")


def test_an_unknown_version_is_one_line_listing_the_names(tmp_path):
    with pytest.raises(ConfigError) as raised:
        run(tmp_path, "bad", "--scorer-version", "2026-99-99")
    error = str(raised.value)
    assert raised.value.exit_status == 2 and not (tmp_path / "bad").exists()
    assert "\n" not in error and "'2026-99-99'" in error and "2026-10-05, public-v1" in error


def test_the_other_benchmarks_name_their_one_version(tmp_path):
    import evaluate

    out = tmp_path / "sg"
    assert evaluate.main(["--data", str(ROOT / "data" / "sandglass" / "test.jsonl"), "--predictions",
                          str(ROOT / "data" / "sandglass" / "example_predictions.jsonl"), "--output-dir", str(out),
                          "--skip-judge", "--quiet", "--limit", "8"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["scorer_version"] == "release-3686ba4" and "|scorer:release-3686ba4|" in summary["signature"]
    with pytest.raises(ConfigError) as raised:
        evaluate.main(["--data", str(ROOT / "data" / "sandglass" / "test.jsonl"), "--predictions",
                       str(ROOT / "data" / "sandglass" / "example_predictions.jsonl"), "--output-dir",
                       str(tmp_path / "sg2"), "--skip-judge", "--quiet", "--scorer-version", PUBLIC_V1])
    assert "Sandglass-Bench: use one of release-3686ba4" in str(raised.value)


def test_compare_refuses_two_versions_without_force(tmp_path):
    from eval.compare import compare

    _, new = run(tmp_path, "new")
    _, old = run(tmp_path, "old", "--scorer-version", PUBLIC_V1)
    with pytest.raises(CompareError) as raised:
        compare([new, old])
    message = str(raised.value).split("\n")[0]
    assert f"scorer: '{V2026_10_05}' vs '{PUBLIC_V1}'" in message
    forced = compare([new, old], force=True)
    assert forced["comparisons"][0]["forced"]


# --- the differential fuzz's machinery ------------------------------------------------------

SYNTHETIC_SCORER = '''
"""A synthetic scorer of the official one's shape: check_hard_constraints(row, prediction) ->
{{id: {{"is_valid": bool}}}}, importing its counter from .syllable. It answers with the harness's
public-v1 table{plant_note}."""
from .syllable import cal_syllable_count
from eval.insttrans.scorer_versions import SCORER_VERSIONS

TABLE = SCORER_VERSIONS["public-v1"]


def check_hard_constraints(row, prediction):
    assert cal_syllable_count("", "en") == 0
    results = {{}}
    for cid in row["constraint_ids"]:
        if cid in TABLE.rules:
            valid = TABLE.rules[cid](row, prediction).passed
            if {plant} and cid == "format_preserve" and "$" in prediction:
                valid = not valid
            results[cid] = {{"is_valid": valid}}
    return results
'''


def synthetic_scorer(folder, plant: bool):
    (folder / "eval").mkdir(parents=True)
    (folder / "eval" / "constraints.py").write_text(textwrap.dedent(SYNTHETIC_SCORER.format(
        plant=plant, plant_note=", with format_preserve flipped wherever the prediction has a `$`" if plant else "")),
        encoding="utf-8")
    return folder


def fuzz(folder, version, n=400, seed=1):
    from scripts.scorer_fuzz import compare, load_copy, read_jsonl

    rows = read_jsonl(ROOT / "data" / "test.jsonl")
    predictions = {entry["case_id"]: entry.get("prediction")
                   for entry in read_jsonl(ROOT / "data" / "example_predictions.jsonl")}
    return compare(load_copy(folder), version, rows, predictions, n, seed=seed)


def test_the_fuzz_agrees_with_a_faithful_scorer_and_finds_a_planted_disagreement(tmp_path):
    faithful = fuzz(synthetic_scorer(tmp_path / "faithful", plant=False), PUBLIC_V1)
    assert faithful["disagreements"] == 0 and faithful["compared"] > 400
    assert set(faithful["by_constraint"]) == set(HARD_IDS)  # every rule is reached
    planted = fuzz(synthetic_scorer(tmp_path / "planted", plant=True), PUBLIC_V1)
    assert planted["disagreements"] > 0
    assert set(planted["by_constraint"]) == set(HARD_IDS)
    assert {cid for cid, counts in planted["by_constraint"].items() if counts["disagree"]} == {FORMAT}
    assert planted["examples"] and all(example["id"] == FORMAT for example in planted["examples"])


def test_the_fuzz_tells_the_two_versions_apart(tmp_path):
    """The faithful public-v1 scorer against the harness's 2026-10-05 rules: the families reach the
    differences (a fuzz that could not would prove nothing about a version)."""
    result = fuzz(synthetic_scorer(tmp_path / "v1", plant=False), V2026_10_05, n=1500)
    differing = {cid for cid, counts in result["by_constraint"].items() if counts["disagree"]}
    assert {FORMAT, TERM, SYLLABLE} <= differing and "social_preserve" not in differing


def test_the_cross_version_figures_in_the_docs(tmp_path):
    """docs/protocol.md's fuzz table: the harness's public-v1 table as the copy against its
    2026-10-05 rules gives the cross-version row measured with the originals (the harness agreed
    with each original on every verdict), so a rule change that moves it must re-measure the docs."""
    docs = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    found = re.search(r"Measured on [\d-]+, ([\d,]+) mutated predictions \(seed (\d+)\), ([\d,]+) hard verdicts", docs)
    n, seed, verdicts = (int(value.replace(",", "")) for value in found.groups())
    row = re.search(r"\| `public-v1` \| `--version 2026-10-05` \| ([\d,]+) of ([\d,]+): (.*) \|", docs)
    result = fuzz(synthetic_scorer(tmp_path / "v1", plant=False), V2026_10_05, n=n, seed=seed)
    assert result["compared"] == verdicts == int(row.group(2).replace(",", ""))
    assert result["disagreements"] == int(row.group(1).replace(",", ""))
    listed = dict((name, int(count)) for name, count in re.findall(r"(\w+) (\d+)", row.group(3)))
    assert listed == {cid: counts["disagree"] for cid, counts in result["by_constraint"].items() if counts["disagree"]}


def test_the_fuzz_needs_a_constraints_file(tmp_path):
    from scripts.scorer_fuzz import main

    with pytest.raises(SystemExit) as raised:
        main(["--original", str(tmp_path), "--n", "1"])
    assert "eval/constraints.py" in str(raised.value)


# --- recognising a release folder's version (SPEC §7c, §15) ----------------------------------

# Synthetic rules files carrying each version's content markers (regex literals, no scorer code).
V1_MARKERS = 'PATTERNS = [r"\\{[a-zA-Z_][a-zA-Z0-9_]*\\}", r"%[dsf]", r"\\$\\d+", r"\\{\\{[a-zA-Z_][a-zA-Z0-9_]*\\}\\}"]\n'
V1005_MARKERS = ('PATTERNS = [r"%[dsf]", r"%\\([a-zA-Z_][a-zA-Z0-9_]*\\)[dsf]", r"\\$[a-zA-Z_][a-zA-Z0-9_]*"]\n'
                 'CODE = r"<(script|style)\\b"\n')


def release_folder(tmp_path, text: str | None):
    from release_folders import it_constraints_py, make_insttrans_release

    root = make_insttrans_release(tmp_path / "release")
    if text is None:
        (root / "eval" / "constraints.py").unlink()
    else:  # the synthetic rules file with these markers only
        (root / "eval" / "constraints.py").write_text(it_constraints_py() + text, encoding="utf-8")
    return root


@pytest.mark.parametrize("text, version, how", [
    (V1_MARKERS, PUBLIC_V1, "content of eval/constraints.py"),
    (V1005_MARKERS, V2026_10_05, "content of eval/constraints.py"),
    (V1_MARKERS + V1005_MARKERS, V2026_10_05, "unknown"),  # both: neither version's file
    ("", V2026_10_05, "unknown"),
    (None, V2026_10_05, "unknown"),
])
def test_a_release_folder_is_recognised_by_content(tmp_path, text, version, how):
    from eval.insttrans.scorer_versions import recognise_release

    found = recognise_release(release_folder(tmp_path, text))
    assert (found.version, found.identified_by) == (version, how)
    assert (found.notice is None) == (how != "unknown")
    if found.notice:
        assert "\n" not in found.notice and "newest, 2026-10-05" in found.notice


def test_a_release_folder_is_recognised_by_digest_first(tmp_path, monkeypatch):
    import hashlib

    import eval.insttrans.scorer_versions as versions

    root = release_folder(tmp_path, V1005_MARKERS)  # content says 2026-10-05, the digest says public-v1
    digest = hashlib.sha256((root / "eval" / "constraints.py").read_bytes()).hexdigest()
    monkeypatch.setitem(versions.KNOWN_DIGESTS, digest, PUBLIC_V1)
    found = versions.recognise_release(root)
    assert (found.version, found.identified_by) == (PUBLIC_V1, "sha256 of eval/constraints.py")


def test_the_published_public_v1_digest_is_the_release_facts_one():
    from eval.insttrans.scorer_versions import KNOWN_DIGESTS

    facts = (ROOT.parent.parent / "shared" / "RELEASE-FACTS.md")
    expected = "00cd6f3bb140bfcfaebb1e281790331059aef9f9091b75213e33e67ecd3074e7"
    assert KNOWN_DIGESTS == {expected: PUBLIC_V1}
    if facts.is_file():  # the team's facts file, beside the checkout where there is one
        assert expected in facts.read_text(encoding="utf-8")


def release_run(tmp_path, root, *extra):
    import evaluate

    out = tmp_path / "out"
    status = evaluate.main(["--data", str(ROOT / "data" / "test.jsonl"), "--limit", "12", "--predictions",
                            str(ROOT / "data" / "example_predictions.jsonl"),
                            "--output-dir", str(out), "--skip-judge", "--quiet", "--protocol", "release",
                            "--release-dir", str(root), *extra])
    return status, json.loads((out / "summary.json").read_text(encoding="utf-8"))


def test_a_release_run_scores_with_the_recognised_version(tmp_path, capsys):
    status, summary = release_run(tmp_path, release_folder(tmp_path, V1_MARKERS))
    assert status == 0 and summary["scorer_version"] == PUBLIC_V1 and f"|scorer:{PUBLIC_V1}|" in summary["signature"]
    assert summary["protocol"]["scorer_version"] == {"recognised": PUBLIC_V1,
                                                     "identified_by": "content of eval/constraints.py"}
    assert "scorer version" not in capsys.readouterr().err


def test_a_release_run_of_an_unknown_version_says_so_and_runs_the_newest(tmp_path, capsys):
    status, summary = release_run(tmp_path, release_folder(tmp_path, ""))
    notices = [line for line in capsys.readouterr().err.splitlines() if "no known scorer version" in line]
    assert status == 0 and len(notices) == 1 and "scoring with the newest, 2026-10-05" in notices[0]
    assert summary["scorer_version"] == V2026_10_05
    assert summary["protocol"]["scorer_version"] == {"recognised": None, "identified_by": "unknown"}


def test_an_explicit_version_wins_over_the_recognised_one(tmp_path):
    status, summary = release_run(tmp_path, release_folder(tmp_path, V1_MARKERS), "--scorer-version", V2026_10_05)
    assert status == 0 and summary["scorer_version"] == V2026_10_05
    assert summary["protocol"]["scorer_version"]["recognised"] == PUBLIC_V1


def test_the_sandglass_release_is_recognised_by_the_manifest_digests(tmp_path, monkeypatch):
    import eval.sandglass.release as sandglass

    assert sandglass.SCORER_VERSION == "release-3686ba4"
    assert sandglass.MANIFEST["evaluate.py"].startswith("a830540726b1")  # RELEASE-FACTS §0, added 2026-12-06
    for name in sandglass.MANIFEST:
        (tmp_path / name).write_text(f"synthetic {name}\n", encoding="utf-8")
    how, notice = sandglass.recognise_scorer(tmp_path)
    assert how == "unknown" and "\n" not in notice and "release-3686ba4" in notice
    from eval.io.data import file_sha256

    monkeypatch.setattr(sandglass, "MANIFEST", {name: file_sha256(tmp_path / name) for name in sandglass.MANIFEST})
    how, notice = sandglass.recognise_scorer(tmp_path)
    assert notice is None and how.endswith("(the release manifest's)")
    monkeypatch.setattr(sandglass, "EXAMINED", {**sandglass.EXAMINED, **sandglass.MANIFEST})
    monkeypatch.setattr(sandglass, "MANIFEST", {name: "0" * 64 for name in sandglass.MANIFEST})
    how, notice = sandglass.recognise_scorer(tmp_path)
    assert notice is None and "a later copy" in how


# --- IFMTBench: the release's files by their pinned SHA-256 -------------------------------------

def ifmt_release(tmp_path):
    folder = tmp_path / "IFMTBench" / "data"
    folder.mkdir(parents=True)
    for name in ("test_single_constraint.jsonl", "test_multi_constraint.jsonl"):
        lines = (ROOT / "data" / "ifmtbench" / "data" / name).read_text(encoding="utf-8").split("\n")[:6]
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def ifmt_run(tmp_path, folder):
    import evaluate

    first = json.loads((folder / "test_single_constraint.jsonl").read_text(encoding="utf-8").split("\n")[0])
    tmp_path.mkdir(parents=True)
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"md5": first["md5"], "instruction_lang": first.get("instruction_lang"),
                                       "response": "x"}) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert evaluate.main(["--dataset", str(folder.parent), "--predictions", str(predictions), "--output-dir",
                          str(out), "--skip-judge", "--quiet"]) == 0
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


def test_the_ifmtbench_release_is_known_by_its_pinned_sha256(tmp_path, monkeypatch):
    from eval.io.data import file_sha256
    from eval.ifmtbench.rows import RELEASE_FILE_SHA256

    assert RELEASE_FILE_SHA256["test_single_constraint.jsonl"] == (
        8478197, "ffaab0947722711e5a7d0c47d6f7931868164ad9a068c253acc7ba909defc691")
    assert RELEASE_FILE_SHA256["test_multi_constraint.jsonl"] == (
        14066944, "c9fb393c49880e688e58515b215e1e586f9b72d143a404546f20de4a01a3e17f")
    folder = ifmt_release(tmp_path)
    pins = {path.name: (path.stat().st_size, file_sha256(path)) for path in folder.iterdir()}
    unknown = ifmt_run(tmp_path / "a", folder)  # the real pins: these few rows are not the release
    assert unknown["data"]["known_as"] is None
    for name, pin in pins.items():
        monkeypatch.setitem(RELEASE_FILE_SHA256, name, pin)
    summary = ifmt_run(tmp_path / "b", folder)
    assert summary["data"]["known_as"] == "official release (by sha256)"
    assert [reason for reason in summary["non_formal_reasons"] if "skip-judge" not in reason] == []
    assert summary["scorer_version"] == "hy-mt2-a42ea25"
    size, digest = pins["test_multi_constraint.jsonl"]
    monkeypatch.setitem(RELEASE_FILE_SHA256, "test_multi_constraint.jsonl", (size, "0" * 64))  # one byte differs
    assert ifmt_run(tmp_path / "c", folder)["data"]["known_as"] is None


@pytest.mark.parametrize("text, reads_booleans", [(V1_MARKERS, True), (V1005_MARKERS, False), ("", False)])
def test_the_release_version_decides_whether_a_boolean_is_a_soft_score(tmp_path, text, reads_booleans):
    """public-v1 reads `"score": true` as 1; 2026-10-05 reads no score there, and this harness
    aborts on an unread verdict instead of scoring it (SPEC §15)."""
    from eval.insttrans.release import open_release
    from eval.judge_client import VerdictError

    release = open_release(release_folder(tmp_path, text), False)
    rows = [json.loads(line) for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").split("\n")
            if line]
    row = next(row for row in rows if "style_consistency" in row["constraint_ids"])
    soft = next(request for request in release.prompt_set.judge_requests([row], {row["case_id"]: "Hello"})
                if request.name == "soft")
    ids = [cid for cid in row["constraint_ids"] if cid in {"style_consistency", "term_cross_sentence",
                                                          "academic_format_preserve", "context_disambiguate",
                                                          "coref_resolution"}]
    reply = json.dumps({cid: {"score": True} for cid in ids})
    if reads_booleans:
        assert soft.validate(reply)["scores"] == {cid: 1.0 for cid in ids}
    else:
        with pytest.raises(VerdictError):
            soft.validate(reply)
    assert soft.validate(json.dumps({cid: {"score": 0.5} for cid in ids}))["scores"] == {cid: 0.5 for cid in ids}


# --- docs/syllables.md: the 2026-10-05 counter's changes, weighed on these counts ---------------

@pytest.mark.parametrize("text, lang, count", [
    ("the 21st century", "en", 7), ("3rd place", "en", 2), ("don’t", "en", 1), ("don't", "en", 1),
    ("HOLA", "es", 2), ("hola", "es", 2), ("3.5.6", "en", 3), ("IT IS OK", "en", 4),
])
def test_the_counts_docs_syllables_quotes_for_the_new_counter_changes(text, lang, count):
    from eval.syllable import count_syllables

    assert count_syllables(text, lang) == count
    docs = (ROOT / "docs" / "syllables.md").read_text(encoding="utf-8")
    assert f"`{text}` counts {count}" in docs or f"as `{text}`" in docs


def test_public_v1_under_the_release_protocol_reports_its_own_denominator_beside_the_pass_rate(tmp_path):
    """public-v1 leaves a row without a prediction out of a constraint's pass rate; the harness
    counts it as a failure and reports public-v1's figure beside it (2026-10-05 and the harness
    protocol: nothing beside)."""
    rows = [json.loads(line) for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").split("\n")
            if line][:12]
    predictions = {json.loads(line)["case_id"]: json.loads(line)["prediction"]
                   for line in (ROOT / "data" / "example_predictions.jsonl").read_text(encoding="utf-8").split("\n")
                   if line}
    dropped = next(row["case_id"] for row in rows if "format_preserve" in row["constraint_ids"])  # goes missing
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"case_id": row["case_id"], "prediction": None if row["case_id"] == dropped
                                        else predictions[row["case_id"]]}, ensure_ascii=False) + "\n"
                            for row in rows), encoding="utf-8")

    import evaluate

    def summary_of(name, *extra):
        out = tmp_path / name
        assert evaluate.main(["--data", str(ROOT / "data" / "test.jsonl"), "--limit", "12", "--predictions",
                              str(path), "--output-dir", str(out), "--skip-judge", "--quiet", *extra]) == 0
        return json.loads((out / "summary.json").read_text(encoding="utf-8"))

    release = summary_of("v1", "--protocol", "release", "--release-dir", str(release_folder(tmp_path, V1_MARKERS)))
    assert release["scorer_version"] == PUBLIC_V1
    for cid, entry in release["by_constraint"].items():
        if entry["kind"] != "hard":
            assert "pass_rate_public_v1" not in entry
            continue
        declares = [row for row in rows if cid in row["constraint_ids"]]
        present = [row for row in declares if row["case_id"] != dropped]
        assert entry["n"] == len(declares) and entry["n_public_v1"] == len(present)
        passes = round(entry["pass_rate"] * entry["n"])
        assert entry["pass_rate_public_v1"] == round(passes / len(present), 6)
    first = release["by_constraint"]["format_preserve"]
    assert first["pass_rate_public_v1"] > first["pass_rate"]
    for name, extra in (("new", ("--protocol", "release", "--release-dir",
                                 str(release_folder(tmp_path / "b", V1005_MARKERS)))),
                        ("harness", ("--scorer-version", PUBLIC_V1))):
        assert not any("pass_rate_public_v1" in entry for entry in summary_of(name, *extra)["by_constraint"].values())


# A 2026-10-05-shaped counter: like the new original, it reads a word list that sits beside it
# (found through its own __file__), and counts a line written in capitals by that list. Synthetic:
# one unit per character, minus one per listed word, so that the list visibly moves the count.
V1005_SYLLABLE_PY = '''from pathlib import Path

_WORDS = None


def _words():
    global _WORDS
    if _WORDS is None:
        path = Path(__file__).with_name("en_common_words.txt")
        _WORDS = frozenset(w for w in path.read_text(encoding="utf-8").split() if not w.startswith("#"))
    return _WORDS


def cal_syllable_count(text, lang="en"):
    text = text.strip()
    listed = sum(word.lower() in _words() for word in text.split())
    return max(0, len(text) - listed)
'''


def v1005_count(text: str, words: frozenset[str]) -> int:
    text = text.strip()
    return max(0, len(text) - sum(word.lower() in words for word in text.split()))


def test_a_trusted_2026_10_05_release_counts_with_its_own_module_and_the_word_list_beside_it(tmp_path, capsys):
    """--trust-release-code runs whichever version the folder ships: the counts in scores.jsonl are
    that module's, including what it reads from its own folder (the new original's word list)."""
    root = release_folder(tmp_path, V1005_MARKERS)
    (root / "eval" / "syllable.py").write_text(V1005_SYLLABLE_PY, encoding="utf-8")
    words = frozenset("the a to and of in is it you i".split())
    (root / "eval" / "en_common_words.txt").write_text("# synthetic list\n" + "\n".join(sorted(words)) + "\n",
                                                        encoding="utf-8")
    out = tmp_path / "out"
    import evaluate

    rows = [json.loads(line) for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").split("\n") if line]
    chosen = [row for row in rows if "syllable_order" in row["constraint_ids"]][:6]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in chosen), encoding="utf-8")
    wanted = {row["case_id"] for row in chosen}
    chosen_predictions = tmp_path / "predictions.jsonl"
    chosen_predictions.write_text("".join(line + "\n" for line in (ROOT / "data" / "example_predictions.jsonl")
                                          .read_text(encoding="utf-8").split("\n")
                                          if line and json.loads(line)["case_id"] in wanted), encoding="utf-8")
    status = evaluate.main(["--data", str(data), "--predictions", str(chosen_predictions),
                            "--output-dir", str(out), "--skip-judge", "--quiet", "--protocol", "release",
                            "--release-dir", str(root), "--trust-release-code"])
    assert status == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["scorer_version"] == V2026_10_05 and summary["protocol"]["syllable_counter"] == "release"
    predictions = {json.loads(line)["case_id"]: json.loads(line)["prediction"]
                   for line in (ROOT / "data" / "example_predictions.jsonl").read_text(encoding="utf-8").split("\n")
                   if line}
    checked = moved = 0
    for line in (out / "scores.jsonl").read_text(encoding="utf-8").split("\n"):
        if not line:
            continue
        row = json.loads(line)
        entry = next((c for c in row.get("constraints", []) if c["id"] == "syllable_order"), None)
        if entry is None or "counts" not in entry.get("detail", {}):
            continue
        lines = json.loads(predictions[row["case_id"]])
        expected = [v1005_count(lines.get(str(i), "") or "", words) for i in range(1, len(entry["detail"]["counts"]) + 1)]
        assert entry["detail"]["counts"] == expected
        moved += expected != [v1005_count(lines.get(str(i), "") or "", frozenset()) for i in range(1, len(expected) + 1)]
        checked += 1
    assert checked >= 3 and moved >= 1  # the word list beside the module was read and changed counts
