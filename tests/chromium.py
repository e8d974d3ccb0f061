"""Headless Chromium for the explorer's browser tests and bench script (docs/explorer.md).

Debian's `chromium` driven through Playwright's Python package (which here downloads no browser:
it is pointed at /usr/bin/chromium). Offline by construction: the pages are local files, and the
flags turn off every background connection Chromium would otherwise make.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

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
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
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
