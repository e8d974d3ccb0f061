"""The Judge phase under provider faults (SPEC §10): a dead, silent, dying or refusing provider
ends the run by the deadline and the rerun sends only what is missing; rate limits pause the
pool and complete; one run per cache; honest hints; no piece of the key anywhere; usage and the
raw replies reach the caller. Small timings, generous margins; speed figures live in
scripts/bench_judge_faults.py."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import count_replies
from eval.errors import ConfigError, JudgeError
from eval.insttrans.record import item_requests, judge_result
from eval.judge_client import run_judge_prompts
from eval.config import JudgeSettings
from eval.io.locking import hold_lock, lock_path_for
from eval.insttrans.prompts import PROMPT_VERSIONS
from eval.providers.health import ProviderDown
from eval.insttrans.verdicts import JudgeItem
from quick_health import quick_health
from judge_server import (
    JudgeServer,
    RateLimit,
    Reply,
    dead_handler,
    default_handler,
    hang_handler,
    key_echo_handler,
    refused_base_url,
    is_soft_prompt,
    token_count,
)

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-fault-SECRET-0123456789abcdefghijkl"
STYLE = ("style_consistency", "译文语体：正式，全文保持一致")


def judge_instances(batch, settings, cache_path, progress=False):
    """Both InstTrans prompts of every item through the client: (results by case_id, judge block)."""
    requests = [request for item in batch for request in item_requests(item)]
    verdicts, block = run_judge_prompts(requests, settings, cache_path, PROMPT_VERSIONS, progress)
    return {item.case_id: judge_result(item.case_id, verdicts) for item in batch}, block


def items(n: int) -> list[JudgeItem]:
    """n distinct items; every third has a soft constraint (n + n // 3 prompts, roughly)."""
    return [JudgeItem(f"f{i}", "zh", "en", f"你好。（{i}）", "Hello.", f"Hello number {i}.",
                      (STYLE,) if i % 3 == 0 else ()) for i in range(n)]


def prompts_of(batch: list[JudgeItem]) -> int:
    return sum(1 + bool(item.soft) for item in batch)


def settings_for(base_url: str, **changes) -> JudgeSettings:
    settings = JudgeSettings(model="gpt-5.6-sol", api_base=base_url, api_key=KEY, concurrency=8, max_retries=6,
                             timeout=5.0, backoff=0.01, backoff_max=0.05, deadline=2.0)
    return replace(settings, **changes)


@pytest.fixture
def quick(monkeypatch):
    """The run's provider health with short cool-downs and a 0.5 s start-up deadline, passed on
    virtual time where the health waits for them (tests/quick_health.py; the defaults are pinned
    in tests/test_provider.py): what is built."""
    return quick_health(monkeypatch, virtual_pauses=True)


def pieces(secret: str = KEY, size: int = 8) -> list[str]:
    return [secret[i:i + size] for i in range(len(secret) - size + 1)]


def built_with_defaults(built: list) -> bool:
    """The Judge built its health leaving the timings quick_health shortens to their defaults."""
    timings = {"cooldown_s", "cooldown_max_s", "startup_deadline_s", "blind_pause_s", "clock"}
    return len(built) == 1 and not timings & set(built[0].passed)


def leaks(text: str | bytes) -> bool:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return any(piece in text for piece in pieces())


# ---------------------------------------------------------------------------------------------
# A provider that is down, silent, dying or not there
# ---------------------------------------------------------------------------------------------

def test_a_dead_provider_aborts_by_the_deadline_with_few_requests_whatever_the_row_count(tmp_path, quick):
    with JudgeServer(dead_handler) as server:
        started = time.monotonic()
        with pytest.raises(ProviderDown) as caught:
            judge_instances(items(600), settings_for(server.base_url, deadline=0.8), tmp_path / "cache.sqlite",
                            progress=False)
        elapsed = time.monotonic() - started
    error = caught.value
    assert error.exit_status == 3 and elapsed < 6.0
    assert "127.0.0.1" in str(error) and "HTTP 500" in str(error) and "cached" in error.hint
    assert len(server.requests) < 40  # one wave of 8, then one probe at a time; not 800 x 7
    assert count_replies(tmp_path / "cache.sqlite") == 0


def test_a_silent_provider_aborts_by_the_deadline(tmp_path, quick):
    with JudgeServer(hang_handler) as server:
        started = time.monotonic()
        with pytest.raises(ProviderDown, match="no complete answer within"):
            judge_instances(items(300), settings_for(server.base_url, timeout=0.15, deadline=0.4), tmp_path / "c.sqlite",
                            progress=False)
        assert time.monotonic() - started < 6.0
        assert len(server.requests) < 30


def test_a_provider_that_dies_mid_run_aborts_and_the_rerun_sends_only_what_is_missing(tmp_path, quick):
    batch = items(120)
    cache = tmp_path / "cache.sqlite"
    with JudgeServer(die_after=50) as server:
        started = time.monotonic()
        with pytest.raises(ProviderDown):
            judge_instances(batch, settings_for(server.base_url, concurrency=4, deadline=0.8), cache, progress=False)
        assert time.monotonic() - started < 6.0
        port = server.port
    kept = count_replies(cache)
    assert 40 <= kept <= 50
    revived = JudgeServer()
    revived.port = port  # the same URL, so the same cache keys
    with revived:
        results, block = judge_instances(batch, settings_for(revived.base_url), cache, progress=False)
    assert len(revived.requests) == block["calls"] == prompts_of(batch) - kept
    assert block["cache_hits"] == kept and len(results) == len(batch)


def test_a_refused_connection_at_the_start_aborts_within_seconds_naming_judge_api_base(tmp_path, quick):
    started = time.monotonic()
    with pytest.raises(ProviderDown) as caught:
        judge_instances(items(200), settings_for(refused_base_url(), deadline=30.0), tmp_path / "c.sqlite",
                        progress=False)
    assert time.monotonic() - started < 8.0
    assert "JUDGE_API_BASE" in caught.value.hint and "ConnectError" in str(caught.value)
    # in use the start-up deadline is the health's own 5 s (pinned in test_provider.py), not the run's 30 s
    assert built_with_defaults(quick)


def test_an_unknown_host_at_the_start_aborts_within_seconds(tmp_path, quick):
    started = time.monotonic()
    with pytest.raises(ProviderDown) as caught:
        judge_instances(items(20), settings_for("http://judge.invalid/v1", deadline=30.0), tmp_path / "c.sqlite",
                        progress=False)
    assert time.monotonic() - started < 10.0 and "JUDGE_API_BASE" in caught.value.hint and built_with_defaults(quick)


def test_a_quiet_run_says_why_it_waits_on_stderr(tmp_path, capfd, quick):
    with JudgeServer(dead_handler) as server:
        with pytest.raises(ProviderDown):
            judge_instances(items(50), settings_for(server.base_url, deadline=0.8), tmp_path / "c.sqlite",
                            progress=False)
    err = capfd.readouterr().err
    assert "Judge: provider not answering" in err and "Judge: giving up on http://127.0.0.1" in err


# ---------------------------------------------------------------------------------------------
# Rate limits
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("header", ["retry-after", "retry-after-ms", "x-ratelimit-reset-requests",
                                    "llm_provider-retry-after", "retry-after-date", None])
def test_a_rate_limited_run_completes_with_every_header_spelling_or_none(tmp_path, header, monkeypatch):
    """80 prompts at 40 a second: one burst of 429s, each announcing the window's end (a whole second
    for the whole-second spellings). The pauses pass on virtual time (tests/quick_health.py), which
    the stand-in's windows share: the run waits for nothing, and each 429's wait is checked as read."""
    built = quick_health(monkeypatch, virtual_pauses=True)
    batch = items(60)
    limiter = RateLimit(40, header, window=1.0, clock=lambda: time.monotonic() + (built[0].skew if built else 0.0))
    with JudgeServer(limiter, latency=0.01) as server:
        results, block = judge_instances(batch, settings_for(server.base_url, max_retries=0), tmp_path / "c.sqlite",
                                         progress=False)
    needed = prompts_of(batch)
    assert len(results) == len(batch) and block["rate_limited"] == limiter.rejected == len(built[0].waits)
    # a burst of 429s was met; with OpenAI's headers the client may pause at "remaining 0" before any
    assert limiter.rejected > 0 or header == "x-ratelimit-reset-requests"
    assert needed <= len(server.requests) <= 2.5 * needed and block["calls"] == len(server.requests)
    waits = built[0].waits  # the announced wait as send read it off each 429; a blind pause without a header
    assert built[0].skew > 0 or not limiter.rejected  # the pool paused (on the virtual clock)
    assert all(wait is None for wait in waits) if header is None else all(wait is not None and 0 < wait <= 2.01
                                                                          for wait in waits)
    if header in ("retry-after", "llm_provider-retry-after") and waits:
        assert min(waits) == 1.0  # whole seconds, as HTTP writes them


def test_the_progress_bar_shows_in_flight_retries_429s_and_the_pause(tmp_path, capfd, monkeypatch):
    import eval.judge_client as judge_client
    quick_health(monkeypatch)  # quick cool-downs, the pause in real time: the bar looks at it
    monkeypatch.setattr(judge_client, "WATCH_EVERY_S", 0.05)  # the bar's refresh, 1 s in use
    # a half-second pause in real time (the bar's own clock): ten looks; its length is not what is tested
    # (quick cool-downs: the first 429 before any answer is a probe, otherwise spaced by the 1 s default)
    queue = [Reply(429, {"error": {"message": "slow down"}}, {"retry-after-ms": "500"})]
    with JudgeServer(lambda request: queue.pop(0) if queue else default_handler(request)) as server:
        judge_instances(items(6), settings_for(server.base_url, concurrency=1), tmp_path / "c.sqlite", progress=True)
    err = capfd.readouterr().err
    assert "in flight=" in err and "retries=1" in err and "429s=1" in err
    assert "rate limited, resuming in" in err


# ---------------------------------------------------------------------------------------------
# Honest hints and secrets
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("status", [401, 403])
def test_a_rejected_key_names_the_host_or_the_provider_behind_it(tmp_path, status):
    with JudgeServer(lambda request: Reply(status, {"error": {"message": "invalid upstream key"}})) as server:
        with pytest.raises(ConfigError) as caught:
            judge_instances(items(3), settings_for(server.base_url), tmp_path / "c.sqlite", progress=False)
    assert str(caught.value).index("invalid upstream key") < str(caught.value).index("hint")
    assert "rejected by JUDGE_API_BASE's host, or by the provider behind it" in caught.value.hint


def test_a_400_shows_the_providers_words_and_the_likely_settings_without_claiming_which(tmp_path):
    with JudgeServer(lambda request: Reply(400, {"error": {"message": "No connected db."}})) as server:
        with pytest.raises(ConfigError) as caught:
            judge_instances(items(3), settings_for(server.base_url), tmp_path / "c.sqlite", progress=False)
    assert "HTTP 400: No connected db." in str(caught.value)
    hint = caught.value.hint
    assert all(flag in hint for flag in ("--judge-model", "JUDGE_API_BASE", "JUDGE_API_KEY"))


def test_a_key_quoted_back_leaks_nowhere(tmp_path, capfd):
    with JudgeServer(key_echo_handler) as server:
        with pytest.raises(ConfigError) as caught:
            judge_instances(items(3), settings_for(server.base_url), tmp_path / "c.sqlite", progress=True)
    assert "Authentication Error" in str(caught.value)
    assert not leaks(str(caught.value)) and not leaks("".join(capfd.readouterr()))
    for path in tmp_path.iterdir():
        assert not leaks(path.read_bytes())


def test_a_key_quoted_back_in_a_failing_200_leaks_nowhere(tmp_path, capfd):
    def handler(request):
        return Reply(200, {"error": {"message": "x" * 280 + request.headers["authorization"]}})
    with JudgeServer(handler) as server:
        with pytest.raises(ProviderDown) as caught:
            judge_instances(items(3), settings_for(server.base_url, deadline=1.0), tmp_path / "c.sqlite",
                            progress=False)
    assert "carrying an error" in str(caught.value)
    assert not leaks(str(caught.value)) and not leaks("".join(capfd.readouterr()))


def test_a_reply_over_64_kb_is_invalid_and_not_cached(tmp_path):
    def handler(request):
        reply = default_handler(request)
        reply.body["padding"] = "p" * (70 * 1024)
        return reply
    with JudgeServer(handler) as server:
        with pytest.raises(JudgeError, match="larger than 64 KB") as caught:
            judge_instances(items(3), settings_for(server.base_url), tmp_path / "c.sqlite", progress=False)
    assert caught.value.exit_status == 3 and count_replies(tmp_path / "c.sqlite") == 0


# ---------------------------------------------------------------------------------------------
# Usage and the raw replies
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["gpt-5.6-sol", "gpt-4o"])
def test_usage_is_summed_per_prompt_and_each_result_carries_its_cache_key_and_reply(tmp_path, model):
    batch = items(9)
    with JudgeServer() as server:
        results, block = judge_instances(batch, settings_for(server.base_url, model=model), tmp_path / "c.sqlite",
                                         progress=False)
        expected = {"quality": [0, 0], "soft": [0, 0]}
        for request in server.requests:
            kind = "soft" if is_soft_prompt(request.prompt) else "quality"
            reply = default_handler(request)
            text = (reply.body["output"][1]["content"][0]["text"] if "output" in reply.body
                    else reply.body["choices"][0]["message"]["content"])
            expected[kind][0] += token_count(request.prompt)
            expected[kind][1] += token_count(text)
        rerun_results, rerun_block = judge_instances(batch, settings_for(server.base_url, model=model),
                                                     tmp_path / "c.sqlite", progress=False)
    usage = block["usage"]
    assert usage["quality"]["replies"] == 9 and usage["soft"]["replies"] == 3
    for kind, (input_tokens, output_tokens) in expected.items():
        assert (usage[kind]["input_tokens"], usage[kind]["output_tokens"]) == (input_tokens, output_tokens)
        assert usage[kind]["total_tokens"] == input_tokens + output_tokens
    assert rerun_block["usage"] == {}  # the cache costs nothing
    keys = {row[0]: row[1] for row in sqlite3.connect(tmp_path / "c.sqlite").execute("SELECT key, reply FROM judge_replies")}
    for case_id, result in results.items():
        assert set(result.replies) == ({"quality", "soft"} if int(case_id[1:]) % 3 == 0 else {"quality"})
        for name, entry in result.replies.items():
            assert keys[entry["cache_key"]] == entry["reply"] and json.loads(entry["reply"])
        assert rerun_results[case_id].replies == result.replies


