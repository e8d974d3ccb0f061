"""Judge health (docs/judge.md#judge-health): label spread, identical replies, null and fallback
shares, and the degenerate-Judge warning, on every benchmark's bundled data against a healthy and
a degenerate stand-in Judge; and the thresholds at their edges."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

import evaluate
from eval.exits import run_cli
from eval.judge.health import (LABEL_MIN_ITEMS, LABEL_SHARE, REPLY_MIN_PROMPTS, REPLY_SHARE, health_markdown,
                               judge_health)
from judge_server import JudgeServer, Recorded, Reply, is_soft_prompt, text_reply, varied_handler, varied_text

ROOT = Path(__file__).resolve().parent.parent
RUNS = {
    "insttrans": ["--predictions", str(ROOT / "data/example_predictions.jsonl")],
    "sandglass": ["--benchmark", "sandglass", "--predictions", str(ROOT / "data/sandglass/example_predictions.jsonl")],
    "ifmtbench": ["--dataset", str(ROOT / "data/ifmtbench"),
                  "--predictions", str(ROOT / "data/ifmtbench/example_predictions.jsonl")],
}


def _verdicts(values: list[object], field: str = "quality", kind: str = "quality",
              replies: list[str] | None = None) -> tuple[dict, dict]:
    verdicts = {(f"c{i}", kind): {field: value} for i, value in enumerate(values)}
    texts = replies if replies is not None else [json.dumps({field: value}) for value in values]
    return verdicts, {(f"c{i}", kind): {"reply": text} for i, text in enumerate(texts)}


@pytest.mark.parametrize("values, warns", [
    ([0.5] * 18 + [1] * 2, True),                      # 90% of 20: the edge warns
    ([0.5] * 17 + [1] * 3, False),                     # 85% of 20
    ([0.5] * 19, False),                               # 100% of 19: too few to tell
    ([1] * 27 + [0] * 3, True),                        # 90% of 30
    ([1] * 26 + [0.5] * 4, False),                     # 87% of 30
    ([None] * 30, False),                              # nulls are no label (their share is reported)
    ([None] * 10 + [0] * 17 + [1] * 2, False),         # 19 labels: too few
    ([None] * 10 + [0] * 19 + [1] * 1, True),          # 95% of the 20 labelled
])
def test_one_label_for_nearly_every_item_warns_at_the_documented_threshold(values, warns):
    verdicts, replies = _verdicts(values)
    health = judge_health(verdicts, replies, rows=len(values))
    assert bool(health["warnings"]) is warns, health
    field = health["kinds"]["quality"]["fields"]["quality"]
    assert field["n"] == len(values) and sum(field["labels"].values()) == len(values)
    assert field["null_share"] == round(values.count(None) / len(values), 4)
    assert (LABEL_MIN_ITEMS, LABEL_SHARE) == (20, 0.9)


def _rubric(style: int, background: int | None) -> dict:
    return {"style": style, "background": background}


@pytest.mark.parametrize("texts, warns", [
    (["same"] * 5 + [f"other {i}" for i in range(5)], True),     # 50% of 10: the edge warns
    (["same"] * 4 + [f"other {i}" for i in range(6)], False),    # 40% of 10
    (["same"] * 9, False),                                        # 9 prompts: too few
    (["same"] * 16, True),                                        # the 16 identical replies
    ([f" same {i % 3}\n" for i in range(12)], False),            # three texts, 4 each
])
def test_one_reply_text_for_many_prompts_warns_at_the_documented_threshold(texts, warns):
    verdicts = {(f"c{i}", "rubric"): _rubric(i % 6, None if i % 2 else i % 5) for i in range(len(texts))}
    replies = {(f"c{i}", "rubric"): {"reply": text} for i, text in enumerate(texts)}
    health = judge_health(verdicts, replies, rows=len(texts))
    reply_warnings = [line for line in health["warnings"] if "one reply text" in line]
    assert bool(reply_warnings) is warns, health
    assert health["kinds"]["rubric"]["top_reply_count"] == max(texts.count(text) for text in set(texts))
    assert (REPLY_MIN_PROMPTS, REPLY_SHARE) == (10, 0.5)


def test_identical_bare_one_field_replies_are_left_to_the_label_check():
    """`{"quality": 1}` fifteen times of 19 is one label, not a copied reply: 19 items warn of nothing."""
    verdicts, replies = _verdicts([1] * 15 + [0] * 4)
    assert judge_health(verdicts, replies, rows=19)["warnings"] == []


def test_soft_scores_pool_their_ids_and_repairs_and_fallback_shares_are_counted():
    verdicts = {("a", "soft"): {"scores": {"x": 1.0, "y": 0.5}}, ("b", "soft"): {"scores": {"x": 1.0}},
                ("a", "glossary"): {"glossary": 0}}
    replies = {("a", "soft"): {"reply": "r1", "repaired": True}, ("b", "soft"): {"reply": "r2"},
               ("a", "glossary"): {"reply": "g"}}
    health = judge_health(verdicts, replies, rows=4)
    assert health["kinds"]["soft"]["fields"]["scores"] == {"n": 3, "labels": {"1": 2, "0.5": 1}, "null_share": 0.0}
    assert health["kinds"]["soft"]["repaired"] == 1 and health["kinds"]["soft"]["distinct_replies"] == 2
    assert health["kinds"]["glossary"]["share_of_rows"] == 0.25  # a fallback asked for a quarter of the rows
    assert list(health["kinds"]) == ["glossary", "soft"]


def test_a_run_without_a_judge_has_no_health_section():
    assert health_markdown({"judge": None}) == ""


def _evaluate(name: str, handler, tmp_path: Path, monkeypatch, capfd) -> tuple[dict, str, str, str]:
    monkeypatch.setenv("JUDGE_API_KEY", "sk-health-test")
    out = tmp_path / name
    with JudgeServer(handler) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, [*RUNS[name], "--output-dir", str(out), "--judge-cache",
                                         str(tmp_path / f"{name}.sqlite"), "--judge-backoff", "0.001"])
    console = capfd.readouterr()
    assert status == 0, console.err
    return _results(out, console.out)


def _results(out: Path, console: str) -> tuple[dict, str, str, str]:
    return (json.loads((out / "summary.json").read_text(encoding="utf-8")), (out / "report.md").read_text(encoding="utf-8"),
            (out / "report.html").read_text(encoding="utf-8"), console)


@pytest.fixture(scope="module")
def degenerate_ifmtbench(tmp_path_factory) -> tuple[Path, tuple[dict, str, str, str]]:
    """The degenerate Judge's IFMTBench run, made once: two tests read it (the run folder and what
    `_evaluate` gives back)."""
    tmp_path = tmp_path_factory.mktemp("degenerate")
    console, errors = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as monkeypatch, JudgeServer(_degenerate) as server, \
            contextlib.redirect_stdout(console), contextlib.redirect_stderr(errors):
        monkeypatch.setenv("JUDGE_API_KEY", "sk-health-test")
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, [*RUNS["ifmtbench"], "--output-dir", str(tmp_path / "ifmtbench"),
                                         "--judge-cache", str(tmp_path / "ifmtbench.sqlite"), "--judge-backoff", "0.001"])
    assert status == 0, errors.getvalue()
    return tmp_path, _results(tmp_path / "ifmtbench", console.getvalue())


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_healthy_judge_on_the_bundled_data_never_warns(name, tmp_path, monkeypatch, capfd):
    summary, report, page, console = _evaluate(name, varied_handler, tmp_path, monkeypatch, capfd)
    health = summary["judge"]["health"]
    assert health["warnings"] == [], health
    assert sum(kind["prompts"] for kind in health["kinds"].values()) == summary["judge"]["calls"]
    for kind in health["kinds"].values():
        for field in kind["fields"].values():
            assert len(field["labels"]) >= 2
    assert "## Judge health" in report and "degenerate" not in report
    assert 'id="judge-health"' in page and "degenerate" not in page
    assert "degenerate" not in console


def _degenerate(request: Recorded) -> Reply:
    """0.5 for every quality prompt (the issue's InstTrans and Sandglass Judge), the same rubric reply
    every time (its IFMTBench Judge); other prompts answered like a healthy Judge."""
    prompt = request.prompt
    if '{"scores": {"style": S, "background": S}}' in prompt:
        text = '{"scores": {"style": 3, "background": null}}'
    elif is_soft_prompt(prompt) or '{"glossary": G}' in prompt:
        text = varied_text(prompt)
    else:
        text = '{"quality": 0.5}'
    return text_reply(request.path, text, model=str(request.body.get("model", "")), prompt=prompt)


@pytest.mark.parametrize("name, expected", [
    ("insttrans", ["the Judge answered quality = 0.5 to 308 of 308 quality verdicts"]),
    ("sandglass", ["the Judge answered quality = 0.5 to 235 of 235 sandglass_quality verdicts"]),
    ("ifmtbench", ["the Judge answered style = 3 to 72 of 72 ifmt_rubric verdicts",
                   "the Judge gave one reply text to 72 of 72 ifmt_rubric prompts"]),
])
def test_a_degenerate_judge_warns_in_the_console_the_reports_and_the_summary(name, expected, tmp_path,
                                                                            monkeypatch, capfd, request):
    if name == "ifmtbench":
        summary, report, page, console = request.getfixturevalue("degenerate_ifmtbench")[1]
    else:
        summary, report, page, console = _evaluate(name, _degenerate, tmp_path, monkeypatch, capfd)
    warnings = summary["judge"]["health"]["warnings"]
    assert [line.split(" (threshold")[0] for line in warnings] == expected
    for line in warnings:
        assert f"warning: Judge looks degenerate: {line}" in console
        assert line in report
        assert line.replace("&", "&amp;") in page
    if name == "ifmtbench":  # background null every time: a null share of 1, reported, not a label
        rubric = summary["judge"]["health"]["kinds"]["ifmt_rubric"]
        assert rubric["fields"]["background"] == {"n": 72, "labels": {"null": 72}, "null_share": 1.0}
        assert rubric["distinct_replies"] == 1


def test_health_never_changes_a_verdict(tmp_path, monkeypatch, capfd, degenerate_ifmtbench):
    """A degenerate Judge's run scores byte for byte as it does with the health block left out."""
    import eval.run.pipeline

    with_folder, (with_health, *_) = degenerate_ifmtbench
    monkeypatch.setattr(eval.run.pipeline, "judge_health", lambda *args: {"kinds": {}, "warnings": []})
    without, *_ = _evaluate("ifmtbench", _degenerate, tmp_path / "b", monkeypatch, capfd)
    assert with_health["judge"]["health"]["warnings"] and without["judge"]["health"]["warnings"] == []
    scores = [re.sub(r'"cache_key": "\w+"', "", (folder / "ifmtbench" / "scores.jsonl").read_text(encoding="utf-8"))
              for folder in (with_folder, tmp_path / "b")]  # each run's server has its own port
    assert scores[0] == scores[1]
    for key in ("if_score", "by_constraint", "glossary_fallback", "judge_nulls"):
        assert with_health.get(key) == without.get(key)


def test_the_documented_chance_of_a_false_label_warning():
    """docs/judge.md: an even choice among three labels gives one label to >= 18 of 20 items about
    once in a million."""
    from math import comb

    chance = 3 * sum(comb(20, k) * (1 / 3) ** k * (2 / 3) ** (20 - k) for k in range(18, 21))
    assert 0.5e-6 < chance < 2e-6
    assert "about 1 in a\nmillion" in (ROOT / "docs/judge.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("given, warns", [
    ([1, 1, 0], True),            # 2 of 3 untranslated answers got the run's highest label
    ([1, 0, 0], False),           # 1 of 3
    ([1, 1], False),              # too few to tell
    ([0.5, 0.5, 0.5], False),     # not the highest label of the run
])
def test_full_marks_for_untranslated_answers_warn(given, warns):
    values = [1, 0.5, 0] * 3 + given
    verdicts, replies = _verdicts(values)
    flagged = {f"c{i}" for i in range(9, len(values))}
    health = judge_health(verdicts, replies, rows=len(values), untranslated=flagged)
    lines = [line for line in health["warnings"] if "not translated" in line]
    assert bool(lines) is warns, health
    assert sum(health["kinds"]["quality"]["fields"]["quality"]["untranslated"].values()) == len(given)


