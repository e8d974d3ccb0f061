"""The result files appear all at once or not at all (SPEC §11), whichever byte fails."""

from __future__ import annotations

import os

import pytest

from eval.io import outputs
from eval.io.outputs import RESULT_FILES, remove_previous_results, write_results

TEXTS = {"scores.jsonl": "{}\n", "report.md": "# r\n", "report.html": "<html></html>\n",
         "explorer.html": "<html></html>\n", "oracle_failures.jsonl": "{}\n",  # an --oracle run's list
         "summary.json": "{}\n"}


def test_every_result_file_is_written_and_summary_last(tmp_path, monkeypatch):
    order = []
    real_replace = os.replace
    monkeypatch.setattr(outputs.os, "replace", lambda a, b: (order.append(os.path.basename(b)), real_replace(a, b)))
    write_results(tmp_path, TEXTS)
    assert order == list(RESULT_FILES) and order[-1] == "summary.json"
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == TEXTS


@pytest.mark.parametrize("failing", RESULT_FILES)
@pytest.mark.parametrize("stage", ["write", "rename"])
def test_a_failure_at_any_file_leaves_no_result_and_no_temporary(tmp_path, monkeypatch, failing, stage):
    (tmp_path / "judge_cache.sqlite").write_text("kept")
    if stage == "write":
        real = outputs._temporary_copy

        def copy(path, text):
            if path.name == failing:
                raise OSError(28, "No space left on device", str(path))
            return real(path, text)

        monkeypatch.setattr(outputs, "_temporary_copy", copy)
    else:
        real_replace = os.replace

        def replace(source, target):
            if os.path.basename(target) == failing:
                raise OSError(28, "No space left on device", str(target))
            real_replace(source, target)

        monkeypatch.setattr(outputs.os, "replace", replace)
    with pytest.raises(OSError):
        write_results(tmp_path, TEXTS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["judge_cache.sqlite"]


def test_only_result_files_are_removed(tmp_path):
    for name in (*RESULT_FILES, "judge_cache.sqlite", "predictions.jsonl", "notes.txt"):
        (tmp_path / name).write_text("x")
    remove_previous_results(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["judge_cache.sqlite", "notes.txt", "predictions.jsonl"]


def test_a_name_that_is_not_a_result_file_is_refused(tmp_path):
    with pytest.raises(ValueError):
        write_results(tmp_path, {"predictions.jsonl": "x"})
    assert list(tmp_path.iterdir()) == []
