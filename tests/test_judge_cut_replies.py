"""A Judge reply cut by the length limit gets the repair turn with a hint; --judge-max-tokens sets
the limit (in the signature only when set); a failure that a rerun meets again says so and names
the flag that changes it (docs/judge.md#errors-and-provider-faults)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evaluate
from eval.exits import run_cli
from judge_server import JudgeServer, Recorded, default_handler, is_repair, text_reply

ROOT = Path(__file__).resolve().parent.parent
SANDGLASS = ["--benchmark", "sandglass", "--predictions", str(ROOT / "data/sandglass/example_predictions.jsonl"),
             "--limit", "6"]
IFMTBENCH = ["--dataset", str(ROOT / "data/ifmtbench"), "--predictions",
             str(ROOT / "data/ifmtbench/example_predictions.jsonl"), "--limit", "6"]


def _run(tmp_path: Path, monkeypatch, handler, args: list[str], *extra: str) -> tuple[int, JudgeServer, Path]:
    monkeypatch.setenv("JUDGE_API_KEY", "sk-cut-test")
    out = tmp_path / "out"
    with JudgeServer(handler) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, [*args, "--output-dir", str(out), "--judge-backoff", "0.001", "--quiet",
                                         "--judge-concurrency", "1", *extra])
    return status, server, out


def cut_first(request: Recorded):
    """The first question is cut mid-verdict (a reply that rambled); the repair turn answers."""
    if not is_repair(request.body):
        return text_reply(request.path, 'Let me think about this carefully. The candidate', incomplete=True)
    return default_handler(request)


def always_cut(request: Recorded):
    return text_reply(request.path, 'Let me think about this carefully. The candidate', incomplete=True)


def test_a_cut_reply_gets_the_repair_turn_with_a_hint(tmp_path, monkeypatch, capfd):
    status, server, out = _run(tmp_path, monkeypatch, cut_first, SANDGLASS)
    assert status == 0, capfd.readouterr().err
    repairs = [request for request in server.requests if is_repair(request.body)]
    assert len(repairs) == 6 == len(server.requests) // 2  # one repair turn per prompt
    hint = repairs[0].body["messages"][2]["content"]
    assert "cut off by the length limit" in hint and 'finish_reason "length"' in hint and "keep the reply short" in hint
    assert repairs[0].body["messages"][1]["content"] == "Let me think about this carefully. The candidate"
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["judge"]["repairs"] == {"sandglass_quality": 6}
    assert summary["judge"]["health"]["kinds"]["sandglass_quality"]["repaired"] == 6
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    judged = [row for row in rows if row["quality_detail"]]
    assert all(row["quality_detail"]["repaired"] for row in judged)


def test_a_reply_cut_again_after_the_repair_says_the_rerun_repeats_it_and_names_the_flag(tmp_path, monkeypatch, capfd):
    status, server, out = _run(tmp_path, monkeypatch, always_cut, IFMTBENCH)
    err = capfd.readouterr().err
    assert status == 3 and not (out / "summary.json").exists()
    assert "incomplete response" in err and "after a repair turn" in err
    assert "temperature 0 and will most likely get the same reply" in err
    assert "--judge-max-tokens N sets the reply's limit (now 8192" in err
    assert "rerun to resume" not in err


def test_without_repairs_a_cut_reply_aborts_naming_the_flags(tmp_path, monkeypatch, capfd):
    status, server, _ = _run(tmp_path, monkeypatch, always_cut, SANDGLASS, "--judge-repairs", "0")
    err = capfd.readouterr().err
    assert status == 3 and not any(is_repair(request.body) for request in server.requests)
    assert "incomplete response" in err and "--judge-max-tokens N" in err and "--judge-repairs 1" in err
    assert "(now 2048" in err


def test_an_invalid_verdict_twice_at_temperature_0_says_it_repeats(tmp_path, monkeypatch, capfd):
    status, *_ = _run(tmp_path, monkeypatch, lambda request: text_reply(request.path, '{"quality": 0.7}'), SANDGLASS)
    err = capfd.readouterr().err
    assert status == 3 and "after a repair turn" in err
    assert "will most likely get the same reply" in err and "--judge-structured" in err and "--judge-model" in err
    assert "--judge-max-tokens" not in err  # nothing was cut


def test_judge_max_tokens_sets_the_limit_and_is_signed_only_when_given(tmp_path, monkeypatch):
    status, server, out = _run(tmp_path / "a", monkeypatch, default_handler, IFMTBENCH)
    assert status == 0
    default_bodies = [request.raw for request in server.requests]
    signature = json.loads((out / "summary.json").read_text(encoding="utf-8"))["signature"]
    assert all(b'"max_tokens":8192' in body or b'"max_tokens": 8192' in body for body in default_bodies)
    assert "max_tokens:8192" in signature
    status, server, out = _run(tmp_path / "b", monkeypatch, default_handler, IFMTBENCH, "--judge-max-tokens", "300")
    assert status == 0 and all(request.body["max_tokens"] == 300 for request in server.requests)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert "max_tokens:300" in summary["signature"] and "max_tokens:8192" not in summary["signature"]
    assert summary["judge"]["params"]["max_tokens"] == 300
    # everything else in the request is as before
    assert [request.raw.replace(b"300", b"8192") for request in server.requests] == default_bodies


def test_judge_max_tokens_on_the_responses_endpoint(tmp_path, monkeypatch):
    status, server, out = _run(tmp_path, monkeypatch, default_handler, SANDGLASS, "--judge-model", "gpt-5.6-sol",
                               "--judge-max-tokens", "512")
    assert status == 0 and all(request.body["max_output_tokens"] == 512 for request in server.requests)


@pytest.mark.parametrize("value", ["0", "-3"])
def test_judge_max_tokens_must_be_positive(tmp_path, monkeypatch, capfd, value):
    status, server, _ = _run(tmp_path, monkeypatch, default_handler, SANDGLASS, "--judge-max-tokens", value)
    assert status == 2 and "--judge-max-tokens must be 1 or more" in capfd.readouterr().err
    assert server.requests == []


def test_judge_repairs_takes_0_or_1(tmp_path, monkeypatch, capfd):
    with pytest.raises(SystemExit) as caught:
        _run(tmp_path, monkeypatch, default_handler, SANDGLASS, "--judge-repairs", "2")
    assert caught.value.code == 2 and "invalid choice: 2 (choose from 0, 1)" in capfd.readouterr().err
    assert "--judge-repairs {0,1}" in evaluate.evaluate_parser().format_help()
