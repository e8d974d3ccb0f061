"""Reading data rows (SPEC §1, §6, §9) from a JSONL file or through `datasets`, for any benchmark.

Every source goes through the benchmark's row validator, so a row that breaks its schema stops the
run with its line number (or dataset index) and the rule it breaks, whatever file or hub it came
from; checks beyond the schema are data warnings (SPEC §9), returned beside the rows. What a row
must hold is the benchmark's (`eval/insttrans/rows.py`, `eval/sandglass/rows.py`); this module
only reads, hashes and reports.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from eval.errors import DataError
from eval.io.input_files import is_regular, read_digest, read_once
from eval.io.paths import bundle_root

ROOT = bundle_root()  # the checkout, or the installed share folder (eval/io/paths.py)

# A benchmark's row validator: (where, value) pairs in, (rows, data warnings) out; a schema break
# raises DataError naming `where`.
Validate = Callable[[list[tuple[str, object]]], tuple[list[dict], list[dict]]]


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------

def read_jsonl_objects(path: Path, kind: DataError | type = DataError) -> list[tuple[int, object]]:
    """(line number, parsed value) for each line of a UTF-8 JSONL file, split on `\\n` only.

    A final empty line is the file's terminator and blank lines at the end are ignored; any other
    blank line, unparsable line, line that repeats a key in one object, or string holding a lone
    surrogate (valid JSON, not valid Unicode) is an error of type `kind` naming the file and line (SPEC §1, §6).
    """
    try:
        raw = read_once(path)  # a pipe is read once; the digest of these bytes is the file's identity
    except OSError as error:
        raise kind(f"{path}: cannot read the file ({error.strerror})", "check the path") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raise kind(f"{path}: the file starts with a UTF-8 byte-order mark", "save it as UTF-8 without BOM")
    # Line by line, never the whole file as one text: a 134 MB file decoded whole and split took
    # three copies of itself at once (issue 34). A UTF-8 error anywhere still comes first.
    parsed = []
    blank: tuple[int, int] | None = None  # the first blank line since the last row: an error only if a row follows
    for number, end, segment in _byte_lines(raw):
        try:
            line = segment.decode("utf-8")
        except UnicodeDecodeError:
            raise kind(f"{path}:{number}: not valid UTF-8", "save the file as UTF-8") from None
        if not line.strip():
            blank = blank or (number, end)  # blank lines at the end (an editor's extra newline) are no rows
            continue
        if blank is not None:
            number, end = blank
        try:
            if blank is not None:
                raise kind(f"{path}:{number}: blank line", "remove blank lines; every line must be one JSON object")
            try:
                value = json.loads(line, object_pairs_hook=_shared_object_without_repeated_keys)
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
        except kind:
            later = _invalid_utf8_line(raw, end)
            if later is not None:  # the whole file is checked as UTF-8 before any line is judged
                raise kind(f"{path}:{later}: not valid UTF-8", "save the file as UTF-8") from None
            raise
        parsed.append((number, value))
    return parsed


def _byte_lines(raw: bytes):
    """(line number, offset after the line, its bytes) of `raw` split on `\\n`, as `split("\\n")`
    would give them with a final empty piece (the file's terminator) dropped."""
    start, number = 0, 0
    while True:
        end = raw.find(b"\n", start)
        number += 1
        if end < 0:
            if start < len(raw):
                yield number, len(raw), raw[start:]
            return
        yield number, end, raw[start:end]
        start = end + 1


def _invalid_utf8_line(raw: bytes, offset: int) -> int | None:
    """The line of the first byte from `offset` on that is not UTF-8, or None."""
    try:
        raw[offset:].decode("utf-8")
    except UnicodeDecodeError as error:
        return raw[: offset + error.start].count(b"\n") + 1
    return None


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
        if is_regular(path):
            with open(path, "rb") as handle:
                first = handle.readline()
        else:  # a pipe: read whole, once; the loader that follows gets the same bytes
            first = read_once(path).split(b"\n", 1)[0]
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


SHARED_VALUE_LENGTH = 24  # strings up to this length are shared between rows: ids, codes, names


def _shared_object_without_repeated_keys(pairs: list[tuple[str, object]]) -> dict:
    """`_object_without_repeated_keys` with its keys and short string values (alone or in a list)
    interned, so that 100,000 rows hold one copy of each: json makes fresh strings on every line
    (its key memo lives for one `loads`), 1.2 KB of a 3.1 KB row as Python objects (issue 34)."""
    shared = []
    for key, value in pairs:
        if type(value) is str:
            if len(value) <= SHARED_VALUE_LENGTH:
                value = _intern(value)
        elif type(value) is list:
            value = [_intern(item) if type(item) is str and len(item) <= SHARED_VALUE_LENGTH else item
                     for item in value]
        shared.append((_intern(key), value))
    return _object_without_repeated_keys(shared)


_intern = sys.intern


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


def read_rows_from_file(path: Path, validate: Validate) -> DataRows:
    """Rows of a JSONL data file, checked by the benchmark's `validate`."""
    entries = read_data_entries(Path(path))
    if not entries:
        raise DataError(f"{path}: the data file has no rows", "point --data at a non-empty JSONL file")
    rows, warnings = validate([(f"{path}:{number}", value) for number, value in entries])
    return DataRows(rows, tuple(warnings), Path(path))


# The last data file read, kept so that recognising the benchmark (eval/benchmarks.py) and loading
# the rows read and parse the file once: (path, size, mtime_ns, inode) -> its entries and SHA-256.
_LAST_READ: dict[tuple, tuple[list[tuple[int, object]], str]] = {}


def _file_key(path: Path) -> tuple | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)


