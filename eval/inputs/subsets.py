"""Row subsets (SPEC §16): `--only FILE`, `--exclude FILE`, `--case-ids FILE` and `--limit N`, and
their identity in the summary, the signature and every report.

A subset's identity is the count and the SHA-256 of the ids it lists, sorted, each followed by
"\\n" (UTF-8): the same list in any order, with any blank lines, is the same subset. `--limit N`
lists the first N case_ids. A subset run is not formal, unless its list is one a published
protocol states (a bundled file under data/subsets/, docs/published.md says how to add one): the
summary then names that protocol, and the published tables (eval/published.py) accept it for
the tables that state it.

A list line is a case_id of the data; or two fields (tab, comma or spaces between them) that
name the case_id FIELD1:FIELD2, the form of a benchmark whose rows are told apart by two values
(an md5 and an instruction language); or a JSON object with a "case_id" (oracle_failures.jsonl and
scores.jsonl can be given as they are; a row such a file names twice counts once).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from eval.errors import ConfigError
from eval.io.paths import bundle_root

PROTOCOL_LISTS_DIR = bundle_root() / "data" / "subsets"
KINDS = ("only", "exclude", "limit")
_SEPARATORS = re.compile(r"[\s,]+")  # between an md5 and its instruction language
_MAX_LINE = 1000  # a list line longer than this is refused, not searched


def ids_sha256(case_ids) -> str:
    """SHA-256 of the sorted ids, each followed by a newline (the subset's identity)."""
    digest = hashlib.sha256()
    for case_id in sorted(case_ids):
        digest.update(case_id.encode("utf-8") + b"\n")
    return digest.hexdigest()


def read_id_list(path: Path, flag: str, known: set[str], allow_empty: bool = False) -> list[str]:
    """The ids a list file names, in file order: one per line (blank lines and `#` comments
    ignored), each in the data; an unknown or repeated id is one error naming the file and line.
    An empty list is an error unless `allow_empty` (an --exclude of nothing is the full run)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{flag} {path}: cannot be read ({error})", "give a UTF-8 file with one case_id per line")
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        record = _json_case_id(entry)
        case_id = _case_id(entry if record is None else record, known)
        if record is not None and case_id in first_line:
            continue  # a JSONL list (oracle_failures.jsonl) names a row once per failing rule
        if case_id is None:
            shown = entry if len(entry) <= 120 else entry[:120] + "…"
            raise ConfigError(f"{path}:{number}: {shown!r} is not a case_id of the data",
                              "list only ids of the data being scored, one per line (a case_id, or md5 and "
                              "instruction language separated by a tab)")
        if case_id in first_line:
            raise ConfigError(f"{path}:{number}: case_id {case_id!r} is listed twice (first at line "
                              f"{first_line[case_id]})", "list each id once")
        first_line[case_id] = number
    if not first_line and not allow_empty:
        raise ConfigError(f"{flag} {path}: the file lists no case_id", "write one case_id per line")
    return list(first_line)


def _json_case_id(entry: str) -> str | None:
    """The case_id of a JSON object line ({"case_id": ...}, as oracle_failures.jsonl and
    scores.jsonl write them), or None for any other line."""
    if not entry.startswith("{"):
        return None
    try:
        record = json.loads(entry)
    except (ValueError, RecursionError):
        return None
    return record["case_id"] if isinstance(record, dict) and isinstance(record.get("case_id"), str) else None


def _case_id(entry: str, known: set[str]) -> str | None:
    """The data's case_id a list line names, or None."""
    if entry in known:
        return entry
    if len(entry) > _MAX_LINE:
        return None
    fields = _SEPARATORS.split(entry)
    if len(fields) == 2 and all(fields):
        joined = f"{fields[0]}:{fields[1]}"
        if joined in known:
            return joined
    return None


def subset_block(kind: str, listed: list[str], source: str, lists_dir: Path | None = None,
                 benchmark: str | None = None) -> dict:
    """The summary's "subset" block: kind, count and sha256 of the listed ids, where the list came
    from, and the published protocol whose bundled list it is (or None)."""
    block = {"kind": kind, "count": len(listed), "sha256": ids_sha256(listed), "source": source}
    block["protocol"] = recognised_protocol(block, lists_dir, benchmark)
    return block


def protocol_lists(lists_dir: Path | None = None) -> list[dict]:
    """The bundled lists of published protocols (data/subsets/*.json), each
    {name, benchmark, kind, count, sha256, states}; a broken file is an error naming it."""
    folder = Path(lists_dir or PROTOCOL_LISTS_DIR)
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise ConfigError(f"{path}: not a readable protocol list ({error})", "restore the file from the release")
        if not (isinstance(entry, dict) and entry.get("kind") in KINDS and isinstance(entry.get("count"), int)
                and isinstance(entry.get("sha256"), str) and isinstance(entry.get("name"), str)):
            raise ConfigError(f"{path}: a protocol list needs name, benchmark, kind, count and sha256",
                              "see docs/published.md, 'Adding a published row list'")
        found.append(entry)
    return found


def recognised_protocol(block: dict, lists_dir: Path | None = None, benchmark: str | None = None) -> str | None:
    """The name of the bundled published list that this subset is, or None."""
    for entry in protocol_lists(lists_dir):
        if (entry["kind"], entry["count"], entry["sha256"]) == (block["kind"], block["count"], block["sha256"]) \
                and entry.get("benchmark") in (None, benchmark):
            return entry["name"]
    return None


def subset_reason(block: dict | None, n_used: int, n_total: int) -> str | None:
    """The non-formal reason of a subset run (None: no subset, or a published protocol's list)."""
    if block is None or block.get("protocol"):
        return None
    return (f"subset ({block['kind']}, {block['source']}): {n_used} of {n_total} instances scored, "
            f"list sha256 {block['sha256'][:12]}")


def signature_part(block: dict | None) -> tuple[str, ...]:
    """`subset:KIND:COUNT:SHA12` (and the protocol's name when recognised); nothing for a full run."""
    if block is None:
        return ()
    part = f"subset:{block['kind']}:{block['count']}:{block['sha256'][:12]}"
    return (part + (f":{block['protocol']}" if block.get("protocol") else ""),)


def subset_markdown(block: dict | None) -> str:
    """One report line saying which rows the run scored."""
    if block is None:
        return ""
    protocol = (f"; the published protocol **{block['protocol']}**" if block.get("protocol")
                else "; not formal")
    return (f"\n**Subset:** {block['kind']} {block['count']} ids from {block['source']} "
            f"(sha256 `{block['sha256'][:16]}`){protocol}.\n")
