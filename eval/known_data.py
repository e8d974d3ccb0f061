"""Which data set a run scored: the bundled sets and the two official releases (SPEC §9).

manifest.json records each known set's SHA-256 (the generator, `python -m eval.manifest`, writes
the bundled sets' from their files and the releases' from `OFFICIAL_RELEASES`, the published
facts). At run time this module only reads manifest.json: a data set is known when its identity
equals one of those checksums; data that is not known but looks like a release (its row count, or
Sandglass's release-style case_ids) is told what differs from the published statistics, so a
truncated or edited download is obvious. Separate from the generator (eval/manifest.py), so that
a run never imports build-time code.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

MANIFEST_PATH = Path(__file__).resolve().parent.parent / "manifest.json"
BENCHMARKS = ("insttrans", "sandglass")
BUNDLED, OFFICIAL_RELEASE = "bundled", "official release"
_BUNDLED_SECTION = {"insttrans": "data", "sandglass": "sandglass"}

# The published release manifests' facts (SPEC §3, §9; the Sandglass card's 300 sources × 4
# languages × 3 targets, 5 categories × 60 sources). Counts the publications give only roughly
# ("19 other source languages about 14 each", "every other target about 130") are not recorded.
OFFICIAL_RELEASES: dict[str, dict] = {
    "insttrans": {
        "name": "InstTrans-Bench (official release)",
        "hub_id": "IndexTeam/InstTrans-Bench",
        "file": "data/test.jsonl",
        "sha256": "fa47b65120a3c00e8c7e66bfdfe0dd75274de8d100dbd1ce0540d754bd5a4b63",
        "n_instances": 3000,
        "statistics": {
            "constraint_annotations": 5402,
            "by_constraint": {
                "format_preserve": 2098, "style_consistency": 633, "syllable_order": 601,
                "term_cross_sentence": 508, "term_compliance": 502, "academic_format_preserve": 412,
                "social_preserve": 316, "layout_break": 266, "context_disambiguate": 42, "coref_resolution": 24,
            },
            "constraints_per_instance": {"1": 1307, "2": 1138, "3": 426, "4": 104, "5": 25},
            "by_domain": {
                "B站动态": 320, "小说": 303, "ogv字幕": 302, "弹幕": 302, "评论": 300, "专栏文章": 300,
                "学术论文": 299, "UGC字幕": 299, "书籍": 293, "网页文本": 282,
            },
            "by_source_lang": {"zh": 2419, "en": 313},
            "by_target_lang": {"zh": 296},
            "language_pairs": 61,
            "target_languages": 22,
        },
    },
    "sandglass": {
        "name": "Sandglass-Bench (official release)",
        "hub_id": "IndexTeam/Sandglass-Bench",
        "file": "sandglass_bench.jsonl",
        "sha256": "88cb4506ff5dd95ba171ab746bbf7fcf3d4e12df27b51d6554673c3f4bc4b6f1",
        "n_instances": 3600,
        "statistics": {
            "by_target_language": {"en": 900, "ja": 900, "es": 900, "ar": 900},
            "by_target_kind": {"short": 1200, "natural": 1200, "long": 1200},
            "by_fenqu": {"二次元": 720, "影视": 720, "旅游出行": 720, "游戏": 720, "知识": 720},
            "source_lines": 300,
        },
    },
}

# Sandglass case_ids are `uuid:target_language:target_kind` (the card); InstTrans-Bench publishes
# no id pattern, so only its row count marks data as release-like (docs/release.md).
_SANDGLASS_RELEASE_ID = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:(en|ja|es|ar):(short|natural|long)$")


_DIFFERENCES_SHOWN = 8  # a reason stays one readable line; release_differences has them all


def read_manifest(manifest_path: Path | None = None) -> dict:
    """manifest.json as a dict; {} when it is missing or unreadable (then nothing is known)."""
    try:
        manifest = json.loads(Path(manifest_path or MANIFEST_PATH).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def known_sets(benchmark: str, manifest_path: Path | None = None) -> dict[str, dict]:
    """{known_as: manifest entry} of the sets manifest.json records for `benchmark`."""
    manifest = read_manifest(manifest_path)
    found = {}
    bundled = manifest.get(_BUNDLED_SECTION.get(benchmark, benchmark))
    if isinstance(bundled, dict) and isinstance(bundled.get("sha256"), str):
        found[BUNDLED] = bundled
    release = (manifest.get("releases") or {}).get(benchmark)
    if isinstance(release, dict) and isinstance(release.get("sha256"), str):
        found[OFFICIAL_RELEASE] = release
    return found


def identify(sha256: str, benchmark: str, manifest_path: Path | None = None) -> str | None:
    """"bundled", "official release", or None: the known set whose checksum `sha256` is."""
    for known_as, entry in known_sets(benchmark, manifest_path).items():
        if entry["sha256"] == sha256:
            return known_as
    return None


def release_statistics(benchmark: str, manifest_path: Path | None = None) -> dict | None:
    """The release's entry as manifest.json records it (n_instances, statistics), or None."""
    return known_sets(benchmark, manifest_path).get(OFFICIAL_RELEASE)


