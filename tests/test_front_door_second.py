"""The front door, second pass (issue 33): `--version` on every command and in the API, the flag
tables of the README and docs against the real parsers, the three benchmarks and every output file
in the README and `--help`, and the wrong-file hints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import evaluate
import eval as harness
import predict
import prepare_inputs
from eval.run import api
from eval import compare, leaderboard
from eval.run.commands import evaluate_main, prepare_main
from eval.flags import version_line

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAINS = {"python evaluate.py": evaluate.main, "python prepare_inputs.py": prepare_inputs.main,
         "python predict.py": predict.main, "python -m eval.compare": compare.main,
         "python -m eval.leaderboard": leaderboard.main, "insttrans-eval": evaluate_main,
         "insttrans-prepare": prepare_main}


# --- --version ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(MAINS))
def test_every_command_prints_the_harness_version(name, capsys):
    with pytest.raises(SystemExit) as stop:
        MAINS[name](["--version"])
    assert stop.value.code == 0
    printed = capsys.readouterr().out.strip()
    assert printed.endswith(f" {harness.__version__} (insttrans-bench-harness)") and "\n" not in printed


def test_the_version_is_the_signatures_and_the_apis():
    assert re.fullmatch(r"\d+\.\d+\.\d+", harness.__version__)
    assert api.__version__ == harness.__version__ and "__version__" in api.__all__
    assert version_line("python evaluate.py", "9.9.9") == "python evaluate.py 9.9.9 (insttrans-bench-harness)"


def test_the_installed_and_demo_commands_take_version_too():
    import subprocess
    import sys

    for command in (["predict.py", "--version"], ["-m", "scripts.demo", "--version"]):
        done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and harness.__version__ in done.stdout, done.stderr


# --- the flag tables against the parsers ----------------------------------------------------------

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
NOT_TABLED = {"--help", "--version"}  # every command has them; the README says so once


def parser_flags(parser, groups: tuple[str, ...] | None = None) -> set[str]:
    """The long flags of a parser (or of its named argument groups), aliases included."""
    actions = parser._actions if groups is None else [
        action for group in parser._action_groups if group.title in groups for action in group._group_actions]
    return {flag for action in actions for flag in action.option_strings if flag.startswith("--")} - NOT_TABLED


def section(text: str, start: str, end: str) -> str:
    begin = text.index(start)
    return text[begin:text.index(end, begin + len(start))]


def table_flags(text: str) -> set[str]:
    """Every flag named in a Markdown table's rows (header and rule lines hold none)."""
    return {flag for line in text.split("\n") if line.startswith("|") for flag in FLAG.findall(line)}


def readme_command_tables() -> dict[str, str]:
    text = section(README.read_text(encoding="utf-8"), "## Command line", "Installed with `pip install .`")
    return {"prepare": section(text, "`prepare_inputs.py`\n", "`predict.py`\n"),
            "predict": section(text, "`predict.py`\n", "`evaluate.py`\n"),
            "evaluate": section(text, "`evaluate.py`\n", "`python -m eval.compare RUN"),
            "compare_leaderboard": text[text.index("`python -m eval.compare RUN"):]}


def test_the_readme_tables_name_every_flag_of_each_command_and_no_other():
    from eval.run.cli import evaluate_parser, prepare_parser
    from eval.prediction.command import build_parser as predict_parser

    tables = readme_command_tables()
    assert table_flags(tables["prepare"]) == parser_flags(prepare_parser())
    assert table_flags(tables["predict"]) == parser_flags(predict_parser())
    assert table_flags(tables["evaluate"]) == parser_flags(evaluate_parser())
    compare_line, leaderboard_line = [line for line in tables["compare_leaderboard"].split("\n") if line][:2]
    assert set(FLAG.findall(compare_line)) == parser_flags(compare.build_parser())
    assert set(FLAG.findall(leaderboard_line)) == parser_flags(leaderboard.build_parser())


