"""eval.api.evaluate: bad values raise the harness's error (never SystemExit), before any file
changes; a judged run works inside a running event loop (a notebook cell). Issue 34 items 4, 5."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from eval.api import _kind_of, checked_options, evaluate, flags_of, keyword_actions
from eval.cli import evaluate_parser
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


@pytest.mark.parametrize("predictions, output_dir", [(None, "out"), (5, "out"), ("p.jsonl", None), ("", "out")])
def test_the_positional_arguments_are_checked_too(predictions, output_dir):
    with pytest.raises(ConfigError, match="takes a path"):
        evaluate(predictions, output_dir, skip_judge=True)


def test_good_values_of_every_kind_pass_and_become_one_word_flags():
    options = {"skip_judge": True, "quiet": False, "limit": 5, "judge_timeout": 2, "judge_backoff": 0.5,
               "rule_set": "strict", "judge_repairs": 0, "data": [Path("a.jsonl"), "b.jsonl"], "dataset": True,
               "judge_model": "-model-with-a-dash", "case_ids": None, "judge_structured": False}
    assert checked_options(evaluate_parser(), options) is options
    argv = flags_of(options)
    assert argv == ["--skip-judge", "--limit=5", "--judge-timeout=2", "--judge-backoff=0.5", "--rule-set=strict",
                    "--judge-repairs=0", "--data=a.jsonl", "--data=b.jsonl", "--dataset",
                    "--judge-model=-model-with-a-dash"]
    args = evaluate_parser().parse_args(["--predictions=p", "--output-dir=o", *[a for a in argv if a != "--dataset"]])
    assert args.judge_model == "-model-with-a-dash" and args.data == [Path("a.jsonl"), Path("b.jsonl")]


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
