"""scripts/time_suite.py and its plugin scripts/suite_clock.py (docs/testing.md#how-long-it-takes):
the per-file CPU table, the worker count read off pytest's arguments, and a real run of a small
generated suite whose test that works in a child process shows the CPU that an idle one does not."""

from __future__ import annotations

import json
import os

from scripts import time_suite


def test_the_table_sums_cpu_and_wall_per_file_most_cpu_first():
    records = [{"test": "tests/a.py::t1", "wall": 2.0, "cpu": 0.5}, {"test": "tests/a.py::t2", "wall": 1.0, "cpu": 0.25},
               {"test": "tests/b.py::t[x::y]", "wall": 0.5, "cpu": 3.0}, {"test": "tests/c.py::t", "wall": 9.0, "cpu": 0.0}]
    lines = time_suite.by_file(records, 2).split("\n")
    assert lines[0].split() == ["CPU", "s", "wall", "s", "tests", "file"]
    assert lines[1].split() == ["3.0", "0.5", "1", "tests/b.py"]
    assert lines[2].split() == ["0.8", "3.0", "2", "tests/a.py"]  # 0.75 s CPU, shown to one decimal
    assert len(lines) == 4 and lines[3].split()[:5] == ["3.8", "12.5", "4", "all", "3"]  # tests/c.py in the total only


def test_the_worker_count_is_read_off_the_pytest_arguments():
    cores = os.cpu_count() or 1
    assert time_suite.worker_count(["pytest", "-n", "auto", "tests"]) == cores
    assert time_suite.worker_count(["pytest", "-n3"]) == 3
    assert time_suite.worker_count(["pytest", "--numprocesses", "4"]) == 4
    assert time_suite.worker_count(["pytest", "--numprocesses=logical"]) == cores
    assert time_suite.worker_count(["pytest", "-n", "0"]) == time_suite.worker_count(["pytest", "tests"]) == 1


def test_a_run_records_every_test_and_counts_a_childs_cpu(tmp_path, monkeypatch, capfd):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_generated.py").write_text(
        "import subprocess, sys\n\n"
        "def test_idle():\n    pass\n\n"
        "def test_busy_child():\n"
        "    subprocess.run([sys.executable, '-c', 'sum(i * i for i in range(3_000_000))'], check=True)\n",
        encoding="utf-8")
    records = tmp_path / "tests.jsonl"
    monkeypatch.setenv("SUITE_CLOCK_FILE", str(records))
    assert time_suite.main(["--by-file", "5", "-n", "0", str(suite)]) == 0
    out = capfd.readouterr().out
    kept = {json.loads(line)["test"].rsplit("::", 1)[1]: json.loads(line) for line in records.read_text().splitlines()}
    assert sorted(kept) == ["test_busy_child", "test_idle"]
    assert kept["test_busy_child"]["cpu"] > 10 * kept["test_idle"]["cpu"] and kept["test_busy_child"]["cpu"] > 0
    assert "test_generated.py" in out and "all 1 files" in out
    last = out.strip().split("\n")[-1]
    assert last.startswith("suite: ") and "1 worker(s)" in last and "pytest exit 0" in last


def test_the_figures_docs_show_agree_with_each_other_and_the_target():
    """docs/testing.md's table: CPU over workers is the last column, the after row meets the
    script's target, and the page names the same target."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "testing.md").read_text(encoding="utf-8")
    section = page.split("### How long it takes", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (before|after)[^|]*\|[^|]*\| (\d+) s \| (\d+) s \| (\d+) s \|$", section, re.M)
    assert [row[0] for row in rows] == ["before", "after"]
    for name, cpu, _wall, least in rows:  # both with `-n auto` on the 2-core machine
        assert int(least) == round(int(cpu) / 2), name
    assert int(rows[1][2]) <= time_suite.TARGET_WALL_S < int(rows[0][2])  # the measured wall: after meets it
    assert f"The target is {time_suite.TARGET_WALL_S:.0f} s" in " ".join(section.split())
