"""A newcomer's mistakes get one line that names the fix: whole flag names only, did-you-mean for a
misspelt flag, predictions of the other benchmark, a wrapper object instead of JSONL, a --dataset
path that does not exist, a hub dataset with no network and no cached copy."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import evaluate
import predict
import prepare_inputs
from conftest import write_jsonl
from eval import compare
from eval.io import hub
from eval import leaderboard
from eval.exits import run_cli
from eval.errors import DataError, PredictionError
from eval.flags import unknown_flag_message
from eval.inputs.predictions import load_predictions

ROOT = Path(__file__).resolve().parent.parent
MAINS = {"evaluate": evaluate.main, "prepare_inputs": prepare_inputs.main, "predict": predict.main,
         "compare": compare.main, "leaderboard": leaderboard.main}


def refused(capsys, main, argv: list[str]) -> str:
    """The error line of a command line that argparse refuses (exit 2)."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().split("\n")
    assert len(lines) == 2 and lines[1].strip().startswith("hint:"), lines
    return lines[0]


# --- flags -------------------------------------------------------------------------------------

@pytest.mark.parametrize("main, argv, typo, meant", [
    ("evaluate", ["--predictions", "p", "--output-dir", "o", "--skip-judg"], "--skip-judg", "--skip-judge"),
    ("evaluate", ["--predicitons", "p", "--output-dir", "o"], "--predicitons", "--predictions"),
    ("evaluate", ["--predictions", "p", "--output-dir=o", "--rule=strict"], "--rule", "--rule-set"),
    ("prepare_inputs", ["--outpt", "x.jsonl"], "--outpt", "--output"),
    ("prepare_inputs", ["--output", "x.jsonl", "--lim", "3"], "--lim", "--limit"),
    ("predict", ["--inputs", "i", "--output", "o", "--modle", "m"], "--modle", "--model"),
    ("compare", ["a", "b", "--jsn", "x.json"], "--jsn", "--json"),
    ("leaderboard", ["a", "--markdwn", "x.md"], "--markdwn", "--markdown"),
])
def test_an_abbreviated_or_misspelt_flag_is_refused_naming_the_flag_meant(capsys, main, argv, typo, meant):
    line = refused(capsys, MAINS[main], argv)
    assert f"unknown flag {typo}; did you mean {meant}?" in line


@pytest.mark.parametrize("main", sorted(MAINS))
def test_no_command_accepts_an_abbreviation(main):
    parser = {"evaluate": evaluate.evaluate_parser, "prepare_inputs": prepare_inputs.prepare_parser,
              "predict": predict.build_parser, "compare": compare.build_parser,
              "leaderboard": leaderboard.build_parser}[main]()
    assert parser.allow_abbrev is False


def test_a_flag_far_from_every_known_one_is_named_without_a_guess(capsys):
    line = refused(capsys, evaluate.main, ["--predictions", "p", "--output-dir", "o", "--zzzzzz"])
    assert line.endswith("unknown flag --zzzzzz")


# --- predictions -------------------------------------------------------------------------------

