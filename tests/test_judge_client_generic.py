"""The Judge client's generic paths that its mutation sample found unpinned (issue 37): a number too
long for any int() limit, the progress bar's count, the /models probe's cap, a Batch prefill's
block and cost, --quiet's pace, notices pushed out as they are written. Each test asks through the generic client (JudgeRequest with its own validator,
run_judge_prompts / ask_prompts) against the stand-in Judge, so it holds whatever prompts and
validators a benchmark brings."""

from __future__ import annotations

import asyncio
import io
import re
import sys
import threading
from dataclasses import replace

import pytest

from eval import judge_client
from eval.judge import models as judge_models
from eval.errors import ConfigError
from eval.judge_client import (JudgeRequest, VerdictError, ask_prompts, parse_verdict_object,
                               run_judge_prompts)
from eval.config import JudgeSettings
from eval.judge.cost import BATCH_DISCOUNT, Price
from conftest import count_replies
from judge_server import JudgeServer, Reply, constant_handler

KEY = "sk-judge-generic-0123456789abcdef"
VERSIONS = {"v": "v-test"}


def validate_v(text: str) -> dict:
    """A verdict `{"v": 0 or 1}`: any benchmark's validator has this shape (text in, verdict or VerdictError out)."""
    obj = parse_verdict_object(text)
    if set(obj) != {"v"} or obj["v"] not in (0, 1) or isinstance(obj["v"], bool):
        raise VerdictError('not {"v": 0 or 1}')
    return {"v": obj["v"]}


REQUESTS = [JudgeRequest(f"c{number}", "v", f"prompt {number}", validate_v) for number in range(5)]


def settings_for(server: JudgeServer, **changes) -> JudgeSettings:
    settings = JudgeSettings(model="gpt-4o-mini", api_base=server.base_url, api_key=KEY, concurrency=2,
                             max_retries=0, timeout=5.0, backoff=0.001, backoff_max=0.01)
    return replace(settings, **changes)


def test_a_number_longer_than_python_s_limit_is_no_score_even_with_the_limit_lifted():
    """4,301 digits is no score whether or not the interpreter limits int() (PYTHONINTMAXSTRDIGITS=0
    lifts the limit); 4,300 digits is still read as a number (which no validator takes as a score)."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        with pytest.raises(VerdictError, match="a number of 4,301 digits is not a score"):
            parse_verdict_object('{"v": ' + "9" * 4301 + "}")
        with pytest.raises(VerdictError, match="a number of 4,301 digits is not a score"):
            parse_verdict_object('{"v": -' + "9" * 4301 + "}")
        assert parse_verdict_object('{"v": 1' + "0" * 4299 + "}") == {"v": 10 ** 4299}
    finally:
        sys.set_int_max_str_digits(before)


class _ShortTicks:
    """judge_client's `asyncio` with every sleep cut to 5 ms: the watcher, which refreshes the bar
    once a second, ticks many times within a run of a fraction of a second."""

    def __getattr__(self, name: str):
        return getattr(asyncio, name)

    @staticmethod
    async def sleep(seconds: float) -> None:
        await asyncio.sleep(min(seconds, 0.005))


def last_bar(err: str) -> str:
    """The bar's last rendering (tqdm redraws it in place after carriage returns)."""
    drawn = [part for part in re.split(r"[\r\n]", err) if part.startswith("Judge:") and "|" in part]
    assert drawn, err
    return drawn[-1]


def test_the_bar_counts_each_verdict_once_however_often_the_watcher_refreshes_it(tmp_path, capfd, monkeypatch):
    monkeypatch.setattr(judge_client, "asyncio", _ShortTicks())
    with JudgeServer(constant_handler('{"v": 1}'), latency=0.05) as server:
        verdicts, block = run_judge_prompts(REQUESTS, settings_for(server), tmp_path / "c.sqlite", VERSIONS)
    assert verdicts == {(request.case_id, "v"): {"v": 1} for request in REQUESTS}
    bar = last_bar(capfd.readouterr().err)
    assert " 5/5 " in bar and "calls=5, cached=0, failed=0" in bar, bar


