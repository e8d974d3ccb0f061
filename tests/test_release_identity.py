"""One identity whatever the path (SPEC §9): --data, --data-file, --dataset FILE, a snapshot
directory and the hub's local cache all give the SHA-256 of the data file's bytes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import evaluate
from conftest import make_row, write_jsonl
from eval import sandglass
from eval.benchmarks import get_benchmark
from eval.run.cli import benchmark_and_source, evaluate_parser
from eval.exits import run_cli
from eval.io.data import file_sha256, rows_sha256
from eval.insttrans.rows import DEFAULT_DATA
from eval.benchmarks import hub_files
from eval.io.hub import resolve_data_file
from judge_server import JudgeServer

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = {"insttrans": DEFAULT_DATA, "sandglass": sandglass.DEFAULT_DATA}
RELEASE_FILE = {"insttrans": "data/test.jsonl", "sandglass": "sandglass_bench.jsonl"}
HUB_ID = {"insttrans": "IndexTeam/InstTrans-Bench", "sandglass": "IndexTeam/Sandglass-Bench"}
PREDICTIONS = {"insttrans": ROOT / "data" / "example_predictions.jsonl",
               "sandglass": ROOT / "data" / "sandglass" / "example_predictions.jsonl"}


def snapshot_dir(tmp_path: Path, bench: str, data: Path | None = None) -> Path:
    """A dataset-repository snapshot as `hf download … --local-dir` leaves it: the card and the data file."""
    directory = tmp_path / f"{bench}-snapshot"
    (directory / RELEASE_FILE[bench]).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(data or BUNDLED[bench], directory / RELEASE_FILE[bench])
    (directory / "README.md").write_text("---\nlicense: cc-by-nc-4.0\n---\n# A dataset card\n", encoding="utf-8")
    # the rest of a release repository: code (which datasets' patterns read as a validation split),
    # manifest.json, and the metadata `hf download --local-dir` leaves
    (directory / "eval").mkdir()
    (directory / "eval" / "__init__.py").write_text('__version__ = "1.0"\n', encoding="utf-8")
    (directory / "evaluate.py").write_text("print('the release scorer')\n", encoding="utf-8")
    (directory / "manifest.json").write_text('{"data": {"sha256": "x"}}\n', encoding="utf-8")
    metadata = directory / ".cache" / "huggingface" / "download" / RELEASE_FILE[bench]
    metadata.parent.mkdir(parents=True)
    metadata.with_name(metadata.name + ".metadata").write_text("0123\nabcd\n1.0\n", encoding="utf-8")
    return directory


def hub_cache(hf_home: Path, bench: str, data: Path | None = None) -> Path:
    """huggingface_hub's cache layout for a dataset repository: blobs, a snapshot of symlinks, refs/main."""
    repo = hf_home / "hub" / ("datasets--" + HUB_ID[bench].replace("/", "--"))
    commit = "0123456789abcdef0123456789abcdef01234567"
    files = {RELEASE_FILE[bench]: data or BUNDLED[bench], "README.md": None}
    for name, source in files.items():
        blob = repo / "blobs" / (file_sha256(source) if source else "readme")
        blob.parent.mkdir(parents=True, exist_ok=True)
        if source:
            shutil.copyfile(source, blob)
        else:
            blob.write_text("# A dataset card\n", encoding="utf-8")
        link = repo / "snapshots" / commit / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")
    return repo / "snapshots" / commit / RELEASE_FILE[bench]


def loaded(bench: str, *flags: str):
    """The LoadedData of a command line, through the CLI edge and the pipeline's loader."""
    from eval.run.pipeline import load_benchmark_data

    args = evaluate_parser().parse_args(["--predictions", "p", "--output-dir", "o", *flags])
    benchmark, source = benchmark_and_source(args)
    assert benchmark == bench
    return load_benchmark_data(get_benchmark(benchmark), source)


@pytest.mark.parametrize("bench", ["insttrans", "sandglass"])
def test_every_local_path_gives_the_file_identity(tmp_path, bench):
    expected = file_sha256(BUNDLED[bench])
    directory = snapshot_dir(tmp_path, bench)
    for flags in (["--data", str(BUNDLED[bench])], ["--data-file", str(BUNDLED[bench])],
                  ["--dataset", str(BUNDLED[bench])], ["--dataset", str(directory)]):
        data = loaded(bench, *flags)
        assert (data.sha256, data.identity, len(data.rows)) == (expected, "file", 240 if bench == "sandglass" else 318)
    assert resolve_data_file(str(directory), hub_files()) == directory / RELEASE_FILE[bench]


def test_the_default_data_file_is_identified_as_with_data(tmp_path):
    assert loaded("insttrans").sha256 == file_sha256(DEFAULT_DATA)


