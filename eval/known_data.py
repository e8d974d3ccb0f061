"""The run-time reading of manifest.json: which data sets are known (SPEC §9).

Separate from the generator (eval/manifest.py), so that a run never imports build-time code.
"""

from __future__ import annotations

import json
from pathlib import Path

MANIFEST_PATH = Path(__file__).resolve().parent.parent / "manifest.json"


def recorded_sha256(section: str, manifest_path: Path | None = None) -> str | None:
    """The data checksum manifest.json records in `section` ("data" or "sandglass"), if any."""
    try:
        return json.loads(Path(manifest_path or MANIFEST_PATH).read_text(encoding="utf-8"))[section]["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
