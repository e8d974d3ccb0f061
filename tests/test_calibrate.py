"""`python -m eval.calibrate` against scripted stand-in Judges (SPEC §17): always right, always
top, random with a seed, swayed by padding, fooled by a written-in verdict, unstable, invalid once.
Every expected figure is worked out here from the item files, not read back from the code."""

from __future__ import annotations

import contextlib
import functools
import json
import random
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from eval import calibrate
from eval.benchmarks import BENCHMARKS
from eval.calibrate import bundled_requests, confusion, kappa, probe_statistics
from eval.config import HARNESS
from judge_server import JudgeServer, candidate_of, is_repair, prompt_of, scripted_handler, text_reply

KEY = "sk-calibrate-SECRET-0a1b2c3d"
BENCH = "sandglass"  # the smallest set: 42 items and 42 probes
SCALE = (0.0, 0.5, 1.0)


@pytest.fixture(scope="module")
def asked() -> dict:
    """The items and probes by the prompt the Judge will see."""
    bench = BENCHMARKS[BENCH]
    items, probes, requests = bundled_requests(bench, bench.prompt_sets[HARNESS])
    by_prompt = {}
    for entry, request in zip(items + probes, requests):
        by_prompt.setdefault(request.prompt, entry)  # a probe equal to an item keeps the item's label
    return {"items": items, "probes": probes, "by_prompt": by_prompt,
            "labels": {entry["id"]: entry["label"] for entry in items}}


def right(asked: dict, prompt: str) -> float:
    """What a perfect Judge answers: the item's label; for a probe, its control's label when the
    change must not raise it, the bottom when it must lower it."""
    entry = asked["by_prompt"][prompt]
    if "label" in entry:
        return entry["label"]
    return asked["labels"][entry["control"]] if entry["expect"] == "no_rise" else 0.0