def _counts(values) -> dict[str, int]:
    return {str(key): count for key, count in Counter(values).items()}


def data_statistics(rows: list[dict], benchmark: str) -> dict:
    """The counts the release publishes, computed from `rows` (same keys as its statistics)."""
    if benchmark == "sandglass":
        meta = [row["metadata"] for row in rows]
        return {"by_target_language": _counts(m["target_language"] for m in meta),
                "by_target_kind": _counts(m["target_kind"] for m in meta),
                "by_fenqu": _counts(m["fenqu"] for m in meta),
                "source_lines": len({m["uuid"] for m in meta})}
    return {"constraint_annotations": sum(len(row["constraint_ids"]) for row in rows),
            "by_constraint": _counts(cid for row in rows for cid in row["constraint_ids"]),
            "constraints_per_instance": _counts(len(row["constraint_ids"]) for row in rows),
            "by_domain": _counts(row["domain"] for row in rows),
            "by_source_lang": _counts(row["source_lang"] for row in rows),
            "by_target_lang": _counts(row["target_lang"] for row in rows),
            "language_pairs": len({(row["source_lang"], row["target_lang"]) for row in rows}),
            "target_languages": len({row["target_lang"] for row in rows})}


def looks_like_release(rows: list[dict], benchmark: str, manifest_path: Path | None = None) -> bool:
    """The release's row count, or (Sandglass) every case_id in the release's uuid:lang:kind form."""
    release = release_statistics(benchmark, manifest_path)
    if release is None:
        return False
    if len(rows) == release.get("n_instances"):
        return True
    return benchmark == "sandglass" and bool(rows) and all(
        _SANDGLASS_RELEASE_ID.match(row["case_id"]) for row in rows)


def release_differences(rows: list[dict], benchmark: str, manifest_path: Path | None = None) -> list[str]:
    """What in `rows` differs from the release's published statistics: "name N (release M)" per
    count, rows first. Only the counts the release publishes are compared."""
    release = release_statistics(benchmark, manifest_path)
    if release is None:
        return []
    differences = []
    if len(rows) != release.get("n_instances"):
        differences.append(f"rows {len(rows):,} (release {release['n_instances']:,})")
    ours = data_statistics(rows, benchmark)
    for key, published in (release.get("statistics") or {}).items():
        if isinstance(published, dict):
            for name, count in published.items():
                have = ours.get(key, {}).get(name, 0)
                if have != count:
                    differences.append(f"{key}.{name} {have:,} (release {count:,})")
        elif ours.get(key) != published:
            differences.append(f"{key} {ours.get(key):,} (release {published:,})")
    return differences


def data_reasons(sha256: str, n_rows: int, rows: list[dict], benchmark: str, *,
                 manifest_path: Path | None = None, identity: str = "file") -> list[str]:
    """Why the data keeps a run from being formal (SPEC §9); [] for the whole of a known set.

    `n_rows` is the number of rows the data has (before --limit), `rows` those rows, `identity`
    "rows" when `sha256` is the canonical-rows hash of data that has no file.
    """
    known = known_sets(benchmark, manifest_path)
    entry = next((entry for entry in known.values() if entry["sha256"] == sha256), None)
    if entry is not None:
        expected = entry.get("n_instances")
        return [] if expected in (None, n_rows) else [f"the data has {n_rows} rows; its set has {expected}"]
    if not known:
        return [f"manifest.json records no {benchmark} data set, so the data cannot be identified"]
    if identity == "rows":
        reasons = ["the data has no file (an in-memory or save_to_disk dataset), so its identity is a hash of its "
                   "rows, which matches no known data set; load the data file itself for a formal run"]
    else:
        reasons = ["the data's SHA-256 matches no known data set in manifest.json ("
                   + ", ".join(known) + ")"]
    if looks_like_release(rows, benchmark, manifest_path):
        differences = release_differences(rows, benchmark, manifest_path)
        if differences:
            shown = differences[:_DIFFERENCES_SHOWN]
            more = len(differences) - len(shown)
            reasons.append("the data looks like the official release but differs from its published statistics: "
                           + "; ".join(shown) + (f"; and {more} more" if more else ""))
        else:
            reasons.append("the data looks like the official release and matches its published statistics, but its "
                           "bytes differ (an edited or re-serialised file?)")
    return reasons


def signature_part(known_as: str | None) -> str:
    """The signature's `known:` part (SPEC §9): bundled, official-release or none."""
    return f"known:{(known_as or 'none').replace(' ', '-')}"


def recorded_sha256(section: str, manifest_path: Path | None = None) -> str | None:
    """The data checksum manifest.json records in `section` ("data" or "sandglass"), if any."""
    try:
        return json.loads(Path(manifest_path or MANIFEST_PATH).read_text(encoding="utf-8"))[section]["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
