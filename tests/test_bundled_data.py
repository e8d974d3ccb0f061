"""The bundled data guards itself and the rules: every row meets the conventions, every reference
passes its own hard rules, the example predictions cover every row, and the manifest is fresh."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from eval.insttrans.rules import CONSTRAINT_KINDS
from eval.scoring.rule_contract import HARD
from eval.insttrans.rules import RULE_TABLE
from eval.insttrans.scorer_versions import SCORER_VERSIONS
from eval.scoring.rule_contract import ScoringContext
from eval.inputs.languages import LANGUAGES
from eval.io.data import load_rows_from_file
from eval.insttrans.rows import DEFAULT_DATA, SCENARIO_DOMAINS, bundled_row_problems, validate_rows
from eval.manifest import (DATA_CARD_PATH, MANIFEST_PATH, STATS_END, STATS_START, build_manifest,
                           card_with_statistics, manifest_text)

ROWS = load_rows_from_file(DEFAULT_DATA, validate_rows)
EXAMPLES = Path(DEFAULT_DATA).with_name("example_predictions.jsonl")


@pytest.mark.parametrize("row", ROWS, ids=[row["case_id"] for row in ROWS])
def test_row_meets_the_bundled_conventions(row):
    assert bundled_row_problems(row) == []


@pytest.mark.parametrize("row", ROWS, ids=[row["case_id"] for row in ROWS])
def test_reference_passes_its_own_hard_rules(row):
    failures = {}
    for cid in row["constraint_ids"]:
        if CONSTRAINT_KINDS[cid] == HARD:
            for version in SCORER_VERSIONS:  # under every official scorer version (SPEC §7c)
                verdict = RULE_TABLE.check(cid, row, row["reference"], ScoringContext(scorer_version=version))
                if not verdict.passed:
                    failures[f"{cid} ({version})"] = verdict.detail
    assert failures == {}


def test_the_set_covers_the_benchmark_design():
    ids = Counter(cid for row in ROWS for cid in row["constraint_ids"])
    assert len(ROWS) >= 300
    assert set(ids) == set(CONSTRAINT_KINDS)
    assert {row["domain"] for row in ROWS} == {d for domains in SCENARIO_DOMAINS.values() for d in domains}
    assert {row["target_lang"] for row in ROWS} == set(LANGUAGES)
    assert len({(row["source_lang"], row["target_lang"]) for row in ROWS}) >= 40
    assert set(Counter(len(row["constraint_ids"]) for row in ROWS)) == {1, 2, 3, 4, 5}


def test_subtitle_rows_give_the_syllable_rule_a_real_test():
    subtitles = [row for row in ROWS if "syllable_order" in row["constraint_ids"]]
    assert subtitles
    for row in subtitles:
        assert len(row["duration_s"]) == len(json.loads(row["source_text"])) == row["batch_size"]
        assert len(set(row["duration_s"])) > 1, row["case_id"]


def test_example_predictions_cover_every_row_once():
    lines = [json.loads(line) for line in EXAMPLES.read_text(encoding="utf-8").split("\n") if line]
    ids = [line["case_id"] for line in lines]
    assert len(ids) == len(set(ids))
    assert set(ids) == {row["case_id"] for row in ROWS}


def test_manifest_is_up_to_date():
    assert MANIFEST_PATH.read_text(encoding="utf-8") == manifest_text(build_manifest()), \
        "manifest.json is stale: run `python -m eval.manifest`"


def test_data_card_statistics_are_up_to_date():
    card = DATA_CARD_PATH.read_text(encoding="utf-8")
    assert STATS_START in card and STATS_END in card, "docs/data.md lost its statistics markers"
    assert card == card_with_statistics(card, build_manifest()), \
        "the statistics in docs/data.md are stale: run `python -m eval.manifest`"
