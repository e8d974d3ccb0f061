"""IFMTBench under `--protocol release` (SPEC §15) against a synthetic release folder.

For the bundled rows and example predictions, the requests the harness sends are the ones the
facts (shared/RELEASE-FACTS.md §3) say the original sends, rebuilt here independently of the
harness's reader (less the original's duplicate request for a row labelled both style and
background: one request per distinct prompt); verdicts are read as the release reads them, and a
reading the harness refuses (no value, `true`, 7, a string) aborts; a release that differs is
exit 2; no sentinel leaves the requests and the Judge cache.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import evaluate
import release_folders as rf
from conftest import write_jsonl
from eval.exits import run_cli
from eval.ifmtbench.release import fenced_block, glossary_value, rubric_validator
from eval.judge_client import VerdictError
from judge_server import JudgeServer, text_reply

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "ifmtbench"
KEY = "sk-ifmt-release-key-9f8e7d6c5b4a"
GLOSSARY_LABEL, STYLE_LABEL, BACKGROUND_LABEL = ("机器翻译-术语表约束翻译", "机器翻译-风格指令遵循",
                                                 "机器翻译-带上下文背景翻译")

# Replies and what the release reads from them (RELEASE-FACTS §3.5).
GLOSSARY_REPLIES = [("1", 1), (" 0\n", 0), ("```\n1\n```", 1), ("Term 1 is fine, 0 errors", 1), ("0.5", 0),
                    ("得分：1", 1)]
RUBRIC_REPLIES = [  # (reply, {dimension: raw value read})
    ('{"scores": {"style": 4, "background": 3}}', {"style": 4, "background": 3}),
    ('Here:\n```json\n{"scores": {"style": 5, "background": 1}}\n```\nDone.', {"style": 5, "background": 1}),
    ('Verdict {"style": [2, "why"], "background": 2.5} end', {"style": 2, "background": 2.5}),
    ('{"scores": 3}', {"style": 3, "background": 3}),
    ('{"scores": {"style": 0, "background": null}}', {"style": 0, "background": None}),
    ('Form {S} as:\n```json\n{"scores": {"style": 2, "background": 4}}\n```', {"style": 2, "background": 4}),
]


def _pick(prompt: str, n: int) -> int:
    return int(hashlib.sha256(prompt.encode("utf-8")).hexdigest(), 16) % n


def handler(request):
    prompt = request.prompt
    replies = RUBRIC_REPLIES if rf.IF_RUBRIC in prompt else GLOSSARY_REPLIES
    return text_reply(request.path, replies[_pick(prompt, len(replies))][0], prompt=prompt)


# ---------------------------------------------------------------------------------------------
# The test side's own reading of the facts
# ---------------------------------------------------------------------------------------------

def labels(row: dict) -> list[str]:
    return row["class"] if isinstance(row["class"], list) else [row["class"]]


def glossary_rule(row: dict, response: str) -> bool:
    """SPEC §14's glossary rule, restated: every term has a candidate in the response (and, with
    several candidates and a reference, one that is also in the reference)."""
    terms = row.get("term_dict")
    if isinstance(terms, str):
        try:
            terms = json.loads(terms)
        except ValueError:
            return False
    if not isinstance(terms, dict) or not terms:
        return False
    for target in terms.values():
        candidates = [target] if isinstance(target, str) else list(target)
        hits = [c for c in candidates if c and c in response]
        if not hits:
            return False
        if len(candidates) > 1 and row.get("output") and not any(h in row["output"] for h in hits):
            return False
    return True


def original_requests(rows: list[dict], responses: dict, model: str = "gpt-4o") -> Counter:
    """What the original sends (§3.3): per label in class order, the rubric prompt for style and
    for background, the glossary prompt when the rule fails; nothing for a missing response."""
    sent: Counter = Counter()
    for row in rows:
        response = responses.get((row["md5"], row["instruction_lang"]))
        if not response:
            continue
        for label in labels(row):
            if label in (STYLE_LABEL, BACKGROUND_LABEL):
                sent[rf.if_body(model, rf.if_prompt(rf.IF_RUBRIC_TEMPLATE, row, response))] += 1
            elif label == GLOSSARY_LABEL and not glossary_rule(row, response):
                sent[rf.if_body(model, rf.if_prompt(rf.IF_GLOSSARY_TEMPLATE, row, response))] += 1
    return sent


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------

def bundled_rows() -> list[dict]:
    return [json.loads(line) for name in ("test_single_constraint", "test_multi_constraint")
            for line in (DATA / "data" / f"{name}.jsonl").read_text(encoding="utf-8").split("\n") if line]


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    predictions = [json.loads(line) for line in (DATA / "example_predictions.jsonl").read_text(
        encoding="utf-8").split("\n") if line]
    predictions = [p for p in predictions if p["response"] == "" or p["response"].strip()]  # see docs: blank
    soft = {(row["md5"], row["instruction_lang"]) for row in bundled_rows()
            if {STYLE_LABEL, BACKGROUND_LABEL} & set(labels(row))}
    padded = next(p for p in predictions if (p["md5"], p["instruction_lang"]) in soft and p["response"])
    padded["response"] = "    " + padded["response"]  # sent as given, never stripped
    release = rf.make_ifmtbench_release(tmp_path / "IFMTBench")
    (release / "data").mkdir()
    for name in ("test_single_constraint", "test_multi_constraint"):
        (release / "data" / f"{name}.jsonl").write_bytes((DATA / "data" / f"{name}.jsonl").read_bytes())
    return {"release": release, "tmp": tmp_path, "rows": bundled_rows(),
            "predictions": write_jsonl(tmp_path / "predictions.jsonl", predictions),
            "responses": {(p["md5"], p["instruction_lang"]): p["response"] for p in predictions}}


def run(files: dict, out: Path, *extra: str, server=None, monkeypatch=None, capsys=None) -> tuple[int, str]:
    if server is not None:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url + "/")  # the release drops a trailing slash
    argv = ["--dataset", str(files["release"]), "--predictions", str(files["predictions"]), "--output-dir",
            str(out), "--quiet", "--protocol", "release", *extra]
    if server is None:
        argv.append("--skip-judge")
    status = run_cli(evaluate.main, argv)
    captured = capsys.readouterr() if capsys is not None else None
    return status, (captured.out + captured.err) if captured else ""


def scores(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "scores.jsonl").read_text(encoding="utf-8").split("\n") if line]


# ---------------------------------------------------------------------------------------------
# Requests and verdicts
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", [None, "gpt-5.6-sol"])  # always chat, whatever the model
def test_requests_are_the_releases(files, monkeypatch, capsys, model):
    with JudgeServer(handler) as server:
        status, _ = run(files, files["tmp"] / "out", *(["--judge-model", model] if model else []), server=server,
                        monkeypatch=monkeypatch, capsys=capsys)
        sent = Counter((request.path, request.raw) for request in server.judge_requests())
    assert status == 0
    original = original_requests(files["rows"], files["responses"], model or "gpt-4o")
    assert sent == Counter(set(original))  # the same requests; each distinct one asked once
    assert sum(original.values()) > len(original)  # rows labelled style and background: sent twice upstream
    raws = [raw for _, raw in sent]
    assert any(b"\\u" in raw for raw in raws) and all(raw.isascii() for raw in raws)  # requests' ensure_ascii
    prompts = [json.loads(raw)["messages"][0]["content"] for raw in raws]
    assert any(rf.IF_GLOSSARY in p for p in prompts) and any(rf.IF_RUBRIC in p for p in prompts)
    assert all(p.startswith("\n") for p in prompts)
    assert any("<model_output>\n    " in p for p in prompts)


def test_verdicts_are_the_releases(files, monkeypatch, capsys):
    out = files["tmp"] / "out"
    with JudgeServer(handler) as server:
        status, _ = run(files, out, server=server, monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0
    rows = {(row["md5"], row["instruction_lang"]): row for row in files["rows"]}
    fallbacks = softs = nulls = 0
    for item in scores(out):
        row = rows[(item["md5"], item["instruction_lang"])]
        response = files["responses"].get((item["md5"], item["instruction_lang"]))
        if not response:
            assert item["if_score"] == 0.0
            continue
        for entry in item["constraints"]:
            if entry["id"] == "glossary" and not glossary_rule(row, response):
                prompt = rf.if_prompt(rf.IF_GLOSSARY_TEMPLATE, row, response)
                assert entry["passed"] == (GLOSSARY_REPLIES[_pick(prompt, len(GLOSSARY_REPLIES))][1] == 1)
                fallbacks += 1
            elif entry["kind"] == "soft":
                prompt = rf.if_prompt(rf.IF_RUBRIC_TEMPLATE, row, response)
                value = RUBRIC_REPLIES[_pick(prompt, len(RUBRIC_REPLIES))][1][entry["id"]]
                assert entry["score"] == (0.0 if value is None else value / 5)
                softs += 1
                nulls += value is None
    assert fallbacks >= 5 and softs >= 20 and nulls >= 1
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["judge"]["params"] == {"temperature": 0.0, "max_tokens": 8192, "top_p": 0.6, "stream": False}


def test_the_release_prompt_set_keeps_the_harness_request_parameters(tmp_path):
    """The parameters moved from the record to the prompt sets (issue #20): under `release` the run's
    JudgeSettings.params are what they were (only a repair turn, off on the command line, reads them)."""
    from eval.config import HARNESS
    from eval.ifmtbench import IFMTBENCH
    from eval.ifmtbench.release import open_release

    release = open_release(rf.make_ifmtbench_release(tmp_path / "release"), False)
    harness = IFMTBENCH.prompt_sets[HARNESS].params
    assert release.prompt_set.params == harness == {"temperature": 0, "top_p": 0.6, "max_tokens": 8192}
    assert list(harness) == ["temperature", "top_p", "max_tokens"]  # summary.json judge.params keeps this order
    assert not hasattr(IFMTBENCH, "judge_params")


@pytest.mark.parametrize("text, value", GLOSSARY_REPLIES + [
    ("得分1", None), ("10/10", None), ("", None), ("[1]", 1), ("**0**", 0), ("1 and 0", 1), ("2", None)])
def test_glossary_read_as_the_release_reads(text, value):
    assert glossary_value(text) == value


@pytest.mark.parametrize("text, verdict", RUBRIC_REPLIES + [
    ('{"style": 3.5, "background": 0}', {"style": 3.5, "background": 0}),
    ('```\n{"scores": {"style": 1, "background": 2}}\n```', {"style": 1, "background": 2}),
])
def test_rubric_read_as_the_release_reads(text, verdict):
    assert rubric_validator(["style", "background"])(text) == verdict


@pytest.mark.parametrize("text", [
    '{"scores": {"style": 7, "background": 3}}',      # the release: 7 / 5 = 1.4
    '{"scores": {"style": true, "background": 3}}',   # the release: true / 5 = 0.2
    '{"scores": {"style": "4", "background": 3}}',    # the release: unscored
    '{"scores": {"style": -1, "background": 3}}',
    '{"scores": {"background": 3}}',                  # the release: unscored
    '{"scores": {"style": ["a"], "background": 3}}',
    "no JSON here", "4", '{"scores": {"style": NaN, "background": 3}}',
])
def test_readings_the_harness_refuses(text):
    with pytest.raises(VerdictError, match="release's reply form"):
        rubric_validator(["style", "background"])(text)


def test_fenced_block_is_the_regex_in_linear_time():
    pattern = re.compile(r"```(?:json)?\s*\n?(.*?)\n?\s*```", re.S)
    for text in ["a ```json\n{}\n``` b ```x```", "```  \n x \n  ```", "``````", "````", "```json```", "no fence",
                 "```\n\n```", "x```jsonfoo\n ```", "```a```b```"]:
        match = pattern.search(text)
        assert fenced_block(text) == (match.group(1) if match else None), text
    assert fenced_block("```" + " " * 200_000) is None


def test_an_invalid_verdict_aborts_without_results(files, monkeypatch, capsys):
    def boolean(request):
        return text_reply(request.path, '{"scores": {"style": true, "background": true}}' if rf.IF_RUBRIC in
                          request.prompt else "1", prompt=request.prompt)

    with JudgeServer(boolean) as server:
        status, output = run(files, files["tmp"] / "out", server=server, monkeypatch=monkeypatch, capsys=capsys)
        conversations = [request.body["messages"] for request in server.judge_requests()]
    assert status == 3 and "off the 0–5 scale" in output
    assert conversations and all(len(messages) == 1 for messages in conversations)  # no repair turn
    assert not (files["tmp"] / "out" / "summary.json").exists()


# ---------------------------------------------------------------------------------------------
# A release that differs: exit 2, expected vs found
# ---------------------------------------------------------------------------------------------

def test_data_files_with_release_dir(files, monkeypatch, capsys):
    """--data FILE (twice) names the rows; --release-dir names the scorer's folder."""
    data = files["release"] / "data"
    with JudgeServer(handler) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, [
            "--data", str(data / "test_single_constraint.jsonl"), "--data", str(data / "test_multi_constraint.jsonl"),
            "--predictions", str(files["predictions"]), "--output-dir", str(files["tmp"] / "out"), "--quiet",
            "--protocol", "release", "--release-dir", str(files["release"])])
        sent = Counter((request.path, request.raw) for request in server.judge_requests())
    capsys.readouterr()
    assert status == 0 and sent == Counter(set(original_requests(files["rows"], files["responses"])))


