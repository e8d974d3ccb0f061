"""eval.compare (SPEC §12) on constructed runs whose truth is known, and on real runs via the CLI."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from eval.compare import agreement, cohen_kappa, compare, format_report, paired_statistics
from eval.errors import CompareError
from eval.scoring.pairing import UnitValues
from eval.provenance import Signature, make_signature, parse_signature
from judge_server import JudgeServer, candidate_of, is_soft_prompt, soft_ids_of, text_reply

ROOT = Path(__file__).resolve().parent.parent
JUDGE = {"model": "judge-x", "endpoint_kind": "chat_completions", "host": "http://127.0.0.1:1",
         "params": {"max_tokens": 2048, "temperature": 0}, "prompt_versions": {"quality": "quality-1", "soft": "soft-1"}}


def signature(judge: dict | None = JUDGE, data: str = "d" * 64, n: int = 300, rules: str = "original",
              version: str = "0.1.0", system: str | None = None, **more: str) -> str:
    parts = [f"data:{data[:12]}", f"n:{n}", f"rules:{rules}", *(f"{key}:{value}" for key, value in more.items())]
    if judge is None:
        parts.append("judge:none")
    else:
        parts += [f"judge:{judge['model']}", f"host:{judge['host']}", f"endpoint:{judge['endpoint_kind']}"]
        parts += [f"{key}:{json.dumps(value)}" for key, value in sorted(judge["params"].items())]
        parts += [f"prompt.{key}:{value}" for key, value in sorted(judge["prompt_versions"].items())]
    if system:
        parts.append(f"system:{system}")
    parts += ["boot:1000", "seed:20260929", f"version:{version}"]
    return "|".join(parts)


def score_row(case_id: str, hard: bool, soft: float | None = 1.0, quality: float | None = 1.0,
              status: str = "ok") -> dict:
    """An InstTrans score row with one hard and one soft constraint."""
    constraints = [{"index": 1, "id": "format_preserve", "kind": "hard", "passed": hard, "detail": {}},
                   {"index": 2, "id": "style_consistency", "kind": "soft", "score": soft, "detail": {}}]
    if_score = None if soft is None else float(hard) * soft
    return {"case_id": case_id, "source_lang": "zh", "target_lang": "en", "scenario": "social", "domain": "评论",
            "constraint_ids": ["format_preserve", "style_consistency"], "status": status, "constraints": constraints,
            "hard_pass": hard, "soft_mean": soft, "if_score": if_score, "quality": quality}


def write_run(path: Path, rows: list[dict], judge: dict | None = JUDGE, predictions_sha: str = "p" * 64,
              **signature_parts) -> Path:
    """A run directory (summary.json + scores.jsonl) with the headline values the rows imply."""
    path.mkdir(parents=True, exist_ok=True)
    n = len(rows)
    judged = judge is not None

    def mean(field):
        return round(sum(float(row[field]) for row in rows) / n, 6) if judged or field == "hard_pass" else None

    summary = {
        "harness_version": "0.1.0", "formal": False, "non_formal_reasons": ["constructed"],
        "data": {"source": "x", "sha256": signature_parts.get("data", "d" * 64), "n_instances": n,
                 "manifest_match": False},
        "predictions": {"path": "p.jsonl", "sha256": predictions_sha, "rows": n, "missing": 0,
                        "diagnostics": {"code_fence": 0, "think_block": 0, "text_around_json": 0}},
        "judge": judge, "signature": signature(judge=judge, n=n, **signature_parts),
        "if_score": {"value": mean("if_score"), "ci95": None, "n": n},
        "quality": {"value": mean("quality"), "ci95": None, "n": n},
        "hard_pass_rate": {"value": mean("hard_pass"), "ci95": None, "n": n},
        "by_constraint": {"format_preserve": {"kind": "hard", "n": n, "pass_rate": mean("hard_pass")},
                          "style_consistency": {"kind": "soft", "n": n, "mean": mean("soft_mean")}},
    }
    (path / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (path / "scores.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def rows_with(passes: list[bool], **fields) -> list[dict]:
    return [score_row(f"c{index:04d}", hard, **fields) for index, hard in enumerate(passes)]


# --- the statistics on known truths ---------------------------------------------------------

def test_identical_runs_have_delta_zero_and_p_one(tmp_path):
    rows = rows_with([index % 3 == 0 for index in range(300)])
    a, b = write_run(tmp_path / "a", rows), write_run(tmp_path / "b", rows)
    result = compare([a, b], resamples=2000)
    for stats in list(result["metrics"].values()) + list(result["by_constraint"].values()):
        assert stats["delta"] == 0 and stats["ci95"] == [0.0, 0.0] and stats["p_value"] == 1.0
    assert set(result["metrics"]) == {"if_score", "quality", "hard_pass_rate"}


def test_a_large_difference_on_300_rows_is_significant(tmp_path):
    a = write_run(tmp_path / "a", rows_with([index % 10 < 3 for index in range(300)]))   # 30% pass
    b = write_run(tmp_path / "b", rows_with([index % 10 < 8 for index in range(300)]))   # 80% pass
    stats = compare([a, b], resamples=2000)["metrics"]["hard_pass_rate"]
    assert (stats["a"], stats["b"], stats["delta"]) == (0.3, 0.8, 0.5)
    assert stats["p_value"] < 0.01
    assert 0.4 < stats["ci95"][0] < 0.5 < stats["ci95"][1] < 0.6


def test_a_tiny_difference_is_not_significant(tmp_path):
    passes = [index % 2 == 0 for index in range(300)]
    changed = list(passes)
    changed[1] = True  # one instance of 300 flips
    a, b = write_run(tmp_path / "a", rows_with(passes)), write_run(tmp_path / "b", rows_with(changed))
    stats = compare([a, b], resamples=2000)["metrics"]["hard_pass_rate"]
    assert stats["delta"] == pytest.approx(1 / 300, abs=1e-6)
    assert stats["p_value"] > 0.5
    assert stats["ci95"][0] <= 0 <= stats["ci95"][1]


def test_the_randomization_p_value_matches_the_exact_one():
    """Ten pairs that all differ by +1: exactly 2 of the 2^10 sign patterns are as extreme."""
    units = {"m": UnitValues([0.0] * 10, [1.0] * 10, [1.0] * 10)}
    p_value = paired_statistics(units, resamples=20000, seed=1)["m"]["p_value"]
    assert p_value == pytest.approx(2 / 1024, abs=0.0015)


def test_the_bootstrap_interval_matches_the_normal_one_on_a_large_sample():
    """Delta ∈ {0, 1} with p = 0.5 on 2000 pairs: SE = 0.5 / sqrt(2000), the interval ±1.96 SE."""
    units = {"m": UnitValues([0.0] * 2000, [float(index % 2) for index in range(2000)], [1.0] * 2000)}
    low, high = paired_statistics(units, resamples=4000, seed=3)["m"]["ci95"]
    half_width = 1.96 * 0.5 / 2000 ** 0.5
    assert low == pytest.approx(0.5 - half_width, abs=0.006)
    assert high == pytest.approx(0.5 + half_width, abs=0.006)


def test_the_same_seed_gives_the_same_numbers_and_the_seed_is_recorded(tmp_path):
    a = write_run(tmp_path / "a", rows_with([index % 4 == 0 for index in range(300)]))
    b = write_run(tmp_path / "b", rows_with([index % 3 == 0 for index in range(300)]))
    first, second = compare([a, b], seed=7, resamples=1000), compare([a, b], seed=7, resamples=1000)
    other = compare([a, b], seed=8, resamples=1000)
    assert first["metrics"] == second["metrics"]
    assert (first["seed"], first["resamples"]) == (7, 1000)
    assert first["metrics"]["hard_pass_rate"]["ci95"] != other["metrics"]["hard_pass_rate"]["ci95"]


def test_per_constraint_rates_weight_instances_as_the_summary_does(tmp_path):
    rows = rows_with([True, False, True, True])
    rows[0]["constraints"].append({"index": 3, "id": "format_preserve", "kind": "hard", "passed": False, "detail": {}})
    other = [dict(row) for row in rows]
    result = compare([write_run(tmp_path / "a", rows), write_run(tmp_path / "b", other)], resamples=200)
    assert result["by_constraint"]["format_preserve"]["a"] == pytest.approx(3 / 5, abs=1e-6)  # 5 entries, 3 passed
    assert result["by_constraint"]["format_preserve"]["n"] == 4


def test_without_the_judge_only_hard_metrics_are_compared(tmp_path):
    rows = rows_with([True, False] * 10, soft=None, quality=None)
    result = compare([write_run(tmp_path / "a", rows, judge=None), write_run(tmp_path / "b", rows, judge=None)],
                     resamples=200)
    assert set(result["metrics"]) == {"hard_pass_rate"}
    assert set(result["by_constraint"]) == {"format_preserve"}


# --- refusals ---------------------------------------------------------------------------------

def test_rows_missing_from_either_run_are_refused(tmp_path):
    rows = rows_with([True] * 20)
    a = write_run(tmp_path / "a", rows)
    b = write_run(tmp_path / "b", rows[:-2] + [score_row("extra", True), score_row("extra2", True)])
    with pytest.raises(CompareError, match=r"not comparable: they do not pair up: 2 case_ids only in a "
                                           r"\(c0018, c0019\); 2 case_ids only in b \(extra, extra2\)"):
        compare([a, b], resamples=200)
    shorter = write_run(tmp_path / "shorter", rows[:-1])
    with pytest.raises(CompareError, match=r"not comparable: n: '20' vs '19'; they do not pair up: 1 case_ids"):
        compare([a, shorter], resamples=200)


def test_force_compares_the_common_rows_and_records_the_rest(tmp_path):
    rows = rows_with([True] * 20)
    a, b = write_run(tmp_path / "a", rows), write_run(tmp_path / "b", rows[:-2])
    result = compare([a, b], resamples=200, force=True)
    comparison = result["comparisons"][0]
    assert comparison["pairing"]["paired"] == 18 and comparison["pairing"]["only_in_a"] == ["c0018", "c0019"]
    assert comparison["forced"] and "FORCED: compared on the common instances only" in format_report(result)


CHANGED_JUDGE = dict(JUDGE, model="other-judge")
SIGNATURE_CHANGES = [
    ("judge", {"judge": CHANGED_JUDGE}),
    ("host", {"judge": dict(JUDGE, host="http://judge.example")}),
    ("temperature", {"judge": dict(JUDGE, params={"max_tokens": 2048, "temperature": 0.7})}),
    ("prompt.soft", {"judge": dict(JUDGE, prompt_versions={"quality": "quality-1", "soft": "soft-2"})}),
    ("data", {"data": "e" * 64}),
    ("rules", {"rules": "strict"}),
    ("version", {"version": "0.2.0"}),
]


@pytest.mark.parametrize("key,change", SIGNATURE_CHANGES, ids=[key for key, _ in SIGNATURE_CHANGES])
def test_a_signature_difference_beyond_the_predictions_is_refused_naming_it(tmp_path, key, change):
    rows = rows_with([True, False] * 10)
    a, b = write_run(tmp_path / "a", rows), write_run(tmp_path / "b", rows, **change)
    with pytest.raises(CompareError, match=rf"not comparable: {key}: "):
        compare([a, b], resamples=200)
    forced = compare([a, b], resamples=200, force=True)
    assert key in [item["key"] for item in forced["signature_check"]["differences"]]
    assert not forced["signature_check"]["compatible"]


def test_the_systems_part_of_the_signature_may_differ(tmp_path):
    rows = rows_with([True, False] * 10)
    a = write_run(tmp_path / "a", rows, system="model-a")
    b = write_run(tmp_path / "b", rows, system="model-b")
    assert compare([a, b], resamples=200)["signature_check"]["compatible"]


@pytest.mark.parametrize("settings,message", [({"resamples": 10}, "at least 100"), ({"seed": -1}, "non-negative")])
def test_unusable_statistics_settings_are_refused(tmp_path, settings, message):
    rows = rows_with([True, False])
    with pytest.raises(CompareError, match=message):
        compare([write_run(tmp_path / "a", rows), write_run(tmp_path / "b", rows)], **settings)


def test_a_directory_that_is_not_a_run_is_refused(tmp_path):
    a = write_run(tmp_path / "a", rows_with([True]))
    with pytest.raises(CompareError, match="summary.json does not exist"):
        compare([a, tmp_path / "nothing"])


def test_more_runs_are_each_compared_with_the_first(tmp_path):
    base = rows_with([index % 2 == 0 for index in range(100)])
    better = rows_with([index % 4 != 0 for index in range(100)])
    runs = [write_run(tmp_path / "a", base), write_run(tmp_path / "b", better), write_run(tmp_path / "c", base)]
    result = compare(runs, resamples=500)
    assert [(item["a"], item["b"]) for item in result["comparisons"]] == [("a", "b"), ("a", "c")]
    assert result["comparisons"][1]["metrics"]["hard_pass_rate"]["delta"] == 0
    assert result["metrics"] == result["comparisons"][0]["metrics"]


# --- Judge agreement --------------------------------------------------------------------------

def test_cohens_kappa_on_hand_computed_tables():
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)   # p_o 0.75, p_e 0.5
    assert cohen_kappa([1, 0.5, 0], [1, 0.5, 0]) == 1.0
    assert cohen_kappa([1, 0, 1, 0], [0, 1, 0, 1]) == -1.0
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) is None   # chance agreement is total: κ undefined
    assert agreement([1, 0.5], [1, 0])["confusion"] == {"1": {"1": 1}, "0.5": {"0": 1}}


def test_judge_agreement_for_the_same_predictions_under_two_judges(tmp_path):
    qualities_a = [1.0, 1.0, 0.5, 0.0] * 25
    qualities_b = [1.0, 0.5, 0.5, 0.0] * 25
    rows_a = [score_row(f"c{i:03d}", True, soft=1.0, quality=q) for i, q in enumerate(qualities_a)]
    rows_b = [score_row(f"c{i:03d}", True, soft=1.0 if i % 2 else 0.0, quality=q) for i, q in enumerate(qualities_b)]
    a = write_run(tmp_path / "a", rows_a)
    b = write_run(tmp_path / "b", rows_b, judge=CHANGED_JUDGE)
    with pytest.raises(CompareError) as refused:
        compare([a, b], resamples=200)
    assert "--force reports the Judges' agreement" in str(refused.value)
    result = compare([a, b], resamples=200, force=True)
    quality = result["judge_agreement"]["quality"]
    assert quality["n"] == 100 and quality["exact_match"] == 0.75
    assert quality["kappa"] == pytest.approx((0.75 - 0.3125) / (1 - 0.3125), abs=1e-6)  # p_e by hand
    style = result["judge_agreement"]["style_consistency"]
    assert style["exact_match"] == 0.5 and style["kappa"] == 0.0  # A gave 1 everywhere: chance level


def test_no_judge_agreement_when_the_predictions_differ(tmp_path):
    rows = rows_with([True] * 10)
    a = write_run(tmp_path / "a", rows)
    b = write_run(tmp_path / "b", rows, judge=CHANGED_JUDGE, predictions_sha="q" * 64)
    result = compare([a, b], resamples=200, force=True)
    assert result["judge_agreement"] is None
    assert result["comparisons"][0]["same_predictions"]["same"] is False


def test_parse_signature_keeps_colons_inside_values():
    parsed = parse_signature('data:ab|reasoning:{"effort":"none"}|host:http://h:1')
    assert parsed == {"data": "ab", "reasoning": '{"effort":"none"}', "host": "http://h:1"}


# --- the signature as an object: fields and text (issue 37) -----------------------------------

def _with_fields(path: Path) -> Path:
    """The run as this harness writes it now: the signature's fields beside its text."""
    summary = json.loads((path / "summary.json").read_text(encoding="utf-8"))
    summary["signature_fields"] = dict(Signature.parse(summary["signature"]).parts)
    (path / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return path


def test_a_signature_round_trips_through_its_stored_fields_and_text():
    judge = {**JUDGE, "model": "gate|way/model:x"}  # a value holding the text's own separators
    signature = make_signature("f" * 64, 10, judge, settings=("known:none", "rules:strict"), benchmark="toy")
    stored = json.loads(json.dumps(signature.stored()))
    assert stored["signature"] == signature.text and stored["signature"].startswith("bench:toy|data:ffffffffffff|n:10|")
    assert list(stored["signature_fields"])[:4] == ["bench", "data", "n", "known"]
    assert Signature.from_summary(stored) == signature  # the fields, not the text split back
    assert Signature.from_summary(stored).fields["judge"] == "gate|way/model:x"
    assert signature.fields["protocol"] == signature.fields["counter"] == "harness"  # what unstated means
    assert "protocol" not in stored["signature_fields"] and "protocol" not in signature.text


def test_a_summary_of_an_older_harness_has_only_the_text_and_is_parsed_once_at_the_edge():
    text = 'data:ab|n:3|judge:m|reasoning:{"effort":"none"}|version:0.1.0'
    old = Signature.from_summary({"signature": text})
    assert old.parts == (("data", "ab"), ("n", "3"), ("judge", "m"), ("reasoning", '{"effort":"none"}'),
                         ("version", "0.1.0"))
    assert old.text == text and old == Signature.from_summary({"signature": text, "signature_fields": dict(old.parts)})


@pytest.mark.parametrize("summary, message", [
    ({"signature": "a:1|b:2", "signature_fields": {"a": "1", "b": "3"}}, "does not spell the field signature"),
    ({"signature": "a:1|b:2", "signature_fields": {"b": "2", "a": "1"}}, "does not spell the field signature"),
    ({"signature": "a:1", "signature_fields": {"a": 1}}, "expected an object of strings"),
    ({"signature": "a:1", "signature_fields": ["a", "1"]}, "expected an object of strings"),
    ({"signature": "a:1|a:2"}, "names a key twice"),
    ({"signature": "a:1||b:2"}, "part without a key"),
    ({"signature": 5}, "expected a string"),
])
def test_a_signature_that_cannot_be_read_is_refused_naming_the_field(summary, message):
    with pytest.raises(ValueError, match=message):
        Signature.from_summary(summary)


def test_compare_diffs_signatures_field_by_field_with_or_without_stored_fields(tmp_path):
    rows = rows_with([True] * 10)
    a = write_run(tmp_path / "a", rows)
    b = write_run(tmp_path / "b", rows, judge={**JUDGE, "model": "judge-y"}, protocol="release", counter="harness")
    text_only = compare([a, b], resamples=100, force=True)["signature_check"]
    both = compare([_with_fields(a), _with_fields(b)], resamples=100, force=True)["signature_check"]
    assert text_only == both
    assert both["differences"] == [{"key": "judge", "a": "judge-x", "b": "judge-y"},
                                   {"key": "protocol", "a": "harness", "b": "release"}]  # counter:harness = unstated
    broken = json.loads((b / "summary.json").read_text(encoding="utf-8"))
    broken["signature_fields"]["judge"] = "judge-x"  # a hand edit: fields and text disagree
    (b / "summary.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(CompareError, match=r"b/summary.json: field signature_fields: does not spell"):
        compare([a, b], resamples=100, force=True)


# --- real runs through the CLI ----------------------------------------------------------------

def _evaluate(args: list[str], env: dict | None = None) -> None:
    """A run made by evaluate.py's main in this process: these tests are about compare's command line."""
    import evaluate
    from eval.exits import run_cli

    with mock.patch.dict(os.environ, env or {}):
        assert run_cli(evaluate.main, ["--quiet", *args]) == 0


def _compare_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "eval.compare", *args], cwd=ROOT, capture_output=True, text=True)