def test_the_docs_option_tables_name_every_flag_of_their_group():
    from eval.run.cli import evaluate_parser
    from eval.prediction.command import build_parser as predict_parser

    predict_page = (ROOT / "docs" / "predict.md").read_text(encoding="utf-8")
    options = [line for line in predict_page.split("\n") if re.match(r"\| `--[a-z-]+[^|]*` \|", line)]
    assert {FLAG.findall(line)[0] for line in options} == parser_flags(predict_parser())  # a row's own flag
    judge_page = (ROOT / "docs" / "judge.md").read_text(encoding="utf-8")
    options = [line for line in section(judge_page, "## Options", "\n## ").split("\n") if line.startswith("| `--")]
    assert {FLAG.findall(line)[0] for line in options} | {"--concurrency"} \
        == parser_flags(evaluate_parser(), ("Judge", "Judge calibration", "Judge cost")) - {"--skip-judge"}


@pytest.mark.parametrize("table, flags", [
    ("| a | `--x N`, `--y` |\n| b | `--z` (alias `--zz`) |", {"--x", "--y", "--z", "--zz"}),
    ("text `--outside` a table\n|---|---|\n| `--in` |", {"--in"}),
])
def test_table_flags_reads_every_flag_of_the_rows_only(table, flags):
    assert table_flags(table) == flags


def test_a_flag_missing_from_a_table_is_caught():
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--shown")
    parser.add_argument("--hidden")
    assert table_flags("| g | `--shown` |") != parser_flags(parser)


# --- the three benchmarks and every output file ---------------------------------------------------

def test_the_readme_and_help_present_the_three_benchmarks_and_every_result_file(capsys):
    from eval.benchmarks import BENCHMARKS
    from eval.io.outputs import RESULT_FILES

    readme = README.read_text(encoding="utf-8")
    for title in ("InstTrans-Bench", "Sandglass-Bench", "IFMTBench"):
        assert title in readme
    assert f"`--benchmark {{auto,{','.join(BENCHMARKS)}}}`" in readme
    outputs = section(readme, "## Outputs", "While a run works")
    assert [name for name in RESULT_FILES if f"- `{name}`" not in outputs] == []
    for main in (evaluate.main, prepare_inputs.main, predict.main):
        with pytest.raises(SystemExit):
            main(["--help"])
        shown = " ".join(capsys.readouterr().out.split())
        assert all(title in shown for title in ("InstTrans-Bench", "Sandglass-Bench", "IFMTBench")), shown[:300]
    with pytest.raises(SystemExit):
        evaluate.main(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert all(name in shown for name in RESULT_FILES)
    api_page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert "five result files" in api_page and all(name in " ".join(api_page.split()) for name in RESULT_FILES)


# --- every figure a page shows from a bundled run, against a real run ----------------------------

SIGNATURE = re.compile(r"data:[0-9a-f]{12}\|n:\d+\|[^`\s]*")
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]


@pytest.fixture(scope="module")
def bundled_run(tmp_path_factory):
    """The README's quick-start run (and its strict twin's numbers are in the same summary)."""
    out = tmp_path_factory.mktemp("quick-start")
    assert evaluate.main(["--predictions", str(ROOT / "data" / "example_predictions.jsonl"), "--output-dir",
                          str(out), "--skip-judge", "--quiet"]) == 0
    import json

    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


def shown_signatures() -> list[tuple[str, str]]:
    return [(page.name, found) for page in PAGES for found in SIGNATURE.findall(page.read_text(encoding="utf-8"))]


