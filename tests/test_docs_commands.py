"""Every command the README and docs/ show runs as written.

The commands are read out of the pages: each line of a ```bash / ```sh block (and of an unlabelled
block whose lines start like a command), continuation lines joined, and every ```python block.
Each page's commands run in order, in a scratch folder that links the checkout's files, with the
stand-in model and Judge (tests/model_server.py, tests/judge_server.py) behind the placeholders
the pages use for a server (`SERVER_PLACEHOLDERS`), the Judge's variables set as the README's
"The Judge" says to set them once (pointing at the stand-in), and the few files a page assumes the reader
already has (`GIVEN`). A command that cannot run offline or here is listed in `NOT_RUN` with the
reason; a listed command that no page shows any more fails the test, so the list stays true.

Each script or module (`python X.py`, `python -m M`, `python -c`) runs as a real subprocess the
first time a page shows it; after that, a line that is one plain `python` command runs in this
process (`run_here`): bash still reads the line as written (the page's `export` lines, quoting,
comments, `VAR=value` prefixes) through a `python` function that hands back the argv and the
environment the interpreter would get, and the script then runs as `python` would run it
(`runpy`, `__main__`, sys.argv, sys.path, the cwd, the environment, captured stdout and stderr,
the exit status of its `SystemExit`). What differs from a fresh interpreter is only what this one
has imported already; the first, real subprocess of each script is what proves a fresh one starts
it. What it saves is the interpreter's start and imports (about 0.3 s of CPU a command, 46
commands; every page's run folders were compared byte for byte against all-subprocess runs).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import runpy
import shutil
import signal
import subprocess
import sys
import traceback
import types
import warnings
from dataclasses import dataclass
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
    done = run_here(["evaluate.py", "--predictions", EXAMPLE, "--output-dir", str(out), "--skip-judge", "--quiet"],
                    reader_env({}), ROOT)
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


# --- running a shown command: a subprocess, or this process where that is the same --------------

@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


# One plain `python` command: no pipe, list, redirection, substitution, expansion or glob, so that
# bash's reading of it (through the `python` function of `BASH_READS`) is all that runs before Python.
PLAIN_PYTHON = re.compile(r"^(?:[A-Za-z_]\w*=\S*\s+)*python\s")
SHELL_SYNTAX = re.compile(r"[|&;<>()$`*?\[\]{}~!\\\n]")
BASH_READS = 'python() { printf "%s\\0" "$#" "$@"; env -0; }'
# Started as a real subprocess once (`python X.py`, `python -m M`, `python -c`): its entry is proved.
STARTED: set[str] = set()
PATH_SETTINGS = ("PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONSAFEPATH", "PYTHONUSERBASE")


@functools.cache
def interpreter_path(settings: tuple[tuple[str, str], ...]) -> list[str]:
    """sys.path after its first entry as a fresh `python` under these PATH_SETTINGS has it: this
    worker's own differs (pyproject's `pythonpath`, test folders pytest put first, entries that
    other test files added)."""
    env = {key: value for key, value in os.environ.items() if key not in PATH_SETTINGS} | dict(settings)
    done = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sys.path[1:]))"], env=env,
                          capture_output=True, text=True, check=True, timeout=120)
    return json.loads(done.stdout)


def reader_env(extra: dict[str, str]) -> dict[str, str]:
    """This environment without the reader's own settings, `python` being this interpreter."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("JUDGE_API", "MODEL_API")) and key != "PYTHONPATH"}
    here = Path(sys.executable).parent
    if (here / "python").exists():  # not through a version manager's shim (pyenv: 0.1 s of CPU a start)
        env["PATH"] = f"{here}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def entry_of(argv: list[str]) -> str | None:
    """`X.py`, `-m M` or `-c` for an interpreter argv run here, None for one that takes other options."""
    if argv and argv[0] in ("-m", "-c") and len(argv) > 1:
        return argv[0] if argv[0] == "-c" else f"-m {argv[1]}"
    return argv[0] if argv and argv[0].endswith(".py") and not argv[0].startswith("-") else None


def read_by_bash(script: list[str], env: dict[str, str], cwd: Path) -> tuple[list[str], dict[str, str]] | None:
    """The argv and environment `python` gets from the last line of `script`, as bash reads it."""
    done = subprocess.run(["bash", "-c", "\n".join(["set -e", *script[:-1], BASH_READS, script[-1]])],
                          cwd=cwd, env=env, capture_output=True, timeout=60)
    fields = done.stdout.split(b"\0")
    if done.returncode != 0 or not fields[0].isdigit():
        return None
    count = int(fields[0])
    argv = [os.fsdecode(field) for field in fields[1:1 + count]]
    environ = dict(os.fsdecode(field).split("=", 1) for field in fields[1 + count:] if b"=" in field)
    environ.pop("_", None)  # bash's last argument: /usr/bin/env here, the interpreter's path in a child
    return argv, environ


