"""The front door, second pass (issue 33): `--version` on every command and in the API, the flag
tables of the README and docs against the real parsers, the three benchmarks and every output file
in the README and `--help`, and the wrong-file hints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import evaluate
import eval as harness
import predict
import prepare_inputs
from eval import api, compare, leaderboard
from eval.commands import evaluate_main, prepare_main
from eval.flags import version_line

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAINS = {"python evaluate.py": evaluate.main, "python prepare_inputs.py": prepare_inputs.main,
         "python predict.py": predict.main, "python -m eval.compare": compare.main,
         "python -m eval.leaderboard": leaderboard.main, "insttrans-eval": evaluate_main,
         "insttrans-prepare": prepare_main}


# --- --version ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(MAINS))
def test_every_command_prints_the_harness_version(name, capsys):
    with pytest.raises(SystemExit) as stop:
        MAINS[name](["--version"])
    assert stop.value.code == 0
    printed = capsys.readouterr().out.strip()
    assert printed.endswith(f" {harness.__version__} (insttrans-bench-harness)") and "\n" not in printed


def test_the_version_is_the_signatures_and_the_apis():
    assert re.fullmatch(r"\d+\.\d+\.\d+", harness.__version__)
    assert api.__version__ == harness.__version__ and "__version__" in api.__all__
    assert version_line("python evaluate.py", "9.9.9") == "python evaluate.py 9.9.9 (insttrans-bench-harness)"


def test_the_installed_and_demo_commands_take_version_too():
    import subprocess
    import sys

    for command in (["predict.py", "--version"], ["-m", "scripts.demo", "--version"]):
        done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and harness.__version__ in done.stdout, done.stderr
