"""predict.py against servers as they really answer (issue 22, SPEC §13): a misspelt --model the
server answers anyway, LiteLLM in front (upstream model and engine headers, <think> blocks
stripped from the content), a 400 for a bad key, a parameter refused with a 500 in the server's
own words, and what eval/providers/openai_api.py reads out of odd bodies (content parts with null text,
negative token counts). Real stand-ins on 127.0.0.1 (tests/model_server.py)."""

from __future__ import annotations

import json

import pytest

from eval.errors import HarnessError
from eval.providers.openai_api import CHAT, RESPONSES, parse_answer, usage_counts
from judge_server import JudgeServer, Reply, param_500_handler
from model_server import ModelServer
from test_predict import ROWS, lines_of, predict


def test_a_misspelt_model_is_warned_about_in_the_meta_and_on_stderr(tmp_path):
    notes: list[str] = []
    with ModelServer(ROWS, model_id="qwen3-8b") as server:
        result = predict(server, tmp_path, model="qwen3-8bb", notes=notes)
    assert result.meta["engine"]["id"] == "qwen3-8b"
    assert any("'qwen3-8bb' is not the model the server lists ('qwen3-8b')" in warning
               for warning in result.meta["warnings"])
    assert any(note.startswith("warning: --model 'qwen3-8bb'") for note in notes)


def test_the_right_model_gives_no_warning(tmp_path):
    with ModelServer(ROWS, model_id="qwen3-8b") as server:
        result = predict(server, tmp_path, model="qwen3-8b")
    assert result.meta["warnings"] == [] and result.meta["gateway"] is None


def test_a_gateway_that_strips_think_blocks_is_recorded_with_the_upstream_model_and_engine(tmp_path):
    notes: list[str] = []
    with ModelServer(ROWS, mode="think-inline", model_id="qwen3-8b", gateway=True) as server:
        result = predict(server, tmp_path, model="qwen3-8b", notes=notes)
    gateway = result.meta["gateway"]
    assert gateway["kind"] == "litellm" and gateway["upstream_model"] == "hosted_vllm/qwen3-8b"
    assert gateway["upstream_server"] == "stand-in-engine/1.0"
    assert gateway["answer_channel_altered"] is True and gateway["answers_with_reasoning_split_off"] == len(ROWS)
    assert result.meta["engine"]["header.x-litellm-model-name"] == "hosted_vllm/qwen3-8b"
    assert any("strips <think>" in warning for warning in result.meta["warnings"])
    assert all("<think>" not in line["prediction"] for line in lines_of(tmp_path / "predictions.jsonl"))
    with ModelServer(ROWS, mode="think-inline", model_id="qwen3-8b") as direct:  # the same model, no gateway
        straight = predict(direct, tmp_path, model="qwen3-8b", output="direct.jsonl")
    assert straight.meta["gateway"] is None
    assert all(line["prediction"].startswith("<think>") for line in lines_of(tmp_path / "direct.jsonl"))


def test_a_400_hint_names_model_api_key(tmp_path):
    with JudgeServer(lambda request: Reply(400, {"error": {"message": "No connected db."}})) as server:
        with pytest.raises(HarnessError) as caught:
            predict(server, tmp_path)
    assert caught.value.exit_status == 2 and "MODEL_API_KEY" in caught.value.hint
    assert "No connected db." in str(caught.value)


def test_a_parameter_refused_with_a_500_is_one_error_in_the_servers_words(tmp_path):
    with JudgeServer(param_500_handler) as server:
        with pytest.raises(HarnessError) as caught:
            predict(server, tmp_path, extra_body='{"bogus_field": 1}')
        assert len([r for r in server.requests if r.method == "POST"]) <= 3  # one per worker at most, not retried
    assert caught.value.exit_status == 2 and "Extra inputs are not permitted" in str(caught.value)
    assert "--extra-body" in caught.value.hint and "model server" not in caught.value.hint.split(";")[0]


