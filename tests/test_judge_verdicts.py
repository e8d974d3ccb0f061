"""The Judge client's pure parts: routing, request shapes, strict verdicts, reply parsing (SPEC §10)."""

from __future__ import annotations

import json

import httpx
import pytest

from eval.judge_client import (
    IncompleteReply,
    ProviderFailure,
    VerdictError,
    endpoint_url,
    reply_text,
    request_body,
)
from eval.config import JudgeSettings
from eval.providers.openai_api import public_host
from eval.providers.health import retry_after_seconds
from eval.insttrans.verdicts import soft_validator, validate_quality
from eval.providers.openai_api import uses_responses_endpoint
from judge_server import text_reply


def settings(model: str = "gpt-5.6-sol", **changes) -> JudgeSettings:
    return JudgeSettings(model=model, api_base="https://judge.example/v1", api_key="sk-test-key", **changes)


@pytest.mark.parametrize("model, responses", [
    ("gpt-5.6-sol", True), ("GPT-5", True), ("gpt-5-mini", True), ("gpt-6", True),
    ("o1", True), ("o1-preview", True), ("o3-mini", True), ("O4-mini", True),
    ("openai/gpt-5.6-sol", True), ("azure/eu/o3", True), ("OpenAI/GPT-5.1", True),
    ("gpt-4o", False), ("gpt-4.1-mini", False), ("gpt-oss-120b", False), ("qwen3-32b", False),
    ("gemini-2.5-flash", False), ("o3/gpt-4o", False), ("gpt-5-router/llama-3", False),
    ("meta/llama-3.1-70b", False), ("", False),
])
def test_the_last_name_segment_decides_the_endpoint(model, responses):
    assert uses_responses_endpoint(model) is responses


@pytest.mark.parametrize("model, path, expected", [
    ("gpt-5.6-sol", "/v1/responses", {"model": "gpt-5.6-sol", "max_output_tokens": 4096,
                                      "reasoning": {"effort": "none"}, "store": False}),
    ("gpt-4o", "/v1/chat/completions", {"model": "gpt-4o", "temperature": 0, "max_tokens": 2048}),
])
def test_request_shape_follows_the_model_name(model, path, expected):
    body = json.loads(request_body(settings(model), "PROMPT"))
    prompt = body.pop("input") if "input" in body else body.pop("messages")
    assert body == expected
    assert prompt in ("PROMPT", [{"role": "user", "content": "PROMPT"}])
    assert httpx.URL(endpoint_url(settings(model))).path == path


def test_the_endpoint_kind_is_resolved_once_from_the_model_name(monkeypatch):
    """The settings resolve the kind when made; the request, its URL, its recorded parameters, the
    summary's judge block and a Batch line's kind read it, never the model name again (issue 37)."""
    import dataclasses

    from eval.providers import openai_api
    from eval.judge_client import JudgeStats, judge_block, recorded_params, request_params

    calls = []
    real = openai_api.endpoint_kind
    monkeypatch.setattr(openai_api, "endpoint_kind", lambda model: calls.append(model) or real(model))
    judge = settings("openai/gpt-5.6-sol", structured=True)
    assert calls == ["openai/gpt-5.6-sol"] and judge.endpoint_kind == "responses"
    request_body(judge, "PROMPT", {"type": "object"})
    endpoint_url(judge)
    recorded_params(judge)
    request_params(judge)
    block = judge_block(judge, JudgeStats(), {"quality": "q-1"})
    assert block["endpoint_kind"] == "responses" and calls == ["openai/gpt-5.6-sol"]
    chat = dataclasses.replace(judge, model="gpt-4o")  # another model: resolved anew, never carried over
    assert chat.endpoint_kind == "chat_completions" and calls == ["openai/gpt-5.6-sol", "gpt-4o"]
    assert httpx.URL(endpoint_url(chat)).path == "/v1/chat/completions"
    assert "max_tokens" in json.loads(request_body(chat, "PROMPT")) and len(calls) == 2


@pytest.mark.parametrize("base, url", [
    ("https://h.example/v1", "https://h.example/v1/responses"),
    ("https://h.example/v1/", "https://h.example/v1/responses"),
    ("https://h.example/openai/v1?api-version=2025", "https://h.example/openai/v1/responses?api-version=2025"),
])
def test_endpoint_url_appends_the_path_and_keeps_the_query(base, url):
    assert endpoint_url(JudgeSettings("gpt-5", base, "k")) == url


