"""The Judge's cost (SPEC §18): `--estimate` counts exactly the requests a run would send and
sends nothing; `--judge-price` prices the run's reported usage (cached tokens where the provider
reports them); `--judge-budget` stops a run cleanly and resumably. Against real local servers."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path
from unittest import mock

import pytest

from conftest import count_replies
from eval.exits import run_cli
from evaluate import main as evaluate_main
from eval.errors import ConfigError
from eval.insttrans.record import item_requests
from eval.judge_client import run_judge_prompts
from eval.config import JudgeSettings
from eval.judge.cost import BudgetReached, Price, cost_usd, estimate_tokens, parse_price
from eval.providers.openai_api import cached_input_tokens
from eval.insttrans.prompts import PROMPT_VERSIONS
from eval.insttrans.verdicts import JudgeItem
from judge_server import JudgeServer, Reply, default_handler

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-cost-test-0123456789abcdef"
EXAMPLE = ROOT / "data" / "example_predictions.jsonl"


@contextlib.contextmanager
def working_directory(path: Path):
    """`contextlib.chdir` of Python 3.11 and later."""
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def evaluate(args: list[str], base_url: str, cwd: Path) -> subprocess.CompletedProcess:
    """evaluate.py's command line run by its main in this process, from `cwd`, with the Judge's
    settings in the environment: these tests are about the cost flags, not the process (its exit
    status comes from the same `run_cli`, argparse's refusals from its SystemExit)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("JUDGE_API", "MODEL_API"))}
    env.update(JUDGE_API_BASE=base_url, JUDGE_API_KEY=KEY)
    argv = ["--predictions", str(EXAMPLE), "--quiet", *args]
    stdout, stderr = io.StringIO(), io.StringIO()
    with mock.patch.dict(os.environ, env, clear=True), working_directory(cwd), \
            contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            status = run_cli(evaluate_main, argv)
        except SystemExit as stop:  # argparse's refusal of a flag
            status = stop.code if isinstance(stop.code, int) else 2
    return subprocess.CompletedProcess(argv, status, stdout.getvalue(), stderr.getvalue())


def to_ask(stdout: str) -> int:
    head = stdout.splitlines()[0]
    return int(head.split(" held by the cache, ")[1].split(" to ask")[0].replace(",", ""))


def posts(server: JudgeServer) -> int:
    return sum(request.method == "POST" for request in server.requests)


# ---------------------------------------------------------------------------------------------
# --estimate
# ---------------------------------------------------------------------------------------------

def test_the_estimate_sends_nothing_touches_nothing_and_counts_exactly_what_the_run_then_sends(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "summary.json").write_text("{}", encoding="utf-8")  # an earlier result: the estimate leaves it
    gate = {"open": False}  # one server throughout: its URL is part of every cache key

    def handler(request):
        if not gate["open"]:
            pytest.fail(f"--estimate contacted the Judge: {request.path}")
        return default_handler(request)

    with JudgeServer(handler) as server:
        done = evaluate(["--output-dir", str(out), "--limit", "12", "--estimate", "--judge-price", "1.25,10"],
                        server.base_url, tmp_path)
        assert server.requests == []
        assert done.returncode == 0, done.stderr
        assert sorted(path.name for path in out.iterdir()) == ["summary.json"]
        assert (out / "summary.json").read_text(encoding="utf-8") == "{}"
        first = to_ask(done.stdout)
        assert "online about $" in done.stdout and "batch (half price) about $" in done.stdout
        gate["open"] = True  # a run of the first 6 rows fills the cache in part
        assert evaluate(["--output-dir", str(out), "--limit", "6"], server.base_url, tmp_path).returncode == 0
        partial = posts(server)
        assert 0 < partial < first
        gate["open"] = False
        cache = (out / "judge_cache.sqlite").read_bytes()
        again = evaluate(["--output-dir", str(out), "--limit", "12", "--estimate"], server.base_url, tmp_path)
        assert again.returncode == 0 and to_ask(again.stdout) == first - partial
        assert f"{partial} held by the cache" in again.stdout and "give --judge-price" in again.stdout
        assert posts(server) == partial and (out / "judge_cache.sqlite").read_bytes() == cache
        gate["open"] = True
        assert evaluate(["--output-dir", str(out), "--limit", "12"], server.base_url, tmp_path).returncode == 0
        assert posts(server) - partial == first - partial  # exactly what the estimate said was left


def test_the_estimate_prices_tokens_online_and_at_half_in_batch(tmp_path):
    with JudgeServer(lambda request: pytest.fail("contacted")) as silent:
        done = evaluate(["--output-dir", str(tmp_path / "run"), "--limit", "5", "--estimate", "--judge-price", "2,8"],
                        silent.base_url, tmp_path)
    lines = done.stdout.splitlines()
    prompt = int(lines[1].split("about ")[1].split(" ")[0].replace(",", ""))
    output = int(lines[2].split("about ")[1].split(" ")[0].replace(",", ""))
    online = (prompt * 2 + output * 8) / 1e6
    assert f"online about ${online:.2f}" in lines[3] and f"batch (half price) about ${online / 2:.2f}" in lines[3]


@pytest.mark.parametrize("text, tokens", [
    ("", 0), ("abcd", 1), ("abcde", 2), ("你好世界", 4), ("こんにちは", 5), ("안녕", 2),
    ("Привет", 3), ("héllo", 2), ("你好 abcd", 2 + 2),
])
def test_the_estimator_counts_by_script(text, tokens):
    assert estimate_tokens(text) == tokens


def test_the_estimator_is_linear_on_a_hostile_text():
    assert estimate_tokens("你" * 1_000_000 + "a" * 4_000_000) == 2_000_000


@pytest.mark.parametrize("args, message", [
    (["--skip-judge", "--estimate"], "--estimate is about the Judge"),
    (["--judge-price", "1"], "--judge-price '1' is not IN,OUT"),
    (["--judge-price", "1,-2"], "is not IN,OUT"),
    (["--judge-price", "1,nan"], "is not IN,OUT"),
    (["--judge-budget", "5"], "--judge-budget needs --judge-price"),
    (["--judge-budget", "0", "--judge-price", "1,2"], "--judge-budget must be a positive number"),
])
def test_cost_flags_that_cannot_work_are_refused_before_anything_runs(tmp_path, args, message):
    with JudgeServer(lambda request: pytest.fail("contacted")) as silent:
        done = evaluate(["--output-dir", str(tmp_path / "run"), "--limit", "3", *args], silent.base_url, tmp_path)
    assert done.returncode == 2 and message in done.stderr and not (tmp_path / "run").exists()


def test_prices_parse_and_cached_input_is_priced_apart():
    assert parse_price("1.25, 10") == Price(1.25, 10.0)
    assert parse_price("1,4,0.1") == Price(1.0, 4.0, 0.1)
    with pytest.raises(ConfigError):
        parse_price("a,b")
    assert cost_usd(1_000_000, 1_000_000, Price(1, 4)) == 5.0
    assert cost_usd(1_000_000, 0, Price(1, 4, 0.1), cached_input_tokens=500_000) == pytest.approx(0.55)


@pytest.mark.parametrize("payload, cached", [
    ({"usage": {"prompt_tokens": 9, "prompt_tokens_details": {"cached_tokens": 4}}}, 4),
    ({"usage": {"input_tokens": 9, "input_tokens_details": {"cached_tokens": 0}}}, 0),
    ({"usage": {"prompt_tokens": 9}}, None),
    ({"usage": {"prompt_tokens_details": {"cached_tokens": -3}}}, None),
    ({"usage": {"prompt_tokens_details": {"cached_tokens": True}}}, None),
    ({}, None), ("text", None),
])
def test_cached_tokens_are_read_where_the_provider_reports_them(payload, cached):
    assert cached_input_tokens(payload) == cached


# ---------------------------------------------------------------------------------------------
# The summary's cost and the budget
# ---------------------------------------------------------------------------------------------

STYLE = ("style_consistency", "译文语体：正式，全文保持一致")


def judge_items(n: int) -> list[JudgeItem]:
    return [JudgeItem(f"b{i}", "zh", "en", f"你好。（{i}）", "Hello.", f"Hello number {i}.",
                      (STYLE,) if i % 2 == 0 else ()) for i in range(n)]


def settings_for(base_url: str, **changes) -> JudgeSettings:
    return replace(JudgeSettings(model="qwen-judge", api_base=base_url, api_key=KEY, concurrency=1, max_retries=2,
                                 timeout=5.0, backoff=0.01, backoff_max=0.05, deadline=2.0), **changes)


def with_cache_report(request):
    """The default verdicts, with the provider reporting 100 prompt and 10 cached tokens each."""
    reply = default_handler(request)
    reply.body["usage"] = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
                           "prompt_tokens_details": {"cached_tokens": 10}}
    return reply