def test_every_signature_a_page_shows_is_a_real_runs(bundled_run):
    from eval.provenance import parse_signature

    real = bundled_run["signature"]
    real_parts = parse_signature(real)
    shown = shown_signatures()
    assert len(shown) >= 3  # README, protocol.md, compare.md at least
    for page, signature in shown:
        parts = parse_signature(signature)
        assert parts["data"] == real_parts["data"] and parts["n"] == real_parts["n"], (page, signature)
        if parts["judge"] == "none":
            assert signature == real, (page, signature)  # the quick start's run, exactly
        else:  # a judged run: the same keys in the same order, the run's own parts as the run prints them
            judged_keys = ["data", "n", "known", "scorer", "rules", "judge", "host", "endpoint", "max_output_tokens", "reasoning",
                           "store", "prompt.quality", "prompt.repair", "prompt.soft", "boot", "seed", "version"]
            assert list(parts) == judged_keys, (page, signature)
            assert all(parts[key] == real_parts[key] for key in ("known", "scorer", "rules", "boot", "seed", "version"))


def test_the_judged_signature_keys_are_a_judged_runs(tmp_path):
    """The key list the previous test holds judged examples to is what a judged run writes."""
    from eval.provenance import parse_signature
    from judge_server import JudgeServer

    with JudgeServer() as judge:
        run = api_run(tmp_path, judge.base_url)
    # --limit 3 adds the subset's part (SPEC §16), which no full run the pages show has
    assert [key for key in parse_signature(run.signature) if key != "subset"] == [
        "data", "n", "known", "scorer", "rules", "judge", "host", "endpoint", "max_output_tokens", "reasoning", "store",
        "prompt.quality", "prompt.repair", "prompt.soft", "boot", "seed", "version"]


def api_run(tmp_path, base_url):
    import os

    saved = {key: os.environ.get(key) for key in ("JUDGE_API_BASE", "JUDGE_API_KEY")}
    os.environ.update(JUDGE_API_BASE=base_url, JUDGE_API_KEY="test-key")
    try:
        return api.evaluate(ROOT / "data" / "example_predictions.jsonl", tmp_path / "judged", limit=3,
                            judge_backoff=0.001)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_the_rates_the_pages_show_for_the_example_run_are_the_runs(bundled_run):
    hard = bundled_run["hard_pass_rate"]
    strict = bundled_run["hard_pass_rate_strict"]
    shown_hard = f"{hard['value']:.4f} [{hard['ci95'][0]:.4f}, {hard['ci95'][1]:.4f}]"
    shown_strict = f"{strict['value']:.4f} [{strict['ci95'][0]:.4f}, {strict['ci95'][1]:.4f}]"
    compare_page = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    assert f"| 1 | model-a | 318 | no | n/a | n/a | {shown_hard} | [1] |" in compare_page
    by_constraint = bundled_run["by_constraint"]
    for rate in ("format_preserve", "layout_break"):
        assert re.search(rf"\| {rate} \| {by_constraint[rate]['pass_rate']:.4f} \|", compare_page), rate
    strict_page = (ROOT / "docs" / "strict-rules.md").read_text(encoding="utf-8")
    assert f"| hard_pass_rate (318 instances) | {shown_hard} | {shown_strict} |" in strict_page
    api_page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert f"# {hard['value']:.6g} ({hard['ci95'][0]:.6g}, {hard['ci95'][1]:.6g})" in api_page


# --- wrong files get one line naming what the file is and the right command ----------------------

def error_of(capsys, argv: list[str]) -> list[str]:
    status = evaluate.run_cli(evaluate.main, argv)
    lines = capsys.readouterr().err.strip().split("\n")
    assert status == 2 and len(lines) == 2 and lines[1].startswith("  hint: "), lines
    return lines


def test_the_model_inputs_file_passed_as_predictions_names_predict_py(tmp_path, capsys):
    inputs = tmp_path / "inputs.jsonl"
    assert prepare_inputs.main(["--output", str(inputs), "--limit", "3"]) == 0
    capsys.readouterr()
    message, hint = error_of(capsys, ["--predictions", str(inputs), "--output-dir", str(tmp_path / "o"), "--skip-judge"])
    assert message == f"error: {inputs} is a model-inputs file (prepare_inputs.py's {{case_id, messages}} lines), not predictions"
    assert f"python predict.py --inputs {inputs} --output predictions.jsonl --model NAME" in hint
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("data", ["data/test.jsonl", "data/sandglass/test.jsonl",
                                  "data/ifmtbench/data/test_single_constraint.jsonl"])
