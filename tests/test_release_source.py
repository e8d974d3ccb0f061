"""The shared release-source reader (eval/release/source.py): pieces found through the AST, never
executed; anything missing or different is a ConfigError (exit 2) saying expected and found."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from eval.release import source as rs
from eval.errors import ConfigError

SOURCE = '''
import os
os.environ["TOUCHED_BY_RELEASE_SOURCE"] = "1"   # would run on import; the reader never imports
NAMES = {"en": "E", "zh": "Z"}
TEMPLATE = """a {x} b {y:.1f} {{literal}} {x}"""
IDS = frozenset({"a", "b"})
NOT_LITERAL = os.getcwd()
TEMPERATURE = float(os.environ.get("SYNTH_TEMPERATURE", "0.0"))
WORKERS = int(os.getenv("SYNTH_WORKERS", 20))


def build(row, prediction):
    local_map = {"a": ["k1"], "b": ["k2"]}
    name = row["n"]
    if row.get("kind") == "special":
        return f"special {name}: {prediction} {{kept}}"
    return f"plain {name}: {prediction}"


def spec(value):
    return f"{value:>4}"


def route(model):
    return model.startswith(("p1", "p2"))


def main(m, hyp):
    TEMPLATE.format(x=1, y=2.0, note="n" if m["lang"] == "ja" else "")
    client.chat.completions.create(model="m", messages=[], effort="low")
'''


@pytest.fixture
def source(tmp_path) -> rs.SourceFile:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(SOURCE, encoding="utf-8")
    return rs.read_source(tmp_path, "pkg/mod.py")


def test_pieces_are_read_without_running_the_file(source, monkeypatch):
    monkeypatch.delenv("TOUCHED_BY_RELEASE_SOURCE", raising=False)
    assert rs.constant(source, "NAMES", dict) == {"en": "E", "zh": "Z"}
    assert rs.constant(source, "TEMPLATE", str) == "a {x} b {y:.1f} {{literal}} {x}"
    assert rs.call_argument(source, "IDS") == {"a", "b"}
    assert rs.local_literal(source, "build", "local_map") == {"a": ["k1"], "b": ["k2"]}
    assert rs.method_call_argument(source, "route", "startswith") == ("p1", "p2")
    returned = rs.returned_fstrings(source, "build")
    assert [(r.template, "special" in r.guards) for r in returned] == [
        ("special {name}: {prediction} {{kept}}", True), ("plain {name}: {prediction}", False)]
    assert returned[0].template.format(name="N", prediction="{p}") == "special N: {p} {kept}"
    branch = rs.keyword_branch(rs.one_call(source, "format", receiver="TEMPLATE"), "note", "w")
    assert (branch.body, branch.orelse, branch.equals) == ("n", "", "ja")
    create = rs.one_call(source, "create")
    assert rs.keyword_literal(create, "effort", "w") == "low"
    assert rs.environment_defaults(source) == {"SYNTH_TEMPERATURE": "0.0", "SYNTH_WORKERS": 20}
    import os
    assert "TOUCHED_BY_RELEASE_SOURCE" not in os.environ
    assert len(source.sha256) == 64


def test_placeholders_count_names_specs_and_repeats():
    assert rs.placeholders("a {x} b {y:.1f} {{literal}} {x} {z!r}") == Counter({"x": 2, "y:.1f": 1, "z!r": 1})


@pytest.mark.parametrize("call, expected, found", [
    (lambda s: rs.constant(s, "MISSING", str), "a module-level assignment to MISSING", "NAMES, TEMPLATE, IDS"),
    (lambda s: rs.constant(s, "NAMES", str), "a str", "a dict"),
    (lambda s: rs.constant(s, "NOT_LITERAL", str), "a literal", "not a literal (Call at line 7)"),
    (lambda s: rs.returned_fstrings(s, "spec"), "an f-string of text and bare names", "FormattedValue"),
    (lambda s: rs.returned_fstrings(s, "absent"), "a function absent", "build, spec, route, main"),
    (lambda s: rs.local_literal(s, "build", "other"), "a local assignment to other", "none"),
    (lambda s: rs.keyword(rs.one_call(s, "create"), "temperature", "w"), "a keyword argument temperature",
     "model, messages, effort"),
    (lambda s: rs.one_call(s, "format", receiver="OTHER"), "exactly one call OTHER.format(…)", "found 0"),
    (lambda s: rs.check_template(rs.constant(s, "TEMPLATE", str), {"x": 1, "y:.1f": 1}, "w"),
     "placeholders {x, y:.1f}", "found {x×2, y:.1f}"),
    (lambda s: rs.check_members({"a"}, ("a", "b"), "w"), "expected {a, b}", "found {a}"),
])
def test_what_differs_is_exit_2_with_expected_and_found(source, call, expected, found):
    with pytest.raises(ConfigError) as caught:
        call(source)
    message = str(caught.value)
    assert caught.value.exit_status == 2
    assert "expected" in message and expected in message and found in message


def test_a_missing_or_broken_file_is_exit_2(tmp_path):
    with pytest.raises(ConfigError, match="expected the file pkg/mod.py; found no folder"):
        rs.read_source(tmp_path, "pkg/mod.py")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "other.py").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="found no such file .* holds: other.py"):
        rs.read_source(tmp_path, "pkg/mod.py")
    Path(tmp_path / "pkg" / "mod.py").write_text("def (:\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="expected Python source; found a file that does not parse"):
        rs.read_source(tmp_path, "pkg/mod.py")


# ---------------------------------------------------------------------------------------------
# The survivors issue 37 names: a template that does not parse, and reads that are not the environment's
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("template, said", [
    ("a {x", "expected '}' before end of string"),
    ("a } b {x}", "Single '}' encountered in format string"),
])
def test_a_template_that_does_not_parse_is_one_line_naming_where(template, said):
    with pytest.raises(ConfigError) as caught:
        rs.check_template(template, {"x": 1}, "pkg/mod.py: TEMPLATE")
    message = caught.value.message
    assert caught.value.exit_status == 2 and "\n" not in message
    assert message == (f"release protocol: pkg/mod.py: TEMPLATE: expected a str.format template with placeholders "
                       f"{{x}}; found a template that does not parse ({said})")


def test_a_release_template_that_does_not_parse_is_refused_by_the_plug_in(tmp_path):
    """Through a benchmark's plug-in: the IFMTBench glossary template with a lone brace."""
    from eval.ifmtbench.release import Templates
    from tests import release_folders as rf

    root = rf.make_ifmtbench_release(tmp_path / "IFMTBench", glossary="{user_instruction} {ground_truth} {")
    with pytest.raises(ConfigError) as caught:
        Templates(root)
    assert "\n" not in caught.value.message
    assert "eval/llm_judge.py: GLOSSARY_REWARD_PROMPT: expected a str.format template" in caught.value.message
    assert "found a template that does not parse" in caught.value.message


