"""Headless Chromium for the explorer's browser tests and bench script (docs/explorer.md).

Debian's `chromium` driven through Playwright's Python package (which here downloads no browser:
it is pointed at /usr/bin/chromium). Offline by construction: the pages are local files, and the
flags turn off every background connection Chromium would otherwise make.

`browser_page` starts a fresh browser (the scripts: a fresh profile per measured load);
`SharedBrowser` is one browser for a whole test module (a launch costs about a CPU second; a
fresh page in a running browser, a small part of that).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    for name in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")):
        if name and os.path.exists(name):
            return name
    return None


def unavailable_reason() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if chromium_path() is None:
        return "no Chromium here (apt-get install chromium, or set CHROMIUM=/path/to/chromium)"
    if importlib.util.find_spec("playwright") is None:  # found, not imported: every xdist worker collects this
        return "Playwright's Python package is not installed (pip install -r requirements-test.txt; no browser download needed)"
    return None


@contextlib.contextmanager
def browser_page(width: int = 1400, height: int = 900):
    """A fresh headless Chromium (own profile directory) and one page; closed on exit."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="explorer-chromium-") as profile, sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=chromium_path(), headless=True, args=CHROMIUM_FLAGS,
            ignore_default_args=["--enable-automation"], viewport={"width": width, "height": height},
            offline=True)
        try:
            page = context.pages[0] if context.pages else context.new_page()
            yield page
        finally:
            context.close()


class SharedBrowser:
    """One headless Chromium for many tests, each run on a fresh page of its own.

    Playwright's sync API marks its event loop as running in the thread that started it, between
    calls too, so in-process code that calls `asyncio.run` (a judged `evaluate.main`) fails in that
    thread while the browser lives. The browser therefore lives in a thread of its own, and a test
    hands it its steps: `run(steps)` calls `steps(page)` there and returns its result or raises its
    exception (an assertion included) here. Pages share one context: the pages under test keep no
    storage, and each test gets a new page (its own document, handlers and viewport).
    """

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chromium")  # one thread, kept
        self._driver: Any = None
        self._browser: Any = None
        self._context: Any = None
        try:
            self._thread.submit(self._start).result()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        from playwright.sync_api import sync_playwright

        self._driver = sync_playwright().start()
        self._browser = self._driver.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_FLAGS,
            ignore_default_args=["--enable-automation"])
        self._context = self._browser.new_context(offline=True)

    def run(self, steps: Callable[[Any], T], width: int = 1400, height: int = 900) -> T:
        """`steps(page)` on a fresh `width` × `height` page, closed after."""
        return self._thread.submit(self._on_a_fresh_page, steps, width, height).result()

    def _on_a_fresh_page(self, steps: Callable[[Any], T], width: int, height: int) -> T:
        page = self._context.new_page()
        try:
            page.set_viewport_size({"width": width, "height": height})
            return steps(page)
        finally:
            page.close()

    def close(self) -> None:
        """Closes the browser and ends its driver (both reaped, so their CPU time is counted)."""
        def stop() -> None:
            try:
                if self._browser is not None:
                    self._browser.close()
            finally:
                if self._driver is not None:
                    self._driver.stop()

        try:
            self._thread.submit(stop).result()
        finally:
            self._thread.shutdown()
