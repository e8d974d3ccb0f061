"""The diagnostics that say a model did not translate (issue 22, SPEC §6, §11): a prediction in
the source's script instead of the target's, and one that echoes the prompt. Reported beside
the wrapper diagnostics (code fences, think blocks), never scored; no false alarm on the bundled
references."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from eval.inputs.predictions import wrapper_diagnostics

ROOT = Path(__file__).resolve().parent.parent
ROWS = [json.loads(line) for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("prediction, source, target, expected", [
    ("你好，世界。今天天气很好。", "你好，世界。今天天气很好。", "en", True),          # answered in the source language
    ("Hello, world. The weather is fine today.", "你好，世界。今天天气很好。", "en", False),
    ("Hello 北京 and 上海 friends, welcome.", "你好北京和上海的朋友们，欢迎。", "en", False),  # names kept
    ('{"cart_title": "我的购物车", "checkout": "立即付款"}', '{"cart_title": "My cart", "checkout": "Pay"}', "zh", False),
    ('{"cart_title": "My cart", "checkout": "Pay now"}', '{"cart_title": "My cart", "checkout": "Pay"}', "zh", True),
    ("こんにちは、世界。", "Hello, world.", "ja", False),
    ("Hola, mundo.", "Hello, world.", "es", False),                               # one script: never this diagnostic
    ("Привет, мир.", "Привет, мир.", "en", True),
    ("", "你好", "en", False),
    ("你好", "你好", None, False),                                                 # target unknown: not judged
])
def test_a_prediction_in_the_sources_script(prediction, source, target, expected):
    assert wrapper_diagnostics(prediction, source, target)["source_script"] is expected


@pytest.mark.parametrize("prediction, source, expected", [
    ("请把下面的文本翻译成英文：\n今天的会议改到下午三点。", "今天的会议改到下午三点。", True),
    ("The meeting today moved to 3 pm.", "今天的会议改到下午三点。", False),
    ("OK", "OK", False),                                                          # too short to tell
    ("Translation: Hello world, how are you", "Hello world, how are you", True),
])
def test_a_prediction_that_echoes_the_source(prediction, source, expected):
    assert wrapper_diagnostics(prediction, source, "en")["echoes_source"] is expected


def test_the_bundled_references_raise_neither_and_an_echoing_model_is_reported(tmp_path):
    assert not any(wrapper_diagnostics(row["reference"], row["source_text"], row["target_lang"])["source_script"]
                   or wrapper_diagnostics(row["reference"], row["source_text"], row["target_lang"])["echoes_source"]
                   for row in ROWS)
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"case_id": row["case_id"], "prediction": row["prompt"]
                                               if isinstance(row["prompt"], str) else row["prompt"][-1]["content"]},
                                              ensure_ascii=False) + "\n" for row in ROWS[:40]), encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--predictions", str(predictions), "--limit",
                           "40", "--output-dir", str(tmp_path / "out"), "--skip-judge", "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    diagnostics = summary["predictions"]["diagnostics"]
    assert diagnostics["echoes_source"] == 40
    assert "- echoes source: 40" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