def test_the_judge_block_reports_cached_tokens_and_the_cost_at_the_given_price(tmp_path):
    requests = [request for item in judge_items(4) for request in item_requests(item)]
    price = Price(1.0, 4.0, 0.5)
    with JudgeServer(with_cache_report) as server:
        _, block = run_judge_prompts(requests, settings_for(server.base_url, price=price), tmp_path / "c.sqlite",
                                     PROMPT_VERSIONS, progress=False)
        _, unpriced = run_judge_prompts(requests, settings_for(server.base_url), tmp_path / "d.sqlite",
                                        PROMPT_VERSIONS, progress=False)
    calls = len(requests)
    assert sum(counts["cached_input_tokens"] for counts in block["usage"].values()) == 10 * calls
    expected = calls * (90 * 1.0 + 10 * 0.5 + 10 * 4.0) / 1e6
    assert block["cost"] == {"price_usd_per_million_tokens": {"input": 1.0, "output": 4.0, "cached_input": 0.5},
                             "usd": round(expected, 6), "budget_usd": None}
    assert "cost" not in unpriced  # no price, no cost key: an unpriced run's summary is unchanged


def test_a_budget_stops_the_run_cleanly_and_the_rerun_resumes_without_paying_again(tmp_path):
    requests = [request for item in judge_items(10) for request in item_requests(item)]
    price = Price(1000.0, 1000.0)  # 110 tokens a reply: $0.11 each
    with JudgeServer(with_cache_report) as server:
        with pytest.raises(BudgetReached, match=r"stopped at the Judge budget: \$0\.3300 spent of --judge-budget "
                                                r"\$0\.3 \(3 requests\)") as stopped:
            run_judge_prompts(requests, settings_for(server.base_url, price=price, budget=0.3), tmp_path / "c.sqlite",
                              PROMPT_VERSIONS, progress=False)
        assert stopped.value.exit_status == 130 and "rerun to resume" in stopped.value.hint
        assert posts(server) == 3 and count_replies(tmp_path / "c.sqlite") == 3  # what was paid is kept
        verdicts, block = run_judge_prompts(requests, settings_for(server.base_url, price=price),
                                            tmp_path / "c.sqlite", PROMPT_VERSIONS, progress=False)
        assert posts(server) == len(requests)  # the rerun asked only for the rest
    assert block["cache_hits"] == 3 and len(verdicts) == len(requests)


