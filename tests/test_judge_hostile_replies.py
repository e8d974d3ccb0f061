"""Hostile Judge replies end to end (issue 34): no piece of a key reaches a file, and a reply no
parser expects (a 4,301-digit number, a lone surrogate, absurd usage counts) is a repair turn or
a clean line, never "unexpected error" after every verdict was paid for.

Each run is `evaluate.py` against the stand-in Judge (tests/judge_server.py), which quotes the
key it was sent in each shape of the issue; afterwards every byte under the test's folder (the
results, explorer.html, the reports, the Judge cache with its WAL) is searched for every
8-character piece of the key.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import evaluate
import release_folders as rf
from conftest import make_row, write_jsonl
from eval.exits import run_cli
from eval.prediction.runner import build_settings, run_predict
from eval.providers.redaction import REDACTED, without_secrets
from judge_server import (JudgeServer, Reply, default_handler, hostile_reply_handler, key_quoting_handler,
                          text_reply)

ROOT = Path(__file__).resolve().parent.parent
# A run of letters (a fence's language tag) and a lone 0 (IFMTBench's release reads the first 0 or 1
# standing alone: the key's own, which only the reply as it came holds).
KEY = "sk-ifmt-0-ABCDEFGHijklmnopQRST-9f8e7d6c5b4a"
STYLE_LINE = "译文语体：正式，全文保持一致"
COREF_LINE = '指代一致：文中的"她"均指林晓'
ROWS = [
    make_row("r1", source_text="他走进了房间。", reference="He walked into the room.", scenario="novel",
             domain="小说", constraints=[STYLE_LINE], constraint_ids=["style_consistency"],
             style={"formality": "formal"}),
    make_row("r2", source_text="林晓说她明天来。", reference="Lin Xiao said she would come tomorrow.",
             scenario="novel", domain="小说", constraints=[COREF_LINE], constraint_ids=["coref_resolution"]),
    make_row("r3"),
]
PREDICTIONS = [{"case_id": "r1", "prediction": "He entered the room. [q=0.5] [s=0.5]"},
               {"case_id": "r2", "prediction": "Lin Xiao said she would come tomorrow."},
               {"case_id": "r3", "prediction": "Hello, world [q=0]"}]
HUGE = "9" * 4301


def key_pieces(key: str = KEY) -> list[bytes]:
    return [key[i:i + 8].encode("ascii") for i in range(len(key) - 7)]


def leaked(folder: Path, key: str = KEY) -> list[str]:
    """Every file under `folder` holding an 8-character piece of `key`, with the piece."""
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path.name}: {piece.decode()}" for piece in key_pieces(key) if piece in data]
    return found


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    predictions = write_jsonl(tmp_path / "predictions.jsonl", PREDICTIONS)
    return data, predictions, tmp_path / "out", tmp_path / "cache.sqlite"


def evaluate_with(server: JudgeServer, files, monkeypatch, out: Path | None = None, *extra: str) -> int:
    monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
    data, predictions, default_out, cache = files
    return run_cli(evaluate.main, ["--data", str(data), "--predictions", str(predictions), "--output-dir",
                                   str(out or default_out), "--judge-cache", str(cache), "--judge-backoff", "0.001",
                                   "--quiet", *extra])


def scores(out: Path) -> dict:
    return {row["case_id"]: row for row in map(json.loads, (out / "scores.jsonl").read_text("utf-8").splitlines())}


def verdicts(out: Path) -> dict:
    return {case_id: (row["quality"], [entry.get("score") for entry in row["constraints"]])
            for case_id, row in scores(out).items()}


def judge_details(out: Path) -> list[dict]:
    details = []
    for row in scores(out).values():
        details += [row["quality_detail"]] + [entry["detail"] for entry in row["constraints"] if entry["kind"] == "soft"]
    return details


@pytest.fixture
def expected(files, monkeypatch, tmp_path):
    """The verdicts of a Judge that quotes no key (the same scores, read off the same verdicts)."""
    with JudgeServer(default_handler) as server:
        out = tmp_path / "plain"
        assert evaluate_with(server, (*files[:3], tmp_path / "plain.sqlite"), monkeypatch, out) == 0
    return verdicts(out)


@pytest.mark.parametrize("shape", ["repair", "fence"])
def test_no_piece_of_the_key_reaches_a_file_and_every_verdict_is_the_same(files, monkeypatch, capfd, expected,
                                                                          shape, tmp_path):
    with JudgeServer(key_quoting_handler(shape)) as server:
        status = evaluate_with(server, files, monkeypatch)
        first_calls = len(server.requests)
        rerun = evaluate_with(server, files, monkeypatch, tmp_path / "rerun")
        rerun_calls = len(server.requests) - first_calls
    _, stderr = capfd.readouterr()
    assert status == rerun == 0, stderr
    out = files[2]
    assert leaked(tmp_path) == [] and not any(piece.decode() in stderr for piece in key_pieces())
    assert verdicts(out) == expected == verdicts(tmp_path / "rerun")  # read off the replies as they came
    assert stderr.count("a reply quotes an API key") == 2  # one line per run
    details = judge_details(out)
    assert all(REDACTED in detail["reply" if shape == "fence" else "invalid_reply"] for detail in details)
    if shape == "repair":
        assert all(detail["repaired"] and REDACTED not in detail["reply"] for detail in details)
    # a reply that quoted the key was not cached: asked again (a repair turn after it is cached, its
    # request kept redacted, and served on the rerun: the same conversation has the same hash)
    assert rerun_calls == (len(details) if shape == "repair" else first_calls)
    assert (out / "scores.jsonl").read_bytes() == (tmp_path / "rerun" / "scores.jsonl").read_bytes()


def test_a_key_inside_the_prompt_is_cached_with_the_request_redacted(files, monkeypatch, tmp_path):
    """A prediction that quotes the Judge's key: the cache keeps its request for audit redacted; the
    verdict is found by the hash of the bytes sent, so a rerun is served from the cache."""
    import sqlite3

    data, _, out, cache = files
    predictions = write_jsonl(tmp_path / "quoting.jsonl",
                              [dict(PREDICTIONS[0], prediction=f"He entered. {KEY[5:30]}"), *PREDICTIONS[1:]])
    with JudgeServer(default_handler) as server:
        assert evaluate_with(server, (data, predictions, out, cache), monkeypatch) == 0
        calls = len(server.requests)
        assert evaluate_with(server, (data, predictions, out, cache), monkeypatch) == 0
        assert len(server.requests) == calls
    # (the prediction itself is the user's input, scored and shown as given: only the cache is checked)
    assert [name for name in leaked(tmp_path) if name.startswith(cache.name)] == []
    with sqlite3.connect(cache) as connection:
        requests = [row[0] for row in connection.execute("SELECT request FROM judge_replies")]
    assert len(requests) == 5 and sum(REDACTED in request for request in requests) == 2  # quality and soft of r1


# ---------------------------------------------------------------------------------------------
# IFMTBench's release: the key in the prose around the verdict the release reads
# ---------------------------------------------------------------------------------------------

def _ifmt_release(tmp_path: Path) -> tuple[Path, Path]:
    data = ROOT / "data" / "ifmtbench"
    release = rf.make_ifmtbench_release(tmp_path / "IFMTBench")
    (release / "data").mkdir()
    for name in ("test_single_constraint", "test_multi_constraint"):
        shutil.copyfile(data / "data" / f"{name}.jsonl", release / "data" / f"{name}.jsonl")
    return release, data / "example_predictions.jsonl"


def _glossary_fallbacks(out: Path) -> list[dict]:
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text("utf-8").splitlines()]
    return [entry for row in rows for entry in row["constraints"]
            if entry["id"] == "glossary" and entry["detail"].get("method") == "judge_fallback"]


def test_the_key_in_release_glossary_prose_is_redacted_and_its_own_0_still_decides(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    release, predictions = _ifmt_release(tmp_path)
    out = tmp_path / "out"
    with JudgeServer(key_quoting_handler("prose")) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, ["--dataset", str(release), "--predictions", str(predictions), "--output-dir",
                                         str(out), "--judge-cache", str(tmp_path / "cache.sqlite"), "--quiet",
                                         "--protocol", "release"])
    _, stderr = capfd.readouterr()
    assert status == 0, stderr
    assert leaked(tmp_path) == []
    fallbacks = _glossary_fallbacks(out)
    assert len(fallbacks) >= 5
    for entry in fallbacks:  # the stored prose says "Verdict: 1"; the reply as it came had the key's 0 first
        assert entry["passed"] is False
        assert entry["detail"]["judge"]["reply"] == f"Judged with key {REDACTED}. Verdict: 1"


def test_a_lone_surrogate_in_a_valid_release_reply_is_written_as_its_escape(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    release, predictions = _ifmt_release(tmp_path)
    out = tmp_path / "out"

    def handler(request):
        text = "Verdict: 1 \ud800" if "0 or 1" in request.prompt else '\udfff {"scores": {"style": 4, "background": 5}}'
        return text_reply(request.path, text, prompt=request.prompt)

    with JudgeServer(handler) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        argv = ["--dataset", str(release), "--predictions", str(predictions), "--output-dir", str(out),
                "--judge-cache", str(tmp_path / "cache.sqlite"), "--quiet", "--protocol", "release"]
        status = run_cli(evaluate.main, argv)
        calls = len(server.requests)
        assert run_cli(evaluate.main, argv) == 0  # nothing cached: asked again, the same results
        assert len(server.requests) == 2 * calls
    _, stderr = capfd.readouterr()
    assert status == 0, stderr
    assert "lone surrogate" in stderr
    fallbacks = _glossary_fallbacks(out)
    assert fallbacks and all(entry["passed"] and entry["detail"]["judge"]["reply"] == "Verdict: 1 \ud800"
                             for entry in fallbacks)
    for name in ("scores.jsonl", "summary.json", "report.md", "report.html", "explorer.html"):
        text = (out / name).read_bytes().decode("utf-8")  # valid UTF-8: the surrogate as its escape
        assert "\\ud800" in text or name in ("summary.json", "report.md", "report.html")


# ---------------------------------------------------------------------------------------------
# Replies no parser expects: a repair turn or one clean line
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("first", [f'{{"quality": {HUGE}}}', f'{{"scores": {{"x": -{HUGE}}}}}',
                                   '{"quality": "\ud800"}', '\udc00{"quality": 1}'],
                         ids=["4,301 digits", "-4,301 digits inside", "a lone surrogate inside", "a lone surrogate before"])
def test_an_unreadable_first_reply_is_repaired(files, monkeypatch, capfd, expected, first):
    with JudgeServer(hostile_reply_handler(first)) as server:
        status = evaluate_with(server, files, monkeypatch)
    _, stderr = capfd.readouterr()
    assert status == 0, stderr
    out = files[2]
    assert verdicts(out) == expected
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    assert sum(summary["judge"]["repairs"].values()) == 5
    assert all(detail["repaired"] and detail["invalid_reply"] == first for detail in judge_details(out))
    for name in ("report.md", "report.html", "explorer.html"):
        (out / name).read_bytes().decode("utf-8")


def test_absurd_usage_counts_are_left_out_with_one_line(files, monkeypatch, capfd, expected):
    with JudgeServer(hostile_reply_handler(usage=int("9" * 4300))) as server:
        status = evaluate_with(server, files, monkeypatch)
    _, stderr = capfd.readouterr()
    assert status == 0, stderr
    assert stderr.count("token count above") == 1
    out = files[2]
    assert verdicts(out) == expected
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    assert summary["judge"]["usage"] == {}
    assert "Judge" in (out / "report.md").read_text("utf-8")


# ---------------------------------------------------------------------------------------------
# predict.py: a model that quotes its key
# ---------------------------------------------------------------------------------------------

def predict_one(tmp_path: Path, handler, api_key: str) -> tuple[dict, list[str]]:
    """predict.py on one input against a stand-in model: the written record and the notices."""
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(json.dumps({"case_id": "c1", "messages": [{"role": "user", "content": "你好"}]}) + "\n",
                      encoding="utf-8")
    with JudgeServer(handler) as server:
        settings = build_settings(model="stand-in", api_base=server.base_url, api_key=api_key, concurrency=1,
                                  timeout=5.0, deadline_s=2.0)
        notes: list[str] = []
        run_predict(settings, inputs, tmp_path / "predictions.jsonl", progress=False, notify=notes.append)
    return json.loads((tmp_path / "predictions.jsonl").read_text("utf-8")), notes


def test_predict_writes_no_piece_of_the_model_key(tmp_path):
    model_key = "sk-model-QUOTED-abcdefgh12345678"

    def handler(request):
        key = request.headers.get("authorization", "").removeprefix("Bearer ")
        return text_reply(request.path, f"Bonjour. (my key is {key}; again: {key[4:20]})", model=f"m-{key}",
                          prompt=request.prompt)

    record, notes = predict_one(tmp_path, handler, model_key)
    assert leaked(tmp_path, model_key) == []
    assert sum("quotes the API key" in line for line in notes) == 1
    assert record["prediction"] == f"Bonjour. (my key is {REDACTED}; again: {REDACTED})"


@pytest.mark.parametrize("placeholder", ["sk-no-key-required", "EMPTY", "token-abc123", "Ollama"])
def test_predict_scores_an_answer_as_written_under_a_documented_no_key_placeholder(tmp_path, placeholder):
    """A local server's documented "no key" value is public: an answer that uses its words
    ("required", "EMPTY") is written and scored as the model gave it, and nothing is announced."""
    answer = "The field is required; leave it EMPTY. token-abc123 and Ollama are names."

    def handler(request):
        return text_reply(request.path, answer, model="stand-in", prompt=request.prompt)

    record, notes = predict_one(tmp_path, handler, placeholder)
    assert record["prediction"] == answer
    assert not any("quotes the API key" in line for line in notes)


@pytest.mark.parametrize("key, kept", [("sk-no-key-required", False), ("EMPTY", False), ("empty", False),
                                       ("sk-no-key-required-7f3a9c", True), ("sk-live-EMPTYabcdefgh", True),
                                       ("requiredx", True)])
def test_only_documented_placeholders_are_exempt_from_redaction(key, kept):
    text = f"before {key} after"
    assert (without_secrets(text, [key]) != text) is kept


def test_a_body_nested_too_deeply_is_one_clean_line(files, monkeypatch, capfd):
    """A 200 body of 60,000 brackets: Python's JSON reader gives up with RecursionError, which is
    a body that is not JSON (exit 3 with the usual hint), not an "unexpected error"."""
    with JudgeServer(lambda request: Reply(body="[" * 30_000 + "]" * 30_000)) as server:
        status = evaluate_with(server, files, monkeypatch)
    _, stderr = capfd.readouterr()
    assert status != 0
    assert "sent a body that is not JSON" in stderr and "unexpected error" not in stderr
    assert not (files[2] / "summary.json").exists()


def test_the_issue_s_fence_reply_is_repaired_at_once(files, monkeypatch, capfd, expected):
    """``` + 20,000 newlines + x (40 KB of JSON body, under the 64 KB cap): the old fence pattern took
    minutes on 8,000 (issue 34: 259 s)."""
    with JudgeServer(hostile_reply_handler("```" + "\n" * 20_000 + "x")) as server:
        status = evaluate_with(server, files, monkeypatch)
    _, stderr = capfd.readouterr()
    assert status == 0, stderr
    assert verdicts(files[2]) == expected


def test_predict_writes_a_lone_surrogate_as_a_replacement_character(tmp_path):
    """The predictions reader refuses lone surrogates (SPEC §6): an answer holding one is written as
    U+FFFD, so the file predict.py writes is one it (on resume) and evaluate.py read."""
    from eval.prediction.runner import provider_text

    def handler(request):
        return text_reply(request.path, "Bonjour \ud800!", model="m-\udc00", prompt=request.prompt)

    record, _ = predict_one(tmp_path, handler, "sk-local-123456789")
    assert (record["prediction"], record["response"]["model"]) == ("Bonjour \ufffd!", "m-\ufffd")
    assert provider_text({"id": ["a\ud800", 7], "k\udfff": "sk-local-123456789"}, ("sk-local-123456789",)) == {
        "id": ["a\ufffd", 7], "k\ufffd": REDACTED}