@pytest.mark.parametrize("how, expected, found", [
    ("missing file", "expected the file eval/llm_judge.py", "no such file"),
    ("renamed template", "a module-level assignment to GLOSSARY_REWARD_PROMPT", "GLOSSARY_PROMPT"),
    ("renamed placeholder", "placeholders {ground_truth, target_translation, user_instruction}",
     "{ground_truth, model_output, user_instruction}"),
    ("no top_p", "os.environ.get defaults for LLM_TEMPERATURE, LLM_MAX_TOKENS, LLM_TOP_P", "none for LLM_TOP_P"),
])
def test_release_that_differs_is_exit_2(files, capsys, how, expected, found):
    root = files["release"]
    if how == "missing file":
        (root / "eval" / "llm_judge.py").unlink()
    elif how == "renamed template":
        rf.make_ifmtbench_release(root, glossary_name="GLOSSARY_PROMPT")
    elif how == "renamed placeholder":
        rf.make_ifmtbench_release(root, rubric=rf.IF_RUBRIC_TEMPLATE.replace("{target_translation}",
                                                                             "{model_output}"))
    else:
        rf.make_ifmtbench_release(root, config=rf.if_config_py().replace("LLM_TOP_P", "LLM_NUCLEUS"))
    out = files["tmp"] / "out"
    status, output = run(files, out, capsys=capsys)
    assert status == 2 and expected in output and found in output
    assert not out.exists() or not any(out.iterdir())
    assert not any(sentinel in output for sentinel in rf.SENTINELS)