@pytest.mark.parametrize("kind, path", [(CHAT, "/v1/chat/completions"), (RESPONSES, "/v1/responses")])
def test_the_stand_in_answers_with_creation_times_as_real_providers_do(tmp_path, kind, path):
    with ModelServer(ROWS) as server:
        predict(server, tmp_path, endpoint="chat" if kind == CHAT else "responses")
        sent = server.posts()[0]
        reply = server.answer(sent)
    assert ("created" if kind == CHAT else "created_at") in reply.body


def test_content_parts_with_null_text_add_nothing():
    payload = {"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": None},
                                                    {"text": "b"}]}, "finish_reason": "stop"}]}
    assert parse_answer(CHAT, payload).text == "ab"
    responses = {"status": "completed", "output": [{"type": "message", "content": [
        {"type": "output_text", "text": None}, {"type": "output_text", "text": "c"}]}]}
    assert parse_answer(RESPONSES, responses).text == "c"


@pytest.mark.parametrize("usage, expected", [
    ({"prompt_tokens": -5, "completion_tokens": 3, "total_tokens": -2}, {"output": 3}),
    ({"input_tokens": 4.0, "output_tokens": 2.5}, {"input": 4}),
    ({"prompt_tokens": True, "completion_tokens": "7"}, {}),
    ({"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3,
      "completion_tokens_details": {"reasoning_tokens": -1}}, {"input": 1, "output": 2, "total": 3}),
])
def test_token_counts_are_non_negative_whole_numbers_or_left_out(usage, expected):
    assert usage_counts({"usage": usage}) == expected


def test_negative_usage_is_not_summed_into_the_meta(tmp_path):
    def handler(request):
        body = {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": -100, "completion_tokens": 2, "total_tokens": -98}}
        return Reply(body=body)
    with JudgeServer(handler) as server:
        result = predict(server, tmp_path)
    assert result.meta["usage"]["input_tokens"] == 0 and result.meta["usage"]["output_tokens"] == 2 * len(ROWS)
    assert json.dumps(result.meta)  # the meta stays plain JSON


@pytest.mark.parametrize("kind, form, expected", [
    (CHAT, "json_schema", {"response_format": {"type": "json_schema", "json_schema": {
        "name": "verdict", "schema": {"type": "object"}, "strict": True}}}),
    (CHAT, "json_object", {"response_format": {"type": "json_object", "schema": {"type": "object"}}}),
    (RESPONSES, "json_object", {"text": {"format": {"type": "json_schema", "name": "verdict",
                                                     "schema": {"type": "object"}, "strict": True}}}),
])
def test_the_structured_forms_of_both_endpoints(kind, form, expected):
    from eval.providers.openai_api import json_schema_params

    assert json_schema_params(kind, "verdict", {"type": "object"}, form) == expected


def test_responses_input_renames_text_parts_by_role_and_keeps_strings():
    from eval.providers.openai_api import request_body, responses_input

    messages = [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "b"}]},
                {"role": "user", "content": "c"}]
    assert responses_input(messages) == [
        {"role": "user", "content": [{"type": "input_text", "text": "a"}, {"type": "image_url"}]},
        {"role": "assistant", "content": [{"type": "output_text", "text": "b"}]},
        {"role": "user", "content": "c"}]
    assert json.loads(request_body(RESPONSES, "m", "p", {})) == {"model": "m", "input": "p"}
    assert json.loads(request_body(CHAT, "m", "p", {})) == {"model": "m", "messages": [{"role": "user", "content": "p"}]}


def test_responses_bodies_with_odd_items_reasoning_and_refusals():
    payload = {"status": "completed", "output": [
        "not an item",
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "abcd"}]},
        {"type": "message", "content": ["odd", {"type": "refusal", "refusal": "no"}]}]}
    answer = parse_answer(RESPONSES, payload)
    assert answer.reasoning_chars == 4 and answer.refusal == "no"
    assert answer.text == "" and answer.has_text is False
