"""A fourth benchmark is its own package plus one registry line (issue #20, docs/architecture.md).

Toy-Bench (tests/toybench/) lives outside eval/ and is known to no shared module. The fixture adds
it to the registry as one line in eval/benchmarks.py would (one more entry in BENCHMARKS); then every
command runs it in-process, end to end in a tmp dir: prepare_inputs.py (by name and recognised by
`--benchmark auto`), evaluate.py offline and judged against the stand-in Judge on 127.0.0.1,
`python -m eval.compare` of two runs (table, --json, --html) and `python -m eval.leaderboard`.

The expected numbers are computed here, from the data and the predictions, by this file's own
reading of the toy's rules, and looked for in summary.json, report.md, report.html, compare and the
leaderboard: a shared module that only knew the three real benchmarks (their metric names, their
sections, their request parameters) would fail these assertions, not just leave files missing.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import evaluate
import prepare_inputs
from eval import benchmarks
from eval.run import known_data
from eval.exits import run_cli
from eval.compare import main as compare_main
from eval.leaderboard import main as leaderboard_main, read_leaderboard_csv
from judge_server import JudgeServer
from toybench import TOYBENCH
from toybench.rows import DEFAULT_DATA

TOY_PACKAGE = Path(__file__).resolve().parent / "toybench"
KEY = "sk-toy-test-key-0000000000000"
ROWS = [json.loads(line) for line in DEFAULT_DATA.read_text(encoding="utf-8").splitlines()]

# Two systems: A breaks rules (n2 over budget, c2 without its term, n4 missing) and has middling
# adequacy (markers the stand-in Judge reads: [q=0.5], [q=0]; none means 1); B is right everywhere.
PREDICTIONS_A = {
    "n1": "The mayor announced a park plan [q=0.5]",
    "n2": "Trains are late because of heavy snow again today",
    "n3": "Die Brücke öffnet morgen",
    "c1": "See you tomorrow",
    "c2": "Thank you [q=0]",
    "c3": "Gute Nacht",
    "c4": "Hast du Hunger [q=0.5]",
}
PREDICTIONS_B = {
    "n1": "The mayor announced a new park plan today", "n2": "Trains delayed by heavy snow",
    "n3": "Die Brücke öffnet morgen", "n4": "Der Hafen bleibt zu", "c1": "See you tomorrow",
    "c2": "Thanks for your help", "c3": "Gute Nacht", "c4": "Hast du Hunger",
}


# ---------------------------------------------------------------------------------------------
# This file's own reading of the toy's rules and metrics
# ---------------------------------------------------------------------------------------------

def expected(predictions: dict) -> dict:
    """Per-row values and their means, overall and per genre, computed without the package."""
    rows = {}
    for row in ROWS:
        text = predictions.get(row["case_id"])
        if text is None:
            rows[row["case_id"]] = {"genre": row["genre"], "hard_pass": 0, "adequacy": 0.0, "words_over": 0}
            continue
        within = len(text.split()) <= row["max_words"]
        has_terms = all(term.lower() in text.lower() for term in row["must_include"])
        marker = re.search(r"\[q=(0\.5|0|1)\]", text)
        rows[row["case_id"]] = {"genre": row["genre"], "hard_pass": int(within and has_terms),
                                "adequacy": float(marker.group(1)) if marker else 1.0,
                                "words_over": max(0, len(text.split()) - row["max_words"])}
    for values in rows.values():
        values["toy_score"] = values["hard_pass"] * values["adequacy"]

    def mean(name, genre=None):
        chosen = [values[name] for values in rows.values() if genre in (None, values["genre"])]
        return sum(chosen) / len(chosen)

    return {"rows": rows, **{name: mean(name) for name in ("toy_score", "hard_pass_rate", "adequacy", "words_over")
                            if name != "hard_pass_rate"},
            "hard_pass_rate": mean("hard_pass"),
            "by_genre": {genre: {"hard_pass_rate": mean("hard_pass", genre), "toy_score": mean("toy_score", genre)}
                         for genre in ("news", "chat")}}


A, B = expected(PREDICTIONS_A), expected(PREDICTIONS_B)


def test_the_expectations_tell_the_two_systems_apart():
    """The numbers the end-to-end test looks for are distinct, so a wrong one cannot pass by chance."""
    assert (A["toy_score"], A["hard_pass_rate"], A["adequacy"], A["words_over"]) == (0.5, 0.625, 0.625, 0.125)
    assert A["by_genre"] == {"news": {"hard_pass_rate": 0.5, "toy_score": 0.375},
                             "chat": {"hard_pass_rate": 0.75, "toy_score": 0.625}}
    assert (B["toy_score"], B["hard_pass_rate"], B["words_over"]) == (1.0, 1.0, 0.0)


# ---------------------------------------------------------------------------------------------
# One registry line
# ---------------------------------------------------------------------------------------------

@pytest.fixture
def registered(tmp_path, monkeypatch):
    """Toy-Bench registered as `(INSTTRANS, SANDGLASS, IFMTBENCH, TOYBENCH)` would register it, and
    manifest.json's entry for its bundled set written by its own `manifest_entry`."""
    assert "toybench" not in benchmarks.BENCHMARKS  # nothing else knows it
    monkeypatch.setitem(benchmarks.BENCHMARKS, TOYBENCH.name, TOYBENCH)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(TOYBENCH.release.manifest_entry()), encoding="utf-8")
    monkeypatch.setattr(known_data, "MANIFEST_PATH", manifest)
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    return tmp_path