# ---------------------------------------------------------------------------------------------
# One run per cache file and per output directory
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("is_dir", [True, False])
def test_a_second_holder_is_refused_at_once_naming_the_first(tmp_path, is_dir):
    target = tmp_path / ("out" if is_dir else "cache.sqlite")
    if is_dir:
        target.mkdir()
    with hold_lock(target, "output directory", is_dir=is_dir):
        started = time.monotonic()
        with pytest.raises(ConfigError, match=rf"in use by pid {os.getpid()}") as caught:
            with hold_lock(target, "output directory", is_dir=is_dir):
                pass
        assert time.monotonic() - started < 1.0 and caught.value.exit_status == 2
    with hold_lock(target, "output directory", is_dir=is_dir):  # released: the next run may take it
        pass


def test_locks_on_different_paths_do_not_conflict(tmp_path):
    with hold_lock(tmp_path / "a.sqlite", "Judge cache"), hold_lock(tmp_path / "b.sqlite", "Judge cache"):
        assert lock_path_for(tmp_path / "a.sqlite") != lock_path_for(tmp_path / "b.sqlite")


def test_a_lock_held_by_another_process_names_it_and_dies_with_it(tmp_path):
    target = tmp_path / "cache.sqlite"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
        "from eval.io.locking import hold_lock\n"
        "with hold_lock(Path(sys.argv[2]), 'Judge cache'):\n print('held', flush=True); time.sleep(60)"),
        str(ROOT), str(target)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ConfigError, match=rf"in use by pid {holder.pid}"):
            with hold_lock(target, "Judge cache"):
                pass
    finally:
        holder.kill()
        holder.wait(10)
    with hold_lock(target, "Judge cache"):  # the kernel dropped the dead holder's lock
        pass


