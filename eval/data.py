"""Loading and validating data rows (SPEC §1–§3, §5), from a JSONL file or through `datasets`.

Every source goes through `validate_rows`, so a row that breaks the schema stops the run with its
line number (or dataset index) and the rule it breaks, whatever file or hub it came from.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from eval.constraints import CONSTRAINT_KINDS, CONSTRAINTS, line_states
from eval.config import DataSource
from eval.errors import DataError
from eval.languages import CHINESE_NAMES

ROOT = Path(__file__).resolve().parent.parent
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
# Reading
# --------------------------------------------------------------------------------------------

def read_jsonl_objects(path: Path, kind: DataError | type = DataError) -> list[tuple[int, object]]:
    """(line number, parsed value) for each line of a UTF-8 JSONL file, split on `\\n` only.

    A final empty line is the file's terminator; any other blank line or unparsable line is an
    error of type `kind` naming the file and line.
    """
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise kind(f"{path}: cannot read the file ({error.strerror})", "check the path") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raise kind(f"{path}: the file starts with a UTF-8 byte-order mark", "save it as UTF-8 without BOM")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise kind(f"{path}:{line}: not valid UTF-8", "save the file as UTF-8") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    parsed = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            raise kind(f"{path}:{number}: blank line", "remove blank lines; every line must be one JSON object")
        try:
            parsed.append((number, json.loads(line)))
        except json.JSONDecodeError as error:
            raise kind(f"{path}:{number}: not valid JSON ({error.msg} at column {error.colno})",
                       "write one JSON object per line") from None
        except RecursionError:
            raise kind(f"{path}:{number}: the JSON is nested too deeply to read",
                       "write one flat JSON object per line") from None
    return parsed


def load_rows_from_file(path: Path, validate: Callable | None = None) -> list[dict]:
    """Rows of a JSONL data file, checked by `validate` (default: the InstTrans rules of SPEC §1)."""
    entries = read_jsonl_objects(Path(path))
    if not entries:
        raise DataError(f"{path}: the data file has no rows", "point --data at a non-empty JSONL file")
    return (validate or validate_rows)([(f"{path}:{number}", value) for number, value in entries])


def load_rows_from_dataset(name: str, validate: Callable | None = None) -> list[dict]:
    """Rows of the `test` split loaded with `datasets` (the official release or a local copy).

    A path to a local .json/.jsonl file is loaded with the json builder; anything else is passed
    to `load_dataset(name, split="test")`. Columns that `datasets` fills with None for rows that
    lack an optional field are removed again before validation.
    """
    from datasets import load_dataset  # heavy: imported only on this path

    try:
        if Path(name).is_file():
            dataset = load_dataset("json", data_files={"test": str(name)}, split="test")
        else:
            dataset = load_dataset(name, split="test")
    except Exception as error:  # datasets raises many types; all mean "could not load"
        raise DataError(f"dataset {name}: could not load the test split ({type(error).__name__}: {error})",
                        "check the name, your network access, or pass a downloaded file with --data") from None
    rows = []
    for index, row in enumerate(dataset):
        row = dict(row)
        for field_name in OPTIONAL_FIELDS:
            if row.get(field_name) is None:
                row.pop(field_name, None)
        if isinstance(row.get("style"), dict):
            row["style"] = {key: value for key, value in row["style"].items() if value is not None}
        rows.append((f"dataset {name} [test][{index}]", row))
    if not rows:
        raise DataError(f"dataset {name}: the test split is empty", "check the dataset name")
    return (validate or validate_rows)(rows)


@dataclass(frozen=True)
class LoadedData:
    """The rows of a run and where they came from."""

    rows: list[dict]
    source: str
    sha256: str


def load_data(source: DataSource, default_data: Path, default_dataset: str,
              validate: Callable[[list[tuple[str, object]]], list[dict]]) -> LoadedData:
    """Load and validate the rows `source` names (the benchmark gives its defaults and its row
    validator). A local file is identified by its bytes whichever flag named it (SPEC §9)."""
    if source.dataset:
        name = source.dataset
        rows = load_rows_from_dataset(name, validate=validate)
        local_file = Path(name).is_file()
        return LoadedData(rows, f"dataset:{name}", file_sha256(Path(name)) if local_file else rows_sha256(rows))
    path = source.path or default_data
    rows = load_rows_from_file(path, validate=validate)
    shown = str(path) if source.path or not path.is_relative_to(ROOT) else str(path.relative_to(ROOT))
    return LoadedData(rows, shown, file_sha256(path))


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, the data identity checked against manifest.json (SPEC §9)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def rows_sha256(rows: list[dict]) -> str:
    """SHA-256 of the rows serialised as canonical JSONL, for data that did not come from a file."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps(row, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n")
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------
# Validation (SPEC §1)
# --------------------------------------------------------------------------------------------