def test_only_the_environment_s_reads_are_environment_defaults(tmp_path):
    """`.get` of another mapping, another method of os.environ, `getenv` of another module, a read
    without a default and a read of a name that is no literal are not defaults the release falls back on."""
    (tmp_path / "config.py").write_text('''
import os
import settings
TABLE = {"A": 1}
LOCAL = TABLE.get("FROM_A_DICT", "dict-default")
POPPED = os.environ.pop("POPPED_FROM_ENVIRON", "pop-default")
OTHER = settings.getenv("GETENV_OF_ANOTHER_MODULE", "other-default")
ALSO = settings.environ_like.get("NOT_ENVIRON", 3)
BARE = os.environ.get("WITHOUT_DEFAULT")
NAMED = os.environ.get(TABLE, "no-literal-name")
KEY = "NAME"
BY_NAME = os.environ.get(KEY, "name-in-a-variable")
NUMBER = os.environ.get(5, "a number")
READ = os.environ.get("READ_FROM_ENVIRON", "0.5")
ALSO_READ = os.getenv("READ_BY_GETENV", 7)
SETTINGS = settings.environ.get("READ_FROM_ANOTHER_ENVIRON", None)
''', encoding="utf-8")
    source = rs.read_source(tmp_path, "config.py")
    assert rs.environment_defaults(source) == {"READ_FROM_ENVIRON": "0.5", "READ_BY_GETENV": 7,
                                               "READ_FROM_ANOTHER_ENVIRON": None}


