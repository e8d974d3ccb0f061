"""Model output is hostile input (SPEC §7): every rule near-linear, any text JSON can carry scored
and written. One test per shape of issue 21, a JSON parsing test suite fed as predictions, and a
generated sweep whose times are compared as ratios between sizes (never as absolute times; the
figures are in docs/testing.md, from scripts/bench_hostile.py)."""

from __future__ import annotations

import gc
import json
import random
import time
from pathlib import Path

import pytest

import evaluate
from conftest import make_row, write_jsonl
from eval.insttrans.rules import RULE_SETS
from eval.io.outputs import jsonl_line
from eval.inputs.predictions import is_missing
from eval.scoring.rule_contract import ScoringContext
from eval.insttrans.scoring import score_instance
from scripts.bench_hostile import SHAPES, bundled_rows, clear_text_caches, sweep_cases

SUITE = Path(__file__).parent / "data" / "json_test_suite" / "test_parsing"

# A shape's time at its full size may be at most this many times its time at a tenth of the size
# (10 is linear; a quadratic rule gives about 100, and the cubic one far more).
GROWTH_LIMIT = 40
NOISE_FLOOR = 0.005  # seconds: shorter times are mostly the machine's noise (a shared 2-core box)


def _seconds(function) -> float:
    """The thread's CPU seconds: other processes on the machine (or the other test worker) do not stretch them."""
    started = time.thread_time()
    function()
    return time.thread_time() - started


def _score_and_write(row: dict, prediction: str) -> list[dict]:
    """Both rule sets' score rows, each written as a scores.jsonl line and read back."""
    lines = [jsonl_line(score_instance(row, prediction, None, ScoringContext(rule_set=rule_set)).to_dict())
             for rule_set in RULE_SETS]
    for line in lines:
        line.encode("utf-8")  # writable
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def rows():
    return bundled_rows()


def _shape_time(rows, name: str, size: int) -> float:
    row_id, build, _ = SHAPES[name]
    prediction = build(size)
    clear_text_caches()
    return _seconds(lambda: _score_and_write(rows[row_id], prediction))


