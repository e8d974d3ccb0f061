"""InstTrans-Bench rows: the release schema (SPEC §1–§3), the bundled prompt layout (SPEC §5) and
the conventions of the bundled set.

Every source goes through `validate_rows`, so a row that breaks the release schema stops the run with
its line number (or dataset index) and the rule it breaks, whatever file or hub it came from; checks
beyond the schema are data warnings (SPEC §9), returned beside the rows. Reading the lines is shared
(eval/io/data.py); what a row must hold is this benchmark's.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from eval.insttrans.rules import CONSTRAINT_KINDS, CONSTRAINTS, SOCIAL_ONLY_IDS, line_states
from eval.io.data import data_warning
from eval.errors import DataError
from eval.inputs.languages import CHINESE_NAMES
from eval.io.paths import bundle_root

ROOT = bundle_root()  # the checkout, or the installed share folder (eval/io/paths.py)
DEFAULT_DATA = ROOT / "data" / "test.jsonl"
DEFAULT_DATASET = "IndexTeam/InstTrans-Bench"

# SPEC §3: scenario -> its domains.
SCENARIO_DOMAINS: dict[str, tuple[str, ...]] = {
    "social": ("B站动态", "弹幕", "评论"),
    "doc_textbook": ("书籍", "网页文本"),
    "novel": ("小说",),
    "pgc_subtitle": ("ogv字幕",),
    "ugc_subtitle": ("UGC字幕",),
    "column": ("专栏文章",),
    "academic": ("学术论文",),
}
DOMAIN_SCENARIO = {domain: scenario for scenario, domains in SCENARIO_DOMAINS.items() for domain in domains}
FORMALITIES = ("casual", "neutral", "formal")
REQUIRED_STRINGS = ("case_id", "prompt", "reference", "source_lang", "target_lang", "source_text", "scenario", "domain")
OPTIONAL_FIELDS = ("duration_s", "batch_size", "style")

_NUMBERED_LINE = re.compile(r"^(\d+)\. (.*)$")
SOURCE_MARKER = "原文："


# --------------------------------------------------------------------------------------------
# The bundled prompt layout (SPEC §5)
# --------------------------------------------------------------------------------------------

def render_prompt(source_lang: str, target_lang: str, constraints: list[str], source_text: str) -> str:
    """The one Chinese layout every bundled prompt uses (SPEC §5)."""
    numbered = "".join(f"{i}. {line}\n" for i, line in enumerate(constraints, 1))
    return (
        f"请将以下{CHINESE_NAMES[source_lang]}文本翻译成{CHINESE_NAMES[target_lang]}，并满足以下要求：\n"
        f"{numbered}只输出译文，不要添加任何解释。\n\n{SOURCE_MARKER}\n{source_text}"
    )


def extract_prompt(prompt: str) -> tuple[list[str], str | None]:
    """SPEC §5 extraction: the numbered constraint block and the text after the `原文：` line.

    Splits on `\\n` only, so U+2028 and friends inside the source stay where they are.
    Returns (constraints, source_text); source_text is None when there is no `原文：` line.
    """
    lines = prompt.split("\n")
    constraints: list[str] = []
    index = 0
    while index < len(lines):
        match = _NUMBERED_LINE.match(lines[index])
        if match and match.group(1) == "1":
            break
        index += 1
    while index < len(lines):
        match = _NUMBERED_LINE.match(lines[index])
        if not match or int(match.group(1)) != len(constraints) + 1:
            break
        constraints.append(match.group(2))
        index += 1
    for marker_index in range(index, len(lines)):
        if lines[marker_index] == SOURCE_MARKER:
            return constraints, "\n".join(lines[marker_index + 1:])
    return constraints, None



# --------------------------------------------------------------------------------------------
# Validation (SPEC §1)
# --------------------------------------------------------------------------------------------

def validate_rows(located_rows: list[tuple[str, object]]) -> tuple[list[dict], list[dict]]:
    """(rows, warnings): every row checked, case_ids unique. A schema break raises DataError; a
    check beyond the schema becomes a warning `{case_id, where, message}` (SPEC §1, §9)."""
    seen: dict[str, str] = {}
    rows, warnings = [], []
    for where, row in located_rows:
        messages = validate_row(row, where)
        if row["case_id"] in seen:
            raise DataError(f"{where}: duplicate case_id {row['case_id']!r} (first at {seen[row['case_id']]})",
                            "every case_id must be unique")
        seen[row["case_id"]] = where
        rows.append(row)
        warnings += [data_warning(row["case_id"], where, message) for message in messages]
    return rows, warnings




def validate_row(row: object, where: str) -> list[str]:
    """Raise DataError naming `where` and the broken rule when a row breaks what the release schema
    guarantees (SPEC §1: types, required fields, list alignment, known ids and codes); return the
    row's data warnings (every further check, `row_warnings`). docs/release.md classifies each."""

    def fail(rule: str, hint: str = "fix the row; docs/data.md, 'The row schema', lists every field and rule") -> None:
        raise DataError(f"{where}: {rule}", hint)

    if not isinstance(row, dict):
        fail(f"a data row must be a JSON object, got {type(row).__name__}")
    for name in REQUIRED_STRINGS:
        if not isinstance(row.get(name), str):
            fail(f"field {name!r} must be a string" if name in row else f"field {name!r} is missing")
    case_id = row["case_id"]
    if not case_id.strip():
        fail("case_id is empty")
    for name in ("source_lang", "target_lang"):
        if row[name] not in CHINESE_NAMES:
            fail(f"{name} {row[name]!r} is not one of the 22 codes", f"use one of: {' '.join(CHINESE_NAMES)}")
    if row["scenario"] not in SCENARIO_DOMAINS:
        fail(f"scenario {row['scenario']!r} is unknown", f"use one of: {', '.join(SCENARIO_DOMAINS)}")
    if row["domain"] not in DOMAIN_SCENARIO:
        fail(f"domain {row['domain']!r} is unknown", f"use one of: {', '.join(DOMAIN_SCENARIO)}")

    constraints, ids = row.get("constraints"), row.get("constraint_ids")
    if not isinstance(constraints, list) or not all(isinstance(line, str) for line in constraints):
        fail("constraints must be a list of strings")
    if not isinstance(ids, list) or not all(isinstance(cid, str) for cid in ids):
        fail("constraint_ids must be a list of strings")
    if len(constraints) != len(ids):
        fail(f"constraints has {len(constraints)} lines but constraint_ids has {len(ids)} ids",
             "the two lists are aligned one to one")
    for cid in ids:
        if cid not in CONSTRAINT_KINDS:
            fail(f"constraint id {cid!r} is unknown", f"use one of: {', '.join(CONSTRAINT_KINDS)}")
    if len(set(ids)) != len(ids):  # scores are keyed by id (the Judge's verdict, the report): a repeat cannot be scored
        fail("constraint_ids repeats an id", "each constraint id appears at most once per instance")

    durations = row.get("duration_s")
    if "syllable_order" in ids and "duration_s" not in row:
        fail("duration_s is required on a syllable_order row", "give one duration in seconds per subtitle line")
    if durations is not None:
        if not isinstance(durations, list):
            fail("duration_s must be a list of numbers")
        for value in durations:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                fail(f"duration_s holds {value!r}; every duration must be a number")
    if "batch_size" in row:
        size = row["batch_size"]
        if isinstance(size, bool) or not isinstance(size, int):
            fail(f"batch_size must be an integer, got {size!r}")
    if "style" in row and not isinstance(row["style"], dict):
        fail("style must be an object such as {\"formality\": \"casual\"}")
    return row_warnings(row)


