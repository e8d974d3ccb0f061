"""The differential fuzz: this harness's hard rules against a copy of an official scorer version.

    python -m scripts.scorer_fuzz --original DIR --version NAME [--n 26000] [--seed 0] [--json PATH]

DIR is the user's copy of the scorer (a folder holding `eval/constraints.py`, or the release root
holding `benchmarks/insttrans/eval/constraints.py`); its `check_hard_constraints(row, prediction)`
is imported from there (this runs the copy's code: give only a copy you trust). The fuzz mutates
the bundled rows' references and example predictions (and, for some, the row's source text,
layout line and glossary line) by the families of the rules' edge cases: Markdown markers,
placeholders (`$`, `%`, `{}`), HTML with script/style elements and leftover Chinese, indents and
line breaks, tables, terms beside CJK/Hangul/Thai characters, social elements, and the JSON keys
of syllable_order.
Every hard verdict of both sides is compared. Both count syllables with this harness's counter
(the copy's `.syllable` import is given it), so the counter decides no disagreement; a verdict
where the copy crashes is counted apart and must be a failure here (SPEC §7.2).

Prints the compared verdicts and disagreements per constraint and the first few disagreements;
exits 1 when any verdict differs. docs/protocol.md quotes the figures of a 26,000-prediction run.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import random
import sys
import types
from collections import Counter
from pathlib import Path

from eval.insttrans.rules import HARD_IDS, RULE_TABLE, glossary_terms, social_elements
from eval.insttrans.scorer_versions import DEFAULT_SCORER_VERSION, SCORER_VERSIONS
from eval.scoring.rule_contract import ScoringContext
from eval.inputs.predictions import is_missing

ROOT = Path(__file__).resolve().parent.parent
COPY_PACKAGE = "_scorer_fuzz_copy"


# --- the copy of the scorer ------------------------------------------------------------------

def constraints_file(folder: Path) -> Path:
    for candidate in (folder / "eval" / "constraints.py", folder / "benchmarks" / "insttrans" / "eval" / "constraints.py"):
        if candidate.is_file():
            return candidate
    raise SystemExit(f"error: {folder}: no eval/constraints.py (nor benchmarks/insttrans/eval/constraints.py) in it")


def harness_counter(text, lang: str) -> int:
    """The copy's syllable counter replaced by this harness's, with the original's reading of a
    value that is no string: a falsy one is an empty line, any other crashes (SPEC §7.2)."""
    from eval.syllable import count_syllables

    if not text:
        return 0
    if not isinstance(text, str):
        raise TypeError(f"not a string: {type(text).__name__}")
    return count_syllables(text, lang)


def load_copy(folder: Path):
    """The copy's check_hard_constraints, its `.syllable` import answered by harness_counter."""
    path = constraints_file(folder)
    for name in [name for name in sys.modules if name == COPY_PACKAGE or name.startswith(COPY_PACKAGE + ".")]:
        del sys.modules[name]
    package = types.ModuleType(COPY_PACKAGE)
    package.__path__ = [str(path.parent)]
    syllable = types.ModuleType(COPY_PACKAGE + ".syllable")
    syllable.cal_syllable_count = harness_counter
    sys.modules[COPY_PACKAGE], sys.modules[COPY_PACKAGE + ".syllable"] = package, syllable
    spec = importlib.util.spec_from_file_location(COPY_PACKAGE + ".constraints", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.check_hard_constraints


# --- mutations -------------------------------------------------------------------------------

MARKDOWN_LINE_STARTS = ("# ", "### ", "####### ", "- ", "* ", "+ ", "1. ", "12. ", "1.", "> ", ">", "-")
MARKDOWN_INLINE = ("**", "*", "**粗体**", "*斜体*", "*a*", "`", "`code`", "```\ncode\n```", "[链接](http://x.y)",
                   "![图](a.png)", "[a]", "(b)", "|", "| a | b |", "a|b", "* x *", "2 * 3 * 4", "***")
MARKDOWN_REMOVABLE = ("**", "*", "`", "#", "|", "> ", "1. ", "- ", "](", "[")
PLACEHOLDERS = ("$1", "$100", "$9.99", "$name", "$_x", "$k$", "$ 5", "$$", "%s", "%d", "%f", "%x", "%(name)s",
                "%(n)d", "%(bad)x", "%1$s", "{name}", "{{name}}", "{0}", "{}", "{ name }", "${user}", "US$5")
HTML_WRAPS = (("<b>", "</b>"), ("<script>", "</script>"), ("<style>", "</style>"), ("<SCRIPT type=x>", "</script>"),
              ("<script>", "</Script>"), ("<style\n>", "</style>"), ("<script>", ""), ("<a href=\"x\">", "</a>"),
              ("<p class='c'>", "</p>"), ("<中文>", ""), ("<!-- ", " -->"), ("<br/>", ""), ("<br />", ""),
              ("<script>", "</script >"), ("<scripts>", "</scripts>"))
CHINESE = ("中文", "你好世界", "老师", "点这里", "这是一段没有翻译的中文内容", "。", "数据")
INDENTS = (" ", "  ", "\t", "\n", "\n ", "\u3000", "\r\n", " \n", "\u00a0", "\n\n")
TERMS = ("GPT-4", "원신", "ゲーム", "ไทย", "数据", "Öl", "AI", "C++", "e-mail", "「引号」", "x.y", "The Term", "GPT-4는",
         "Tom's", "3.5", "UP主", "أهلا", "привет", "〇号")
NEIGHBOURS = ("", " ", "我用", "写", "는", "을", "ที่", "、", "。", "s", "_", "-", "x", "1", "ゲ", "ㄱ", "Ö", "é",
              "「", "」", "\u3000", "𠀀", "ㅤ", "ｶ", "\n")
LAYOUT_LINES = ("排版：保持缩进", "排版：保持换行", "布局：保留表格", "排版：保持换行与缩进", "保持原文排版",
                "排版：换行、缩进、表格不变")
JSON_VALUES = ("", " ", "\n", None, 0, False, True, [], {}, 5, 1.5, "x", "嗯", "a b c d e f g h",
               "这是一句相当长的字幕台词，用来打乱音节顺序", ["x"], {"a": "b"}, "\u3000")


def _insert(rng: random.Random, text: str, piece: str) -> str:
    at = rng.randint(0, len(text))
    return text[:at] + piece + text[at:]


def _at_line_start(rng: random.Random, text: str, piece: str) -> str:
    lines = text.split("\n")
    index = rng.randrange(len(lines))
    lines[index] = piece + lines[index]
    return "\n".join(lines)


def _remove_one(rng: random.Random, text: str, piece: str) -> str:
    starts = [index for index in range(len(text)) if text.startswith(piece, index)][:50]
    if not starts:
        return text
    at = rng.choice(starts)
    return text[:at] + text[at + len(piece):]


def markdown(rng, text, row):
    choice = rng.random()
    if choice < 0.35:
        return _at_line_start(rng, text, rng.choice(MARKDOWN_LINE_STARTS))
    if choice < 0.7:
        return _insert(rng, text, rng.choice(MARKDOWN_INLINE))
    piece = rng.choice(MARKDOWN_REMOVABLE)
    return text.replace(piece, "") if rng.random() < 0.5 else _remove_one(rng, text, piece)


def placeholders(rng, text, row):
    if rng.random() < 0.6:
        return _insert(rng, text, rng.choice(PLACEHOLDERS))
    piece = rng.choice(PLACEHOLDERS)
    return text.replace(piece, rng.choice(("", piece + piece, piece.upper(), "$")))


def html(rng, text, row):
    choice = rng.random()
    if choice < 0.6:
        opening, closing = rng.choice(HTML_WRAPS)
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        inner = text[start:end] if rng.random() < 0.5 else rng.choice(CHINESE)
        return text[:start] + opening + inner + closing + text[end:]
    if choice < 0.8:
        return _insert(rng, text, rng.choice(CHINESE))
    return _remove_one(rng, text, rng.choice(("<", ">", "</", "script", "style")))


def indent(rng, text, row):
    if rng.random() < 0.7:
        return rng.choice(INDENTS) + text
    return text.lstrip() if rng.random() < 0.5 else text.lstrip(" \t")


def lines(rng, text, row):
    choice = rng.random()
    if choice < 0.35:
        return _insert(rng, text, "\n")
    if choice < 0.6:
        return _remove_one(rng, text, "\n")
    if choice < 0.8:
        return _at_line_start(rng, text, rng.choice(("a|b|c\n", "| x |\n", "|\n", "||")))
    return text.replace("|", "")


def terms(rng, text, row):
    known = glossary_terms(row) or list(TERMS)
    term = rng.choice(known)
    if rng.random() < 0.35 and term in text:
        return text.replace(term, rng.choice(("", term.lower(), term.upper(), term + "s")))
    return _insert(rng, text, rng.choice(NEIGHBOURS) + term + rng.choice(NEIGHBOURS))


def social(rng, text, row):
    elements = social_elements(row) or ["#话题#", "@某人", "[doge]"]
    element = rng.choice(elements)
    return text.replace(element, "", 1) if element in text and rng.random() < 0.5 else _insert(rng, text, element)


def json_keys(rng, text, row):
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        count = len(row.get("duration_s") or []) or 3
        value = {str(number): rng.choice(("一句", "two words", "三个字", "long line of text here")) for number in
                 range(1, count + 1)}
    value = dict(value)
    choice = rng.random()
    keys = list(value) or ["1"]
    if choice < 0.3:
        value.pop(rng.choice(keys), None)
    elif choice < 0.75:
        value[rng.choice(keys)] = copy.deepcopy(rng.choice(JSON_VALUES))
    elif choice < 0.85:
        value[str(rng.randint(0, 12))] = rng.choice(("x", "额外"))
    elif choice < 0.92:
        return rng.choice(("[]", '"s"', "not json", "```json\n" + json.dumps(value, ensure_ascii=False) + "\n```",
                           "null", "{", "1"))
    else:
        items = list(value.items())
        rng.shuffle(items)
        value = dict(items)
    return json.dumps(value, ensure_ascii=False, indent=rng.choice((None, 2)))


def random_edit(rng, text, row):
    if not text:
        return text
    start = rng.randrange(len(text))
    end = min(len(text), start + rng.randint(1, 12))
    return text[:start] + text[end:] if rng.random() < 0.5 else text[:end] + text[start:end] + text[end:]


FAMILIES = {"markdown": markdown, "placeholders": placeholders, "html": html, "indent": indent, "lines": lines,
            "terms": terms, "social": social, "json_keys": json_keys, "random_edit": random_edit}
SOURCE_FAMILIES = ("markdown", "placeholders", "html", "indent", "lines")  # what may change a row's source too


def mutated_row(rng: random.Random, row: dict) -> dict:
    """Sometimes the row itself moves: its source (what triggers format_preserve and layout_break),
    its layout line (one feature alone, so an indent is judged without the line-break count) or its
    glossary line (a term of another script)."""
    row = dict(row)
    if rng.random() < 0.3:
        row["source_text"] = FAMILIES[rng.choice(SOURCE_FAMILIES)](rng, row["source_text"], row)
    if "layout_break" in row["constraint_ids"] and rng.random() < 0.5:  # each feature alone too
        line = rng.choice(LAYOUT_LINES)
        row["constraints"] = [text for text in row["constraints"] if "排版" not in text and "布局" not in text] + [line]
    if "term_compliance" in row["constraint_ids"] and rng.random() < 0.4:
        pairs = "、".join(f"源{index}→{rng.choice(TERMS)}" for index in range(rng.randint(1, 3)))
        row["constraints"] = [line for line in row["constraints"] if "术语对照" not in line] + [f"术语对照：{pairs}"]
    return row


def cases(rows: list[dict], predictions: dict, n: int, seed: int):
    """`n` (row, prediction, families) triples, the same for the same seed."""
    rng = random.Random(seed)
    hard_rows = [row for row in rows if any(cid in HARD_IDS for cid in row["constraint_ids"])]
    names = list(FAMILIES)
    for _ in range(n):
        row = mutated_row(rng, rng.choice(hard_rows))
        base = predictions.get(row["case_id"])
        text = row["reference"] if is_missing(base) or rng.random() < 0.4 else base
        used = [rng.choice(names) for _ in range(rng.randint(1, 3))]
        for name in used:
            text = FAMILIES[name](rng, text, row)
        yield row, text, used


# --- the comparison --------------------------------------------------------------------------

def compare(copy_check, version: str, rows: list[dict], predictions: dict, n: int, seed: int,
            examples: int = 10) -> dict:
    compared, disagree, crashes, by_family = Counter(), Counter(), Counter(), Counter()
    found: list[dict] = []
    skipped = 0
    for row, prediction, used in cases(rows, predictions, n, seed):
        if is_missing(prediction):  # both score it 0 (SPEC §6); the copy never sees one
            skipped += 1
            continue
        for cid in dict.fromkeys(row["constraint_ids"]):
            if cid not in HARD_IDS:
                continue
            ours = RULE_TABLE.check(cid, row, prediction, ScoringContext(scorer_version=version)).passed
            compared[cid] += 1
            try:  # one id at a time, so that a crash on one rule hides no other verdict
                theirs = bool(copy_check({**row, "constraint_ids": [cid]}, prediction)[cid]["is_valid"])
            except Exception as error:  # noqa: BLE001 - the copy's crash is a finding, not ours
                crashes[cid] += 1
                if ours:  # a crash there is a failure here (SPEC §7.2)
                    disagree[cid] += 1
                    by_family.update(used)
                    found.append({"case_id": row["case_id"], "id": cid, "harness": ours,
                                  "copy": f"{type(error).__name__}: {error}", "families": used,
                                  "prediction": prediction[:200]})
                continue
            if theirs != ours:
                disagree[cid] += 1
                by_family.update(used)
                if len(found) < examples:
                    found.append({"case_id": row["case_id"], "id": cid, "harness": ours, "copy": theirs,
                                  "families": used, "source": row["source_text"][:200], "prediction": prediction[:200]})
    return {"version": version, "predictions": n, "skipped_missing": skipped,
            "compared": sum(compared.values()), "disagreements": sum(disagree.values()),
            "by_constraint": {cid: {"compared": compared[cid], "disagree": disagree[cid], "copy_crashed": crashes[cid]}
                              for cid in HARD_IDS if compared[cid]},
            "disagreeing_families": dict(by_family), "examples": found[:examples]}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--original", type=Path, required=True, metavar="DIR", help="the copy of the scorer version")
    parser.add_argument("--version", default=DEFAULT_SCORER_VERSION, choices=list(SCORER_VERSIONS),
                        help="the harness's scorer version to compare with it (default: the newest)")
    parser.add_argument("--n", type=int, default=26000, help="mutated predictions (default 26000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "test.jsonl")
    parser.add_argument("--predictions", type=Path, default=ROOT / "data" / "example_predictions.jsonl")
    parser.add_argument("--json", type=Path, default=None, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    rows = read_jsonl(args.data)
    predictions = {entry["case_id"]: entry.get("prediction") for entry in read_jsonl(args.predictions)}
    result = compare(load_copy(args.original), args.version, rows, predictions, args.n, args.seed)
    for cid, counts in result["by_constraint"].items():
        print(f"{cid}: {counts['disagree']} of {counts['compared']} disagree"
              + (f" (the copy crashed on {counts['copy_crashed']})" if counts["copy_crashed"] else ""))
    print(f"{args.version}: {result['disagreements']} of {result['compared']} verdicts disagree "
          f"({result['predictions']} mutated predictions, seed {args.seed})")
    for example in result["examples"]:
        print("  " + json.dumps(example, ensure_ascii=False))
    if args.json is not None:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 1 if result["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