# Sizes chosen so that the largest runs in well under a second now; the shapes' own sizes are in
# scripts/bench_hostile.py. Before the fix each of these grew 100 times or more over a tenth.
@pytest.mark.parametrize("name, size", [
    ("html attribute spaces", 4_000),
    ("unclosed tag name", 40_000),
    ("unclosed comments", 40_000),
    ("open LaTeX \\(", 40_000),
    ("open LaTeX \\[", 40_000),
    ("one French token", 40_000),
    ("(eu) repeated to French", 40_000),
    ("%$€ to Japanese", 8_000),
    ("lone-surrogate JSON key", 400_000),
    ("Markdown-like 10 MB", 200_000),
])
def test_a_hostile_shape_grows_near_linearly(rows, name, size):
    _shape_time(rows, name, size // 10)  # warm the lazy loaders (tagger, CMU, markdown-it)
    small = min(_shape_time(rows, name, size // 10) for _ in range(3))
    large = min(_shape_time(rows, name, size) for _ in range(3))
    assert large <= GROWTH_LIMIT * max(small, NOISE_FLOOR), (name, small, large)


def test_a_lone_surrogate_json_key_is_scored_and_written(tmp_path):
    source = '{"title": "标题", "items": [{"name": "甲"}]}'
    rows = [make_row("j", source_text=source, reference='{"title": "T", "items": [{"name": "A"}]}',
                     scenario="doc_textbook", domain="网页文本")]
    prediction = '{"\\ud800": "x", "title": "T", "items": [{"name": "A"}]}'
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    predictions = write_jsonl(tmp_path / "predictions.jsonl", [{"case_id": "j", "prediction": prediction}])
    out = tmp_path / "out"
    assert evaluate.main(["--data", str(data), "--predictions", str(predictions), "--output-dir", str(out),
                          "--skip-judge", "--quiet"]) == 0
    score = json.loads((out / "scores.jsonl").read_text(encoding="utf-8"))
    assert score["hard_pass"] is False
    assert score["constraints"][0]["detail"]["json"]["extra_paths"] == ["\ud800"]  # the same key, read back
    assert "\\ud800" in (out / "report.md").read_text(encoding="utf-8")


def _suite_predictions(errors: str = "surrogateescape") -> list[tuple[str, str]]:
    """(file name, text) for every parsing test file. Bytes that are not UTF-8 become lone
    surrogates for the rules (hostile text they must survive) or U+FFFD for a predictions file,
    whose reader refuses lone surrogates with a clear line (SPEC §6)."""
    return [(path.name, path.read_bytes().decode("utf-8", errors=errors)) for path in sorted(SUITE.iterdir())]


def test_every_json_test_suite_file_scores_and_writes_on_a_json_row():
    suite = _suite_predictions()
    assert len(suite) == 318
    object_row = make_row("j", source_text='{"a": "一", "b": [1, "二"]}', scenario="doc_textbook", domain="网页文本")
    array_row = make_row("k", source_text='["一", {"c": null}]', scenario="doc_textbook", domain="网页文本")
    subtitle_row = make_row("s", target_lang="ja", source_text='{"1": "是", "2": "不是"}', duration_s=[1.0, 2.0],
                            batch_size=2, scenario="ugc_subtitle", domain="UGC字幕",
                            constraints=["以相同的 JSON 对象返回", "字幕时长：时间越长译文越长"],
                            constraint_ids=["format_preserve", "syllable_order"])
    for name, prediction in suite:
        for row in (object_row, array_row, subtitle_row):
            for score in _score_and_write(row, prediction):
                assert score["status"] == ("missing" if is_missing(prediction) else "ok"), name


def test_the_json_test_suite_runs_end_to_end(tmp_path):
    suite = _suite_predictions(errors="replace")
    rows = [make_row(f"j{index}", source_text='{"a": "一", "b": [1, "二"]}', scenario="doc_textbook",
                     domain="网页文本") for index in range(len(suite))]
    predictions = [{"case_id": f"j{index}", "prediction": text} for index, (_, text) in enumerate(suite)]
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(json.dumps(value) + "\n" for value in predictions), encoding="utf-8")
    out = tmp_path / "out"
    assert evaluate.main(["--data", str(data), "--predictions", str(path), "--output-dir", str(out),
                          "--skip-judge", "--quiet"]) == 0
    assert len((out / "scores.jsonl").read_text(encoding="utf-8").splitlines()) == len(suite)


# --- the generated sweep ------------------------------------------------------------------------

SWEEP = sweep_cases(clock=time.thread_time)  # CPU seconds, as _seconds
SWEEP_SIZES = (16_000, 64_000)  # characters: four times apart
SWEEP_GROWTH_LIMIT = 9  # over a fourfold size: 4 is linear, a quadratic rule gives 16
SWEEP_FLOOR = 0.002  # seconds; below it growth is noise (the collector is held while timing)


def _sweep_times(run) -> tuple[float, float]:
    """The best of two timings at each size, the garbage collector held (its pauses are noise)."""
    gc.disable()
    try:
        return min(run(SWEEP_SIZES[0]) for _ in range(2)), min(run(SWEEP_SIZES[1]) for _ in range(2))
    finally:
        gc.enable()


@pytest.mark.parametrize("label, run", SWEEP, ids=[label for label, _ in SWEEP])
def test_sweep_every_rule_and_counter_grows_near_linearly(label, run):
    """16 and 64 KB of one repeated token: the larger may take at most SWEEP_GROWTH_LIMIT times the
    smaller, measured again up to three times in all before failing (a quadratic rule fails every
    time, a busy spell of the shared machine seldom three times running). A rule of c·n² seconds
    fails once c·64K² passes SWEEP_GROWTH_LIMIT × SWEEP_FLOOR, c ≥ 4.4e-12: what 3, 30 and 300 KB
    with a 10 ms floor and a limit of 40 caught. Each rule of both sets runs on the rows whose source
    makes it read the prediction; the counter on one word per script family. The 1 MB and 10 MB
    sizes are scripts/bench_hostile.py's."""
    run(1_000)  # warm the lazy loaders
    for _ in range(3):
        small, large = _sweep_times(run)
        if large <= SWEEP_GROWTH_LIMIT * max(small, SWEEP_FLOOR):
            break
    assert large <= SWEEP_GROWTH_LIMIT * max(small, SWEEP_FLOOR), (label, small, large)


def test_the_buffered_inline_parse_gives_markdown_its_own_tokens():
    """markdown-it-py 3.x (what mdit-py-cjk-friendly's pin resolves to) appends unclaimed text one
    character at a time, quadratic in a run of `[`; the strict rules then parse inline text over a
    buffered state. It must give the library's own tokens, on either version."""
    from eval.insttrans import markdown_tokens

    rng = random.Random(7)
    alphabet = "ab [](){}*_`<>!\\\n  注意：请**~#-:&"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))) for _ in range(3_000)]
    texts += ["**注意：**请", "[a](b) `c` *d* ![e](f) <http://x.y>", "a  \nb\\\nc", "`` a ` b ``"]
    for links in (True, False):
        parser = markdown_tokens.markdown_parser(links=links)
        for text in texts:
            native, buffered = [], []
            parser.inline.parse(text, parser, {}, native)
            markdown_tokens.parse_inline_buffered(parser, text, {}, buffered)
            assert [token.as_dict() for token in buffered] == [token.as_dict() for token in native], text
