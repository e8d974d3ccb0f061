"""Known data sets (SPEC §9): which set a checksum is, and what a release look-alike lacks."""

from __future__ import annotations

import json

import pytest

from conftest import make_row
from eval.benchmarks import BENCHMARKS, get_benchmark
from eval.io.data import file_sha256, load_rows_from_file
from eval.insttrans.record import INSTTRANS
from eval.insttrans.rows import DEFAULT_DATA, validate_rows
from eval.run.known_data import (MANIFEST_PATH, data_reasons, identify, known_sets, looks_like_release,
                             release_differences, release_statistics, signature_part)
from eval.sandglass.rows import DEFAULT_DATA as SANDGLASS_DATA
from eval.sandglass import SANDGLASS
from eval.sandglass.rows import validate_sandglass_rows

OFFICIAL_RELEASES = {name: bench.release.official_release for name, bench in BENCHMARKS.items()
                     if bench.release.official_release is not None}  # a release with no published checksum has none

INSTTRANS_RELEASE = "fa47b65120a3c00e8c7e66bfdfe0dd75274de8d100dbd1ce0540d754bd5a4b63"
SANDGLASS_RELEASE = "88cb4506ff5dd95ba171ab746bbf7fcf3d4e12df27b51d6554673c3f4bc4b6f1"


def test_manifest_names_both_releases_with_the_published_facts():
    manifest = json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))
    assert manifest["releases"] == OFFICIAL_RELEASES
    insttrans, sandglass = manifest["releases"]["insttrans"], manifest["releases"]["sandglass"]
    assert (insttrans["hub_id"], insttrans["file"], insttrans["sha256"], insttrans["n_instances"]) == (
        "IndexTeam/InstTrans-Bench", "data/test.jsonl", INSTTRANS_RELEASE, 3000)
    assert (sandglass["hub_id"], sandglass["file"], sandglass["sha256"], sandglass["n_instances"]) == (
        "IndexTeam/Sandglass-Bench", "sandglass_bench.jsonl", SANDGLASS_RELEASE, 3600)
    stats = insttrans["statistics"]
    assert sum(stats["by_constraint"].values()) == stats["constraint_annotations"] == 5402
    assert sum(stats["constraints_per_instance"].values()) == sum(stats["by_domain"].values()) == 3000
    assert stats["by_constraint"]["format_preserve"] == 2098 and stats["by_constraint"]["coref_resolution"] == 24
    for table in ("by_target_language", "by_target_kind", "by_fenqu"):
        assert sum(sandglass["statistics"][table].values()) == 3600
    assert sandglass["statistics"]["source_lines"] == 300


IDENTITIES = [
    (file_sha256(DEFAULT_DATA), "insttrans", "bundled"),
    (INSTTRANS_RELEASE, "insttrans", "official release"),
    (file_sha256(SANDGLASS_DATA), "sandglass", "bundled"),
    (SANDGLASS_RELEASE, "sandglass", "official release"),
    (SANDGLASS_RELEASE, "insttrans", None),   # one benchmark's release is not the other's
    (file_sha256(DEFAULT_DATA), "sandglass", None),
    ("0" * 64, "insttrans", None),
]


@pytest.mark.parametrize("sha256, bench, known_as", IDENTITIES)
def test_identify_names_the_known_set_of_a_checksum(sha256, bench, known_as):
    assert identify(sha256, get_benchmark(bench)) == known_as


def test_a_manifest_without_releases_still_knows_its_bundled_set(tmp_path):
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"sandglass": {"sha256": "abc"}}), encoding="utf-8")
    assert identify("abc", SANDGLASS, manifest) == "bundled"
    assert identify(SANDGLASS_RELEASE, SANDGLASS, manifest) is None
    assert release_statistics(SANDGLASS, manifest) is None
    assert known_sets(INSTTRANS, tmp_path / "missing.json") == {}


def test_signature_part_names_the_known_set():
    assert [signature_part(name) for name in ("bundled", "official release", None)] == [
        "known:bundled", "known:official-release", "known:none"]


# --- release look-alikes --------------------------------------------------------------------

def release_shaped_rows(n: int = 3000) -> list[dict]:
    """n rows with the release's per-constraint counts where they fit (not the release itself)."""
    return [make_row(f"rel-{index:04d}") for index in range(n)]


