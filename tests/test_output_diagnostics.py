"""Output diagnostics that say a model did not translate (docs/predict.md#output-diagnostics):
wrong target script, echoed prompt lines, refusals and preambles, cut answers, and the source
copied, on all three benchmarks; each with passing and failing cases, none changing a verdict, and
none raised by a bundled reference."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import evaluate
from conftest import write_jsonl
from eval.inputs.predictions import (DIAGNOSTICS, cut_case_ids, echoed_prompt_lines, normalise,
                              opens_with_refusal_or_preamble, wrapper_diagnostics, wrong_target_script)

ROOT = Path(__file__).resolve().parent.parent

WRONG_SCRIPT = [
    # (prediction, target, source, flagged)
    ("This answer is written in English only.", "ja", "これは日本語です", True),
    ("这是一个中文的翻译结果，没有用英文写。", "en", "Ceci est un texte.", True),
    ("Это ответ на русском языке, а не на арабском.", "ar", "Hello there, friend.", True),
    ("Hello world, this is English instead.", "zh-TW", "Bonjour le monde entier.", True),
    ("これは日本語の翻訳です。", "ja", "This is English.", False),
    ("日本語の文に漢字が多い場合もある。", "ja", "x", False),
    ("한국어 번역입니다. 漢字도 있습니다.", "ko", "English source text here.", False),
    ("Das ist die deutsche Übersetzung.", "de", "这是中文。", False),
    ("按 &lt;kbd&gt;Ctrl&lt;/kbd&gt; + &lt;kbd&gt;S&lt;/kbd&gt; 保存文档。", "zh",
     "Press <kbd>Ctrl</kbd> + <kbd>S</kbd> to save the document.", False),  # markup copied, entities
    ("使用 useEffectHook 和 createContextProvider 实现。", "zh",
     "Implement it with useEffectHook and createContextProvider.", False),  # code names from the source
    ("Short one", "ja", "x", False),                                        # under 10 letters
    ("Γεια σου κόσμε, αυτό είναι ελληνικά.", "el", "Hello", False),        # a code outside the table
    ("English text for an unknown code here.", "xx", "Hello", False),
    ("English text with no target at all here.", None, "Hello", False),
]


@pytest.mark.parametrize("prediction, target, source, flagged", WRONG_SCRIPT)
def test_wrong_target_script(prediction, target, source, flagged):
    assert wrong_target_script(prediction, target, source) is flagged
    assert wrapper_diagnostics(prediction, source, target)["wrong_target_script"] is flagged


PROMPT = """Translate the following text into English. Output only the translation, without any explanation.

Use the translations in this glossary exactly (where several are listed, use one of them):
Garantie → warranty
Gerät → device

