"""`pip install .` gives console commands that work from any directory, with the bundled data and
manifest installed beside them; pyproject.toml lists every package and requirements.txt's runtime
dependencies; the Python API returns a run's results as objects (docs/api.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from eval.run.api import evaluate, load_run
from eval.config import RunResult
from eval.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ("insttrans-eval", "insttrans-prepare", "insttrans-predict", "insttrans-compare", "insttrans-leaderboard")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_under_eval_is_found():
    from setuptools import find_packages

    found = set(find_packages(str(ROOT), include=pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]))
    on_disk = {".".join(path.parent.relative_to(ROOT).parts) for path in (ROOT / "eval").rglob("__init__.py")}
    assert on_disk <= found


def requirement_lines(name: str) -> list[str]:
    lines = (ROOT / name).read_text(encoding="utf-8").split("\n")
    return [re.sub(r"\s+#.*", "", line).strip() for line in lines if line.strip() and not line.startswith("#")]


def test_the_dependencies_are_requirements_txt_and_the_test_extra_requirements_test_txt():
    assert sorted(requirement_lines("requirements.txt")) == sorted(pyproject()["project"]["dependencies"])
    test = requirement_lines("requirements-test.txt")
    assert test[0] == "-r requirements.txt"  # the tests' file brings a run's dependencies with it
    assert sorted(test[1:]) == sorted(pyproject()["project"]["optional-dependencies"]["test"])
    runtime_names = {re.split(r"[<>=!~\[]", line)[0].lower() for line in requirement_lines("requirements.txt")}
    assert not runtime_names & {"pytest", "playwright", "wheel", "setuptools"}  # a run installs no test tool


def test_ci_makes_the_venv_the_readme_shows_and_installs_both_files():
    readme, ci = (ROOT / "README.md").read_text(encoding="utf-8"), (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    venv_line = "python3 -m venv .venv"
    assert venv_line in readme and venv_line in ci and ". .venv/bin/activate" in ci
    assert "pip install -r requirements-test.txt" in readme and "-r requirements-test.txt" in ci
    test_command = re.search(r"`(python -m pytest[^`]*)`", readme).group(1)
    assert ci.rstrip().splitlines()[-1] == test_command


def test_console_commands_point_at_callables():
    import importlib

    scripts = pyproject()["project"]["scripts"]
    assert tuple(scripts) == COMMANDS
    for target in scripts.values():
        module, _, name = target.partition(":")
        assert callable(getattr(importlib.import_module(module), name))


def nested_venv(venv: Path) -> Path:
    """A venv that sees the packages of the interpreter running the tests, and nothing of the checkout.

    `venv --system-site-packages` would see the *base* interpreter's packages: run from a virtual
    environment (as the README sets up) that base lacks the dependencies, setuptools and wheel. A
    .pth file naming this interpreter's site directories works from a venv and from a system Python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    seen = [path for path in dict.fromkeys(site.getsitepackages() + [site.getusersitepackages()])
            if Path(path).is_dir() and Path(path) != Path(own)]
    (Path(own) / "outer-site-packages.pth").write_text("".join(f"{path}\n" for path in seen), encoding="utf-8")
    return python


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A venv (seeing this interpreter's packages) with `pip install .` of this checkout: offline, no deps."""
    venv, source = tmp_path_factory.mktemp("venv"), tmp_path_factory.mktemp("source") / "checkout"
    # a copy, so the build's egg-info and build/ folders land there and not in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "outputs", "build", "*.egg-info",
                                                                 "__pycache__", ".pytest_cache", ".venv"))
    python = nested_venv(venv)
    # the venv's own `python -m pip` (pip is seen through the .pth), as a reader runs it: one pip, where
    # `pip --python` starts pip here and again in the venv (0.4 s of CPU more); pip sees the same paths either way
    built = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                            "--no-index", str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    return venv


# compare's bootstrap at 200 resamples, not 10,000 (0.3 s instead of 0.85 s a call): these tests are
# about the installed command finding its code and data; test_compare.py checks the statistics.
FEW = ("--resamples", "200")


