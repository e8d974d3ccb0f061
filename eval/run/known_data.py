"""Which data set a run scored: the bundled sets and the two official releases (SPEC §9).

manifest.json records each known set's SHA-256 (the generator, `python -m eval.manifest`, writes
the bundled sets' from their files and the releases' from each benchmark's `official_release`,
the published facts). At run time this module only reads manifest.json, where each benchmark's
record says (`manifest_section`): a data set is known when its identity equals one of those
checksums; data that is not known but looks like a release (its row count, or a release-style
case_id the benchmark declares) is told what differs from the published statistics, so a
truncated or edited download is obvious. Separate from the generator (eval/manifest.py), so that
a run never imports build-time code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from eval.io.paths import bundle_root

if TYPE_CHECKING:
    from eval.benchmark import Benchmark

MANIFEST_PATH = bundle_root() / "manifest.json"  # the checkout, or the installed share folder
BUNDLED, OFFICIAL_RELEASE = "bundled", "official release"

_DIFFERENCES_SHOWN = 8  # a reason stays one readable line; release_differences has them all


def read_manifest(manifest_path: Path | None = None) -> dict:
    """manifest.json as a dict; {} when it is missing or unreadable (then nothing is known)."""
    try:
        manifest = json.loads(Path(manifest_path or MANIFEST_PATH).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def known_sets(bench: Benchmark, manifest_path: Path | None = None) -> dict[str, dict]:
    """{known_as: manifest entry} of the sets manifest.json records for the benchmark."""
    manifest = read_manifest(manifest_path)
    found = {}
    bundled = manifest.get(bench.manifest_section)
    if isinstance(bundled, dict) and isinstance(bundled.get("sha256"), str):
        found[BUNDLED] = bundled
    release = (manifest.get("releases") or {}).get(bench.name)
    if isinstance(release, dict) and isinstance(release.get("sha256"), str):
        found[OFFICIAL_RELEASE] = release
    return found


def identify(sha256: str, bench: Benchmark, manifest_path: Path | None = None) -> str | None:
    """"bundled", "official release", or None: the known set whose checksum `sha256` is."""
    for known_as, entry in known_sets(bench, manifest_path).items():
        if entry["sha256"] == sha256:
            return known_as
    return None


def release_statistics(bench: Benchmark, manifest_path: Path | None = None) -> dict | None:
    """The release's entry as manifest.json records it (n_instances, statistics), or None."""
    return known_sets(bench, manifest_path).get(OFFICIAL_RELEASE)


def looks_like_release(rows: list[dict], bench: Benchmark, manifest_path: Path | None = None) -> bool:
    """The release's row count, or every case_id in the release's own form (when it has one)."""
    release = release_statistics(bench, manifest_path)
    if release is None:
        return False
    if len(rows) == release.get("n_instances"):
        return True
    return bench.release.release_case_id is not None and bool(rows) and all(
        bench.release.release_case_id.match(row["case_id"]) for row in rows)


def release_differences(rows: list[dict], bench: Benchmark, manifest_path: Path | None = None) -> list[str]:
    """What in `rows` differs from the release's published statistics: "name N (release M)" per
    count, rows first. Only the counts the release publishes are compared."""
    release = release_statistics(bench, manifest_path)
    if release is None:
        return []
    differences = []
    if len(rows) != release.get("n_instances"):
        differences.append(f"rows {len(rows):,} (release {release['n_instances']:,})")
    ours = bench.release.data_statistics(rows)
    for key, published in (release.get("statistics") or {}).items():
        if isinstance(published, dict):
            for name, count in published.items():
                have = ours.get(key, {}).get(name, 0)
                if have != count:
                    differences.append(f"{key}.{name} {have:,} (release {count:,})")
        elif ours.get(key) != published:
            differences.append(f"{key} {ours.get(key):,} (release {published:,})")
    return differences


def data_reasons(sha256: str, n_rows: int, rows: list[dict], bench: Benchmark, *,
                 manifest_path: Path | None = None, identity: str = "file") -> list[str]:
    """Why the data keeps a run from being formal (SPEC §9); [] for the whole of a known set.

    `n_rows` is the number of rows the data has (before --limit), `rows` those rows, `identity`
    "rows" when `sha256` is the canonical-rows hash of data that has no file.
    """
    known = known_sets(bench, manifest_path)
    entry = next((entry for entry in known.values() if entry["sha256"] == sha256), None)
    if entry is not None:
        expected = entry.get("n_instances")
        return [] if expected in (None, n_rows) else [f"the data has {n_rows} rows; its set has {expected}"]
    if not known:
        return [f"manifest.json records no {bench.name} data set, so the data cannot be identified"]
    if identity == "rows":
        reasons = ["the data has no file (an in-memory or save_to_disk dataset), so its identity is a hash of its "
                   "rows, which matches no known data set; load the data file itself for a formal run"]
    else:
        reasons = ["the data's SHA-256 matches no known data set in manifest.json ("
                   + ", ".join(known) + ")"]
    if looks_like_release(rows, bench, manifest_path):
        differences = release_differences(rows, bench, manifest_path)
        if differences:
            shown = differences[:_DIFFERENCES_SHOWN]
            more = len(differences) - len(shown)
            reasons.append("the data looks like the official release but differs from its published statistics: "
                           + "; ".join(shown) + (f"; and {more} more" if more else ""))
        else:
            reasons.append("the data looks like the official release and matches its published statistics, but its "
                           "bytes differ (an edited or re-serialised file?)")
    return reasons


BY_SHA256 = "official release (by sha256)"


def release_by_files(paths, pins: dict[str, tuple[int, str]]) -> bool:
    """Whether `paths` are exactly the release's files, each (by name) with its published size and
    SHA-256: how a release known by per-file pins rather than one checksum is recognised. Sizes are
    compared first, so a file that is not the release is never read."""
    from eval.io.data import file_sha256

    by_name = {Path(path).name: Path(path) for path in paths}
    if set(by_name) != set(pins):
        return False
    try:
        if any(by_name[name].stat().st_size != size for name, (size, _) in pins.items()):
            return False
    except OSError:
        return False
    return all(file_sha256(by_name[name]) == digest for name, (_, digest) in pins.items())


def signature_part(known_as: str | None) -> str:
    """The signature's `known:` part (SPEC §9): bundled, official-release or none."""
    return f"known:{(known_as or 'none').replace(' ', '-')}"
