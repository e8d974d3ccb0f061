"""The one rule contract (eval/scoring/rule_contract.py): every benchmark's constraint ids have exactly one
spec with a rule for every rule set × scorer version its table declares; every rule returns a
Verdict whose one-line reason is the one a report rebuilds from the stored detail; the scoring
context carries the counter. (IFMTBench's glossary rule running once per row: tests/ifmtbench.)"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import eval.ifmtbench.rules as ifmt_rules
from eval.ifmtbench.labels import LABELS
from eval.ifmtbench.rows import validate_ifmt_rows
from eval.insttrans.rules import CONSTRAINTS, RULE_TABLE as INSTTRANS
from eval.insttrans.scoring import score_instance
from eval.scoring.rule_contract import HARD, SOFT, ConstraintSpec, RuleTable, ScoringContext, Verdict, explained
from tests.toybench.rules import RULE_TABLE as TOY

ROOT = Path(__file__).resolve().parent.parent
IFMTBENCH = ifmt_rules.RULE_TABLE
TABLES = {"insttrans": INSTTRANS, "ifmtbench": IFMTBENCH, "toybench": TOY}
# the ids each benchmark's data can carry, stated where the benchmark states them (SPEC §4, §14)
DATA_IDS = {
    "insttrans": ["format_preserve", "syllable_order", "term_compliance", "social_preserve", "layout_break",
                  "style_consistency", "term_cross_sentence", "academic_format_preserve", "context_disambiguate",
                  "coref_resolution"],
    "ifmtbench": [cid for cid, _ in LABELS.values()],
    "toybench": ["word_budget", "terms"],
}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", TABLES)
def test_every_constraint_id_has_exactly_one_spec(name):
    table, ids = TABLES[name], DATA_IDS[name]
    assert len(ids) == len(set(ids)), "an id named twice"
    assert list(table.specs) == ids
    assert all(isinstance(spec, ConstraintSpec) and spec.id == cid for cid, spec in table.specs.items())


@pytest.mark.parametrize("name", TABLES)
def test_every_hard_spec_has_a_rule_for_every_rule_set_and_scorer_version(name):
    table = TABLES[name]
    assert table.rule_sets and table.scorer_versions
    for cid, spec in table.specs.items():
        assert spec.kind in (HARD, SOFT), cid
        if spec.kind == SOFT:
            assert not spec.rules, cid
            continue
        assert set(spec.rules) == set(table.rule_sets), cid
        for rule_set in table.rule_sets:
            assert set(spec.rules[rule_set]) == set(table.scorer_versions), (cid, rule_set)
            assert all(callable(rule) for rule in spec.rules[rule_set].values())
        if name != "toybench":  # Toy-Bench writes each verdict's reason into scores.jsonl itself
            assert set(spec.explain) == set(table.rule_sets), cid


def test_insttrans_versions_differ_where_the_scorer_moved_and_strict_is_one_for_all():
    for cid in ("format_preserve", "syllable_order", "term_compliance", "layout_break"):
        rules = CONSTRAINTS[cid].rules["original"]
        assert rules["2026-10-05"] is not rules["public-v1"], cid
    for cid, spec in CONSTRAINTS.items():
        if spec.kind == HARD:
            assert len(set(map(id, spec.rules["strict"].values()))) == 1, cid


def _cases():
    """(table name, rule set, version, cid, row, prediction): the bundled rows with their
    references and example predictions, under every rule set and version of each table."""
    rows = read_jsonl(ROOT / "data" / "test.jsonl")
    predictions = {line["case_id"]: line["prediction"] for line in read_jsonl(ROOT / "data" / "example_predictions.jsonl")}
    for row in rows:
        texts = [row["reference"], predictions.get(row["case_id"]) or "", "x"]
        for cid in row["constraint_ids"]:
            if INSTTRANS.specs[cid].kind == HARD:
                for rule_set in INSTTRANS.rule_sets:
                    for version in INSTTRANS.scorer_versions:
                        for text in texts:
                            yield "insttrans", rule_set, version, cid, row, text
    located = []
    for part in ("test_single_constraint.jsonl", "test_multi_constraint.jsonl"):
        path = ROOT / "data" / "ifmtbench" / "data" / part
        located += [(f"{part}:{n}", json.loads(line)) for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)]
    ifmt_rows, _ = validate_ifmt_rows(located)
    for row in ifmt_rows:
        for cid in row["constraint_ids"]:
            if IFMTBENCH.specs[cid].kind == HARD:
                for text in (row["output"], "x", "{"):
                    yield "ifmtbench", "original", IFMTBENCH.scorer_versions[0], cid, row, text


def test_every_rule_returns_a_verdict_whose_one_line_reason_a_report_rebuilds():
    failed = 0
    for name, rule_set, version, cid, row, text in _cases():
        table = TABLES[name]
        verdict = table.check(cid, row, text, ScoringContext(rule_set=rule_set, scorer_version=version))
        assert isinstance(verdict, Verdict) and isinstance(verdict.passed, bool)
        assert "\n" not in verdict.reason and "\r" not in verdict.reason
        if verdict.passed:
            assert verdict.reason == ""
            continue
        failed += 1
        assert verdict.reason, (cid, text)
        # the reason written by the rule is the one the stored detail gives a report
        assert verdict.reason == table.explain(cid, json.loads(json.dumps(verdict.detail)), rule_set), (cid, text)
    assert failed > 200  # the cases reach failing verdicts of every table


def test_toy_rules_return_verdicts_with_their_reason():
    row = {"case_id": "t", "target_lang": "en", "max_words": 2, "must_include": ["Cat"]}
    assert TOY.check("word_budget", row, "a b c") == Verdict(False, "3 words, budget 2", {"words": 3})
    assert TOY.check("terms", row, "the cat") == Verdict(True, "all terms used", {"absent": []})


def test_a_verdict_reason_is_always_one_line():
    assert Verdict(False, "two\nlines\r\n and  more ").reason == "two lines and more"
    assert Verdict(True).reason == ""


def test_explained_makes_a_rule_of_a_reading_and_passes_its_options():
    def reading(row, prediction, context, limit=3):
        return len(prediction) <= limit, {"length": len(prediction)}

    rule = explained(lambda detail: f"{detail['length']} characters")(reading)
    assert rule({}, "abcd") == Verdict(False, "4 characters", {"length": 4})
    assert rule({}, "abcd", ScoringContext(), limit=4) == Verdict(True, "", {"length": 4})


def test_the_table_fills_the_context_defaults():
    context = INSTTRANS.context()
    assert (context.rule_set, context.scorer_version, context.counter) == ("original", "2026-10-05", None)
    small = RuleTable({"a": ConstraintSpec("a", HARD, {"original": {"v2": lambda *_: Verdict(True), "v1": None}})},
                      scorer_versions=("v2", "v1"))
    assert small.check("a", {}, "x").passed  # no version: the newest


def test_a_rule_set_is_its_hard_rules_at_the_newest_version():
    newest = INSTTRANS.scorer_versions[0]
    hard = [cid for cid, spec in CONSTRAINTS.items() if spec.kind == HARD]
    for rule_set in INSTTRANS.rule_sets:
        rules = INSTTRANS.rule_set(rule_set)
        assert list(rules) == hard, rule_set  # no Judge-decided id, in the table's order
        assert all(rules[cid] is CONSTRAINTS[cid].rules[rule_set][newest] for cid in hard), rule_set
    assert INSTTRANS.rule_set("original")["format_preserve"] is not CONSTRAINTS["format_preserve"].rules["original"]["public-v1"]


def test_kinds_name_each_id_hard_or_soft():
    kinds = INSTTRANS.kinds()
    assert list(kinds) == list(CONSTRAINTS)
    assert kinds["format_preserve"] == HARD and kinds["coref_resolution"] == SOFT
    assert set(kinds.values()) == {HARD, SOFT}


def test_the_context_count_uses_the_run_counter_else_the_benchmark_own():
    def own(text, lang):
        return 7

    assert ScoringContext().count("a b", "en", own) == 7
    assert ScoringContext(lambda text, lang: 2).count("a b", "en", own) == 2


@pytest.mark.parametrize("value", [ScoringContext(), Verdict(True), ConstraintSpec("a", SOFT), TOY])
def test_contexts_verdicts_specs_and_tables_cannot_be_changed_once_made(value):
    """One DEFAULT_CONTEXT and one table are shared by every row and thread: none may be changed."""
    field_name = next(iter(dataclasses.fields(value))).name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field_name, None)
    if isinstance(value, ScoringContext):  # the others hold dicts: not hashable anyway
        assert hash(value) == hash(ScoringContext())


# --- the scoring context carries the run's counter (no global) ----------------------------------

SUBTITLE = {"case_id": "s", "constraint_ids": ["syllable_order"], "constraints": ["字幕"],
            "source_text": '{"1": "甲", "2": "乙"}',
            "source_lang": "zh", "target_lang": "en", "scenario": "s", "domain": "d", "duration_s": [1.0, 3.0]}


def test_the_context_counter_decides_syllable_order_and_the_default_is_the_harness_counter():
    prediction = '{"1": "one two three four five six", "2": "hi"}'  # the longer-shown line has fewer syllables
    for version in INSTTRANS.scorer_versions:
        for rule_set in INSTTRANS.rule_sets:
            plain = ScoringContext(rule_set=rule_set, scorer_version=version)
            assert not INSTTRANS.check("syllable_order", SUBTITLE, prediction, plain).passed, (rule_set, version)
            reversed_counts = ScoringContext(lambda text, lang: 10 - len(text.split()), rule_set, version)
            verdict = INSTTRANS.check("syllable_order", SUBTITLE, prediction, reversed_counts)
            assert verdict.passed and verdict.detail["counts"] == [4, 9], (rule_set, version)
    scored = score_instance(SUBTITLE, prediction, None, ScoringContext(lambda text, lang: 1))
    assert scored["constraints"][0]["detail"]["counts"] == [1, 1]


def test_the_toy_word_budget_counts_with_the_context_counter():
    row = {"case_id": "t", "target_lang": "en", "max_words": 2, "must_include": []}
    assert not TOY.check("word_budget", row, "a b c").passed
    assert TOY.check("word_budget", row, "a b c", ScoringContext(lambda text, lang: 1)).passed


def test_no_contextvar_carries_the_counter_any_more():
    for path in (ROOT / "eval").rglob("*.py"):
        assert "ContextVar" not in path.read_text(encoding="utf-8"), path
    assert not (ROOT / "eval" / "counting.py").exists()
