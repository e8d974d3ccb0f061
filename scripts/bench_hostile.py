"""Hostile predictions (docs/testing.md): the time every hard rule of both sets and the syllable counter
take on the degenerate outputs of issue 21, and on repeated tokens of growing size.

Usage: python -m scripts.bench_hostile [--shapes] [--sweep] [--sizes 10,100,1000] [--lists [--items 10000,40000]]
       [--release] [--judge [--judge-before]]

`--shapes` times each named shape on the bundled row it targets (every hard rule of both sets,
then the whole row written as a scores.jsonl line); `--sweep` times each rule and counter on
predictions of the given sizes in KB and prints the ratio between consecutive sizes (10 means
linear); `--lists` times each rule and validator that reads a list (a glossary line, social
elements, a term_dict, assets) at the given numbers of items. `--release` reads release sources that
stop Python's parser (issue 34) through eval.release.source.read_source, each in a child process,
and prints its outcome, time and peak memory. `--judge` times every Judge reply reader of the three
benchmarks (harness and release protocols) and the redaction of the stored copy on hostile replies
of 16 and 64 KB (the reply cap), with the growth ratio (4 means linear); `--judge-before` adds the
verdict fence's pattern, which the reader used before issue 34, at 1,000 to 4,000 characters.
Figures are in docs/testing.md. tests/test_hostile_input.py, tests/test_judge_parsing.py and
tests/test_release_bindings.py run the same builders (at smaller sizes).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The bundled rows each shape is aimed at: an HTML row (zh source, so the untranslated-Chinese
# test runs too), a Markdown row, a placeholder row, a JSON row, and syllable rows in French and
# Japanese (their subtitle line carries the shape).
HTML_ROW, MARKDOWN_ROW, PLACEHOLDER_ROW = "itb-social-011", "itb-lit-032", "itb-doc-041"
JSON_ROW, FRENCH_ROW, JAPANESE_ROW = "itb-lit-074", "itb-subtitle-002", "itb-subtitle-022"


def _repeat(token: str, size: int) -> str:
    return (token * (size // len(token) + 1))[:size]


def _subtitle(text: str) -> str:
    """`text` as line 1 of a four-line subtitle prediction."""
    return json.dumps({"1": text, "2": "oui", "3": "non", "4": "bien"}, ensure_ascii=False)


# name -> (case_id, builder(size in characters) -> prediction, the size issue 21 measured)
SHAPES = {
    "html attribute spaces": (HTML_ROW, lambda n: "<a" + " " * n + "x\ny>", 2_000),
    "unclosed tag name": (HTML_ROW, lambda n: "<" + "a" * n, 20_000),
    "unclosed comments": (HTML_ROW, lambda n: _repeat("<!--", n), 100_000),
    "open LaTeX \\(": (PLACEHOLDER_ROW, lambda n: "{x} " + _repeat("\\(", n), 100_000),
    "open LaTeX \\[": (PLACEHOLDER_ROW, lambda n: "{x} " + _repeat("\\[", n), 100_000),
    "one French token": (FRENCH_ROW, lambda n: _subtitle("a" * n), 40_000),
    "(eu) repeated to French": (FRENCH_ROW, lambda n: _subtitle(_repeat("eu", n)), 40_000),
    "%$€ to Japanese": (JAPANESE_ROW, lambda n: _subtitle(_repeat("%$€", n)), 40_000),
    "Markdown-like 10 MB": (MARKDOWN_ROW, lambda n: _repeat("- **a** `b` [c](d) *e*\n", n), 10_000_000),
    "lone-surrogate JSON key": (JSON_ROW, lambda n: '{"\\ud800": ' + json.dumps("x" * n) + "}", 1_000),
}


# --- Judge replies (issue 34): name -> builder(size in characters) -> reply text ---------------

def _object_of_keys(size: int, repeated: bool) -> str:
    count = max(1, size // 10)
    keys = ("a" for _ in range(count)) if repeated else (f"k{index}" for index in range(count))
    return "{" + ", ".join(f'"{key}": 0' for key in keys) + "}"


JUDGE_SHAPES = {
    "``` + newlines + x (issue 34)": lambda n: "```" + "\n" * n + "x",
    "``` + letters + spaces + x": lambda n: "```" + "a" * (n // 2) + " " * (n // 2) + "x",
    "``` + newlines + x```": lambda n: "```" + "\n" * n + "x```",
    "``` repeated": lambda n: _repeat("```", n),
    "``` + spaces + {": lambda n: "```json" + " " * n + "{",
    "an object of n/10 keys": lambda n: _object_of_keys(n, repeated=False),
    "one key n/10 times": lambda n: _object_of_keys(n, repeated=True),
    "[ nested": lambda n: "[" * n,
    "{ nested, then }": lambda n: "{" * (n // 2) + "}" * (n // 2),
    "digits": lambda n: '{"quality": ' + "1" * n + "}",
    "0. + zeros + x": lambda n: "0." + "0" * n + "x",
    "2 2 2 … 1": lambda n: _repeat("2 ", n) + "1",
    "whitespace + 1": lambda n: " \t\n" * (n // 3) + "1",
}
JUDGE_KEY = "sk-bench-" + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" * 2


def judge_validators() -> dict:
    """Every reader of a Judge reply: the harness's (InstTrans quality and soft, IFMTBench rubric
    and glossary; Sandglass shares quality), the releases' (bare quality, InstTrans soft, IFMTBench
    rubric and glossary), and the redaction of the copy the results keep."""
    from eval.ifmtbench import prompt as ifmt_prompt
    from eval.ifmtbench import release as ifmt_release
    from eval.insttrans import release as it_release
    from eval.insttrans.verdicts import soft_validator, validate_quality
    from eval.providers.redaction import without_secrets
    from eval.release.protocol import validate_bare_quality

    return {"harness quality": validate_quality, "harness soft": soft_validator(["style_consistency", "coref_resolution"]),
            "IFMTBench rubric": ifmt_prompt.validate_rubric, "IFMTBench glossary": ifmt_prompt.validate_glossary,
            "release bare quality": validate_bare_quality,
            "InstTrans release soft": it_release.soft_validator(["style_consistency"]),
            "IFMTBench release rubric": ifmt_release.rubric_validator(["style", "background"]),
            "IFMTBench release glossary": ifmt_release.validate_glossary,
            "stored copy (redaction)": lambda text: without_secrets(text, (JUDGE_KEY,))}


def time_reply(validate, reply: str) -> float:
    from eval.judge_client import VerdictError

    started = time.perf_counter()
    try:
        validate(reply)
    except VerdictError:
        pass
    return time.perf_counter() - started


def judge_table(before: bool) -> None:
    import re

    validators = judge_validators()
    print("| reply | slowest reader at 64 KB | its time | at 16 KB | ratio (4 = linear) |")
    print("|---|---|---:|---:|---:|")
    for name, build in JUDGE_SHAPES.items():
        large = {label: min(time_reply(validate, build(64_000)) for _ in range(3)) for label, validate in validators.items()}
        slowest = max(large, key=large.get)
        small = min(time_reply(validators[slowest], build(16_000)) for _ in range(3))
        print(f"| {name} | {slowest} | {large[slowest] * 1000:.2f} ms | {small * 1000:.2f} ms | "
              f"{large[slowest] / max(small, 1e-6):.1f} |", flush=True)
    if before:
        spec_fence = re.compile(r"\A```[A-Za-z]*\s*(.*?)\s*```\Z", re.S)
        for size in (1_000, 2_000, 4_000):
            started = time.perf_counter()
            spec_fence.match("```" + "\n" * size + "x")
            print(f"the verdict fence's pattern on ``` + {size:,} newlines + x: {time.perf_counter() - started:.2f} s",
                  flush=True)


def bundled_rows() -> dict[str, dict]:
    lines = (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["case_id"]: row for row in map(json.loads, filter(str.strip, lines))}


_LOADERS = ("_cmu_syllables", "_tagger")


def clear_text_caches() -> None:
    """Empty the counter's per-text and per-word caches (not its loaders), so that a repeated
    measurement counts again instead of reading the cache."""
    import importlib
    import pkgutil

    import eval.syllable as syllable

    for info in pkgutil.iter_modules(syllable.__path__):
        module = importlib.import_module(f"eval.syllable.{info.name}")
        for name, function in vars(module).items():
            if hasattr(function, "cache_clear") and name not in _LOADERS:
                function.cache_clear()


def time_row(row: dict, prediction: str) -> dict[str, float]:
    """Seconds per (rule set, hard id) on `row`, and for scoring and writing the row whole."""
    from eval.insttrans.rules import RULE_SETS
    from eval.io.outputs import jsonl_line
    from eval.insttrans.scoring import score_instance
    from eval.scoring.rule_contract import ScoringContext

    times = {}
    clear_text_caches()
    for rule_set, rules in RULE_SETS.items():
        for constraint_id, rule in rules.items():
            started = time.perf_counter()
            rule(row, prediction)
            times[f"{rule_set}/{constraint_id}"] = time.perf_counter() - started
    clear_text_caches()
    started = time.perf_counter()
    for rule_set in RULE_SETS:
        jsonl_line(score_instance(row, prediction, None, ScoringContext(rule_set=rule_set)))
    times["score and write"] = time.perf_counter() - started
    return times


# --- the sweep: one repeated token per mark a pattern reads ----------------------------------

SWEEP_TOKENS = ("<a ", "<!--", "<", "\\(", "$", "{{a", "%(", "**a", "`", "[a](", "#a", "@a", "[",
                "http://a", "- ", "| ", "\u3000", "a", "(eu)", "é", "%$€", "１２３", "Ab", '{"a":')
COUNTER_SAMPLES = {  # one repeated word per script family of eval/syllable
    "en": "hello ", "fr": "(eu)", "de": "Schule ", "ru": "привет ", "ja": "こんにちは", "zh": "你好",
    "ko": "안녕 ", "th": "สวัสดี", "hi": "नमस्ते ", "ar": "مرحبا ", "vi": "xin ", "es": "hola ",
}


SOCIAL_ROW = "itb-social-001"  # a Markdown source with #topic#, [emote] and a social_preserve line

# (rule set, hard id, row): each rule on the rows whose source makes it read the prediction.
SWEEP_TARGETS = [(rule_set, "format_preserve", row) for rule_set in ("original", "strict")
                 for row in (HTML_ROW, MARKDOWN_ROW, PLACEHOLDER_ROW, JSON_ROW)]
SWEEP_TARGETS += [(rule_set, cid, row) for rule_set in ("original", "strict")
                  for cid, row in (("syllable_order", FRENCH_ROW), ("term_compliance", JSON_ROW),
                                   ("social_preserve", SOCIAL_ROW), ("layout_break", MARKDOWN_ROW))]


def sweep_cases(clock=time.perf_counter):
    """(label, callable(size) -> seconds): every rule target × token, then the counter per family.
    `clock` is wall time for this script's figures; the tests pass the thread's CPU time
    (time.thread_time), which other processes on a shared machine, or other test workers, do not
    stretch."""
    from eval.insttrans.rules import RULE_SETS
    from eval.syllable import count_syllables

    rows = bundled_rows()
    cases = []
    for token in SWEEP_TOKENS:
        for rule_set, constraint_id, row_id in SWEEP_TARGETS:
            def run(size, rule=RULE_SETS[rule_set][constraint_id], row=rows[row_id], token=token):
                text = _repeat(token, size)
                clear_text_caches()
                started = clock()
                rule(row, text)
                return clock() - started
            cases.append((f"{rule_set}/{constraint_id} {row_id} {token!r}", run))
    for lang, word in COUNTER_SAMPLES.items():
        def count(size, lang=lang, word=word):
            text = _repeat(word, size)
            clear_text_caches()
            started = clock()
            count_syllables(text, lang)
            return clock() - started
        cases.append((f"count_syllables {lang} {word!r}", count))
    return cases


# --- lists: a constraint line or term_dict of n items (issue 34 item 13) -------------------------

GLOSSARY_ROW = "itb-social-011"  # any bundled row: its constraint lines are replaced


def list_cases():
    """(label, build(n) -> callable): each rule and validator that reads a list of n items, on a
    prediction holding every item (the worst case for a per-item search: each one is found late)."""
    from eval.ifmtbench.labels import LABELS
    from eval.ifmtbench.rows import row_warnings as ifmt_row_warnings
    from eval.ifmtbench.rules import check_assets, check_glossary
    from eval.insttrans.rows import row_warnings
    from eval.insttrans.rules import RULE_SETS

    base = bundled_rows()[GLOSSARY_ROW]

    def insttrans(constraint_id: str, rule_set: str, validate: bool = False):
        def build(n: int):
            if constraint_id == "term_compliance":
                items = [f"term{i}" for i in range(n)]
                line = "术语对照：" + "、".join(f"源{i}→{item}" for i, item in enumerate(items))
            else:
                items = [f"#topic{i}#" for i in range(n)]
                line = "保留社交元素：" + "、".join(items)
            row = {**base, "constraints": [line], "constraint_ids": [constraint_id]}
            prediction = " ".join(items)
            if validate:
                return lambda: row_warnings(row)
            return lambda: RULE_SETS[rule_set][constraint_id](row, prediction)
        return build

    def ifmtbench(kind: str):
        def build(n: int):
            targets = {f"t{i}": [f"candidate{i}a", f"candidate{i}b"] for i in range(n)}
            output = " ".join(f"candidate{i}a" for i in range(n))
            row = {"output": output, "term_dict": targets, "meta_data": {"extracted_assets": [f"`a{i}`" for i in range(n)]}}
            response = " ".join(f"candidate{i}b `a{i}`" for i in range(n))
            if kind == "glossary":
                return lambda: check_glossary(row, response)
            if kind == "assets":
                return lambda: check_assets(row, response)
            label = next(name for name, entry in LABELS.items() if entry[0] == "glossary")
            return lambda: ifmt_row_warnings(row, [label], {}, targets)
        return build

    return [("InstTrans original term_compliance", insttrans("term_compliance", "original")),
            ("InstTrans strict term_compliance", insttrans("term_compliance", "strict")),
            ("InstTrans original social_preserve", insttrans("social_preserve", "original")),
            ("InstTrans glossary row validation", insttrans("term_compliance", "original", validate=True)),
            ("IFMTBench glossary", ifmtbench("glossary")),
            ("IFMTBench assets", ifmtbench("assets")),
            ("IFMTBench glossary row validation", ifmtbench("validation"))]


def time_list_case(build, n: int, repeats: int = 3, clock=time.perf_counter) -> float:
    """The best of `repeats` timings of one list case at n items (building the input not counted),
    by `clock` (as sweep_cases)."""
    call = build(n)
    best = float("inf")
    for _ in range(repeats):
        started = clock()
        call()
        best = min(best, clock() - started)
    return best


# name -> release source text (issue 34 item 8's sizes), read as a release file would be.
RELEASE_SHAPES = {
    "unary chain, 10 KB": lambda: "X = " + "- " * 5_000 + "1\n",
    "concatenation, 200,000 terms": lambda: "X = " + " + ".join(['"a"'] * 200_000) + "\n",
    "attribute chain, 2,000 deep": lambda: "X = a" + ".b" * 2_000 + "\n",
    "list literal, 6 MB": lambda: "X = [" + "0," * 3_000_000 + "]\n",
    "list literal at the cap": lambda: "X = [" + "0," * 65_000 + "]\n",
    "an ordinary file (a few KB)": lambda: "X = {'en': 'E'}\n" * 200,
}
_CHILD = """
import resource, sys, time
from pathlib import Path
from eval.errors import ConfigError
from eval.release.source import read_source
path = Path(sys.argv[1])
start = time.perf_counter()
try:
    read_source(path.parent, path.name)
    outcome = "read"
