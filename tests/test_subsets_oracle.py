"""Row subsets (--only, --exclude, and --case-ids / --limit recorded the same way), a published
protocol's bundled list, `--oracle`, and the self-judging rule (SPEC §16)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import evaluate
from eval.inputs import subsets
from eval.exits import run_cli
from eval.judge.self_judging import model_family, normalise_model, self_judging

ROOT = Path(__file__).resolve().parent.parent
IT_PREDICTIONS = ["--predictions", "data/example_predictions.jsonl"]
IF_ARGS = ["--benchmark", "ifmtbench", "--predictions", "data/ifmtbench/example_predictions.jsonl"]


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def run(tmp_path: Path, *flags: str, name: str = "out") -> tuple[int, Path]:
    out = tmp_path / name
    return run_cli(evaluate.main, [*flags, "--output-dir", str(out), "--skip-judge", "--quiet"]), out


def summary_of(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


def scored_ids(out: Path) -> list[str]:
    return [json.loads(line)["case_id"] for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]


def bundled_ids(tmp_path: Path) -> list[str]:
    status, out = run(tmp_path, *IT_PREDICTIONS, name="full")
    assert status == 0
    return scored_ids(out)


# ---------------------------------------------------------------------------------------------
# Subsets
# ---------------------------------------------------------------------------------------------

def test_only_scores_the_listed_rows_and_records_their_identity_everywhere(tmp_path):
    ids = bundled_ids(tmp_path)
    chosen = [ids[40], ids[3], ids[7]]
    listing = tmp_path / "ids.txt"
    listing.write_text(f"{chosen[0]}\n\n# a comment\n  {chosen[1]}  \n{chosen[2]}\n", encoding="utf-8")
    status, out = run(tmp_path, *IT_PREDICTIONS, "--only", str(listing))
    assert status == 0
    assert scored_ids(out) == [ids[3], ids[7], ids[40]]  # data order
    summary = summary_of(out)
    expected = hashlib.sha256("".join(f"{i}\n" for i in sorted(chosen)).encode()).hexdigest()
    assert summary["subset"] == {"kind": "only", "count": 3, "sha256": expected, "source": f"--only {listing}",
                                 "protocol": None}
    assert f"|subset:only:3:{expected[:12]}|" in summary["signature"]
    assert summary["formal"] is False
    assert f"subset (only, --only {listing}): 3 of 318 instances scored, list sha256 {expected[:12]}" \
        in summary["non_formal_reasons"]
    for report in ("report.md", "report.html"):
        assert expected[:16] in (out / report).read_text(encoding="utf-8")


def test_exclude_scores_the_rest_and_the_same_list_in_any_order_is_the_same_subset(tmp_path):
    ids = bundled_ids(tmp_path)
    one, two = tmp_path / "a.txt", tmp_path / "b.txt"
    one.write_text(f"{ids[0]}\n{ids[5]}\n", encoding="utf-8")
    two.write_text(f"{ids[5]}\r\n{ids[0]}\r\n", encoding="utf-8")
    _, out_a = run(tmp_path, *IT_PREDICTIONS, "--exclude", str(one), name="a")
    _, out_b = run(tmp_path, *IT_PREDICTIONS, "--exclude", str(two), name="b")
    assert scored_ids(out_a) == [i for i in ids if i not in (ids[0], ids[5])]
    a, b = summary_of(out_a)["subset"], summary_of(out_b)["subset"]
    assert (a["kind"], a["count"], a["sha256"]) == (b["kind"], b["count"], b["sha256"]) == (
        "exclude", 2, subsets.ids_sha256([ids[0], ids[5]]))


def test_limit_and_case_ids_are_recorded_as_subsets_with_their_old_reasons(tmp_path):
    ids = bundled_ids(tmp_path)
    status, out = run(tmp_path, *IT_PREDICTIONS, "--limit", "5")
    summary = summary_of(out)
    assert summary["subset"]["kind"] == "limit" and summary["subset"]["count"] == 5
    assert summary["subset"]["sha256"] == subsets.ids_sha256(ids[:5])
    assert summary["non_formal_reasons"][0] == "--limit 5: 5 of 318 instances scored"
    listing = tmp_path / "c.txt"
    listing.write_text(ids[9] + "\n", encoding="utf-8")
    _, out = run(tmp_path, *IT_PREDICTIONS, "--case-ids", str(listing), name="c")
    assert summary_of(out)["subset"]["kind"] == "only" and summary_of(out)["subset"]["source"].startswith("--case-ids")
    _, out = run(tmp_path, *IT_PREDICTIONS, "--limit", "318", name="all")
    assert summary_of(out)["subset"] is None and "subset:" not in summary_of(out)["signature"]


def test_an_unknown_id_is_one_line_naming_the_file_and_line(tmp_path, capsys):
    ids = bundled_ids(tmp_path)
    listing = tmp_path / "ids.txt"
    listing.write_text(f"{ids[0]}\nnot-an-id\n", encoding="utf-8")
    status, out = run(tmp_path, *IT_PREDICTIONS, "--exclude", str(listing))
    assert status == 2 and not out.exists()
    assert f"{listing}:2: 'not-an-id' is not a case_id of the data" in capsys.readouterr().err
    listing.write_text(f"{ids[0]}\n{ids[0]}\n", encoding="utf-8")
    assert run(tmp_path, *IT_PREDICTIONS, "--only", str(listing))[0] == 2
    assert f"{listing}:2: case_id {ids[0]!r} is listed twice (first at line 1)" in capsys.readouterr().err


def test_two_ways_of_choosing_rows_are_refused(tmp_path, capsys):
    listing = tmp_path / "ids.txt"
    listing.write_text("x\n", encoding="utf-8")
    assert run(tmp_path, *IT_PREDICTIONS, "--only", str(listing), "--limit", "3")[0] == 2
    assert "--only and --limit choose the scored rows in several ways" in capsys.readouterr().err


def test_the_ifmtbench_md5_and_instruction_language_form(tmp_path):
    listing = tmp_path / "ids.txt"
    listing.write_text("072b8b7fca619c2c2c02575adaf69e88\tfr\n072b8b7fca619c2c2c02575adaf69e88, de\n"
                       "0d55a9980002bc4ff7244bf3ddeaef68\n", encoding="utf-8")
    status, out = run(tmp_path, *IF_ARGS, "--only", str(listing))
    assert status == 0
    assert scored_ids(out) == ["072b8b7fca619c2c2c02575adaf69e88:fr", "072b8b7fca619c2c2c02575adaf69e88:de",
                               "0d55a9980002bc4ff7244bf3ddeaef68"]


def test_a_bundled_published_list_makes_the_subset_that_protocol(tmp_path, monkeypatch):
    """No published list is public today; the mechanism is checked with a test-only one."""
    ids = bundled_ids(tmp_path)
    removed = ids[10:14]
    lists = tmp_path / "subsets"
    lists.mkdir()
    (lists / "test-protocol.json").write_text(json.dumps({
        "name": "test-protocol", "benchmark": "insttrans", "kind": "exclude", "count": 4,
        "sha256": subsets.ids_sha256(removed), "states": "a test table: 4 rows removed"}), encoding="utf-8")
    monkeypatch.setattr(subsets, "PROTOCOL_LISTS_DIR", lists)
    listing = tmp_path / "removed.txt"
    listing.write_text("\n".join(reversed(removed)) + "\n", encoding="utf-8")
    _, out = run(tmp_path, *IT_PREDICTIONS, "--exclude", str(listing))
    summary = summary_of(out)
    assert summary["subset"]["protocol"] == "test-protocol"
    assert not any(reason.startswith("subset") for reason in summary["non_formal_reasons"])
    assert summary["signature"].count(":test-protocol|") == 1
    listing.write_text("\n".join(removed[:3]) + "\n", encoding="utf-8")  # one row fewer: not the list
    _, out = run(tmp_path, *IT_PREDICTIONS, "--exclude", str(listing), name="other")
    assert summary_of(out)["subset"]["protocol"] is None
    (lists / "broken.json").write_text("{}", encoding="utf-8")
    with pytest.raises(Exception, match="broken.json: a protocol list needs"):
        subsets.protocol_lists(lists)


# ---------------------------------------------------------------------------------------------
# --oracle
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("flags", "reference"), [([], "reference"), (["--benchmark", "ifmtbench"], "output")])
def test_the_oracle_scores_references_and_lists_every_failing_hard_rule(tmp_path, flags, reference):
    status, out = run(tmp_path, *flags, "--oracle")
    assert status == 0
    scores = [json.loads(line) for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    expected = [(score["case_id"], entry["id"]) for score in scores for entry in score.get("constraints", [])
                if entry["kind"] == "hard" and entry.get("passed") is False]
    listed = [json.loads(line) for line in (out / "oracle_failures.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(item["case_id"], item["constraint_id"]) for item in listed] == expected
    assert all(item["reason"] and "\n" not in item["reason"] for item in listed)
    summary = summary_of(out)
    assert summary["oracle"]["failures"] == len(expected)
    assert summary["oracle"]["by_constraint"] == {
        key: sum(1 for _, cid in expected if cid == key) for key in sorted({cid for _, cid in expected})}
    assert "--oracle: each row's reference was scored as its prediction" in summary["non_formal_reasons"]
    assert summary["predictions"]["path"] == "oracle" and summary["predictions"]["missing"] == summary["oracle"][
        "no_reference"]
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Oracle: the references scored as predictions" in report
    assert "Oracle: the references scored as predictions" in (out / "report.html").read_text(encoding="utf-8")


def test_the_oracle_predictions_are_the_references(tmp_path):
    from eval.benchmarks import get_benchmark
    from eval.oracle import oracle_predictions

    bench = get_benchmark("insttrans")
    rows = [{"case_id": "a", "reference": "Ref A"}, {"case_id": "b", "reference": "  "}]
    with oracle_predictions(bench, rows) as path:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines == [{"case_id": "a", "prediction": "Ref A"}, {"case_id": "b", "prediction": None}]
    assert not path.exists()


def test_a_failing_reference_is_found_by_the_oracle(tmp_path):
    """A reference edited to break its hard rule shows up in oracle_failures.jsonl, and a run
    without that row (--exclude) has none."""
    data = [json.loads(line) for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    clean_run = run(tmp_path, "--oracle", name="clean")[1]
    failing = {json.loads(line)["case_id"] for line in
               (clean_run / "oracle_failures.jsonl").read_text(encoding="utf-8").splitlines()}
    target = next(row for row in data if row["constraint_ids"] == ["format_preserve"] and row["case_id"] not in failing
                  and "**" in row["source_text"])
    target["reference"] = target["reference"].replace("**", "")
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in data), encoding="utf-8")
    _, out = run(tmp_path, "--data", str(edited), "--oracle", name="edited")
    listed = [json.loads(line) for line in (out / "oracle_failures.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [item["constraint_id"] for item in listed if item["case_id"] == target["case_id"]] == ["format_preserve"]
    exclude = tmp_path / "fails.txt"
    exclude.write_text("".join(f"{item['case_id']}\n" for item in listed), encoding="utf-8")
    _, out = run(tmp_path, "--data", str(edited), "--oracle", "--exclude", str(exclude), name="without")
    assert (out / "oracle_failures.jsonl").read_text(encoding="utf-8") == ""


def test_oracle_and_predictions_are_one_or_the_other(tmp_path, capsys):
    assert run(tmp_path, *IT_PREDICTIONS, "--oracle")[0] == 2
    assert "--oracle scores the references: it takes no --predictions" in capsys.readouterr().err
    assert run(tmp_path)[0] == 2
    assert "--predictions" in capsys.readouterr().err


def test_a_normal_run_removes_an_earlier_oracle_list(tmp_path):
    _, out = run(tmp_path, "--oracle")
    assert (out / "oracle_failures.jsonl").is_file()
    run(tmp_path, *IT_PREDICTIONS)
    assert not (out / "oracle_failures.jsonl").exists() and "oracle" not in summary_of(out)


# ---------------------------------------------------------------------------------------------
# Self-judging
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("system", "judge", "verdict"), [
    ("gpt-5.6-sol", "gpt-5.6-sol", "is the Judge model"),
    ("GPT-5.6-Sol (low)", "gpt-5.6-sol", "is the Judge model"),
    ("openai/gpt-5.6-sol-2026-08-01", "gpt-5.6-sol", "is the Judge model"),
    ("gpt-5.6-sol-20260801", "GPT 5.6 Sol", "is the Judge model"),
    ("gpt-5.6-sol-mini", "gpt-5.6-sol", "of one family (gpt-5.6)"),
    ("models/gemini-2.5-pro-latest", "gemini-2.5-flash", "of one family (gemini-2.5)"),
    ("qwen3.5-9b", "Qwen3.5-35B-A3B", "of one family (qwen3.5)"),
    ("deepseek-v4-flash", "deepseek-v4.1-flash", None),
    ("gpt-5.5", "gpt-5.6-sol", None),
    ("hy-mt2-7b", "gpt-5.6-sol", None),
    (None, "gpt-5.6-sol", None),
    ("gpt-5.6-sol", None, None),
])
def test_self_judging_by_model_and_family(system, judge, verdict):
    found = self_judging(system, judge)
    if verdict is None:
        assert found is None
    else:
        assert found is not None and found.startswith("self-judging: ") and verdict in found


def test_names_are_normalised_in_linear_time_and_bounded():
    assert normalise_model("DeepSeek-V4-Flash (no thinking)") == "deepseek-v4-flash"
    assert model_family("deepseek-v4") == "deepseek-v4"  # "-v4" names the line, it is no version suffix
    assert normalise_model("(" * 100_000 + "x") != ""  # a hostile name is cut, not searched at length


def test_an_ifmtbench_reference_without_its_terms_is_listed_by_md5_and_language(tmp_path):
    folder = ROOT / "data" / "ifmtbench" / "data"
    single = [json.loads(line) for line in (folder / "test_single_constraint.jsonl").read_text(
        encoding="utf-8").splitlines()]
    target = next(row for row in single if row["md5"] == "072b8b7fca619c2c2c02575adaf69e88"
                  and row.get("instruction_lang") == "fr")
    target["output"] = "x"
    edited = tmp_path / "test_single_constraint.jsonl"
    edited.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in single), encoding="utf-8")
    status, out = run(tmp_path, "--benchmark", "ifmtbench", "--data", str(edited),
                      "--data", str(folder / "test_multi_constraint.jsonl"), "--oracle")
    assert status == 0
    listed = [json.loads(line) for line in (out / "oracle_failures.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(item["case_id"], item["constraint_id"]) for item in listed] == [
        ("072b8b7fca619c2c2c02575adaf69e88:fr", "glossary")]
    assert "not rendered" in listed[0]["reason"]
    assert summary_of(out)["oracle"]["by_constraint"] == {"glossary": 1}
    assert "| glossary | 1 |" in (out / "report.md").read_text(encoding="utf-8")


def test_the_oracle_list_is_itself_an_exclude_file(tmp_path):
    """Each failing (row, rule) is a line; a row that fails two rules is excluded once."""
    ids = bundled_ids(tmp_path)
    listing = tmp_path / "oracle_failures.jsonl"
    listing.write_text("".join(json.dumps({"case_id": case_id, "constraint_id": rule, "reason": "r"}) + "\n"
                               for case_id, rule in ((ids[2], "a"), (ids[2], "b"), (ids[4], "a"))), encoding="utf-8")
    _, out = run(tmp_path, *IT_PREDICTIONS, "--exclude", str(listing))
    assert summary_of(out)["subset"]["count"] == 2 and summary_of(out)["subset"]["sha256"] == subsets.ids_sha256(
        [ids[2], ids[4]])
    listing.write_text('{"case_id": "nope"}\n', encoding="utf-8")
    assert run(tmp_path, *IT_PREDICTIONS, "--exclude", str(listing), name="bad")[0] == 2


def test_excluding_an_empty_list_is_the_full_run_and_an_empty_only_is_refused(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    status, out = run(tmp_path, *IT_PREDICTIONS, "--exclude", str(empty))
    assert status == 0 and summary_of(out)["subset"] is None and summary_of(out)["data"]["n_instances"] == 318
    assert run(tmp_path, *IT_PREDICTIONS, "--only", str(empty), name="only")[0] == 2
    assert f"--only {empty}: the file lists no case_id" in capsys.readouterr().err


def test_a_hostile_list_line_is_refused_in_one_short_line(tmp_path):
    listing = tmp_path / "ids.txt"
    listing.write_text("a" * 200_000 + "\n" + "[" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(Exception) as error:
        subsets.read_id_list(listing, "--only", {"a"})
    assert str(error.value).startswith(f"{listing}:1: ") and len(str(error.value)) < 300 + len(str(listing))
    listing.write_text("{" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(Exception, match=":1: "):
        subsets.read_id_list(listing, "--only", {"a"})
