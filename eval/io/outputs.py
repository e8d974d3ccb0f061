"""Writing files (SPEC §11): atomic single files, and the all-or-nothing set of result files.

Every result file is first written under a temporary name in its own directory, then all are
renamed into place with summary.json last; a failure at any byte removes the temporaries and any
result already renamed, so an output directory holds either a whole result or none.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import tempfile
import threading
from collections.abc import Callable
from typing import Any
from pathlib import Path

# The files a run writes, in the order they are renamed into place: summary.json last, so its
# presence means the run finished. Only these are ever removed from an output directory.
RESULT_FILES = ("scores.jsonl", "report.md", "report.html", "explorer.html", "oracle_failures.jsonl",
                "summary.json")
# Signals that stop a run (SPEC §11); held back while the result files are renamed into place.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# A result file's text, or a function that writes it piece by piece through the `write` it is given
# (a page of 100,000 instances is never held whole: it goes to its temporary file as it is made).
Writer = Callable[[Callable[[str], None]], None]
# The temporaries of result files (`_temporary_copy`: mkstemp's prefix, its 8 random characters, the
# suffix); a run killed before its renames leaves them behind, and the next run removes them.
_RESULT_TEMPORARY = re.compile(r"\.(?:" + "|".join(re.escape(name) for name in RESULT_FILES) + r")\.[a-z0-9_]{8}\.tmp")


def _temporary_copy(path: Path, text: str | Writer) -> Path:
    """`text` (or what the writer writes, lone surrogates escaped) in a new file beside `path`,
    readable by others like any result."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            if isinstance(text, str):
                stream.write(text)
            else:
                text(lambda piece: stream.write(_escape_surrogates(piece)))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes the file private; results are meant to be shared
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return Path(temporary)


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same directory."""
    temporary = _temporary_copy(path, text)
    try:
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def result_paths(output_dir: Path) -> list[Path]:
    return [output_dir / name for name in RESULT_FILES]


def remove_previous_results(output_dir: Path) -> None:
    """Delete the result files of an earlier run (only those: the Judge cache and anything else
    in the directory stay), so that nothing of it can pass for this run's result. summary.json
    goes first: if it cannot be removed, the earlier result is left whole. Then the temporaries
    a killed run left (see `remove_stale_temporaries`)."""
    for path in reversed(result_paths(output_dir)):
        path.unlink(missing_ok=True)
    remove_stale_temporaries(output_dir)


def remove_stale_temporaries(output_dir: Path) -> list[str]:
    """Delete the result temporaries (`.explorer.html.k3x9_q2a.tmp`, ...) of runs killed before
    their renames; returns their names. Only plain files with exactly that name pattern go: a
    symlink, a folder or any other file stays. Call it only while holding the directory's lock
    (eval/io/locking.py): then no live run is writing any of them."""
    removed = []
    try:
        entries = list(os.scandir(output_dir))
    except FileNotFoundError:
        return removed
    for entry in entries:
        if _RESULT_TEMPORARY.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
                removed.append(entry.name)
    return sorted(removed)


@contextlib.contextmanager
def _stop_signals_held(settle: bool = False):
    """Hold SIGINT, SIGTERM and SIGHUP back for the block (main thread only: Python runs every
    handler there, whichever thread the kernel picked). One that arrives meanwhile is only noted:
    the results are whole when the block ends, so the run is done and the signal changes nothing.
    `settle`: once the block ends whole, the signals stay ignored (see `write_results`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = {signum: signal.signal(signum, lambda signum, frame: held.append(signum)) for signum in STOP_SIGNALS}
    placed = False
    try:
        yield
        placed = True
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_IGN if placed and settle else handler)


def write_results(output_dir: Path, texts: dict[str, str | Writer], settle: bool = False) -> list[Path]:
    """Write the result files named in `texts` all or nothing, summary.json last. A value is the
    file's text or a `Writer`, called (in file order) to write it into its temporary. Returns the
    files' paths in the order they were placed.

    `settle` (a script's own process, about to exit: evaluate.py): once the results are in place
    the run is done, so the stop signals are ignored from then on (a late one would otherwise say
    "no result was written"); a library caller keeps its handlers."""
    names = [name for name in RESULT_FILES if name in texts]
    unknown = set(texts) - set(names)
    if unknown:
        raise ValueError(f"not result files: {sorted(unknown)}")
    temporaries: dict[str, Path] = {}
    placed: list[Path] = []
    try:
        for name in names:
            # A lone surrogate (a model's JSON key "\ud800", shown in a report) cannot be UTF-8:
            # it is written as its escape `\ud800` (JSON texts arrive escaped already).
            text = texts[name]
            temporaries[name] = _temporary_copy(output_dir / name,
                                                _escape_surrogates(text) if isinstance(text, str) else text)
        with _stop_signals_held(settle):  # a signal between two renames must not leave half a result
            for name in names:
                os.replace(temporaries[name], output_dir / name)
                del temporaries[name]
                placed.append(output_dir / name)
    except BaseException:
        for path in [*temporaries.values(), *placed]:
            path.unlink(missing_ok=True)
        raise
    return placed



_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogates(text: str) -> str:
    """Lone surrogates (only ever inside JSON strings) as `\\udXXX` escapes: valid JSON that reads
    back as the same string, where the raw code point cannot be written as UTF-8."""
    if _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def jsonl_line(value) -> str:
    """One JSONL record: UTF-8 text kept readable, every line-breaking character escaped."""
    return jsonl_lines((value,))


_JSONL_ENCODER = json.JSONEncoder(ensure_ascii=False)
# The characters str.splitlines() treats as line breaks (escaped so a JSONL record stays one line
# for every reader; SPEC §1: source texts contain U+2028) and lone surrogates (no UTF-8 for them).
_NEEDS_ESCAPE = re.compile("[\u2028\u2029\x85\x1c\x1d\x1e\ud800-\udfff]")


def jsonl_lines(values) -> str:
    """`jsonl_line` of each value, joined: one encoder for all, and the rare escapes (line-breaking
    characters, lone surrogates: only ever inside JSON strings) looked for once over the whole text."""
    text = "".join([line for value in values for line in (_JSONL_ENCODER.encode(value), "\n")])
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    return _NEEDS_ESCAPE.sub(_unicode_escape, text)


def jsonl_writer(values: list, as_dict: Callable[[Any], Any] | None = None, batch: int = 1024) -> Writer:
    """A `Writer` of `jsonl_lines(values)`, a batch of lines at a time: the same bytes, never the
    whole text at once. `as_dict` turns a typed value into what the line holds (a score row's
    `to_dict`), one batch at a time."""
    def write_lines(write: Callable[[str], None]) -> None:
        for start in range(0, len(values), batch):
            part = values[start:start + batch]
            write(jsonl_lines(part if as_dict is None else map(as_dict, part)))
    return write_lines


def _unicode_escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(value) -> str:
    """A pretty JSON document (summary.json)."""
    return _escape_surrogates(json.dumps(value, ensure_ascii=False, indent=2)) + "\n"
