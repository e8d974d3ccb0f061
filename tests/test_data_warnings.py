"""The release is never refused (SPEC §9): checks beyond the release schema are data warnings,
and the rule then gives the original scorer's verdict for that row."""

from __future__ import annotations

import json

import pytest

import evaluate
from conftest import make_row, write_jsonl
from eval.insttrans.rules import check_social_preserve, check_syllable_order, check_term_compliance
from eval.io.data import read_rows_from_file as read_any_file
from eval.insttrans.rows import bundled_row_problems, validate_rows


def read_rows_from_file(path):
    return read_any_file(path, validate_rows)
from eval.sandglass.rows import validate_sandglass_rows

SYLLABLE_IDS = dict(constraint_ids=["format_preserve", "syllable_order"], scenario="ugc_subtitle", domain="UGC字幕",
                    constraints=["以相同的 JSON 对象返回", "字幕时长：时间越长译文越长"])


def subtitle_row(case_id="sub", lines=("你好", "再见", "好的"), durations=(1.0, 2.0), **fields) -> dict:
    source = json.dumps({str(i): line for i, line in enumerate(lines, 1)}, ensure_ascii=False)
    return make_row(case_id, source_text=source, reference=source, duration_s=list(durations),
                    **{**SYLLABLE_IDS, **fields})


def glossary_row(case_id="term") -> dict:
    return make_row(case_id, constraints=["专名/术语对照：没有箭头的词表"], constraint_ids=["term_compliance"])


def social_row(case_id="social", line="保留以下社交元素，不得翻译或改动：") -> dict:
    return make_row(case_id, constraints=[line], constraint_ids=["social_preserve"])


# (name, row builder, a fragment of the one warning it gives)
WARNING_ROWS = [
    ("term_compliance without a term", glossary_row, "yield no glossary term: the rule passes"),
    ("fewer durations than subtitle keys", lambda: subtitle_row(),
     'duration_s has 2 values but the subtitle has 3 lines (the source\'s "1".."N" keys)'),
    ("more durations than batch_size lines",
     lambda: make_row("batch", source_text="第一句。第二句。", batch_size=2, duration_s=[1.0, 2.0, 3.0], **SYLLABLE_IDS),
     "duration_s has 3 values but the subtitle has 2 lines (batch_size)"),
    ("social_preserve line without elements", social_row, "list no element: the rule passes"),
    ("social_preserve line without a colon", lambda: social_row(line="保留原文中的社交元素"), "list no element"),
    ("domain of another scenario", lambda: make_row(domain="小说"), "domain '小说' is not a domain of scenario 'social'"),
    ("no constraint", lambda: make_row(constraints=[], constraint_ids=[]), "constraint_ids is empty"),
    ("constraint line not in the prompt", lambda: {**make_row(), "constraints": ["别的要求"]},
     "does not occur in the prompt"),
    ("source_text not in the prompt", lambda: {**make_row(), "source_text": "不在提示里"},
     "source_text does not occur in the prompt"),
    ("durations without syllable_order", lambda: make_row(duration_s=[1.0]), "syllable_order is not among"),
    ("empty durations", lambda: subtitle_row(durations=(), lines=("你好",)), "duration_s is empty"),
    ("a zero duration", lambda: subtitle_row(lines=("你好", "再见"), durations=(1.0, 0)), "a value <= 0"),
    ("batch_size zero", lambda: make_row(batch_size=0), "batch_size is 0"),
    ("unknown formality", lambda: make_row(style={"formality": "rude"}), "style.formality 'rude' is not one of"),
]


@pytest.mark.parametrize("name, build, fragment", WARNING_ROWS, ids=[case[0] for case in WARNING_ROWS])
def test_a_row_beyond_the_schema_loads_with_one_warning(tmp_path, name, build, fragment):
    row = build()
    path = write_jsonl(tmp_path / "d.jsonl", [make_row("ok"), row])
    loaded = read_rows_from_file(path)  # never a DataError
    assert [r["case_id"] for r in loaded.rows] == ["ok", row["case_id"]]
    assert len(loaded.warnings) == 1, loaded.warnings
    warning = loaded.warnings[0]
    assert set(warning) == {"case_id", "where", "message"}
    assert (warning["case_id"], warning["where"]) == (row["case_id"], f"{path}:2")
    assert fragment in warning["message"]


@pytest.mark.parametrize("name, build, fragment", WARNING_ROWS, ids=[case[0] for case in WARNING_ROWS])
def test_the_bundled_set_checker_stays_strict(name, build, fragment):
    assert any(fragment in problem for problem in bundled_row_problems(build()))


def test_a_valid_row_has_no_warning(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [make_row("a"), subtitle_row(durations=(1.0, 2.0, 3.0))])
    assert read_rows_from_file(path).warnings == ()


# --- the original's verdicts on the warned rows ------------------------------------------------

def test_term_compliance_without_a_term_passes_and_says_so():
    verdict = check_term_compliance(glossary_row(), "anything at all")
    assert verdict.passed and verdict.detail == {"terms": [], "missing": [],
                                                 "note": "no glossary term in the constraint lines"}