def _perturbed(source: Path, target: Path, every: int = 3) -> Path:
    """Every `every`-th prediction dropped (becomes missing): a clearly worse system."""
    lines = source.read_text(encoding="utf-8").split("\n")
    out = []
    for index, line in enumerate(line for line in lines if line.strip()):
        entry = json.loads(line)
        if index % every == 0:
            entry["prediction"] = None
        out.append(json.dumps(entry, ensure_ascii=False))
    target.write_text("\n".join(out) + "\n", encoding="utf-8")
    return target


@pytest.mark.parametrize("bench,predictions,headline", [
    ("insttrans", ROOT / "data" / "example_predictions.jsonl", "hard_pass_rate"),
    ("sandglass", ROOT / "data" / "sandglass" / "example_predictions.jsonl", "syllable_reward"),
])
def test_the_cli_compares_real_runs_of_both_benchmarks(tmp_path, bench, predictions, headline):
    worse = _perturbed(predictions, tmp_path / "worse.jsonl")
    flags = ["--benchmark", bench, "--skip-judge"]
    _evaluate([*flags, "--predictions", str(predictions), "--output-dir", str(tmp_path / "a")])
    _evaluate([*flags, "--predictions", str(worse), "--output-dir", str(tmp_path / "b")])
    done = _compare_cli(str(tmp_path / "a"), str(tmp_path / "b"), "--json", str(tmp_path / "c.json"),
                        "--resamples", "2000")
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert set(result) >= {"runs", "signature_check", "metrics", "by_constraint"}
    stats = result["metrics"][headline]
    summary_a = json.loads((tmp_path / "a" / "summary.json").read_text(encoding="utf-8"))
    assert stats["a"] == pytest.approx(summary_a[headline]["value"], abs=1e-6)
    assert stats["delta"] < 0 and stats["p_value"] < 0.01
    assert f"{headline} " in done.stdout and "**" in done.stdout
    if bench == "sandglass":  # per-language deltas, pooled exactly as the summary's tables
        assert set(result["comparisons"][0]["by_language"]) == set(summary_a["by_language"])
        for lang, by_metric in result["comparisons"][0]["by_language"].items():
            assert by_metric[headline]["a"] == pytest.approx(summary_a["by_language"][lang][headline], abs=1e-6)
        assert result["metrics"]["slope"]["a"] == pytest.approx(summary_a["overall"]["slope"], abs=1e-6)
        assert result["metrics"]["mean_abs_dev"]["a"] == pytest.approx(summary_a["mean_abs_dev"]["value"], abs=1e-6)


