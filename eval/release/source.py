"""Reading an official release's scorer source without running it (SPEC §15).

A release ships its Judge templates as Python: module-level string constants, dict literals, an
f-string returned by a function, a literal inside a call's keyword. This module finds such pieces
through the AST (`ast.literal_eval` and hand-built format templates, never `exec` or `import`),
checks each against what a benchmark's release plug-in expects (names, placeholders), and records
every file's SHA-256. A file or a piece that is missing or differs is a ConfigError (exit 2) that
says what was expected and what was found. It knows no benchmark: the plug-ins in the benchmark
packages say where to look (docs/release.md).
"""

from __future__ import annotations

import ast
import hashlib
import string
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from eval.errors import ConfigError

_HINT = ("point --release-dir (or --dataset) at the official release folder, as `hf download` writes it; "
         "or run with --protocol harness")


@dataclass(frozen=True)
class SourceFile:
    """One release file: where it is (relative to the release folder), its bytes' SHA-256 and its AST."""

    relpath: str
    path: Path
    sha256: str
    tree: ast.Module = field(repr=False)
    index: "_Index" = field(repr=False, compare=False, default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.index is None:
            object.__setattr__(self, "index", _build_index(self.tree))


def release_error(what: str, expected: str, found: str) -> ConfigError:
    return ConfigError(f"release protocol: {what}: expected {expected}; found {found}", _HINT)


# A release file this harness parses is a few KB (RELEASE-FACTS §0: 13,656 bytes at most, 41,488 for
# the largest file of any release); the cap keeps a hostile file's AST (about 500 bytes of memory per
# source byte in the worst shapes) to some 70 MB. Deeper nesting than MAX_DEPTH is refused before any
# recursive walk (ast.literal_eval, ast.unparse) can reach Python's recursion limit.
MAX_SOURCE_BYTES = 128 * 1024
MAX_DEPTH = 200
_PARSE_HINT = "restore the file from the official release (hf download), or run with --protocol harness"


def read_source(root: Path, relpath: str) -> SourceFile:
    """Parse one file of the release folder; a missing, oversized, too deeply nested or unparsable file
    is exit 2, and nothing of it is parsed when a cheap check already tells."""
    path = Path(root) / relpath
    if not path.is_file():
        present = sorted(p.name for p in path.parent.iterdir()) if path.parent.is_dir() else []
        found = (f"no such file in {path.parent} (it holds: {', '.join(present[:20]) or 'nothing'})"
                 if path.parent.is_dir() else f"no folder {path.parent}")
        raise release_error(f"{root}", f"the file {relpath}", found)
    with path.open("rb") as handle:
        data = handle.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise ConfigError(f"release protocol: {path}: expected Python source of at most {MAX_SOURCE_BYTES:,} bytes "
                          f"(the release's files are a few KB); found a larger file", _PARSE_HINT)
    try:
        tree = ast.parse(data, filename=str(path))
    except (SyntaxError, ValueError) as error:
        raise release_error(str(path), "Python source", f"a file that does not parse ({_parse_message(error)})") from None
    except (RecursionError, MemoryError) as error:
        raise ConfigError(f"release protocol: {path}: expected Python source; found nesting too deep for Python's "
                          f"parser ({type(error).__name__})", _PARSE_HINT) from None
    depth, node = _depth(tree)
    if depth > MAX_DEPTH:
        raise ConfigError(f"release protocol: {path}: expected expressions nested at most {MAX_DEPTH} deep; found "
                          f"{depth} at line {getattr(node, 'lineno', '?')}", _PARSE_HINT)
    return SourceFile(relpath, path, hashlib.sha256(data).hexdigest(), tree)


def _parse_message(error: Exception) -> str:
    """The parser's reason and line, never the offending text (a SyntaxError's str quotes no source,
    but keep it to one short line whatever Python version says)."""
    if isinstance(error, SyntaxError):
        return f"{error.msg} at line {error.lineno}"[:200]
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__


def _depth(tree: ast.AST) -> tuple[int, ast.AST]:
    """The AST's greatest depth and a node there, found without recursion (stops past MAX_DEPTH)."""
    deepest, where = 0, tree
    stack: list[tuple[ast.AST, int, ast.AST]] = [(tree, 1, tree)]
    while stack:
        node, level, placed = stack.pop()
        placed = node if hasattr(node, "lineno") else placed
        if level > deepest:
            deepest, where = level, placed
            if deepest > MAX_DEPTH:
                break
        stack.extend((child, level + 1, placed) for child in ast.iter_child_nodes(node))
    return deepest, where


# ---------------------------------------------------------------------------------------------
# Finding pieces
# ---------------------------------------------------------------------------------------------

def _assigned_names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [target.id for target in node.targets if isinstance(target, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return [node.target.id]
    return []


def module_names(source: SourceFile) -> list[str]:
    """The module-level names assigned or defined, for a message that says what is there."""
    names = []
    for node in source.tree.body:
        names += _assigned_names(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    return names


def _module_value(source: SourceFile, name: str) -> ast.expr:
    missing = (f"a module-level assignment to {name}", f"module-level names: {', '.join(module_names(source)) or 'none'}")
    node = _sole_binding(source, name, (ast.Assign, ast.AnnAssign), "an assignment", missing)
    return node.value  # type: ignore[union-attr, return-value]


# ---------------------------------------------------------------------------------------------
# Bindings: a name is read only when Python could bind it to nothing else (docs/release.md)
# ---------------------------------------------------------------------------------------------

# Methods that change a dict, list or set in place: a call of one on a name the reader reads means the
# literal is not what the release sends.
_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "append", "extend", "insert", "remove",
                       "add", "discard", "sort", "reverse", "difference_update", "intersection_update",
                       "symmetric_difference_update", "__setitem__", "__delitem__", "__init__", "__iadd__",
                       "__ior__", "__setattr__", "__delattr__"})
# Calls through which a file can bind any name without naming it.
_DYNAMIC = frozenset({"globals", "vars", "exec", "eval", "setattr", "delattr", "__import__"})
_REBOUND_HINT = ("the release binds each template once: restore this file from the official release (hf download) "
                 "or remove the later binding from your copy; or run with --protocol harness")


def _target_names(target: ast.expr) -> list[str]:
    """The names an assignment target binds (a, (a, b), [a, *b]); a subscript or attribute binds none."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def _scope_nodes(statements: list[ast.stmt]):
    """Every node of one scope, without recursion into the bodies of nested functions, classes and
    lambdas (their own scopes); the def or class statement itself is yielded (it binds its name)."""
    stack: list[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d])
        elif isinstance(node, ast.ClassDef):
            stack.extend(node.decorator_list + node.bases + [k.value for k in node.keywords])
        elif isinstance(node, ast.Lambda):
            stack.extend(node.args.defaults + [d for d in node.args.kw_defaults if d])
        else:
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _scope_bindings(statements: list[ast.stmt]) -> list[tuple[ast.AST, str, str]]:
    """(node, name, how) for every binding of a name in one scope, in source order: assignments of any
    kind, del, for and with targets, imports, def and class, except-as, := and match captures. A star
    import binds '*' (any name)."""
    found: list[tuple[ast.AST, str, str]] = []
    for node in _scope_nodes(statements):
        how = type(node).__name__
        names: list[str] = []
        if isinstance(node, ast.Assign):
            names = [name for target in node.targets for name in _target_names(target)]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            names = _target_names(node.target) if (not isinstance(node, ast.AnnAssign) or node.value) else []
        elif isinstance(node, ast.Delete):
            names = [name for target in node.targets for name in _target_names(target)]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            names = _target_names(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            names = _target_names(node.optional_vars)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.asname or alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names = [node.name]
        elif isinstance(node, ast.NamedExpr):
            names = _target_names(node.target)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names = [node.name]
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names = [node.rest]
        placed = node.optional_vars if isinstance(node, ast.withitem) else node  # a withitem has no line
        found += [(placed, name, how) for name in names]  # type: ignore[misc]
    return found


def _root_name(node: ast.expr) -> str | None:
    """The name at the root of `a[k].b[j]` (None when the root is not a bare name)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _mutations(tree: ast.AST) -> tuple[dict[str, list[ast.AST]], list[ast.AST]]:
    """Anywhere in `tree`, by the name they change: `name[...] = / += / del`, `name.attr = ...` and
    `name.<mutator>(...)`; and apart, the calls that can bind any name (globals(), exec, setattr, ...)."""
    changed: dict[str, list[ast.AST]] = {}
    dynamic: list[ast.AST] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _MUTATORS:
                changed.setdefault(_root_name(func.value) or "", []).append(node)
            elif isinstance(func, ast.Name) and func.id in _DYNAMIC:
                dynamic.append(node)
        elif isinstance(node, ast.Attribute) and node.attr == "modules" and _root_name(node) == "sys":
            dynamic.append(node)
        for target in targets:
            if isinstance(target, (ast.Subscript, ast.Attribute)):
                changed.setdefault(_root_name(target) or "", []).append(node)
    return changed, dynamic


@dataclass
class _Index:
    """Every binding and change of a name in one file, found in one pass (each name read is then
    checked in time proportional to its own bindings, never to the file)."""

    module: dict[str, list[tuple[ast.AST, str]]]  # module-level bindings in order; "*": star imports
    inner: dict[str, list[ast.AST]]               # `global` declarations and locals inside functions and classes
    changed: dict[str, list[ast.AST]]
    dynamic: list[ast.AST]
    top: frozenset[int]                           # id() of the module's own statements


def _build_index(tree: ast.Module) -> _Index:
    module: dict[str, list[tuple[ast.AST, str]]] = {}
    for node, name, how in _scope_bindings(tree.body):
        module.setdefault(name, []).append((node, how))
    inner: dict[str, list[ast.AST]] = {}
    for scope in ast.walk(tree):
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for node in _scope_nodes(scope.body):
                if isinstance(node, ast.Global):
                    for name in node.names:
                        inner.setdefault(name, []).append(node)
            if isinstance(scope, ast.ClassDef):  # a class body's names are the class's: no function sees them
                continue
            for node, name, _ in _scope_bindings(scope.body):
                inner.setdefault(name, []).append(node)
    changed, dynamic = _mutations(tree)
    return _Index(module, inner, changed, dynamic, frozenset(id(node) for node in tree.body))


def _described(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        shown = f".{func.attr}(…)" if isinstance(func, ast.Attribute) else f"{getattr(func, 'id', '?')}(…)"
        return f"a call {shown} at line {node.lineno}"
    if isinstance(node, ast.Attribute):
        return f"sys.modules at line {node.lineno}"
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return f"a {type(node).__name__.lower()} declaration at line {node.lineno}"
    return _at(node)


def _rebound(where: str, name: str, node: ast.AST, why: str) -> ConfigError:
    return ConfigError(f"release protocol: {where}: {name} {why} ({_described(node)}), so the text the release "
                       "sends cannot be read without running it", _REBOUND_HINT)


def _refuse_more(where: str, name: str, bound: list[tuple[ast.AST, str]], other: list[ast.AST]) -> None:
    """Refuse a second binding of `name`, a change of it in place, or a way to bind it unseen."""
    if len(bound) > 1:
        raise _rebound(where, name, bound[1][0], f"is bound again after line {getattr(bound[0][0], 'lineno', '?')}")
    if other:
        raise _rebound(where, name, min(other, key=lambda n: getattr(n, "lineno", 0)), "may be changed")


def _sole_binding(source: SourceFile, name: str, kinds: tuple[type, ...], kind_name: str,
                  missing: tuple[str, str] | None = None) -> ast.AST | None:
    """The one module-level statement that binds `name`, when it is of `kinds` and nothing else in the
    file binds it again (at module level, through `global`, or as a local that shadows it inside a
    function), changes it in place or can bind it unseen; anything else is exit 2 naming the later
    binding. `missing` is (expected, found) for a name bound nowhere; None returns None then."""
    index = source.index
    where = f"{source.relpath}: {name}"
    if name not in index.module:
        if missing is None:
            return None
        raise release_error(source.relpath, *missing)
    stars = index.module.get("*", [])
    bound = sorted(index.module[name] + stars, key=lambda pair: (getattr(pair[0], "lineno", 0), getattr(pair[0], "col_offset", 0)))
    _refuse_more(where, name, bound, index.inner.get(name, []) + index.changed.get(name, []) + index.dynamic)
    node = bound[0][0]
    if not isinstance(node, kinds) or id(node) not in index.top:
        raise _rebound(where, name, node, f"is bound by something other than {kind_name} at the module's level")
    return node


def imported(source: SourceFile, name: str) -> None:
    """A file that uses a template another file defines must take it by one import and never rebind
    or change it (exit 2 otherwise); a file that does not bind the name passes."""
    _sole_binding(source, name, (ast.Import, ast.ImportFrom), "an import")


def _literal(node: ast.expr, where: str, what: str) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise release_error(where, what, f"an expression that is not a literal ({_at(node)})") from None


def _at(node: ast.AST) -> str:
    """Where a node is, never what it says: a message must not quote the release's text."""
    return f"{type(node).__name__} at line {getattr(node, 'lineno', '?')}"


def constant(source: SourceFile, name: str, kind: type | tuple[type, ...]) -> object:
    """A module-level literal (a string, a dict, a number), read with ast.literal_eval."""
    value = _literal(_module_value(source, name), f"{source.relpath}: {name}", "a literal")
    if not isinstance(value, kind):
        raise release_error(f"{source.relpath}: {name}", _kind_name(kind), f"a {type(value).__name__}")
    return value


def call_argument(source: SourceFile, name: str) -> object:
    """The literal first argument of a module-level `NAME = f(<literal>)` (e.g. a frozenset of a set)."""
    value = _module_value(source, name)
    if not isinstance(value, ast.Call) or not value.args:
        raise release_error(f"{source.relpath}: {name}", "a call with a literal argument", _at(value))
    return _literal(value.args[0], f"{source.relpath}: {name}", "a literal argument")


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(f"a {k.__name__}" for k in kinds)


def function(source: SourceFile, name: str) -> ast.FunctionDef:
    """A module-level function definition."""
    functions = [n.name for n in source.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    missing = (f"a function {name}", f"functions: {', '.join(functions) or 'none'}")
    return _sole_binding(source, name, (ast.FunctionDef, ast.AsyncFunctionDef), "a def", missing)  # type: ignore[return-value]


def local_literal(source: SourceFile, function_name: str, variable: str) -> object:
    """The literal assigned to a local variable inside a module-level function."""
    body = function(source, function_name)
    where = f"{source.relpath}: {function_name}.{variable}"
    bound = [(node, how) for node, bound_name, how in _scope_bindings(body.body) if bound_name == variable]
    declared = [node for node in _scope_nodes(body.body)
                if isinstance(node, (ast.Global, ast.Nonlocal)) and variable in node.names]
    if not bound:
        raise release_error(f"{source.relpath}: {function_name}", f"a local assignment to {variable}", "none")
    changed, dynamic = _mutations(body)
    _refuse_more(where, variable, bound, declared + changed.get(variable, []) + dynamic)
    node, _ = bound[0]
    if not isinstance(node, ast.Assign) or node not in body.body:
        raise _rebound(where, variable, node, "is bound by something other than a plain assignment at the function's level")
    return _literal(node.value, where, "a literal")


@dataclass(frozen=True)
class Returned:
    """A `return f"..."` of a function as a str.format template: `guards` are the string constants
    of the `if` tests that enclose it (empty at the function body's level)."""

    template: str
    guards: tuple[str, ...]


def _fstring_template(node: ast.JoinedStr, where: str) -> str:
    """A format template from an f-string of constant pieces and bare names (SPEC §15); braces in
    the constant pieces are escaped, so `str.format` gives back the f-string's text."""
    parts = []
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value.replace("{", "{{").replace("}", "}}"))
        elif (isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name)
              and value.conversion == -1 and value.format_spec is None):
            parts.append("{" + value.value.id + "}")
        else:
            raise release_error(where, "an f-string of text and bare names", f"a piece that is a {_at(value)}")
    return "".join(parts)


def returned_fstrings(source: SourceFile, function_name: str) -> list[Returned]:
    """Every `return <f-string>` of a module-level function, with the literals of its `if` guards."""
    where = f"{source.relpath}: {function_name}"
    found: list[Returned] = []

    def visit(statements: list[ast.stmt], guards: tuple[str, ...]) -> None:
        for node in statements:
            if isinstance(node, ast.Return) and isinstance(node.value, ast.JoinedStr):
                found.append(Returned(_fstring_template(node.value, where), guards))
            elif isinstance(node, ast.If):
                literals = tuple(n.value for n in ast.walk(node.test)
                                 if isinstance(n, ast.Constant) and isinstance(n.value, str))
                visit(node.body, guards + literals)
                visit(node.orelse, guards + ("else",))
            elif isinstance(node, (ast.With, ast.For, ast.While, ast.Try)):
                visit(node.body, guards)

    visit(function(source, function_name).body, ())
    return found


def calls(source: SourceFile, attribute: str, receiver: str | None = None) -> list[ast.Call]:
    """The calls of `<receiver>.<attribute>(...)` (any receiver when None) or of a bare name `attribute(...)`."""
    matched = []
    for node in ast.walk(source.tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == attribute:
            if receiver is not None and ast.unparse(func.value) != receiver:
                continue
        elif not (isinstance(func, ast.Name) and func.id == attribute and receiver is None):
            continue
        matched.append(node)
    return matched


def one_call(source: SourceFile, attribute: str, receiver: str | None = None) -> ast.Call:
    found = calls(source, attribute, receiver)
    shown = f"{receiver}.{attribute}(…)" if receiver else f"{attribute}(…)"
    if len(found) != 1:
        raise release_error(source.relpath, f"exactly one call {shown}", f"{len(found)}")
    return found[0]


def keyword(call: ast.Call, name: str, where: str) -> ast.expr:
    for item in call.keywords:
        if item.arg == name:
            return item.value
    shown = ", ".join(str(item.arg) for item in call.keywords) or "none"
    raise release_error(where, f"a keyword argument {name}", f"keywords: {shown}")


def keyword_literal(call: ast.Call, name: str, where: str) -> object:
    return _literal(keyword(call, name, where), f"{where}: {name}", "a literal")


@dataclass(frozen=True)
class Branch:
    """`<body> if <test> else <orelse>` with literal body and orelse; `equals` is the string the
    test compares with by `==` (None for any other test)."""

    body: object
    orelse: object
    equals: str | None


def keyword_branch(call: ast.Call, name: str, where: str) -> Branch:
    value = keyword(call, name, where)
    if not isinstance(value, ast.IfExp):
        raise release_error(f"{where}: {name}", "a conditional expression (X if ... else Y)", _at(value))
    test, equals = value.test, None
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, str)):
        equals = test.comparators[0].value
    return Branch(_literal(value.body, f"{where}: {name}", "a literal when true"),
                  _literal(value.orelse, f"{where}: {name}", "a literal when false"), equals)


def method_call_argument(source: SourceFile, function_name: str, method: str) -> object:
    """The literal argument of the one `<x>.<method>(<literal>)` call inside a function
    (e.g. the prefix tuple a name rule passes to `str.startswith`)."""
    found = [node for node in ast.walk(function(source, function_name))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method]
    where = f"{source.relpath}: {function_name}"
    if len(found) != 1 or not found[0].args:
        raise release_error(where, f"one call of .{method}(<literal>)", f"{len(found)}")
    return _literal(found[0].args[0], where, f"a literal argument of .{method}")


def environment_defaults(source: SourceFile) -> dict[str, object]:
    """`NAME -> default` of every `os.environ.get("NAME", <literal>)` / `os.getenv(...)` in the file
    (settings a release reads from the environment, with the default it falls back on). A setting read
    twice, or a module-level name holding one that is bound again or changed, is exit 2: the default
    the release uses could be another."""
    defaults: dict[str, object] = {}
    lines: dict[str, int] = {}
    checked: set[str] = set()
    holders = {id(node): statement for statement in source.tree.body for node in ast.walk(statement)}
    for node in ast.walk(source.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 2):
            continue
        receiver = ast.unparse(node.func.value)
        if not ((node.func.attr == "get" and receiver.endswith("environ")) or
                (node.func.attr == "getenv" and receiver == "os")):
            continue
        name = node.args[0]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            if name.value in defaults:
                raise _rebound(f"{source.relpath}: {name.value}", name.value, node,
                               f"is read from the environment again after line {lines[name.value]}")
            defaults[name.value] = _literal(node.args[1], f"{source.relpath}: {name.value}", "a literal default")
            lines[name.value] = node.lineno
            holder = holders.get(id(node))
            for held in (_assigned_names(holder) if holder is not None else []):
                if held not in checked:
                    checked.add(held)
                    _sole_binding(source, held, (ast.Assign, ast.AnnAssign), "an assignment")
    return defaults


# ---------------------------------------------------------------------------------------------
# Checking templates
# ---------------------------------------------------------------------------------------------

def placeholders(template: str) -> Counter:
    """The template's fields as a multiset of `name` or `name:spec` (conversions as `name!r`)."""
    fields: Counter = Counter()
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        fields[name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")] += 1
    return fields


def _counted(fields: Counter) -> str:
    return "{" + ", ".join(f"{name}×{count}" if count > 1 else name for name, count in sorted(fields.items())) + "}"


def check_template(template: str, expected: dict[str, int], where: str) -> str:
    """The template itself when its placeholders are exactly `expected` (name or name:spec → count)."""
    try:
        found = placeholders(template)
    except ValueError as error:
        raise release_error(where, f"a str.format template with placeholders {_counted(Counter(expected))}",
                            f"a template that does not parse ({error})") from None
    if found != Counter(expected):
        raise release_error(where, f"placeholders {_counted(Counter(expected))}", _counted(found))
    return template


def check_members(values, expected, where: str) -> None:
    """A literal collection (ids, table keys) that must hold exactly `expected`."""
    if set(values) != set(expected):
        raise release_error(where, "{" + ", ".join(sorted(map(str, expected))) + "}",
                            "{" + ", ".join(sorted(map(str, values))) + "}")


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