@pytest.mark.parametrize("line", ["保留以下社交元素，不得翻译或改动：", "保留原文中的社交元素", "保留以下社交元素: "])
def test_social_preserve_without_elements_passes_and_says_so(line):
    verdict = check_social_preserve(social_row(line=line), "anything")
    assert verdict.passed and verdict.detail["note"] == "no social element in the constraint lines"


# (durations, subtitle lines, prediction, passed, syllable counts read): the first len(duration_s) keys
SYLLABLE_MISMATCHES = [
    ((1.0, 2.0), ("你好", "再见", "好的"), {"1": "Hi", "2": "Goodbye, my friend", "3": "x " * 40}, True, [1, 4]),
    ((2.0, 1.0), ("你好", "再见", "好的"), {"1": "Goodbye, my friend", "2": "Hi", "3": "Hello"}, True, [4, 1]),
    ((1.0, 2.0), ("你好", "再见", "好的"), {"1": "Goodbye, my friend", "2": "Hi", "3": "x " * 40}, False, [4, 1]),
    ((1.0, 2.0, 3.0), ("你好", "再见"), {"1": "Hi", "2": "Good day"}, False, [1, 2, 0]),  # "3" missing: empty
    ((1.0, 2.0, 3.0), ("你好", "再见"), {"1": "Hi", "2": "Good day", "3": "See you all tomorrow"}, True, [1, 2, 6]),
]


@pytest.mark.parametrize("durations, lines, prediction, passed, counts", SYLLABLE_MISMATCHES)
def test_syllable_order_reads_the_first_len_duration_s_keys(durations, lines, prediction, passed, counts):
    row = subtitle_row(lines=lines, durations=durations, target_lang="en")
    verdict = check_syllable_order(row, json.dumps(prediction))
    assert verdict.passed is passed and verdict.detail["counts"] == counts


def test_a_run_on_warned_rows_scores_them_and_lists_every_warning(tmp_path, capfd):
    rows = [glossary_row(), subtitle_row(target_lang="en"), social_row(), make_row("plain")]
    predictions = [{"case_id": "term", "prediction": "whatever"},
                   {"case_id": "sub", "prediction": json.dumps({"1": "Hi", "2": "Goodbye, my friend", "3": "OK"})},
                   {"case_id": "social", "prediction": "no element to keep"},
                   {"case_id": "plain", "prediction": "Hello, world"}]
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    preds = write_jsonl(tmp_path / "preds.jsonl", predictions)
    out = tmp_path / "out"
    status = evaluate.main(["--data", str(data), "--predictions", str(preds), "--output-dir", str(out),
                            "--skip-judge", "--quiet"])
    stderr = capfd.readouterr().err
    assert status == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    warnings = summary["data"]["warnings"]
    assert [(w["case_id"], w["where"]) for w in warnings] == [("term", f"{data}:1"), ("sub", f"{data}:2"),
                                                             ("social", f"{data}:3")]
    lines = [line for line in stderr.splitlines() if "data warning" in line]
    assert len(lines) == 1 and lines[0].startswith("warning: 3 data warnings")
    scores = {row["case_id"]: row for row in map(json.loads, (out / "scores.jsonl").read_text().splitlines())}
    assert all(scores[case_id]["hard_pass"] for case_id in ("term", "sub", "social", "plain"))
    assert scores["sub"]["constraints"][1]["detail"]["counts"] == [1, 4]  # line "3" has no duration: unread


# --- Sandglass: the same treatment ------------------------------------------------------------

def test_sandglass_rows_beyond_the_schema_load_with_warnings_and_are_scored_as_recorded():
    from test_sandglass import make_sg_row

    def changed(change, **fields):
        row = make_sg_row(**fields)
        change(row)
        return row

    cases = [
        (changed(lambda r: r["metadata"].update(target_syllables=13)), "the natural target of a 1.9 s line in en is 12"),
        (changed(lambda r: r.update(case_id="u2-en-short"), uuid="u2", kind="short"), "is not uuid:target_language"),
        (changed(lambda r: r["metadata"].update(source="另一句话"), uuid="u3"), "metadata.source does not occur"),
        (changed(lambda r: r["metadata"].update(duration=0), uuid="u4"), "metadata.duration is 0"),
        (changed(lambda r: r.update(prompt=[]), uuid="u5"), "prompt has no chat message"),
    ]
    rows, warnings = validate_sandglass_rows([(f"sg:{i}", row) for i, (row, _) in enumerate(cases, 1)])
    assert len(rows) == len(cases) and len(warnings) == len(cases)
    for (row, fragment), warning in zip(cases, warnings):
        assert warning["case_id"] == row["case_id"] and fragment in warning["message"], warning
    from eval.sandglass.metrics import score_item

    assert score_item(rows[0], "some words", 13, 1.0)["abs_diff"] == 0  # the recorded target is scored