def test_the_cli_refuses_runs_of_different_benchmarks_with_exit_2(tmp_path):
    _evaluate(["--skip-judge", "--predictions", str(ROOT / "data" / "example_predictions.jsonl"),
               "--output-dir", str(tmp_path / "i")])
    _evaluate(["--benchmark", "sandglass", "--skip-judge", "--predictions",
               str(ROOT / "data" / "sandglass" / "example_predictions.jsonl"), "--output-dir", str(tmp_path / "s")])
    done = _compare_cli(str(tmp_path / "i"), str(tmp_path / "s"))
    assert done.returncode == 2
    assert "runs of two benchmarks (InstTrans-Bench and Sandglass-Bench)" in done.stderr
    assert "--force" not in done.stderr and "Traceback" not in done.stderr  # --force cannot pair two benchmarks


def _lenient_second_judge(request):
    """Judge B: agrees with the markers, except that it gives 1 wherever the marker says 0.5."""
    prompt = request.prompt
    candidate = candidate_of(prompt)
    lenient = request.body.get("model") == "judge-b"
    if is_soft_prompt(prompt):
        score = 0.0 if "[s=0]" in candidate else 1.0
        return text_reply(request.path, json.dumps({"scores": {cid: score for cid in soft_ids_of(prompt)}}))
    quality = 0.5 if "[q=0.5]" in candidate and not lenient else 1.0
    return text_reply(request.path, json.dumps({"quality": quality}))