except ConfigError as error:
    reason = ("the size cap" if "bytes" in error.message else "the depth bound" if "nested at most" in error.message
              else "the parser's limit" if "too deep" in error.message else "does not parse")
    outcome = "exit 2, " + reason
print(f"{time.perf_counter() - start:.3f}\t{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}\t{outcome}")
"""


def release_shapes() -> None:
    """Each shape read in a fresh interpreter: its outcome, the read's time and the process's peak RSS
    (the interpreter and the harness's imports included; 'an ordinary file' shows that floor)."""
    import subprocess
    import tempfile
    print("| release source | bytes | outcome | time | peak RSS |")
    print("|---|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for name, build in RELEASE_SHAPES.items():
            path = Path(folder) / "release.py"
            path.write_text(build(), encoding="utf-8")
            result = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True,
                                    cwd=ROOT, timeout=600)
            if result.returncode != 0:
                print(f"| {name} | {path.stat().st_size:,} | exit {result.returncode}: "
                      f"{result.stderr.strip().splitlines()[-1][:80]} | | |", flush=True)
                continue
            seconds, peak, outcome = result.stdout.strip().split("\t")
            print(f"| {name} | {path.stat().st_size:,} | {outcome} | {seconds} s | {peak} MB |", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", action="store_true", help="time the named hostile shapes")
    parser.add_argument("--sweep", action="store_true", help="time every rule on repeated tokens")
    parser.add_argument("--sizes", default="10,100,1000", help="sweep sizes in KB (default 10,100,1000)")
    parser.add_argument("--only", default="", help="only the shapes whose name contains this")
    parser.add_argument("--verbose", action="store_true", help="print every sweep case as it is timed")
    parser.add_argument("--lists", action="store_true",
                        help="time the rules and validators that read a list (a glossary of n items)")
    parser.add_argument("--items", default="10000,40000", help="list sizes for --lists (default 10000,40000)")
    parser.add_argument("--release", action="store_true", help="read release sources that stop Python's parser")
    parser.add_argument("--judge", action="store_true", help="time every Judge reply reader on hostile replies")
    parser.add_argument("--judge-before", action="store_true", help="with --judge: time the fence pattern too")
    args = parser.parse_args()
    if args.lists:
        sizes = [int(size) for size in args.items.split(",")]
        print("| list read by | " + " | ".join(f"{n:,} items" for n in sizes) + " | ratio |")
        print("|---|" + "---:|" * (len(sizes) + 1))
        for label, build in list_cases():
            seconds = [time_list_case(build, n, repeats=1) for n in sizes]
            print(f"| {label} | " + " | ".join(f"{s:.3f} s" for s in seconds)
                  + f" | {seconds[-1] / max(seconds[0], 1e-3):.1f} |", flush=True)
        return 0
    if args.release:
        release_shapes()
    if not (args.shapes or args.sweep or args.release or args.judge):
        args.shapes = True
    if args.judge:
        judge_table(args.judge_before)
    if args.shapes:
        rows = bundled_rows()
        print("| prediction | size | slowest rule | its time | all rules + score + write |")
        print("|---|---:|---|---:|---:|")
        for name, (row_id, build, size) in SHAPES.items():
            if args.only not in name:
                continue
            times = time_row(rows[row_id], build(size))
            slowest = max((key for key in times if key != "score and write"), key=times.get)
            print(f"| {name} | {size:,} | {slowest} | {times[slowest]:.3f} s | {sum(times.values()):.3f} s |",
                  flush=True)
    if args.sweep:
        sizes = [int(size) * 1000 for size in args.sizes.split(",")]
        worst = []
        for label, run in sweep_cases():
            run(sizes[0])  # warm the lazy loaders
            seconds = [run(size) for size in sizes]
            ratios = [later / max(earlier, 2e-3) for earlier, later in zip(seconds, seconds[1:])]
            worst.append((max(ratios, default=1.0), seconds[-1], label, seconds))  # one size: no ratio
            if args.verbose:
                print(f"  ratio {max(ratios, default=1.0):6.1f}  " + " ".join(f"{s:.4f}" for s in seconds) + f"  {label}", flush=True)
        worst.sort(reverse=True)
        print(f"{len(worst)} cases; the 15 with the largest growth ratio (time floored at 2 ms), then the 10 slowest:")
        for ratio, _, label, seconds in worst[:15]:
            print(f"  ratio {ratio:6.1f}  " + " ".join(f"{s:.4f}" for s in seconds) + f"  {label}")
        for ratio, last, label, seconds in sorted(worst, key=lambda item: -item[1])[:10]:
            print(f"  {last:.3f} s at {sizes[-1] // 1000} KB  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
