"""predict.py's messages say what is true (issue 35): the engine is the server's software only
where it says so, else "unknown" (never llama-cpp-python's `owned_by: "me"`)."""

from __future__ import annotations

import pytest

from eval.inputs.system_meta import engine_software, system_report_lines


@pytest.mark.parametrize("engine, shown", [
    ({"id": "m", "owned_by": "vllm"}, "vLLM"),
    ({"id": "m", "owned_by": "llamacpp"}, "llama.cpp"),
    ({"id": "m", "owned_by": "me"}, "unknown"),                      # llama-cpp-python
    ({"id": "m", "owned_by": "system"}, "unknown"),                  # OpenAI
    ({"id": "m", "owned_by": "organization-owner"}, "unknown"),
    ({"header.x-vllm-version": "0.9.1"}, "vLLM 0.9.1"),
    ({"header.server": "llama.cpp"}, "llama.cpp"),
    ({"header.server": "uvicorn"}, "unknown"),                       # a Python web server, not the engine
    ({"header.server": "cloudflare"}, "unknown"),
    ({}, "unknown"),
    ({"owned_by": 3}, "unknown"),
])
def test_the_engine_is_named_only_where_the_server_says_so(engine, shown):
    assert engine_software(engine) == shown


def test_the_report_line_says_engine_unknown_rather_than_owned_by():
    system = {"model": "smollm2", "host": "http://127.0.0.1:8000", "endpoint_kind": "chat_completions",
              "engine": {"id": "smollm2", "owned_by": "me"}, "counts": {}, "usage": {}}
    line = system_report_lines(system)[0]
    assert ", engine unknown;" in line and "engine me" not in line
