"""The layout keeps its promises (docs/architecture.md):

- no import cycle among the harness's modules (imports inside functions included, type-only
  imports excluded), and at most 10 floors: the longest chain of imports, scripts included;
- the shared code is grouped by pipeline stage: at most 25 modules directly in eval/, every
  package and module named in the layout; the card's names stay importable, and no other module
  is a face: no `import *`, no name imported only to be imported from there again (the harness,
  scripts and tests import every name from the module that defines it);
- the benchmark seam holds: outside a benchmark's package (and the registry), no module compares
  a string with a benchmark's name or imports the benchmark's own modules or rules;
- the tools that read finished runs (compare, leaderboard) do not import the evaluate.py edge,
  the settings do not import the Judge client, the lock files do not import the provider, and
  Sandglass does not import InstTrans's rules;
- nothing below the CLI takes a Namespace;
- the record stays small (at most 15 required fields, the sub-records included), and no shared
  module's strings name a benchmark: its title, its release's file names or hub id, its constraint
  ids, or the flag of an option only some benchmarks declare (the command line builds those from
  the registry).
"""

from __future__ import annotations

import ast
import dataclasses
import gc
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "eval").rglob("*.py")) + [ROOT / "evaluate.py", ROOT / "prepare_inputs.py"]
SOURCES += [path for path in (ROOT / "predict.py",) if path.exists()]
SCRIPTS = sorted(path for path in (ROOT / "scripts").glob("*.py") if path.name != "__init__.py")
MAX_FLOORS = 10
MAX_TOP_MODULES = 25

# The card's names (SPEC): faces over InstTrans-Bench's modules and the shared statistics, kept for
# the people who import them; nothing in the harness does. eval/judge_client.py and eval/syllable/
# are the card's names too, and the real homes of what they hold.
CARD_FACES = {"eval.constraints", "eval.metrics", "eval.prompts"}
INSTTRANS_RULES = {"eval.insttrans.rules", "eval.insttrans.strict_rules", "eval.insttrans.rule_parts",
                   "eval.insttrans.strict_summary", "eval.constraints"}