def test_requests_stopped_by_an_abort_are_not_counted_done(tmp_path, capfd):
    """A rejected key aborts the run; the requests that were waiting stop without a verdict, and the
    bar says none was done."""
    with JudgeServer(lambda request: Reply(401, {"error": {"message": "bad key"}})) as server:
        with pytest.raises(ConfigError, match="HTTP 401"):
            run_judge_prompts(REQUESTS, settings_for(server, concurrency=1), tmp_path / "c.sqlite", VERSIONS)
        assert len(server.judge_requests()) == 1
    assert " 0/5 " in last_bar(capfd.readouterr().err)


def test_the_models_probe_waits_at_most_ten_seconds(tmp_path, monkeypatch):
    """The one GET /models before the first request is never fatal and never holds a run longer than
    10 s, whatever --judge-timeout allows a verdict."""
    waits = []

    async def probe(client, url, headers, timeout):
        waits.append(timeout)
        return None

    monkeypatch.setattr(judge_models, "probe", probe)
    with JudgeServer(constant_handler('{"v": 1}')) as server:
        for number, timeout in enumerate((60.0, 10.5, 3.0)):
            run_judge_prompts(REQUESTS[:1], settings_for(server, timeout=timeout), tmp_path / f"c{number}.sqlite",
                              VERSIONS, progress=False)
    assert waits == [10.0, 10.0, 3.0]


class _Prefilled:
    """What a prefill (eval/run/judge_batch.py) returns: its block for the summary and the usage it paid
    for at the Batch price."""

    usage = {"v": {"replies": 1, "input_tokens": 1_000_000, "output_tokens": 0, "total_tokens": 1_000_000}}

    def block(self) -> dict:
        return {"jobs": 1, "requests": 0}


def test_a_prefill_s_block_and_usage_reach_the_judge_block(tmp_path):
    prefills = []

    def prefill(requests, settings, shape, cache, notify):
        prefills.append(len(requests))
        return _Prefilled()

    price = Price(input=2.0, output=8.0)
    with JudgeServer(constant_handler('{"v": 1}')) as server:
        unpriced = ask_prompts(REQUESTS, settings_for(server), tmp_path / "a.sqlite", VERSIONS, progress=False,
                               prefill=prefill)
        priced = ask_prompts(REQUESTS, settings_for(server, price=price), tmp_path / "b.sqlite", VERSIONS,
                             progress=False, prefill=prefill)
        alone = ask_prompts(REQUESTS, settings_for(server, price=price), tmp_path / "c.sqlite", VERSIONS,
                            progress=False)
    assert prefills == [5, 5]
    assert unpriced.block["batch"] == priced.block["batch"] == {"jobs": 1, "requests": 0}
    assert "cost" not in unpriced.block and "batch" not in alone.block
    assert priced.block["usage"] == alone.block["usage"]  # the same five online replies
    # the Batch's million input tokens at half the $2 input price, on top of the online replies' cost
    assert priced.block["cost"]["usd"] == pytest.approx(alone.block["cost"]["usd"] + BATCH_DISCOUNT * 2.0)


def test_a_reply_that_quotes_the_key_is_used_but_never_cached(tmp_path, capfd):
    """The verdict is read off the reply as it came; the reply is not kept in the cache (a redacted
    copy could read as another verdict), so a rerun asks again."""
    def validate_noted(text: str) -> dict:
        return {"v": parse_verdict_object(text)["v"]}

    request = JudgeRequest("c0", "v", "prompt 0", validate_noted)
    with JudgeServer(constant_handler('{"v": 1, "note": "your key is ' + KEY + '"}')) as server:
        for _ in range(2):
            verdicts, _ = run_judge_prompts([request], settings_for(server), tmp_path / "c.sqlite", VERSIONS,
                                            progress=False)
            assert verdicts == {("c0", "v"): {"v": 1}}
            assert verdicts.replies[("c0", "v")]["reply"] == '{"v": 1, "note": "your key is [redacted]"}'
        assert len(server.judge_requests()) == 2
    assert count_replies(tmp_path / "c.sqlite") == 0
    assert capfd.readouterr().err.count("a reply quotes an API key") == 2  # once per run