@contextlib.contextmanager
def as_a_process(env: dict[str, str], cwd: Path, argv0: str, path0: str):
    """This process set up as `python` would start: environment, cwd, sys.argv, sys.path, fresh
    stdout/stderr; all of it and the stop signals' handlers given back afterwards."""
    saved_env, saved_cwd, saved_argv, saved_path = dict(os.environ), os.getcwd(), sys.argv, sys.path[:]
    saved_streams = sys.stdout, sys.stderr
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    saved_handlers = {signum: signal.getsignal(signum) for signum in stops}
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", write_through=True)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv = [argv0]
    sys.path[:] = [path0] + interpreter_path(tuple(sorted((key, env[key]) for key in PATH_SETTINGS if key in env)))
    sys.stdout, sys.stderr = out, err
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*found in sys.modules after import of package",
                                    category=RuntimeWarning)  # `-m M` of a module this process imported
            yield out, err
    finally:
        sys.stdout, sys.stderr = saved_streams
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        sys.argv, sys.path[:] = saved_argv, saved_path
        for signum, handler in saved_handlers.items():  # a script's own process ignores them as it ends
            signal.signal(signum, handler)


def run_here(argv: list[str], env: dict[str, str], cwd: Path) -> Done:
    """`python ARGV` run in this process (`entry_of(argv)` must be set): exit status, stdout, stderr."""
    kind = entry_of(argv)
    assert kind is not None, argv
    if kind == "-c":
        argv0, path0 = "-c", ""
    elif kind.startswith("-m "):
        argv0, path0 = "-m", str(cwd)
    else:
        argv0, path0 = argv[0], os.path.dirname(os.path.realpath(cwd / argv[0]))
    rest = argv[2:] if kind == "-c" or kind.startswith("-m ") else argv[1:]
    with as_a_process(env, cwd, argv0, path0) as (out, err):
        sys.argv += rest
        try:
            if kind == "-c":
                main = types.ModuleType("__main__")
                saved_main, sys.modules["__main__"] = sys.modules["__main__"], main
                try:
                    exec(compile(argv[1], "<string>", "exec"), main.__dict__)
                finally:
                    sys.modules["__main__"] = saved_main
            elif kind.startswith("-m "):
                runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(argv[0], run_name="__main__")
            status = 0
        except SystemExit as stop:
            if stop.code is None or isinstance(stop.code, int):
                status = (stop.code or 0) & 0xFF
            else:
                print(stop.code, file=sys.stderr)
                status = 1
        except Exception:  # as the interpreter reports an uncaught exception
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        return Done(status, out.buffer.getvalue().decode("utf-8", "replace"),
                    err.buffer.getvalue().decode("utf-8", "replace"))


