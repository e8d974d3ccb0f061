"""The benchmark record (eval/benchmark.py): a benchmark states only what it has, its headline
`Metric`s drive the summary blocks, the console rows, compare's units, the leaderboard's sort and
the --skip-judge wording, and the pipeline refuses an option the benchmark does not declare.

The record here is built from the fourteen required fields alone, with functions that are this
file's own, so every default is the one a new benchmark gets.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest

from eval.benchmark import (Benchmark, Derived, Mean, Metric, Option, PromptSet, metric_names,
                            scorer_version_option)
from eval.config import HARNESS
from eval.benchmarks import BENCHMARKS, option_flag
from eval.config import RunConfig
from eval.errors import ConfigError
from eval.judge_client import VerdictError, VerdictForm, repair_message
from eval.scoring.pairing import headline_units
from eval.run.pipeline import check_choices, scorer_version_block
from eval.reports.report import headline_rows
from eval.scoring.stats import headline_blocks

METRICS = (
    Metric("score", Mean("score"), judge=True),
    Metric("score_long", Mean("score", where=("long", True)), judge=True),
    Metric("gap", Derived("score_long − score"), higher_is_better=False, judge=True),
    Metric("pass_rate", Mean("passed")),
    Metric("errors", Mean("errors"), higher_is_better=False),
)


def minimal(**changes) -> Benchmark:
    """A record with the fourteen required fields and nothing else."""
    fields = dict(name="mini", title="Mini-Bench", default_data=Path("mini.jsonl"), looks_like=lambda row: False,
                  validate_rows=lambda rows: ([], []), model_input=lambda row: {}, default_judge_model="judge-1",
                  prompt_sets={HARNESS: PromptSet({"mini": "mini-1"}, lambda rows, predictions: [])},
                  score_rows=lambda rows, predictions, verdicts, config: [], headline_metrics=METRICS,
                  metrics=lambda scores, judged: {}, report_markdown=lambda summary: "",
                  console_table=lambda summary: "", report_html=lambda summary, scores: ([], []))
    return Benchmark(**{**fields, **changes})


ROWS = [{"score": 1.0, "long": True, "passed": 1, "errors": 0}, {"score": 0.5, "long": False, "passed": 0, "errors": 2},
        {"score": 0.0, "long": True, "passed": 1, "errors": 1}]


def test_the_defaults_are_what_a_benchmark_without_them_needs():
    bench = minimal()
    config = RunConfig("mini", None, Path("out"))
    assert (bench.check_config(config), bench.settings(config), bench.signature_parts(config)) == ([], {}, ())
    assert bench.counters == {} and bench.options == () and bench.companion_metrics is None
    assert bench.signature_tag == "mini" and minimal(untagged_signature=True).signature_tag is None
    assert bench.manifest_section == "mini" and bench.release.manifest_entry() == {}
    assert bench.reports.failure_lists([], None, 20) == {} and bench.judge.judge_labels({"score": 1}) == {}
    assert bench.compare.leaderboard_columns([{}]) == [] and bench.data.diagnostics_source({}) == ""
    assert bench.lower_is_better() == {"gap", "errors"}


def test_the_skip_judge_wording_and_the_sort_follow_the_metrics():
    bench = minimal()
    assert bench.unscored_without_judge == "score, score_long and gap were"
    assert minimal(headline_metrics=METRICS[:1] + METRICS[3:]).unscored_without_judge == "score were"
    assert minimal(headline_metrics=METRICS[:2]).unscored_without_judge == "score and score_long were"
    assert bench.sort_metrics == ("score", "pass_rate")
    assert minimal(headline_metrics=METRICS[3:]).sort_metrics == ("pass_rate", "pass_rate")
    declared = dataclasses.replace(bench.judge, unscored_without_judge="the Judge's numbers were")
    assert minimal(judge=declared).unscored_without_judge == "the Judge's numbers were"


def test_every_registered_benchmark_sorts_and_words_as_it_did():
    """The derived sort columns are the ones the records stated before they were derived."""
    assert {name: bench.sort_metrics for name, bench in BENCHMARKS.items()} == {
        "insttrans": ("if_score", "hard_pass_rate"), "sandglass": ("score", "syllable_reward"),
        "ifmtbench": ("if_score", "hard_pass_rate")}
    assert {name: metric_names(bench.headline_metrics) for name, bench in BENCHMARKS.items()} == {
        "insttrans": ("if_score", "quality", "hard_pass_rate"),
        "sandglass": ("score", "syllable_reward", "quality", "mean_abs_dev"),
        "ifmtbench": ("if_score", "if_score_single", "if_score_multi", "composition_drop", "hard_pass_rate")}


def test_headline_blocks_follow_the_declarations_in_order():
    blocks = headline_blocks(ROWS, METRICS, judged=True, derived={"gap": {"value": 0.0}})
    assert list(blocks) == ["score", "score_long", "gap", "pass_rate", "errors"]
    assert (blocks["score"]["value"], blocks["score_long"]["value"], blocks["score_long"]["n"]) == (0.5, 0.5, 2)
    assert (blocks["pass_rate"]["value"], blocks["errors"]["value"], blocks["gap"]) == (
        pytest.approx(2 / 3, abs=1e-6), 1.0, {"value": 0.0})
    offline = headline_blocks(ROWS, METRICS, judged=False, derived={"gap": {"value": None}})
    assert offline["score"]["value"] is None and offline["score_long"]["value"] is None
    assert offline["pass_rate"]["value"] == blocks["pass_rate"]["value"]  # measured without the Judge


def test_headline_rows_are_the_console_and_report_rows():
    summary = {"score": {"value": 0.5, "ci95": [0.25, 0.75]}, "pass_rate": {"value": None, "ci95": None}}
    assert headline_rows(summary, (METRICS[0], METRICS[3])) == [("score", "0.5000 [0.2500, 0.7500]"),
                                                                 ("pass_rate", "n/a")]


def run(rows: list[dict], summary: dict) -> SimpleNamespace:
    return SimpleNamespace(scores={str(index): row for index, row in enumerate(rows)}, summary=summary)


def test_compare_units_come_from_the_means_whole_sets_first():
    summary = {name: {"value": 0.5} for name in ("score", "score_long", "gap", "pass_rate", "errors")}
    better = [{**row, "score": 1.0} for row in ROWS]
    units = headline_units(run(ROWS, summary), run(better, summary), ["0", "1", "2"], METRICS)
    assert list(units) == [("metrics", "score"), ("metrics", "pass_rate"), ("metrics", "errors"),
                           ("metrics", "score_long")]  # no unit for the derived gap
    assert units[("metrics", "score")].a == [1.0, 0.5, 0.0] and units[("metrics", "score")].b == [1.0, 1.0, 1.0]
    assert units[("metrics", "score_long")].weight == [1.0, 0.0, 1.0]
    unjudged = {**summary, "score": {"value": None}, "score_long": {"value": None}}
    assert list(headline_units(run(ROWS, unjudged), run(better, summary), ["0", "1", "2"], METRICS)) == [
        ("metrics", "pass_rate"), ("metrics", "errors")]
    # a subset no paired instance belongs to has no unit
    assert ("metrics", "score_long") not in headline_units(run(ROWS, summary), run(better, summary), ["1"], METRICS)


def test_the_record_without_compare_units_compares_its_headline_means():
    summary = {name: {"value": 0.5} for name in ("score", "score_long", "pass_rate", "errors")}
    groups = minimal().compare_groups(run(ROWS, summary), run(ROWS, summary), ["0", "1", "2"])
    assert len(groups) == 1 and ("metrics", "score_long") in groups[0]


def test_the_pipeline_refuses_an_option_the_benchmark_does_not_declare():
    bench = minimal(options=(Option("style", "--style", ("plain", "fancy"), "how it looks"),))
    config = RunConfig("mini", None, Path("out"))
    check_choices(bench, dataclasses.replace(config, options={"style": "fancy"}))
    assert bench.option(config, "style") == "plain"
    with pytest.raises(ConfigError, match=r"unknown style 'odd' for Mini-Bench: use one of plain, fancy"):
        check_choices(bench, dataclasses.replace(config, options={"style": "odd"}))
    with pytest.raises(ConfigError) as refused:
        check_choices(bench, dataclasses.replace(config, options={"rule_set": "original"}))
    assert refused.value.message == "--rule-set does not apply to Mini-Bench"
    assert refused.value.hint == "drop --rule-set (Mini-Bench's own options: --style)"
    assert option_flag("scorer_version") == "--scorer-version" and option_flag("made_up") == "--made-up"


@pytest.mark.parametrize("name", ["sandglass", "ifmtbench"])
def test_the_registered_benchmarks_refuse_the_rule_set_they_do_not_have(name):
    config = RunConfig(name, None, Path("out"), options={"rule_set": "original"})
    with pytest.raises(ConfigError, match=f"--rule-set does not apply to {BENCHMARKS[name].title}"):
        check_choices(BENCHMARKS[name], config)


def test_a_benchmark_without_counters_takes_the_default_counter_name_only():
    bench = minimal()
    check_choices(bench, RunConfig("mini", None, Path("out")))
    with pytest.raises(ConfigError, match="Mini-Bench has no syllable counter 'release'"):
        check_choices(bench, RunConfig("mini", None, Path("out"), counter="release"))


def test_the_scorer_version_is_recorded_only_where_declared():
    config = RunConfig("mini", None, Path("out"))
    assert scorer_version_block(minimal(), config) == {}
    versioned = minimal(options=(scorer_version_option(("v2", "v1")),))
    assert scorer_version_block(versioned, config) == {"scorer_version": "v2"}


def test_the_repair_turn_restates_the_scale_the_form_declares():
    def bare(text: str) -> dict:
        return {}

    scaled = VerdictForm(bare, '{"grade": G}', "G is A, B or C")
    error = VerdictError("not one JSON object")
    assert repair_message(error, scaled).endswith('of the form {"grade": G}, where G is A, B or C, and nothing else.')
    assert repair_message(error, bare).endswith("of the form the JSON object the instructions above ask for, "
                                                "and nothing else.")
    assert "0.5" not in repair_message(error, bare) and "0.5" not in repair_message(error, VerdictForm(bare, "{}"))
