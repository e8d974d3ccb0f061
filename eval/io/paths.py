"""Where the bundled files live: manifest.json and data/ (the bundled sets, the example predictions).

In a checkout (and after `pip install -e .`) that is the repository root. After `pip install .`
the wheel puts them under `<prefix>/share/insttrans-bench` (pyproject.toml's data-files), so the
installed commands find the bundled data and identify known data sets from any directory.
"""

from __future__ import annotations

import sys
from pathlib import Path

SHARE_NAME = "insttrans-bench"


def bundle_root() -> Path:
    checkout = Path(__file__).resolve().parent.parent.parent
    if (checkout / "manifest.json").is_file():
        return checkout
    installed = Path(sys.prefix) / "share" / SHARE_NAME
    return installed if (installed / "manifest.json").is_file() else checkout


ROOT = bundle_root()