def subtitle_line_count(row: dict) -> tuple[int, str] | None:
    """(number of subtitle lines, where it was read): the source's `"1".."N"` JSON keys, else
    batch_size; None when the row states neither."""
    stripped = row["source_text"].strip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict) and value and set(value) == {str(i) for i in range(1, len(value) + 1)}:
            return len(value), 'the source\'s "1".."N" keys'
    size = row.get("batch_size")
    if isinstance(size, int) and not isinstance(size, bool):
        return size, "batch_size"
    return None


def row_warnings(row: dict) -> list[str]:
    """The checks beyond the release schema (SPEC §9) on a row that meets it. Each names what the
    rule then does, which is what the original scorer does with such a row."""
    from eval.insttrans.rules import glossary_terms, social_elements

    warnings = []
    ids, constraints, durations = row["constraint_ids"], row["constraints"], row.get("duration_s")
    if DOMAIN_SCENARIO[row["domain"]] != row["scenario"]:
        warnings.append(f"domain {row['domain']!r} is not a domain of scenario {row['scenario']!r}; "
                        "each breakdown uses the row's own values")
    if not ids:
        warnings.append("constraint_ids is empty: the instance has no gate and no soft score (if_score = 1 "
                        "unless the prediction is missing)")
    for line in constraints:
        if not line.strip() or "\n" in line:
            warnings.append(f"constraint line {line[:40]!r} is empty or contains a line break")
        elif line not in row["prompt"]:
            warnings.append(f"constraint line {line[:40]!r} does not occur in the prompt; the rules read the "
                            "constraints field as given")
    if row["source_text"] not in row["prompt"]:
        warnings.append("source_text does not occur in the prompt; the rules read the source_text field as given")
    if durations is not None:
        if "syllable_order" not in ids:
            warnings.append("duration_s is present but syllable_order is not among the constraint ids; it is unused")
        if "syllable_order" in ids and not durations:
            warnings.append("duration_s is empty: syllable_order passes (no durations), as in the original scorer")
        if any(value <= 0 for value in durations):
            warnings.append("duration_s holds a value <= 0; syllable_order compares the durations as given")
        lines = subtitle_line_count(row) if "syllable_order" in ids else None
        if lines is not None and durations and lines[0] != len(durations):
            warnings.append(f"duration_s has {len(durations)} values but the subtitle has {lines[0]} lines "
                            f"({lines[1]}); syllable_order reads lines \"1\"..\"{len(durations)}\" of the "
                            "prediction, as the original scorer does")
    if isinstance(row.get("batch_size"), int) and row["batch_size"] < 1:
        warnings.append(f"batch_size is {row['batch_size']}, not a positive number of lines")
    style = row.get("style")
    if isinstance(style, dict) and "formality" in style and style["formality"] not in FORMALITIES:
        warnings.append(f"style.formality {style['formality']!r} is not one of {', '.join(FORMALITIES)} "
                        "(no rule reads it)")
    if "term_compliance" in ids and not glossary_terms(row):
        warnings.append("a term_compliance row whose constraint lines yield no glossary term: the rule passes "
                        "(its detail says so), as in the original scorer")
    if "social_preserve" in ids and not social_elements(row):
        warnings.append("a social_preserve row whose 社交元素 lines list no element: the rule passes "
                        "(its detail says so), as in the original scorer")
    return warnings