def write_predictions(path: Path, predictions: dict) -> Path:
    path.write_text("".join(json.dumps({"case_id": cid, "prediction": text}, ensure_ascii=False) + "\n"
                            for cid, text in predictions.items()), encoding="utf-8")
    return path


def read_run(out: Path) -> tuple[dict, dict]:
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    scores = {row["case_id"]: row for row in map(json.loads, (out / "scores.jsonl").read_text().splitlines())}
    return summary, scores


def test_a_fourth_benchmark_runs_through_every_command(registered, monkeypatch, capfd):
    tmp = registered

    # prepare_inputs.py: by name (the bundled set) and recognised from a data row (--benchmark auto)
    by_name, by_auto = tmp / "inputs.jsonl", tmp / "inputs_auto.jsonl"
    assert run_cli(prepare_inputs.main, ["--benchmark", "toybench", "--output", str(by_name)]) == 0
    assert run_cli(prepare_inputs.main, ["--data", str(DEFAULT_DATA), "--output", str(by_auto)]) == 0
    assert "wrote 8 Toy-Bench model inputs" in capfd.readouterr().out
    assert by_name.read_bytes() == by_auto.read_bytes()
    inputs = [json.loads(line) for line in by_name.read_text(encoding="utf-8").splitlines()]
    assert [item["case_id"] for item in inputs] == [row["case_id"] for row in ROWS]
    for item, row in zip(inputs, ROWS):
        assert row["source"] in item["messages"][0]["content"] and row["reference"] not in json.dumps(item)

    # evaluate.py --skip-judge, the benchmark recognised from --data
    preds_a, preds_b = write_predictions(tmp / "a.jsonl", PREDICTIONS_A), write_predictions(tmp / "b.jsonl", PREDICTIONS_B)
    offline = tmp / "offline"
    assert run_cli(evaluate.main, ["--data", str(DEFAULT_DATA), "--predictions", str(preds_a), "--output-dir",
                                   str(offline), "--skip-judge", "--quiet"]) == 0, capfd.readouterr().err
    summary, scores = read_run(offline)
    assert summary["benchmark"] == "toybench" and summary["data"]["known_as"] == "bundled"
    assert summary["formal"] is False and any("--skip-judge" in reason for reason in summary["non_formal_reasons"])
    assert summary["signature"].startswith("bench:toybench|") and "|words:whitespace|judge:none|" in summary["signature"]
    assert summary["hard_pass_rate"]["value"] == pytest.approx(A["hard_pass_rate"])
    assert summary["words_over"]["value"] == pytest.approx(A["words_over"])
    assert summary["toy_score"]["value"] is None and summary["adequacy"]["value"] is None
    assert summary["predictions"]["missing"] == 1 and summary["word_budget"]["counter"] == "whitespace words"
    assert {cid: score["hard_pass"] for cid, score in scores.items()} == {
        cid: values["hard_pass"] for cid, values in A["rows"].items()}
    report = (offline / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# Toy-Bench evaluation report\n")
    assert f"| hard_pass_rate | {A['hard_pass_rate']:.4f} [" in report and "| toy_score | n/a |" in report
    assert "| news | 4 | 0.5000 | n/a |" in report and "| chat | 4 | 0.7500 | n/a |" in report
    assert "### word_budget (hard): 2 of 8 failed" in report  # n2 over budget, n4 missing
    assert "| `n2` | 9 words, budget 8 |" in report and "| `c2` | missing: help |" in report
    # its own kinds of list in the shared failures section: a table of its own, its Judge verdict's name
    assert "### Word budget: 1 of 8 over\n\n| case_id | words over |\n|---|---:|\n| `n2` | 1 |\n" in report
    assert "### adequacy (Judge): not judged (--skip-judge)" in report and "### quality" not in report
    html = (offline / "report.html").read_text(encoding="utf-8")
    assert "<title>Toy-Bench report</title>" in html and f"{A['hard_pass_rate']:.4f}" in html
    assert "<h2>By genre</h2>" in html and "word_budget (hard): 2 of 8 failed" in html
    assert "<h3>Word budget: 1 of 8 over</h3>" in html and 'href="explorer.html#case=n2"' in html
    assert "<h3>adequacy (Judge): not judged (--skip-judge)</h3>" in html
    explorer = (offline / "explorer.html").read_text(encoding="utf-8")
    assert "Toy-Bench" in explorer and "genre" in explorer and "9 words, budget 8" in explorer

    # evaluate.py judged, twice, against the stand-in Judge: the prompt set's own request parameters
    runs = {}
    with JudgeServer() as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        for name, predictions in (("a", preds_a), ("b", preds_b)):
            runs[name] = tmp / f"run_{name}"
            assert run_cli(evaluate.main, ["--benchmark", "toybench", "--predictions", str(predictions),
                                           "--output-dir", str(runs[name]), "--judge-backoff", "0.001",
                                           "--quiet"]) == 0, capfd.readouterr().err
    requests = server.judge_requests()
    assert len(requests) == len(PREDICTIONS_A) + len(PREDICTIONS_B)  # none for the missing n4
    assert {request.path for request in requests} == {"/v1/chat/completions"}
    assert {(r.body["model"], r.body["temperature"], r.body["max_tokens"]) for r in requests} == {("toy-judge-1", 0, 256)}
    assert not any("top_p" in request.body for request in requests)  # IFMTBench's parameters stay IFMTBench's

    summary, scores = read_run(runs["a"])
    assert summary["formal"] is True, summary["non_formal_reasons"]
    assert summary["judge"]["params"] == {"temperature": 0, "max_tokens": 256}
    assert summary["judge"]["prompt_versions"]["toy_adequacy"] == "toy-adequacy-1"
    assert "|max_tokens:256|" in summary["signature"] and "|prompt.toy_adequacy:toy-adequacy-1|" in summary["signature"]
    for name in ("toy_score", "hard_pass_rate", "adequacy", "words_over"):
        assert summary[name]["value"] == pytest.approx(A[name]), name
        assert summary[name]["n"] == 8 and summary[name]["ci95"] is not None
    assert {cid: score["toy_score"] for cid, score in scores.items()} == {
        cid: values["toy_score"] for cid, values in A["rows"].items()}
    for genre, values in A["by_genre"].items():
        assert summary["by_genre"][genre]["toy_score"] == pytest.approx(values["toy_score"])
    report = (runs["a"] / "report.md").read_text(encoding="utf-8")
    assert f"| toy_score | {A['toy_score']:.4f} [" in report and "| news | 4 | 0.5000 | 0.3750 |" in report
    assert "### adequacy (Judge): 4 of 8 below 1" in report  # n1, n4 (missing), c2, c4
    assert "toy-judge-1" in (runs["a"] / "report.html").read_text(encoding="utf-8")
    assert json.loads((runs["b"] / "summary.json").read_text(encoding="utf-8"))["toy_score"]["value"] == B["toy_score"]
    for path in list(runs["a"].iterdir()) + list(runs["b"].iterdir()):
        assert KEY.encode() not in path.read_bytes(), path

    # python -m eval.compare A B: the toy's metrics, its own by_genre section, lower-is-better noted
    capfd.readouterr()
    compared, page = tmp / "compare.json", tmp / "compare.html"
    assert compare_main([str(runs["a"]), str(runs["b"]), "--json", str(compared), "--html", str(page),
                         "--resamples", "1000"]) == 0
    table = capfd.readouterr().out
    result = json.loads(compared.read_text(encoding="utf-8"))
    assert result["signature_check"]["compatible"] is True and result["runs"][0]["benchmark"] == "toybench"
    for name in ("toy_score", "hard_pass_rate", "adequacy", "words_over"):
        stats = result["metrics"][name]
        assert (stats["a"], stats["b"], stats["n"]) == (pytest.approx(A[name]), pytest.approx(B[name]), 8), name
    by_genre = result["comparisons"][0]["by_genre"]  # a benchmark's own sections are per comparison
    assert by_genre["news"]["toy_score"]["delta"] == pytest.approx(1.0 - A["by_genre"]["news"]["toy_score"])
    assert by_genre["chat"]["hard_pass_rate"]["n"] == 4
    assert re.search(r"^  toy_score +8 +0\.5000 +1\.0000 +\+0\.5000 ", table, re.M), table
    assert re.search(r"^    news toy_score +4 +0\.3750 +1\.0000 ", table, re.M), table  # the toy's own section
    assert re.search(r"^  words_over .*\(lower is better\)$", table, re.M), table
    compare_page = page.read_text(encoding="utf-8")
    assert "Toy-Bench" in compare_page and "news toy_score" in compare_page

    # python -m eval.leaderboard: sorted by the toy's headline, its own extra columns
    board = tmp / "board.csv"
    assert leaderboard_main([str(runs["a"]), str(runs["b"]), "--csv", str(board)]) == 0
    assert capfd.readouterr().out.startswith("Sorted by toy_score;")
    rows = read_leaderboard_csv(board.read_text(encoding="utf-8"))
    assert [row["path"] for row in rows] == [str(runs["b"]), str(runs["a"])]
    assert rows[1]["toy_score"] == pytest.approx(A["toy_score"]) and rows[1]["words_over"] == pytest.approx(0.125)
    assert (rows[1]["hard_pass_news"], rows[1]["hard_pass_chat"]) == (0.5, 0.75)


def test_a_fourth_benchmarks_option_is_a_flag_for_it_alone(registered, capfd):
    """Toy-Bench declares --genre-table (tests/toybench/__init__.py): with its registry line the
    command line has the flag, a toy run takes it into its settings and report.md, and the pipeline
    refuses it for another benchmark, and another benchmark's option for the toy, with one line each."""
    from eval.run.cli import evaluate_parser

    help_text = evaluate_parser().format_help()
    assert "--genre-table {shown,hidden}" in help_text and "report.md's per-genre table" in help_text
    predictions = write_predictions(registered / "a.jsonl", PREDICTIONS_A)
    out = registered / "hidden"
    assert run_cli(evaluate.main, ["--benchmark", "toybench", "--predictions", str(predictions), "--output-dir",
                                   str(out), "--skip-judge", "--quiet", "--genre-table", "hidden"]) == 0
    summary, _ = read_run(out)
    assert summary["report"] == {"genre_table": "hidden"}
    assert "## By genre" not in (out / "report.md").read_text(encoding="utf-8")
    shown = registered / "shown"
    assert run_cli(evaluate.main, ["--benchmark", "toybench", "--predictions", str(predictions), "--output-dir",
                                   str(shown), "--skip-judge", "--quiet"]) == 0
    assert "## By genre" in (shown / "report.md").read_text(encoding="utf-8")
    capfd.readouterr()
    for benchmark, flag, value in (("insttrans", "--genre-table", "shown"), ("toybench", "--rule-set", "strict")):
        refused = registered / f"refused-{benchmark}"
        status = run_cli(evaluate.main, ["--benchmark", benchmark, "--predictions", str(predictions), "--output-dir",
                                         str(refused), "--skip-judge", "--quiet", flag, value])
        err = capfd.readouterr().err
        title = benchmarks.BENCHMARKS[benchmark].title
        assert status == 2 and f"error: {flag} does not apply to {title}" in err and not refused.exists(), err


def test_the_toy_package_uses_only_shared_modules():
    """Its own package and the shared modules, never another benchmark's package or the registry:
    what a benchmark needs from the harness is all shared."""
    others = {".".join(bench.score_rows.__module__.split(".")[:2]) for bench in benchmarks.BENCHMARKS.values()}
    assert others == {"eval.insttrans", "eval.sandglass", "eval.ifmtbench"}
    imported = set()
    for path in TOY_PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    harness = {name for name in imported if name.split(".")[0] == "eval"}
    assert harness and not any(name == package or name.startswith(package + ".") for name in harness for package in others)
    assert "eval.benchmarks" not in harness and imported - harness <= {"__future__", "collections", "pathlib"}


def test_without_its_registry_line_the_harness_does_not_know_it(tmp_path, capfd):
    """The one line is what makes it a benchmark: without it `--benchmark toybench` is refused."""
    with pytest.raises(SystemExit) as refused:
        prepare_inputs.main(["--benchmark", "toybench", "--output", str(tmp_path / "x.jsonl")])
    assert refused.value.code == 2 and "invalid choice: 'toybench'" in capfd.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()
