"""Shared fixtures: valid data rows in the bundled layout and JSONL writers."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

# Tests run offline: `datasets` must never try the hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
# A suite started as a background job of a script (`cmd &`) inherits SIGINT ignored, and so would
# every child a test starts: the Ctrl-C tests would see a process that cannot be interrupted. Put
# back Python's own handler, as in a terminal (xdist's workers run this too).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

from eval.insttrans.rows import render_prompt

def make_row(case_id: str = "t-001", **fields) -> dict:
    """A valid §1 row (zh→en, one format_preserve line) with `fields` overriding the defaults."""
    row = {
        "case_id": case_id,
        "reference": "Hello, world",
        "source_lang": "zh",
        "target_lang": "en",
        "source_text": "你好，世界",
        "constraints": ["保持原文格式"],
        "constraint_ids": ["format_preserve"],
        "scenario": "social",
        "domain": "评论",
    }
    row.update(fields)
    row["prompt"] = fields.get("prompt") or render_prompt(
        row["source_lang"], row["target_lang"], row["constraints"], row["source_text"])
    return row

def write_jsonl(path: Path, objects: list) -> Path:
    """Write one JSON value per line (UTF-8, `\\n` line ends)."""
    path.write_text("".join(json.dumps(value, ensure_ascii=False) + "\n" for value in objects), encoding="utf-8")
    return path

def count_replies(path: Path) -> int:
    """How many replies a Judge cache file holds (0 when it does not exist)."""
    from eval.judge.cache import open_cache

    if not path.exists():
        return 0
    connection = open_cache(path)
    try:
        return connection.execute("SELECT COUNT(*) FROM judge_replies").fetchone()[0]
    finally:
        connection.close()
