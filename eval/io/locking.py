"""One run at a time per output directory and per Judge cache file (SPEC §10).

Two runs writing one directory, or asking through one cache, send every request twice and the
last writer silently wins. `hold_lock` takes an exclusive, non-blocking `fcntl` lock on a lock
file beside the thing it guards and writes the holder's pid and command line into it, so a
second run stops at once (ConfigError, exit 2) naming who holds it. The kernel drops the lock
when the holder exits, however it exits, so a crashed run never leaves a stale lock behind.

The holder removes its lock file on the way out, while it still holds the lock; a run that
locked a file that was removed meanwhile (its inode no longer the path's) lets go and locks the
new one, so no two runs ever hold "the" lock at once. Only a killed run leaves the (empty) file,
and the next run on that path takes it over and removes it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import sys
from pathlib import Path
from typing import Iterator

from eval.errors import ConfigError
from eval.providers.redaction import redact


def lock_path_for(path: Path, is_dir: bool | None = None) -> Path:
    """The lock file of `path`: `<dir>/.lock` for a directory, `<file>.lock` beside a file.
    `is_dir=None` goes by what exists on disk."""
    path = Path(path).resolve()  # a symlinked cache or directory is locked where it really is
    if is_dir is None:
        is_dir = path.is_dir()
    return path / ".lock" if is_dir else path.with_name(path.name + ".lock")


def _holder_of(lock_file: Path) -> str:
    try:
        text = lock_file.read_text(encoding="utf-8").strip()
    except OSError:
        text = ""
    return text or "another process"


@contextlib.contextmanager
def hold_lock(path: Path, what: str, *, is_dir: bool | None = None,
              secrets: tuple[str, ...] = ()) -> Iterator[Path]:
    """Hold the exclusive lock of `path` (a directory or a file; `what` names it in messages,
    e.g. "output directory") for the `with` block; yields the lock file. Raises ConfigError at
    once when another holder has it. The command line written is redacted of `secrets`."""
    lock_file = lock_path_for(path, is_dir)
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    descriptor = _locked_descriptor(lock_file, path, what)
    try:
        os.ftruncate(descriptor, 0)
        command = redact(shlex.join(sys.argv) or sys.executable, secrets, 300)
        os.write(descriptor, f"pid {os.getpid()}: {command}\n".encode("utf-8", "replace"))
        try:
            yield lock_file
        finally:
            with contextlib.suppress(OSError):
                os.unlink(lock_file)  # still held: whoever opened this inode meanwhile will see it is gone
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


def _locked_descriptor(lock_file: Path, path: Path, what: str, attempts: int = 100) -> int:
    """An open descriptor of `lock_file` holding its exclusive lock, the file still at that path."""
    for _ in range(attempts):
        descriptor = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise ConfigError(f"{what} {path} is in use by {_holder_of(lock_file)}",
                              hint=f"wait for that run to finish, or give this run another {what}") from None
        try:
            still_there = os.stat(lock_file).st_ino == os.fstat(descriptor).st_ino
        except FileNotFoundError:
            still_there = False
        if still_there:
            return descriptor
        os.close(descriptor)  # the previous holder removed it after we opened it: lock the new file
    raise ConfigError(f"{what} {path}: its lock file keeps being replaced", hint="check what else writes there")