def test_reasoning_effort_option_reaches_the_body():
    body = json.loads(request_body(settings(reasoning_effort="low"), "P"))
    assert body["reasoning"] == {"effort": "low"}


@pytest.mark.parametrize("base, host", [
    ("https://api.example.com/v1", "https://api.example.com"),
    ("http://127.0.0.1:8000/v1?key=secret", "http://127.0.0.1:8000"),
])
def test_public_host_has_no_path_or_query(base, host):
    assert public_host(base) == host


def test_settings_repr_hides_the_key():
    assert "sk-test-key" not in repr(settings())


# --- verdicts ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, quality", [
    ('{"quality": 1}', 1.0), ('{"quality": 0}', 0.0), ('{"quality": 0.5}', 0.5),
    ('{"quality": 1.0}', 1.0), ('{"quality": 0.50}', 0.5), ('{"quality": 5e-1}', 0.5),
    ('  {"quality": 1}\n', 1.0), ('```json\n{"quality": 0.5}\n```', 0.5), ('```\n{"quality": 0}\n```', 0.0),
])
def test_valid_quality_verdicts(text, quality):
    assert validate_quality(text) == {"quality": quality}


@pytest.mark.parametrize("text", [
    '{"quality": 0.1}', '{"quality": "1"}', '{"quality": true}', '{"quality": false}',
    '{"quality": null}', '{"quality": 2}', '{"quality": -0.5}', '{"quality": [1]}',
    '{"quality": NaN}', '{"quality": Infinity}', '{}', '{"score": 1}', '{"quality": 1, "reason": "ok"}',
    '{"quality": 1, "quality": 0}', '{"quality": 1}{"quality": 1}', 'Score: {"quality": 1}',
    '{"quality": 1} because it is fine', '1', '[{"quality": 1}]', '', 'The translation is good.',
    '```json\n```json\n{"quality": 1}\n```\n```', '<think>ok</think>{"quality": 1}',
])
def test_invalid_quality_verdicts(text):
    with pytest.raises(VerdictError):
        validate_quality(text)


SOFT = soft_validator(["style_consistency", "coref_resolution"])


@pytest.mark.parametrize("text, scores", [
    ('{"scores": {"style_consistency": 1, "coref_resolution": 0.5}}', {"style_consistency": 1.0, "coref_resolution": 0.5}),
    ('{"scores": {"coref_resolution": 0, "style_consistency": 0.5}}', {"style_consistency": 0.5, "coref_resolution": 0.0}),
    ('```json\n{"scores": {"style_consistency": 0, "coref_resolution": 1}}\n```', {"style_consistency": 0.0, "coref_resolution": 1.0}),
])
def test_valid_soft_verdicts(text, scores):
    assert SOFT(text) == {"scores": scores}


@pytest.mark.parametrize("text", [
    '{"scores": {"style_consistency": 1}}',
    '{"scores": {"style_consistency": 1, "coref_resolution": 1, "term_cross_sentence": 1}}',
    '{"scores": {"style_consistency": 1, "coref_resolution": 0.1}}',
    '{"scores": {"style_consistency": "1", "coref_resolution": 1}}',
    '{"scores": {"style_consistency": true, "coref_resolution": 1}}',
    '{"scores": {"style_consistency": 1, "coref_resolution": 1, "coref_resolution": 0}}',
    '{"scores": [1, 1]}', '{"scores": 1}',
    '{"style_consistency": 1, "coref_resolution": 1}',
    '{"scores": {"style_consistency": 1, "coref_resolution": 1}, "quality": 1}',
    '{"scores": {"style_consistency": 1, "coref_resolution": 1}, "scores": {"style_consistency": 1, "coref_resolution": 1}}',
])
def test_invalid_soft_verdicts(text):
    with pytest.raises(VerdictError):
        SOFT(text)


# --- reply bodies ------------------------------------------------------------------------------

@pytest.mark.parametrize("path, kind", [("/v1/responses", "responses"), ("/v1/chat/completions", "chat_completions")])
def test_reply_text_reads_both_endpoints(path, kind):
    assert reply_text(kind, text_reply(path, '{"quality": 1}').body) == '{"quality": 1}'


