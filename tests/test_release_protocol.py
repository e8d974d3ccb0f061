"""`--protocol release` (SPEC §15) against synthetic release folders (tests/release_folders.py).

For the same rows, predictions and Judge model, the requests the harness sends are the ones the
facts say the original scorer sends (rebuilt on the test side, independently of the harness's
reader), for both benchmarks and both endpoint kinds; verdicts are read as the release reads
them; the release's counter is used only when trusted; a release that differs is exit 2 naming
what was expected and found; and no sentinel of the synthetic templates leaves the requests and
the Judge cache.
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
from eval.compare import main as compare_main
from eval.insttrans.release import soft_scores
from eval.release.protocol import bare_score
from eval.syllable import count_syllables
from judge_server import JudgeServer, Reply, text_reply

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-release-test-key-0a1b2c3d4e5f"
IT_IDS = ["itb-lit-076", "itb-subtitle-022", "itb-subtitle-016", "itb-subtitle-020", "itb-lit-009",
          "itb-doc-006", "itb-subtitle-051", "itb-subtitle-033"]

# Replies and what the release reads from them (RELEASE-FACTS §1.5, §2.5).
QUALITY_REPLIES = [("1", 1.0), ("[0.5]", 0.5), (" 0.50 \n", 0.5), ("0.0", 0.0), ("1.00", 1.0), ("[ 0 ]", 0.0)]
SOFT_VALUES = [("1", 1.0), (0.5, 0.5), (True, 1.0), ("0.50", 0.5), (0, 0.0), (1.0, 1.0)]


def _pick(prompt: str, n: int) -> int:
    return int(hashlib.sha256(prompt.encode("utf-8")).hexdigest(), 16) % n


def release_handler(request) -> Reply:
    """Bare scores for quality prompts; for soft prompts, one object per listed id inside prose
    (the release's fallback reads from the first `{` to the last `}`)."""
    prompt = request.prompt
    if rf.SOFT in prompt:
        ids = re.findall(r"^\[(\w+)\] ", prompt, re.M)
        value = SOFT_VALUES[_pick(prompt, len(SOFT_VALUES))][0]
        text = "Verdict: " + json.dumps({cid: {"score": value, "reason": "ok"} for cid in ids}) + " (end)"
    else:
        text = QUALITY_REPLIES[_pick(prompt, len(QUALITY_REPLIES))][0]
    return text_reply(request.path, text, prompt=prompt)


def expected_quality(prompt: str) -> float:
    return QUALITY_REPLIES[_pick(prompt, len(QUALITY_REPLIES))][1]


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------

def insttrans_rows() -> list[dict]:
    lines = (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").split("\n")
    rows = {row["case_id"]: row for row in (json.loads(line) for line in lines if line)}
    return [rows[case_id] for case_id in IT_IDS]


def insttrans_predictions(rows: list[dict]) -> list[dict]:
    """References, one with leading spaces, one blank (no request), one line left out (missing)."""
    predictions = [{"case_id": row["case_id"], "prediction": row["reference"]} for row in rows]
    predictions[1]["prediction"] = "    " + predictions[1]["prediction"]
    predictions[6]["prediction"] = "  \n "
    del predictions[5]
    return predictions


def sandglass_rows() -> list[dict]:
    lines = (ROOT / "data" / "sandglass" / "test.jsonl").read_text(encoding="utf-8").split("\n")
    rows = [json.loads(line) for line in lines if line]
    with_context = json.loads(json.dumps(next(row for row in rows if row["metadata"].get("up_context"))))
    with_context["metadata"]["up_context"] = " " + with_context["metadata"]["up_context"] + "  "  # kept as is
    other_row = next(row for row in rows[12:] if row["case_id"] != with_context["case_id"])
    without_summary = json.loads(json.dumps(other_row))
    without_summary["metadata"]["summary"] = None  # the release formats it as given
    return rows[:12] + [with_context, without_summary]


def sandglass_predictions(rows: list[dict]) -> list[dict]:
    predictions = [{"case_id": row["case_id"], "prediction": row["label"] or "x"} for row in rows]
    predictions[0]["prediction"] = "  " + predictions[0]["prediction"]
    predictions[2]["prediction"] = " "
    del predictions[5]
    return predictions


def release_files(tmp_path, monkeypatch, rows: list[dict], release, names: tuple[str, str],
                  predictions: list[dict]) -> dict:
    """A benchmark's synthetic release folder, data and predictions files, and the Judge key set."""
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    return {"rows": rows, "release": release, "data": write_jsonl(tmp_path / names[0], rows),
            "predictions": write_jsonl(tmp_path / names[1], predictions),
            "tmp": tmp_path, "preds": {p["case_id"]: p["prediction"] for p in predictions}}


@pytest.fixture
def it_files(tmp_path, monkeypatch):
    rows = insttrans_rows()
    return release_files(tmp_path, monkeypatch, rows, rf.make_insttrans_release(tmp_path / "InstTrans-Bench"),
                         ("data.jsonl", "it_predictions.jsonl"), insttrans_predictions(rows))


@pytest.fixture
def sg_files(tmp_path, monkeypatch):
    rows = sandglass_rows()
    return release_files(tmp_path, monkeypatch, rows, rf.make_sandglass_release(tmp_path / "Sandglass-Bench"),
                         ("sandglass.jsonl", "sg_predictions.jsonl"), sandglass_predictions(rows))


def run(files: dict, out: Path, *extra: str, server: JudgeServer | None = None, monkeypatch=None,
        capsys=None) -> tuple[int, str]:
    if server is not None:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
    argv = ["--data", str(files["data"]), "--predictions", str(files["predictions"]), "--output-dir", str(out),
            "--quiet", *extra]
    if server is None:
        argv.append("--skip-judge")
    status = run_cli(evaluate.main, argv)
    captured = capsys.readouterr() if capsys is not None else None
    return status, (captured.out + captured.err) if captured else ""


def present(prediction) -> bool:
    return isinstance(prediction, str) and bool(prediction.strip())


def scores_by_id(out: Path) -> dict[str, dict]:
    lines = (out / "scores.jsonl").read_text(encoding="utf-8").split("\n")
    return {row["case_id"]: row for row in (json.loads(line) for line in lines if line)}


# ---------------------------------------------------------------------------------------------
# Requests: the multiset the harness sends equals the one the facts rebuild
# ---------------------------------------------------------------------------------------------

def it_expected_requests(rows: list[dict], preds: dict, model: str) -> Counter:
    expected: Counter = Counter()
    for row in rows:
        prediction = preds.get(row["case_id"])
        if not present(prediction):
            continue
        soft = rf.it_soft_prompt(row, prediction)
        if soft is not None:
            expected[rf.it_body(model, soft)] += 1
        expected[rf.it_body(model, rf.it_quality_prompt(row, prediction))] += 1
    return expected


@pytest.mark.parametrize("model", ["gpt-5.6-sol", "gpt-4o"])
def test_insttrans_requests_are_the_releases(it_files, monkeypatch, capsys, model):
    with JudgeServer(release_handler) as server:
        status, _ = run(it_files, it_files["tmp"] / "out", "--protocol", "release", "--release-dir",
                        str(it_files["release"]), "--judge-model", model, server=server, monkeypatch=monkeypatch,
                        capsys=capsys)
        sent = Counter((request.path, request.raw) for request in server.judge_requests())
    assert status == 0
    expected = it_expected_requests(it_files["rows"], it_files["preds"], model)
    assert sent == expected
    assert {path for path, _ in sent} == {"/v1/responses" if model.startswith("gpt-5") else "/v1/chat/completions"}


@pytest.mark.parametrize("model", ["gemini-2.5-flash", "gpt-5.6-sol"])
def test_sandglass_requests_are_the_releases(sg_files, monkeypatch, capsys, model):
    with JudgeServer(release_handler) as server:
        status, _ = run(sg_files, sg_files["tmp"] / "out", "--protocol", "release", "--release-dir",
                        str(sg_files["release"]), "--judge-model", model, server=server, monkeypatch=monkeypatch,
                        capsys=capsys)
        sent = Counter((request.path, request.raw) for request in server.judge_requests())
    assert status == 0
    expected = Counter(rf.sg_body(model, rf.sg_prompt(row, sg_files["preds"][row["case_id"]]))
                       for row in sg_files["rows"] if present(sg_files["preds"].get(row["case_id"])))
    assert sent == expected  # always /chat/completions, whatever the model
    prompts = [json.loads(raw)["messages"][0]["content"] for _, raw in sent]
    assert any(rf.JA_NOTES in p and rf.JA_BAD in p for p in prompts)  # ja rows carry both pieces
    assert all((rf.JA_NOTES in p) == ("文-ja" in p) for p in prompts)
    assert any("Context:  " in p for p in prompts)  # an empty up_context leaves the doubled space


def test_release_name_rule_is_a_plain_prefix_test(it_files):
    """The release routes by `model.startswith(prefixes)`: a gateway name goes to chat, unlike SPEC §10."""
    from eval.insttrans.release import Templates, request_shape
    from eval.providers.openai_api import CHAT, RESPONSES
    from eval.config import JudgeSettings

    templates = Templates(it_files["release"])
    kinds = {model: request_shape(templates, JudgeSettings(model, "http://x/v1", "k")).kind
             for model in ("gpt-5.6-sol", "o3-mini", "openai/gpt-5", "GPT-5", "gpt-4o")}
    assert kinds == {"gpt-5.6-sol": RESPONSES, "o3-mini": RESPONSES, "openai/gpt-5": CHAT, "GPT-5": CHAT,
                     "gpt-4o": CHAT}


def test_web_html_rows_get_the_web_variant(it_files):
    from eval.insttrans.release import Templates, quality_prompt

    templates = Templates(it_files["release"])
    row = dict(it_files["rows"][0], scenario="web_html")
    assert quality_prompt(templates, row, "x") == rf.it_quality_prompt(row, "x")
    assert rf.Q_WEB in quality_prompt(templates, row, "x") and "{not a field}" in quality_prompt(templates, row, "x")


# ---------------------------------------------------------------------------------------------
# Verdicts: read as the release reads them
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [
    ("1", 1.0), ("0", 0.0), ("0.5", 0.5), ("0.50", 0.5), ("0.500", 0.5), ("1.0", 1.0), ("1.00", 1.0),
    ("0.0", 0.0), ("[1]", 1.0), ("[ 0.5 ]", 0.5), (" \t1\n", 1.0), ("0.5\n", 0.5), ("[0.5]", 0.5),
])
def test_bare_score_accepts(text, value):
    assert bare_score(text) == value


@pytest.mark.parametrize("text", [
    "1.", ".5", "1.5", "0.05", "00", "+1", "1e0", "[[1]]", "1分", "**1**", "```\n1\n```", "<输出>1",
    "1\nbecause it is fine", "0/0.5/1", "１", "", "[]", "0.5 1",
])
def test_bare_score_rejects(text):
    assert bare_score(text) is None


@pytest.mark.parametrize("text, scores", [
    ('{"a": {"score": 1}, "b": {"score": 0.5}}', {"a": 1.0, "b": 0.5}),
    ('{"a": {"score": "1"}, "b": {"score": "0.50"}}', {"a": 1.0, "b": 0.5}),
    ('{"a": {"score": true}, "b": {"score": false}}', {"a": 1.0, "b": 0.0}),
    ('```json\n{"a": {"score": 1.0}, "b": {"score": 0}}\n```', {"a": 1.0, "b": 0.0}),
    ('Here: {"a": {"score": 1}, "b": {"score": 1}, "c": 5} ok', {"a": 1.0, "b": 1.0}),
    ('{"a": {"score": 0.7}, "b": {"score": null}}', {"a": None, "b": None}),
    ('{"a": {"score": "NaN"}, "b": 1}', {"a": None, "b": None}),
    ('[{"a": {"score": 1}}]', {"a": None, "b": None}),
    ('{"a": {"score": 1}}', {"a": 1.0, "b": None}),
    ("no object at all", {"a": None, "b": None}),
    ("{" * 100_000, {"a": None, "b": None}),
])
def test_soft_scores_read_as_the_release_reads(text, scores):
    assert soft_scores(text, ["a", "b"]) == scores


def test_insttrans_verdicts_are_the_releases(it_files, monkeypatch, capsys):
    out = it_files["tmp"] / "out"
    with JudgeServer(release_handler) as server:
        status, _ = run(it_files, out, "--protocol", "release", "--release-dir", str(it_files["release"]),
                        server=server, monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0
    scores = scores_by_id(out)
    for row in it_files["rows"]:
        prediction = it_files["preds"].get(row["case_id"])
        if not present(prediction):
            assert scores[row["case_id"]]["quality"] in (None, 0.0)
            continue
        assert scores[row["case_id"]]["quality"] == expected_quality(rf.it_quality_prompt(row, prediction))
        soft = rf.it_soft_prompt(row, prediction)
        if soft is not None:
            value = SOFT_VALUES[_pick(soft, len(SOFT_VALUES))][1]
            soft_entries = [c for c in scores[row["case_id"]]["constraints"] if c["kind"] == "soft"]
            assert soft_entries and all(entry["score"] == value for entry in soft_entries)


def test_sandglass_verdicts_are_the_releases(sg_files, monkeypatch, capsys):
    out = sg_files["tmp"] / "out"
    with JudgeServer(release_handler) as server:
        status, _ = run(sg_files, out, "--protocol", "release", "--release-dir", str(sg_files["release"]),
                        server=server, monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0
    scores = scores_by_id(out)
    for row in sg_files["rows"]:
        prediction = sg_files["preds"].get(row["case_id"])
        expected = expected_quality(rf.sg_prompt(row, prediction)) if present(prediction) else 0.0
        assert scores[row["case_id"]]["quality"] == expected


def test_an_invalid_release_verdict_aborts(it_files, monkeypatch, capsys):
    """The release reads `**1**` as no score: the run aborts (exit 3) instead of scoring it."""
    with JudgeServer(lambda request: text_reply(request.path, "**1**", prompt=request.prompt)) as server:
        status, output = run(it_files, it_files["tmp"] / "out", "--protocol", "release", "--release-dir",
                             str(it_files["release"]), "--judge-model", "gpt-4o", server=server,
                             monkeypatch=monkeypatch, capsys=capsys)
        conversations = [request.body["messages"] for request in server.judge_requests()]
    assert conversations and all(len(messages) == 1 for messages in conversations)  # no repair turn
    assert status == 3 and "release's reply form" in output
    assert not (it_files["tmp"] / "out" / "summary.json").exists()


# ---------------------------------------------------------------------------------------------
# The syllable counter: the release's only when trusted
# ---------------------------------------------------------------------------------------------

def concordance_passes(counts: list[int], durations: list[float]) -> bool:
    comparable = inverted = 0
    for i in range(len(counts)):
        for j in range(i + 1, len(counts)):
            if durations[i] == durations[j]:
                continue
            comparable += 1
            inverted += counts[i] != counts[j] and (counts[i] < counts[j]) != (durations[i] < durations[j])
    return len(counts) < 2 or not comparable or 1 - inverted / comparable >= 0.9


def syllable_order_entries(scores: dict) -> dict[str, dict]:
    return {case_id: next(c for c in row["constraints"] if c["id"] == "syllable_order")
            for case_id, row in scores.items() if row["status"] == "ok"
            and any(c["id"] == "syllable_order" for c in row["constraints"])}


@pytest.mark.parametrize("trust", [True, False])
def test_insttrans_syllable_order_uses_the_trusted_counter(it_files, capsys, trust):
    out = it_files["tmp"] / "out"
    status, output = run(it_files, out, "--protocol", "release", "--release-dir", str(it_files["release"]),
                         *(["--trust-release-code"] if trust else []), capsys=capsys)
    assert status == 0
    count = rf.it_release_count if trust else count_syllables
    entries = syllable_order_entries(scores_by_id(out))
    assert len(entries) >= 4
    rows = {row["case_id"]: row for row in it_files["rows"]}
    differs = False
    for case_id, entry in entries.items():
        row = rows[case_id]
        lines = json.loads(it_files["preds"][case_id])
        counts = [count(lines.get(str(i), "") or "", row["target_lang"]) for i in range(1, len(row["duration_s"]) + 1)]
        assert entry["detail"]["counts"] == counts
        assert entry["passed"] == concordance_passes(counts, row["duration_s"])
        other_count = rf.it_release_count if not trust else count_syllables
        other = [other_count(lines.get(str(i), "") or "", row["target_lang"]) for i in range(1, len(row["duration_s"]) + 1)]
        differs |= other != counts
    assert differs  # the two counters really differ on these rows
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["protocol"]["syllable_counter"] == ("release" if trust else "harness")
    assert ("counter:release" if trust else "counter:harness") in summary["signature"]
    assert ("this harness's counter" in output) != trust
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "protocol: release" in report and "syllable_order pass rate" in report


@pytest.mark.parametrize("trust", [True, False])
def test_sandglass_counts_use_the_trusted_counter(sg_files, capsys, trust):
    out = sg_files["tmp"] / "out"
    status, output = run(sg_files, out, "--protocol", "release", "--release-dir", str(sg_files["release"]),
                         *(["--trust-release-code"] if trust else []), capsys=capsys)
    assert status == 0
    scores = scores_by_id(out)
    for row in sg_files["rows"]:
        prediction = sg_files["preds"].get(row["case_id"])
        lang = row["metadata"]["target_language"]
        if not present(prediction):
            assert scores[row["case_id"]]["hyp_syllables"] in (0, None)
            continue
        expected = rf.sg_release_count(prediction, lang) if trust else count_syllables(prediction, lang)
        assert scores[row["case_id"]]["hyp_syllables"] == expected
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["protocol"]["syllable_counter"] == ("release" if trust else "harness")
    assert ("syllable_calculation_v2.py" in summary["protocol"]["files"]) == trust
    assert ("this harness's counter" in output) != trust
    not_comparable = " ".join(summary["protocol"]["not_comparable_with"])
    assert ("mean |dev|" in not_comparable) != trust


# ---------------------------------------------------------------------------------------------
# A release that differs from the facts: exit 2, expected vs found
# ---------------------------------------------------------------------------------------------

def _break_insttrans(root: Path, how: str) -> None:
    prompts = root / "eval" / "prompts.py"
    if how == "missing file":
        prompts.unlink()
    elif how == "renamed template":
        rf.make_insttrans_release(root, soft_name="SOFT_JUDGE_TEMPLATE")
    elif how == "renamed placeholder":
        rf.make_insttrans_release(root, soft_template=rf.it_soft_template().replace("{target_text}", "{candidate}"))
    elif how == "renamed quality field":
        prompts.write_text(prompts.read_text(encoding="utf-8").replace("{reference}", "{ref_text}"), encoding="utf-8")
    elif how == "no web variant":
        text = prompts.read_text(encoding="utf-8").replace('== "web_html"', '== "web"')
        prompts.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("how, expected, found", [
    ("missing file", "expected the file eval/prompts.py", "no such file"),
    ("renamed template", "a module-level assignment to SOFT_CONSTRAINT_JUDGE_TEMPLATE", "SOFT_JUDGE_TEMPLATE"),
    ("renamed placeholder", "placeholders {constraint_list, source_text, target_text}",
     "{candidate, constraint_list, source_text}"),
    ("renamed quality field", "placeholders {prediction, reference, source_text, src_name, tgt_name}",
     "ref_text"),
    ("no web variant", "one under an if comparing with 'web_html'", "under if web"),
])
def test_insttrans_release_that_differs_is_exit_2(it_files, capsys, how, expected, found):
    _break_insttrans(it_files["release"], how)
    out = it_files["tmp"] / "out"
    status, output = run(it_files, out, "--protocol", "release", "--release-dir", str(it_files["release"]),
                         capsys=capsys)
    assert status == 2
    assert expected in output and found in output and "expected" in output and "found" in output
    assert not out.exists() or not any(out.iterdir())
    for sentinel in rf.SENTINELS:
        assert sentinel not in output


@pytest.mark.parametrize("how, expected, found", [
    ("no bad_case", "JUDGE_PROMPT.format keywords: expected {bad_case, ", "{down_context, duration"),
    ("no .1f", "placeholders {bad_case, down_context, duration:.1f,", "duration, lang_notes"),
    ("no v2", "syllable_calculation_v2.py beside syllable_calculation.py", "found no such file"),
    ("extra parameter", None, None),
])
def test_sandglass_release_that_differs(sg_files, monkeypatch, capsys, how, expected, found):
    root = sg_files["release"]
    if how == "no bad_case":
        rf.make_sandglass_release(root, bad_case="")
    elif how == "no .1f":
        rf.make_sandglass_release(root, template=rf.SG_TEMPLATE.replace("{duration:.1f}", "{duration}"))
    elif how == "no v2":
        (root / "syllable_calculation_v2.py").unlink()
    else:  # a literal parameter the user's evaluate.py adds is sent, in the SDK's key order
        rf.make_sandglass_release(root, extra_create=", temperature=0")
        with JudgeServer(release_handler) as server:
            status, _ = run(sg_files, sg_files["tmp"] / "out", "--protocol", "release", "--release-dir", str(root),
                            server=server, monkeypatch=monkeypatch, capsys=capsys)
            bodies = [request.raw for request in server.judge_requests()]
        assert status == 0 and bodies
        assert all(list(json.loads(raw)) == ["messages", "model", "reasoning_effort", "temperature"] for raw in bodies)
        return
    status, output = run(sg_files, sg_files["tmp"] / "out", "--protocol", "release", "--release-dir", str(root),
                         "--trust-release-code", capsys=capsys)
    assert status == 2 and expected in output and found in output


def test_release_folder_found_from_dataset_or_asked_for(it_files, capsys):
    status, output = run(it_files, it_files["tmp"] / "out", "--protocol", "release", capsys=capsys)
    assert status == 2 and "--release-dir" in output
    status, output = run(it_files, it_files["tmp"] / "out", "--trust-release-code", capsys=capsys)
    assert status == 2 and "--protocol release" in output
    status, output = run(it_files, it_files["tmp"] / "out", "--protocol", "release", "--release-dir",
                         str(it_files["release"]), "--judge-reasoning-effort", "low", capsys=capsys)
    assert status == 2 and "the release protocol sends the release's own request" in output
    status, output = run(it_files, it_files["tmp"] / "out", "--protocol", "release", "--release-dir",
                         str(it_files["release"]), "--judge-structured", capsys=capsys)
    assert status == 2 and "--judge-structured applies to --protocol harness" in output


def test_a_release_counter_that_raises_aborts_without_results(sg_files, capsys):
    (sg_files["release"] / "syllable_calculation.py").write_text(
        rf.SG_V3_PY + "\n\ndef cal_syllable_count(text, lang='en'):\n    raise AttributeError('boom')\n",
        encoding="utf-8")
    out = sg_files["tmp"] / "out"
    status, output = run(sg_files, out, "--protocol", "release", "--release-dir", str(sg_files["release"]),
                         "--trust-release-code", capsys=capsys)
    assert status == 2 and "raised AttributeError: boom" in output and "Traceback" not in output
    assert not (out / "summary.json").exists()


def test_release_dir_from_a_dataset_folder(tmp_path, capsys):
    from eval.release.protocol import release_dir

    root = rf.make_insttrans_release(tmp_path / "snap")
    (root / "data").mkdir()
    (root / "data" / "test.jsonl").write_text("", encoding="utf-8")
    assert release_dir(None, str(root)) == root
    assert release_dir(None, str(root / "data" / "test.jsonl")) == root


# ---------------------------------------------------------------------------------------------
# Cache, signature, compare, and where the release's text may go
# ---------------------------------------------------------------------------------------------

def test_release_and_harness_verdicts_never_share_a_cache_entry(it_files, monkeypatch, capsys):
    from judge_server import default_handler

    cache = it_files["tmp"] / "shared.sqlite"

    def either(request):
        return release_handler(request) if rf.Q_DEFAULT in request.prompt or rf.SOFT in request.prompt \
            else default_handler(request)

    with JudgeServer(either) as server:
        status, _ = run(it_files, it_files["tmp"] / "h", "--judge-cache", str(cache), server=server,
                        monkeypatch=monkeypatch, capsys=capsys)
        harness_calls = len(server.judge_requests())
        status_r, _ = run(it_files, it_files["tmp"] / "r", "--judge-cache", str(cache), "--protocol", "release",
                          "--release-dir", str(it_files["release"]), server=server, monkeypatch=monkeypatch,
                          capsys=capsys)
        release_calls = len(server.judge_requests()) - harness_calls
        status_again, _ = run(it_files, it_files["tmp"] / "r2", "--judge-cache", str(cache), "--protocol", "release",
                              "--release-dir", str(it_files["release"]), server=server, monkeypatch=monkeypatch,
                              capsys=capsys)
        again_calls = len(server.judge_requests()) - harness_calls - release_calls
    assert (status, status_r, status_again) == (0, 0, 0)
    summary = json.loads((it_files["tmp"] / "r" / "summary.json").read_text(encoding="utf-8"))
    assert harness_calls > 0 and release_calls == harness_calls and summary["judge"]["cache_hits"] == 0
    assert again_calls == 0  # the release run's own verdicts are reused


def test_compare_refuses_runs_under_two_protocols(it_files, capsys):
    assert run(it_files, it_files["tmp"] / "h", capsys=capsys)[0] == 0
    assert run(it_files, it_files["tmp"] / "r", "--protocol", "release", "--release-dir", str(it_files["release"]),
               capsys=capsys)[0] == 0
    status = run_cli(compare_main, [str(it_files["tmp"] / "h"), str(it_files["tmp"] / "r")])
    output = capsys.readouterr()
    assert status == 2 and "protocol: 'harness' vs 'release'" in output.err
    assert run_cli(compare_main, [str(it_files["tmp"] / "h"), str(it_files["tmp"] / "r"), "--force"]) == 0


def test_summary_and_reports_say_protocol_release(it_files, monkeypatch, capsys):
    out = it_files["tmp"] / "out"
    with JudgeServer(release_handler) as server:
        status, _ = run(it_files, out, "--protocol", "release", "--release-dir", str(it_files["release"]),
                        "--trust-release-code", server=server, monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    block = summary["protocol"]
    assert block["name"] == "release" and block["syllable_counter"] == "release"
    digests = {path: hashlib.sha256((it_files["release"] / path).read_bytes()).hexdigest()
               for path in ("eval/prompts.py", "eval/constraints.py", "eval/judge_client.py", "eval/syllable.py")}
    assert {path: entry["sha256"] for path, entry in block["files"].items()} == digests
    assert not any(entry["matches_examined_copy"] for entry in block["files"].values())
    assert block["templates"]["SOFT_CONSTRAINT_JUDGE_TEMPLATE"]["sha256"] == hashlib.sha256(
        rf.it_soft_template().encode("utf-8")).hexdigest()
    assert not any(entry["matches_examined_copy"] for entry in block["templates"].values())
    assert "protocol:release" in summary["signature"] and "prompt.quality:release:" in summary["signature"]
    assert summary["judge"]["params"] == {"max_output_tokens": 4096, "reasoning": {"effort": "none"}}
    for name in ("report.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert "protocol: release" in text and digests["eval/prompts.py"] in text and "Comparable with" in text


def test_no_sentinel_leaves_the_requests_and_the_cache(it_files, sg_files, monkeypatch, capsys):
    """Outputs, logs and the repository never hold the synthetic templates' text."""
    logs = []
    for files, trust in ((it_files, "--trust-release-code"), (sg_files, "--trust-release-code")):
        out = files["tmp"] / f"out-{files['data'].stem}"
        with JudgeServer(release_handler) as server:
            status, output = run(files, out, "--protocol", "release", "--release-dir", str(files["release"]), trust,
                                 server=server, monkeypatch=monkeypatch, capsys=capsys)
            assert status == 0 and any(rf.SOFT in r.prompt or rf.SANDGLASS in r.prompt for r in server.judge_requests())
        logs.append(output)
        for path in out.iterdir():
            if path.name.startswith("judge_cache"):
                continue  # the cache holds the requests themselves (SPEC §15)
            text = path.read_bytes().decode("utf-8", "replace")
            assert not any(sentinel in text for sentinel in rf.SENTINELS), path
    assert not any(sentinel in log for log in logs for sentinel in rf.SENTINELS)
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split("\n")
    for name in filter(None, tracked):
        path = ROOT / name
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert not any(sentinel in text for sentinel in rf.SENTINELS), name

