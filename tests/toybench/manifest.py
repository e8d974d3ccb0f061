"""Toy-Bench in manifest.json: its bundled set's identity and counts."""

from __future__ import annotations

from collections import Counter

from eval.io.data import file_sha256, load_rows_from_file

from .prompt import PROMPT_VERSIONS
from .rows import DEFAULT_DATA, validate_toy_rows


def data_statistics(rows: list[dict]) -> dict:
    return {"by_genre": dict(Counter(row["genre"] for row in rows))}


def manifest_entry() -> dict:
    rows = load_rows_from_file(DEFAULT_DATA, validate_toy_rows)
    return {"toybench": {"sha256": file_sha256(DEFAULT_DATA), "n_instances": len(rows), **data_statistics(rows),
                         "prompt_versions": dict(PROMPT_VERSIONS)}}