def _discerning(request: Recorded) -> Reply:
    """A Judge that gives 0 to a candidate still in Chinese, and spreads the rest."""
    from judge_server import candidate_of

    if re.search("[\u4e00-\u9fff]", candidate_of(request.prompt)):
        return text_reply(request.path, '{"quality": 0}', prompt=request.prompt)
    return varied_handler(request)


@pytest.mark.parametrize("handler, warns", [("full marks", True), ("discerning", False)])
def test_a_judge_that_gives_full_marks_to_copied_sources_is_named(tmp_path, monkeypatch, capfd, handler, warns):
    """The issue's tiny Judges: quality 1 to answers that copied the Chinese line (Sandglass)."""
    from judge_server import default_handler

    rows = [json.loads(line) for line in (ROOT / "data/sandglass/test.jsonl").read_text(encoding="utf-8").splitlines()]
    predictions = tmp_path / "copied.jsonl"
    predictions.write_text("\n".join(json.dumps({"case_id": row["case_id"], "prediction": row["metadata"]["source"]
                                                 if index % 2 else row["label"]})
                                     for index, row in enumerate(rows[:8])) + "\n", encoding="utf-8")
    monkeypatch.setenv("JUDGE_API_KEY", "sk-health-test")
    with JudgeServer(default_handler if handler == "full marks" else _discerning) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        assert run_cli(evaluate.main, ["--benchmark", "sandglass", "--predictions", str(predictions), "--limit", "8",
                                       "--output-dir", str(tmp_path / "out")]) == 0
    console = capfd.readouterr().out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    field = summary["judge"]["health"]["kinds"]["sandglass_quality"]["fields"]["quality"]
    assert field["untranslated"] == ({"1": 4} if warns else {"0": 4})  # the four copied lines
    line = "the Judge gave quality = 1 (the run's highest) to 4 of 4 sandglass_quality answers that are not translated"
    assert (line in console) is warns
    assert (line in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")) is warns
