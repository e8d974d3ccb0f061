"""IFMTBench in manifest.json (SPEC §9, §14): the bundled set's identity and counts, and the
counts the release publishes (its two files' row counts; it publishes no checksum, so it is
known by those counts, `rows.release_by_rows`)."""

from __future__ import annotations

import json
from collections import Counter

from eval.io.data import file_sha256, files_sha256
from eval.ifmtbench.prompt import PROMPT_VERSIONS
from eval.ifmtbench.rows import RELEASE_FILES, ROOT

BUNDLED_DIR = ROOT / "data" / "ifmtbench"
BUNDLED_FILES = tuple(f"data/{name}" for name in RELEASE_FILES)


def _sorted_counts(counter: Counter) -> dict:
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def data_statistics(rows: list[dict]) -> dict:
    """Rows per data file, as the release publishes them."""
    return {"by_file": dict(Counter(row["data_file"] for row in rows))}


def bundled_entry() -> dict | None:
    """The bundled IFMTBench set's identity and counts, read as plain JSONL (SPEC §14's release schema)."""
    paths = [BUNDLED_DIR / name for name in BUNDLED_FILES]
    if not all(path.exists() for path in paths):
        return None
    files, rows = {}, []
    for name, path in zip(BUNDLED_FILES, paths):
        file_rows = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]
        files[name] = {"sha256": file_sha256(path), "n_rows": len(file_rows)}
        rows += file_rows
    labels = [[row["class"]] if isinstance(row["class"], str) else row["class"] for row in rows]
    md5s = Counter(row["md5"] for row in rows)
    formats = [row["data_format"] if "data_format" in row else row["meta_data"].get("data_format") for row in rows]
    return {
        "provenance": ("Written for this repository by the harness team in the release schema (scripts/"
                       "build_ifmtbench.py); NOT the official IFMTBench release (4,506 + 2,838 items), and its "
                       "scores are not comparable with published ones."),
        "path": str(BUNDLED_DIR.relative_to(ROOT)),
        "sha256": files_sha256(paths),  # the identity of data read from both files, single first
        "n_instances": len(rows),
        "files": files,
        "distinct_md5": len(md5s),
        "md5_repeated": sum(1 for n in md5s.values() if n > 1),
        "by_label": _sorted_counts(Counter(label for row_labels in labels for label in row_labels)),
        "labels_per_row": {str(k): v for k, v in sorted(Counter(len(row_labels) for row_labels in labels).items())},
        "by_data_format": _sorted_counts(Counter(fmt for fmt in formats if fmt)),
        "by_origin_language": _sorted_counts(Counter(row["origin_language"] for row in rows)),
        "by_target_language": _sorted_counts(Counter(row["target_language"] for row in rows)),
        "by_instruction_lang": _sorted_counts(Counter(row["instruction_lang"] for row in rows)),
        "example_predictions": str((BUNDLED_DIR / "example_predictions.jsonl").relative_to(ROOT)),
        "prompt_versions": dict(PROMPT_VERSIONS),
    }


def manifest_entry() -> dict:
    """The top-level manifest.json key this benchmark writes (none while no bundled set exists)."""
    entry = bundled_entry()
    return {} if entry is None else {"ifmtbench": entry}