@pytest.fixture
def hf_home(tmp_path, monkeypatch):
    """An empty HF_HOME for this test: huggingface_hub's cache and datasets' Arrow cache inside it."""
    import datasets.config
    import huggingface_hub.constants

    home = tmp_path / "hf"
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(home / "hub"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", home / "datasets")
    return home


@pytest.mark.parametrize("bench", ["insttrans", "sandglass"])
def test_the_hub_path_identifies_the_file_the_download_cached(tmp_path, hf_home, bench):
    cached = hub_cache(hf_home, bench)
    assert cached.is_symlink()
    assert resolve_data_file(HUB_ID[bench], hub_files()) == cached
    out = tmp_path / "out"
    assert evaluate.main(["--dataset", HUB_ID[bench], "--predictions", str(PREDICTIONS[bench]),
                          "--output-dir", str(out), "--skip-judge", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["data"]["source"] == f"dataset:{HUB_ID[bench]}"
    assert (summary["data"]["sha256"], summary["data"]["identity"], summary["data"]["known_as"]) == (
        file_sha256(BUNDLED[bench]), "file", "bundled")
    assert summary.get("benchmark", "insttrans") == bench  # recognised from the cached file's first row


@pytest.mark.parametrize("file_rows, identity", [(["a", "b"], "file"), (["a"], "rows"), (["b", "a"], "rows")])
def test_a_cached_file_lends_its_identity_only_to_the_rows_it_holds(tmp_path, monkeypatch, file_rows, identity):
    """The hub path after an offline load from datasets' Arrow copy: the cache may have moved on."""
    from datasets import Dataset

    from eval.io import hub

    rows = [make_row("a"), make_row("b")]
    cached = write_jsonl(tmp_path / "test.jsonl", [make_row(case_id) for case_id in file_rows])
    monkeypatch.setattr(hub, "load_test_split", lambda name, release_files=(): (Dataset.from_list(rows), cached))
    data = loaded("insttrans", "--dataset", HUB_ID["insttrans"])
    assert data.identity == identity
    assert data.sha256 == (file_sha256(cached) if identity == "file" else rows_sha256(data.rows))


def test_a_hub_id_missing_from_the_cache_resolves_to_no_file(hf_home):
    assert resolve_data_file("IndexTeam/InstTrans-Bench", hub_files()) is None


@pytest.mark.parametrize("bench", ["insttrans", "sandglass"])
def test_a_file_one_byte_longer_is_not_known_through_any_path(tmp_path, bench):
    changed = tmp_path / "changed.jsonl"
    raw = BUNDLED[bench].read_bytes()
    changed.write_bytes(raw[:-1] + b" \n")  # the same rows, one byte more
    directory = snapshot_dir(tmp_path, bench, changed)
    for flags in (["--data", str(changed)], ["--dataset", str(directory)]):
        data = loaded(bench, *flags)
        assert data.sha256 == file_sha256(changed) != file_sha256(BUNDLED[bench])
    out = tmp_path / "out"
    assert evaluate.main(["--dataset", str(directory), "--predictions", str(PREDICTIONS[bench]),
                          "--output-dir", str(out), "--skip-judge", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["data"]["known_as"] is None and summary["data"]["manifest_match"] is False
    assert any(reason.startswith("the data's SHA-256 matches no known data set")
               for reason in summary["non_formal_reasons"])
    assert "|known:none|" in summary["signature"]


def test_a_save_to_disk_dataset_falls_back_to_the_rows_hash_and_says_so(tmp_path):
    from datasets import Dataset

    rows = [make_row("a"), make_row("b", target_lang="ja", reference="こんにちは")]
    Dataset.from_list(rows).save_to_disk(str(tmp_path / "saved"))
    data = loaded("insttrans", "--dataset", str(tmp_path / "saved"))
    assert (data.identity, data.sha256) == ("rows", rows_sha256(rows))
    preds = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "a", "prediction": "Hello, world"}])
    out = tmp_path / "out"
    assert evaluate.main(["--dataset", str(tmp_path / "saved"), "--predictions", str(preds),
                          "--output-dir", str(out), "--skip-judge", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["data"]["identity"] == "rows"
    assert any(reason.startswith("the data has no file (an in-memory or save_to_disk dataset)")
               for reason in summary["non_formal_reasons"])


def test_a_3000_row_release_shaped_file_that_is_not_the_release_gets_the_statistics_message(tmp_path):
    rows = [make_row(f"rel-{index:04d}") for index in range(3000)]
    data = write_jsonl(tmp_path / "test.jsonl", rows)
    preds = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "rel-0000", "prediction": "Hello, world"}])
    out = tmp_path / "out"
    assert evaluate.main(["--data", str(data), "--predictions", str(preds), "--output-dir", str(out),
                          "--skip-judge", "--quiet"]) == 0
    reasons = json.loads((out / "summary.json").read_text(encoding="utf-8"))["non_formal_reasons"]
    look_alike = [reason for reason in reasons if reason.startswith("the data looks like the official release")]
    assert len(look_alike) == 1
    assert "by_constraint.format_preserve 3,000 (release 2,098)" in look_alike[0]
    assert "rows " not in look_alike[0]  # the row count is the release's: only the counts differ


def test_a_judged_run_on_the_bundled_set_from_a_snapshot_directory_is_formal(tmp_path, monkeypatch, capfd):
    directory = snapshot_dir(tmp_path, "insttrans")
    monkeypatch.setenv("JUDGE_API_KEY", "sk-release-identity-test")
    out = tmp_path / "out"
    with JudgeServer() as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, ["--dataset", str(directory), "--predictions", str(PREDICTIONS["insttrans"]),
                                         "--output-dir", str(out), "--quiet", "--judge-backoff", "0.001"])
    assert status == 0, capfd.readouterr().err
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (summary["formal"], summary["non_formal_reasons"]) == (True, [])
    assert summary["data"]["source"] == f"dataset:{directory}"
    assert (summary["data"]["known_as"], summary["data"]["identity"]) == ("bundled", "file")
    assert summary["data"]["sha256"] == file_sha256(DEFAULT_DATA)
    assert "|known:bundled|" in summary["signature"]
