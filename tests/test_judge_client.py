"""The Judge client against a real local HTTP server: shapes, verdicts, retries, aborts, cache (SPEC §10)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import replace

import pytest

from eval.errors import ConfigError, JudgeError
from conftest import count_replies
from eval.insttrans.record import item_requests, judge_result
from eval.judge_client import run_judge_prompts
from eval.config import JudgeSettings
from eval.providers.openai_api import public_host
from eval.insttrans.prompts import PROMPT_VERSIONS
from eval.insttrans.verdicts import JudgeItem
from quick_health import quick_health
from judge_server import (
    JudgeServer,
    Reply,
    candidate_of,
    default_handler,
    is_soft_prompt,
    text_reply,
    verdict_text,
)

KEY = "sk-judge-test-0123456789abcdef"
STYLE = ("style_consistency", "译文语体：正式，全文保持一致")
COREF = ("coref_resolution", '指代一致：文中的"她"均指林晓')


@pytest.fixture
def quick(monkeypatch):
    """The run's provider health with short cool-downs (tests/quick_health.py): a 429 before any
    success waits 0.05, 0.1, 0.2 s between probes instead of 1, 2, 4 s."""
    return quick_health(monkeypatch)


def make_item(case_id: str, prediction: str = "Hello.", soft=(STYLE,)) -> JudgeItem:
    return JudgeItem(case_id, "zh", "en", f"你好。（{case_id}）", "Hello.", f"{prediction} ({case_id})", tuple(soft))


ITEMS = [make_item("a"), make_item("b", "Hi. [q=0.5] [s=0]", (STYLE, COREF)),
         make_item("c", "Hey. [q=0]", ()), make_item("d", "Hello there. [s=0.5]", (COREF,))]
EXPECTED = {"a": (1.0, {"style_consistency": 1.0}),
            "b": (0.5, {"style_consistency": 0.0, "coref_resolution": 0.0}),
            "c": (0.0, {}), "d": (1.0, {"coref_resolution": 0.5})}
N_REQUESTS = 7  # four quality prompts, three soft prompts


def judge_instances(items, settings, cache_path, progress=False):
    """Both InstTrans prompts of every item through the client: (results by case_id, judge block)."""
    requests = [request for item in items for request in item_requests(item)]
    verdicts, block = run_judge_prompts(requests, settings, cache_path, PROMPT_VERSIONS, progress)
    return {item.case_id: judge_result(item.case_id, verdicts) for item in items}, block


def run(server: JudgeServer, tmp_path, items=ITEMS, model: str = "gpt-5.6-sol", cache_name: str = "cache.sqlite",
        **changes):
    settings = JudgeSettings(model=model, api_base=server.base_url, api_key=KEY, concurrency=4,
                             max_retries=3, timeout=5.0, backoff=0.001, backoff_max=0.01)
    settings = replace(settings, **changes)
    return judge_instances(items, settings, tmp_path / cache_name, progress=False)


def simplified(results) -> dict:
    return {case_id: (result.quality, result.soft) for case_id, result in results.items()}


def failing_for(case_id: str, prompt_name: str, reply: Reply):
    """A handler that answers validly except for one prompt ("quality" or "soft") of one case."""
    def handler(request):
        prompt = request.prompt
        if f"({case_id})" in candidate_of(prompt) and is_soft_prompt(prompt) == (prompt_name == "soft"):
            return reply
        return default_handler(request)
    return handler


@pytest.mark.parametrize("model, kind, path, expected", [
    ("gpt-5.6-sol", "responses", "/v1/responses",
     {"model": "gpt-5.6-sol", "max_output_tokens": 4096, "reasoning": {"effort": "none"}, "store": False}),
    ("openai/o3-mini", "responses", "/v1/responses",
     {"model": "openai/o3-mini", "max_output_tokens": 4096, "reasoning": {"effort": "none"}, "store": False}),
    ("gpt-4o-mini", "chat_completions", "/v1/chat/completions",
     {"model": "gpt-4o-mini", "temperature": 0, "max_tokens": 2048}),
])
def test_request_shape_on_the_wire(tmp_path, model, kind, path, expected):
    with JudgeServer() as server:
        results, block = run(server, tmp_path, model=model)
    assert simplified(results) == EXPECTED
    assert len(server.requests) == N_REQUESTS
    for request in server.requests:
        body = request.body
        prompt = body.pop("input") if "input" in body else body.pop("messages")[0]["content"]
        assert request.path == path and body == expected and prompt
        assert request.headers["authorization"] == f"Bearer {KEY}"
    assert block["endpoint_kind"] == kind
    assert block["params"] == {name: value for name, value in expected.items() if name != "model"}


def test_valid_verdicts_flow_into_results_and_the_block(tmp_path):
    with JudgeServer() as server:
        results, block = run(server, tmp_path)
    assert simplified(results) == EXPECTED
    assert block["model"] == "gpt-5.6-sol" and block["host"] == server.base_url.rsplit("/v1", 1)[0]
    assert block["prompt_versions"] == {"quality": "quality-1", "soft": "soft-1", "repair": "repair-1"}
    assert (block["calls"], block["cache_hits"], block["retries"]) == (N_REQUESTS, 0, 0)


INVALID_QUALITY = ['{"quality": 0.1}', '{"quality": "1"}', '{"quality": true}', 'Quality: 1',
                   '{"quality": 1}\n{"quality": 1}', '{"quality": 1, "quality": 1}', '{"score": 1}', '']
INVALID_SOFT = ['{"scores": {"style_consistency": 1}}',
                '{"scores": {"style_consistency": 1, "coref_resolution": 1, "academic_format_preserve": 1}}',
                '{"scores": {"style_consistency": 0.1, "coref_resolution": 1}}',
                '{"scores": {"style_consistency": false, "coref_resolution": 1}}']


@pytest.mark.parametrize("model", ["gpt-5.6-sol", "gpt-4o"])
@pytest.mark.parametrize("text", INVALID_QUALITY)
def test_an_invalid_quality_verdict_aborts_naming_the_case(tmp_path, model, text):
    path = "/v1/responses" if model.startswith("gpt-5") else "/v1/chat/completions"
    with JudgeServer(failing_for("b", "quality", text_reply(path, text))) as server:
        with pytest.raises(JudgeError, match=r"case b \(quality prompt\)") as caught:
            run(server, tmp_path, model=model)
    assert caught.value.exit_status == 3


@pytest.mark.parametrize("text", INVALID_SOFT)
def test_an_invalid_soft_verdict_aborts_naming_the_case(tmp_path, text):
    with JudgeServer(failing_for("b", "soft", text_reply("/v1/responses", text))) as server:
        with pytest.raises(JudgeError, match=r"case b \(soft prompt\)"):
            run(server, tmp_path)


@pytest.mark.parametrize("model", ["gpt-5.6-sol", "gpt-4o"])
@pytest.mark.parametrize("reply", ["refusal", "incomplete"])
def test_refusals_and_incomplete_replies_abort(tmp_path, model, reply):
    def handler(request):
        if "(d)" in candidate_of(request.prompt):
            if reply == "refusal":
                return text_reply(request.path, None, refusal="I cannot assess this.")
            return text_reply(request.path, '{"quality": 1', incomplete=True)
        return default_handler(request)
    with JudgeServer(handler) as server:
        with pytest.raises(JudgeError, match="case d") as caught:
            run(server, tmp_path, model=model)
    assert ("incomplete" in str(caught.value)) is (reply == "incomplete")


def flaky_handler(failures: list[Reply]):
    """Answer the first requests with `failures`, in order, then validly."""
    queue = list(failures)

    def handler(request):
        return queue.pop(0) if queue else default_handler(request)
    return handler


@pytest.mark.parametrize("failures", [
    [Reply(429, {"error": {"message": "rate limited"}}, {"Retry-After": "0"})] * 3,
    [Reply(500, "oops"), Reply(502, "bad gateway"), Reply(503, {"error": "busy"})],
    [Reply(408, "timeout"), Reply(409, "conflict"), Reply(429, "slow down", {"retry-after-ms": "5"})],
    [Reply(drop=True), Reply(drop=True)],
    [Reply(delay=2.0)],
    [Reply(200, {"error": {"message": "upstream overloaded"}})],  # a failure reported inside a 200
])
def test_transient_failures_are_retried_and_give_the_same_scores(tmp_path, failures, quick):
    with JudgeServer(flaky_handler(failures)) as server:
        results, block = run(server, tmp_path, concurrency=1, timeout=0.5)
    assert simplified(results) == EXPECTED
    assert block["retries"] == len(failures) and block["calls"] == N_REQUESTS + len(failures)
    assert len(server.requests) == N_REQUESTS + len(failures)


def test_retry_after_is_honoured(tmp_path, quick):
    with JudgeServer(flaky_handler([Reply(429, "wait", {"Retry-After": "0.3"})])) as server:
        run(server, tmp_path, items=[ITEMS[2]], concurrency=1, backoff=0.0)
    first, second = server.requests[:2]
    assert second.received_at - first.received_at >= 0.3


def test_a_persistent_500_aborts_after_the_last_retry(tmp_path):
    with JudgeServer(failing_for("c", "quality", Reply(500, {"error": {"message": "internal"}}))) as server:
        with pytest.raises(JudgeError, match=r"case c \(quality prompt\).*HTTP 500.*after 3 attempts"):
            run(server, tmp_path, max_retries=2, concurrency=1)
    assert sum("(c)" in candidate_of(request.prompt) for request in server.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_abort_at_once_with_the_provider_message(tmp_path, status, capfd):
    message = f"request rejected for key {KEY}"
    with JudgeServer(lambda request: Reply(status, {"error": {"message": message}})) as server:
        with pytest.raises(ConfigError, match=f"HTTP {status}: request rejected") as caught:
            run(server, tmp_path, concurrency=1)
    assert len(server.requests) == 1
    assert KEY not in str(caught.value) and caught.value.exit_status == 2
    assert KEY not in "".join(capfd.readouterr())


def test_other_client_errors_abort_without_retry(tmp_path):
    with JudgeServer(lambda request: Reply(422, {"error": {"message": "unprocessable"}})) as server:
        with pytest.raises(JudgeError, match=r"HTTP 422 for case a \(quality prompt\): unprocessable"):
            run(server, tmp_path, concurrency=1)
    assert len(server.requests) == 1


def test_a_body_that_is_not_json_aborts(tmp_path):
    with JudgeServer(lambda request: Reply(200, "<html>gateway login</html>")) as server:
        with pytest.raises(JudgeError, match=r"not JSON for case a \(quality prompt\)"):
            run(server, tmp_path, concurrency=1)
    assert len(server.requests) == 1


def test_the_progress_bar_shows_calls_cache_hits_and_failures(tmp_path, capfd):
    settings = JudgeSettings(model="gpt-5.6-sol", api_base="", api_key=KEY, backoff=0.001)
    with JudgeServer(flaky_handler([Reply(503, "busy")])) as server:
        settings = replace(settings, api_base=server.base_url)
        judge_instances(ITEMS, settings, tmp_path / "cache.sqlite", progress=True)
    err = capfd.readouterr().err
    assert "Judge" in err and f"calls={N_REQUESTS + 1}" in err and "cached=0" in err and "failed=1" in err
    assert KEY not in err


def test_a_rejected_reasoning_effort_is_one_configuration_error(tmp_path):
    error = {"error": {"message": "Unsupported value: 'reasoning.effort' does not support 'none' with this "
                                  "model. Supported values are: 'low', 'medium', and 'high'.",
                       "type": "invalid_request_error", "param": "reasoning.effort", "code": "unsupported_value"}}
    with JudgeServer(lambda request: Reply(400, error)) as server:
        with pytest.raises(ConfigError, match="--judge-reasoning-effort") as caught:
            run(server, tmp_path, model="gpt-5", concurrency=1)
    assert len(server.requests) == 1 and "'none'" in str(caught.value)


def test_an_aborted_run_resumes_from_the_cache_and_asks_only_for_the_rest(tmp_path):
    with JudgeServer(failing_for("c", "quality", Reply(500, "down"))) as server:
        with pytest.raises(JudgeError, match="case c"):
            run(server, tmp_path, max_retries=0, concurrency=1)
        kept = count_replies(tmp_path / "cache.sqlite")
        assert 0 < kept < N_REQUESTS
        server.handler, server.requests = default_handler, []  # same URL, so the same cache keys
        results, block = run(server, tmp_path)
        assert simplified(results) == EXPECTED
        assert len(server.requests) == block["calls"] == N_REQUESTS - kept
        assert block["cache_hits"] == kept
        server.requests = []
        results, block = run(server, tmp_path)
    assert simplified(results) == EXPECTED and server.requests == [] and block["cache_hits"] == N_REQUESTS


@pytest.mark.parametrize("first, second", [
    ({"model": "gpt-5.6-sol"}, {"model": "gpt-5.5"}),
    ({"model": "gpt-5.6-sol"}, {"model": "gpt-5.6-sol", "reasoning_effort": "low"}),
    ({"model": "gpt-4o"}, {"model": "gpt-4.1"}),
    ({"model": "gpt-5.6-sol"}, {"model": "openai/gpt-5.6-sol"}),
])
def test_switching_model_or_parameters_does_not_reuse_verdicts(tmp_path, first, second):
    with JudgeServer() as server:
        run(server, tmp_path, **first)
        assert len(server.requests) == N_REQUESTS
        run(server, tmp_path, **first)
        assert len(server.requests) == N_REQUESTS
        run(server, tmp_path, **second)
        assert len(server.requests) == 2 * N_REQUESTS


def test_identical_requests_in_flight_are_sent_once(tmp_path):
    twins = [JudgeItem(case_id, "zh", "en", "你好。", "Hello.", "Hello. [q=0.5]", (STYLE,)) for case_id in ("x", "y", "z")]
    with JudgeServer(latency=0.05) as server:
        results, block = run(server, tmp_path, items=twins)
    assert len(server.requests) == 2 and block["deduplicated"] == 4
    assert {result.quality for result in results.values()} == {0.5} and set(results) == {"x", "y", "z"}


def test_concurrency_is_bounded(tmp_path):
    items = [make_item(f"n{i}") for i in range(12)]
    with JudgeServer(latency=0.05) as server:
        run(server, tmp_path, items=items, concurrency=3)
    assert 1 < server.max_in_flight <= 3  # parallel, never past the bound (exactly 3 unless the machine stalls)


def test_the_cache_holds_prompts_and_replies_but_never_the_key(tmp_path):
    with JudgeServer() as server:
        run(server, tmp_path)
    for path in tmp_path.iterdir():
        assert KEY.encode() not in path.read_bytes()
    import sqlite3
    rows = sqlite3.connect(tmp_path / "cache.sqlite").execute("SELECT request, reply FROM judge_replies").fetchall()
    assert len(rows) == N_REQUESTS
    assert all(json.loads(reply) == json.loads(verdict_text(json.loads(request).get("input")))
               for request, reply in rows)


def test_verdicts_arriving_before_an_abort_are_kept(tmp_path):
    def handler(request):
        reply = failing_for("a", "quality", Reply(500, "down"))(request)
        if reply.status == 200:
            reply.delay = 0.1
        return reply
    with JudgeServer(handler) as server:
        started = time.monotonic()
        with pytest.raises(JudgeError):
            run(server, tmp_path, max_retries=0, concurrency=8)
    assert time.monotonic() - started < 5  # no waiting for retries or for the rest of the queue
    assert count_replies(tmp_path / "cache.sqlite") == N_REQUESTS - 1


def test_a_prompt_too_long_for_the_judge_aborts_naming_the_case(tmp_path):
    too_long = Reply(400, {"error": {"message": "This model's maximum context length is 8192 tokens"}})
    with JudgeServer(failing_for("b", "quality", too_long)) as server:
        with pytest.raises(JudgeError, match="case b .*longer than its context window"):
            run(server, tmp_path)


def test_the_quiet_progress_line_counts_the_verdicts_done(tmp_path, monkeypatch, capsys):
    """Without a bar, a line now and then says how many verdicts are done: here one every 0.05 s
    (1 s in use), counting up, and while d's two are held, all but those two. d's replies are let
    go once the module has printed that line (or after 10 s, so a run that never prints it fails
    rather than hangs), not after a guessed delay."""
    import builtins
    import threading

    import eval.judge_client as judge_client
    monkeypatch.setattr(judge_client, "QUIET_PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(judge_client, "QUIET_STATE_EVERY_S", 0.0)
    monkeypatch.setattr(judge_client, "WATCH_EVERY_S", 0.05)
    shown = threading.Event()

    def printed(*args, **kwargs):
        builtins.print(*args, **kwargs)
        if args and str(args[0]).startswith(f"Judge: {N_REQUESTS - 2}/{N_REQUESTS} done, 2 in flight"):
            shown.set()
    monkeypatch.setattr(judge_client, "print", printed, raising=False)  # the module's own print, not the builtin
    fallback = threading.Timer(10.0, shown.set)
    fallback.start()

    def handler(request):
        reply = default_handler(request)
        reply.release = shown if "(d)" in candidate_of(request.prompt) else None
        return reply
    try:
        with JudgeServer(handler) as server:
            results, _ = run(server, tmp_path, concurrency=8)
    finally:
        fallback.cancel()
    assert simplified(results) == EXPECTED
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("Judge: ")]
    done = [int(re.match(r"Judge: (\d+)/", line).group(1)) for line in lines]
    assert lines and done == sorted(done)
    assert any(line.startswith(f"Judge: {N_REQUESTS - 2}/{N_REQUESTS} done, 2 in flight") for line in lines)


def test_after_an_abort_verdicts_in_flight_land_within_the_grace_and_no_later(tmp_path, monkeypatch):
    """ABORT_GRACE_S (10 s in use), made 1 s here, with a timeout longer than the grace. The replies
    are held and let go in order, not after guessed delays: a's 500 once every request has started,
    b's two as the abort is recorded (so they land after it, within the grace), d's two by a timer
    on the run's own event loop a twentieth of a second after the grace's (timers fire in order,
    so the grace has cancelled them first; without it they would land and be cached)."""
    import threading

    import eval.judge_client as judge_client

    assert judge_client.ABORT_GRACE_S == 10.0  # the documented grace (docs/judge-faults.md)
    grace = 1.0
    monkeypatch.setattr(judge_client, "ABORT_GRACE_S", grace)
    started, within, after = threading.Event(), threading.Event(), threading.Event()
    aborts: list[float] = []
    abort = judge_client._abort

    def recorded_abort(session, error):
        first = session.first_error is None
        result = abort(session, error)
        if first:
            aborts.append(time.monotonic())
            within.set()
            asyncio.get_running_loop().call_later(grace + 0.05, after.set)
        return result
    monkeypatch.setattr(judge_client, "_abort", recorded_abort)

    def handler(request):
        if len(server.requests) == N_REQUESTS:
            started.set()
        candidate = candidate_of(request.prompt)
        if "(a)" in candidate and not is_soft_prompt(request.prompt):
            return Reply(500, "down", release=started)  # every request has started when the run aborts
        reply = default_handler(request)
        reply.release = within if "(b)" in candidate else after if "(d)" in candidate else None
        return reply
    with JudgeServer(handler) as server:
        with pytest.raises(JudgeError, match="case a"):
            run(server, tmp_path, max_retries=0, concurrency=8, timeout=30.0)
        assert len(server.requests) == N_REQUESTS and len(aborts) == 1 and not after.is_set()
    # a's soft verdict and c's at once, b's two within the grace; d's two cancelled
    assert count_replies(tmp_path / "cache.sqlite") == 4


@pytest.mark.parametrize("progress", [True, False])
def test_a_provider_notice_reaches_stderr_with_and_without_the_bar(tmp_path, capsys, progress, monkeypatch):
    built = quick_health(monkeypatch, virtual_pauses=True)  # the announced 2 s pass at once on the health's clock

    def handler(request):
        if len(server.requests) == 1:
            return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "2"})
        return default_handler(request)
    with JudgeServer(handler) as server:
        settings = JudgeSettings(model="gpt-5.6-sol", api_base=server.base_url, api_key=KEY, concurrency=1,
                                 max_retries=3, timeout=5.0, backoff=0.001, backoff_max=0.01)
        results, _ = judge_instances(ITEMS[:1], settings, tmp_path / "cache.sqlite", progress=progress)
    assert simplified(results) == {"a": EXPECTED["a"]} and built[0].skew >= 1.9
    assert f"Judge: rate limited by {public_host(server.base_url)}, resuming in 2 s" in capsys.readouterr().err
