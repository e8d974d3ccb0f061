"""Loading and validating data rows (SPEC §1–§3, §5), from a JSONL file or through `datasets`.

Every source goes through `validate_rows`, so a row that breaks the release schema stops the run with
its line number (or dataset index) and the rule it breaks, whatever file or hub it came from; checks
beyond the schema are data warnings (SPEC §9), returned beside the rows.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from eval.insttrans.rules import CONSTRAINT_KINDS, CONSTRAINTS, SOCIAL_ONLY_IDS, line_states
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

    A final empty line is the file's terminator; any other blank line, unparsable line, line that
    repeats a key in one object, or string holding a lone surrogate (valid JSON, not valid
    Unicode) is an error of type `kind` naming the file and line (SPEC §1, §6).
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
            value = json.loads(line, object_pairs_hook=_object_without_repeated_keys)
        except json.JSONDecodeError as error:
            raise kind(f"{path}:{number}: not valid JSON ({error.msg} at column {error.colno})",
                       "write one JSON object per line") from None
        except RecursionError:
            raise kind(f"{path}:{number}: the JSON is nested too deeply to read",
                       "write one flat JSON object per line") from None
        except RepeatedKey as repeated:
            raise _repeated_key_error(kind, f"{path}:{number}", repeated) from None
        if "\\u" in line:  # the only way a decoded string can hold a surrogate is a \\uD800-\\uDFFF escape
            _refuse_lone_surrogate(kind, f"{path}:{number}", line, value)
        parsed.append((number, value))
    return parsed


def _repeated_key_error(kind: type, where: str, repeated: "RepeatedKey") -> Exception:
    return kind(f"{where}: the key {repeated.key!r} appears twice in one object",
                "write each key once (a JSON reader would silently keep only the last value)")


def _refuse_lone_surrogate(kind: type, where: str, line: str, value: object) -> None:
    surrogate = lone_surrogate(line, value)
    if surrogate:
        raise kind(f"{where}: {surrogate} (valid JSON, not valid Unicode)",
                   "write valid Unicode: a \\uD800-\\uDFFF escape must be half of a high-low pair "
                   "such as \\ud83d\\ude00, or write the character itself")


def refuse_repeated_keys_and_lone_surrogates(path: Path) -> None:
    """DataError at the first line of a JSONL file that repeats a key or holds a lone surrogate.

    For a file `datasets` reads (`--dataset FILE`): its reader keeps one of two repeated keys
    without a word and fails on a lone surrogate with a message that names no line. Lines it
    cannot parse are left to it, so its other messages stay as they were."""
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return
    for number, line in enumerate(text.split("\n"), 1):
        try:
            value = json.loads(line, object_pairs_hook=_object_without_repeated_keys)
        except RepeatedKey as repeated:
            raise _repeated_key_error(DataError, f"{path}:{number}", repeated) from None
        except (ValueError, RecursionError):
            continue
        if "\\u" in line:
            _refuse_lone_surrogate(DataError, f"{path}:{number}", line, value)


def first_jsonl_object(path: Path) -> object | None:
    """The parsed first line of a JSONL file, or None when it cannot be read or parsed.

    For telling the two benchmarks apart by the first row without parsing the whole file twice;
    the loader that follows reads every line and reports any problem (`read_jsonl_objects`)."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline()
        if first.startswith(b"\xef\xbb\xbf"):
            return None
        return json.loads(first.decode("utf-8"), object_pairs_hook=_object_without_repeated_keys)
    except (OSError, ValueError, RecursionError):  # unreadable, not UTF-8, not JSON, a repeated key
        return None


class RepeatedKey(ValueError):
    """Raised while decoding: one JSON object names `key` twice."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _object_without_repeated_keys(pairs: list[tuple[str, object]]) -> dict:
    """The object of `pairs`, refusing a repeated key (json keeps the last one without a word)."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)
    return result


_STRING_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)")


