"""predict.py against a real local model server (SPEC §13): requests, answers, counts, resume,
faults, the lock, the meta file, and evaluate.py's `system` block."""

from __future__ import annotations

import json
import re
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval.errors import ConfigError, DataError, HarnessError
from eval.io.locking import hold_lock
from eval.prediction.runner import (build_settings, endpoint_kind_for, extract_answer, request_params,
                          run_predict)
from eval.providers.openai_api import CHAT, RESPONSES, responses_input
from eval.inputs.system_meta import inputs_sha256, load_system_meta, meta_path_for, system_signature_part, system_summary
from judge_server import refused_base_url
from model_server import ModelServer, reference_rows
from quick_health import child_prelude, quick_health

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-model-test-0123456789abcdef"
ROWS = [
    {"case_id": "c1", "messages": [{"role": "user", "content": "请翻译：你好"}], "reference": "Hello"},
    {"case_id": "c2", "messages": [{"role": "system", "content": "You translate."},
                                   {"role": "user", "content": "原文：\n第一行\u2028第二行\n"}],
     "reference": '{"1": "Line one", "2": "Line two"}'},
    {"case_id": "c3", "messages": [{"role": "user", "content": "翻译：谢谢"}], "reference": "Thank you\n"},
    {"case_id": "c4", "messages": [{"role": "user", "content": "翻译：再见"}], "reference": "Goodbye"},
    {"case_id": "c5", "messages": [{"role": "user", "content": "翻译：早上好"}], "reference": "Good morning"},
    {"case_id": "c6", "messages": [{"role": "user", "content": "翻译：晚安"}], "reference": "Good night"},
]


