"""`python -m eval.leaderboard --latex`: a booktabs tabular a paper can include (eval/reports/latex.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from eval import leaderboard
from eval.reports.latex import latex_comment, latex_escape, tabular, value_with_interval

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("text, escaped", [
    ("model_a", r"model\_a"),
    ("50% & $5 #1 {x} ~y ^z", r"50\% \& \$5 \#1 \{x\} \textasciitilde{}y \textasciicircum{}z"),
    ("a\\input{/etc/passwd}", r"a\textbackslash{}input\{/etc/passwd\}"),
    ("two\nlines\r\u2028end\x00\x1b", "two lines end"),
    ("日本語 ok", "日本語 ok"),
])
def test_every_special_character_is_set_literally(text, escaped):
    assert latex_escape(text) == escaped


def test_an_escaped_cell_holds_no_live_macro_or_column_break():
    hostile = "\\end{tabular}\\def\\x{1}&\\\\%" * 50
    escaped = latex_escape(hostile)
    assert not re.search(r"(?<!\\)[&%$#_{}]", escaped.replace(r"\textbackslash{}", ""))
    assert "\\end" not in escaped and "\\def" not in escaped


def test_a_comment_cannot_be_ended_by_a_line_break():
    assert latex_comment("a\nb\u2028c") == "% a b c"


def test_values_carry_their_interval_and_unscored_is_a_dash():
    assert value_with_interval(0.78246, 0.73376, 0.82792) == r"0.7825 {\scriptsize[0.7338, 0.8279]}"
    assert value_with_interval(0.5, None, None) == "0.5000" and value_with_interval(None, None, None) == "--"


def test_the_tabular_is_booktabs_with_one_cell_per_column():
    text = tabular(["a_b", "c"], [["x", "1"], ["y", "2"]], "lr", ["note"])
    assert text.split("\n") == ["% note", r"\begin{tabular}{lr}", r"\toprule", r"a\_b & c \\", r"\midrule",
                                r"x & 1 \\", r"y & 2 \\", r"\bottomrule", r"\end{tabular}", ""]


def test_the_leaderboard_writes_its_table_as_latex(tmp_path, capsys):
    import evaluate

    predictions = ROOT / "data" / "example_predictions.jsonl"
    for name, limit in (("model_a & co", "40"), ("b", "40")):
        assert evaluate.main(["--predictions", str(predictions), "--output-dir", str(tmp_path / name),
                              "--skip-judge", "--quiet", "--limit", limit]) == 0
    out = tmp_path / "table.tex"
    assert leaderboard.main([str(tmp_path / "model_a & co"), str(tmp_path / "b"), "--latex", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    rows, columns, headline = leaderboard.leaderboard_rows([tmp_path / "model_a & co", tmp_path / "b"])
    first = leaderboard.first_run_name(rows, tmp_path / "model_a & co")
    assert first == "model_a & co"
    assert text == leaderboard.leaderboard_latex(rows, columns, headline, first)
    assert r"% dagger: the run's signature differs from that of model_a & co, the first RUN given" in text
    lines = text.split("\n")
    begin = lines.index(r"\begin{tabular}{lrlrrrr}")
    assert lines[begin + 1] == r"\toprule" and lines[-3:] == [r"\bottomrule", r"\end{tabular}", ""]
    assert lines[begin + 2] == r"run & n & formal & if\_score & quality & hard\_pass\_rate & sig. \\"
    body = lines[begin + 4:-3]
    assert sorted(line.split(" & ")[0] for line in body) == sorted([r"model\_a \& co", "b"])
    row = rows[0]
    assert all(line.count(" & ") == 6 and line.endswith(r" \\") for line in body)
    shown = value_with_interval(row["hard_pass_rate"], row["hard_pass_rate_low"], row["hard_pass_rate_high"])
    assert shown in body[0] and "--" in body[0]  # the interval beside the rate; if_score unscored
    assert all(line.startswith("% ") for line in lines[:begin])
    assert "wrote" in capsys.readouterr().out


def test_compare_writes_its_table_as_latex(tmp_path):
    import json

    import evaluate
    from eval import compare

    lines = (ROOT / "data" / "example_predictions.jsonl").read_text(encoding="utf-8").split("\n")[:60]
    worse = [json.dumps({**json.loads(line), "prediction": None}) if index % 3 == 0 else line
             for index, line in enumerate(lines)]
    for name, rows in (("a", lines), ("b_x", worse)):
        (tmp_path / f"{name}.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
        assert evaluate.main(["--predictions", str(tmp_path / f"{name}.jsonl"), "--output-dir", str(tmp_path / name),
                              "--skip-judge", "--quiet", "--limit", "60"]) == 0
    out = tmp_path / "compare.tex"
    assert compare.main([str(tmp_path / "a"), str(tmp_path / "b_x"), "--latex", str(out), "--resamples", "200"]) == 0
    text = out.read_text(encoding="utf-8")
    result = compare.compare([tmp_path / "a", tmp_path / "b_x"], resamples=200)
    assert text == compare.format_latex(result)
    table = text.split("\n")
    assert table[0].startswith("% python -m eval.compare --latex: A = a, B = b_x (60 paired instances)")
    assert r"metric & n & A & B & B - A [95\% CI] & p \\" in table
    stats = result["comparisons"][0]["metrics"]["hard_pass_rate"]
    row = next(line for line in table if line.startswith(r"hard\_pass\_rate & "))
    assert f"{stats['delta']:+.4f}" in row and f"[{stats['ci95'][0]:+.4f}, {stats['ci95'][1]:+.4f}]" in row
    assert stats["delta"] < 0 and row.count(" & ") == 5 and row.endswith(f"{stats['p_value']:.4f} \\\\")
    assert ("$^{*" in row) == (stats["p_value"] < 0.05)
    assert any(line.startswith(r"\quad ") for line in table)  # the constraints under the headline


def test_runs_of_the_same_name_are_told_apart_by_their_paths():
    names = leaderboard.distinct_names(["m", "m", "x", "m"], [Path("/a/run"), Path("/b/run"), Path("/c/run"),
                                                              Path("/b/other/run")])
    assert names == ["m (a/run)", "m (b/run)", "x", "m (other/run)"]
    assert leaderboard.distinct_names(["run", "run"], [Path("/x/y/run"), Path("/z/y/run")]) == \
        ["run (x/y/run)", "run (z/y/run)"]
    assert leaderboard.distinct_names(["a", "b"], [Path("/r"), Path("/r")]) == ["a", "b"]


def test_the_leaderboard_tells_same_named_directories_apart_and_its_mark_names_the_run_compared(tmp_path, capsys):
    import evaluate

    predictions = ROOT / "data" / "example_predictions.jsonl"
    for parent, extra in (("first", []), ("second", ["--rule-set", "strict"])):
        assert evaluate.main(["--predictions", str(predictions), "--output-dir", str(tmp_path / parent / "run"),
                              "--skip-judge", "--quiet", "--limit", "10", *extra]) == 0
    assert leaderboard.main([str(tmp_path / "second" / "run"), str(tmp_path / "first" / "run")]) == 0
    table = capsys.readouterr().out
    assert "| run (second/run) |" in table and "| run (first/run) † |" in table
    assert "† the run's signature differs from that of run (second/run), the first run given on the command line" \
        in table
