"""compare and leaderboard over broken run folders (issue 34 item 7): real runs of each benchmark
(offline and judged by the stand-in Judge), seeded mutations of their summary.json and scores.jsonl
(a key deleted, a type changed, NaN and Infinity, deep nesting, a list for an object, huge numbers,
a truncated line, ...), and every invocation (the table, --json, --html, the leaderboard) ends with
exit 0 and valid output, or exit 2 and one error line: never a traceback, never NaN in a file."""

from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path

import pytest

import evaluate
import eval.compare
from eval.compare import main as compare_main
from eval.compare import strict_json
from eval.exits import run_cli
from eval.leaderboard import main as leaderboard_main
from judge_server import JudgeServer
from tests.ifmtbench.helpers import ifmt_handler

ROOT = Path(__file__).resolve().parent.parent
BASES = {  # benchmark -> (data or None for the bundled one, predictions, extra flags)
    "insttrans": (ROOT / "data" / "test.jsonl", ROOT / "data" / "example_predictions.jsonl", ()),
    "sandglass": (ROOT / "data" / "sandglass" / "test.jsonl", ROOT / "data" / "sandglass" / "example_predictions.jsonl",
                  ()),
    "ifmtbench": (None, ROOT / "data" / "ifmtbench" / "example_predictions.jsonl", ("--benchmark", "ifmtbench")),
}
MUTATIONS_PER_RUN = 36  # x 6 base runs: 216 mutated folders, each through compare (table, --json, --html)
SEED = 20261206


def evaluate_run(out: Path, data: Path | None, predictions: Path, *extra: str) -> Path:
    where = [] if data is None else ["--data", str(data)]
    assert run_cli(evaluate.main, [*where, "--predictions", str(predictions), "--output-dir", str(out), "--quiet",
                                   "--judge-backoff", "0.001", *extra]) == 0
    return out


@pytest.fixture(scope="module")
def base_runs(tmp_path_factory) -> dict[str, Path]:
    """Per benchmark, an offline run (--skip-judge) and a run judged by the stand-in Judge."""
    base = tmp_path_factory.mktemp("mutation-bases")
    made = {}
    for name, (data, predictions, extra) in BASES.items():
        made[f"{name}-offline"] = evaluate_run(base / f"{name}-offline", data, predictions, *extra, "--skip-judge")
        with pytest.MonkeyPatch.context() as patch, JudgeServer(*([ifmt_handler] if name == "ifmtbench" else [])) as server:
            patch.setenv("JUDGE_API_KEY", "sk-mutation-test")
            patch.setenv("JUDGE_API_BASE", server.base_url)
            made[f"{name}-judged"] = evaluate_run(base / f"{name}-judged", data, predictions, *extra)
    return made


# ---------------------------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------------------------

DEEP = "[" * 5000 + "]" * 5000
REPLACEMENTS = [None, "x", "", 0, -1, 1.5, True, False, [], {}, [1, 2], {"a": 1}, [None], ["x"], 1e300, 10**15]
SENTINELS = {"@NaN@": "NaN", "@Inf@": "Infinity", "@-Inf@": "-Infinity", "@deep@": DEEP,
             "@bigint@": "9" * 5000, "@1e999@": "1e999", "@big@": "1" + "0" * 30}


def _paths(value, prefix=()):
    """Every (path) to a value inside parsed JSON, the root included."""
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value[:6]):
            found += _paths(child, (*prefix, index))
    return found


def _mutate_value(value, rng: random.Random) -> tuple[object, str]:
    """One seeded change somewhere inside `value`: (the new value, what was done)."""
    paths = _paths(value)
    path = rng.choice(paths[1:] or paths)
    operation = rng.choice(["delete", "type", "type", "sentinel", "wrap", "empty-container", "rename"])
    if not path:
        return rng.choice(REPLACEMENTS), "root replaced"
    parent = value
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    if operation == "delete":
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
    elif operation == "type":
        parent[key] = rng.choice(REPLACEMENTS)
    elif operation == "sentinel":
        parent[key] = rng.choice(list(SENTINELS))
    elif operation == "wrap":
        parent[key] = [parent[key]]  # a list where an object (or a number) is expected
    elif operation == "empty-container":
        parent[key] = {} if isinstance(parent[key], list) else []
    elif operation == "rename" and isinstance(parent, dict):
        parent[str(key) + "_renamed"] = parent.pop(key)
    return value, f"{operation} at {'/'.join(map(str, path))}"