# ---------------------------------------------------------------------------------------------
# Summary, signature, reports, and where the release's text may go
# ---------------------------------------------------------------------------------------------

def test_summary_and_reports_say_protocol_release(files, monkeypatch, capsys):
    out = files["tmp"] / "out"
    with JudgeServer(handler) as server:
        status, output = run(files, out, "--trust-release-code", server=server, monkeypatch=monkeypatch,
                             capsys=capsys)
    assert status == 0 and "this harness's counter" not in output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    block = summary["protocol"]
    digests = {path: hashlib.sha256((files["release"] / path).read_bytes()).hexdigest()
               for path in ("eval/llm_judge.py", "config.py")}
    assert {path: entry["sha256"] for path, entry in block["files"].items()} == digests
    assert block["syllable_counter"] is None and block["not_comparable_with"] == []
    assert block["templates"]["GLOSSARY_REWARD_PROMPT"]["sha256"] == hashlib.sha256(
        rf.IF_GLOSSARY_TEMPLATE.encode("utf-8")).hexdigest()
    assert "protocol:release" in summary["signature"] and "counter:harness" not in summary["signature"]
    assert "prompt.ifmt_rubric:release:" in summary["signature"]
    for name in ("report.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert "protocol: release" in text and digests["eval/llm_judge.py"] in text and "Comparable with" in text


def test_no_sentinel_leaves_the_requests_and_the_cache(files, monkeypatch, capsys):
    out = files["tmp"] / "out"
    with JudgeServer(handler) as server:
        status, output = run(files, out, server=server, monkeypatch=monkeypatch, capsys=capsys)
        assert any(rf.IF_RUBRIC in r.prompt for r in server.judge_requests())
    assert status == 0 and not any(sentinel in output for sentinel in rf.SENTINELS)
    for path in out.iterdir():
        if path.name.startswith("judge_cache"):
            continue  # the cache holds the requests themselves (SPEC §15)
        text = path.read_bytes().decode("utf-8", "replace")
        assert not any(sentinel in text for sentinel in rf.SENTINELS), path
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split("\n")
    for name in filter(None, tracked):
        path = ROOT / name
        if path.is_file():
            assert not any(s in path.read_bytes().decode("utf-8", "replace") for s in rf.SENTINELS), name