def drop_unset_optionals(row: dict) -> dict:
    """A row as `datasets` gives it, without the None it fills in for an optional field the row
    lacks (and for a style key another row has), so it validates like the file's row."""
    for field_name in OPTIONAL_FIELDS:
        if row.get(field_name) is None:
            row.pop(field_name, None)
    if isinstance(row.get("style"), dict):
        row["style"] = {key: value for key, value in row["style"].items() if value is not None}
    return row


# --------------------------------------------------------------------------------------------
# Conventions of the bundled set (SPEC §3, §5), checked by its tests and by scripts/build_data.py
# --------------------------------------------------------------------------------------------

SUBTITLE_SCENARIOS = ("pgc_subtitle", "ugc_subtitle")


def bundled_row_problems(row: dict) -> list[str]:
    """What keeps a row from meeting the bundled set's conventions; empty when it meets them.

    Beyond §1: no data warning (`row_warnings`); the prompt is the §5 layout and re-extracts to
    the row's fields; each line carries its own id's keywords and no other id's; the §3 domain
    rules hold.
    """
    problems = list(row_warnings(row))  # every data warning is a problem in the bundled set
    expected = render_prompt(row["source_lang"], row["target_lang"], row["constraints"], row["source_text"])
    if row["prompt"] != expected:
        problems.append("prompt is not the §5 layout rendered from the row's fields")
    constraints, source_text = extract_prompt(row["prompt"])
    if constraints != row["constraints"]:
        problems.append("constraints differ from the §5 extraction of the prompt")
    if source_text != row["source_text"]:
        problems.append("source_text differs from the §5 extraction of the prompt")
    for cid, line in zip(row["constraint_ids"], row["constraints"]):
        own = CONSTRAINTS[cid].keywords
        if own and not line_states(line, cid):
            problems.append(f"the {cid} line carries none of its keywords {own}: {line!r}")
        for other in CONSTRAINTS:
            if other != cid and line_states(line, other):
                problems.append(f"the {cid} line carries a keyword of {other}: {line!r}")
    if row["domain"] in SCENARIO_DOMAINS["social"]:
        extra = [cid for cid in row["constraint_ids"] if cid not in SOCIAL_ONLY_IDS]
        if extra:
            problems.append(f"domain {row['domain']} carries {extra}; only {SOCIAL_ONLY_IDS} are allowed")
    if "syllable_order" in row["constraint_ids"] and row["scenario"] not in SUBTITLE_SCENARIOS:
        problems.append("syllable_order on a row that is not a subtitle")
    if "academic_format_preserve" in row["constraint_ids"] and row["scenario"] != "academic":
        problems.append("academic_format_preserve on a row that is not an academic paper")
    if row.get("duration_s") is not None and "batch_size" in row and len(row["duration_s"]) != row["batch_size"]:
        problems.append("duration_s does not have one value per line (batch_size)")
    if "style_consistency" in row["constraint_ids"] and "formality" not in row.get("style", {}):
        problems.append("a style_consistency row without style.formality")
    if not 1 <= len(row["constraint_ids"]) <= 5:
        problems.append("an instance carries 1 to 5 constraints")
    return problems