def test_the_cli_reports_judge_agreement_for_real_runs_under_two_judges(tmp_path):
    rows = [json.loads(line) for line in (ROOT / "data" / "example_predictions.jsonl").read_text(encoding="utf-8")
            .split("\n") if line.strip()][:60]
    for index, entry in enumerate(rows):
        if entry["prediction"] and index % 4 == 0:
            entry["prediction"] += " [q=0.5]"
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in rows), encoding="utf-8")
    data = tmp_path / "data.jsonl"
    ids = {entry["case_id"] for entry in rows}
    data.write_text("".join(line + "\n" for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8")
                            .split("\n") if line.strip() and json.loads(line)["case_id"] in ids), encoding="utf-8")
    with JudgeServer(_lenient_second_judge) as server:
        env = dict(os.environ, JUDGE_API_BASE=server.base_url, JUDGE_API_KEY="test-key")
        for name in ("judge-a", "judge-b"):
            _evaluate(["--data", str(data), "--predictions", str(predictions), "--output-dir", str(tmp_path / name),
                       "--judge-model", name], env=env)
    refused = _compare_cli(str(tmp_path / "judge-a"), str(tmp_path / "judge-b"))
    assert refused.returncode == 2 and "judge: 'judge-a' vs 'judge-b'" in refused.stderr
    done = _compare_cli(str(tmp_path / "judge-a"), str(tmp_path / "judge-b"), "--force", "--json",
                        str(tmp_path / "c.json"), "--resamples", "500")
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    quality = result["judge_agreement"]["quality"]
    marked = sum(1 for entry in rows if entry["prediction"] and "[q=0.5]" in entry["prediction"])
    judged = sum(1 for entry in rows if entry["prediction"] and entry["prediction"].strip())
    assert quality["n"] == judged
    assert quality["exact_match"] == pytest.approx((judged - marked) / judged, abs=1e-6)
    assert quality["confusion"]["0.5"] == {"1": marked}
    assert "Judge agreement" in done.stdout and "FORCED" in done.stdout