def test_a_data_file_passed_as_predictions_names_data_and_prepare_inputs(tmp_path, capsys, data):
    message, hint = error_of(capsys, ["--predictions", data, "--output-dir", str(tmp_path / "o"), "--skip-judge"])
    assert message == f"error: {data} is a data file (its rows hold the prompt and the reference), not predictions"
    assert f"pass it as --data {data}" in hint and "python prepare_inputs.py" in hint


def test_ifmtbench_predictions_on_the_default_data_name_the_benchmark_flag(tmp_path, capsys):
    predictions = "data/ifmtbench/example_predictions.jsonl"
    message, hint = error_of(capsys, ["--predictions", predictions, "--output-dir", str(tmp_path / "o"),
                                      "--skip-judge"])
    assert message == f"error: {predictions}:1: the line has no case_id"
    assert "these look like IFMTBench predictions: run them with --benchmark ifmtbench" in hint


def test_a_line_of_this_benchmarks_form_is_not_taken_for_a_wrong_file():
    from eval.inputs.predictions import refuse_wrong_file

    for entry in ({"case_id": "a", "prediction": "x"}, {"case_id": "a", "prediction": None, "prompt": "kept"},
                  {"md5": "m", "response": "x"}, {"case_id": "a"}):
        refuse_wrong_file(entry, Path("p.jsonl"), "p.jsonl:1", None)  # no error: the usual checks follow


@pytest.mark.parametrize("main", [evaluate.main, prepare_inputs.main])
def test_benchmark_insttrans_on_sandglass_data_names_the_benchmark(tmp_path, capsys, main):
    argv = ["--benchmark", "insttrans", "--data", "data/sandglass/test.jsonl"]
    argv += (["--predictions", "data/sandglass/example_predictions.jsonl", "--output-dir", str(tmp_path / "o"),
              "--skip-judge"] if main is evaluate.main else ["--output", str(tmp_path / "inputs.jsonl")])
    status = evaluate.run_cli(main, argv)
    message, hint = capsys.readouterr().err.strip().split("\n")
    assert status == 2 and message == ("error: data/sandglass/test.jsonl is Sandglass-Bench data, not InstTrans-Bench "
                                       "data (--benchmark insttrans)")
    assert "run with --benchmark sandglass, or leave --benchmark out" in hint
    assert not (tmp_path / "o").exists() and not (tmp_path / "inputs.jsonl").exists()


@pytest.mark.parametrize("unset, message", [
    (("JUDGE_API_BASE", "JUDGE_API_KEY"), "JUDGE_API_BASE and JUDGE_API_KEY are not set"),
    (("JUDGE_API_KEY",), "JUDGE_API_KEY is not set"),
    (("JUDGE_API_BASE",), "JUDGE_API_BASE is not set"),
])
def test_every_missing_judge_setting_in_one_message(tmp_path, capsys, monkeypatch, unset, message):
    monkeypatch.setenv("JUDGE_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("JUDGE_API_KEY", "k")
    for name in unset:
        monkeypatch.delenv(name)
    lines = error_of(capsys, ["--predictions", "data/example_predictions.jsonl", "--output-dir", str(tmp_path / "o")])
    assert lines[0] == f"error: {message}" and "--skip-judge" in lines[1]


@pytest.mark.parametrize("ending", ["\n\n", "\n  \n\n", "\n\r\n"])
def test_blank_lines_at_the_end_of_a_predictions_file_are_ignored(tmp_path, capsys, ending):
    text = (ROOT / "data" / "example_predictions.jsonl").read_text(encoding="utf-8").rstrip("\n") + ending
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(text, encoding="utf-8")
    assert evaluate.main(["--predictions", str(predictions), "--output-dir", str(tmp_path / "o"), "--skip-judge",
                          "--quiet", "--limit", "5"]) == 0


def test_a_blank_line_inside_a_predictions_file_is_still_an_error(tmp_path, capsys):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"case_id": "a", "prediction": "x"}\n\n{"case_id": "b", "prediction": "y"}\n',
                           encoding="utf-8")
    message, _ = error_of(capsys, ["--predictions", str(predictions), "--output-dir", str(tmp_path / "o"),
                                   "--skip-judge"])
    assert message == f"error: {predictions}:2: blank line"