def lone_surrogate(line: str, value: object) -> str | None:
    """Where the JSON text `line` (parsed: `value`) holds a lone surrogate, or None.

    A decoded string holds a surrogate only through a `\\uD800`-`\\uDFFF` escape that json did not
    pair (a high one right before a low one becomes one character); the escape's column and the
    string it lands in (a key or the value at a path) are named.
    """
    pending = None  # a high-surrogate escape waiting for its low half
    lone = None
    for match in _STRING_ESCAPE.finditer(line):
        code = int(match.group(1), 16) if match.group(1) else None
        if pending is not None:
            if code is not None and 0xDC00 <= code <= 0xDFFF and match.start() == pending.end():
                pending = None
                continue
            lone = pending
            break
        if code is None:
            continue
        if 0xD800 <= code <= 0xDBFF:
            pending = match
        elif 0xDC00 <= code <= 0xDFFF:
            lone = match
            break
    lone = lone or pending
    if lone is None:
        return None
    where = _string_with_surrogate(value)
    return f"column {lone.start() + 1}: a lone surrogate {lone.group(0)} in {where}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _string_with_surrogate(value: object) -> str:
    """The first string (document order, a key before its value) that holds a surrogate, named
    by its path and the character position, e.g. `the value at "prediction", character 3`."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            found = _SURROGATE.search(node)
            if found:
                shown = f" at {path!r}" if path else ""
                return f"the string value{shown}, character {found.start() + 1}"
        elif isinstance(node, dict):
            children = []
            for key, child in node.items():
                found = _SURROGATE.search(key)
                if found:
                    shown = f" inside {path!r}" if path else ""
                    return f"the key {key!r}{shown}, character {found.start() + 1}"
                children.append((f"{path}.{key}" if path else key, child))
            stack.extend(reversed(children))
        elif isinstance(node, list):
            stack.extend(reversed([(f"{path}[{index}]", child) for index, child in enumerate(node)]))
    return "a string"


@dataclass(frozen=True)
class DataRows:
    """Validated rows, their data warnings (SPEC §9), and the file whose bytes identify them (None
    when the rows have no file: an in-memory or `save_to_disk` dataset)."""

    rows: list[dict]
    warnings: tuple[dict, ...]
    data_file: Path | None


def read_rows_from_file(path: Path, validate: Callable | None = None) -> DataRows:
    """Rows of a JSONL data file, checked by `validate` (default: the InstTrans rules of SPEC §1)."""
    entries = read_jsonl_objects(Path(path))
    if not entries:
        raise DataError(f"{path}: the data file has no rows", "point --data at a non-empty JSONL file")
    rows, warnings = (validate or validate_rows)([(f"{path}:{number}", value) for number, value in entries])
    return DataRows(rows, tuple(warnings), Path(path))


def load_rows_from_file(path: Path, validate: Callable | None = None) -> list[dict]:
    """The rows alone of `read_rows_from_file` (for the generators, which check the bundled set strictly)."""
    return read_rows_from_file(path, validate).rows


def read_rows_from_dataset(name: str, validate: Callable | None = None) -> DataRows:
    """Rows loaded with `datasets` (the official release or a local copy), validated, with the file
    they came from (SPEC §9: one identity whatever the path).

    A local .json/.jsonl file is loaded with the json builder; a `save_to_disk` directory with
    `load_from_disk` (no file: identified by its rows); a dataset-repository directory or a hub id
    through `load_dataset`, the `test` split (or the only split). When the hub cannot be reached, a
    snapshot of the repository in the local hub cache is loaded instead. Columns that `datasets`
    fills with None for rows that lack an optional field are removed again before validation.
    """
    from eval import hub  # heavy (datasets): imported only on this path

    data_file = hub.resolve_data_file(name)  # a local file, a snapshot's data file, the hub's cached file
    if data_file is not None and data_file.suffix == ".jsonl":
        refuse_repeated_keys_and_lone_surrogates(data_file)
    try:
        dataset, data_file = hub.load_test_split(name)
    except DataError:
        raise
    except Exception as error:  # datasets raises many types; all mean "could not load"
        raise DataError(f"dataset {name}: could not load the test split ({type(error).__name__}: {error})",
                        "check the name, your network access, or pass a downloaded file with --data") from None
    located = []
    for index, row in enumerate(dataset):
        row = dict(row)
        for field_name in OPTIONAL_FIELDS:
            if row.get(field_name) is None:
                row.pop(field_name, None)
        if isinstance(row.get("style"), dict):
            row["style"] = {key: value for key, value in row["style"].items() if value is not None}
        located.append((f"dataset {name} [test][{index}]", row))
    if not located:
        raise DataError(f"dataset {name}: the test split is empty", "check the dataset name")
    rows, warnings = (validate or validate_rows)(located)
    if data_file is not None and not file_holds_rows(data_file, rows):
        data_file = None  # the cached file is not what datasets loaded: identify the rows themselves
    return DataRows(rows, tuple(warnings), data_file)


def file_holds_rows(path: Path, rows: list[dict]) -> bool:
    """Whether a JSONL file's case_ids are the loaded rows', in order: a hub cache that moved on
    since `datasets` built its Arrow copy must not lend its identity to other rows. A file this
    reader cannot check (not .jsonl, unreadable) keeps its identity."""
    if path.suffix != ".jsonl":
        return True
    try:
        entries = read_jsonl_objects(path)
    except DataError:
        return True
    ids = [value.get("case_id") if isinstance(value, dict) else None for _, value in entries]
    return ids == [row["case_id"] for row in rows]


def load_rows_from_dataset(name: str, validate: Callable | None = None) -> list[dict]:
    """The rows alone of `read_rows_from_dataset`."""
    return read_rows_from_dataset(name, validate).rows


@dataclass(frozen=True)
class LoadedData:
    """The rows of a run, where they came from, and their identity (SPEC §9)."""

    rows: list[dict]
    source: str
    sha256: str
    warnings: tuple = ()     # data warnings {case_id, where, message} (SPEC §9)
    identity: str = "file"   # "file": sha256 of the data file's bytes; "rows": canonical rows (no file)


def load_data(source: DataSource, default_data: Path, default_dataset: str,
              validate: Callable[[list[tuple[str, object]]], tuple[list[dict], list[dict]]]) -> LoadedData:
    """Load and validate the rows `source` names (the benchmark gives its defaults and its row
    validator). The data file's bytes are the identity whichever flag named it, a snapshot
    directory and the hub's cached file included; only rows without a file fall back to the
    canonical-rows hash (SPEC §9). Data warnings are shown in one line on stderr."""
    if source.dataset:
        name = source.dataset
        loaded = read_rows_from_dataset(name, validate=validate)
        if loaded.data_file is not None:
            data = LoadedData(loaded.rows, f"dataset:{name}", file_sha256(loaded.data_file), loaded.warnings)
        else:
            data = LoadedData(loaded.rows, f"dataset:{name}", rows_sha256(loaded.rows), loaded.warnings, "rows")
    else:
        path = source.path or default_data
        loaded = read_rows_from_file(path, validate=validate)
        shown = str(path) if source.path or not path.is_relative_to(ROOT) else str(path.relative_to(ROOT))
        data = LoadedData(loaded.rows, shown, file_sha256(path), loaded.warnings)
    if data.warnings:
        print(warnings_line(data.warnings), file=sys.stderr)
    return data


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


def data_warning(case_id: str, where: str, message: str) -> dict:
    """One entry of summary.json `data.warnings` (SPEC §9)."""
    return {"case_id": case_id, "where": where, "message": message}


def warnings_line(warnings) -> str:
    """The one console line that says how many data warnings a load produced (SPEC §9)."""
    first = warnings[0]
    return (f"warning: {len(warnings)} data warning{'s' if len(warnings) != 1 else ''} (the rows are scored as the "
            f"original scorer scores them; all listed in summary.json data.warnings); first: "
            f"{first['where']}: {first['message']}")


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