def test_sandglass_predictions_against_insttrans_data_name_the_benchmark_flag(tmp_path, capsys):
    status = run_cli(evaluate.main, ["--predictions", str(ROOT / "data/sandglass/example_predictions.jsonl"),
                                     "--output-dir", str(tmp_path / "out"), "--skip-judge", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "--benchmark sandglass" in err and "Sandglass-Bench" in err
    assert not (tmp_path / "out").exists()


def test_insttrans_predictions_against_sandglass_data_name_the_benchmark_flag(tmp_path, capsys):
    status = run_cli(evaluate.main, ["--predictions", str(ROOT / "data/example_predictions.jsonl"),
                                     "--data", str(ROOT / "data/sandglass/test.jsonl"),
                                     "--output-dir", str(tmp_path / "out"), "--skip-judge", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "--benchmark insttrans" in err


def test_an_unknown_id_of_no_known_shape_keeps_the_data_hint(tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "nowhere-1", "prediction": "x"}])
    status = run_cli(evaluate.main, ["--predictions", str(path), "--output-dir", str(tmp_path / "out"),
                                     "--skip-judge", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "--benchmark" not in err and "belong to this data file" in err


@pytest.mark.parametrize("wrapper", [{"predictions": [{"case_id": "a", "prediction": "x"}]},
                                     {"data": [], "model": "m"}])
def test_a_one_line_wrapper_object_names_its_shape_and_the_jsonl_expected(tmp_path, wrapper):
    path = write_jsonl(tmp_path / "p.jsonl", [wrapper])
    with pytest.raises(PredictionError) as caught:
        load_predictions(path, {"a"})
    message = str(caught.value)
    assert "wrapper object holding a list under" in message and "one object per line" in message
    assert f"{path}:1" in message


# --- --dataset -----------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["./missing-dir", "missing/deeper/dir", "/no/such/file.jsonl", "gone.jsonl"])
def test_a_dataset_path_that_does_not_exist_says_so(tmp_path, monkeypatch, capsys, spec):
    monkeypatch.chdir(tmp_path)
    status = run_cli(prepare_inputs.main, ["--dataset", spec, "--output", str(tmp_path / "x.jsonl")])
    err = capsys.readouterr().err
    assert status == 2 and f"--dataset {spec}: the path does not exist" in err
    assert "HFValidation" not in err and not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize("spec", ["Owner/Name", "Owner/Name-v2.1"])
def test_a_hub_id_is_not_taken_for_a_path(spec):
    hub.check_dataset_spec(spec)


@pytest.fixture
def empty_hub_cache(tmp_path, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))


def test_offline_with_no_cached_copy_fails_at_once_naming_the_cache(empty_hub_cache, monkeypatch):
    monkeypatch.setattr(hub, "hub_offline", lambda: True)
    with pytest.raises(DataError) as caught:
        hub.load_test_split("SomeOwner/NotCached")
    message = str(caught.value)
    assert "HF_HUB_OFFLINE" in message and "local hub cache" in message and "hf download" in message


def test_no_network_with_no_cached_copy_fails_with_one_request(empty_hub_cache, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(hub, "hub_offline", lambda: False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", "http://127.0.0.1:9")  # nothing listens
    monkeypatch.setattr("datasets.load_dataset", lambda *a, **k: pytest.fail("datasets would retry for ~26 s"))
    with pytest.raises(DataError) as caught:
        hub.load_test_split("SomeOwner/NotCached")
    message = str(caught.value)
    assert "cannot be reached" in message and "HF_HUB_OFFLINE=1" in message and "--data" in message


# --- lock files ----------------------------------------------------------------------------------

def test_a_run_leaves_no_lock_file_behind(tmp_path, monkeypatch):
    from judge_server import JudgeServer

    out = tmp_path / "out"
    with JudgeServer() as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        monkeypatch.setenv("JUDGE_API_KEY", "k")
        status = run_cli(evaluate.main, ["--predictions", str(ROOT / "data/example_predictions.jsonl"),
                                         "--output-dir", str(out), "--limit", "5", "--quiet"])
    assert status == 0
    names = {path.name for path in out.iterdir()}
    assert {"judge_cache.sqlite", "report.html", "report.md", "scores.jsonl", "summary.json"} <= names
    assert not [name for name in names if name.endswith(".lock") or name.startswith(".")]


def test_a_killed_runs_lock_file_is_taken_over_and_removed(tmp_path):
    from eval.io.locking import hold_lock

    (tmp_path / "out").mkdir()
    (tmp_path / "out" / ".lock").write_text("pid 999999: a run that was killed\n", encoding="utf-8")
    with hold_lock(tmp_path / "out", "output directory", is_dir=True) as lock_file:
        assert str(__import__("os").getpid()) in lock_file.read_text(encoding="utf-8")
    assert not (tmp_path / "out" / ".lock").exists()


def test_a_lock_file_removed_after_it_was_opened_is_not_trusted(tmp_path, monkeypatch):
    """The race the removal opens: B opens the file, A removes it and lets go, B locks the removed
    inode. B must notice and lock the file now at the path instead."""
    import os

    from eval.io import locking

    target, real_open, opened = tmp_path / "cache.sqlite", os.open, []

    def open_then_lose_the_race(path, flags, mode=0o777):
        descriptor = real_open(path, flags, mode)
        if not opened:
            os.unlink(path)  # the previous holder removes it right after our open
        opened.append(path)
        return descriptor

    monkeypatch.setattr(locking.os, "open", open_then_lose_the_race)
    with locking.hold_lock(target, "Judge cache") as lock_file:
        assert len(opened) == 2 and lock_file.exists()
        assert os.stat(lock_file).st_ino  # the file at the path is the one held


# --- messages cite docs/, not the SPEC users do not have -------------------------------------------

def _strings_outside_docstrings(path: Path) -> list[tuple[int, str]]:
    import ast

    nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))  # walked once, read twice
    docstrings = {id(node.body[0].value) for node in nodes
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in nodes
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_message_help_or_page_cites_the_spec():
    import gc

    sources = [*ROOT.glob("*.py"), *(ROOT / "eval").rglob("*.py"), *(ROOT / "scripts").glob("*.py")]
    enabled = gc.isenabled()
    gc.disable()  # syntax trees hold no cycles; the collector's passes over them were a fifth of the time
    try:
        in_code = [f"{path.relative_to(ROOT)}:{line}" for path in sources
                   for line, text in _strings_outside_docstrings(path) if "SPEC" in text]
    finally:
        if enabled:
            gc.enable()
    in_pages = [page.name for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
                if "SPEC §" in page.read_text(encoding="utf-8")]
    assert in_code == [] and in_pages == []


@pytest.mark.parametrize("script", ["scripts/syllable_accuracy.py", "scripts/bench_syllable.py",
                                    "scripts/bench_judge_faults.py", "scripts/bench_judge.py",
                                    "scripts/bench_predict.py", "scripts/screenshot_report.py"])
def test_a_scripts_help_line_cites_no_spec(script):
    first_line = (ROOT / script).read_text(encoding="utf-8").split('"""', 2)[1].split("\n")[0]
    assert "SPEC" not in first_line


# --- the demonstration --------------------------------------------------------------------------------

def test_the_demo_runs_the_whole_flow_and_badges_the_stand_in_judge(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "scripts.demo", "--output-dir", str(tmp_path / "demo")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("DEMONSTRATION:") and done.stdout.rstrip().endswith("the numbers mean nothing")
    steps = [line.split(".")[0] for line in done.stdout.split("\n") if re.match(r"\d+\. ", line)]
    assert steps == ["1", "2", "3", "4", "5", "6"]  # each step numbered once, in order
    badge = "formal run (Judge: gpt-5.6-sol @ http://127.0.0.1:"
    assert done.stdout.count(badge) == 2 and "System: stand-in at http://127.0.0.1:" in done.stdout
    judge_note = "— stand-in Judge: tests/judge_server.py, a stand-in Judge for tests and demonstrations"
    model_note = "stand-in model: tests/model_server.py, a stand-in model for tests and demonstrations"
    badges = [line for line in done.stdout.split("\n") if line.startswith(badge)]
    assert len(badges) == 2 and all(judge_note in line and line.endswith("the numbers mean nothing") for line in badges)
    assert [model_note in line for line in badges] == [False, True]  # the example predictions came from no model
    for run in ("example", "stand_in"):
        assert "- Run: formal (Judge: gpt-5.6-sol @ http://127.0.0.1:" in (tmp_path / "demo" / run / "report.md").read_text()
        assert badge in (tmp_path / "demo" / run / "report.html").read_text()
        assert judge_note in (tmp_path / "demo" / run / "report.md").read_text()
        assert judge_note in (tmp_path / "demo" / run / "report.html").read_text()
    compared = json.loads((tmp_path / "demo" / "compare.json").read_text(encoding="utf-8"))
    assert compared["metrics"]["hard_pass_rate"]["b"] == 1.0  # the stand-in answers with the references
    assert sorted(path.name for path in tmp_path.glob("demo/*")) == [
        "compare.json", "example", "model_inputs.jsonl", "stand_in", "stand_in_predictions.jsonl",
        "stand_in_predictions.meta.json"]