[Source text]
Die Garantie erlischt, wenn das Gerät unsachgemäß geöffnet wurde."""
SOURCE = "Die Garantie erlischt, wenn das Gerät unsachgemäß geöffnet wurde."
ECHOES = [
    ("The warranty becomes void if the device has been opened improperly.", False),
    ("Garantie → warranty\nGerät → device\nThe warranty becomes void.", True),     # the glossary echoed
    ("garantie: WARRANTY. The warranty becomes void.", True),                    # another separator and case
    ("Translate the following text into English; output only the translation, without any explanation.\n"
     "The warranty becomes void.", True),                                        # one changed colon
    ("TRANSLATE THE FOLLOWING TEXT INTO ENGLISH.  Output only the translation,\nwithout any explanation.", True),
    (SOURCE, False),                                                             # the source: echoes_source's
    ("[Source text] The warranty becomes void.", False),                         # a one-word marker line
    ("The warranty (Garantie) becomes void.", False),                            # a term, not the line
]


@pytest.mark.parametrize("prediction, flagged", ECHOES)
def test_echoed_prompt_lines_are_found_normalised(prediction, flagged):
    assert bool(echoed_prompt_lines(prediction, PROMPT, SOURCE)) is flagged
    assert wrapper_diagnostics(prediction, SOURCE, "en", PROMPT)["echoes_prompt"] is flagged


def test_normalise_ignores_case_punctuation_and_spacing():
    assert normalise("Gerät → device") == normalise("gerät:  DEVICE!") == "gerät device"
    assert normalise("译文语体：正式，全文保持一致") == "译文语体 正式 全文保持一致"


def test_the_echo_search_is_linear_in_a_huge_prediction():
    huge = "word " * 200_000 + "garantie warranty"
    assert echoed_prompt_lines(huge, PROMPT * 50, SOURCE) == ["garantie warranty"]


REFUSALS = [
    # (prediction, source, flagged)
    ("I'm sorry, but I can't translate this text.", "这是原文。", True),
    ("I’m sorry, but I cannot help with that request.", "这是原文。", True),
    ("As an AI, I cannot provide a translation of this.", "这是原文。", True),
    ("Here is the translation:\nHello world.", "你好世界。", True),
    ("**Here's the translation:** Hello world.", "你好世界。", True),
    ("Sure! Here's a casual version:\n{}", "{}", True),
    ("以下是翻译：\nHello", "Hallo", True),
    ("抱歉，我无法翻译这段文字。", "Hello there.", True),
    ("申し訳ありませんが、この文章は翻訳できません。", "Hello there.", True),
    ("번역 결과입니다.\nplat,prix", "plat,prix", True),
    ("Voici la traduction : Bonjour.", "Hello.", True),
    ("Lo siento, no puedo traducir este texto.", "Hello.", True),
    ("Hier ist die Übersetzung:\n{}", "{}", True),
    ("Вот перевод: привет.", "Hello.", True),
    ("We're sorry, the item is out of stock.", "很抱歉，该商品已售罄。", False),      # an apology is the text
    ("申し訳ございません。ただいま在庫を切らしております。", "We apologise: out of stock.", False),
    ("Sorry, I can't help you with that.", "抱歉，我无法帮助你。", False),          # the source says it too
    ("The translation: a short history.", "翻译：简史", False),                     # the source opens so
    ("Hello world. I'm sorry I can't translate my feelings.", "你好。", False),      # not at the opening
    ("Translations of poems are hard.", "诗难译。", False),
]


@pytest.mark.parametrize("prediction, source, flagged", REFUSALS)
def test_refusals_and_preambles(prediction, source, flagged):
    assert wrapper_diagnostics(prediction, source)["refusal_or_preamble"] is flagged


def test_a_refusal_is_read_off_the_opening_only():
    assert opens_with_refusal_or_preamble(" \n\t> *Here is the translation*")
    assert not opens_with_refusal_or_preamble("x" * 100 + " I'm sorry, I cannot translate")


def test_cut_marks_come_from_predict_pys_response_field(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join([
        json.dumps({"case_id": "a", "prediction": "x", "response": {"finish": "length", "truncated": True}}),
        json.dumps({"case_id": "b", "prediction": "x", "response": {"finish": "stop", "truncated": False}}),
        json.dumps({"md5": "c", "response": "an original IFMTBench line: its response is the text, truncated"}),
        json.dumps({"case_id": "d", "prediction": "x", "response": {"truncated": "yes"}}),
        '{"case_id": "e", "truncated": broken',
        json.dumps({"case_id": "f", "prediction": "x", "response": {"truncated": True}}),
    ]), encoding="utf-8")
    assert cut_case_ids(path) == {"a", "f"}
    assert cut_case_ids(tmp_path / "absent.jsonl") == set()


# ---------------------------------------------------------------------------------------------
# End to end, each benchmark
# ---------------------------------------------------------------------------------------------

def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _run(tmp_path: Path, name: str, args: list[str], predictions: list[dict] | None) -> tuple[dict, str, str, str]:
    out = tmp_path / f"out-{name}"
    tmp_path.mkdir(parents=True, exist_ok=True)
    argv = [*args, "--output-dir", str(out), "--skip-judge", "--quiet"]
    if predictions is None:
        argv.append("--oracle")
    else:
        argv += ["--predictions", str(write_jsonl(tmp_path / f"{name}.jsonl", predictions))]
    assert evaluate.main(argv) == 0
    return (json.loads((out / "summary.json").read_text(encoding="utf-8")), (out / "report.md").read_text(encoding="utf-8"),
            (out / "report.html").read_text(encoding="utf-8"), (out / "explorer.html").read_text(encoding="utf-8"))


BENCHMARKS = {"insttrans": [], "sandglass": ["--benchmark", "sandglass"], "ifmtbench": ["--dataset", str(ROOT / "data/ifmtbench")]}


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_no_bundled_reference_triggers_any_diagnostic(name, tmp_path):
    summary, *_ = _run(tmp_path, name, BENCHMARKS[name], None)
    assert summary["predictions"]["diagnostics"] == dict.fromkeys(DIAGNOSTICS, 0)


def test_sandglass_flags_a_copied_source_line_an_echo_a_refusal_and_a_cut_answer(tmp_path):
    rows = _rows(ROOT / "data/sandglass/test.jsonl")
    ja = next(row for row in rows if row["metadata"]["target_language"] == "ja")
    en = [row for row in rows if row["metadata"]["target_language"] == "en"]
    instruction = en[2]["prompt"][0]["content"].splitlines()[0]
    predictions = [
        {"case_id": en[0]["case_id"], "prediction": en[0]["metadata"]["source"]},        # the Chinese line copied
        {"case_id": ja["case_id"], "prediction": "This is an English answer, not Japanese at all."},
        {"case_id": en[2]["case_id"], "prediction": instruction.replace("。", ".") + "\nYou are right."},
        {"case_id": en[3]["case_id"], "prediction": "I'm sorry, but I can't translate this subtitle."},
        {"case_id": en[4]["case_id"], "prediction": "And then the", "response": {"finish": "length", "truncated": True}},
        {"case_id": en[5]["case_id"], "prediction": en[5]["label"]},
    ]
    summary, report, page, explorer = _run(tmp_path, "sandglass", BENCHMARKS["sandglass"], predictions)
    named = summary["predictions"]["diagnostic_case_ids"]
    assert named["echoes_source"] == [en[0]["case_id"]] and named["source_script"] == [en[0]["case_id"]]
    # the copied source is the two source diagnostics' to name: its words are the source's, not a language
    assert ja["case_id"] in named["wrong_target_script"] and en[0]["case_id"] not in named["wrong_target_script"]
    assert en[5]["case_id"] not in sum(named.values(), [])  # the reference itself: nothing
    assert named["echoes_prompt"] == [en[2]["case_id"]]
    assert named["refusal_or_preamble"] == [en[3]["case_id"]]
    assert named["cut_off"] == [en[4]["case_id"]]
    for name in ("echoes prompt", "refusal or preamble", "cut off", "wrong target script"):
        assert f"- {name}: 1" in report or f"- {name}: 2" in report
        assert name in page
    assert en[4]["case_id"] in page and "cut_off" in explorer


def test_ifmtbench_flags_the_wrong_language_and_an_echoed_glossary_line(tmp_path):
    rows = [row for path in ("test_single_constraint.jsonl", "test_multi_constraint.jsonl")
            for row in _rows(ROOT / "data/ifmtbench/data" / path)]
    glossary = next(row for row in rows if row["target_language"] == "en" and row["term_dict"]
                    and "→" in row["input"])
    term_line = next(line for line in row_lines(glossary) if "→" in line)
    zh = next(row for row in rows if row["target_language"] == "zh" and row["origin_language"] == "en")
    case_id = lambda row: f"{row['md5']}:{row['instruction_lang']}"  # noqa: E731
    predictions = [
        {"md5": glossary["md5"], "instruction_lang": glossary["instruction_lang"],
         "response": term_line.replace("→", ":") + "\n" + glossary["output"]},
        {"md5": zh["md5"], "instruction_lang": zh["instruction_lang"],
         "response": "Sorry, this stays English: the whole answer is untranslated text."},
    ]
    summary, report, *_ = _run(tmp_path, "ifmtbench", BENCHMARKS["ifmtbench"], predictions)
    named = summary["predictions"]["diagnostic_case_ids"]
    ids = {case_id(glossary), glossary["md5"]} & set(sum(named.values(), []))
    assert named["echoes_prompt"] and named["echoes_prompt"][0] in ids
    assert named["wrong_target_script"] and named["wrong_target_script"][0].startswith(zh["md5"])


def row_lines(row: dict) -> list[str]:
    return row["input"].splitlines()


def test_insttrans_flags_an_echoed_constraint_line(tmp_path):
    rows = _rows(ROOT / "data/test.jsonl")
    row = next(row for row in rows if row["constraints"])
    line = row["constraints"][0]
    predictions = [{"case_id": row["case_id"], "prediction": line.replace("：", ": ") + "\n" + row["reference"]}]
    summary, *_ = _run(tmp_path, "insttrans", [], predictions)
    assert summary["predictions"]["diagnostic_case_ids"]["echoes_prompt"] == [row["case_id"]]


def test_no_diagnostic_changes_a_verdict(tmp_path):
    """The same answers with and without cut marks, a preamble the rules ignore aside: scores.jsonl
    is byte for byte the same."""
    rows = _rows(ROOT / "data/sandglass/test.jsonl")[:6]
    plain = [{"case_id": row["case_id"], "prediction": row["metadata"]["source"]} for row in rows]
    marked = [dict(line, response={"finish": "length", "truncated": True}) for line in plain]
    scores = []
    for name, predictions in (("plain", plain), ("marked", marked)):
        summary, *_ = _run(tmp_path / name, "sandglass", BENCHMARKS["sandglass"], predictions)
        scores.append((tmp_path / name / "out-sandglass" / "scores.jsonl").read_bytes())
        assert summary["predictions"]["diagnostics"]["cut_off"] == (6 if name == "marked" else 0)
    assert scores[0] == scores[1]
    assert re.search(rb'"syllable_reward"', scores[0])


def test_the_documented_margin_of_the_script_check_on_the_bundled_references():
    """docs/predict.md: the closest bundled reference holds 79% of its own letters in its target's
    script, against the 20% threshold."""
    from eval.inputs.predictions import _ENTITY, _LETTERS, script_counts, target_scripts

    pairs = [(row["reference"], row["target_lang"], row["source_text"]) for row in _rows(ROOT / "data/test.jsonl")]
    pairs += [(row["label"], row["metadata"]["target_language"], row["metadata"]["source"])
              for row in _rows(ROOT / "data/sandglass/test.jsonl")]
    pairs += [(row["output"], row["target_language"], row["origin_text"])
              for path in ("test_single_constraint.jsonl", "test_multi_constraint.jsonl")
              for row in _rows(ROOT / "data/ifmtbench/data" / path)]
    shares = []
    for reference, target, source in pairs:
        if not reference:  # a row with no reference
            continue
        scripts = target_scripts(target)
        copied = set(_LETTERS.findall(source))
        counts = script_counts("".join(word for word in _LETTERS.findall(_ENTITY.sub(" ", reference))
                                       if word not in copied))
        if scripts and sum(counts.values()) >= 10:
            shares.append(sum(counts.get(script, 0) for script in scripts) / sum(counts.values()))
    assert len(shares) > 500 and round(min(shares) * 100) == 79
    assert "the closest reference holds 79% of its own letters" in " ".join(
        (ROOT / "docs/predict.md").read_text(encoding="utf-8").split())