def test_a_reply_without_usage_counts_as_a_reply_of_no_tokens(tmp_path):
    """A provider that reports no `usage` adds a reply and zero tokens to the summary, never a negative count."""
    def handler(request):
        return Reply(body={"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"v": 0}'},
                                        "finish_reason": "stop"}]})
    with JudgeServer(handler) as server:
        verdicts, block = run_judge_prompts(REQUESTS[:2], settings_for(server), tmp_path / "c.sqlite", VERSIONS,
                                            progress=False)
    assert verdicts == {("c0", "v"): {"v": 0}, ("c1", "v"): {"v": 0}}
    assert block["usage"] == {"v": {"replies": 2, "input_tokens": 0, "output_tokens": 0, "total_tokens": 0}}


def test_a_rejected_reasoning_effort_is_named_as_such(tmp_path):
    """A Responses model's 400 about the effort says which effort was refused and which to try,
    not the general list of settings that often cause a 400."""
    error = {"error": {"message": "Unsupported value: 'reasoning.effort' does not support 'none' with this model.",
                       "type": "invalid_request_error", "param": "reasoning.effort"}}
    with JudgeServer(lambda request: Reply(400, error)) as server:
        with pytest.raises(ConfigError) as caught:
            run_judge_prompts(REQUESTS[:1], settings_for(server, model="gpt-5"), tmp_path / "c.sqlite", VERSIONS,
                              progress=False)
    assert caught.value.message.startswith("the Judge model gpt-5 rejected reasoning effort 'none' (HTTP 400: ")
    assert caught.value.hint.startswith("choose an effort this model supports with --judge-reasoning-effort")


def test_notices_reach_a_block_buffered_stderr_as_they_are_written(tmp_path, monkeypatch):
    """Without the bar, each notice (the served model is another; a reply quotes the key) is pushed
    out as it is written, even to a block-buffered stderr (a caller's log stream): a long run's
    warnings never wait in a buffer until the run ends, or until a later line flushes them."""
    request = JudgeRequest("c0", "v", "prompt 0", lambda text: {"v": parse_verdict_object(text)["v"]})
    for models, reply, notice in ((["another-model"], '{"v": 1}',
                                   "warning: the Judge server lists 'another-model', not 'gpt-4o-mini'"),
                                  (None, '{"v": 1, "note": "' + KEY + '"}', "Judge: a reply quotes an API key")):
        raw = io.BytesIO()
        monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(raw, encoding="utf-8", line_buffering=False))
        with JudgeServer(constant_handler(reply)) as server:
            server.models = models
            verdicts, _ = run_judge_prompts([request], settings_for(server), tmp_path / f"{notice[:5]}.sqlite",
                                            VERSIONS, progress=False)
        assert verdicts == {("c0", "v"): {"v": 1}}
        assert notice in raw.getvalue().decode("utf-8")  # what reached the stream, before any flush of the wrapper


class _FiveSecondClock:
    """judge_client's `time`: each reading is 5 s after the last, so the watcher's ticks stand for
    minutes of a run that takes a fraction of a second."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 5.0
        return self.now


def test_without_the_bar_a_progress_line_comes_once_a_minute_while_nothing_holds_the_run(tmp_path, monkeypatch):
    """--quiet: while the provider answers (no state line), the progress line comes every 60 s of
    the run's clock, not every 10 s (that pace is for a run held up)."""
    clock = _FiveSecondClock()
    lines: list[tuple[float, str]] = []
    monkeypatch.setattr(judge_client, "time", clock)
    monkeypatch.setattr(judge_client, "asyncio", _ShortTicks())
    monkeypatch.setattr(judge_client, "print", lambda *parts, **_: lines.append((clock.now, " ".join(parts))),
                        raising=False)
    answer = constant_handler('{"v": 1}')

    def handler(request):
        for _ in range(10_000):  # the reply waits until the run's clock has passed 400 s (at most 10 s)
            if clock.now >= 400:
                break
            threading.Event().wait(0.001)
        return answer(request)
    with JudgeServer(handler) as server:
        verdicts, _ = run_judge_prompts(REQUESTS[:1], settings_for(server), tmp_path / "c.sqlite", VERSIONS,
                                        progress=False)
    assert verdicts == {("c0", "v"): {"v": 1}}
    times = [at for at, line in lines if line.startswith("Judge: 0/1 done, 1 in flight")]
    assert len(times) >= 5 and times[0] >= 60
    assert all(later - earlier == 60 for earlier, later in zip(times, times[1:]))
