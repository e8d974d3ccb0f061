"""Running a release's own syllable counter, only when the user trusts the release (SPEC §15).

`--trust-release-code` imports one module from the user's release folder by its file path, under
a module name of the harness's choosing (two releases both ship a top-level `eval` package, so
nothing is imported by its own name unless the release needs a sibling under an exact name),
and hands out its counting function behind a lock: the releases' counters share one MeCab tagger,
which is not safe across threads. Without the flag, nothing of the release runs (docs/release.md).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from eval.errors import ConfigError


@dataclass(frozen=True)
class ReleaseCounter:
    """The release's counting function, called as the release's scorer calls it (the language by
    keyword or by position), one call at a time."""

    function: Callable
    module_file: Path
    lock: threading.Lock
    lang_by_keyword: bool

    def __call__(self, text: str, lang: str) -> int:
        with self.lock:
            try:
                count = self.function(text, lang=lang) if self.lang_by_keyword else self.function(text, lang)
            except Exception as error:  # the release's code on a model's text: one clear abort, no traceback
                raise ConfigError(f"release protocol: {self.module_file}: the release's syllable counter raised "
                                  f"{type(error).__name__}: {str(error)[:200]} on a {lang} text of {len(text)} "
                                  "characters", "run without --trust-release-code to count with this harness's "
                                  "counter") from None
        if isinstance(count, bool) or not isinstance(count, int):
            raise ConfigError(f"release protocol: {self.module_file}: the syllable counter returned "
                              f"{type(count).__name__} {count!r} for a {lang} text, not an int",
                              "check the release folder, or run without --trust-release-code")
        return count


def load_counter(path: Path, module_name: str, function_name: str, siblings: tuple[str, ...] = (),
                 lang_by_keyword: bool = False) -> ReleaseCounter:
    """Import `path` as `module_name` and return its `function_name`.

    `siblings` are modules of the same folder that the file imports by their own top-level names;
    the folder is on sys.path only while the file is imported. An import failure (a missing
    dependency, a MeCab dictionary that is not installed) is exit 2 naming the file and the cause."""
    path = Path(path).resolve()
    if not path.is_file():
        raise ConfigError(f"release protocol: {path}: expected the release's syllable module; found no such file",
                          "point --release-dir at the official release folder")
    for sibling in siblings:
        if not (path.parent / f"{sibling}.py").is_file():
            raise ConfigError(f"release protocol: {path.parent}: expected {sibling}.py beside {path.name}; "
                              "found no such file", "point --release-dir at the official release folder")
    module = sys.modules.get(module_name)
    if module is None or Path(getattr(module, "__file__", "")).resolve() != path:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        added = str(path.parent) not in sys.path and bool(siblings)
        if added:
            sys.path.insert(0, str(path.parent))
        for sibling in siblings:  # a copy from another release folder must not stand in for this one's
            loaded = sys.modules.get(sibling)
            if loaded is not None and Path(getattr(loaded, "__file__", "")).resolve() != path.parent / f"{sibling}.py":
                del sys.modules[sibling]
        try:
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
        except Exception as error:  # the release's own code: any failure is one clear line
            sys.modules.pop(module_name, None)
            raise ConfigError(f"release protocol: importing {path} failed: {type(error).__name__}: {error}",
                              "install the release's requirements (its requirements.txt), or run without "
                              "--trust-release-code") from None
        finally:
            if added:
                sys.path.remove(str(path.parent))
    function = getattr(module, function_name, None)
    if not callable(function):
        names = ", ".join(sorted(name for name in vars(module) if not name.startswith("_"))[:20])
        raise ConfigError(f"release protocol: {path}: expected a function {function_name}; found: {names}",
                          "point --release-dir at the official release folder")
    return ReleaseCounter(function, path, threading.Lock(), lang_by_keyword)
