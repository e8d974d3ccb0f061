"""The Judge against providers as they really answer (issue 22, SPEC §10): a Judge that gives the
same invalid verdict every time, structured output on both endpoint kinds, a provider that only
rate-limits (directly, or as a gateway whose upstreams all cool down), a timeout longer than the
deadline, and a server refusing a parameter with a 500 in its own words. Every case runs against
the stand-in on 127.0.0.1 (tests/judge_server.py); timings are small, margins generous."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest

from eval.errors import ConfigError, JudgeError
from eval.insttrans.record import item_requests, judge_result
from eval.judge_client import REPAIR_VERSION, judge_block, run_judge_prompts
from eval.config import JudgeSettings
from eval.insttrans.prompts import PROMPT_VERSIONS
from eval.providers.health import ProviderDown
from eval.insttrans.verdicts import JudgeItem
from quick_health import quick_health
from judge_server import (
    JudgeServer,
    Reply,
    cooling_handler,
    dead_handler,
    hang_handler,
    invalid_handler,
    is_repair,
    only_429_handler,
    param_500_handler,
)

KEY = "sk-providers-SECRET-0123456789abcdefgh"
STYLE = ("style_consistency", "译文语体：正式，全文保持一致")


def settings_for(base_url: str, **changes) -> JudgeSettings:
    settings = JudgeSettings(model="gpt-5.6-sol", api_base=base_url, api_key=KEY, concurrency=8, max_retries=6,
                             timeout=5.0, backoff=0.01, backoff_max=0.05, deadline=2.0)
    return replace(settings, **changes)


def items(n: int) -> list[JudgeItem]:
    return [JudgeItem(f"p{i}", "zh", "en", f"你好。（{i}）", "Hello.", f"Hello number {i}.",
                      (STYLE,) if i % 2 == 0 else ()) for i in range(n)]


def judge(batch, settings, cache_path):
    requests = [request for item in batch for request in item_requests(item)]
    verdicts, block = run_judge_prompts(requests, settings, cache_path, PROMPT_VERSIONS, progress=False)
    return verdicts, block


# ---------------------------------------------------------------------------------------------
# The repair turn
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["gpt-5.6-sol", "qwen3-8b"])
def test_a_judge_invalid_every_time_completes_with_repairs_counted_and_marked(tmp_path, model):
    batch = items(4)
    with JudgeServer(invalid_handler(repairable=True)) as server:
        verdicts, block = judge(batch, settings_for(server.base_url, model=model), tmp_path / "c.sqlite")
        repairs = [request for request in server.judge_requests() if is_repair(request.body)]
    prompts = len(batch) + sum(bool(item.soft) for item in batch)
    assert len(verdicts) == prompts and len(repairs) == prompts
    assert block["repairs"] == {"quality": 4, "soft": 2}
    assert block["prompt_versions"]["repair"] == REPAIR_VERSION
    detail = verdicts.replies[("p0", "quality")]
    assert detail["repaired"] is True and detail["invalid_reply"].startswith("Quality: 1")
    conversation = repairs[0].body.get("input") or repairs[0].body.get("messages")
    assert [turn["role"] for turn in conversation] == ["user", "assistant", "user"]
    assert conversation[1]["content"].startswith("Quality: 1") and "not a valid verdict" in conversation[2]["content"]
    assert judge_result("p0", verdicts).quality == 1.0
    # the rerun serves the first reply and its repair from the cache: nothing is asked, the marks stay
    rerun_server = JudgeServer(invalid_handler(repairable=True))
    rerun_server.port = server.port
    with rerun_server:
        again, block2 = judge(batch, settings_for(rerun_server.base_url, model=model), tmp_path / "c.sqlite")
        assert rerun_server.requests == []
    assert block2["repairs"] == block["repairs"] and again.replies[("p0", "quality")]["repaired"] is True
    assert dict(again) == dict(verdicts)


def test_judge_repairs_0_restores_the_abort_on_the_first_invalid_verdict(tmp_path):
    with JudgeServer(invalid_handler(repairable=True)) as server:
        with pytest.raises(JudgeError, match="invalid Judge verdict") as caught:
            judge(items(3), settings_for(server.base_url, repairs=0, concurrency=1), tmp_path / "c.sqlite")
        assert not any(is_repair(request.body) for request in server.judge_requests())
    assert "--judge-repairs 1" in caught.value.hint and "--judge-structured" in caught.value.hint
    block = judge_block(settings_for("http://h/v1", repairs=0), type("S", (), {"calls": 0, "cache_hits": 0,
                        "retries": 0, "rate_limited": 0, "deduplicated": 0, "usage": {}, "repairs": {}})(),
                        PROMPT_VERSIONS)
    assert "repair" not in block["prompt_versions"]  # the signature of a release-like run is unchanged


def test_an_invalid_answer_to_the_repair_aborts_naming_the_case(tmp_path):
    with JudgeServer(invalid_handler(repairable=False)) as server:
        with pytest.raises(JudgeError, match=r"invalid Judge verdict for case p\d \(\w+ prompt\) after a repair turn"):
            judge(items(2), settings_for(server.base_url, concurrency=1), tmp_path / "c.sqlite")
        assert len(server.judge_requests()) >= 2


# ---------------------------------------------------------------------------------------------
# Structured output
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model, field", [("gpt-5.6-sol", "text"), ("qwen3-8b", "response_format")])
def test_judge_structured_sends_the_verdicts_schema_on_both_endpoint_kinds(tmp_path, model, field):
    with JudgeServer() as server:
        _, block = judge(items(2), settings_for(server.base_url, model=model, structured=True), tmp_path / "c.sqlite")
        bodies = [request.body for request in server.judge_requests()]
    schemas = []
    for body in bodies:
        if field == "text":
            spec = body["text"]["format"]
        else:
            assert body["response_format"]["type"] == "json_schema"
            spec = body["response_format"]["json_schema"]
        assert spec["strict"] is True and spec["name"] == "verdict"
        schemas.append(spec["schema"])
    quality = next(schema for schema in schemas if "quality" in schema["properties"])
    assert quality["properties"]["quality"]["enum"] == [0, 0.5, 1] and quality["additionalProperties"] is False
    soft = next(schema for schema in schemas if "scores" in schema["properties"])
    assert soft["properties"]["scores"]["required"] == ["style_consistency"]
    recorded = "text.format" if field == "text" else "response_format"
    assert block["params"][recorded] == "json_schema"


# ---------------------------------------------------------------------------------------------
# The deadline, whatever the mix
# ---------------------------------------------------------------------------------------------

def test_a_provider_that_only_rate_limits_aborts_within_the_deadline_with_few_requests(tmp_path, monkeypatch):
    """The health's default timings; its announced pauses pass on virtual time (tests/quick_health.py),
    on which the deadline runs too: the run gives up without waiting, on the clock it would have."""
    built = quick_health(monkeypatch, virtual_pauses=True, shorten=False)
    with JudgeServer(only_429_handler) as server:
        started = time.monotonic()
        with pytest.raises(ProviderDown) as caught:
            judge(items(200), settings_for(server.base_url, concurrency=16, deadline=1.0), tmp_path / "c.sqlite")
        elapsed = time.monotonic() - started
        sent = len(server.judge_requests())
    # a wave of at most 16, then one probe after the announced second (halving instead would send 8 more)
    assert elapsed < 1.0 + 3.0 and sent <= 20, (elapsed, sent)
    assert built[0].skew > 0 and set(built[0].waits) == {1.0}  # the announced second read, paused on the clock
    assert "answered only 429" in str(caught.value) and "--judge-deadline" in caught.value.hint


def test_a_gateway_whose_upstreams_all_cool_down_aborts_within_the_deadline(tmp_path, monkeypatch):
    built = quick_health(monkeypatch, virtual_pauses=True, shorten=False)  # as above
    with JudgeServer(cooling_handler(1)) as server:
        started = time.monotonic()
        with pytest.raises(ProviderDown) as caught:
            judge(items(200), settings_for(server.base_url, concurrency=16, deadline=1.0), tmp_path / "c.sqlite")
        elapsed = time.monotonic() - started
        sent = len(server.judge_requests())
    assert elapsed < 1.0 + 3.0 and sent <= 20, (elapsed, sent)
    assert built[0].skew > 0 and set(built[0].waits) == {1.0}
    assert "No deployments available" in str(caught.value) and "LiteLLM" in caught.value.hint


def test_a_timeout_longer_than_the_deadline_still_bounds_the_run_and_the_hint_names_the_timeout(tmp_path):
    with JudgeServer(hang_handler) as server:
        started = time.monotonic()
        with pytest.raises(ProviderDown) as caught:
            judge(items(1), settings_for(server.base_url, concurrency=1, timeout=0.4, deadline=0.2),
                  tmp_path / "c.sqlite")
        elapsed = time.monotonic() - started
    assert elapsed < 0.4 + 0.2 + 2.5, elapsed  # one timeout, then retries cut to what is left of the deadline
    assert "no complete answer within" in str(caught.value) and "--judge-timeout" in caught.value.hint
    # the retry was cut, not given the whole 0.4 s
    assert "what was left of the run's deadline; the request timeout is 0.4 s" in str(caught.value)
    assert len(server.judge_requests()) >= 2


def test_a_server_refusing_a_parameter_with_a_500_is_one_configuration_error_in_its_own_words(tmp_path):
    with JudgeServer(param_500_handler) as server:
        started = time.monotonic()
        with pytest.raises(ConfigError) as caught:
            judge(items(2), settings_for(server.base_url, concurrency=1), tmp_path / "c.sqlite")
        assert time.monotonic() - started < 3.0 and len(server.judge_requests()) == 1  # not retried
    message = str(caught.value)
    assert "not answering" not in message and "refused the request (HTTP 500" in message
    assert "Extra inputs are not permitted" in message and "up" in caught.value.hint and caught.value.exit_status == 2


def test_a_server_refusing_the_structured_form_names_the_flag(tmp_path):
    def handler(request):
        return Reply(500, {"error": {"message": "1 validation error: {'type': 'literal_error', 'loc': ('body', "
                                                "'response_format', 'type'), 'msg': \"Input should be 'text' or "
                                                "'json_object'\"}"}})
    with JudgeServer(handler) as server:
        with pytest.raises(ConfigError) as caught:
            judge(items(1), settings_for(server.base_url, model="qwen3-8b", structured=True), tmp_path / "c.sqlite")
    assert "--judge-structured json_object" in caught.value.hint


def test_a_dead_provider_answering_500s_is_reported_in_its_words_not_as_silent(tmp_path):
    with JudgeServer(dead_handler) as server:
        with pytest.raises(ProviderDown) as caught:
            judge(items(2), settings_for(server.base_url, deadline=0.8), tmp_path / "c.sqlite")
    assert "failed every request: HTTP 500: upstream connect error" in str(caught.value)
    assert "server is up" in caught.value.hint


def test_the_block_records_structured_and_repairs_as_json(tmp_path):
    with JudgeServer() as server:
        _, block = judge(items(1), settings_for(server.base_url, structured=True, model="qwen3-8b"),
                         tmp_path / "c.sqlite")
    assert json.loads(json.dumps(block))["repairs"] == {}
