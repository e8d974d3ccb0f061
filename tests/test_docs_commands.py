"""Every command the README and docs/ show runs as written.

The commands are read out of the pages: each line of a ```bash / ```sh block (and of an unlabelled
block whose lines start like a command), continuation lines joined, and every ```python block.
Each page's commands run in order, in a scratch folder that links the checkout's files, with the
stand-in model and Judge (tests/model_server.py, tests/judge_server.py) behind the placeholders
the pages use for a server (`SERVER_PLACEHOLDERS`), the Judge's variables set as the README's
"The Judge" says to set them once (pointing at the stand-in), and the few files a page assumes the reader
already has (`GIVEN`). A command that cannot run offline or here is listed in `NOT_RUN` with the
reason; a listed command that no page shows any more fails the test, so the list stays true.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from model_server import ModelServer, reference_rows
from judge_server import JudgeServer
from test_docs import FENCE

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND_START = re.compile(r"^(?:[A-Z_]+=\S+\s+)*(python3?|pip|hf|vllm|litellm|nice|export)\b")

# Commands shown but not run here, by their first characters, with the reason.
NOT_RUN = {
    "python3 -m venv .venv": "creates the reader's environment; the tests already run in one",
    "pip install -r requirements.txt": "installs packages; CI runs it before the tests (.ci/run)",
    "pip install -r requirements-test.txt": "installs packages; CI runs it before the tests (.ci/run)",
    "pip install .": "tests/test_install.py installs the checkout into a throwaway venv and runs the commands",
    "python -m pytest -q -n auto tests": "the test suite itself",
    "python -m scripts.demo": "tests/test_front_door.py runs it (into a temporary --output-dir) and checks its whole flow",
    "hf download": "needs the network (the official release on the hub)",
    "pip install -r ./InstTrans-Bench/requirements.txt": "needs the download above; installs packages",
    "pip install -r ./Sandglass-Bench/requirements.txt": "needs the download above; installs packages",
    "python prepare_inputs.py --dataset ./InstTrans-Bench": "needs the download above",
    "python evaluate.py --dataset ./InstTrans-Bench": "needs the download above",
    "python prepare_inputs.py --dataset ./Sandglass-Bench": "needs the download above",
    "python evaluate.py --dataset ./Sandglass-Bench": "needs the download above",
    "vllm serve": "needs GPUs and model weights",
    "litellm --config": "needs a gateway configuration and its providers",
    "MODEL_API_BASE=http://127.0.0.1:4000/v1 MODEL_API_KEY=$LITELLM_MASTER_KEY": "needs the gateway above",
    "python evaluate.py --benchmark ifmtbench --dataset ./Hy-MT2/IFMTBench": "needs the IFMTBench release folder "
                                                                              "(the Hy-MT2 repository)",
    "JUDGE_API_BASE=http://127.0.0.1:8080/v1": "needs the real engine (llama-cpp-python serving SmolLM2-135M) on "
                                               "that port; `CALIBRATE=1 bash scripts/real_engine_check.sh` runs it",
}
# Shown commands not run, matched whole (another shown command starts the same way).
NOT_RUN_EXACT: dict[str, str] = {}
# Placeholders for the reader's own servers, served here by the stand-ins.
SERVER_PLACEHOLDERS = {"model": ("http://127.0.0.1:8000/v1",),
                       "judge": ("https://YOUR_PROVIDER/v1", "https://HOST/v1")}
# Files a page's commands take as the reader's own (their predictions, their runs).
EXAMPLE = "data/example_predictions.jsonl"
GIVEN = {
    "README.md": {"outputs/system_a": "run", "outputs/system_b": "run"},
    "judge.md": {"outputs/predictions.jsonl": EXAMPLE},
    "compare.md": {"system_a.jsonl": EXAMPLE, "system_b.jsonl": EXAMPLE, "p.jsonl": EXAMPLE, "runs/c": "run"},
    "explorer.md": {"runs/a": "run", "runs/b": "run"},
    "strict-rules.md": {"P.jsonl": EXAMPLE, "my_rows.jsonl": "data/test.jsonl"},
}


def logical_lines(block: str) -> list[str]:
    """A block's lines with `\\` continuations joined and whole-line comments dropped."""
    lines, pending = [], ""
    for line in block.split("\n"):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        lines.append(" ".join(pending.split()) if not pending.lstrip().startswith("{") else pending)
        pending = ""
    return lines


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block."""
    blocks, fence, info, body = [], None, "", []
    for line in text.split("\n"):
        match = FENCE.match(line.strip())
        if fence is None and match:
            fence, info, body = match.group(1), match.group(2).strip(), []
        elif fence is not None and match and match.group(1).startswith(fence) and not match.group(2).strip():
            blocks.append((info, "\n".join(body)))
            fence = None
        elif fence is not None:
            body.append(line)
    return blocks


def shown_commands(page: Path) -> list[tuple[str, str]]:
    """("shell" | "python", command) in page order."""
    commands = []
    for info, body in fenced_blocks(page.read_text(encoding="utf-8")):
        if info == "python":
            commands.append(("python", body))
        elif info in ("bash", "sh", "shell", ""):
            lines = logical_lines(body)
            if info or (lines and all(COMMAND_START.match(line) for line in lines)):
                commands += [("shell", line) for line in lines if COMMAND_START.match(line) or info]
    return commands


def not_run_reason(command: str) -> str | None:
    if command in NOT_RUN_EXACT:
        return NOT_RUN_EXACT[command]
    return next((reason for start, reason in NOT_RUN.items() if command.startswith(start)), None)


# --- the reader: a passing and a failing table ---------------------------------------------------

def test_blocks_are_read_as_commands(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n```bash\n# a comment\nexport A=1  # why\npython x.py --a 1 \\\n    --b 2\n```\n"
                    "```\nA = ja   B = jb   (output, not a command)\n```\n"
                    "```\npython y.py\n```\n```python\nprint(1)\n```\n```json\n{\"python\": 1}\n```\n",
                    encoding="utf-8")
    assert shown_commands(page) == [("shell", "export A=1 # why"), ("shell", "python x.py --a 1 --b 2"),
                                    ("shell", "python y.py"), ("python", "print(1)")]


# --- the pages -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def servers():
    rows = reference_rows(ROOT / "data" / "test.jsonl") + reference_rows(ROOT / "data" / "sandglass" / "test.jsonl")
    with ModelServer(rows) as model, JudgeServer() as judge:
        yield {"model": model.base_url, "judge": judge.base_url}


@pytest.fixture(scope="module")
def a_run(tmp_path_factory):
    """One --skip-judge run of the example predictions: the runs a page takes as given."""
    out = tmp_path_factory.mktemp("given") / "run"
    done = subprocess.run([sys.executable, "evaluate.py", "--predictions", EXAMPLE, "--output-dir", str(out),
                           "--skip-judge", "--quiet"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def scratch_folder(tmp_path: Path, page: Path, a_run: Path) -> Path:
    """A folder that links every top-level entry of the checkout and holds the page's given files."""
    for entry in ROOT.iterdir():
        if entry.name not in (".git", "outputs", ".pytest_cache"):
            (tmp_path / entry.name).symlink_to(entry)
    for name, source in GIVEN.get(page.name, {}).items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source == "run":
            shutil.copytree(a_run, target)
        else:
            shutil.copyfile(ROOT / source, target)
    return tmp_path