def test_a_missing_file_names_at_most_twenty_of_the_folder_s_files(tmp_path):
    """The message lists the folder's first 20 names in order, never the whole folder."""
    (tmp_path / "pkg").mkdir()
    for number in range(25):
        (tmp_path / "pkg" / f"f{number:02d}.py").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        rs.read_source(tmp_path, "pkg/mod.py")
    shown = ", ".join(f"f{number:02d}.py" for number in range(20))
    assert caught.value.message.endswith(f"(it holds: {shown})")


@pytest.mark.parametrize("capture", ["case TEMPLATE:", "case [1, *TEMPLATE]:", "case {'k': 1, **TEMPLATE}:",
                                     "case str() as TEMPLATE:"])
def test_a_match_capture_is_a_second_binding(tmp_path, capture):
    """A `case` pattern that captures the name binds it again: the literal is not what the file sends."""
    (tmp_path / "mod.py").write_text(f'TEMPLATE = "a {{x}}"\nmatch [1]:\n    {capture}\n        pass\n',
                                     encoding="utf-8")
    source = rs.read_source(tmp_path, "mod.py")
    with pytest.raises(ConfigError, match=r"mod.py: TEMPLATE: TEMPLATE is bound again after line 1 \(Match\w+ at line 3\)"):
        rs.constant(source, "TEMPLATE", str)


@pytest.mark.parametrize("text, message", [
    # `sys.modules[__name__].NAME = ...` binds the name without naming it as a target
    ('import sys\nTEMPLATE = "a {x}"\nsys.modules[__name__].TEMPLATE = "other"\n',
     r"mod.py: TEMPLATE: TEMPLATE may be changed \(sys.modules at line 3\)"),
    ('TEMPLATE = "a {x}"\n\n\ndef _patch():\n    global TEMPLATE\n    TEMPLATE = "b"\n',
     r"TEMPLATE may be changed \(a global declaration at line 5\), so the text"),
], ids=["sys.modules", "global"])
def test_a_rebinding_without_a_target_is_refused_and_named(tmp_path, text, message):
    """A name changed other than by an assignment to it is refused at any read, and the reason says how."""
    (tmp_path / "mod.py").write_text(text, encoding="utf-8")
    source = rs.read_source(tmp_path, "mod.py")
    with pytest.raises(ConfigError, match=message):
        rs.constant(source, "TEMPLATE", str)


def test_a_file_that_does_not_bind_an_imported_name_passes(tmp_path):
    """`imported` checks a file that takes a template by import; one that never binds the name has nothing to check."""
    (tmp_path / "mod.py").write_text('from prompts import TEMPLATE\nOTHER = 1\n', encoding="utf-8")
    source = rs.read_source(tmp_path, "mod.py")
    assert rs.imported(source, "TEMPLATE") is None and rs.imported(source, "NOT_BOUND_HERE") is None
    with pytest.raises(ConfigError, match=r"OTHER is bound by something other than an import"):
        rs.imported(source, "OTHER")


def test_the_first_argument_is_read_and_bare_calls_are_found(tmp_path):
    """call_argument and method_call_argument read a call's first argument, whatever follows it; calls()
    finds a bare-name call only when no receiver is asked for."""
    (tmp_path / "mod.py").write_text('PAIR = make({"a", "b"}, "second")\n\n\ndef route(model):\n'
                                     '    return model.startswith(("p1", "p2"), 3)\n\n\n'
                                     'def main():\n    create(model="m")\n    client.create(model="n")\n',
                                     encoding="utf-8")
    source = rs.read_source(tmp_path, "mod.py")
    assert rs.call_argument(source, "PAIR") == {"a", "b"}
    assert rs.method_call_argument(source, "route", "startswith") == ("p1", "p2")
    assert [call.lineno for call in rs.calls(source, "create")] == [9, 10]
    assert [call.lineno for call in rs.calls(source, "create", receiver="client")] == [10]
    assert rs.calls(source, "create", receiver="other") == []