def validate_rows(located_rows: list[tuple[str, object]]) -> list[dict]:
    """Validate every row and the uniqueness of case_ids; return the rows in order."""
    seen: dict[str, str] = {}
    rows = []
    for where, row in located_rows:
        validate_row(row, where)
        if row["case_id"] in seen:
            raise DataError(f"{where}: duplicate case_id {row['case_id']!r} (first at {seen[row['case_id']]})",
                            "every case_id must be unique")
        seen[row["case_id"]] = where
        rows.append(row)
    return rows


def validate_row(row: object, where: str) -> None:
    """Raise DataError naming `where` and the broken rule when a row breaks SPEC §1."""

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
    if DOMAIN_SCENARIO.get(row["domain"]) != row["scenario"]:
        fail(f"domain {row['domain']!r} is not a domain of scenario {row['scenario']!r}",
             f"domains of {row['scenario']}: {', '.join(SCENARIO_DOMAINS[row['scenario']])}")

    constraints, ids = row.get("constraints"), row.get("constraint_ids")
    if not isinstance(constraints, list) or not all(isinstance(line, str) for line in constraints):
        fail("constraints must be a list of strings")
    if not isinstance(ids, list) or not all(isinstance(cid, str) for cid in ids):
        fail("constraint_ids must be a list of strings")
    if not ids:
        fail("constraint_ids is empty", "every instance carries 1 to 5 constraints")
    if len(constraints) != len(ids):
        fail(f"constraints has {len(constraints)} lines but constraint_ids has {len(ids)} ids",
             "the two lists are aligned one to one")
    for cid in ids:
        if cid not in CONSTRAINT_KINDS:
            fail(f"constraint id {cid!r} is unknown", f"use one of: {', '.join(CONSTRAINT_KINDS)}")
    if len(set(ids)) != len(ids):
        fail("constraint_ids repeats an id", "each constraint id appears at most once per instance")
    for line in constraints:
        if not line.strip() or "\n" in line:
            fail("a constraint line is empty or contains a line break")
        if line not in row["prompt"]:
            fail(f"constraint line {line!r} does not occur in the prompt", "constraints are verbatim prompt lines")
    if row["source_text"] not in row["prompt"]:
        fail("source_text does not occur in the prompt", "source_text is the source exactly as it stands in the prompt")

    durations = row.get("duration_s")
    if "syllable_order" in ids:
        if not isinstance(durations, list) or not durations:
            fail("duration_s is required on a syllable_order row", "give one duration in seconds per subtitle line")
    elif "duration_s" in row:
        fail("duration_s is present but syllable_order is not among the constraint ids")
    if durations is not None:
        for value in durations:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                fail(f"duration_s holds {value!r}; every duration must be a number > 0")

    if "batch_size" in row:
        size = row["batch_size"]
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            fail(f"batch_size must be a positive integer, got {size!r}")
    if "style" in row:
        style = row["style"]
        if not isinstance(style, dict):
            fail("style must be an object such as {\"formality\": \"casual\"}")
        if "formality" in style and style["formality"] not in FORMALITIES:
            fail(f"style.formality {style['formality']!r} is not one of {', '.join(FORMALITIES)}")

    if "term_compliance" in ids:
        from eval.constraints import glossary_terms

        if not glossary_terms(row):
            fail("a term_compliance row whose constraint lines yield no glossary term",
                 "write the glossary as 术语对照：源→译、源→译 (docs/protocol.md, 'Constraint lines and their keywords')")


# --------------------------------------------------------------------------------------------
# Conventions of the bundled set (SPEC §3, §5), checked by its tests and by scripts/build_data.py
# --------------------------------------------------------------------------------------------

SOCIAL_ONLY_IDS = ("format_preserve", "social_preserve", "term_compliance")
SUBTITLE_SCENARIOS = ("pgc_subtitle", "ugc_subtitle")


def bundled_row_problems(row: dict) -> list[str]:
    """What keeps a row from meeting the bundled set's conventions; empty when it meets them.

    Beyond §1: the prompt is the §5 layout and re-extracts to the row's fields; each line carries
    its own id's keywords and no other id's; the §3 domain rules hold.
    """
    problems = []
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