def _dumps(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    for sentinel, raw in SENTINELS.items():
        text = text.replace(json.dumps(sentinel), raw)
    return text


def mutate_folder(folder: Path, rng: random.Random) -> str:
    """One seeded mutation of the run folder (in place): what was done, for the failure message."""
    target = rng.choice(["summary", "scores", "scores", "scores-text", "summary-text"])
    summary_path, scores_path = folder / "summary.json", folder / "scores.jsonl"
    if target == "summary":
        summary, done = _mutate_value(json.loads(summary_path.read_text(encoding="utf-8")), rng)
        summary_path.write_text(_dumps(summary), encoding="utf-8")
        return f"summary.json: {done}"
    if target == "summary-text":
        text = summary_path.read_text(encoding="utf-8")
        choice = rng.choice(["truncate", "empty", "bytes", "deep"])
        if choice == "truncate":
            summary_path.write_text(text[:rng.randrange(len(text))], encoding="utf-8")
        elif choice == "empty":
            summary_path.write_text("", encoding="utf-8")
        elif choice == "bytes":
            summary_path.write_bytes(b"\xff\xfe" + text.encode("utf-8"))
        else:
            summary_path.write_text(DEEP, encoding="utf-8")
        return f"summary.json: {choice}"
    lines = scores_path.read_text(encoding="utf-8").split("\n")
    rows = [index for index, line in enumerate(lines) if line.strip()]
    index = rng.choice(rows)
    if target == "scores":
        row, done = _mutate_value(json.loads(lines[index]), rng)
        lines[index] = _dumps(row)
        scores_path.write_text("\n".join(lines), encoding="utf-8")
        return f"scores.jsonl line {index + 1}: {done}"
    choice = rng.choice(["truncate", "delete", "duplicate", "garbage", "deep", "swap-ids", "bytes"])
    if choice == "truncate":
        lines[index] = lines[index][:rng.randrange(len(lines[index]))]
    elif choice == "delete":
        del lines[index]
    elif choice == "duplicate":
        lines.insert(index, lines[index])
    elif choice == "garbage":
        lines.insert(index, rng.choice(["[]", "null", "1", '"x"', "{}", "{\"case_id\": 5}", "NaN"]))
    elif choice == "deep":
        lines[index] = '{"case_id": "deep", "constraints": ' + DEEP + "}"
    elif choice == "swap-ids":
        other = rng.choice(rows)
        first, second = json.loads(lines[index]), json.loads(lines[other])
        first["case_id"], second["case_id"] = second["case_id"], first["case_id"]
        lines[index], lines[other] = json.dumps(first), json.dumps(second)
    else:
        scores_path.write_bytes("\n".join(lines).encode("utf-8") + b"\n\xc3\x28\n")
        return "scores.jsonl: bytes that are not UTF-8"
    scores_path.write_text("\n".join(lines), encoding="utf-8")
    return f"scores.jsonl line {index + 1}: {choice}"


# ---------------------------------------------------------------------------------------------
# The invariant
# ---------------------------------------------------------------------------------------------

def check_outcome(status: int, stderr: str, what: str) -> None:
    assert "Traceback" not in stderr, what
    assert status in (0, 2), f"{what}: exit {status}: {stderr}"
    if status == 2:
        lines = stderr.rstrip("\n").split("\n")
        assert lines[0].startswith("error: ") and len(lines) <= 2, f"{what}: {stderr}"
        assert len(lines) == 1 or lines[1].startswith("  hint: "), f"{what}: {stderr}"


def strict_file(path: Path) -> object:
    """A --json file must parse without NaN or Infinity."""
    def refuse(name):
        raise AssertionError(f"{path} holds {name}")
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def run_compare(capsys, a: Path, b: Path, out: Path, what: str) -> int:
    argv = [str(a), str(b), "--force", "--resamples", "100", "--json", str(out / "c.json"),
            "--html", str(out / "c.html")]
    capsys.readouterr()
    status = run_cli(compare_main, argv)
    captured = capsys.readouterr()
    check_outcome(status, captured.err, f"compare ({what})")
    if status == 0:
        result = strict_file(out / "c.json")
        assert isinstance(result["metrics"], dict), what
        assert (out / "c.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>"), what
        assert "A = " in captured.out, what
    else:
        assert not (out / "c.json").exists() and not (out / "c.html").exists(), what
    return status


def run_leaderboard(capsys, a: Path, b: Path, out: Path, what: str) -> int:
    capsys.readouterr()
    status = run_cli(leaderboard_main, [str(a), str(b), "--csv", str(out / "l.csv")])
    captured = capsys.readouterr()
    check_outcome(status, captured.err, f"leaderboard ({what})")
    if status == 0:
        text = (out / "l.csv").read_text(encoding="utf-8")
        assert "nan" not in text.lower().replace("nan", "", 0) or not any(
            cell.lower() in ("nan", "inf", "-inf") for line in text.split("\n") for cell in line.split(",")), what
    return status


@pytest.fixture
def base_read_once(monkeypatch):
    """compare reads run A, the unchanged base, afresh for every mutation: the
    same bytes each time. Read it once per test instead (`read_once(path)`); every mutated folder is
    read as compare reads it. The test checks at its end that the base read then equals a fresh read."""
    real, kept, cached = eval.compare.load_run, set(), {}

    def load_run(path, name=None):
        key = (Path(path), name)
        if Path(path) not in kept:
            return real(path, name)
        if key not in cached:
            cached[key] = real(path, name)
        return cached[key]

    monkeypatch.setattr(eval.compare, "load_run", load_run)
    yield kept.add
    for (path, name), run in cached.items():
        assert run == real(path, name), f"compare changed its reading of {path}"


@pytest.mark.parametrize("base", [f"{name}-{kind}" for name in BASES for kind in ("offline", "judged")])
def test_seeded_mutations_end_in_a_result_or_one_line(base_runs, base, tmp_path, capsys, base_read_once):
    a = base_runs[base]
    assert run_compare(capsys, a, a, tmp_path, "unchanged") == 0  # the base itself compares
    base_read_once(a)
    rng = random.Random(f"{SEED}-{base}")
    outcomes = {0: 0, 2: 0}
    for number in range(MUTATIONS_PER_RUN):
        folder = tmp_path / f"m{number}"
        shutil.copytree(a, folder, ignore=shutil.ignore_patterns("*.html", "*.md"))
        what = f"{base} #{number}: {mutate_folder(folder, rng)}"
        out = tmp_path / f"out{number}"
        out.mkdir()
        outcomes[run_compare(capsys, a, folder, out, what)] += 1
        if "summary" in what:
            run_leaderboard(capsys, a, folder, out, what)
        shutil.rmtree(folder)
    assert outcomes[2] > 0  # the mutations do break folders; some leave a comparable run
    assert sum(outcomes.values()) == MUTATIONS_PER_RUN


# ---------------------------------------------------------------------------------------------
# The named cases of the issue, each once
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("edit, said", [
    (lambda s: s.update(signature={"a": 1}), "field signature: expected a string"),
    (lambda s: s.update(judge=[1]), "field judge: expected an object"),
    (lambda s: s["data"].update(n_instances="12"), "field data.n_instances"),
    (lambda s: s.update(system={"model": ["m"]}), "field system.model"),
    (lambda s: s.update(benchmark=["insttrans"]), "field benchmark"),
])
def test_summary_fields_of_the_wrong_type_are_named(base_runs, tmp_path, capsys, edit, said):
    folder = tmp_path / "b"
    shutil.copytree(base_runs["insttrans-judged"], folder)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    edit(summary)
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    for main in (compare_main, leaderboard_main):
        capsys.readouterr()
        assert run_cli(main, [str(base_runs["insttrans-judged"]), str(folder), "--force"][:3 if main is compare_main else 2]) == 2
        err = capsys.readouterr().err
        assert f"{folder / 'summary.json'}: {said}" in err and err.count("\n") <= 2


@pytest.mark.parametrize("raw, said", [
    ("NaN", "the non-number NaN"), ("Infinity", "the non-number Infinity"), ("1e999", "the number 1e999"),
    ("9" * 5000, "an integer of 5000 digits"), (DEEP, "JSON nested deeper"), ("[" * 80 + "]" * 80, "JSON nested deeper than 64"),
], ids=["NaN", "Infinity", "1e999", "5000-digit", "5000-deep", "80-deep"])
def test_a_score_line_that_is_not_a_finite_shallow_row_is_named_by_line(base_runs, tmp_path, capsys, raw, said):
    folder = tmp_path / "b"
    shutil.copytree(base_runs["sandglass-judged"], folder)
    lines = (folder / "scores.jsonl").read_text(encoding="utf-8").split("\n")
    row = json.loads(lines[2])
    row["quality"] = "@x@"
    lines[2] = json.dumps(row).replace('"@x@"', raw)
    (folder / "scores.jsonl").write_text("\n".join(lines), encoding="utf-8")
    assert run_cli(compare_main, [str(base_runs["sandglass-judged"]), str(folder), "--json", str(tmp_path / "j")]) == 2
    err = capsys.readouterr().err
    assert f"{folder / 'scores.jsonl'}: line 3: {said}" in err and err.count("\n") <= 2
    assert not (tmp_path / "j").exists()


def test_html_over_a_row_without_its_language_names_the_line(base_runs, tmp_path, capsys):
    """The issue's KeyError 'target_lang' from --html: now the file, the line and the field."""
    folder = tmp_path / "b"
    shutil.copytree(base_runs["insttrans-judged"], folder)
    lines = (folder / "scores.jsonl").read_text(encoding="utf-8").split("\n")
    row = json.loads(lines[4])
    del row["target_lang"]
    lines[4] = json.dumps(row)
    (folder / "scores.jsonl").write_text("\n".join(lines), encoding="utf-8")
    status = run_cli(compare_main, [str(base_runs["insttrans-judged"]), str(folder), "--force", "--resamples", "100",
                                    "--html", str(tmp_path / "c.html")])
    err = capsys.readouterr().err
    assert status == 2 and f"{folder / 'scores.jsonl'}: line 5 (case_id" in err and "target_lang" in err, err
    assert not (tmp_path / "c.html").exists()


def test_strict_json_reads_what_evaluate_writes():
    assert strict_json('{"a": [1, 2.5, -3e-7, null, true, "x"], "b": {"c": 1000000000000000}}') == {
        "a": [1, 2.5, -3e-7, None, True, "x"], "b": {"c": 10**15}}
    assert math.isfinite(strict_json("1e15"))


def test_a_summary_a_benchmark_cannot_read_is_blamed_not_a_row(base_runs, tmp_path, capsys):
    """When what fails is the summary (non_formal_reasons of numbers, which the page joins), the
    summary is named, not a score row (each row alone fails too, with that summary)."""
    folder = tmp_path / "b"
    shutil.copytree(base_runs["sandglass-judged"], folder)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    summary.update(formal=False, non_formal_reasons=[1, 2])
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    status = run_cli(compare_main, [str(base_runs["sandglass-judged"]), str(folder), "--force", "--resamples", "100",
                                    "--html", str(tmp_path / "c.html")])
    err = capsys.readouterr().err
    check_outcome(status, err, "summary blamed")
    assert status == 2 and f"{folder / 'summary.json'}: the compare page cannot read this summary" in err, err


def test_a_verdict_written_as_a_string_is_refused_not_read_as_a_number(base_runs, tmp_path, capsys):
    folder = tmp_path / "b"
    shutil.copytree(base_runs["sandglass-judged"], folder)
    lines = (folder / "scores.jsonl").read_text(encoding="utf-8").split("\n")
    row = json.loads(lines[1])
    row["score"] = "0.5"
    lines[1] = json.dumps(row)
    (folder / "scores.jsonl").write_text("\n".join(lines), encoding="utf-8")
    status = run_cli(compare_main, [str(base_runs["sandglass-judged"]), str(folder), "--resamples", "100"])
    err = capsys.readouterr().err
    assert status == 2 and f"{folder / 'scores.jsonl'}: line 2 (case_id" in err and "expected a number, found str" in err