def test_an_output_dir_that_is_a_file_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("README.md").write_text("a file", encoding="utf-8")
    message, hint = error_of(capsys, ["--predictions", str(ROOT / "data" / "example_predictions.jsonl"),
                                      "--output-dir", "README.md", "--skip-judge"])
    assert message == "error: --output-dir README.md is a file, not a directory" and "give a directory" in hint
    assert Path("README.md").read_text(encoding="utf-8") == "a file"


# --- citations ------------------------------------------------------------------------------------

def bibtex_entries(text: str) -> dict[str, str]:
    """{key: entry} of every ```bibtex block of a page."""
    blocks = re.findall(r"```bibtex\n(.*?)```", text, re.S)
    entries = {}
    for block in blocks:
        match = re.match(r"@(\w+)\{([^,\s]+),", block.strip())
        assert match, block[:80]
        assert block.count("{") == block.count("}"), f"unbalanced braces in {match.group(2)}"
        entries[match.group(2)] = block
    return entries


def test_each_benchmark_has_its_own_bibtex_entry_and_none_invents_authors():
    page = (ROOT / "docs" / "citation.md").read_text(encoding="utf-8")
    entries = bibtex_entries(page)
    assert list(entries) == ["indextranslate2026", "cui2026homuratamingsandglasstimeconstrained", "ifmtbench"]
    assert "eprint={2609.40181}" in entries["indextranslate2026"] and "author=" in entries["indextranslate2026"]
    assert "eprint={2601.10187}" in entries["cui2026homuratamingsandglasstimeconstrained"]
    assert "eprint={2605.28218}" in entries["ifmtbench"] and "author" not in entries["ifmtbench"]
    readme = README.read_text(encoding="utf-8")
    assert all(f"arXiv:{number}" in readme for number in ("2609.40181", "2601.10187", "2605.28218"))


def test_citation_cff_is_valid_cff_1_2_0_and_names_this_version():
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and isinstance(cff["message"], str) and cff["message"].strip()
    assert isinstance(cff["title"], str) and cff["type"] == "software"
    assert cff["version"] == harness.__version__ and cff["license"] == "Apache-2.0"
    person_keys = {"family-names", "given-names", "name-particle", "name-suffix", "affiliation", "email", "orcid",
                   "website", "alias", "address", "city", "country", "post-code", "region", "tel", "fax"}
    entity_keys = {"name", "address", "city", "country", "email", "orcid", "website", "alias", "date-start",
                   "date-end", "location", "post-code", "region", "tel", "fax"}

    def valid_author(author: dict) -> bool:  # CFF 1.2.0: a person (family-names) or an entity (name)
        return ("name" in author and set(author) <= entity_keys) or \
            ("family-names" in author and set(author) <= person_keys)

    assert cff["authors"] and all(valid_author(author) for author in cff["authors"])
    allowed = {"cff-version", "message", "title", "authors", "abstract", "commit", "contact", "date-released", "doi",
               "identifiers", "keywords", "license", "license-url", "preferred-citation", "references", "repository",
               "repository-artifact", "repository-code", "type", "url", "version"}
    assert set(cff) <= allowed
    for reference in cff["references"]:
        assert reference["type"] in {"report", "article", "generic"} and reference["title"]
        assert all(valid_author(author) for author in reference["authors"])
        assert isinstance(reference["year"], int) and 1 <= reference.get("month", 1) <= 12


# --- the demonstration ----------------------------------------------------------------------------