def test_responses_text_joins_output_text_parts_of_message_items_only():
    body = {"status": "completed", "output": [
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "IGNORED"}]},
        {"type": "message", "content": [{"type": "output_text", "text": '{"quality"'},
                                        {"type": "output_text", "text": ": 1}"}]}]}
    assert reply_text("responses", body) == '{"quality": 1}'


@pytest.mark.parametrize("path, kind", [("/v1/responses", "responses"), ("/v1/chat/completions", "chat_completions")])
def test_incomplete_replies_are_flagged(path, kind):
    with pytest.raises(IncompleteReply):
        reply_text(kind, text_reply(path, '{"quality": 1}', incomplete=True).body)


@pytest.mark.parametrize("path, kind", [("/v1/responses", "responses"), ("/v1/chat/completions", "chat_completions")])
def test_refusals_are_invalid_verdicts(path, kind):
    with pytest.raises(VerdictError, match="refused"):
        reply_text(kind, text_reply(path, None, refusal="I can't help with that.").body)


@pytest.mark.parametrize("kind", ["responses", "chat_completions"])
def test_an_error_inside_a_200_is_a_provider_failure_not_a_verdict(kind):
    with pytest.raises(ProviderFailure, match="upstream overloaded"):
        reply_text(kind, {"error": {"message": "upstream overloaded", "code": 503}})


@pytest.mark.parametrize("headers, seconds", [
    ({"retry-after": "3"}, 3.0), ({"retry-after": "0.25"}, 0.25), ({"retry-after-ms": "150"}, 0.15),
    ({"retry-after": "soon"}, None), ({}, None), ({"retry-after": "99999"}, 600.0),
])
def test_retry_after_is_read_in_seconds(headers, seconds):
    assert retry_after_seconds(httpx.Headers(headers)) == seconds


# --- VerdictForm: what a reply must be, one typed record (issue 37) ---------------------------------

def test_a_verdict_form_carries_its_form_values_and_schema_and_validates_when_called():
    from eval.ifmtbench.prompt import validate_glossary, validate_rubric
    from eval.judge_client import VerdictForm, repair_message, verdict_form, verdict_schema

    from eval.sandglass.prompt import validate_quality as sandglass_quality

    for form in (validate_quality, soft_validator(["a", "b"]), validate_rubric, validate_glossary, sandglass_quality):
        assert isinstance(form, VerdictForm) and verdict_form(form) is form
        assert verdict_schema(form) == form.schema and form.schema["additionalProperties"] is False
        assert not any(hasattr(form.validate, name) for name in ("form", "values", "schema"))
    assert validate_quality('{"quality": 0.5}') == {"quality": 0.5}
    assert soft_validator(["a"]).form == '{"scores": {"a": S}}'
    message = repair_message(VerdictError("quality = 2 is not one of the numbers 0, 0.5, 1"), validate_glossary)
    assert message == ("Your reply is not a valid verdict: quality = 2 is not one of the numbers 0, 0.5, 1. Reply again "
                       'with exactly one JSON object of the form {"glossary": G}, where G is 1 when every term is '
                       "applied and 0 otherwise, and nothing else.")
    assert "0 to 5, or null" in repair_message(VerdictError("x"), validate_rubric)


def test_a_bare_validator_reads_as_the_general_form_without_a_schema():
    from eval.judge_client import VerdictForm, repair_message, verdict_form, verdict_schema

    def bare(text: str) -> dict:
        return {"ok": text}

    form = verdict_form(bare)
    assert form == VerdictForm(bare) and form("x") == {"ok": "x"} and verdict_schema(bare) is None
    assert repair_message(VerdictError("why"), bare) == (  # no scale of its own: none restated (no shared default)
        "Your reply is not a valid verdict: why. Reply again with exactly one JSON object of the form the JSON "
        "object the instructions above ask for, and nothing else.")
    custom = VerdictForm(bare, '{"x": X}', "X is a word", {"type": "object"})
    assert verdict_schema(custom) == {"type": "object"} and "of the form {\"x\": X}, where X is a word," in \
        repair_message(VerdictError("why"), custom)
