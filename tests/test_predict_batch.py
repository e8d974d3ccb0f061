"""Predictions through a Batch API (SPEC §18): `prepare_inputs.py --format openai-batch` writes the
very bodies predict.py sends online, and `predict.py --from-batch-output` turns an OpenAI Batch or
vLLM run_batch output file into the predictions file an online run writes. The "batch engine" here
posts each request line's body to the stand-in model (tests/model_server.py) and wraps the replies
as the two engines do, so every answer is a real server's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import prepare_inputs
from eval.providers.batch_files import body_bytes, outcome_of, request_line, split_lines
from eval.errors import ConfigError, DataError
from eval.prediction.runner import build_settings, run_predict
from eval.prediction.batch import from_batch_output, write_batch_requests
from eval.prediction.runner import InputRow
from model_server import ModelServer
import run_batch_standin

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-model-test-0123456789abcdef"
DATA = {"insttrans": ROOT / "data" / "test.jsonl", "sandglass": ROOT / "data" / "sandglass" / "test.jsonl"}
CHAT_FLAGS = ["--model", "stand-in", "--temperature", "0", "--max-tokens", "512", "--seed", "7",
              "--extra-body", '{"chat_template_kwargs": {"enable_thinking": false}}']
RESPONSES_FLAGS = ["--model", "gpt-5.1-mini", "--max-tokens", "900", "--reasoning-effort", "low"]


def flag_values(flags: list[str]) -> dict:
    names = {"--model": "model", "--temperature": "temperature", "--max-tokens": "max_tokens", "--seed": "seed",
             "--extra-body": "extra_body", "--reasoning-effort": "reasoning_effort"}
    values = dict(zip(flags[::2], flags[1::2]))
    converted = {names[flag]: value for flag, value in values.items()}
    for name, kind in (("temperature", float), ("max_tokens", int), ("seed", int)):
        if name in converted:
            converted[name] = kind(converted[name])
    return converted


def online_settings(base_url: str, flags: list[str]):
    return build_settings(api_base=base_url, api_key=KEY, concurrency=2, timeout=5.0, deadline_s=2.0,
                          **flag_values(flags))


def offline_settings(flags: list[str]):
    return build_settings(api_base="", api_key="", offline=True, **flag_values(flags))


def prepare(tmp_path: Path, bench_name: str, flags: list[str], limit: int = 6) -> tuple[Path, Path]:
    """Both exports of the same rows: the inputs and the Batch request lines."""
    inputs, requests = tmp_path / "inputs.jsonl", tmp_path / "requests.jsonl"
    common = ["--data", str(DATA[bench_name]), "--limit", str(limit)]
    assert prepare_inputs.main(["--output", str(inputs), *common]) == 0
    assert prepare_inputs.main(["--output", str(requests), "--format", "openai-batch", *common, *flags]) == 0
    return inputs, requests


def server_rows(inputs: Path) -> list[dict]:
    rows = [json.loads(line) for line in inputs.read_text(encoding="utf-8").splitlines()]
    return [{**row, "reference": f"answer of {row['case_id']}"} for row in rows]


def run_batch(server: ModelServer, requests: Path, output: Path, *, style: str = "vllm", drop=frozenset()):
    return run_batch_standin.run_batch(server.base_url, requests, output, style=style, drop=drop, key=KEY)


# ---------------------------------------------------------------------------------------------
# prepare_inputs.py --format openai-batch
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bench_name", ["insttrans", "sandglass"])
@pytest.mark.parametrize("flags", [CHAT_FLAGS, RESPONSES_FLAGS], ids=["chat", "responses"])
def test_each_batch_body_is_byte_identical_to_what_predict_sends_online(tmp_path, bench_name, flags):
    inputs, requests = prepare(tmp_path, bench_name, flags)
    with ModelServer(server_rows(inputs)) as server:
        run_predict(online_settings(server.base_url, flags), inputs, tmp_path / "online.jsonl", progress=False,
                    notify=lambda line: None)
        sent = {server.case_of(post)["case_id"]: (post.path, post.raw) for post in server.posts()}
    lines = requests.read_bytes().splitlines(keepends=True)
    assert len(lines) == len(sent) == 6
    for raw in lines:
        line = json.loads(raw)
        path, online_body = sent[line["custom_id"]]
        assert body_bytes(raw) == online_body
        assert json.loads(raw)["body"] == json.loads(online_body)
        assert line["method"] == "POST" and path.endswith(line["url"].removeprefix("/v1"))
        assert list(line) == ["custom_id", "method", "url", "body"]


def test_the_request_file_is_split_to_the_batch_limits_in_order(tmp_path):
    settings = offline_settings(CHAT_FLAGS)
    rows = [InputRow(f"c{index}", [{"role": "user", "content": "x" * index}]) for index in range(5)]
    whole = write_batch_requests(rows, settings, tmp_path / "one.jsonl")
    assert whole == [tmp_path / "one.jsonl"]
    parts = write_batch_requests(rows, settings, tmp_path / "req.jsonl", max_lines=2)
    assert [path.name for path in parts] == ["req.part1.jsonl", "req.part2.jsonl", "req.part3.jsonl"]
    assert b"".join(path.read_bytes() for path in parts) == whole[0].read_bytes()
    sizes = [len(line) for line in whole[0].read_bytes().splitlines(keepends=True)]
    by_size = split_lines(whole[0].read_bytes().splitlines(keepends=True), max_bytes=sizes[0] + sizes[1])
    assert [len(part) for part in by_size] == [2, 1, 1, 1]  # the lines grow: each later one fills a file alone
    with pytest.raises(ValueError, match="request line 1 has"):
        split_lines([b"x" * 11], max_bytes=10)


def test_a_custom_id_that_looks_like_the_body_mark_still_cuts_the_body_out():
    body = b'{"model": "m", "messages": [{"role": "user", "content": "\\", \\"body\\": {"}]}'
    line = request_line('a", "body": {', "chat_completions", body)
    assert body_bytes(line) == body and json.loads(line)["custom_id"] == 'a", "body": {'


def cli(script: str, args: list[str], cwd: Path, env: dict | None = None):
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("MODEL_API", "JUDGE_API"))}
    return subprocess.run([sys.executable, str(ROOT / script), *args], capture_output=True, text=True,
                          env={**clean, **(env or {})}, timeout=60, cwd=cwd)


def test_prepare_refuses_model_flags_without_the_batch_format_and_the_format_without_a_model(tmp_path):
    done = cli("prepare_inputs.py", ["--output", "x.jsonl", "--temperature", "0"], tmp_path)
    assert done.returncode == 2 and "--temperature applies only to --format openai-batch" in done.stderr
    done = cli("prepare_inputs.py", ["--output", "x.jsonl", "--format", "openai-batch"], tmp_path)
    assert done.returncode == 2 and "--format openai-batch needs --model NAME" in done.stderr
    assert not (tmp_path / "x.jsonl").exists()


# ---------------------------------------------------------------------------------------------
# predict.py --from-batch-output
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("flags", [CHAT_FLAGS, RESPONSES_FLAGS], ids=["chat", "responses"])
def test_a_full_batch_output_gives_the_online_runs_predictions_byte_for_byte(tmp_path, flags):
    inputs, requests = prepare(tmp_path, "insttrans", flags)
    rows = server_rows(inputs)
    modes = {rows[1]["case_id"]: "truncate", rows[2]["case_id"]: "reasoning", rows[3]["case_id"]: "empty"}
    with ModelServer(rows, modes=modes) as server:
        online = run_predict(online_settings(server.base_url, flags), inputs, tmp_path / "online.jsonl",
                             progress=False, notify=lambda line: None)
        outputs = run_batch(server, requests, tmp_path / "batch_output.jsonl")
    batch = from_batch_output(offline_settings(flags), inputs, outputs, tmp_path / "predictions.jsonl")
    assert batch.output.read_bytes() == online.output.read_bytes()
    for key in ("model", "model_reported", "endpoint_kind", "params", "counts", "usage", "inputs", "complete"):
        assert batch.meta[key] == online.meta[key], key
    assert batch.meta["host"] is None
    assert batch.meta["batch"]["truncated"] == [rows[1]["case_id"]]
    assert batch.meta["batch"]["errors"] == [] and batch.meta["batch"]["not_returned"] == []


@pytest.mark.parametrize("style", ["vllm", "openai"])
def test_errors_and_lines_not_returned_are_listed_and_an_online_rerun_asks_only_for_them(tmp_path, style):
    inputs, requests = prepare(tmp_path, "insttrans", CHAT_FLAGS)
    rows = server_rows(inputs)
    failing, dropped = rows[0]["case_id"], rows[4]["case_id"]
    with ModelServer(rows, modes={failing: "error"}) as server:
        outputs = run_batch(server, requests, tmp_path / "out.jsonl", style=style, drop={dropped})
    result = from_batch_output(offline_settings(CHAT_FLAGS), inputs, outputs, tmp_path / "predictions.jsonl")
    listed = result.meta["batch"]
    assert [error["case_id"] for error in listed["errors"]] == [failing]
    assert listed["errors"][0]["error"].endswith("the engine crashed")
    assert listed["errors"][0]["line"].startswith(str(outputs[-1]) + ":")
    assert listed["not_returned"] == [dropped]
    assert result.meta["complete"] is False and result.meta["counts"]["written"] == 4
    with ModelServer(rows) as healthy:
        rerun = run_predict(online_settings(healthy.base_url, CHAT_FLAGS), inputs, result.output, progress=False,
                            notify=lambda line: None)
        assert sorted(healthy.case_of(post)["case_id"] for post in healthy.posts()) == sorted([failing, dropped])
    assert rerun.meta["complete"] is True and rerun.skipped == 4
    assert rerun.meta["batch"] == listed  # the batch's provenance stays with the file
    order = [row["case_id"] for row in rows]
    assert [json.loads(line)["case_id"] for line in rerun.output.read_text(encoding="utf-8").splitlines()] == order


def write_output(path: Path, entries: list) -> Path:
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    return path


def ok_line(custom_id: str, text: str = "Hi") -> dict:
    return {"id": "r", "custom_id": custom_id, "error": None, "response": {"status_code": 200, "body": {
        "model": "stand-in", "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                          "finish_reason": "stop"}]}}}


def test_a_line_whose_custom_id_is_not_an_instance_is_refused_with_file_line_and_fix(tmp_path):
    inputs, _ = prepare(tmp_path, "insttrans", CHAT_FLAGS, limit=2)
    ids = [json.loads(line)["case_id"] for line in inputs.read_text(encoding="utf-8").splitlines()]
    output = write_output(tmp_path / "out.jsonl", [ok_line(ids[0]), ok_line("request-2")])
    with pytest.raises(DataError, match=r"out\.jsonl:2: custom_id 'request-2' is not a case_id of") as caught:
        from_batch_output(offline_settings(CHAT_FLAGS), inputs, [output], tmp_path / "predictions.jsonl")
    assert "prepare_inputs.py --format openai-batch" in caught.value.hint
    assert not (tmp_path / "predictions.jsonl").exists()
    done = cli("predict.py", ["--inputs", str(inputs), "--output", "p.jsonl", "--from-batch-output", str(output),
                              *CHAT_FLAGS], tmp_path)
    assert done.returncode == 2 and "out.jsonl:2: custom_id 'request-2' is not a case_id of" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "p.jsonl").exists()


@pytest.mark.parametrize("entries, message", [
    ([["not", "an", "object"]], r"out\.jsonl:1: a batch output line must be a JSON object"),
    ([{"custom_id": 7}], r"out\.jsonl:1: the line has no non-empty string custom_id"),
    ([{"custom_id": "A", "response": "text"}], r"out\.jsonl:1: custom_id 'A': response must be an object"),
    (["DUP", "DUP"], r"out\.jsonl:2: custom_id '[\w-]+' was already answered at .*out\.jsonl:1"),
])
def test_lines_that_are_not_batch_output_lines_are_refused(tmp_path, entries, message):
    inputs, _ = prepare(tmp_path, "insttrans", CHAT_FLAGS, limit=2)
    first = json.loads(inputs.read_text(encoding="utf-8").splitlines()[0])["case_id"]
    entries = [ok_line(first) if entry == "DUP" else entry for entry in entries]
    output = write_output(tmp_path / "out.jsonl", entries)
    with pytest.raises(DataError, match=message):
        from_batch_output(offline_settings(CHAT_FLAGS), inputs, [output], tmp_path / "predictions.jsonl")


def test_an_answer_of_the_other_endpoint_and_an_existing_output_are_refused(tmp_path):
    inputs, _ = prepare(tmp_path, "insttrans", CHAT_FLAGS, limit=1)
    case_id = json.loads(inputs.read_text(encoding="utf-8"))["case_id"]
    output = write_output(tmp_path / "out.jsonl", [ok_line(case_id)])
    with pytest.raises(DataError, match=r"out\.jsonl:1: the answer for .* is not a responses response"):
        from_batch_output(offline_settings(RESPONSES_FLAGS), inputs, [output], tmp_path / "predictions.jsonl")
    (tmp_path / "taken.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="already exists"):
        from_batch_output(offline_settings(CHAT_FLAGS), inputs, [output], tmp_path / "taken.jsonl")


@pytest.mark.parametrize("entry, status, error", [
    ({"custom_id": "A", "response": None, "error": {"code": "batch_expired", "message": "not run in time"}},
     None, "batch_expired: not run in time"),
    ({"custom_id": "A", "response": {"status_code": 400, "body": {"error": {"message": "bad max_tokens"}}},
      "error": None}, 400, "bad max_tokens"),
    ({"custom_id": "A", "response": {"status_code": 400, "request_id": "x"}, "error": "x" * 1000}, 400,
     "x" * 300 + "…"),
    ({"custom_id": "A", "response": {"status_code": 200}, "error": None}, 200, "status 200 without a body"),
])
def test_every_error_spelling_is_read_and_cut_short(entry, status, error):
    outcome = outcome_of(entry)
    assert (outcome.status_code, outcome.error, outcome.body) == (status, error, None)