def run_in(directory: Path, venv: Path, *command: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(list(command), cwd=directory, env=env, capture_output=True, text=True, timeout=300)


def test_installed_commands_work_from_any_directory(installed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    predictions = installed / "share" / "insttrans-bench" / "data" / "example_predictions.jsonl"
    done = run_in(elsewhere, installed, "insttrans-eval", "--predictions", str(predictions), "--output-dir", "run",
                  "--skip-judge", "--quiet")
    assert done.returncode == 0, done.stderr
    summary = json.loads((elsewhere / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["data"]["known_as"] == "bundled" and summary["data"]["n_instances"] == 318
    assert "instTrans IFscore: **not comparable**" in (elsewhere / "run" / "report.md").read_text(encoding="utf-8")
    for command in (["insttrans-compare", "run", "run", *FEW], ["python", "-m", "eval.compare", "run", "run", *FEW],
                    ["insttrans-leaderboard", "run"], ["python", "-m", "eval.leaderboard", "run"],
                    ["python", "-m", "eval.published", "run"],
                    ["insttrans-prepare", "--output", "inputs.jsonl"], ["insttrans-predict", "--help"]):
        done = run_in(elsewhere, installed, *command)
        assert done.returncode == 0, (command, done.stderr)
    found = run_in(elsewhere, installed, "python", "-c", "import eval; print(eval.__file__)\n"
                   "from eval.benchmarks import BENCHMARKS\n"
                   "print([name for name, bench in BENCHMARKS.items() if not bench.default_data.exists()])\n"
                   "from eval.calibrate import CALIBRATION_DIR; print(len(list(CALIBRATION_DIR.glob('*.jsonl'))))")
    located, bundled, calibration = found.stdout.splitlines()  # one interpreter asked all three
    assert str(ROOT) not in located and located.endswith("__init__.py"), found.stderr  # the installed copy, not the checkout
    assert bundled == "[]", found.stderr  # every benchmark's bundled set was installed
    assert calibration == str(len(list((ROOT / "data" / "calibration").glob("*.jsonl"))))


def test_installed_commands_import_nothing_from_a_hostile_current_folder(installed, tmp_path):
    """Issue 34 item 14: a folder holding its own `eval/__init__.py` (a release folder does) and
    modules named like the harness's imports; every console command runs the installed harness."""
    from test_cwd_imports import hostile_folder, ran

    folder = hostile_folder(tmp_path)
    predictions = installed / "share" / "insttrans-bench" / "data" / "example_predictions.jsonl"
    done = run_in(folder, installed, "insttrans-eval", "--predictions", str(predictions), "--output-dir", "run",
                  "--skip-judge", "--quiet", "--limit", "5")
    assert done.returncode == 0, done.stderr
    for command in (["insttrans-compare", "run", "run", *FEW], ["insttrans-leaderboard", "run"],
                    ["insttrans-prepare", "--output", "inputs.jsonl", "--limit", "2"], ["insttrans-predict", "--help"],
                    ["python", "-P", "-m", "eval.compare", "run", "run", *FEW]):
        done = run_in(folder, installed, *command)
        assert done.returncode == 0, (command, done.stderr)
    assert ran(folder) == []


# --- the Python API -------------------------------------------------------------------------------

def test_the_api_returns_the_run_as_objects(tmp_path):
    run = evaluate(ROOT / "data" / "example_predictions.jsonl", tmp_path / "run", skip_judge=True)
    assert isinstance(run, RunResult) and not run.formal and "--skip-judge" in " ".join(run.non_formal_reasons)
    on_disk = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert run.summary == on_disk and run.signature == on_disk["signature"]
    assert run.metric("hard_pass_rate") == on_disk["hard_pass_rate"]["value"]
    assert run.interval("hard_pass_rate") == tuple(on_disk["hard_pass_rate"]["ci95"])
    assert run.metric("if_score") is None and run.interval("quality") is None
    assert len(run.rows) == 318 and run.rows[0]["case_id"]
    failed = run.failed("format_preserve")
    assert failed and all(not row["hard_pass"] for row in failed)
    assert load_run(tmp_path / "run") == run


def test_api_keywords_are_the_flags_and_a_misspelt_one_names_the_right_one(tmp_path):
    run = evaluate(ROOT / "data" / "example_predictions.jsonl", tmp_path / "strict", skip_judge=True,
                   rule_set="strict", limit=20)
    assert len(run.rows) == 20 and "rules:strict" in run.signature
    with pytest.raises(ConfigError, match="unknown keyword rule_sett; did you mean rule_set"):
        evaluate(ROOT / "data" / "example_predictions.jsonl", tmp_path / "x", skip_judge=True, rule_sett="strict")
    assert not (tmp_path / "x").exists()