# Shown commands that need what is not here (GPUs), run as a stand-in that does the same over the
# stand-in model: vLLM's run_batch answers each request line (tests/run_batch_standin.py).
STAND_INS = {"python -m vllm.entrypoints.openai.run_batch ": "python tests/run_batch_standin.py --base {model} "}


def with_servers(command: str, servers: dict) -> str:
    for kind, placeholders in SERVER_PLACEHOLDERS.items():
        for placeholder in placeholders:
            command = command.replace(placeholder, servers[kind])
    for start, stand_in in STAND_INS.items():
        if command.startswith(start):
            command = stand_in.format(model=servers["model"]) + command[len(start):]
    return command


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_command_a_page_shows_runs_as_written(page, tmp_path, servers, a_run):
    commands = [(kind, command) for kind, command in shown_commands(page) if not not_run_reason(command)]
    if not commands:
        return
    folder = scratch_folder(tmp_path, page, a_run)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("JUDGE_API", "MODEL_API")) and key != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", INSTTRANS_CACHE_DIR=str(tmp_path / "cache"),
               JUDGE_API_BASE=servers["judge"], JUDGE_API_KEY="reader-key")  # set up once, as the README says
    exported: list[str] = []  # a page's `export` lines hold for its later commands, as in a shell
    for kind, command in commands:
        if kind == "python":
            argv = [sys.executable, "-c", command]
        else:
            command = with_servers(command, servers)
            if command.startswith("export "):
                exported.append(command)
                continue
            argv = ["bash", "-c", "set -e\n" + "\n".join(exported + [command])]
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{page.name}: `{command}` exited {done.returncode}\n{done.stderr[-3000:]}"


def test_every_command_not_run_is_still_shown_and_says_why():
    shown = [command for page in PAGES for _, command in shown_commands(page)]
    for start, reason in NOT_RUN.items():
        assert reason and any(command.startswith(start) for command in shown), f"no page shows `{start}` any more"
    for command, reason in NOT_RUN_EXACT.items():
        assert reason and command in shown, f"no page shows `{command}` any more"


# --- commands named inline (`python -m scripts.bench_judge`) -------------------------------------

INLINE = re.compile(r"`python3? (?:-m ([\w.]+)|([\w/]+\.py))[^`]*`")
INLINE_NOT_HERE = {"scripts.NAME": "a pattern for every script", "sglang.launch_server": "a separate engine"}


def inline_targets(page: Path) -> list[str]:
    """The module or script of every inline `python ...` span of a page."""
    return [module or path for module, path in INLINE.findall(page.read_text(encoding="utf-8"))]


@functools.cache
def help_of(script: str) -> subprocess.CompletedProcess:
    """`python SCRIPT --help`, started once per script however many pages name it."""
    return subprocess.run([sys.executable, script, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_module_or_script_named_inline_exists_and_starts(page):
    import importlib.util

    for target in inline_targets(page):
        if target in INLINE_NOT_HERE:
            continue
        if target.endswith(".py"):
            done = help_of(target)
            assert done.returncode == 0, f"{page.name}: `python {target}` does not start\n{done.stderr[-2000:]}"
        else:
            assert importlib.util.find_spec(target) is not None, f"{page.name}: no module {target}"