def test_the_bundled_set_does_not_look_like_a_release():
    rows = load_rows_from_file(DEFAULT_DATA, validate_rows)
    assert not looks_like_release(rows, INSTTRANS)
    assert data_reasons(file_sha256(DEFAULT_DATA), len(rows), rows, INSTTRANS) == []


def test_3000_rows_look_like_the_release_and_every_published_count_that_differs_is_named():
    rows = release_shaped_rows()
    assert looks_like_release(rows, INSTTRANS)
    differences = release_differences(rows, INSTTRANS)
    assert not any(text.startswith("rows ") for text in differences)  # the row count matches
    assert "by_constraint.format_preserve 3,000 (release 2,098)" in differences
    assert "by_constraint.syllable_order 0 (release 601)" in differences
    assert "constraints_per_instance.1 3,000 (release 1,307)" in differences
    assert "by_domain.评论 3,000 (release 300)" in differences


def test_a_truncated_release_names_its_row_count_first():
    rows = release_shaped_rows(2999)
    rows[0]["constraint_ids"] = []  # keeps validation out of it: statistics only
    differences = release_differences(rows, INSTTRANS)
    assert differences[0] == "rows 2,999 (release 3,000)"


def test_sandglass_release_style_ids_mark_a_look_alike_whatever_its_size():
    rows = load_rows_from_file(SANDGLASS_DATA, validate=validate_sandglass_rows)
    assert looks_like_release(rows, SANDGLASS)  # uuid:lang:kind ids, as the release's
    differences = release_differences(rows, SANDGLASS)
    assert differences[0] == "rows 240 (release 3,600)" and "source_lines 20 (release 300)" in differences
    renamed = [{**row, "case_id": f"line-{index}"} for index, row in enumerate(rows)]
    assert not looks_like_release(renamed, SANDGLASS)


DATA_REASONS = [
    # (what, sha256, rows, identity, expected reasons: prefixes in order)
    ("the release itself", INSTTRANS_RELEASE, "release-shaped", "file", []),
    ("an unknown small file", "1" * 64, "small", "file", ["the data's SHA-256 matches no known data set"]),
    ("a release look-alike", "1" * 64, "release-shaped", "file",
     ["the data's SHA-256 matches no known data set",
      "the data looks like the official release but differs from its published statistics: "
      "constraint_annotations 3,000 (release 5,402); by_constraint.format_preserve 3,000 (release 2,098); "]),
    ("rows without a file", "1" * 64, "small", "rows",
     ["the data has no file (an in-memory or save_to_disk dataset), so its identity is a hash of its rows"]),
]


@pytest.mark.parametrize("what, sha256, rows, identity, expected", DATA_REASONS, ids=[c[0] for c in DATA_REASONS])
def test_data_reasons(what, sha256, rows, identity, expected):
    rows = release_shaped_rows() if rows == "release-shaped" else [make_row("a"), make_row("b")]
    reasons = data_reasons(sha256, len(rows), rows, INSTTRANS, identity=identity)
    assert len(reasons) == len(expected)
    assert all(reason.count(";") <= 8 for reason in reasons)  # at most eight differences, then "and N more"
    for reason, prefix in zip(reasons, expected):
        assert reason.startswith(prefix), reason


def test_a_look_alike_with_the_published_counts_is_told_its_bytes_differ(tmp_path):
    rows = release_shaped_rows(3)
    manifest = tmp_path / "manifest.json"
    published = {"sha256": "f" * 64, "n_instances": 3, "statistics": INSTTRANS.release.data_statistics(rows)}
    manifest.write_text(json.dumps({"data": {"sha256": "e" * 64}, "releases": {"insttrans": published}}),
                        encoding="utf-8")
    reasons = data_reasons("1" * 64, 3, rows, INSTTRANS, manifest_path=manifest)
    assert reasons[1].startswith("the data looks like the official release and matches its published statistics")
    assert data_reasons("f" * 64, 3, rows, INSTTRANS, manifest_path=manifest) == []


def test_no_manifest_means_nothing_is_known(tmp_path):
    reasons = data_reasons("1" * 64, 1, [make_row()], INSTTRANS, manifest_path=tmp_path / "none.json")
    assert reasons == ["manifest.json records no insttrans data set, so the data cannot be identified"]