def write_inputs(path: Path, rows=ROWS) -> Path:
    path.write_text("".join(json.dumps({"case_id": row["case_id"], "messages": row["messages"]},
                                       ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def settings_for(base_url: str, model: str = "stand-in", **options):
    options.setdefault("concurrency", 3)
    options.setdefault("timeout", 5.0)
    options.setdefault("deadline_s", 2.0)
    return build_settings(model=model, api_base=base_url, api_key=KEY, **options)


def predict(server_or_url, tmp_path, model="stand-in", output="predictions.jsonl", notes=None, **options):
    base = server_or_url if isinstance(server_or_url, str) else server_or_url.base_url
    inputs = tmp_path / "inputs.jsonl"
    if not inputs.exists():
        write_inputs(inputs)
    return run_predict(settings_for(base, model, **options), inputs, tmp_path / output, progress=False,
                       notify=(notes.append if notes is not None else lambda line: None))


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


# tests/quick_health.py's quick cool-downs, passed on the health's own clock, and retries 0.01 s apart
QUICK_CLI = {"virtual_pauses": True, "backoff_s": 0.01}


def asked(server: ModelServer) -> list[str]:
    return [server.case_of(request)["case_id"] for request in server.posts()]


# ---------------------------------------------------------------------------------------------
# What is sent
# ---------------------------------------------------------------------------------------------

def test_chat_sends_each_rows_messages_exactly_and_only_the_given_parameters(tmp_path):
    with ModelServer(ROWS) as server:
        predict(server, tmp_path, temperature=0.0, top_p=0.9, max_tokens=256, seed=7, reasoning_effort="low",
                extra_body='{"chat_template_kwargs": {"enable_thinking": false}}')
    bodies = {server.case_of(request)["case_id"]: request for request in server.posts()}
    assert sorted(bodies) == [row["case_id"] for row in ROWS]
    for row in ROWS:
        request = bodies[row["case_id"]]
        assert request.path == "/v1/chat/completions"
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert request.body == {"model": "stand-in", "messages": row["messages"], "temperature": 0.0, "top_p": 0.9,
                                "max_tokens": 256, "seed": 7, "reasoning_effort": "low",
                                "chat_template_kwargs": {"enable_thinking": False}}


def test_chat_without_parameters_sends_only_model_and_messages(tmp_path):
    with ModelServer(ROWS) as server:
        predict(server, tmp_path)
    assert all(set(request.body) == {"model", "messages"} for request in server.posts())


def test_responses_sends_the_same_messages_as_input(tmp_path):
    with ModelServer(ROWS) as server:
        predict(server, tmp_path, model="gpt-5.1-mini", max_tokens=300, reasoning_effort="minimal")
    for request in server.posts():
        row = server.case_of(request)
        assert request.path == "/v1/responses"
        assert request.body == {"model": "gpt-5.1-mini", "input": row["messages"], "max_output_tokens": 300,
                                "reasoning": {"effort": "minimal"}}


def test_responses_input_keeps_roles_and_texts_and_renames_text_parts():
    messages = [{"role": "system", "content": "Be exact."},
                {"role": "user", "content": [{"type": "text", "text": "你好"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]}]
    assert responses_input(messages) == [
        {"role": "system", "content": "Be exact."},
        {"role": "user", "content": [{"type": "input_text", "text": "你好"}]},
        {"role": "assistant", "content": [{"type": "output_text", "text": "Hello"}]}]


@pytest.mark.parametrize("model, endpoint, kind", [
    ("gpt-5.1", "auto", RESPONSES), ("openai/o3-mini", "auto", RESPONSES), ("GPT-6", "auto", RESPONSES),
    ("Qwen/Qwen3-8B", "auto", CHAT), ("gpt-4o", "auto", CHAT), ("my-gpt-5", "auto", CHAT),
    ("gpt-5.1", "chat", CHAT), ("llama3", "responses", RESPONSES),
])
def test_endpoint_follows_the_judges_name_rule_unless_given(model, endpoint, kind):
    assert endpoint_kind_for(model, endpoint) == kind


@pytest.mark.parametrize("kind, given, expected", [
    (CHAT, {}, {}),
    (CHAT, {"max_tokens": 10, "reasoning_effort": "high"}, {"max_tokens": 10, "reasoning_effort": "high"}),
    (RESPONSES, {"max_tokens": 10, "reasoning_effort": "high"},
     {"max_output_tokens": 10, "reasoning": {"effort": "high"}}),
    (RESPONSES, {"temperature": 0.0, "seed": 0}, {"temperature": 0.0, "seed": 0}),
])
def test_request_parameters_are_the_given_ones_spelt_for_the_endpoint(kind, given, expected):
    assert request_params(kind, **given) == expected


@pytest.mark.parametrize("change, message", [
    ({"extra_body": "{not json"}, "--extra-body is not valid JSON"),
    ({"extra_body": "[1]"}, "must be a JSON object"),
    ({"extra_body": '{"messages": []}'}, "may not set messages"),
    ({"extra_body": '{"stream": true}'}, "may not set stream"),
    ({"extra_body": '{"temperature": 1}', "temperature": 0.0}, "which a flag already sets"),
    ({"concurrency": 0}, "--concurrency must be at least 1"),
    ({"top_p": 0.0}, "--top-p"),
    ({"max_tokens": 0}, "--max-tokens"),
    ({"model": " "}, "--model must not be empty"),
    ({"api_base": ""}, "MODEL_API_BASE is not set"),
    ({"api_key": ""}, "MODEL_API_KEY is not set"),
    ({"api_base": "http://user:pw@127.0.0.1:1/v1"}, "must not carry credentials"),
    ({"api_base": "http://127.0.0.1:1/v1/chat/completions"}, "names an endpoint"),
    ({"api_base": "ftp://host/v1"}, "not an http(s) URL"),
])
def test_settings_that_cannot_work_are_refused_before_anything_is_sent(change, message):
    values = {"model": "m", "api_base": "http://127.0.0.1:1/v1", "api_key": KEY, **change}
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        build_settings(**values)


# ---------------------------------------------------------------------------------------------
# What is saved and counted
# ---------------------------------------------------------------------------------------------

CHAT_ANSWERS = [  # (payload, text, truncated, refusal, reasoning chars)
    ({"choices": [{"message": {"content": "Hi\n"}, "finish_reason": "stop"}]}, "Hi\n", False, None, None),
    ({"choices": [{"message": {"content": "Hi", "reasoning_content": "think"}, "finish_reason": "stop"}]},
     "Hi", False, None, 5),
    ({"choices": [{"message": {"content": "Hi", "reasoning": "abc"}, "finish_reason": "stop"}]}, "Hi", False, None, 3),
    ({"choices": [{"message": {"content": "<think>x</think>Hi"}, "finish_reason": "stop"}]},
     "<think>x</think>Hi", False, None, None),
    ({"choices": [{"message": {"content": "Hel"}, "finish_reason": "length"}]}, "Hel", True, None, None),
    ({"choices": [{"message": {"content": None, "refusal": "No."}, "finish_reason": "stop"}]}, "", False, "No.", None),
    ({"choices": [{"message": {"content": ""}, "finish_reason": "stop"}]}, "", False, None, None),
    ({"choices": [{"message": {"content": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]}}]},
     "AB", False, None, None),
]
RESPONSES_ANSWERS = [
    ({"status": "completed", "output": [{"type": "reasoning", "summary": [{"type": "summary_text", "text": "why"}]},
                                        {"type": "message", "content": [{"type": "output_text", "text": " Hi "}]}]},
     " Hi ", False, None, 3),
    ({"status": "completed", "output": [{"type": "reasoning", "summary": []},
                                        {"type": "message", "content": [{"type": "output_text", "text": "Hi"}]}]},
     "Hi", False, None, 0),
    ({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
      "output": [{"type": "message", "content": [{"type": "output_text", "text": "H"}]}]}, "H", True, None, None),
    ({"status": "completed", "output": [{"type": "message", "content": [{"type": "refusal", "refusal": "No."}]}]},
     "", False, "No.", None),
    ({"status": "completed", "output": []}, "", False, None, None),
]


@pytest.mark.parametrize("kind, payload, text, truncated, refusal, reasoning",
                         [(CHAT, *case) for case in CHAT_ANSWERS] + [(RESPONSES, *case) for case in RESPONSES_ANSWERS])
def test_the_answer_is_the_final_text_exactly_and_reasoning_is_kept_out(kind, payload, text, truncated, refusal,
                                                                         reasoning):
    answer = extract_answer(kind, payload)
    assert (answer.text, answer.truncated, answer.refusal, answer.reasoning_chars) == (text, truncated, refusal,
                                                                                      reasoning)


@pytest.mark.parametrize("kind, payload", [
    (CHAT, []), (CHAT, {}), (CHAT, {"choices": []}), (CHAT, {"choices": [{"text": "legacy"}]}),
    (RESPONSES, {"status": "completed"}), (RESPONSES, "text"),
])
def test_a_body_that_is_not_a_response_is_refused(kind, payload):
    with pytest.raises(ValueError):
        extract_answer(kind, payload)


MODES = {"c1": "reasoning", "c2": "reasoning-field", "c3": "truncate", "c4": "empty", "c5": "refuse",
         "c6": "think-inline"}


@pytest.mark.parametrize("model", ["stand-in", "gpt-5.1"])
def test_saved_answers_and_counts_on_both_endpoints(tmp_path, model):
    with ModelServer(ROWS, modes=MODES, model_id="stand-in-rev-42") as server:
        result = predict(server, tmp_path, model=model)
    saved = {line["case_id"]: line for line in lines_of(result.output)}
    references = {row["case_id"]: row["reference"] for row in ROWS}
    assert saved["c1"]["prediction"] == references["c1"]
    assert saved["c2"]["prediction"] == references["c2"]
    assert saved["c3"]["prediction"] == references["c3"][: len(references["c3"]) // 2]
    assert saved["c3"]["response"]["truncated"] is True
    assert saved["c4"]["prediction"] == "" and saved["c5"]["prediction"] == ""
    assert saved["c5"]["response"]["refusal"] == "I can't help with that."
    assert saved["c6"]["prediction"] == "<think>\nkeep the format\n</think>\n\n" + references["c6"]
    assert all("reasoning" not in line["prediction"] for line in saved.values())
    counts = result.meta["counts"]
    assert {key: counts[key] for key in ("inputs", "written", "answered", "truncated", "empty", "refused")} == \
        {"inputs": 6, "written": 6, "answered": 3, "truncated": 1, "empty": 2, "refused": 1}
    assert counts["reasoning_returned"] == 2
    assert result.meta["model_reported"] == "stand-in-rev-42"
    assert result.meta["usage"]["input_tokens"] > 0 and result.meta["usage"]["reasoning_tokens"] > 0


def test_the_final_file_is_in_input_order_and_loads_as_predictions(tmp_path):
    from eval.inputs.predictions import load_predictions

    with ModelServer(ROWS, modes={"c1": "reference"}, latency=0.0) as server:
        server.modes = {}
        result = predict(server, tmp_path, concurrency=6)
    assert [line["case_id"] for line in lines_of(result.output)] == [row["case_id"] for row in ROWS]
    predictions, count = load_predictions(result.output, {row["case_id"] for row in ROWS})
    assert count == 6 and predictions == {row["case_id"]: row["reference"] for row in ROWS}


# ---------------------------------------------------------------------------------------------
# Provenance
# ---------------------------------------------------------------------------------------------

def test_the_meta_file_records_model_host_parameters_engine_times_and_the_inputs_hash(tmp_path):
    import hashlib

    with ModelServer(ROWS, model_id="stand-in") as server:
        result = predict(server, tmp_path, temperature=0.2, seed=3, extra_body='{"top_k": 20}')
    meta = json.loads(meta_path_for(result.output).read_text(encoding="utf-8"))
    assert meta_path_for(result.output) == tmp_path / "predictions.meta.json"
    assert meta["model"] == "stand-in" and meta["model_reported"] == "stand-in"
    assert meta["host"] == f"http://127.0.0.1:{server.port}" and meta["endpoint_kind"] == CHAT
    assert meta["params"] == {"temperature": 0.2, "seed": 3, "top_k": 20}
    assert meta["engine"]["owned_by"] == "stand-in-engine" and meta["engine"]["max_model_len"] == 8192
    assert meta["engine"]["header.server"] == "stand-in-engine/1.0"
    assert meta["inputs"]["sha256"] == hashlib.sha256((tmp_path / "inputs.jsonl").read_bytes()).hexdigest()
    assert meta["started_at"] <= meta["finished_at"] and meta["complete"] is True
    assert [run["asked"] for run in meta["runs"]] == [6]


def test_the_key_is_written_nowhere(tmp_path):
    with ModelServer(ROWS) as server:
        predict(server, tmp_path)
    for path in tmp_path.iterdir():
        assert KEY not in path.read_text(encoding="utf-8"), path.name


# ---------------------------------------------------------------------------------------------
# Resume, torn lines, changed settings
# ---------------------------------------------------------------------------------------------

def test_a_rerun_after_the_server_died_asks_only_for_what_is_missing(tmp_path, monkeypatch):
    quick_health(monkeypatch, **QUICK_CLI)  # probes on the health's own clock, retries 0.01 s apart
    with ModelServer(ROWS, die_after=3) as dying:  # it answered: the whole deadline, here 0.5 s
        with pytest.raises(HarnessError) as stopped:
            predict(dying, tmp_path, concurrency=1, deadline_s=0.5)
    assert stopped.value.exit_status == 3
    first = [line["case_id"] for line in lines_of(tmp_path / "predictions.jsonl")]
    assert first == ["c1", "c2", "c3"]
    meta = json.loads((tmp_path / "predictions.meta.json").read_text(encoding="utf-8"))
    assert meta["complete"] is False and meta["counts"]["written"] == 3
    with ModelServer(ROWS) as healthy:
        result = predict(healthy, tmp_path, concurrency=2)
    assert sorted(asked(healthy)) == ["c4", "c5", "c6"]
    assert result.asked == 3 and result.skipped == 3
    assert [line["case_id"] for line in lines_of(result.output)] == [row["case_id"] for row in ROWS]
    assert result.meta["complete"] is True and result.meta["counts"]["written"] == 6
    assert [(run["skipped"], run["asked"]) for run in result.meta["runs"]] == [(0, 3), (3, 3)]
    with ModelServer(ROWS) as idle:  # a third run has nothing to ask
        result = predict(idle, tmp_path)
    assert idle.posts() == [] and result.asked == 0


def test_a_torn_last_line_is_dropped_with_a_notice_and_asked_again(tmp_path):
    with ModelServer(ROWS) as server:
        result = predict(server, tmp_path)
    whole = result.output.read_bytes().split(b"\n")
    result.output.write_bytes(b"\n".join(whole[:2]) + b"\n" + whole[2][:15])  # a crash in the third write
    notes = []
    with ModelServer(ROWS) as server:
        result = predict(server, tmp_path, notes=notes)
    assert sorted(asked(server)) == ["c3", "c4", "c5", "c6"]
    assert any("dropped an incomplete last line" in note for note in notes)
    assert [line["case_id"] for line in lines_of(result.output)] == [row["case_id"] for row in ROWS]


def test_a_broken_line_inside_the_output_stops_the_run_with_file_and_line(tmp_path):
    with ModelServer(ROWS) as server:
        result = predict(server, tmp_path)
    lines = result.output.read_text(encoding="utf-8").split("\n")
    lines[1] = lines[1][:10]
    result.output.write_text("\n".join(lines), encoding="utf-8")
    with ModelServer(ROWS) as server, pytest.raises(DataError, match=r"predictions\.jsonl:2: not valid JSON"):
        predict(server, tmp_path)
    assert server.posts() == []


@pytest.mark.parametrize("change, named", [
    ({"temperature": 0.7}, "params"), ({"model": "other-model"}, "model"),
    ({"model": "gpt-5.1"}, "endpoint_kind"), ({"extra_body": '{"top_k": 5}'}, "params"),
])
def test_a_resume_under_other_settings_is_refused(tmp_path, change, named):
    with ModelServer(ROWS) as server:
        predict(server, tmp_path)
    with ModelServer(ROWS) as server:
        with pytest.raises(ConfigError, match=f"started with other settings;.*{named}"):
            predict(server, tmp_path, **change)
    assert server.posts() == []


def test_a_resume_with_changed_inputs_or_a_foreign_file_is_refused(tmp_path):
    with ModelServer(ROWS) as server:
        predict(server, tmp_path)
        write_inputs(tmp_path / "inputs.jsonl", ROWS[:5])
        with pytest.raises(ConfigError, match="inputs file changed"):
            predict(server, tmp_path)
        (tmp_path / "mine.jsonl").write_text('{"case_id": "c1", "prediction": "x"}\n', encoding="utf-8")
        with pytest.raises(ConfigError, match="not started by predict.py"):
            predict(server, tmp_path, output="mine.jsonl")


def test_a_second_writer_is_refused_while_the_lock_is_held(tmp_path):
    output = tmp_path / "predictions.jsonl"
    with ModelServer(ROWS) as server, hold_lock(output, "output file", is_dir=False):
        with pytest.raises(ConfigError, match="in use by"):
            predict(server, tmp_path)
    assert server.posts() == [] and not output.exists()


@pytest.mark.parametrize("content, message", [
    ('{"case_id": "a", "messages": [{"role": "user", "content": "x"}]}\nnot json\n', r"inputs\.jsonl:2: not valid JSON"),
    ('{"case_id": "a"}\n', r"inputs\.jsonl:1: case_id 'a' has no non-empty messages list"),
    ('{"case_id": "a", "messages": ["hi"]}\n', r"inputs\.jsonl:1: messages\[0\] of 'a'"),
    ('{"messages": [{"role": "user", "content": "x"}]}\n', r"inputs\.jsonl:1: the line has no non-empty string case_id"),
    ('{"case_id": "a", "messages": [{"role": "user", "content": "x"}]}\n' * 2, r"inputs\.jsonl:2: duplicate case_id"),
    ("", "has no rows"),
])
def test_bad_inputs_stop_with_file_and_line(tmp_path, content, message):
    (tmp_path / "inputs.jsonl").write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=message):
        predict("http://127.0.0.1:9/v1", tmp_path)


# ---------------------------------------------------------------------------------------------
# The command line: faults, signals, environment
# ---------------------------------------------------------------------------------------------

def run_cli(args: list[str], base_url: str | None, tmp_path, extra_env=None, timeout=60, quick=None):
    """predict.py as a process; `quick` (tests/quick_health.py's settings, passed to `child_prelude`):
    for a fault whose wait is the cool-downs' and back-off's, not what the test is about."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MODEL_API", "JUDGE_API"))}
    if base_url is not None:
        env.update(MODEL_API_BASE=base_url, MODEL_API_KEY=KEY)
    env.update(extra_env or {})
    inputs = tmp_path / "inputs.jsonl"
    if not inputs.exists():
        write_inputs(inputs)
    script = [sys.executable, "-c", child_prelude(str(ROOT), str(ROOT / "predict.py"), **quick)] if quick else \
        [sys.executable, str(ROOT / "predict.py")]
    command = [*script, "--inputs", str(inputs),
               "--output", str(tmp_path / "predictions.jsonl"), "--model", "stand-in", "--quiet", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp_path)


def test_the_judges_variables_are_never_used(tmp_path):
    with ModelServer(ROWS) as server:
        done = run_cli([], None, tmp_path, extra_env={"JUDGE_API_BASE": server.base_url, "JUDGE_API_KEY": KEY})
    assert done.returncode == 2 and "MODEL_API_BASE and MODEL_API_KEY are not set" in done.stderr and server.posts() == []


def test_a_server_that_refuses_connections_fails_fast_with_exit_3(tmp_path, monkeypatch):
    """In process, predict.py leaves the start-up deadline and cool-downs to the health's defaults
    (5 s, 1 s doubling: pinned in test_provider.py); the process edge (exit 3, one message, no
    traceback) is then checked on quick timings, passed on the health's own clock, so it waits
    for no cool-down."""
    base = refused_base_url()
    built = quick_health(monkeypatch, **QUICK_CLI)
    with pytest.raises(HarnessError, match="MODEL_API_BASE") as stopped:
        predict(base, tmp_path)
    assert stopped.value.exit_status == 3 and len(built) == 1
    assert not {"cooldown_s", "cooldown_max_s", "startup_deadline_s", "blind_pause_s", "backoff_s", "clock"} & set(
        built[0].passed)
    (tmp_path / "predictions.jsonl").unlink(missing_ok=True)
    start = time.monotonic()
    done = run_cli([], base, tmp_path, quick=QUICK_CLI)
    elapsed = time.monotonic() - start
    assert done.returncode == 3, done.stderr
    assert base.removesuffix("/v1") in done.stderr and "MODEL_API_BASE" in done.stderr
    assert "Traceback" not in done.stderr and KEY not in done.stderr
    assert elapsed < 30


@pytest.mark.parametrize("mode", ["error", "hang"])
def test_a_dead_or_hung_server_ends_the_run_within_the_deadline(tmp_path, mode):
    with ModelServer(ROWS, mode=mode) as server:
        start = time.monotonic()
        # the 500s on quick cool-downs passed on the health's own clock (tests/quick_health.py); the silent
        # server on the defaults in real time, whose 1 s cool-down leaves the last probe the whole 0.5 s
        # timeout the message names
        done = run_cli(["--deadline", "1" if mode == "hang" else "0.4", "--timeout", "0.5", "--concurrency", "2"],
                       server.base_url, tmp_path, quick=QUICK_CLI if mode == "error" else None)
        elapsed = time.monotonic() - start
    assert done.returncode == 3, done.stderr
    assert f"127.0.0.1:{server.port}" in done.stderr
    assert ("failed every request: HTTP 500" if mode == "error" else "not answering") in done.stderr
    assert "Traceback" not in done.stderr
    if mode == "hang":  # the give-up counts the requests sent and names the timeout it waited
        sent = int(re.search(r"\((\d+) requests? sent\)", done.stderr).group(1))
        received = len([request for request in server.requests if request.method == "POST"])
        # a request started as the run gave up may end before the stand-in has read it whole: at most
        # one per concurrent slot (2) goes unrecorded, and none is counted that was never started
        assert 2 <= received <= sent <= received + 2
        assert "no complete answer within 0.5 s" in done.stderr or "the request timeout is 0.5 s" in done.stderr
    assert elapsed < 25  # 1 s deadline + probe timeouts + interpreter start, with room for a loaded machine


def test_a_rejected_key_is_one_line_with_exit_2(tmp_path):
    def reject(request):
        from judge_server import Reply
        return Reply(401, {"error": {"message": "invalid api key"}})

    with ModelServer(ROWS) as server:
        server.handler = reject
        done = run_cli([], server.base_url, tmp_path)
    assert done.returncode == 2 and "HTTP 401" in done.stderr and "MODEL_API_KEY" in done.stderr


def test_sigterm_stops_within_seconds_without_a_torn_line_and_the_rerun_finishes(tmp_path):
    with ModelServer(ROWS, latency=0.4) as server:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("MODEL_API", "JUDGE_API"))}
        env.update(MODEL_API_BASE=server.base_url, MODEL_API_KEY=KEY)
        write_inputs(tmp_path / "inputs.jsonl")
        output = tmp_path / "predictions.jsonl"
        process = subprocess.Popen([sys.executable, str(ROOT / "predict.py"), "--inputs", str(tmp_path / "inputs.jsonl"),
                                    "--output", str(output), "--model", "stand-in", "--quiet", "--concurrency", "1"],
                                   env=env, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (not output.exists() or output.read_bytes().count(b"\n") < 2):
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        stopped_at = time.monotonic()
        _, stderr = process.communicate(timeout=30)
        assert time.monotonic() - stopped_at < 10
        assert process.returncode == 128 + signal.SIGTERM, stderr
        assert "rerun the same command" in stderr
        raw = output.read_bytes()
        assert raw.endswith(b"\n")
        written = [json.loads(line)["case_id"] for line in raw.decode("utf-8").split("\n") if line]
        assert 2 <= len(written) < 6
        meta = json.loads((tmp_path / "predictions.meta.json").read_text(encoding="utf-8"))
        assert meta["complete"] is False and meta["runs"][-1]["stopped_by"] == "SIGTERM"
        before = len(server.posts())
        server.latency = 0.0
        done = run_cli([], server.base_url, tmp_path)
        assert done.returncode == 0, done.stderr
        again = [server.case_of(request)["case_id"] for request in server.posts()[before:]]
    assert sorted(again) == sorted(set(row["case_id"] for row in ROWS) - set(written))
    assert [line["case_id"] for line in lines_of(output)] == [row["case_id"] for row in ROWS]


# ---------------------------------------------------------------------------------------------
# evaluate.py's `system` block
# ---------------------------------------------------------------------------------------------

def test_no_meta_file_means_no_system_block(tmp_path):
    assert load_system_meta(tmp_path / "predictions.jsonl", "0" * 64) == (None, [])
    assert system_signature_part(None) is None


def test_the_system_block_and_its_warnings(tmp_path):
    with ModelServer(ROWS) as server:
        predict(server, tmp_path)
    meta_path = tmp_path / "predictions.meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    recorded = meta["inputs"]["sha256"]
    system, warnings = load_system_meta(tmp_path / "predictions.jsonl", recorded)
    assert system["model"] == "stand-in" and system["inputs_match"] is True and warnings == []
    assert system["host"] == meta["host"] and system["params"] == {} and system["counts"]["written"] == 6
    meta.update(complete=False, counts={**meta["counts"], "written": 4})  # as an interrupted run leaves it
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    system, warnings = load_system_meta(tmp_path / "predictions.jsonl", recorded)
    assert warnings == ["predictions.meta.json: predict.py did not finish (4 of 6 inputs answered)"]
    system, warnings = load_system_meta(tmp_path / "predictions.jsonl", "f" * 64)
    assert system["inputs_match"] is False and "answer other inputs" in warnings[0]
    (tmp_path / "predictions.meta.json").write_text("{broken", encoding="utf-8")
    system, warnings = load_system_meta(tmp_path / "predictions.jsonl", recorded)
    assert system is None and "cannot be read" in warnings[0]


@pytest.mark.parametrize("system, part", [
    ({"model": "Qwen/Qwen3-8B"}, "system:Qwen/Qwen3-8B"), ({"model": "a b|c"}, "system:a_b_c"),
    ({}, None), (None, None),
])
def test_the_signature_part_names_the_model_asked_for(system, part):
    assert system_signature_part(system) == part


def test_prepare_predict_evaluate_end_to_end_gives_every_reference_its_pass(tmp_path):
    """The three commands of docs/predict.md against the stand-in answering with references."""
    inputs, predictions, out = tmp_path / "model_inputs.jsonl", tmp_path / "predictions.jsonl", tmp_path / "run"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MODEL_API", "JUDGE_API"))}
    subprocess.run([sys.executable, str(ROOT / "prepare_inputs.py"), "--output", str(inputs)], check=True, env=env,
                   capture_output=True)
    with ModelServer(reference_rows(ROOT / "data" / "test.jsonl"), model_id="stand-in-ref") as server:
        env.update(MODEL_API_BASE=server.base_url, MODEL_API_KEY=KEY)
        done = subprocess.run([sys.executable, str(ROOT / "predict.py"), "--inputs", str(inputs), "--output",
                               str(predictions), "--model", "stand-in-ref", "--temperature", "0", "--quiet",
                               "--concurrency", "8"], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    assert server.posts() and all("[the stand-in has no reference" not in line["prediction"]
                                  for line in lines_of(predictions))
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--predictions", str(predictions),
                           "--output-dir", str(out), "--skip-judge", "--quiet"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["hard_pass_rate"]["value"] == 1.0
    assert summary["system"]["model"] == "stand-in-ref" and summary["system"]["inputs_match"] is True
    assert summary["system"]["params"] == {"temperature": 0.0} and summary["system"]["warnings"] == []
    assert "|system:stand-in-ref|" in summary["signature"]
    assert "- System: stand-in-ref at http://127.0.0.1:" in (out / "report.md").read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--predictions", str(predictions),
                           "--output-dir", str(out), "--skip-judge", "--quiet", "--limit", "10"],
                          env=env, capture_output=True, text=True)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))  # made for all rows, 10 scored
    assert summary["system"]["inputs_match"] is True and summary["system"]["warnings"] == []
    assert summary["system"]["inputs_scope"] == "all data rows (part of them scored)"


def test_system_summary_matches_the_scored_rows_or_all_of_the_data_and_warns_otherwise(tmp_path):
    rows = [{"case_id": f"r{i}", "prompt": f"p{i}"} for i in range(4)]
    model_input = lambda row: {"case_id": row["case_id"], "messages": [{"role": "user", "content": row["prompt"]}]}
    predictions = tmp_path / "predictions.jsonl"
    for made_for, scored, match, scope in ((rows, rows, True, None), (rows, rows[:2], True, "all data rows"),
                                           (rows[:2], rows[:2], True, None), (rows[:2], rows, False, None),
                                           (rows[1:], rows[:3], False, None)):
        meta = {"tool": "predict.py", "model": "m", "complete": True, "counts": {},
                "inputs": {"sha256": inputs_sha256(made_for, model_input)}}
        meta_path_for(predictions).write_text(json.dumps(meta), encoding="utf-8")
        system, warnings, part = system_summary(predictions, scored, model_input, rows)
        assert system["inputs_match"] is match and part == ("system:m",)
        assert (system.get("inputs_scope") or "").startswith(scope or "")
        assert bool(warnings) is not match and system["warnings"] == warnings
    meta_path_for(predictions).write_text("{broken", encoding="utf-8")
    system, warnings, part = system_summary(predictions, rows, model_input, rows)
    assert system["model"] is None and part == () and "cannot be read" in system["warnings"][0]
    assert system_summary(tmp_path / "other.jsonl", rows, model_input, rows) == (None, [], ())


@pytest.mark.parametrize("status, message, hint, exit_status", [
    (400, "This model's maximum context length is 8192 tokens", "lower --max-tokens", 2),
    (400, "unknown field top_k", "--extra-body", 2),
    (401, "invalid api key", "check MODEL_API_KEY", 2),
    (404, "model not found", "MODEL_API_BASE (usually ends in /v1) and --model", 2),
    (422, "unprocessable", "the server refused this request", 3),
])
def test_a_rejection_names_the_case_and_what_to_change(status, message, hint, exit_status):
    from eval.prediction.runner import rejection_error
    from eval.providers.health import ProviderRejected

    error = rejection_error(ProviderRejected("http://h:1", status, message), settings_for("http://h:1/v1"), "c7")
    assert f"HTTP {status} for case c7: {message}" in str(error) and hint in error.hint
    assert error.exit_status == exit_status


def test_a_meta_file_without_its_output_is_a_fresh_start(tmp_path):
    with ModelServer(ROWS) as server:
        predict(server, tmp_path, temperature=0.0)
        (tmp_path / "predictions.jsonl").unlink()
        result = predict(server, tmp_path, temperature=1.0)
    assert result.asked == 6 and result.meta["params"] == {"temperature": 1.0}
    assert [run["asked"] for run in result.meta["runs"]] == [6]


def test_a_server_without_a_models_list_still_names_its_engine_by_header(tmp_path):
    from judge_server import Reply

    with ModelServer(ROWS) as server:
        answer = server.answer
        server.handler = lambda request: (Reply(404, {"error": {"message": "no such route"}})
                                          if request.method == "GET" else answer(request))
        result = predict(server, tmp_path)
    assert result.meta["engine"] == {"header.server": "stand-in-engine/1.0", "header.x-stand-in": ModelServer.identity}
    assert result.meta["counts"]["answered"] == 6


@pytest.mark.parametrize("stop, status, words", [
    (KeyboardInterrupt(), 130, "interrupted before any request"),
    (None, 143, "stopped by SIGTERM before any request"),
])
def test_a_stop_before_the_asking_loop_names_its_signal_and_changes_nothing(tmp_path, monkeypatch, capsys, stop,
                                                                            status, words):
    from eval.exits import Terminated
    from eval.prediction import command

    def stopped(*args, **kwargs):
        raise stop if stop is not None else Terminated(signal.SIGTERM)

    monkeypatch.setattr(command, "run_predict", stopped)
    monkeypatch.setenv("MODEL_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MODEL_API_KEY", KEY)
    argv = ["--inputs", str(write_inputs(tmp_path / "inputs.jsonl")), "--output", str(tmp_path / "p.jsonl"),
            "--model", "m", "--quiet"]
    assert command.main(argv) == status
    assert capsys.readouterr().err == f"{words}: nothing was changed\n"
    assert not (tmp_path / "p.jsonl").exists()
