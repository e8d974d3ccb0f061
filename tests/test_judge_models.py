"""The Judge's name against the server's /models list (docs/judge.md#the-judges-name), and the
structured-output schema forms every engine enforces (docs/judge.md#verdicts-are-strict)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evaluate
from eval.benchmarks import get_benchmark
from eval.exits import run_cli
from eval.judge_client import verdict_schema
from eval.judge.models import listed_models, mismatch_warning, model_check
from eval.run.pipeline import load_benchmark_data
from eval.config import DataSource
from judge_server import JudgeServer

ROOT = Path(__file__).resolve().parent.parent
SANDGLASS = ["--benchmark", "sandglass", "--predictions", str(ROOT / "data/sandglass/example_predictions.jsonl"),
             "--limit", "3"]


def _run(tmp_path, monkeypatch, models, *extra: str) -> tuple[int, JudgeServer, Path]:
    monkeypatch.setenv("JUDGE_API_KEY", "sk-models-test")
    out = tmp_path / "out"
    server = JudgeServer()
    server.models = models
    with server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, [*SANDGLASS, "--output-dir", str(out), "--quiet", *extra])
    return status, server, out


def _check(out: Path) -> dict | None:
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))["judge"].get("model_check")


def test_a_default_name_the_server_does_not_list_is_one_warning_and_both_names_are_recorded(tmp_path, monkeypatch,
                                                                                          capfd):
    status, server, out = _run(tmp_path, monkeypatch, ["smollm2-135m"])
    err = capfd.readouterr().err
    assert status == 0 and len(server.probes) == 1 and server.probes[0].path == "/v1/models"
    assert err.count("warning: the Judge server lists") == 1
    assert "'smollm2-135m', not 'gemini-2.5-flash'" in err and "--judge-model" in err
    assert _check(out) == {"asked": "gemini-2.5-flash", "server_models": ["smollm2-135m"], "listed": False}
    assert server.probes[0].headers["authorization"] == "Bearer sk-models-test"


def test_a_rerun_answered_wholly_from_the_cache_asks_the_server_nothing(tmp_path, monkeypatch):
    """The /models look-up goes with the first request sent: a rerun from the cache (offline, a
    re-render) sends neither, and records no check; the first run made one look-up."""
    monkeypatch.setenv("JUDGE_API_KEY", "sk-models-test")
    server = JudgeServer()
    server.models = ["smollm2-135m"]
    cache = tmp_path / "cache.sqlite"
    with server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        for name in ("first", "again"):
            assert run_cli(evaluate.main, [*SANDGLASS, "--output-dir", str(tmp_path / name), "--quiet",
                                           "--judge-cache", str(cache)]) == 0
            if name == "first":
                sent = len(server.requests)
    assert sent > 0 and len(server.requests) == sent and len(server.probes) == 1
    assert _check(tmp_path / "first")["listed"] is False and _check(tmp_path / "again") is None


def test_a_listed_name_passes_silently(tmp_path, monkeypatch, capfd):
    status, _, out = _run(tmp_path, monkeypatch, ["smollm2-135m", "other"], "--judge-model", "smollm2-135m")
    assert status == 0 and "warning" not in capfd.readouterr().err
    assert _check(out) == {"asked": "smollm2-135m", "server_models": ["smollm2-135m", "other"], "listed": True}


@pytest.mark.parametrize("models", [None, "not json", {"data": "x"}, {"data": [{"name": "no id"}]}, {"object": "list"}])
def test_a_server_without_a_list_is_unknown_and_never_fatal(tmp_path, monkeypatch, capfd, models):
    status, _, out = _run(tmp_path, monkeypatch, models)
    assert status == 0 and "warning" not in capfd.readouterr().err
    assert _check(out) == {"asked": "gemini-2.5-flash", "server_models": None, "listed": None}


def test_the_list_is_read_bounded():
    assert listed_models({"data": [{"id": "a" * 500}]}) == ["a" * 200]
    check = model_check("x", [f"m{i}" for i in range(50)])
    assert len(check["server_models"]) == 20 and check["listed"] is False
    assert "and 15 more" in mismatch_warning(check)
    assert mismatch_warning(model_check("x", None)) is None


# ---------------------------------------------------------------------------------------------
# Structured-output schema forms
# ---------------------------------------------------------------------------------------------

def _portable(node: object, where: str = "$") -> list[str]:
    """Where a schema leaves the subset that llama.cpp's grammar converter (llama-server and
    llama-cpp-python), vLLM's guided decoding and OpenAI's strict mode all enforce: objects with
    every property required and no others; leaves of one `type` with an `enum` of that type; null
    only as an `anyOf` branch. A type list (`["integer", "null"]`) is outside it."""
    if not isinstance(node, dict):
        return [f"{where}: not a schema"]
    if "anyOf" in node:
        problems = [] if set(node) == {"anyOf"} else [f"{where}: anyOf with siblings"]
        for index, branch in enumerate(node["anyOf"]):
            if branch == {"type": "null"}:
                continue
            problems += _portable(branch, f"{where}.anyOf[{index}]")
        return problems
    kind = node.get("type")
    if not isinstance(kind, str):
        return [f"{where}: type {kind!r} is not one type"]
    if kind == "object":
        problems = []
        if node.get("additionalProperties") is not False or sorted(node.get("required", [])) != sorted(node["properties"]):
            problems.append(f"{where}: an object must require every property and allow no other")
        for name, child in node["properties"].items():
            problems += _portable(child, f"{where}.{name}")
        return problems
    python = {"integer": int, "number": (int, float)}[kind]
    if not node.get("enum") or any(isinstance(value, bool) or not isinstance(value, python) for value in node["enum"]):
        return [f"{where}: enum {node.get('enum')!r} is not of type {kind}"]
    return []


def test_the_portable_checker_refuses_the_old_rubric_form():
    old = {"type": "object", "properties": {"s": {"type": ["integer", "null"], "enum": [0, 1, None]}},
           "required": ["s"], "additionalProperties": False}
    assert _portable(old) == ["$.s: type ['integer', 'null'] is not one type"]


@pytest.mark.parametrize("name, source", [("insttrans", DataSource()), ("sandglass", DataSource()),
                                          ("ifmtbench", DataSource(dataset=str(ROOT / "data/ifmtbench")))])
def test_every_prompt_kinds_schema_is_in_the_portable_subset(name, source):
    bench = get_benchmark(name)
    rows = load_benchmark_data(bench, source).rows
    predictions = {row["case_id"]: "a prediction" for row in rows}
    kinds = {}
    for request in bench.prompt_sets["harness"].judge_requests(rows, predictions):
        kinds.setdefault(request.name, verdict_schema(request.validate))
    assert kinds and all(schema is not None for schema in kinds.values())
    for kind, schema in kinds.items():
        assert _portable(schema) == [], kind
    if name == "ifmtbench":
        style = kinds["ifmt_rubric"]["properties"]["scores"]["properties"]["style"]
        assert style == {"anyOf": [{"type": "integer", "enum": [0, 1, 2, 3, 4, 5]}, {"type": "null"}]}


def test_a_404_from_a_chat_only_server_says_the_name_routed_the_request_to_responses(tmp_path, monkeypatch, capfd):
    """InstTrans's default Judge (gpt-5.6-sol) goes to /responses; a llama.cpp server answers 404 there."""
    from judge_server import Reply, default_handler

    def chat_only(request):
        return Reply(404, {"error": {"message": "Not Found"}}) if request.path.endswith("/responses") else \
            default_handler(request)

    monkeypatch.setenv("JUDGE_API_KEY", "sk-models-test")
    with JudgeServer(chat_only) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, ["--predictions", str(ROOT / "data/example_predictions.jsonl"), "--limit", "2",
                                         "--output-dir", str(tmp_path / "out"), "--quiet"])
    err = capfd.readouterr().err
    assert status == 2 and "HTTP 404" in err
    assert "the name 'gpt-5.6-sol' sends the request to" in err and "/v1/responses" in err
    assert "goes to /responses" in err and "--judge-model" in err