def read_data_entries(path: Path, keep: bool = False) -> list[tuple[int, object]]:
    """`read_jsonl_objects` of a data file, answered from the previous read when that read was
    kept (`keep`) and the file has not changed since; a kept read is handed over once."""
    key = _file_key(path)
    if key is not None and key in _LAST_READ:
        return _LAST_READ.pop(key)
    entries = read_jsonl_objects(path)
    _LAST_READ.clear()
    if keep and key is not None:
        _LAST_READ[key] = entries
    return entries


def read_rows_from_files(paths, validate: Validate) -> DataRows:
    """Rows of several JSONL files (repeated --data), concatenated in order and validated together,
    so that checks across rows (unique ids) see them all; each row's location names its file."""
    located = []
    for path in paths:
        entries = read_data_entries(Path(path))
        if not entries:
            raise DataError(f"{path}: the data file has no rows", "point --data at a non-empty JSONL file")
        located += [(f"{path}:{number}", value) for number, value in entries]
    rows, warnings = validate(located)
    return DataRows(rows, tuple(warnings), None)


def load_rows_from_file(path: Path, validate: Validate) -> list[dict]:
    """The rows alone of `read_rows_from_file` (for the generators, which check the bundled set strictly)."""
    return read_rows_from_file(path, validate).rows


def files_sha256(paths) -> str:
    """The identity of data read from several files: SHA-256 of their bytes concatenated in the
    order given (of one file: its file_sha256)."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, the data identity checked against manifest.json (SPEC §9): of the
    bytes this run read, when it read the file (eval/io/input_files.py)."""
    known = read_digest(path)
    if known is not None:
        return known
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


def data_warning(case_id: str, where: str, message: str) -> dict:
    """One entry of summary.json `data.warnings` (SPEC §9)."""
    return {"case_id": case_id, "where": where, "message": message}


def warnings_line(warnings) -> str:
    """The one console line that says how many data warnings a load produced (SPEC §9)."""
    first = warnings[0]
    return (f"warning: {len(warnings)} data warning{'s' if len(warnings) != 1 else ''} (the rows are scored as the "
            f"original scorer scores them; all listed in summary.json data.warnings); first: "
            f"{first['where']}: {first['message']}")
