"""Toy-Bench rows: one short text to translate within a word budget, with terms it must use.

The schema is the package's own (nothing shared knows it): `case_id`, `source`, `target_lang`,
`reference`, `max_words`, `must_include` (terms), `genre`. A bundled set of eight rows lives in
data/test.jsonl beside this module.
"""

from __future__ import annotations

from pathlib import Path

from eval.io.data import data_warning
from eval.errors import DataError

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "test.jsonl"
FIELDS = {"case_id": str, "source": str, "target_lang": str, "reference": str, "max_words": int,
          "must_include": list, "genre": str}
TARGET_LANGUAGES = {"en": "English", "de": "German"}


def looks_like_toy(row: object) -> bool:
    """A Toy-Bench row is the only kind with a word budget and a term list."""
    return isinstance(row, dict) and "max_words" in row and "must_include" in row


def words(text: str) -> int:
    """Whitespace-separated words: the package's counter (`Benchmark.counters`)."""
    return len(text.split())


def validate_toy_rows(located_rows: list[tuple[str, object]]) -> tuple[list[dict], list[dict]]:
    """(rows, warnings): a row that breaks the schema is a DataError naming where; a reference over
    its own budget is only a warning (the row is scored as given)."""
    seen: dict[str, str] = {}
    rows, warnings = [], []
    for where, row in located_rows:
        if not isinstance(row, dict):
            raise DataError(f"{where}: a Toy-Bench row must be a JSON object", "write one object per line")
        for name, kind in FIELDS.items():
            if not isinstance(row.get(name), kind) or isinstance(row.get(name), bool):
                raise DataError(f"{where}: field {name!r} must be a {kind.__name__}", "fix the row")
        if row["target_lang"] not in TARGET_LANGUAGES:
            raise DataError(f"{where}: target_lang {row['target_lang']!r} is not one of {', '.join(TARGET_LANGUAGES)}",
                            "fix the row")
        if row["max_words"] < 1 or not all(isinstance(term, str) and term for term in row["must_include"]):
            raise DataError(f"{where}: max_words must be positive and must_include non-empty strings", "fix the row")
        if row["case_id"] in seen:
            raise DataError(f"{where}: duplicate case_id {row['case_id']!r} (first at {seen[row['case_id']]})",
                            "every case_id must be unique")
        seen[row["case_id"]] = where
        if words(row["reference"]) > row["max_words"]:
            warnings.append(data_warning(row["case_id"], where, "the reference is over its own word budget"))
        rows.append(row)
    return rows, warnings


def model_input(row: dict) -> dict:
    """What a model may see: the instruction and the source, never the reference."""
    terms = ", ".join(row["must_include"])
    content = (f"Translate into {TARGET_LANGUAGES[row['target_lang']]} in at most {row['max_words']} words, "
               f"using these terms: {terms}.\n\n{row['source']}")
    return {"case_id": row["case_id"], "messages": [{"role": "user", "content": content}]}
