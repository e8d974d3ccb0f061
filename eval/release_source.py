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


def release_error(what: str, expected: str, found: str) -> ConfigError:
    return ConfigError(f"release protocol: {what}: expected {expected}; found {found}", _HINT)


def read_source(root: Path, relpath: str) -> SourceFile:
    """Parse one file of the release folder; a missing or unparsable file is exit 2."""
    path = Path(root) / relpath
    if not path.is_file():
        present = sorted(p.name for p in path.parent.iterdir()) if path.parent.is_dir() else []
        found = (f"no such file in {path.parent} (it holds: {', '.join(present[:20]) or 'nothing'})"
                 if path.parent.is_dir() else f"no folder {path.parent}")
        raise release_error(f"{root}", f"the file {relpath}", found)
    data = path.read_bytes()
    try:
        tree = ast.parse(data, filename=str(path))
    except (SyntaxError, ValueError) as error:
        raise release_error(str(path), "Python source", f"a file that does not parse ({error})") from None
    return SourceFile(relpath, path, hashlib.sha256(data).hexdigest(), tree)


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


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
    for node in source.tree.body:
        if name in _assigned_names(node):
            return node.value
    shown = ", ".join(module_names(source)) or "none"
    raise release_error(source.relpath, f"a module-level assignment to {name}", f"module-level names: {shown}")


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
    for node in source.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    shown = ", ".join(n.name for n in source.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    raise release_error(source.relpath, f"a function {name}", f"functions: {shown or 'none'}")


def local_literal(source: SourceFile, function_name: str, variable: str) -> object:
    """The literal assigned to a local variable inside a module-level function."""
    for node in ast.walk(function(source, function_name)):
        if isinstance(node, ast.stmt) and variable in _assigned_names(node):
            return _literal(node.value, f"{source.relpath}: {function_name}.{variable}", "a literal")
    raise release_error(f"{source.relpath}: {function_name}", f"a local assignment to {variable}", "none")


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


def calls(source: SourceFile, attribute: str, receiver: str | None = None,
          first_argument: object = None) -> list[ast.Call]:
    """The calls of `<receiver>.<attribute>(...)` (any receiver when None) or of a bare name
    `attribute(...)`, optionally only those whose first argument is the literal `first_argument`."""
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
        if first_argument is not None:
            if not node.args or not isinstance(node.args[0], ast.Constant) or node.args[0].value != first_argument:
                continue
        matched.append(node)
    return matched


def one_call(source: SourceFile, attribute: str, receiver: str | None = None,
             first_argument: object = None) -> ast.Call:
    found = calls(source, attribute, receiver, first_argument)
    shown = f"{receiver}.{attribute}(…)" if receiver else f"{attribute}(…)"
    if first_argument is not None:
        shown = shown.replace("(…)", f"({first_argument!r}, …)")
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
    (settings a release reads from the environment, with the default it falls back on)."""
    defaults: dict[str, object] = {}
    for node in ast.walk(source.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 2):
            continue
        receiver = ast.unparse(node.func.value)
        if not ((node.func.attr == "get" and receiver.endswith("environ")) or
                (node.func.attr == "getenv" and receiver == "os")):
            continue
        name = node.args[0]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            defaults[name.value] = _literal(node.args[1], f"{source.relpath}: {name.value}", "a literal default")
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
