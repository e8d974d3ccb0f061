"""eval.leaderboard (SPEC §12): rows, order, flags, CSV round-trip, the CLI on real runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from eval.errors import CompareError
from eval.leaderboard import leaderboard_csv, leaderboard_markdown, leaderboard_rows, read_leaderboard_csv
from test_compare import CHANGED_JUDGE, rows_with, write_run

ROOT = Path(__file__).resolve().parent.parent


def _three_runs(tmp_path):
    low = write_run(tmp_path / "low", rows_with([index % 4 == 0 for index in range(40)]))        # 0.25
    high = write_run(tmp_path / "high", rows_with([index % 4 != 0 for index in range(40)]))      # 0.75
    other = write_run(tmp_path / "other", rows_with([index % 2 == 0 for index in range(40)]), judge=CHANGED_JUDGE)
    return low, high, other


def test_rows_are_sorted_by_the_headline_and_differing_signatures_flagged(tmp_path):
    rows, columns, headline = leaderboard_rows(list(_three_runs(tmp_path)))
    assert headline == "if_score"
    assert [row["run"] for row in rows] == ["high", "other", "low"]
    assert [row["if_score"] for row in rows] == [0.75, 0.5, 0.25]
    flags = {row["run"]: row["differs_from_first"] for row in rows}
    assert flags == {"high": "", "low": "", "other": "judge"}
    assert columns[:6] == ["run", "n", "formal", "if_score", "if_score_low", "if_score_high"]
    assert {"format_preserve", "style_consistency", "signature"} <= set(columns)


def test_without_the_judge_the_table_is_sorted_by_hard_pass_rate(tmp_path):
    a = write_run(tmp_path / "a", rows_with([True, False, False, False], soft=None, quality=None), judge=None)
    b = write_run(tmp_path / "b", rows_with([True, True, True, False], soft=None, quality=None), judge=None)
    rows, _, headline = leaderboard_rows([a, b])
    assert headline == "hard_pass_rate" and [row["run"] for row in rows] == ["b", "a"]
    assert rows[0]["if_score"] is None


def test_the_csv_round_trips(tmp_path):
    rows, columns, _ = leaderboard_rows(list(_three_runs(tmp_path)))
    rows[0]["run"] = 'model, "quoted" | piped'
    text = leaderboard_csv(rows, columns)
    assert read_leaderboard_csv(text) == rows
    assert text.split("\n")[0].split(",") == columns


def test_the_markdown_marks_differing_runs_and_escapes_pipes(tmp_path):
    rows, columns, headline = leaderboard_rows(list(_three_runs(tmp_path)))
    table = leaderboard_markdown(rows, columns, headline)
    blocks = [[line for line in block.split("\n") if line.startswith("| ")] for block in table.split("\n\n")]
    for lines in filter(None, blocks):  # the headline table and the rates table
        header_cells = lines[0].count(" | ")
        assert all(line.replace("\\|", "").count(" | ") == header_cells for line in lines)
    assert "| other † |" in table and "(differs from the first run in: judge)" in table


def test_the_markdown_keeps_lines_short_and_gives_each_signature_once_as_a_footnote(tmp_path):
    rows, columns, headline = leaderboard_rows(list(_three_runs(tmp_path)))
    table = leaderboard_markdown(rows, columns, headline)
    tables = [line for line in table.split("\n") if line.startswith("|")]
    assert max(map(len, tables)) <= 120  # the 17-column table had 493-character lines
    for row in rows:
        assert table.count(row["signature"]) == 1
    notes = [line for line in table.split("\n") if line.startswith("[")]
    assert len(notes) == len({row["signature"] for row in rows}) == 2
    marks = {line.split(" | ")[1].rstrip(" †"): line.rsplit(" | ", 1)[1] for line in tables[2:5]}
    assert marks == {"high": "[1] |", "low": "[1] |", "other": "[2] |"}
    rates = [line for line in tables if line.startswith("| format_preserve |")]
    assert rates == ["| format_preserve | " + " | ".join(f"{row['format_preserve']:.4f}" for row in rows) + " |"]


def test_the_system_model_names_the_run(tmp_path):
    path = write_run(tmp_path / "dir", rows_with([True]))
    summary = json.loads((path / "summary.json").read_text())
    summary["system"] = {"model": "vendor/model-7b"}
    (path / "summary.json").write_text(json.dumps(summary))
    rows, _, _ = leaderboard_rows([path])
    assert rows[0]["run"] == "vendor/model-7b"


def test_runs_of_two_benchmarks_are_refused(tmp_path):
    a = write_run(tmp_path / "a", rows_with([True]))
    b = write_run(tmp_path / "b", rows_with([True]))
    summary = json.loads((b / "summary.json").read_text())
    summary["benchmark"] = "sandglass"
    (b / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(CompareError, match="different benchmarks"):
        leaderboard_rows([a, b])


@pytest.mark.parametrize("bench,predictions,headline", [
    ("insttrans", ROOT / "data" / "example_predictions.jsonl", "hard_pass_rate"),
    ("sandglass", ROOT / "data" / "sandglass" / "example_predictions.jsonl", "syllable_reward"),
])
def test_the_cli_on_real_runs(tmp_path, bench, predictions, headline):
    run = tmp_path / "run"
    subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--quiet", "--skip-judge", "--benchmark", bench,
                    "--predictions", str(predictions), "--output-dir", str(run)], check=True, cwd=ROOT)
    done = subprocess.run([sys.executable, "-m", "eval.leaderboard", str(run), "--csv", str(tmp_path / "t.csv"),
                           "--markdown", str(tmp_path / "t.md")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = read_leaderboard_csv((tmp_path / "t.csv").read_text(encoding="utf-8"))
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert rows[0][headline] == summary[headline]["value"]
    assert rows[0][f"{headline}_low"] == summary[headline]["ci95"][0]
    assert f"Sorted by {headline}" in (tmp_path / "t.md").read_text(encoding="utf-8")
