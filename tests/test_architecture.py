"""The layout keeps its promises: no import cycle among the harness's modules (imports inside
functions included, type-only imports excluded), and nothing below the CLI takes a Namespace."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "eval").rglob("*.py")) + [ROOT / "evaluate.py", ROOT / "prepare_inputs.py"]
SOURCES += [path for path in (ROOT / "predict.py",) if path.exists()]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_imports(path: Path, known: set[str]) -> set[str]:
    """Harness modules `path` imports at run time, anywhere in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                 and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                 for statement in block.body for node in ast.walk(statement)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found |= {name for name in names if name in known}
    return found


def import_graph() -> dict[str, set[str]]:
    known = {module_name(path) for path in SOURCES}
    return {module_name(path): runtime_imports(path, known) - {module_name(path)} for path in SOURCES}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_among_the_harness_modules():
    graph = import_graph()
    assert "eval.pipeline" in graph and "eval.sandglass.metrics" in graph
    assert find_cycle(graph) is None


def test_nothing_below_the_cli_takes_an_argparse_namespace():
    """No function outside eval/cli.py has a parameter annotated as a Namespace or named `args`
    (a module's own `main(argv)` parses its flags itself)."""
    offenders = []
    for path in SOURCES:
        if path.parent.name not in ("eval", "sandglass") or path.name == "cli.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for arg in node.args.args + node.args.kwonlyargs:
                    annotation = ast.unparse(arg.annotation) if arg.annotation else ""
                    if "Namespace" in annotation or arg.arg == "args":
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}({arg.arg})")
    assert offenders == []