def test_a_budget_reached_in_evaluate_exits_like_an_interrupted_run_and_writes_no_result(tmp_path):
    out = tmp_path / "run"
    with JudgeServer(with_cache_report) as server:
        done = evaluate(["--output-dir", str(out), "--limit", "8", "--judge-price", "1000,1000", "--judge-budget",
                         "0.2", "--judge-concurrency", "1"], server.base_url, tmp_path)
        assert done.returncode == 130, done.stderr
        assert done.stderr.count("\n") == 2 and "stopped at the Judge budget" in done.stderr
        shown = " ".join((ROOT / "docs" / "judge.md").read_text(encoding="utf-8").split())
        line = done.stderr.splitlines()[0].removeprefix("error: ")
        assert line in shown  # the message docs/judge.md quotes
        assert "no result was written" in done.stderr and not (out / "summary.json").exists()
        sent = posts(server)
        assert sent == 2 and count_replies(out / "judge_cache.sqlite") == 2
        rerun = evaluate(["--output-dir", str(out), "--limit", "8", "--judge-price", "1000,1000"], server.base_url,
                         tmp_path)
        assert rerun.returncode == 0, rerun.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["judge"]["cache_hits"] == 2
    assert summary["judge"]["cost"]["usd"] == pytest.approx((summary["judge"]["calls"]) * 0.11)


def test_the_estimate_docs_judge_md_shows_is_the_one_the_bundled_set_gives(tmp_path):
    shown = (ROOT / "docs" / "judge.md").read_text(encoding="utf-8")
    with JudgeServer(lambda request: pytest.fail("contacted")) as silent:
        done = evaluate(["--output-dir", str(tmp_path / "run"), "--estimate", "--judge-price", "1.25,10"],
                        silent.base_url, tmp_path)
    assert done.returncode == 0 and done.stdout.count("\n") == 5
    assert "```\n" + done.stdout + "```" in shown
