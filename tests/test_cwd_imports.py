"""Commands never import from the current directory (issue 34 item 14): run from a folder that
holds a hostile `eval/__init__.py` and modules named like the ones the harness imports (each
writes a marker file when it runs), the checkout's scripts and the console commands run the
harness's code only. `python -m eval.X` is Python's own rule: it puts the current directory first,
so a folder's own `eval/__init__.py` runs before any code of the harness (documented in
docs/api.md, asserted here so the docs stay true); `python -P -m eval.X` does not, and once the
harness's package is found, `-m` drops the folder from sys.path for everything else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Modules a command imports after `eval` (none is loaded when Python starts).
SHADOWED = ("argparse", "csv", "difflib", "dataclasses", "numpy", "httpx", "tqdm")


def hostile_folder(base: Path, with_eval: bool = True) -> Path:
    """A folder whose `eval/__init__.py` and shadowing modules write `ran-NAME` when imported."""
    folder = base / "release"
    folder.mkdir()
    names = (("eval",) if with_eval else ()) + SHADOWED
    for name in names:
        path = folder / name / "__init__.py" if name in ("eval", "numpy") else folder / f"{name}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"open({str(folder / ('ran-' + name))!r}, 'w').close()\n"
                        f"raise SystemExit('the folder\\'s {name} ran')\n", encoding="utf-8")
    return folder


def ran(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("ran-*"))


def run(folder: Path, *command: str, pythonpath: str | None = None) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run(list(command), cwd=folder, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("script", ["evaluate.py", "prepare_inputs.py", "predict.py"])
def test_the_checkouts_scripts_run_from_a_hostile_folder_without_importing_from_it(tmp_path, script):
    folder = hostile_folder(tmp_path)
    done = run(folder, sys.executable, str(ROOT / script), "--help")
    assert done.returncode == 0, done.stderr
    assert ran(folder) == []


def test_a_full_run_from_a_hostile_folder_imports_nothing_from_it(tmp_path):
    folder = hostile_folder(tmp_path)
    done = run(folder, sys.executable, str(ROOT / "evaluate.py"), "--predictions",
               str(ROOT / "data" / "example_predictions.jsonl"), "--output-dir", "run", "--skip-judge",
               "--limit", "5", "--quiet")
    assert done.returncode == 0, done.stderr
    assert ran(folder) == [] and (folder / "run" / "summary.json").exists()
    for module in ("eval.compare", "eval.leaderboard"):  # with `-P`, from the same folder
        done = run(folder, sys.executable, "-P", "-m", module, *(["run", "run"] if module == "eval.compare" else ["run"]),
                   pythonpath=str(ROOT))
        assert done.returncode == 0, (module, done.stderr)
    assert ran(folder) == []


def test_a_console_command_wrapper_imports_nothing_from_the_folder(tmp_path):
    """pip's console-script wrapper, as it writes it: its own folder first on sys.path, never the
    current one (test_install.py runs the really installed commands the same way)."""
    folder = hostile_folder(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "insttrans-compare"
    wrapper.write_text("import re\nimport sys\nfrom eval.compare import main\nif __name__ == '__main__':\n"
                       "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
                       "    sys.exit(main())\n", encoding="utf-8")
    done = run(folder, sys.executable, str(wrapper), "--help", pythonpath=str(ROOT))
    assert done.returncode == 0, done.stderr
    assert ran(folder) == []


def test_python_m_runs_a_folders_own_eval_package_first_as_documented(tmp_path):
    """Python's rule, which no code of the harness can change: the docs say to use the console
    commands, `python -P -m`, or `python -m` from the checkout."""
    folder = hostile_folder(tmp_path)
    done = run(folder, sys.executable, "-m", "eval.compare", "--help", pythonpath=str(ROOT))
    assert ran(folder) == ["ran-eval"] and done.returncode != 0
    (folder / "ran-eval").unlink()
    done = run(folder, sys.executable, "-P", "-m", "eval.compare", "--help", pythonpath=str(ROOT))
    assert done.returncode == 0, done.stderr
    assert ran(folder) == []


@pytest.mark.parametrize("module, args", [("eval.compare", ["--help"]), ("eval.leaderboard", ["--help"])])
def test_python_m_drops_the_folder_once_the_harness_package_is_found(tmp_path, module, args):
    """No `eval/` in the folder, but modules named like the standard library's and the
    dependencies': `python -m eval.X` imports the harness's package from PYTHONPATH, which then
    takes the folder off sys.path, so none of them runs."""
    folder = hostile_folder(tmp_path, with_eval=False)
    done = run(folder, sys.executable, "-m", module, *args, pythonpath=str(ROOT))
    assert done.returncode == 0, done.stderr
    assert ran(folder) == []


def test_importing_the_package_elsewhere_leaves_sys_path_alone(tmp_path):
    """A notebook or another program keeps its own current directory on sys.path."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "mine.py").write_text("VALUE = 7\n", encoding="utf-8")
    done = run(folder, sys.executable, "-c", "import eval, mine; print(mine.VALUE)", pythonpath=str(ROOT))
    assert done.returncode == 0 and done.stdout.strip() == "7", done.stderr
    (folder / "app").mkdir()
    (folder / "app" / "__init__.py").write_text("import eval\nimport mine\n", encoding="utf-8")
    (folder / "app" / "__main__.py").write_text("import other\nprint(other.VALUE)\n", encoding="utf-8")
    (folder / "other.py").write_text("VALUE = 7\n", encoding="utf-8")  # imported after eval, from the folder
    done = run(folder, sys.executable, "-m", "app", pythonpath=str(ROOT))
    assert done.returncode == 0 and done.stdout.strip() == "7", done.stderr