def test_two_runs_sharing_one_cache_do_not_both_ask(tmp_path):
    with JudgeServer() as server, hold_lock(tmp_path / "c.sqlite", "Judge cache"):
        with pytest.raises(ConfigError, match="Judge cache .* is in use"):
            judge_instances(items(3), settings_for(server.base_url), tmp_path / "c.sqlite", progress=False)
        assert server.requests == []


def test_evaluate_py_refuses_a_cache_another_run_holds_and_aborts_on_a_dead_provider(tmp_path):
    """End to end: exit 2 at once for the held cache, exit 3 and no result files for a dead provider."""
    rows = [json.loads(line) for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").splitlines()[:30]]
    data = tmp_path / "data.jsonl"
    predictions = tmp_path / "predictions.jsonl"
    data.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    predictions.write_text("".join(json.dumps({"case_id": row["case_id"], "prediction": row["reference"]},
                                              ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")

    def evaluate(base_url: str, out: str, *extra: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "JUDGE_API_BASE": base_url, "JUDGE_API_KEY": KEY}
        return subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--data", str(data), "--predictions",
                               str(predictions), "--output-dir", str(tmp_path / out), "--judge-cache",
                               str(tmp_path / "cache.sqlite"), "--quiet", *extra],
                              env=env, capture_output=True, text=True, timeout=60)

    with JudgeServer(dead_handler) as server:
        with hold_lock(tmp_path / "cache.sqlite", "Judge cache"):
            started = time.monotonic()
            held = evaluate(server.base_url, "held")
            assert held.returncode == 2 and f"pid {os.getpid()}" in held.stderr
            assert time.monotonic() - started < 15 and server.requests == []
        dead = evaluate(server.base_url, "dead", "--judge-deadline", "1")
    assert dead.returncode == 3, dead.stderr
    assert "failed every request: HTTP 500" in dead.stderr and "127.0.0.1" in dead.stderr and "cached" in dead.stderr
    result_files = [path.name for path in (tmp_path / "dead").iterdir()] if (tmp_path / "dead").exists() else []
    assert not {"scores.jsonl", "summary.json", "report.md", "report.html"} & set(result_files)
    assert not leaks(dead.stderr + dead.stdout + held.stderr)