# --- Sandglass runs constructed ---------------------------------------------------------------

def sandglass_item(uuid: str, kind: str, target: int, output: int, quality: float | None = 1.0,
                   hyp: str | None = None, lang: str = "en") -> dict:
    dev = abs(output - target) / target
    reward = 1.0 if abs(output - target) <= 1 or dev <= 0.05 else 0.0 if dev >= 0.5 else 1 - (dev - 0.05) / 0.45
    return {"case_id": f"{uuid}:{lang}:{kind}", "uuid": uuid, "fenqu": "知识", "target_language": lang,
            "target_kind": kind, "target_syllables": target, "duration": 2.0, "source": "字幕", "status": "ok",
            "hyp": hyp if hyp is not None else f"{uuid} {kind} {output}", "hyp_syllables": output,
            "abs_diff": abs(output - target), "dev": round(dev, 6), "signed_dev": 0.0, "syllable_reward": reward,
            "hit_pm1": int(abs(output - target) <= 1), "hit_strict5": int(dev <= 0.05), "hit_10": int(dev <= 0.1),
            "hit_20": int(dev <= 0.2), "quality": quality, "judge_error": 0,
            "score": None if quality is None else (reward + quality) / 2}


def write_sandglass_run(path: Path, items: list[dict], judge: dict | None = JUDGE) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    judged = judge is not None
    overall = {"slope": 1.0, "q_gap_short": 0.0 if judged else None, "q_gap_long": 0.0 if judged else None,
               **{name: 0.5 for name in ("pm1", "dev_le_5", "dev_le_10", "dev_le_20")}}
    summary = {"benchmark": "sandglass", "formal": False, "non_formal_reasons": ["constructed"],
               "data": {"source": "x", "sha256": "d" * 64, "n_instances": len(items), "manifest_match": False},
               "predictions": {"path": "p.jsonl", "rows": len(items), "missing": 0, "diagnostics": {}},
               "judge": judge, "signature": "bench:sandglass|" + signature(judge=judge, n=len(items)),
               "overall": overall,
               **{name: {"value": 0.5, "ci95": [0.4, 0.6]} for name in ("syllable_reward", "mean_abs_dev")},
               **{name: {"value": 0.5 if judged else None, "ci95": None} for name in ("score", "quality")}}
    (path / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (path / "scores.jsonl").write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def test_sandglass_slope_is_paired_per_line_with_a_known_delta(tmp_path):
    targets = {"short": 10, "natural": 13, "long": 16}
    tracking = [sandglass_item(f"u{i}", kind, target, target) for i in range(40) for kind, target in targets.items()]
    flat = [sandglass_item(f"u{i}", kind, target, 13) for i in range(40) for kind, target in targets.items()]
    result = compare([write_sandglass_run(tmp_path / "a", tracking), write_sandglass_run(tmp_path / "b", flat)],
                     resamples=1000)
    slope = result["metrics"]["slope"]
    assert (slope["a"], slope["b"], slope["delta"], slope["n"]) == (1.0, 0.0, -1.0, 40)
    assert slope["p_value"] < 0.01
    assert result["metrics"]["pm1"]["delta"] == pytest.approx(-2 / 3, abs=1e-6)
    assert result["by_constraint"] == {} and set(result["comparisons"][0]["by_language"]) == {"en"}


def test_sandglass_judge_agreement_compares_the_prediction_texts(tmp_path):
    items_a = [sandglass_item(f"u{i}", "natural", 13, 13, quality=1.0 if i % 2 else 0.5) for i in range(20)]
    items_b = [sandglass_item(f"u{i}", "natural", 13, 13, quality=1.0) for i in range(20)]
    a = write_sandglass_run(tmp_path / "a", items_a)
    b = write_sandglass_run(tmp_path / "b", items_b, judge=CHANGED_JUDGE)
    result = compare([a, b], resamples=200, force=True)
    assert result["judge_agreement"]["quality"]["exact_match"] == 0.5
    assert result["comparisons"][0]["same_predictions"]["by"].startswith("the prediction texts")
    items_c = [dict(item, hyp=item["hyp"] + "!") if index == 3 else item for index, item in enumerate(items_b)]
    c = write_sandglass_run(tmp_path / "c", items_c, judge=CHANGED_JUDGE)
    assert compare([a, c], resamples=200, force=True)["judge_agreement"] is None


# --- broken runs, the printed table ----------------------------------------------------------

BROKEN_RUNS = {
    "summary not JSON": ("summary.json", "{not json"),
    "summary a list": ("summary.json", "[1, 2]"),
    "summary without a signature": ("summary.json", json.dumps({"data": {"sha256": "d" * 64}})),
    "summary without data": ("summary.json", json.dumps({"signature": "data:x"})),
    "scores line not JSON": ("scores.jsonl", "{\"case_id\": \"c0000\"\n{oops\n"),
    "scores line a list": ("scores.jsonl", "[\"c0000\"]\n"),
    "scores row without case_id": ("scores.jsonl", json.dumps({"hard_pass": True}) + "\n"),
    "scores not UTF-8": ("scores.jsonl", b"\xff\xfe"),
}


@pytest.mark.parametrize("what", BROKEN_RUNS)
def test_a_broken_run_file_is_one_error_line_and_exit_2_never_a_traceback(tmp_path, what):
    a = write_run(tmp_path / "a", rows_with([True, False] * 5))
    b = write_run(tmp_path / "b", rows_with([True, True] * 5))
    name, content = BROKEN_RUNS[what]
    target = b / name
    target.write_bytes(content) if isinstance(content, bytes) else target.write_text(content, encoding="utf-8")
    with pytest.raises(CompareError, match=rf"^{re.escape(str(b / name))}: "):  # the file, then what is wrong
        compare([a, b], resamples=100)
    done = _compare_cli(str(a), str(b), "--resamples", "100")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ") and str(b) in done.stderr


def test_a_score_row_lacking_its_benchmarks_fields_is_an_error_not_a_traceback(tmp_path):
    a = write_run(tmp_path / "a", rows_with([True, False] * 5))
    b = write_run(tmp_path / "b", rows_with([True, True] * 5))
    rows = [json.loads(line) for line in (b / "scores.jsonl").read_text(encoding="utf-8").split("\n") if line]
    del rows[3]["hard_pass"]
    (b / "scores.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(CompareError, match=r"scores\.jsonl: line 4 \(case_id 'c0003'\): compare cannot read this "
                                           r"score row \(no field 'hard_pass'\)"):
        compare([a, b], resamples=100)


def _comparison(p_values: list[float], judge_agreement: dict | None = None, name: str = "m") -> dict:
    stats = {f"{name}{index}": {"a": 0.5, "b": 0.6, "delta": 0.1, "ci95": [0.01, 0.2], "p_value": p, "n": 10}
             for index, p in enumerate(p_values)}
    return {"a": "A", "b": "B", "pairing": {"paired": 10, "only_in_a": [], "only_in_b": []},
            "signature_check": {"compatible": True, "differences": []}, "metrics": stats, "by_constraint": {},
            "judge_agreement": judge_agreement}


@pytest.mark.parametrize("p_value,mark", [(0.0099, "**"), (0.01, "*"), (0.0499, "*"), (0.05, ""), (0.5, "")])
def test_the_significance_marker_follows_the_p_value(p_value, mark):
    from eval.compare import format_comparison

    line = format_comparison(_comparison([p_value]))[-1]
    assert line.rstrip().endswith(f"{p_value:.4f}" + (f" {mark}" if mark else ""))


def test_the_judge_agreement_rows_are_printed_per_kind():
    from eval.compare import format_comparison

    agreement_rows = {"quality": {"n": 12, "exact_match": 0.75, "kappa": 0.5, "confusion": {}},
                      "style_consistency": {"n": 4, "exact_match": 1.0, "kappa": None, "confusion": {}}}
    lines = format_comparison(_comparison([0.5], agreement_rows))
    start = lines.index("  Judge agreement (same predictions, different Judge):")
    assert lines[start + 1].split() == ["kind", "n", "exact", "kappa"]
    assert lines[start + 2].split() == ["quality", "12", "0.7500", "0.5000"]
    assert lines[start + 3].split() == ["style_consistency", "4", "1.0000", "n/a"]
    assert len(lines) == start + 4


def test_a_metric_where_smaller_is_better_says_so_beside_its_delta(tmp_path):
    from eval.compare import format_comparison

    lines = format_comparison(_comparison([0.5, 0.5], name="mean_abs_dev"), frozenset({"mean_abs_dev0"}))
    assert lines[-2].endswith("(lower is better)") and not lines[-1].endswith("(lower is better)")
    items = [sandglass_item(f"u{i}", "natural", 13, 13 + i % 3) for i in range(30)]
    report = format_report(compare([write_sandglass_run(tmp_path / "a", items),
                                    write_sandglass_run(tmp_path / "b", items)], resamples=100))
    marked = [line for line in report.split("\n") if line.endswith("(lower is better)")]
    assert marked and all("mean_abs_dev" in line for line in marked)


def test_the_documented_defaults_are_the_ones_used(tmp_path):
    """docs/compare.md: seed 12345 and 10,000 resamples unless --seed / --resamples say otherwise."""
    a = write_run(tmp_path / "a", rows_with([True, False] * 5))
    b = write_run(tmp_path / "b", rows_with([True, True] * 5))
    result = compare([a, b])
    assert (result["seed"], result["resamples"]) == (12345, 10000)
    assert result["metrics"] == compare([a, b], seed=12345, resamples=10000)["metrics"]


def test_unpaired_ids_are_named_five_at_most(tmp_path):
    rows = rows_with([True] * 20)
    a = write_run(tmp_path / "a", rows)
    for missing, shown in ((5, "c0015, c0016, c0017, c0018, c0019)"), (6, "c0014, c0015, c0016, c0017, c0018 …)")):
        b = write_run(tmp_path / f"b{missing}", rows[:-missing])
        with pytest.raises(CompareError) as refused:
            compare([a, b], resamples=100)
        assert f"{missing} case_ids only in a ({shown}" in str(refused.value)


def test_runs_without_a_common_case_id_are_refused_even_when_forced(tmp_path):
    a = write_run(tmp_path / "a", rows_with([True] * 4))
    b = write_run(tmp_path / "b", [score_row(f"other{index}", True) for index in range(4)])
    with pytest.raises(CompareError, match="have no case_id in common"):
        compare([a, b], resamples=100, force=True)


def test_agreement_of_no_labels_is_undefined_not_an_error():
    assert cohen_kappa([], []) is None
    assert agreement([], []) == {"n": 0, "exact_match": None, "kappa": None, "confusion": {}}


def test_the_interval_and_p_value_are_rounded_to_six_decimals():
    """Sevenths never end: a rounding to five or seven places would show."""
    units = {"m": UnitValues([0.0] * 7, [1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0], [1.0] * 7)}
    stats = paired_statistics(units, resamples=700, seed=1)["m"]
    assert stats == {"a": 0.0, "b": 0.571429, "delta": 0.571429, "ci95": [0.285714, 0.857143], "p_value": 0.142653,
                     "n": 7}


def test_one_run_is_not_a_comparison(tmp_path):
    with pytest.raises(CompareError, match="give at least two runs"):
        compare([write_run(tmp_path / "a", rows_with([True]))])


def test_the_table_prints_each_row_with_its_interval_and_the_footer_names_the_test(tmp_path):
    from eval.compare import format_comparison

    line = format_comparison(_comparison([0.5]))[-1]
    assert line.split() == ["m0", "10", "0.5000", "0.6000", "+0.1000", "[+0.0100,", "+0.2000]", "0.5000"]
    a = write_run(tmp_path / "a", rows_with([True, False] * 10))
    b = write_run(tmp_path / "b", rows_with([True, True] * 10))
    report = format_report(compare([a, b], resamples=200, seed=7)).split("\n")
    assert [line.split()[0] for line in report if line.startswith("    ")] == ["format_preserve", "style_consistency"]
    assert report[-1].startswith("* p < 0.05, ** p < 0.01 (paired approximate randomization, 200 resamples, seed 7)")


def test_main_returns_0_and_writes_the_json_result(tmp_path, capsys):
    from eval.compare import main

    a = write_run(tmp_path / "a", rows_with([True, False] * 5))
    b = write_run(tmp_path / "b", rows_with([True, True] * 5))
    out = tmp_path / "result.json"
    assert main([str(a), str(b), "--resamples", "100", "--json", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["resamples"] == 100
    assert capsys.readouterr().out.rstrip().endswith(f"wrote {out}")


def test_a_metric_is_paired_only_where_both_summaries_report_it_and_every_row_has_it(tmp_path):
    rows = rows_with([True, False] * 10)  # every row carries quality and if_score values
    unjudged = write_run(tmp_path / "unjudged", rows, judge=None)  # ... which the summary says were not measured
    assert set(compare([unjudged, write_run(tmp_path / "u2", rows, judge=None)], resamples=100)["metrics"]) == {
        "hard_pass_rate"}
    judged = write_run(tmp_path / "judged", rows)  # one summary reports quality, the other does not
    assert set(compare([judged, unjudged], resamples=100, force=True)["metrics"]) == {"hard_pass_rate"}
    gap = [dict(row, quality=None) if index == 4 else row for index, row in enumerate(rows)]
    a, b = write_run(tmp_path / "a", rows), write_run(tmp_path / "b", rows)
    (b / "scores.jsonl").write_text("".join(json.dumps(row) + "\n" for row in gap), encoding="utf-8")
    assert set(compare([a, b], resamples=100)["metrics"]) == {"if_score", "hard_pass_rate"}


def test_the_table_columns_line_up_under_their_header():
    from eval.compare import format_comparison

    header, row = format_comparison(_comparison([0.5]))[-2:]
    assert header == "  metric      n         A         B     B − A       95% CI of B − A        p"
    assert row == "  m0         10    0.5000    0.6000   +0.1000    [+0.0100, +0.2000]   0.5000   "


def test_a_line_metric_is_paired_only_where_both_summaries_report_it(tmp_path):
    targets = {"short": 10, "natural": 13, "long": 16}
    items = [sandglass_item(f"u{i}", kind, target, target) for i in range(10) for kind, target in targets.items()]
    a, b = write_sandglass_run(tmp_path / "a", items), write_sandglass_run(tmp_path / "b", items)
    assert "slope" in compare([a, b], resamples=100)["metrics"]
    summary = json.loads((b / "summary.json").read_text(encoding="utf-8"))
    summary["overall"]["slope"] = None
    (b / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    assert "slope" not in compare([a, b], resamples=100)["metrics"]


def test_the_cli_reads_each_run_once_with_html_and_json(tmp_path, monkeypatch, capsys):
    """The page shows the runs compare read: they are read once (a run's scores.jsonl can be large)."""
    import eval.compare

    predictions = ROOT / "data" / "example_predictions.jsonl"
    _evaluate(["--skip-judge", "--limit", "30", "--predictions", str(predictions), "--output-dir", str(tmp_path / "a")])
    _evaluate(["--skip-judge", "--limit", "30", "--predictions", str(_perturbed(predictions, tmp_path / "w.jsonl")),
               "--output-dir", str(tmp_path / "b")])
    real, reads = eval.compare.load_run, []
    monkeypatch.setattr(eval.compare, "load_run", lambda path, name=None: reads.append(Path(path)) or real(path, name))
    assert eval.compare.main([str(tmp_path / "a"), str(tmp_path / "b"), "--resamples", "200", "--html",
                              str(tmp_path / "c.html"), "--json", str(tmp_path / "c.json")]) == 0
    assert sorted(reads) == [tmp_path / "a", tmp_path / "b"]
    assert [run["name"] for run in json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))["runs"]] == ["a", "b"]
    assert (tmp_path / "c.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html>")
