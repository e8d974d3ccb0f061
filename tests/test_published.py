"""Beside the published tables (SPEC §16): the tables as data, the verdict per column and every
reason, self-judging, and the report section and command on real runs.

The pages themselves cannot be in the repository, so the figures are checked two ways: each file's
internal consistency (every row has every column, figures are the page's strings in the column's
unit, the row count is the one the table states), and the figures below, copied from the pages
by hand (docs/published.md says so)."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest

import evaluate
from eval.run import known_data
from eval import published
from eval.benchmarks import get_benchmark
from eval.exits import run_cli
from eval.errors import ConfigError
from eval.published import (check_page, column_verdict, load_pages, parse_figure, place, placements_markdown,
                            published_markdown, row_self_judging, run_value, shown_pages)
from judge_server import JudgeServer

ROOT = Path(__file__).resolve().parent.parent
PAGES = {page["id"]: page for page in load_pages()}
INSTTRANS, SANDGLASS, IFMTBENCH = (get_benchmark(name) for name in ("insttrans", "sandglass", "ifmtbench"))


def cell(page_id: str, table_id: str, system: str, key: str) -> str:
    table = next(table for table in PAGES[page_id]["tables"] if table["id"] == table_id)
    return next(row for row in table["rows"] if row["system"] == system)["cells"][key]


# ---------------------------------------------------------------------------------------------
# The tables as data
# ---------------------------------------------------------------------------------------------

def test_one_file_per_page_and_version_each_with_its_source():
    assert sorted(PAGES) == ["index-translate-evaluation-zh@e7726ec", "index-translate-evaluation@4be4bc9",
                             "index-translate-evaluation@e7726ec", "sandglass-card"]
    for page_id, page in PAGES.items():
        assert (ROOT / "data" / "published" / f"{page_id}.json").is_file()
        source = page["source"]
        assert source["address"].startswith("https://") and source["date"] and source["commit"]
        if "@" in page_id:
            assert source["commit"].startswith(page_id.split("@")[1]) and source["commit"] in source["address"]


@pytest.mark.parametrize(("page_id", "table_id", "system", "key", "figure"), [
    ("index-translate-evaluation@e7726ec", "text-translation", "Index-Translate-35B-A3B (preview)", "it_quality", "0.6901"),
    ("index-translate-evaluation@e7726ec", "text-translation", "Index-Translate-35B-A3B (preview)", "it_if_score", "0.8336"),
    ("index-translate-evaluation@e7726ec", "text-translation", "Index-Translate-35B-A3B (preview)", "ifmt_if_score", "0.8991"),
    ("index-translate-evaluation@e7726ec", "text-translation", "GPT-5.6-Sol", "it_quality", "0.6902"),
    ("index-translate-evaluation@e7726ec", "text-translation", "Qwen3.5-9B (base)", "it_if_score", "0.0609"),
    ("index-translate-evaluation@e7726ec", "text-translation", "Gemini 3.5 Flash Lite", "ifmt_xcomet_xxl", "0.7764"),
    ("index-translate-evaluation@e7726ec", "text-translation", "Gemini 3.5 Flash Lite", "ifmt_if_score", "0.8854"),
    ("index-translate-evaluation@e7726ec", "instTrans_minor", "Index-Translate-9B", "minor_if_score", "0.7725"),
    ("index-translate-evaluation@e7726ec", "instTrans_minor", "Hy-MT2-7B", "minor_off_target", "45.40%"),
    ("index-translate-evaluation@e7726ec", "sandglass", "Index-Homura-9B (RL)", "within_1", "74.42%"),
    ("index-translate-evaluation@e7726ec", "sandglass", "Hunyuan-MT-7B", "mean_abs_dev", "1.0579"),
    ("index-translate-evaluation@e7726ec", "sandglass", "Index-Homura-9B (SFT)", "slope", "0.680"),
    ("index-translate-evaluation@4be4bc9", "35b-preview", "Index-Translate-35B-A3B (preview)", "it_quality", "0.6815"),
    ("index-translate-evaluation@4be4bc9", "35b-preview", "Index-Translate-35B-A3B (preview)", "it_if_score", "0.8304"),
    ("index-translate-evaluation@4be4bc9", "35b-preview", "Index-Translate-35B-A3B (preview)", "ifmt_if_score", "0.8941"),
    ("index-translate-evaluation@4be4bc9", "text-translation", "Gemini 3.5 Flash Lite", "ifmt_xcomet_xxl", "—"),
    ("index-translate-evaluation@4be4bc9", "text-translation", "Gemini 3.5 Flash Lite", "ifmt_if_score", "0.7764"),
    ("sandglass-card", "leaderboard", "index-homura", "within_5pct", "50.0%"),
    ("sandglass-card", "leaderboard", "gpt-5.6-sol", "quality", "0.872"),
    ("sandglass-card", "leaderboard", "Qwen3.5-2B", "slope", "0.036"),
])
def test_figures_as_the_pages_give_them(page_id, table_id, system, key, figure):
    assert cell(page_id, table_id, system, key) == figure


def test_every_table_is_consistent_and_every_figure_a_string_of_its_unit():
    counts = {(page_id, table["id"]): table["n_systems"] for page_id, page in PAGES.items() for table in page["tables"]}
    assert counts == {
        ("index-translate-evaluation@e7726ec", "text-translation"): 14,
        ("index-translate-evaluation@e7726ec", "instTrans_minor"): 14,
        ("index-translate-evaluation@e7726ec", "sandglass"): 9,
        ("index-translate-evaluation-zh@e7726ec", "text-translation"): 14,
        ("index-translate-evaluation-zh@e7726ec", "instTrans_minor"): 14,
        ("index-translate-evaluation-zh@e7726ec", "sandglass"): 9,
        ("index-translate-evaluation@4be4bc9", "text-translation"): 13,
        ("index-translate-evaluation@4be4bc9", "35b-preview"): 1,
        ("index-translate-evaluation@4be4bc9", "sandglass"): 9,
        ("sandglass-card", "leaderboard"): 10}
    for page in PAGES.values():
        for table in page["tables"]:
            for row in table["rows"]:
                assert all(isinstance(text, str) for text in row["cells"].values())


def test_the_translated_page_has_the_same_figures_and_is_marked_a_copy():
    english, chinese = PAGES["index-translate-evaluation@e7726ec"], PAGES["index-translate-evaluation-zh@e7726ec"]
    assert english["tables"] == chinese["tables"]
    assert chinese["copy_of"] == english["id"]
    assert PAGES["index-translate-evaluation@4be4bc9"]["superseded_by"] == english["id"]
    assert [page["id"] for page in shown_pages(list(PAGES.values()))] == ["index-translate-evaluation@e7726ec",
                                                                           "sandglass-card"]


def test_figures_keep_their_precision_as_decimals():
    assert parse_figure("0.6901") == Decimal("0.6901") and str(parse_figure("0.6901")) == "0.6901"
    assert parse_figure("0.680") == Decimal("0.680") and str(parse_figure("0.680")) == "0.680"
    assert parse_figure("74.42%") == Decimal("74.42") and parse_figure(".7891") == Decimal(".7891")
    assert parse_figure("—") is None
    for bad in ("0,69", "1e3", "abc", "0.69 ", "NaN"):
        if bad.strip() != bad:
            continue
        with pytest.raises(ValueError):
            parse_figure(bad)
    with pytest.raises(ValueError):
        parse_figure(0.6901)  # a float has lost the page's spelling


def broken(edit) -> dict:
    page = copy.deepcopy(PAGES["sandglass-card"])
    edit(page)
    return page


@pytest.mark.parametrize(("edit", "message"), [
    (lambda p: p["tables"][0]["rows"].pop(), "9 rows, the table states 10"),
    (lambda p: p["tables"][0]["rows"][0]["cells"].pop("slope"), "are not the columns"),
    (lambda p: p["tables"][0]["rows"][0]["cells"].__setitem__("within_1", "74.4"), "not in the column's unit"),
    (lambda p: p["tables"][0]["rows"][0]["cells"].__setitem__("quality", 0.786), "must be the page's string"),
    (lambda p: p["tables"][0]["rows"][0]["cells"].__setitem__("quality", "0.786%"), "not in the column's unit"),
    (lambda p: p["tables"][0]["columns"][0]["protocol"].pop("judge_model"), "write \"unstated\""),
    (lambda p: p["source"].pop("commit"), "source has no 'commit'"),
])
def test_a_broken_table_is_one_error_naming_the_file(edit, message):
    with pytest.raises(ConfigError) as error:
        check_page(broken(edit), "data/published/x.json")
    assert "data/published/x.json" in str(error.value) and message in str(error.value)


# ---------------------------------------------------------------------------------------------
# Verdicts on synthetic summaries
# ---------------------------------------------------------------------------------------------

def stated_column(metric="if_score", benchmark="insttrans", **protocol) -> dict:
    """A column whose table states every setting (no public table does today)."""
    return {"key": metric, "header": metric, "benchmark": benchmark, "metric": metric, "unit": "fraction",
            "better": "higher", "meaning": "m",
            "protocol": {"data": "official release", "rows": {"count": 3000, "of": 3000}, "judge_model": "gpt-5.6-sol",
                         "judge_params": "unstated", "scorer_version": "2026-10-05", "syllable_counter": "release",
                         **protocol}}


def formal_summary(**changes) -> dict:
    """A run the stated column accepts: the release, every row, its Judge, the release protocol."""
    summary = {
        "benchmark": "insttrans", "formal": True, "non_formal_reasons": [],
        "data": {"sha256": "f" * 64, "known_as": "official release", "n_instances": 3000},
        "judge": {"model": "gpt-5.6-sol", "params": {"reasoning": {"effort": "none"}}},
        "protocol": {"name": "release", "syllable_counter": "release"},
        "system": {"model": "qwen3.5-9b"}, "subset": None, "scorer_version": "2026-10-05",
        "if_score": {"value": 0.7, "ci95": [0.68, 0.72], "n": 3000},
        "quality": {"value": 0.6, "ci95": [0.58, 0.62], "n": 3000},
    }
    for key, value in changes.items():
        if value is ...:
            summary.pop(key)
        else:
            summary[key] = value
    return summary


def test_a_run_under_the_stated_protocol_is_comparable():
    assert column_verdict(formal_summary(), stated_column(), INSTTRANS) == []


@pytest.mark.parametrize(("changes", "reason"), [
    ({"data": {"sha256": "ab" * 32, "known_as": "bundled", "n_instances": 308}}, "data: the bundled set (308 rows)"),
    ({"data": {"sha256": "ab" * 32, "known_as": None, "n_instances": 3000}}, "data: own data (sha256 abababababab)"),
    ({"subset": {"kind": "only", "count": 10, "sha256": "c" * 64, "source": "--only ids.txt", "protocol": None}},
     "rows: a subset (only), 10 ids from --only ids.txt"),
    ({"subset": {"kind": "limit", "count": 5, "sha256": "c" * 64, "source": "--limit 5", "protocol": None}},
     "rows: --limit, 5 ids from --limit 5"),
    ({"subset": ..., "non_formal_reasons": ["--limit 5: 5 of 3000 instances scored"]},
     "rows: a subset (--limit 5: 5 of 3000 instances scored)"),
    ({"judge": None}, "no Judge (--skip-judge): the column needs Judge verdicts"),
    ({"judge": {"model": "gemini-2.5-flash", "params": {}}}, "Judge: gemini-2.5-flash, the table's is gpt-5.6-sol"),
    ({"protocol": ...}, "protocol: this harness's Judge prompts and requests, not the release's"),
    ({"scorer_version": ...}, "scorer version not recorded"),
    ({"scorer_version": "public-v1"}, "scorer version: public-v1, the table's is 2026-10-05"),
    ({"oracle": {"n": 3000}}, "--oracle: the references were scored, not a system"),
])
def test_each_difference_is_its_own_reason(changes, reason):
    reasons = column_verdict(formal_summary(**changes), stated_column(), INSTTRANS)
    assert reasons[0].startswith(reason), reasons
    fewer_rows = ["rows: the table scores 3000 rows, this run 308"] if "data" in changes and \
        changes["data"]["n_instances"] != 3000 else []
    assert reasons[1:] == fewer_rows


def test_a_spelling_of_the_same_judge_is_the_same_judge():
    summary = formal_summary(judge={"model": "openai/GPT-5.6-Sol-2026-08-01", "params": {}})
    assert column_verdict(summary, stated_column(), INSTTRANS) == []


def test_stated_judge_parameters_must_match():
    column = stated_column(judge_params={"temperature": 0})
    summary = formal_summary(judge={"model": "gpt-5.6-sol", "params": {"temperature": 0.7}})
    assert column_verdict(summary, column, INSTTRANS) == [
        'Judge parameters: {"temperature": 0.7}, the table\'s are {"temperature": 0}']
    summary["judge"]["params"] = {"temperature": 0}
    assert column_verdict(summary, column, INSTTRANS) == []


def test_what_the_table_leaves_unstated_is_a_reason_for_every_run():
    column = stated_column(judge_model="unstated", scorer_version="unstated", rows={"count": "unstated"})
    assert column_verdict(formal_summary(), column, INSTTRANS) == [
        "rows: the table does not state which rows it scores",
        "Judge: the table does not state its Judge model (this run: gpt-5.6-sol)",
        "scorer version: the table does not state it"]


def test_a_column_the_harness_does_not_compute_and_another_data_set():
    column = stated_column(metric="off_target", data="instTrans_minor (not released)")
    reasons = column_verdict(formal_summary(), column, INSTTRANS)
    assert reasons[:2] == ["this harness does not measure the off-target rate",
                           "data: the table scores another set (instTrans_minor (not released))"]


def test_counter_columns_need_the_release_counter_and_no_judge():
    column = stated_column(metric="within_1", benchmark="sandglass", rows={"count": 3600, "of": 3600},
                           judge_model="gemini-2.5-flash")
    summary = formal_summary(benchmark="sandglass", judge=None,
                             data={"sha256": "f" * 64, "known_as": "official release", "n_instances": 3600},
                             overall={"pm1": 0.5})
    assert column_verdict(summary, column, SANDGLASS) == []  # the syllable columns need no Judge
    summary["protocol"] = {"name": "release", "syllable_counter": "harness"}
    assert column_verdict(summary, column, SANDGLASS) == [
        "counter: this harness's syllable counter, not the release's (--protocol release --trust-release-code)"]
    summary.pop("protocol")
    assert column_verdict(summary, column, SANDGLASS) == [
        "counter: this harness's syllable counter, not the release's (--protocol release --trust-release-code)"]
    column["protocol"]["syllable_counter"] = "unstated"
    assert column_verdict(summary, column, SANDGLASS)[-1] == "counter: the table does not state its syllable counter"


def test_the_ifmtbench_protocol_removes_rows_whose_list_is_not_public():
    column = stated_column(benchmark="ifmtbench", rows={"count": 7064, "of": 7344, "removed": 280})
    summary = formal_summary(benchmark="ifmtbench",
                             data={"sha256": "f" * 64, "known_as": "official release (by row counts)",
                                   "n_instances": 7344})
    assert column_verdict(summary, column, IFMTBENCH) == [
        "rows: the table scores 7064 of 7344 rows (280 removed; their list is not bundled), this run 7344"]
    column["protocol"]["rows"]["list"] = "test-280"
    summary["subset"] = {"kind": "exclude", "count": 280, "sha256": "d" * 64, "source": "--exclude x",
                         "protocol": "test-280"}
    summary["data"]["n_instances"] = 7064
    assert column_verdict(summary, column, IFMTBENCH) == []


def test_run_values_read_the_declared_paths():
    summary = {"quality": {"value": 0.5, "ci95": [0.4, 0.6]}, "overall": {"pm1": 0.25}, "mean_abs_dev": {"value": None}}
    assert run_value(summary, SANDGLASS.release.published_metrics["quality"]) == (0.5, [0.4, 0.6])
    assert run_value(summary, SANDGLASS.release.published_metrics["within_1"]) == (0.25, None)
    assert run_value(summary, SANDGLASS.release.published_metrics["mean_abs_dev"]) == (None, None)
    assert run_value(summary, IFMTBENCH.release.published_metrics["xcomet_xxl"]) == (None, None)
    assert run_value({"overall": {"pm1": True}}, SANDGLASS.release.published_metrics["within_1"]) == (None, None)


def test_every_published_metric_is_declared_by_its_benchmark():
    for page in PAGES.values():
        for table in page["tables"]:
            for column in table["columns"]:
                assert column["metric"] in get_benchmark(column["benchmark"]).release.published_metrics


# ---------------------------------------------------------------------------------------------
# Placing and self-judging
# ---------------------------------------------------------------------------------------------

def test_a_run_is_placed_in_rank_order_with_its_interval():
    table = next(t for t in PAGES["index-translate-evaluation@e7726ec"]["tables"] if t["id"] == "text-translation")
    summary = formal_summary(if_score={"value": 0.8, "ci95": [0.79, 0.81], "n": 3000})
    placed = place([("run A", summary, INSTTRANS)], table)
    assert [c["key"] for c in placed["columns"]] == ["it_quality", "it_if_score"]  # its benchmark's columns only
    assert placed["lead"] == "it_quality"
    run = next(entry for entry in placed["entries"] if entry["run"])
    assert run["ranks"] == {"it_quality": 6, "it_if_score": 3}  # 0.6 after five; 0.8 after 0.8336 and 0.8209
    assert run["cells"]["it_if_score"][1] == "0.8000 [0.7900, 0.8100]"
    names = [entry["system"] for entry in placed["entries"]]
    assert names[:6] == ["GPT-5.6-Sol", "Index-Translate-35B-A3B (preview)", "Index-Translate-9B",
                         "DeepSeek-V4.1-Flash", "Gemini 3.5 Flash Lite", "run A"]


def test_lower_is_better_and_closer_to_one_rank_their_way():
    table = next(t for t in PAGES["sandglass-card"]["tables"])
    summary = {"benchmark": "sandglass", "mean_abs_dev": {"value": 0.07, "ci95": [0.06, 0.08]},
               "overall": {"slope": 1.02, "pm1": 0.5, "dev_le_5": 0.3}}
    run = next(entry for entry in place([("r", summary, SANDGLASS)], table)["entries"] if entry["run"])
    assert run["ranks"]["mean_abs_dev"] == 2  # after 0.069
    assert run["ranks"]["slope"] == 1        # |1.02 - 1| beats |0.968 - 1|
    assert run["cells"]["within_1"][1] == "50.00%"


def test_self_judging_is_flagged_for_published_rows_and_runs():
    minor = next(t for t in PAGES["index-translate-evaluation@e7726ec"]["tables"] if t["id"] == "instTrans_minor")
    assert row_self_judging("GPT-5.6-Sol", minor["columns"], "gpt-5.6-sol").startswith("self-judging: the system")
    main = next(t for t in PAGES["index-translate-evaluation@e7726ec"]["tables"] if t["id"] == "text-translation")
    found = row_self_judging("GPT-5.6-Sol", main["columns"][:2], "gpt-5.6-sol")
    assert found.startswith("possible self-judging") and "does not name its Judge" in found
    assert row_self_judging("Hy-MT2-7B", minor["columns"], "gpt-5.6-sol") is None
    summary = formal_summary(system={"model": "openai/gpt-5.6-sol-mini"})
    lines = placements_markdown([("run", summary, INSTTRANS)], [PAGES["index-translate-evaluation@e7726ec"]])
    text = "\n".join(lines)
    assert "**run** (run) ⚠ self-judging" in text
    assert "- run: self-judging: the system 'openai/gpt-5.6-sol-mini' and the Judge model 'gpt-5.6-sol' are of " \
           "one family (gpt-5.6)" in text
    assert "- GPT-5.6-Sol: self-judging: the system 'GPT-5.6-Sol' is the Judge model 'GPT-5.6-Sol'" in text
    section = published_markdown(summary, INSTTRANS)
    assert "**Self-judging:** self-judging: the system 'openai/gpt-5.6-sol-mini'" in section
    assert "**Self-judging:**" not in published_markdown(formal_summary(), INSTTRANS)


def test_a_comparable_column_is_said_so_in_the_report_section(tmp_path):
    page = {"id": "test-page", "source": {"address": "https://example.org/t", "commit": "abc1234", "date": "2026-01-01"},
            "tables": [{"id": "t", "title": "test table", "n_systems": 1, "columns": [stated_column()],
                        "rows": [{"system": "S", "cells": {"if_score": "0.9000"}}]}]}
    (tmp_path / "test-page.json").write_text(json.dumps(page), encoding="utf-8")
    text = published_markdown(formal_summary(), INSTTRANS, load_pages(tmp_path))
    assert "- if_score: **comparable**" in text and "some columns are comparable" in text
    assert "| 2 | **this run** (run) | **0.7000 [0.6800, 0.7200]** (#2) |" in text


# ---------------------------------------------------------------------------------------------
# Real runs: the bundled sets, and the bundled InstTrans set faked as the release
# ---------------------------------------------------------------------------------------------

BUNDLED_RUNS = {
    "insttrans": ["--predictions", "data/example_predictions.jsonl"],
    "sandglass": ["--benchmark", "sandglass", "--predictions", "data/sandglass/example_predictions.jsonl"],
    "ifmtbench": ["--benchmark", "ifmtbench", "--predictions", "data/ifmtbench/example_predictions.jsonl"],
}


@pytest.mark.parametrize("bench", sorted(BUNDLED_RUNS))
def test_a_bundled_run_shows_the_tables_with_every_column_not_comparable(tmp_path, bench, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    out = tmp_path / bench
    assert run_cli(evaluate.main, [*BUNDLED_RUNS[bench], "--output-dir", str(out), "--skip-judge", "--quiet"]) == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    section = report.split("## Beside the published tables", 1)[1].split("\n## ", 1)[0]
    verdicts = [line for line in section.splitlines() if line.startswith("- ") and "comparable" in line]
    assert verdicts and all("**not comparable**: " in line and "data: the bundled set" in line for line in verdicts)
    assert "no column is comparable" in section
    assert "Beside the published tables" in (out / "report.html").read_text(encoding="utf-8")
    assert run_cli(published.main, [str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("**not comparable**") == len(verdicts) and "**comparable**" not in printed


def test_a_judged_run_on_a_faked_release_keeps_only_the_protocol_reasons(tmp_path, monkeypatch, capsys):
    """The bundled InstTrans set recorded as the official release (a fixture manifest), judged by
    the stand-in Judge under the default model: the data and rows reasons are gone; the harness
    protocol and the unrecorded scorer version remain."""
    monkeypatch.chdir(ROOT)
    from eval.io.data import file_sha256
    from eval.insttrans.rows import DEFAULT_DATA

    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"releases": {"insttrans": {"sha256": file_sha256(DEFAULT_DATA),
                                                              "n_instances": 318}}}), encoding="utf-8")
    monkeypatch.setattr(known_data, "MANIFEST_PATH", manifest)
    page = {"id": "test-page", "source": {"address": "https://example.org/t", "commit": "abc1234", "date": "2026-01-01"},
            "tables": [{"id": "t", "title": "test table", "n_systems": 1,
                        "columns": [stated_column(rows={"count": 318, "of": 318}, scorer_version="unstated")],
                        "rows": [{"system": "S", "cells": {"if_score": "0.9000"}}]}]}
    (tmp_path / "published").mkdir()
    (tmp_path / "published" / "test-page.json").write_text(json.dumps(page), encoding="utf-8")
    monkeypatch.setattr(published, "PUBLISHED_DIR", tmp_path / "published")
    monkeypatch.setenv("JUDGE_API_KEY", "sk-published-test")
    out = tmp_path / "run"
    predictions = tmp_path / "predictions.jsonl"  # made by the Judge's own model, says its provenance
    predictions.write_bytes((ROOT / "data" / "example_predictions.jsonl").read_bytes())
    (tmp_path / "predictions.meta.json").write_text(json.dumps({"model": "openai/gpt-5.6-sol-2026-08-01"}),
                                                    encoding="utf-8")
    with JudgeServer() as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        assert run_cli(evaluate.main, ["--predictions", str(predictions), "--output-dir", str(out),
                                       "--quiet", "--judge-backoff", "0.001"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    report = (out / "report.md").read_text(encoding="utf-8")
    assert ("**Self-judging:** self-judging: the system 'openai/gpt-5.6-sol-2026-08-01' is the Judge model "
            "'gpt-5.6-sol'.") in report
    assert "Self-judging" in (out / "report.html").read_text(encoding="utf-8")
    assert summary["data"]["known_as"] == "official release" and summary["subset"] is None
    assert column_verdict(summary, page["tables"][0]["columns"][0], INSTTRANS) == [
        "protocol: this harness's Judge prompts and requests, not the release's (--protocol release)",
        *([] if "scorer_version" in summary else ["scorer version not recorded"]),
        "scorer version: the table does not state it"]
    assert run_cli(published.main, [str(out)]) == 0
    assert "if_score: **not comparable**: protocol: this harness's" in capsys.readouterr().out


def test_the_command_refuses_a_folder_without_a_summary(tmp_path, capsys):
    assert run_cli(published.main, [str(tmp_path)]) == 2
    assert f"{tmp_path / 'summary.json'}: cannot be read" in capsys.readouterr().err


def test_the_output_docs_show_is_the_commands_output(tmp_path, monkeypatch, capsys):
    """docs/published.md's excerpt of `python -m eval.published` on the bundled Sandglass run,
    line by line, and the page figures its prose quotes, as the files hold them."""
    page = (ROOT / "docs" / "published.md").read_text(encoding="utf-8")
    excerpt = page.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    monkeypatch.chdir(tmp_path)
    assert run_cli(evaluate.main, ["--benchmark", "sandglass", "--predictions",
                                   str(ROOT / "data" / "sandglass" / "example_predictions.jsonl"),
                                   "--output-dir", "outputs/sandglass", "--skip-judge", "--quiet"]) == 0
    assert run_cli(published.main, ["outputs/sandglass"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert excerpt and all(line in printed for line in excerpt)
    old, new = "index-translate-evaluation@4be4bc9", "index-translate-evaluation@e7726ec"
    quoted = {
        "0.6815 / 0.8304 / 0.8941": [cell(old, "35b-preview", "Index-Translate-35B-A3B (preview)", key)
                                     for key in ("it_quality", "it_if_score", "ifmt_if_score")],
        "0.6901 / 0.8336 / 0.8991": [cell(new, "text-translation", "Index-Translate-35B-A3B (preview)", key)
                                     for key in ("it_quality", "it_if_score", "ifmt_if_score")],
        "0.7764 and 0.8854": [cell(new, "text-translation", "Gemini 3.5 Flash Lite", key)
                              for key in ("ifmt_xcomet_xxl", "ifmt_if_score")],
    }
    prose = " ".join(page.split())
    for text, figures in quoted.items():
        assert text in prose and text.replace(" / ", " ").replace(" and ", " ").split() == figures
    rows = PAGES[new]["tables"][0]["columns"][2]["protocol"]["rows"]
    assert (rows["removed"], rows["of"], rows["count"], rows["validly_judged"]) == (280, 7344, 7064, 7063)
    assert "280 of 7,344 rows removed" in prose and "7,064 scored, 7,063 validly judged" in prose


def test_a_damaged_table_file_costs_the_run_only_its_section(tmp_path, monkeypatch):
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(published, "PUBLISHED_DIR", tmp_path)
    text = published_markdown(formal_summary(), INSTTRANS)
    assert "The published tables cannot be read:" in text and "bad.json" in text


@pytest.fixture
def sandglass_release_run(tmp_path, monkeypatch):
    """Runs of 12 bundled Sandglass rows recorded as the official release (a fixture manifest),
    under the release protocol of a synthetic release folder, judged by the stand-in Judge."""
    import release_folders as rf
    from eval.io.data import file_sha256
    from judge_server import text_reply

    lines = (ROOT / "data" / "sandglass" / "test.jsonl").read_text(encoding="utf-8").splitlines()[:12]
    data = tmp_path / "sandglass.jsonl"
    data.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"case_id": json.loads(line)["case_id"],
                                               "prediction": json.loads(line)["label"] or "x"}) + "\n"
                                   for line in lines), encoding="utf-8")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"releases": {"sandglass": {"sha256": file_sha256(data), "n_instances": 12}}}),
                        encoding="utf-8")
    monkeypatch.setattr(known_data, "MANIFEST_PATH", manifest)
    release = rf.make_sandglass_release(tmp_path / "Sandglass-Bench")
    monkeypatch.setenv("JUDGE_API_KEY", "sk-published-test")

    def run(name: str, *flags: str) -> dict:
        out = tmp_path / name
        with JudgeServer(lambda request: text_reply(request.path, "1", prompt=request.prompt)) as server:
            monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
            assert run_cli(evaluate.main, ["--benchmark", "sandglass", "--data", str(data), "--predictions",
                                           str(predictions), "--output-dir", str(out), "--quiet", "--protocol",
                                           "release", "--release-dir", str(release), *flags]) == 0
        return json.loads((out / "summary.json").read_text(encoding="utf-8"))

    return run


def test_judge_and_counter_settings_on_release_protocol_runs(sandglass_release_run):
    table = {"quality": stated_column("quality", "sandglass", rows={"count": 12, "of": 12},
                                      judge_model="gemini-2.5-flash", scorer_version="unstated"),
             "within_1": stated_column("within_1", "sandglass", rows={"count": 12, "of": 12},
                                       judge_model="gemini-2.5-flash", scorer_version="unstated")}

    def verdicts(summary: dict) -> dict:
        unrecorded = [] if "scorer_version" in summary else ["scorer version not recorded"]
        return {key: [reason for reason in column_verdict(summary, column, SANDGLASS)
                      if reason not in unrecorded + ["scorer version: the table does not state it"]]
                for key, column in table.items()}

    trusted = sandglass_release_run("trusted", "--trust-release-code", "--judge-model", "gemini-2.5-flash")
    assert trusted["data"]["known_as"] == "official release" and trusted["protocol"]["syllable_counter"] == "release"
    assert verdicts(trusted) == {"quality": [], "within_1": []}
    other_judge = sandglass_release_run("other", "--trust-release-code", "--judge-model", "gpt-4o")
    assert verdicts(other_judge) == {"quality": ["Judge: gpt-4o, the table's is gemini-2.5-flash"], "within_1": []}
    untrusted = sandglass_release_run("untrusted", "--judge-model", "gemini-2.5-flash")
    assert verdicts(untrusted) == {"quality": [], "within_1": [
        "counter: this harness's syllable counter, not the release's (--protocol release --trust-release-code)"]}
    limited = sandglass_release_run("limited", "--trust-release-code", "--judge-model", "gemini-2.5-flash",
                                    "--limit", "6")
    assert verdicts(limited)["quality"][0].startswith("rows: --limit, 6 ids from --limit 6")
