"""eval.run.api.evaluate: bad values raise the harness's error (never SystemExit), before any file
changes; a judged run works inside a running event loop (a notebook cell). Issue 34 items 4, 5."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from eval.run.api import _kind_of, checked_options, evaluate, keyword_actions, load_run, run_config
from eval.run.cli import evaluate_parser, run_config_from_args
from eval.exits import run_cli
from eval.config import RunResult
from eval.errors import ConfigError, HarnessError
from judge_server import JudgeServer

ROOT = Path(__file__).resolve().parent.parent
PREDICTIONS = ROOT / "data" / "example_predictions.jsonl"
RESULTS = ("summary.json", "scores.jsonl", "report.md", "report.html", "explorer.html")

# keyword -> bad values, and what the message must say is accepted: one row per keyword kind,
# every keyword of evaluate.py's parser covered (test_every_keyword_is_in_the_table).
BAD = {
    "rule_set": (["bogus", 1, True, ["strict"]], "one of 'original', 'strict'"),
    "benchmark": (["gpt", 0, True], "one of 'auto', "),
    "limit": (["many", "20", 2.5, True, False, math.nan, [20]], "an int"),
    "judge_concurrency": (["8", True, 8.0], "an int"),
    "concurrency": (["8", False], "an int"),
    "judge_max_retries": (["6", True, 1.5], "an int"),
    "judge_repairs": ([2, "1", True, -1], "one of 0, 1"),
    "judge_timeout": (["60", True, math.nan, math.inf, [1.0]], "a number (int or float)"),
    "judge_deadline": (["30", False, -math.inf], "a number (int or float)"),
    "judge_backoff": (["1", True], "a number (int or float)"),
    "skip_judge": (["yes", 1, 0, None, "True"], "True or False"),
    "quiet": (["no", 1, None], "True or False"),
    "log_samples": (["yes", 0], "True or False"),
    "trust_release_code": (["yes", 1], "True or False"),
    "judge_model": ([5, True, b"gpt", ["gpt"]], "a str"),
    "dataset": ([5, b"x", 1.0], "a str"),
    "judge_reasoning_effort": (["extreme", 1, True], "one of 'none', "),
    "judge_structured": (["yaml", 1], "one of 'json_schema', 'json_object'"),
    "protocol": (["mine", True, 0], "one of 'harness', 'release'"),
    "case_ids": ([5, True, "", b"ids.txt"], "a path (str or os.PathLike)"),
    "judge_cache": ([5, True, ""], "a path (str or os.PathLike)"),
    "release_dir": ([5, False], "a path (str or os.PathLike)"),
    "data": ([5, True, ["a.jsonl", 3], ""], "a path (str or os.PathLike)"),
    "data_file": ([5, True], "a path (str or os.PathLike)"),
}
CASES = [(name, value, accepted) for name, (values, accepted) in BAD.items() for value in values]


def test_the_table_covers_every_keyword_of_today():
    assert {"rule_set", "limit", "skip_judge", "judge_timeout", "data", "dataset"} <= set(keyword_actions(evaluate_parser()))
    assert set(BAD) <= set(keyword_actions(evaluate_parser()))


GENERIC_BAD = {"switch": "yes", "int": "1", "float": "1.5", "path": 5, "text": 5, "other": [5]}


@pytest.mark.parametrize("name", sorted(keyword_actions(evaluate_parser())))
def test_every_keyword_refuses_a_value_of_the_wrong_kind(tmp_path, name):
    """Every keyword of the parser, a flag added later included: a value of the wrong type is a
    ConfigError naming it, whatever the flag."""
    action = keyword_actions(evaluate_parser())[name]
    value = "bogus-choice" if action.choices is not None else GENERIC_BAD[_kind_of(action)]
    with pytest.raises(ConfigError, match=rf"^keyword {name}="):
        evaluate(PREDICTIONS, tmp_path / "run", **{"skip_judge": True, name: value})
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("name, value, accepted", CASES, ids=[f"{n}={v!r}" for n, v, _ in CASES])
def test_a_bad_value_raises_the_harness_error_naming_the_keyword_and_what_it_takes(tmp_path, name, value, accepted):
    previous = tmp_path / "run"
    previous.mkdir()
    for result in RESULTS:
        (previous / result).write_text(f"the previous run's {result}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        evaluate(PREDICTIONS, previous, **{"skip_judge": True, name: value})
    message = caught.value.message
    assert "\n" not in message and message.startswith(f"keyword {name}=") and accepted in message
    assert caught.value.exit_status == 2
    assert all((previous / result).read_text(encoding="utf-8") == f"the previous run's {result}\n"
               for result in RESULTS)
    assert sorted(path.name for path in previous.iterdir()) == sorted(RESULTS)


@pytest.mark.parametrize("options", [
    {"skip_judge": True, "limit": 0},                       # the command's own check, as a ConfigError
    {"skip_judge": True, "case_ids": "/nonexistent/ids.txt"},
    {"skip_judge": True, "help": True},                     # --help is not a keyword (it would exit)
    {"skip_judge": True, "rule_sett": "strict"},
    {"skip_judge": True, "data": "a.jsonl", "dataset": True},  # argparse's own refusal (exclusive flags)
])
def test_no_keyword_exits_the_interpreter(tmp_path, options):
    with pytest.raises(HarnessError) as caught:
        evaluate(PREDICTIONS, tmp_path / "run", **options)
    assert "--help" not in str(caught.value)


@pytest.mark.parametrize("predictions, output_dir", [(5, "out"), ("p.jsonl", None), ("", "out"), (None, 5)])
def test_the_positional_arguments_are_checked_too(predictions, output_dir):
    with pytest.raises(ConfigError, match="takes a path"):
        evaluate(predictions, output_dir, skip_judge=True)


def test_no_predictions_is_the_oracle_only(tmp_path):
    with pytest.raises(ConfigError, match="required: --predictions"):
        evaluate(None, tmp_path / "run", skip_judge=True)
    with pytest.raises(ConfigError, match="--oracle scores the references: it takes no --predictions"):
        evaluate(PREDICTIONS, tmp_path / "run", skip_judge=True, oracle=True)
    run = evaluate(None, tmp_path / "run", skip_judge=True, oracle=True, limit=4)
    assert run.exit_status == 0 and run.paths[-1].name == "summary.json" and len(run.rows) == 4


def test_good_values_of_every_kind_give_the_command_lines_config(tmp_path):
    """Keywords of every kind build the RunConfig the same flags build on the command line."""
    ids = tmp_path / "ids.txt"
    ids.write_text("x\n", encoding="utf-8")
    keywords = {"skip_judge": True, "quiet": False, "limit": 5, "rule_set": "strict", "judge_timeout": 2,
                "data": [ROOT / "data" / "test.jsonl"], "case_ids": None, "judge_structured": False}
    argv = ["--skip-judge", "--limit", "5", "--rule-set", "strict", "--judge-timeout", "2",
            "--data", str(ROOT / "data" / "test.jsonl")]
    out = tmp_path / "out"
    assert run_config(PREDICTIONS, out, **keywords) == run_config_from_args(
        evaluate_parser().parse_args(["--predictions", str(PREDICTIONS), "--output-dir", str(out), *argv]))
    bare = run_config(PREDICTIONS, out, skip_judge=True, data=str(ROOT / "data" / "test.jsonl"))
    assert bare.source.path == ROOT / "data" / "test.jsonl" and bare.options == {} and bare.limit is None


def test_judge_keywords_give_the_command_lines_judge_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("JUDGE_API_KEY", "sk-parity-test")
    keywords = {"judge_model": "-model-with-a-dash", "judge_concurrency": 3, "judge_repairs": 0,
                "judge_structured": True, "judge_backoff": 1, "judge_max_tokens": 64}
    argv = ["--judge-model=-model-with-a-dash", "--judge-concurrency", "3", "--judge-repairs", "0",
            "--judge-structured", "--judge-backoff", "1", "--judge-max-tokens", "64"]
    out = tmp_path / "out"
    by_keywords = run_config(PREDICTIONS, out, **keywords)
    assert by_keywords == run_config_from_args(
        evaluate_parser().parse_args(["--predictions", str(PREDICTIONS), "--output-dir", str(out), *argv]))
    assert by_keywords.judge.structured == "json_schema" and isinstance(by_keywords.judge.backoff, float)


# Settings the command line's own checks refuse (not argparse's): the API raises the very line the
# command prints after "error: ".
SAME_ERROR = [
    {"limit": 0},
    {"judge_concurrency": 0},
    {"judge_timeout": 0},
    {"judge_model": "  "},
    {"release_dir": "somewhere"},
    {"trust_release_code": True},
    {"protocol": "release", "judge_structured": True},
    {"judge_budget": 5.0},
    {"judge_price": "1,2", "judge_batch_poll": 5.0},
    {"skip_judge": True, "judge_calibration": "calibration.json"},
    {"skip_judge": True, "estimate": True},
    {"skip_judge": True, "oracle": True},
    {"skip_judge": True, "limit": 3, "case_ids": "ids.txt"},
    {"skip_judge": True, "dataset": "no such thing/really"},
]


def _argv(keywords: dict) -> list[str]:
    argv = []
    for name, value in keywords.items():
        flag = "--" + name.replace("_", "-")
        argv += [flag] if value is True else [flag, str(value)]
    return argv


@pytest.mark.parametrize("keywords", SAME_ERROR, ids=[",".join(k) for k in SAME_ERROR])
def test_a_bad_setting_is_the_same_one_line_error_from_the_api_and_the_command(tmp_path, monkeypatch, capsys,
                                                                                keywords):
    from evaluate import main

    monkeypatch.setenv("JUDGE_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("JUDGE_API_KEY", "sk-parity-test")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(HarnessError) as caught:
        evaluate(PREDICTIONS, tmp_path / "api", **keywords)
    status = run_cli(main, ["--predictions", str(PREDICTIONS), "--output-dir", str(tmp_path / "cli"), *_argv(keywords)])
    printed = capsys.readouterr().err.strip().splitlines()
    assert status == caught.value.exit_status == 2
    assert printed[0] == f"error: {str(caught.value).splitlines()[0]}"
    assert not (tmp_path / "api").exists() and not (tmp_path / "cli").exists()


def test_evaluate_returns_the_pipelines_result_without_reading_the_files_back(tmp_path, monkeypatch):
    """The RunResult is what the run held in memory; the files say the same."""
    import eval.run.api as api

    monkeypatch.setattr(api, "load_run", lambda *_: pytest.fail("the API read the run back"))
    run = evaluate(PREDICTIONS, tmp_path / "run", skip_judge=True, limit=9)
    assert isinstance(run, RunResult) and run.exit_status == 0 and run.output_dir == tmp_path / "run"
    assert [path.name for path in run.paths] == ["scores.jsonl", "report.md", "report.html", "explorer.html",
                                                  "summary.json"]
    monkeypatch.undo()
    again = load_run(tmp_path / "run")
    assert run.summary == again.summary and run.rows == again.rows and len(run.rows) == 9
    assert run.signature == again.signature and run.paths == again.paths


def test_an_estimate_returns_its_status_and_writes_nothing(tmp_path, judge):
    run = evaluate(PREDICTIONS, tmp_path / "run", limit=2, estimate=True)
    assert run.exit_status == 0 and run.summary is None and run.rows == [] and run.paths == ()
    assert run.signature is None and run.formal is False and run.metric("quality") is None
    assert not (tmp_path / "run").exists()


@pytest.fixture
def judge(monkeypatch):
    with JudgeServer() as server:
        monkeypatch.setenv("JUDGE_API_KEY", "sk-api-loop-test")
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        yield server


def test_a_judged_run_works_inside_a_running_event_loop(tmp_path, judge):
    """A notebook cell runs inside a loop: the Judge's loop cannot be asyncio.run there, so the
    run goes to a worker thread; its files are the same as a run from plain code."""
    plain = evaluate(PREDICTIONS, tmp_path / "plain", limit=12, judge_backoff=0.001)
    asked = len(judge.requests)

    async def cell():
        return evaluate(PREDICTIONS, tmp_path / "cell", limit=12, judge_backoff=0.001,
                        judge_cache=tmp_path / "plain" / "judge_cache.sqlite")

    in_loop = asyncio.run(cell())
    assert in_loop.summary["judge"] is not None and in_loop.metric("quality") is not None
    assert in_loop.metric("quality") == plain.metric("quality") and in_loop.rows == plain.rows
    assert len(judge.requests) == asked  # the second run read every verdict from the first's cache

    async def rerun_in_place():  # the previous run's files are replaced, never lost
        return evaluate(PREDICTIONS, tmp_path / "plain", limit=12, judge_backoff=0.001)

    again = asyncio.run(rerun_in_place())
    assert again.rows == plain.rows and (tmp_path / "plain" / "summary.json").exists()


def test_a_bad_value_inside_a_running_loop_is_the_same_error_and_touches_nothing(tmp_path, judge):
    run = evaluate(PREDICTIONS, tmp_path / "run", limit=6, judge_backoff=0.001)
    before = {name: (tmp_path / "run" / name).read_bytes() for name in RESULTS}

    async def cell():
        evaluate(PREDICTIONS, tmp_path / "run", limit="many")

    with pytest.raises(ConfigError, match="keyword limit='many'"):
        asyncio.run(cell())
    assert {name: (tmp_path / "run" / name).read_bytes() for name in RESULTS} == before and run.rows
