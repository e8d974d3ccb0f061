"""Input files read once, and identified by the bytes that were read (SPEC §9, §11, §13).

A run reads its data, predictions and inputs, then records their SHA-256. Hashing the path again
later would describe another file if it was rewritten meanwhile, and an empty one for a pipe
(`/dev/stdin`, `<(cat FILE)`), which can be read only once. So every input goes through
`read_once`: it remembers the digest of the bytes it returned (and, for a pipe, the bytes
themselves, so that a second reader of the same path gets them again), and `read_digest` gives
that digest back. A named pipe (FIFO made with mkfifo) would block until some other process
writes to it, so it is refused with one clear line instead of hanging.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

_READ: dict[str, tuple[str, bytes | None]] = {}  # absolute path -> (digest of the bytes read, the bytes of a pipe)


def _key(path: Path) -> str:
    return os.path.abspath(path)


def _is_named_pipe(path: Path, mode: int) -> bool:
    """A FIFO that lives in the file system (mkfifo), not a pipe handed over as /dev/stdin or /dev/fd/N."""
    if not stat.S_ISFIFO(mode):
        return False
    resolved = os.path.realpath(path)
    return not os.path.basename(resolved).startswith("pipe:")


def read_once(path: Path) -> bytes:
    """The bytes of `path`; a pipe already read gives the same bytes again. OSError as `read_bytes`."""
    key = _key(path)
    known = _READ.get(key)
    if known is not None and known[1] is not None:
        return known[1]
    mode = os.stat(path).st_mode
    if _is_named_pipe(Path(path), mode):
        raise OSError(errno.EINVAL, "a named pipe (FIFO) is not read: it waits for a writer; give a regular file, "
                                    "or pass its contents as <(cat FILE)")
    raw = Path(path).read_bytes()
    _READ[key] = (hashlib.sha256(raw).hexdigest(), None if stat.S_ISREG(mode) else raw)
    return raw


def is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def read_digest(path: Path) -> str | None:
    """SHA-256 of the bytes `read_once` last returned for `path`, or None when it was not read."""
    known = _READ.get(_key(path))
    return None if known is None else known[0]