def run_shown(kind: str, command: str, exported: list[str], env: dict[str, str], cwd: Path) -> Done:
    """A shown command: a subprocess the first time its script or module runs, else in this process
    when it is one plain `python` command."""
    if kind == "python":
        script, argv = None, ["-c", command]
    else:
        script = exported + [command]
        read = (read_by_bash(script, env, cwd)
                if PLAIN_PYTHON.match(command) and not SHELL_SYNTAX.search(command) else None)
        argv, env = read if read else (None, env)
    entry = entry_of(argv) if argv else None
    if entry is not None and entry in STARTED:
        return run_here(argv, env, cwd)
    if entry is not None:
        STARTED.add(entry)
    process = [sys.executable, *argv] if script is None else ["bash", "-c", "\n".join(["set -e", *script])]
    done = subprocess.run(process, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    return Done(done.returncode, done.stdout, done.stderr)


def test_bash_reads_a_plain_python_line_as_the_interpreter_would_get_it(tmp_path):
    exported = ['export A="x  y" # a comment', "export C=$A-z"]
    argv, env = read_by_bash(exported + ['B=1 D="p q" python x.py --a "q r" \'s\' # comment'], {"PATH": os.environ["PATH"]},
                             tmp_path)
    assert argv == ["x.py", "--a", "q r", "s"]
    assert (env["A"], env["B"], env["C"], env["D"], env["PWD"]) == ("x  y", "1", "x  y-z", "p q", str(tmp_path))
    assert read_by_bash(['export A="unterminated', "python x.py"], {"PATH": os.environ["PATH"]}, tmp_path) is None


# (code, its stdout): what `python -c CODE` does in a process of its own and in this one
AS_A_PROCESS = [
    ("import os, sys; print(os.environ['X'], os.getcwd() == os.environ['PWD'], sys.argv, sys.path, __name__);"
     "print('to stderr', file=sys.stderr); sys.exit(3)", 3),
    ("import sys; print('out'); sys.exit('a message')", 1),
    ("import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN); "
     "print(1); raise ValueError('uncaught')", 1),
    ("print('ok', end='')", 0),
    ("import sys; sys.exit(258)", 2),
]


@pytest.mark.parametrize("code, status", AS_A_PROCESS,
                         ids=["exit-3-env-cwd-argv", "exit-message", "uncaught-signals-ignored", "exit-0", "exit-258"])
def test_a_command_run_here_ends_as_in_a_process_of_its_own(code, status, tmp_path):
    env = reader_env({"X": "from-env", "PWD": str(tmp_path)})
    before = (dict(os.environ), os.getcwd(), sys.argv[:], sys.path[:], sys.stdout, sys.stderr,
              signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    here = run_here(["-c", code], env, tmp_path)
    child = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert here.returncode == child.returncode == status
    assert here.stdout == child.stdout
    assert here.stderr.splitlines()[-1:] == child.stderr.splitlines()[-1:]
    assert (dict(os.environ), os.getcwd(), sys.argv, sys.path, sys.stdout, sys.stderr,
            signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_a_script_and_a_module_run_here_as_python_runs_them(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "tool.py").write_text("import sys; print(__name__, sys.argv, sys.path[0])\n", encoding="utf-8")
    (tmp_path / "mod_here.py").write_text("import sys; print(__name__, sys.argv[1:], sys.path[0]); sys.exit(4)\n",
                                          encoding="utf-8")
    env = reader_env({})
    script = run_here(["bin/tool.py", "--a", "b"], env, tmp_path)
    assert (script.returncode, script.stdout) == (0, f"__main__ ['bin/tool.py', '--a', 'b'] {tmp_path / 'bin'}\n")
    module = run_here(["-m", "mod_here", "--c"], env, tmp_path)
    assert (module.returncode, module.stdout) == (4, f"__main__ ['--c'] {tmp_path}\n")
    assert "mod_here" not in sys.modules or sys.modules["mod_here"].__file__ != str(tmp_path / "mod_here.py")


def test_only_a_plain_python_line_is_run_here():
    for line in ("python evaluate.py --a b # c", "A=1 B=... python -m eval.compare a b"):
        assert PLAIN_PYTHON.match(line) and not SHELL_SYNTAX.search(line)
    for line in ("python x.py > out", "python x.py | head", "python x.py && python y.py", "python x.py $A",
                 "python x.py *.jsonl", "cd a; python x.py", "python3 x.py", "nice python x.py", "(python x.py)"):
        assert not (PLAIN_PYTHON.match(line) and not SHELL_SYNTAX.search(line)), line
    assert [entry_of(argv) for argv in (["x.py", "-a"], ["-m", "eval.compare"], ["-c", "pass"], ["-P", "x.py"])] == \
        ["x.py", "-m eval.compare", "-c", None]


@pytest.fixture(scope="module")
def reader_cache(tmp_path_factory):
    """One INSTTRANS_CACHE_DIR for the pages, as a reader has one: the derived CMU table is built
    by the first run that counts syllables (0.3 s) and read by the others."""
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_command_a_page_shows_runs_as_written(page, tmp_path, servers, a_run, reader_cache):
    commands = [(kind, command) for kind, command in shown_commands(page) if not not_run_reason(command)]
    if not commands:
        return
    folder = scratch_folder(tmp_path, page, a_run)
    env = reader_env(dict(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", INSTTRANS_CACHE_DIR=str(reader_cache),
                          JUDGE_API_BASE=servers["judge"], JUDGE_API_KEY="reader-key"))  # once, as the README says
    exported: list[str] = []  # a page's `export` lines hold for its later commands, as in a shell
    for kind, command in commands:
        if kind == "shell":
            command = with_servers(command, servers)
            if command.startswith("export "):
                exported.append(command)
                continue
        done = run_shown(kind, command, exported, env, folder)
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
def help_of(script: str) -> Done:
    """`python SCRIPT --help`, once per script however many pages name it: a subprocess unless a
    page's command started the script as one already (`STARTED`)."""
    if script in STARTED:
        return run_here([script, "--help"], reader_env({}), ROOT)
    STARTED.add(script)
    done = subprocess.run([sys.executable, script, "--help"], cwd=ROOT, env=reader_env({}), capture_output=True,
                          text=True, timeout=120)
    return Done(done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_module_or_script_named_inline_exists_and_starts(page):
    import importlib.util

    for target in inline_targets(page):
        if target in INLINE_NOT_HERE:
            continue
        if target.endswith(".py"):
            done = help_of(target)
            assert done.returncode == 0, f"{page.name}: `python {target}` does not start\n{done.stderr[-2000:]}"
        elif target.split(".")[0] in ("eval", "scripts"):
            assert importlib.util.find_spec(target) is not None, f"{page.name}: no module {target}"
        else:  # another project's module is looked up by a child: finding `pip` here switches setuptools'
            # distutils shim off for the whole worker (and test_install.py's find_packages with it)
            found = subprocess.run([sys.executable, "-c", f"import importlib.util, sys; "
                                    f"sys.exit(importlib.util.find_spec({target!r}) is None)"], cwd=ROOT, timeout=120)
            assert found.returncode == 0, f"{page.name}: no module {target}"