REGISTRY = "eval.benchmarks"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@lru_cache(maxsize=None)
def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def nodes_of(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of `tree`, walked once: the checks below each read every node of every module,
    and walking the trees again for each check was most of this file's time."""
    return tuple(ast.walk(tree))


@pytest.fixture(autouse=True, scope="module")
def _drop_the_trees() -> Iterator[None]:
    """The parsed trees are this file's alone: freed at its end, they do not slow the garbage
    collector of the worker that runs the next file. The trees hold no cycles (a node has no link to
    its parent), so the cyclic collector is off meanwhile: its full passes over a million nodes
    were about a third of this file's time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        for cached in (tree_of, nodes_of, _imported_names, _defined_and_imported):
            cached.cache_clear()
        if enabled:
            gc.enable()


@lru_cache(maxsize=None)
def _imported_names(path: Path, type_only_too: bool) -> frozenset[str]:
    """Every module (and `module.name`) `path` imports, anywhere in the file (and, with
    `type_only_too`, those it imports for type checkers only)."""
    tree = tree_of(path)
    type_only = set() if type_only_too else {
        id(node) for block in nodes_of(tree) if isinstance(block, ast.If)
        and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for statement in block.body for node in ast.walk(statement)}
    found: set[str] = set()
    for node in nodes_of(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.update([node.module] + [f"{node.module}.{alias.name}" for alias in node.names])
    return frozenset(found)


def runtime_imports(path: Path, known: set[str], type_only_too: bool = False) -> set[str]:
    """Harness modules `path` imports at run time, anywhere in the file (and, with
    `type_only_too`, those it imports for type checkers only)."""
    return set(_imported_names(path, type_only_too) & known)


def import_graph(sources: list[Path] = SOURCES, type_only_too: bool = False) -> dict[str, set[str]]:
    known = {module_name(path) for path in sources}
    return {module_name(path): runtime_imports(path, known, type_only_too) - {module_name(path)} for path in sources}


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


def longest_chain(graph: dict[str, set[str]]) -> list[str]:
    """The longest import chain of an acyclic graph, importer first: its length is the floors."""
    memo: dict[str, list[str]] = {}

    def chain(node: str) -> list[str]:
        if node not in memo:
            below = [chain(target) for target in sorted(graph.get(node, ()))]
            memo[node] = [node] + max(below, key=len, default=[])
        return memo[node]

    return max((chain(node) for node in sorted(graph)), key=len, default=[])


def room(module: str) -> str:
    """Where a module lives in the drawing of the house: a folder of modules (a package, scripts/)
    is one room, as the issue counted 13 floors for 41 rooms."""
    parts = module.split(".")
    if parts[0] == "scripts":
        return "scripts"
    if parts[0] == "eval" and len(parts) > 1 and (ROOT / "eval" / parts[1]).is_dir():
        return ".".join(parts[:2])
    return module


def rooms_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    rooms: dict[str, set[str]] = {}
    for module, targets in graph.items():
        rooms.setdefault(room(module), set()).update(room(target) for target in targets)
    return {name: targets - {name} for name, targets in rooms.items()}


def benchmark_packages() -> dict[str, str]:
    """{benchmark name: its package}: where the functions of its record come from."""
    from eval.benchmarks import BENCHMARKS

    return {name: ".".join(bench.score_rows.__module__.split(".")[:2]) for name, bench in BENCHMARKS.items()}


def inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_longest_chain_counts_floors():
    assert longest_chain({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == ["a", "b", "c"]
    assert longest_chain({"a": set()}) == ["a"]
    assert rooms_graph({"eval.insttrans.rows": {"eval.io.data"}, "eval.insttrans": {"eval.insttrans.rows"},
                        "scripts.x": {"eval.insttrans"}}) == {"eval.insttrans": {"eval.io"},
                                                              "scripts": {"eval.insttrans"}}


def test_no_import_cycle_among_the_harness_modules():
    graph = import_graph(SOURCES + SCRIPTS)
    assert "eval.run.pipeline" in graph and "eval.sandglass.metrics" in graph
    assert find_cycle(graph) is None


def test_the_house_has_at_most_ten_floors():
    """Counted as the drawing counts them: type-only imports are arrows too, and none of them may
    close a circle either."""
    rooms = rooms_graph(import_graph(SOURCES + SCRIPTS, type_only_too=True))
    assert find_cycle(rooms) is None
    chain = longest_chain(rooms)
    assert len(chain) <= MAX_FLOORS, " → ".join(chain)


def test_every_benchmark_is_a_package():
    packages = benchmark_packages()
    assert set(packages) >= {"insttrans", "sandglass"}
    assert all(package.startswith("eval.") and package.count(".") == 1 for package in packages.values()), packages


def _names_compared(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines where a string equal to one of `names` is compared (==, !=, in, not in) with anything."""
    lines = []
    for node in nodes_of(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(item, ast.Constant) and item.value in names for item in operands):
                lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and isinstance(node.value, ast.Constant) and node.value.value in names:
            lines.append(node.lineno)
    return lines


def test_no_module_outside_a_benchmark_compares_a_string_with_its_name():
    packages = benchmark_packages()
    names = set(packages)
    offenders = []
    for path in SOURCES + SCRIPTS:
        module = module_name(path)
        if any(inside(module, package) for package in packages.values()) or module == REGISTRY:
            continue
        offenders += [f"{path.relative_to(ROOT)}:{line}" for line in _names_compared(tree_of(path), names)]
    assert offenders == []


def test_the_name_check_catches_a_branch_on_a_name():
    tree = ast.parse('if summary["benchmark"] == "sandglass":\n    pass\nx = "sandglass" in name.lower()\n')
    assert _names_compared(tree, {"sandglass"}) == [1, 3]


def test_shared_modules_import_no_benchmark_and_no_benchmark_metric():
    """Only the registry reaches into the benchmark packages (and the card's faces re-export
    InstTrans's names); InstTrans's rules are reached only from InstTrans."""
    packages = benchmark_packages()
    graph = import_graph()
    offenders = []
    for module, targets in graph.items():
        own = [package for package in packages.values() if inside(module, package)]
        if module in (REGISTRY, *CARD_FACES):
            continue
        for target in targets:
            foreign = [package for package in packages.values() if inside(target, package) and package not in own]
            rules = target in INSTTRANS_RULES and own != [packages["insttrans"]]
            if foreign or rules:
                offenders.append(f"{module} imports {target}")
    assert offenders == []


def test_the_named_edges_are_gone():
    graph = import_graph()
    forbidden = [("eval.compare", "eval.run.cli"), ("eval.leaderboard", "eval.run.cli"),
                 ("eval.config", "eval.judge_client"), ("eval.run.cli", "eval.judge_client"),
                 ("eval.io.locking", "eval.providers.health")]
    assert [edge for edge in forbidden if edge[1] in graph[edge[0]]] == []
    config_text = (ROOT / "eval" / "config.py").read_text(encoding="utf-8")
    assert "judge_client" not in "".join(ast.unparse(node) for node in ast.walk(ast.parse(config_text))
                                         if isinstance(node, (ast.Import, ast.ImportFrom)))
    sandglass = [module for module in graph if inside(module, "eval.sandglass")]
    assert not any(graph[module] & INSTTRANS_RULES for module in sandglass)


def test_nothing_below_the_cli_takes_an_argparse_namespace():
    """No function outside eval/run/cli.py has a parameter annotated as a Namespace or named `args`
    (a module's own `main(argv)` parses its flags itself)."""
    offenders = []
    for path in SOURCES:
        if "eval" not in path.relative_to(ROOT).parts or path == ROOT / "eval" / "run" / "cli.py":
            continue
        for node in nodes_of(tree_of(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for arg in node.args.args + node.args.kwonlyargs:
                    annotation = ast.unparse(arg.annotation) if arg.annotation else ""
                    if "Namespace" in annotation or arg.arg == "args":
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}({arg.arg})")
    assert offenders == []


def test_the_layout_in_the_docs_names_every_module():
    """docs/architecture.md's layout has a line for every module and package of eval/, and for every
    module of the shared packages (a benchmark's package and eval/syllable/ describe their own)."""
    layout = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = [path for path in (ROOT / "eval").glob("*.py") if path.name != "__init__.py"]
    named += [path for path in (ROOT / "eval").iterdir() if (path / "__init__.py").is_file()]
    own = {package.split(".")[1] for package in benchmark_packages().values()} | {"syllable"}
    named += [path for package in shared_packages() if package.name not in own
              for path in package.glob("*.py") if path.name != "__init__.py"]
    missing = [path.relative_to(ROOT).as_posix() for path in named
               if f"`{path.relative_to(ROOT).as_posix()}{'/' if path.is_dir() else ''}`" not in layout]
    assert missing == []


def test_the_protocol_names_are_written_once():
    """`harness` and `release` (SPEC §15) are eval/config.py's constants: no other module compares a
    string with them or spells them as a flag's choice or default (issue 37)."""
    names = {"harness", "release"}
    offenders = []
    for path in SOURCES:
        if path == ROOT / "eval" / "config.py":
            continue
        tree = tree_of(path)
        lines = _names_compared(tree, names)
        for node in nodes_of(tree):
            if isinstance(node, ast.keyword) and node.arg in ("choices", "default"):
                lines += [item.lineno for item in ast.walk(node.value)
                          if isinstance(item, ast.Constant) and item.value in names]
        offenders += [f"{path.relative_to(ROOT)}:{line}" for line in lines]
    assert offenders == []


# --- the record and the strings of shared modules --------------------------------------------------

MAX_REQUIRED_FIELDS = 15


def required_fields(record_type: type) -> list[str]:
    """The fields a benchmark must state: the record's without a default, and those of its
    sub-records (a sub-record with a default still counts the fields its own default lacks)."""
    required = []
    for item in dataclasses.fields(record_type):
        kind = item.type if isinstance(item.type, type) else None
        if kind is None:  # `from __future__ import annotations`: the type is a string
            import eval.benchmark as module

            kind = getattr(module, str(item.type), None)
        if dataclasses.is_dataclass(kind):
            required += [f"{item.name}.{name}" for name in required_fields(kind)]
        elif item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING:
            required.append(item.name)
    return required


def test_a_benchmark_states_at_most_15_required_fields():
    from eval.benchmark import Benchmark

    required = required_fields(Benchmark)
    assert len(required) <= MAX_REQUIRED_FIELDS, required
    assert "name" in required and "headline_metrics" in required


def test_the_required_field_count_reads_sub_records():
    @dataclasses.dataclass
    class Inner:
        a: int
        b: int = 0

    @dataclasses.dataclass
    class Outer:
        x: int
        inner: Inner = dataclasses.field(default_factory=lambda: Inner(1))

    Outer.__dataclass_fields__["inner"].type = Inner
    assert required_fields(Outer) == ["x", "inner.a"]


def benchmark_words() -> tuple[set[str], set[str]]:
    """(text no shared string may contain, text no shared string may equal): every benchmark's
    title, release file names and hub id; every constraint id and the flags and names of the
    options only some benchmarks declare."""
    from eval.benchmarks import BENCHMARKS
    from eval.ifmtbench.labels import ID_KINDS
    from eval.insttrans.rules import CONSTRAINT_KINDS

    contained = {bench.title for bench in BENCHMARKS.values()}
    contained |= {name for bench in BENCHMARKS.values()
                  for name in (*bench.release.hub_files, *(bench.release.release_files or {}))}
    contained |= {bench.data.default_dataset for bench in BENCHMARKS.values() if bench.data.default_dataset}
    options = [{(option.name, option.flag) for option in bench.options} for bench in BENCHMARKS.values()]
    some_only = set().union(*options) - set.intersection(*options)
    equal = set(CONSTRAINT_KINDS) | set(ID_KINDS) | {word for pair in some_only for word in pair}
    contained |= {flag for _, flag in some_only}
    return contained, equal


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in nodes_of(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def strings_naming(tree: ast.AST, contained: set[str], equal: set[str]) -> list[tuple[int, str]]:
    """(line, string) of each string constant outside a docstring that contains one of `contained`
    or equals one of `equal` (f-string parts included)."""
    docs = _docstrings(tree)
    return [(node.lineno, node.value) for node in nodes_of(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            and (node.value in equal or any(word in node.value for word in contained))]


def test_no_shared_module_names_a_benchmark_in_its_strings():
    packages = benchmark_packages()
    contained, equal = benchmark_words()
    assert "InstTrans-Bench" in contained and "sandglass_bench.jsonl" in contained and "--rule-set" in contained
    assert "glossary" in equal and "style_consistency" in equal and "rule_set" in equal
    offenders = []
    for path in SOURCES + SCRIPTS:
        module = module_name(path)
        if (any(inside(module, package) for package in packages.values()) or module in (REGISTRY, *CARD_FACES)
                or module in INSTTRANS_RULES or module.startswith("scripts")):
            continue
        offenders += [f"{path.relative_to(ROOT)}:{line} {text[:60]!r}"
                      for line, text in strings_naming(tree_of(path), contained, equal)]
    assert offenders == []


def test_the_string_check_catches_a_benchmark_named_in_code_not_in_a_docstring():
    tree = ast.parse('"""InstTrans-Bench is named here, in a docstring."""\n'
                     'FILES = ("data/test.jsonl", "x")\nhelp = f"--rule-set for {x}"\nif cid == "glossary":\n    pass\n')
    found = strings_naming(tree, {"InstTrans-Bench", "data/test.jsonl", "--rule-set"}, {"glossary"})
    assert [line for line, _ in found] == [2, 3, 4]


def test_the_command_line_builds_every_benchmark_option_from_the_registry():
    """Each option a benchmark declares is a flag of evaluate.py, with the declared choices; a
    fourth benchmark's option would be one too (tests/test_fourth_benchmark.py registers one)."""
    from eval.benchmarks import BENCHMARKS
    from eval.run.cli import evaluate_parser

    actions = {flag: action for action in evaluate_parser()._actions for flag in action.option_strings}
    for bench in BENCHMARKS.values():
        for option in bench.options:
            action = actions[option.flag]
            assert action.dest == option.name and action.default is None
            assert action.choices is None or set(option.choices) <= set(action.choices)


def shared_packages() -> list[Path]:
    return sorted(path for path in (ROOT / "eval").iterdir() if (path / "__init__.py").is_file())


def test_at_most_25_modules_directly_in_eval():
    """The layout shows the pipeline: the shared code lives in packages by stage (run, inputs, io,
    judge, providers, prediction, scoring, reports, release), beside the benchmark packages; eval/
    itself keeps the card's names, the seam, the `python -m eval.X` commands and what every floor
    shares."""
    top = sorted(path.stem for path in (ROOT / "eval").glob("*.py") if path.name != "__init__.py")
    assert len(top) <= MAX_TOP_MODULES, top
    stages = {"run", "inputs", "io", "judge", "providers", "prediction", "scoring", "reports", "release"}
    assert stages <= {path.name for path in shared_packages()}


def test_the_card_names_stay_importable():
    """eval/constraints.py, prompts.py, judge_client.py, metrics.py and eval/syllable/ (the card's
    names) give the objects of their real homes."""
    import importlib

    def same(face: str, home: str, *names: str) -> bool:
        face_module, home_module = importlib.import_module(face), importlib.import_module(home)
        return all(getattr(face_module, name) is getattr(home_module, name) for name in names)

    assert same("eval.constraints", "eval.insttrans.rules", "CONSTRAINTS", "RULE_SETS", "RULE_TABLE", "HARD_IDS")
    assert same("eval.prompts", "eval.insttrans.prompts", "PROMPT_VERSIONS", "render_quality_prompt")
    assert same("eval.prompts", "eval.judge.untrusted", "delimited_block")
    assert same("eval.metrics", "eval.scoring.stats", "bootstrap_ci", "headline")
    assert same("eval.metrics", "eval.insttrans.metrics", "metrics", "by_constraint")
    assert same("eval.syllable", "eval.syllable.count", "count_syllables")
    assert callable(importlib.import_module("eval.judge_client").run_judge_prompts)


@lru_cache(maxsize=None)
def _defined_and_imported(path: Path) -> tuple[set[str], dict[str, tuple[str, str]], list[str]]:
    """A module's top-level names: those it defines, those it imports from the harness
    ({name: (module, name there)}), and the modules it star-imports."""
    defined, imported, stars = set(), {}, []
    for statement in tree_of(path).body:
        for node in ([statement] if not isinstance(statement, (ast.If, ast.Try)) else ast.walk(statement)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    defined |= {name.id for name in ast.walk(target) if isinstance(name, ast.Name)}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("eval"):
                for alias in node.names:
                    if alias.name == "*":
                        stars.append(node.module)
                    else:
                        imported[alias.asname or alias.name] = (node.module, alias.name)
    return defined, {name: home for name, home in imported.items() if name not in defined}, stars


def _module_path(module: str) -> Path | None:
    base = ROOT / Path(*module.split("."))
    return base / "__init__.py" if (base / "__init__.py").is_file() else (
        base.with_suffix(".py") if base.with_suffix(".py").is_file() else None)


def test_no_face_and_no_reexport_outside_the_cards_names():
    """Outside the card's faces, no module of eval/ star-imports, and no harness module, script or
    test imports a name from a module that only imports it: every name comes from its real home."""
    tests = sorted((ROOT / "tests").rglob("*.py"))
    offenders = []
    for path in SOURCES + SCRIPTS + tests:
        module = module_name(path) if path.is_relative_to(ROOT / "eval") else None
        if module in CARD_FACES:
            continue
        if module and _defined_and_imported(path)[2]:
            offenders.append(f"{path.relative_to(ROOT)}: import *")
        # A test file is read by this check alone: parsed, read and dropped, not kept in the cache.
        nodes = ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if path in tests else nodes_of(tree_of(path))
        for node in nodes:
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("eval")):
                continue
            home = _module_path(node.module)
            if home is None or node.module in ("eval", "eval.syllable"):  # eval.__version__; the card's syllable
                continue
            _, imported, _ = _defined_and_imported(home)
            for alias in node.names:
                if alias.name in imported and not _module_path(f"{node.module}.{alias.name}"):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {alias.name} from {node.module} "
                                     f"(it lives in {imported[alias.name][0]})")
    assert offenders == []


def test_the_reexport_check_reads_what_a_module_defines_and_only_imports(tmp_path):
    module = tmp_path / "face.py"
    module.write_text("from eval.config import JudgeSettings, HARNESS\nfrom eval.errors import *\n"
                      "HARNESS = 'mine'\n", encoding="utf-8")
    defined, imported, stars = _defined_and_imported(module)
    assert defined == {"HARNESS"} and imported == {"JudgeSettings": ("eval.config", "JudgeSettings")}
    assert stars == ["eval.errors"]