def test_the_demo_stand_ins_come_back_on_the_same_address_or_any_free_one(monkeypatch):
    import socket

    from scripts import demo

    with demo.stand_in("judge_server.py", port=0) as first:
        port = int(first.rsplit(":", 1)[1].split("/")[0])
    with demo.stand_in("judge_server.py", port=port) as again:
        assert again == first  # the same address: the same requests, cache keys and signature on a rerun
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        with demo.stand_in("judge_server.py", port=taken) as elsewhere:
            assert elsewhere.startswith("http://127.0.0.1:") and f":{taken}/" not in elsewhere
        # taken between the check and the bind (a second demo, a parallel test): any free port all the same
        monkeypatch.setattr(demo, "port_is_free", lambda port: True)
        with demo.stand_in("judge_server.py", port=taken) as raced:
            assert raced.startswith("http://127.0.0.1:") and f":{taken}/" not in raced
    assert demo.DEMO_PORTS["judge_server.py"] != demo.DEMO_PORTS["model_server.py"]


def test_ctrl_c_stops_the_demo_with_one_line_and_no_traceback(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-u", "-m", "scripts.demo", "--output-dir", str(tmp_path / "demo")],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        for line in process.stdout:  # wait for the predictions step: the stand-ins are up, a child is running
            if line.startswith("2. "):
                break
        os.killpg(process.pid, signal.SIGINT)  # what the terminal's Ctrl-C does: the whole foreground group
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    assert "Traceback" not in err, err
    assert err.strip().split("\n")[-1].startswith("demo interrupted (Ctrl-C)")



def test_a_ctrl_c_in_the_demo_reaches_the_running_command_as_sigterm_only(tmp_path):
    """Each step's command has its own session, so the terminal's SIGINT (which catches a starting
    interpreter mid-import, a fatal error with a traceback) never reaches it; the demo hands it on as
    SIGTERM, which ends a starting interpreter silently and a running command with its own line."""
    import os
    import signal
    import threading

    from scripts import demo

    seen = tmp_path / "seen"
    child = ("import os, signal, sys, time\n"
             "signal.signal(signal.SIGTERM, lambda *_: (open(sys.argv[1], 'a').write('SIGTERM'), sys.exit(143)))\n"
             "signal.signal(signal.SIGINT, lambda *_: (open(sys.argv[1], 'a').write('SIGINT'), sys.exit(130)))\n"
             "open(sys.argv[1], 'a').write(f'up {os.getsid(0)} ')\n"
             "time.sleep(60)\n")

    def interrupt_once_up():
        while "up" not in (seen.read_text() if seen.exists() else ""):
            threading.Event().wait(0.01)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # the terminal's Ctrl-C, to the demo

    threading.Thread(target=interrupt_once_up, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        demo.step("child", "-c", child, str(seen))
    up, session, signal_name = seen.read_text().split()
    assert int(session) != os.getsid(0)  # its own session: the terminal's Ctrl-C does not reach it
    assert signal_name == "SIGTERM"



def test_a_ctrl_c_while_the_demo_starts_a_child_still_stops_that_child(monkeypatch):
    """The interrupt lands after the fork, before Popen has returned the process: the demo holds it
    back until it has the process, then stops the process and raises."""
    import signal
    import subprocess
    import threading

    from scripts import demo

    started = []
    real_popen = subprocess.Popen

    def popen_interrupted_midway(*args, **options):
        started.append(real_popen(*args, **options))
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        return started[-1]

    monkeypatch.setattr(demo.subprocess, "Popen", popen_interrupted_midway)
    with pytest.raises(KeyboardInterrupt):
        demo.step("child", "-c", "import time; time.sleep(60)")
    assert started and started[0].poll() is not None  # stopped, not left running


# --- consoles: missing counts, labelled intervals, the strict row, the skipped glossary Judge ----------

@pytest.mark.parametrize("argv, unit, total, missing", [
    (["--predictions", "data/example_predictions.jsonl"], "instances", 318, 10),
    (["--benchmark", "sandglass", "--predictions", "data/sandglass/example_predictions.jsonl"], "items", 240, 5),
    (["--dataset", "data/ifmtbench", "--predictions", "data/ifmtbench/example_predictions.jsonl"], "rows", 222, 4),
])
def test_every_benchmarks_console_shows_the_missing_count_and_labelled_intervals(tmp_path, capsys, argv, unit,
                                                                                 total, missing):
    assert evaluate.main(argv + ["--output-dir", str(tmp_path / "o"), "--skip-judge"]) == 0
    out = capsys.readouterr().out
    lines = out.split("\n")
    expected = f"{missing} of {total} {unit} have no prediction" + (" (scored 0)" if missing else "")
    assert expected in lines
    assert "[low, high]: the 95% bootstrap interval" in lines
    interval = re.compile(r"\d\.\d{4} \[\d\.\d{4}, \d\.\d{4}\]")
    assert any(interval.search(line) for line in lines)
    strict = [line for line in lines if line.startswith("hard_pass_rate_strict")]
    assert bool(strict) == (unit == "instances")  # InstTrans reports the strict rule set beside the original
    assert any(line.startswith("strict: the same predictions under the strict rule set") for line in lines) \
        == bool(strict)
    glossary = [line for line in lines if line.startswith("glossary is the rule alone")]
    assert bool(glossary) == (unit == "rows")
    if glossary:
        import json

        skipped = json.loads((tmp_path / "o" / "summary.json").read_text())["glossary_fallback"]["skipped"]
        assert f"({skipped} response(s) the rule failed count as failures" in glossary[0]


def test_report_md_says_what_the_strict_row_is(tmp_path):
    assert evaluate.main(["--predictions", "data/example_predictions.jsonl", "--output-dir", str(tmp_path / "o"),
                          "--skip-judge", "--quiet", "--limit", "20"]) == 0
    report = (tmp_path / "o" / "report.md").read_text(encoding="utf-8")
    assert "| hard_pass_rate_strict |" in report and "Strict: the same predictions under the strict rule set" in report


def test_a_rerun_that_replaces_a_formal_result_says_what_it_replaces(tmp_path, capsys):
    import json

    from judge_server import JudgeServer

    out = tmp_path / "run"
    with JudgeServer() as judge:
        env = {"JUDGE_API_BASE": judge.base_url, "JUDGE_API_KEY": "test-key"}
        with pytest.MonkeyPatch.context() as patch:
            for key, value in env.items():
                patch.setenv(key, value)
            assert evaluate.main(["--predictions", "data/example_predictions.jsonl", "--output-dir", str(out),
                                  "--quiet", "--judge-backoff", "0.001"]) == 0
            formal = json.loads((out / "summary.json").read_text(encoding="utf-8"))
            assert formal["formal"] is True
            capsys.readouterr()
            assert evaluate.main(["--predictions", "data/example_predictions.jsonl", "--output-dir", str(out),
                                  "--quiet", "--judge-backoff", "0.001"]) == 0  # the same run again: nothing lost
            assert "replaced" not in capsys.readouterr().err
    assert evaluate.main(["--predictions", "data/example_predictions.jsonl", "--output-dir", str(out), "--quiet",
                          "--skip-judge"]) == 0
    err = capsys.readouterr().err.strip()
    assert err == (f"replaced the formal run that was in {out} (signature {formal['signature']}) with this run, "
                   "which is not formal: --skip-judge: soft constraints and quality were not scored")
    assert evaluate.main(["--predictions", "data/example_predictions.jsonl", "--output-dir", str(out), "--quiet",
                          "--skip-judge", "--limit", "3"]) == 0
    assert capsys.readouterr().err == ""  # the result replaced now was not formal (nor is this one)


@pytest.mark.parametrize("text, expected", [
    ('{"formal": true, "signature": "a|b"}', "a|b"),
    ('{"formal": true, "signature": "a\\u001b[31m"}', "(not printable)"),
    ('{"formal": false, "signature": "a"}', None),
    ('{"formal": "yes", "signature": "a"}', None),
    ("[1, 2]", None),
    ("not json", None),
    ("[" * 100000, None),
])
def test_the_previous_summary_is_read_as_outside_text(tmp_path, text, expected):
    from eval.run.pipeline import previous_formal_signature

    (tmp_path / "summary.json").write_text(text, encoding="utf-8")
    assert previous_formal_signature(tmp_path) == expected


def test_the_missing_line_is_shown_when_none_is_missing_too():
    from eval.reports.report import missing_line

    summary = {"predictions": {"missing": 0}, "data": {"n_instances": 7}}
    assert missing_line(summary, "items") == "0 of 7 items have no prediction"
    summary["predictions"]["missing"] = 2
    assert missing_line(summary, "items") == "2 of 7 items have no prediction (scored 0)"
    summary["predictions"]["missing"] = 6
    assert missing_line(summary, "items").startswith("WARNING: 6 of 7 instances have no prediction")


def test_report_html_says_what_the_strict_card_is(tmp_path):
    assert evaluate.main(["--predictions", "data/example_predictions.jsonl", "--output-dir", str(tmp_path / "o"),
                          "--skip-judge", "--quiet", "--limit", "20"]) == 0
    page = (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    assert '<div class="name">hard_pass_rate_strict</div>' in page
    assert "hard_pass_rate_strict: the same predictions under the strict rule set" in page


def test_the_version_line_docs_api_shows_is_the_commands():
    page = " ".join((ROOT / "docs" / "api.md").read_text(encoding="utf-8").split())
    assert f"prints `{version_line('python evaluate.py', harness.__version__)}`" in page


# --- stand-ins say so beside the badge ------------------------------------------------------------

@pytest.mark.parametrize("headers, said", [
    ({"X-Stand-In": "tests/judge_server.py"}, "tests/judge_server.py"),
    ({"x-stand-in": "a\x1b[31m red\u2028" + "x" * 500}, "a[31m red" + "x" * 191),
    ({"x-stand-in": "\x00\x01"}, None),
    ({"server": "vllm"}, None),
])
def test_a_stand_in_header_is_read_as_outside_text(headers, said):
    from eval.providers.openai_api import stand_in_of

    assert stand_in_of(headers) == said


def test_the_badge_names_each_stand_in_and_nothing_for_real_servers():
    from eval.reports.report import run_status, stand_in_note

    summary = {"formal": True, "non_formal_reasons": [], "judge": {"model": "m", "host": "h", "stand_in": "J"},
               "system": {"engine": {"header.x-stand-in": "M"}}}
    assert stand_in_note(summary) == " — stand-in Judge: J; stand-in model: M: the numbers mean nothing"
    assert run_status(summary) == "formal (Judge: m @ h) — stand-in Judge: J; stand-in model: M: the numbers mean nothing"
    summary["judge"].pop("stand_in")
    summary["system"]["engine"] = {"header.server": "vllm"}
    assert stand_in_note(summary) == "" and run_status(summary) == "formal (Judge: m @ h)"


def test_a_judged_run_records_the_stand_in_judge_and_a_real_judge_adds_no_key(tmp_path, monkeypatch):
    import json

    from judge_server import JudgeServer

    class RealJudge(JudgeServer):
        identity = ""

    for server_class, expected in ((JudgeServer, JudgeServer.identity), (RealJudge, None)):
        with server_class() as judge:
            monkeypatch.setenv("JUDGE_API_BASE", judge.base_url)
            monkeypatch.setenv("JUDGE_API_KEY", "k")
            out = tmp_path / server_class.__name__
            assert evaluate.main(["--predictions", "data/example_predictions.jsonl", "--output-dir", str(out),
                                  "--quiet", "--limit", "3", "--judge-backoff", "0.001"]) == 0
        block = json.loads((out / "summary.json").read_text(encoding="utf-8"))["judge"]
        assert block.get("stand_in") == expected and ("stand_in" in block) == (expected is not None)