def run(tmp_path: Path, monkeypatch, handler, *extra: str, times: int = 1) -> dict | list[dict]:
    """Calibrate against a stand-in (`times` runs against the same server: the cache key holds its URL)."""
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    blocks = []
    with JudgeServer(handler) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        for _ in range(times):
            status = calibrate.main(["--judge-model", "stand-in", "--output-dir", str(tmp_path / "out"),
                                     "--benchmark", BENCH, "--quiet", *extra])
            assert status == 0
            text = (tmp_path / "out" / "calibration.json").read_text(encoding="utf-8")
            assert KEY not in text
            blocks.append(json.loads(text)["benchmarks"][BENCH])
    assert "# Judge calibration" in (tmp_path / "out" / "calibration.md").read_text(encoding="utf-8")
    page = (tmp_path / "out" / "calibration.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<h2>sandglass</h2>" in page and page.endswith("</html>\n")
    return blocks[0] if times == 1 else blocks


def pairs_of(asked: dict) -> Counter:
    return Counter(probe["probe"] for probe in asked["probes"])


# ---------------------------------------------------------------------------------------------
# The statistics, against values worked out by hand
# ---------------------------------------------------------------------------------------------

def test_kappa_against_hand_computed_values():
    # p_o = 3/4; marginals (1/2, 1/2) and (1/4, 3/4): p_e = 1/8 + 3/8 = 1/2; κ = (3/4 - 1/2) / (1/2)
    assert kappa([0, 0, 1, 1], [0, 1, 1, 1]) == 0.5
    # quadratic weights over 0, 1, 2 ((i - j)² / 4): observed disagreement 1/3 · 1/4 = 1/12; expected
    # 1/3 · 2/3 + 1/3 · 1/4 + 1/3 · 1/3 = 5/12; κ_w = 1 - (1/12) / (5/12) = 0.8 (unweighted: p_o 2/3,
    # p_e 1/3 · 1/3 + 1/3 · 2/3 = 1/3, κ = 1/2)
    assert kappa([0, 1, 2], [0, 2, 2], weighted=True) == 0.8
    assert kappa([0, 1, 2], [0, 2, 2]) == 0.5
    assert kappa([1, 1], [1, 1]) is None  # one label everywhere: undefined
    assert kappa([0, 1, 0, 1], [1, 1, 1, 1]) == 0.0
    assert kappa([0, 1, 0, 1], [1, 1, 1, 1], weighted=True) == 0.0
    assert kappa([0, 5, 3], [0, 5, 3], weighted=True) == 1.0


def test_confusion_and_probe_statistics_by_hand():
    assert confusion([0, 0.5, 1, 1], [0, 1, 1, 0]) == {"0": {"0": 1}, "0.5": {"1": 1}, "1": {"0": 1, "1": 1}}
    probes = [{"id": "p1", "control": "c1", "probe": "padding", "expect": "no_rise"},
              {"id": "p2", "control": "c2", "probe": "padding", "expect": "no_rise"},
              {"id": "p3", "control": "c3", "probe": "cut_half", "expect": "fall"},
              {"id": "p4", "control": "c4", "probe": "cut_half", "expect": "fall"}]
    verdicts = {"c1": 0.5, "p1": 1.0, "c2": 0.5, "p2": 0.5, "c3": 1.0, "p3": 1.0, "c4": 1.0, "p4": 0.5}
    assert probe_statistics(probes, verdicts) == {
        "cut_half": {"expect": "fall", "pairs": 2, "wrong_way": 1, "rate": 0.5},
        "padding": {"expect": "no_rise", "pairs": 2, "wrong_way": 1, "rate": 0.5}}


# ---------------------------------------------------------------------------------------------
# Scripted stand-in Judges
# ---------------------------------------------------------------------------------------------

def test_a_judge_that_is_always_right(tmp_path, monkeypatch, asked):
    block = run(tmp_path, monkeypatch, scripted_handler(lambda candidate, prompt: right(asked, prompt)))
    stats = block["kinds"]["sandglass_quality"]
    assert (stats["n"], stats["exact_agreement"], stats["kappa"], stats["weighted_kappa"]) == (42, 1.0, 1.0, 1.0)
    assert stats["exact_agreement_ci95"] == [1.0, 1.0] and stats["kappa_ci95"] == [1.0, 1.0]
    assert stats["confusion"] == {"0": {"0": 14}, "0.5": {"0.5": 14}, "1": {"1": 14}}
    probes = block["bias_probes"]["sandglass_quality"]
    assert {name: entry["pairs"] for name, entry in probes.items()} == dict(pairs_of(asked))
    assert all(entry["wrong_way"] == 0 for entry in probes.values())
    assert block["judge"]["model"] == "stand-in" and block["judge"]["prompt_versions"]["sandglass_quality"]
    assert block["replies"]["invalid_first_replies"] == 0
    assert (len(asked["items"]), len(asked["probes"])) == (42, 42)
    assert block["cost"]["calls"] <= 42 + 42 and block["cost"]["per_1000_items"]["calls"] <= 1000


def test_a_judge_that_always_gives_the_top_score(tmp_path, monkeypatch, asked):
    block = run(tmp_path, monkeypatch, scripted_handler(lambda candidate, prompt: 1.0))
    stats = block["kinds"]["sandglass_quality"]
    # 14 of 42 items are top: exact 1/3; the Judge's marginal is one point, so p_o = p_e: κ = κ_w = 0
    assert stats["exact_agreement"] == round(14 / 42, 6)
    assert stats["kappa"] == 0.0 and stats["weighted_kappa"] == 0.0
    assert stats["confusion"] == {"0": {"1": 14}, "0.5": {"1": 14}, "1": {"1": 14}}
    probes = block["bias_probes"]["sandglass_quality"]
    for name, entry in probes.items():  # never rises above a top control; never falls below one
        assert entry["rate"] == (1.0 if entry["expect"] == "fall" else 0.0), name


def test_a_random_judge_with_a_seed(tmp_path, monkeypatch, asked):
    def pick(prompt: str) -> float:
        return random.Random(f"7:{prompt}").choice(SCALE)

    block = run(tmp_path, monkeypatch, scripted_handler(lambda candidate, prompt: pick(prompt)))
    stats = block["kinds"]["sandglass_quality"]
    prompts = {entry["id"]: prompt for prompt, entry in asked["by_prompt"].items()}
    truth = [entry["label"] for entry in asked["items"]]
    judged = [pick(prompts[entry["id"]]) if entry["id"] in prompts else None for entry in asked["items"]]
    assert None not in judged
    agree = sum(a == b for a, b in zip(truth, judged))
    assert stats["exact_agreement"] == round(agree / 42, 6)
    # the same κ by the textbook formula, from the counts alone
    n, truth_counts, judged_counts = 42, Counter(truth), Counter(judged)
    expected = sum(truth_counts[v] * judged_counts[v] for v in SCALE) / n ** 2
    assert stats["kappa"] == pytest.approx((agree / n - expected) / (1 - expected), abs=1e-6)
    assert abs(stats["kappa"]) < 0.4  # a coin has no skill


def test_a_judge_swayed_by_padding(tmp_path, monkeypatch, asked):
    def decide(candidate: str, prompt: str) -> float:
        entry = asked["by_prompt"][prompt]
        return 1.0 if entry.get("probe") == "padding" else right(asked, prompt)

    block = run(tmp_path, monkeypatch, scripted_handler(decide))
    probes = block["bias_probes"]["sandglass_quality"]
    assert probes["padding"] == {"expect": "no_rise", "pairs": pairs_of(asked)["padding"],
                                 "wrong_way": pairs_of(asked)["padding"], "rate": 1.0}
    assert all(entry["wrong_way"] == 0 for name, entry in probes.items() if name != "padding")
    assert block["kinds"]["sandglass_quality"]["exact_agreement"] == 1.0  # the known answers do not show it


def test_a_judge_fooled_by_a_written_in_verdict(tmp_path, monkeypatch, asked):
    block = run(tmp_path, monkeypatch, scripted_handler(
        lambda candidate, prompt: 1.0 if "Score: 1" in candidate else right(asked, prompt)))
    probes = block["bias_probes"]["sandglass_quality"]
    assert probes["written_verdict"]["rate"] == 1.0
    assert probes["written_verdict"]["pairs"] == pairs_of(asked)["written_verdict"]
    assert all(entry["wrong_way"] == 0 for name, entry in probes.items() if name != "written_verdict")


def test_an_unstable_judge_and_repeats_that_bypass_the_cache(tmp_path, monkeypatch, asked):
    seen: Counter = Counter()

    def decide(candidate: str, prompt: str) -> float:
        seen[prompt] += 1
        value = right(asked, prompt)
        return 0.0 if seen[prompt] > 1 and value == 1.0 else value  # a top verdict flips on the second ask

    block, again = run(tmp_path, monkeypatch, scripted_handler(decide), "--repeats", "2", times=2)
    stats = block["kinds"]["sandglass_quality"]
    assert stats["repeats"] == 2
    assert stats["exact_agreement"] == 1.0  # the first repeat is the one compared with the labels
    assert stats["self_agreement"] == round(28 / 42, 6)  # the 14 top items changed their verdict
    assert (tmp_path / "out" / "judge_cache.sqlite.repeat1").is_file()
    calls = block["cost"]["calls"]
    assert calls == 2 * len(set(asked["by_prompt"]))  # every distinct prompt asked once per repeat
    assert again["cost"]["calls"] == 0 and again["replies"]["cache_hits"] == 2 * 84  # the rerun: all cached
    assert again["cost"]["calls"] == 0 and again["kinds"] == block["kinds"]


def test_an_invalid_first_reply_is_repaired_and_counted(tmp_path, monkeypatch, asked):
    target = next(prompt for prompt, entry in asked["by_prompt"].items() if entry.get("label") == 0.5)
    valid = scripted_handler(lambda candidate, prompt: right(asked, prompt))

    def handler(request):
        if request.prompt == target and not is_repair(request.body):
            return text_reply(request.path, "Quality: good", prompt=request.prompt)
        return valid(request)

    block = run(tmp_path, monkeypatch, handler)
    assert block["replies"]["invalid_first_replies"] == 1
    assert block["replies"]["repaired"] == {"sandglass_quality": 1}
    assert block["kinds"]["sandglass_quality"]["exact_agreement"] == 1.0


def test_refusals_name_the_flag(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    monkeypatch.setenv("JUDGE_API_BASE", "http://127.0.0.1:9/v1")
    out = str(tmp_path / "out")
    assert calibrate.main(["--judge-model", "m", "--output-dir", out, "--repeats", "0"]) == 2
    assert "--repeats" in capsys.readouterr().err
    assert calibrate.main(["--judge-model", "m", "--output-dir", out, "--skip-judge"]) == 2
    assert "--skip-judge" in capsys.readouterr().err
    monkeypatch.delenv("JUDGE_API_BASE")
    assert calibrate.main(["--judge-model", "m", "--output-dir", out]) == 2
    assert "JUDGE_API_BASE" in capsys.readouterr().err


def test_an_ifmtbench_null_reads_as_zero_and_is_counted(tmp_path, monkeypatch):
    """A rubric answer of null for the asked dimension: scored 0 as a run scores it, and counted."""
    from judge_server import Reply, text_reply

    def handler(request) -> Reply:
        prompt = request.prompt
        if '{"glossary": G}' in prompt:
            return text_reply(request.path, '{"glossary": 0}', prompt=prompt)
        return text_reply(request.path, '{"scores": {"style": null, "background": null}}', prompt=prompt)

    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    with JudgeServer(handler) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        assert calibrate.main(["--judge-model", "stand-in", "--output-dir", str(tmp_path), "--benchmark", "ifmtbench",
                               "--no-probes", "--quiet"]) == 0
    kinds = json.loads((tmp_path / "calibration.json").read_text(encoding="utf-8"))["benchmarks"]["ifmtbench"]["kinds"]
    for kind in ("style", "background"):
        zeros = sum(1 for entry in calibrate.read_items(calibrate.CALIBRATION_DIR / "ifmtbench.jsonl")
                    if entry["kind"] == kind and entry["label"] == 0)
        assert kinds[kind]["null_verdicts"] == kinds[kind]["n"]
        assert kinds[kind]["exact_agreement"] == round(zeros / kinds[kind]["n"], 6)
    assert kinds["glossary"]["null_verdicts"] == 0 and kinds["glossary"]["exact_agreement"] == 0.5


@pytest.mark.parametrize("bench, pairs", [
    # the wrong_language pairs per kind, counted by hand in data/calibration/<bench>.probes.jsonl
    ("insttrans", {"quality": 4, "style_consistency": 3, "term_cross_sentence": 3, "academic_format_preserve": 3,
                   "context_disambiguate": 6, "coref_resolution": 5}),
    ("ifmtbench", {"style": 4, "background": 6, "glossary": 4}),
])
def test_the_wrong_language_probe_is_reported_for_insttrans_and_ifmtbench(tmp_path, monkeypatch, bench, pairs):
    """A Judge that gives every candidate the top of its scale never lowers its verdict for a correct
    translation into another language: every wrong_language pair goes the wrong way (rate 1); a
    Judge that gives it the bottom and everything else the top goes the right way (rate 0).

    The second Judge answers every other prompt as the first did, so its run starts from the first
    run's cache less the wrong-language candidates' verdicts (one server: its URL is in every key):
    it asks exactly those again, and the cache answers the rest as the same Judge would. The
    intervals, which this test does not read, take 100 resamples (the other tests here take 1,000)."""
    monkeypatch.setattr(calibrate, "kappa_interval", functools.partial(calibrate.kappa_interval, samples=100))
    wrong = {entry["candidate"] for entry in calibrate.read_items(calibrate.CALIBRATION_DIR / f"{bench}.probes.jsonl")
             if entry["probe"] == "wrong_language"}

    def top(candidate: str, prompt: str) -> float:
        return 5.0 if '{"scores": {"style": S, "background": S}}' in prompt else 1.0

    def bottom_for_wrong(candidate: str, prompt: str) -> float:
        return 0.0 if candidate in wrong else top(candidate, prompt)

    judge = {"decide": top}
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    with JudgeServer(scripted_handler(lambda candidate, prompt: judge["decide"](candidate, prompt))) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        for decide, rate in ((top, 1.0), (bottom_for_wrong, 0.0)):
            out = tmp_path / str(rate)
            if decide is bottom_for_wrong:
                out.mkdir()
                shutil.copyfile(tmp_path / "1.0" / "judge_cache.sqlite", out / "judge_cache.sqlite")
                with contextlib.closing(sqlite3.connect(out / "judge_cache.sqlite")) as cache, cache:
                    stored = cache.execute("SELECT key, request FROM judge_replies").fetchall()
                    dropped = [key for key, request in stored
                               if candidate_of(prompt_of(json.loads(request))) in wrong]
                    cache.executemany("DELETE FROM judge_replies WHERE key = ?", [(key,) for key in dropped])
                assert 0 < len(dropped) < len(stored)
                asked_before = len(server.requests)
            judge["decide"] = decide
            assert calibrate.main(["--judge-model", "stand-in", "--output-dir", str(out), "--benchmark", bench,
                                   "--quiet"]) == 0
            if decide is bottom_for_wrong:  # only the dropped verdicts were asked again
                assert len(server.requests) - asked_before == len(dropped)
            block = json.loads((out / "calibration.json").read_text(encoding="utf-8"))["benchmarks"][bench]
            probes = {kind: entries["wrong_language"] for kind, entries in block["bias_probes"].items()}
            assert {kind: entry["pairs"] for kind, entry in probes.items()} == pairs
            assert all(entry["expect"] == "fall" and entry["rate"] == rate for entry in probes.values()), probes
            report = (out / "calibration.md").read_text(encoding="utf-8")
            assert all(f"| {kind} | wrong_language | fall | {n} |" in report for kind, n in pairs.items())
