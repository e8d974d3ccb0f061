"""scores.jsonl and explorer.html are streamed into their temporaries (issue 34): the same bytes as
the in-memory writers on the bundled runs of every benchmark, offline and judged; the writing holds
no whole page; and a rerun removes the temporaries a killed run left, and nothing else."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path
from types import SimpleNamespace

import pytest

import evaluate
from eval.reports import explorer
from eval.io import outputs
from eval.run import pipeline
from eval.exits import run_cli
from eval.reports.explorer import render_explorer_html, write_explorer_html
from eval.io.locking import hold_lock
from eval.io.outputs import RESULT_FILES, jsonl_lines, jsonl_writer, remove_stale_temporaries
from eval.scoring.score_rows import ScoreRow, row_dict
from tests.ifmtbench.helpers import ifmt_handler
from tests.judge_server import JudgeServer, default_handler

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-stream-test-key-0000000000"
BUNDLED = {
    "insttrans": ["--predictions", str(ROOT / "data" / "example_predictions.jsonl")],
    "sandglass": ["--data", str(ROOT / "data" / "sandglass" / "test.jsonl"),
                  "--predictions", str(ROOT / "data" / "sandglass" / "example_predictions.jsonl")],
    "ifmtbench": ["--dataset", str(ROOT / "data" / "ifmtbench"),
                  "--predictions", str(ROOT / "data" / "ifmtbench" / "example_predictions.jsonl")],
}
HANDLERS = {"insttrans": default_handler, "sandglass": default_handler, "ifmtbench": ifmt_handler}


def _capture(monkeypatch) -> dict:
    """Record what the pipeline hands the two streamed writers (the run's own rows and scores)."""
    seen: dict = {}
    real_jsonl_writer, real_explorer = pipeline.jsonl_writer, pipeline.write_explorer_html

    def jsonl_writer_spy(values, *args, **kwargs):
        seen["scores"] = values
        return real_jsonl_writer(values, *args, **kwargs)

    def explorer_spy(write, *args):
        seen["explorer"] = args[:5]
        return real_explorer(write, *args)

    monkeypatch.setattr(pipeline, "jsonl_writer", jsonl_writer_spy)
    monkeypatch.setattr(pipeline, "write_explorer_html", explorer_spy)
    return seen


@pytest.mark.parametrize("judged", [False, True], ids=["offline", "judged"])
@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_the_streamed_files_are_the_in_memory_writers_bytes_on_the_bundled_runs(name, judged, tmp_path,
                                                                                   monkeypatch, capfd):
    seen = _capture(monkeypatch)
    out = tmp_path / "out"
    argv = [*BUNDLED[name], "--output-dir", str(out), "--quiet", "--log-samples"]
    if judged:
        monkeypatch.setenv("JUDGE_API_KEY", KEY)
        with JudgeServer(HANDLERS[name]) as server:
            monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
            status = run_cli(evaluate.main, [*argv, "--judge-backoff", "0.001"])
        assert server.requests, "the judged run asked the Judge"
    else:
        status = run_cli(evaluate.main, [*argv, "--skip-judge"])
    assert status == 0, capfd.readouterr().err
    bench, summary, rows, predictions, scores = seen["explorer"]
    assert seen["scores"] is scores and len(scores) > 50
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["benchmark"] == name
    assert (out / "scores.jsonl").read_bytes() == outputs._escape_surrogates(jsonl_lines(map(row_dict, scores))).encode("utf-8")
    reference = render_explorer_html(bench, summary, rows, predictions, scores)
    assert (out / "explorer.html").read_bytes() == outputs._escape_surrogates(reference).encode("utf-8")
    assert sorted(path.name for path in out.iterdir() if path.name.startswith(".")) == []  # no temporary left


def _generic_run(n: int, text: str) -> tuple:
    """A benchmark without its own explorer view, `n` instances with `text` as their prediction."""
    bench = SimpleNamespace(title="Generic", reports=SimpleNamespace(explorer_view=None))
    scores = [ScoreRow.of(case_id=f"c{index:06d}", status="ok") for index in range(n)]
    predictions = {score["case_id"]: f"{text} {index}" for index, score in enumerate(scores)}
    summary = {"predictions": {"diagnostic_case_ids": {}}, "data": {}, "formal": True}
    return bench, summary, [{} for _ in scores], predictions, scores


def _materialised(writer) -> str:
    pieces: list[str] = []
    writer(pieces.append)
    return "".join(pieces)


def test_lone_surrogates_and_batch_edges_give_the_reference_bytes(tmp_path):
    """A lone surrogate (a model's JSON key) crosses the scratch file and is escaped as the
    in-memory page escapes it; batches of 1, 3 and the default split the items anywhere."""
    run = _generic_run(7, "键 \ud800 <b>&</b> \u2028 😀")
    reference = outputs._escape_surrogates(render_explorer_html(*run))
    for batch in (1, 3, 256):
        streamed = _materialised(lambda write: write_explorer_html(write, *run, tmp_path, batch=batch))
        assert outputs._escape_surrogates(streamed) == reference
    scores = [{"case_id": "a", "text": "\ud800\u2028"}, {"case_id": "b"}, {"case_id": "c", "x": "\x85"}]
    for batch in (1, 2, 5):
        assert _materialised(jsonl_writer(scores, batch=batch)) == jsonl_lines(scores)
    assert list(tmp_path.iterdir()) == []  # the scratch file has no name


def _writing_peak(n: int, tmp_path: Path) -> tuple[int, int]:
    """(peak bytes allocated while both streamed writers write to a file, the page's size). The
    writers' batches and copy chunk are cut to a tenth or less of their defaults, so that a few
    hundred instances already fill them: the bound is theirs, not the number's."""
    run = _generic_run(n, "一二三四五六七八九十" * 40)
    target = tmp_path / f"page-{n}.html"
    tracemalloc.start()
    try:
        with open(target, "w", encoding="utf-8") as stream:
            write_explorer_html(stream.write, *run, tmp_path, batch=32, chunk=1 << 16)
            jsonl_writer(run[4], row_dict, batch=128)(stream.write)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, target.stat().st_size


def test_writing_four_times_the_instances_holds_far_less_than_four_times_the_memory(tmp_path):
    """The held structures (rows, scores) are the caller's; what the writers allocate on top of them
    stays near a batch and a copy chunk, where a page built in memory grows with the instances."""
    small_peak, small_size = _writing_peak(300, tmp_path)
    large_peak, large_size = _writing_peak(1_200, tmp_path)
    assert large_size > 3.8 * small_size > 1_600_000  # 300 instances: a 0.43 MB page (and the frame)
    assert large_peak < 1.6 * small_peak, (small_peak, large_peak)
    assert large_peak < large_size / 2, (large_peak, large_size)  # the page was never held whole


# ---------------------------------------------------------------------------------------------
# Temporaries of killed runs (issue 34, item 11)
# ---------------------------------------------------------------------------------------------

STALE = [".explorer.html.k3x9_q2a.tmp", ".scores.jsonl.abcdefgh.tmp", ".summary.json.0000_000.tmp",
         ".report.md.zzzzzzzz.tmp", ".report.html.a1b2c3d4.tmp"]
KEPT_FILES = {  # near misses of the pattern, and the folder's other files
    ".explorer.html.k3x9q2.tmp": "seven characters",
    ".explorer.html.K3X9Q2AB.tmp": "capitals: not mkstemp's",
    ".explorer.html.k3x9_q2a.tmp.bak": "another suffix",
    "explorer.html.k3x9_q2a.tmp": "no leading dot",
    ".predictions.jsonl.abcdefgh.tmp": "predict.py's temporary, not a result file's",
    ".notes.md.abcdefgh.tmp": "not a result file",
    "notes.txt": "the user's",
    "judge_cache.sqlite": "the cache",
}


def _killed_run_leftovers(out: Path, outside: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in STALE:
        (out / name).write_text("half a result " * 1000, encoding="utf-8")
    for name, text in KEPT_FILES.items():
        (out / name).write_text(text, encoding="utf-8")
    (out / ".report.md.dirdirdi.tmp").mkdir()  # a folder with the name: not ours
    (out / ".report.md.dirdirdi.tmp" / "inside").write_text("kept", encoding="utf-8")
    outside.write_text("outside the folder", encoding="utf-8")
    os.symlink(outside, out / ".report.html.linklink.tmp")  # a link with the name: neither it nor its target goes


def _snapshot(out: Path) -> dict:
    return {path.relative_to(out).as_posix(): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(out.rglob("*")) if path.is_file() and not path.is_symlink()}


def _offline_run(out: Path) -> int:
    return run_cli(evaluate.main, [*BUNDLED["insttrans"], "--limit", "5", "--output-dir", str(out),
                                   "--skip-judge", "--quiet"])


def test_a_rerun_removes_a_killed_runs_temporaries_and_nothing_else(tmp_path, capfd):
    out, outside = tmp_path / "out", tmp_path / "outside.txt"
    _killed_run_leftovers(out, outside)
    before = _snapshot(out)
    assert _offline_run(out) == 0, capfd.readouterr().err
    names = {path.name for path in out.iterdir()}
    assert not names & set(STALE)
    assert set(RESULT_FILES) - {"oracle_failures.jsonl"} <= names  # that one only with --oracle
    after = _snapshot(out)
    kept = {name: value for name, value in before.items() if name not in STALE}
    assert {name: after[name] for name in kept} == kept  # every other file untouched, bytes and time
    assert (out / ".report.html.linklink.tmp").is_symlink()
    assert outside.read_text(encoding="utf-8") == "outside the folder"
    assert (out / ".report.md.dirdirdi.tmp" / "inside").is_file()


def test_temporaries_stay_while_a_live_run_holds_the_folder(tmp_path, capfd):
    out, outside = tmp_path / "out", tmp_path / "outside.txt"
    _killed_run_leftovers(out, outside)
    before = _snapshot(out)
    with hold_lock(out, "output directory", is_dir=True):  # a live run is writing these
        assert _offline_run(out) == 2
        assert "is in use by pid" in capfd.readouterr().err
        assert _snapshot(out) == {**before, ".lock": _snapshot(out)[".lock"]}
    assert _offline_run(out) == 0  # that run is gone: the next one cleans up
    assert not {path.name for path in out.iterdir()} & set(STALE)


def test_remove_stale_temporaries_names_what_it_removed(tmp_path):
    assert remove_stale_temporaries(tmp_path / "absent") == []
    _killed_run_leftovers(tmp_path / "out", tmp_path / "outside.txt")
    assert remove_stale_temporaries(tmp_path / "out") == sorted(STALE)
    assert remove_stale_temporaries(tmp_path / "out") == []


def test_the_pattern_is_mkstemps_for_every_result_file(tmp_path):
    """The pattern is checked against names the writer really makes, not only against STALE."""
    made = [outputs._temporary_copy(tmp_path / name, "x") for name in RESULT_FILES for _ in range(20)]
    assert all(outputs._RESULT_TEMPORARY.fullmatch(path.name) for path in made)
    assert remove_stale_temporaries(tmp_path) == sorted(path.name for path in made)
    assert explorer.page_frame("t")[0].endswith('id="explorer-data">')


# ---------------------------------------------------------------------------------------------
# The JSONL reader decodes line by line, and a UTF-8 error anywhere still comes first
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("first_fault, expected", [
    (b'{"a": 1}\n{"a": \n', "3: not valid UTF-8"),            # a JSON error before the bad bytes
    (b'\n{"a": 1}\n', "3: not valid UTF-8"),                   # a blank line before them
    (b'{"a": 1, "a": 2}\n', "2: not valid UTF-8"),             # a repeated key before them
    (b'{"a": "\\ud800"}\n', "2: not valid UTF-8"),             # a lone surrogate before them
])
def test_a_utf8_error_later_in_the_file_is_reported_before_an_earlier_lines_fault(tmp_path, first_fault, expected):
    from eval.io.data import read_jsonl_objects
    from eval.errors import DataError

    path = tmp_path / "data.jsonl"
    path.write_bytes(first_fault + b'{"b": "\xff"}\n{"c": 1}\n')
    with pytest.raises(DataError) as error:
        read_jsonl_objects(path)
    assert str(error.value).startswith(f"{path}:{expected}")


@pytest.mark.parametrize("raw, lines", [
    (b"", []), (b"\n", [""]), (b'{"a": 1}', ['{"a": 1}']), (b'{"a": 1}\n', ['{"a": 1}']),
    (b'{"a": 1}\n\n', ['{"a": 1}', ""]), (b'1\n2\n3', ["1", "2", "3"]), (b"\n\n", ["", ""]),
])
def test_the_byte_lines_are_str_split_on_newline_less_the_terminator(raw, lines):
    from eval.io.data import _byte_lines

    expected = raw.decode().split("\n")
    if expected and expected[-1] == "":
        expected.pop()
    got = [(number, segment.decode()) for number, _, segment in _byte_lines(raw)]
    assert [segment for _, segment in got] == expected == lines
    assert [number for number, _ in got] == list(range(1, len(lines) + 1))


@pytest.mark.parametrize("n, samples", [(60_001, 40), (60_001, 39), (250_001, 7), (3_001, 250)])
def test_the_bootstrap_in_smaller_chunks_draws_what_one_call_draws(n, samples):
    """Past 10,000 values the resamples are drawn a few at a time (memory); the interval is the one
    a single draw of samples x n indices gives, odd sizes and an odd last chunk included."""
    import numpy

    from eval.scoring import stats

    values = [((index * 7919) % 1000) / 999 for index in range(n)]
    stats._shared_indices.clear()
    rng = numpy.random.default_rng(stats.BOOTSTRAP_SEED)
    indices = rng.integers(0, n, size=(samples, n))
    means = numpy.asarray(values)[indices].mean(axis=1)
    low, high = numpy.percentile(means, [2.5, 97.5])
    assert stats.bootstrap_ci(values, samples=samples) == [round(float(low), 6), round(float(high), 6)]
    step = max(2, min(100, 1_000_000 // n // 2 * 2))  # even, so no 64-bit word is split between chunks
    assert len(list(stats._resample_index_chunks(n, samples, 1))) == -(-samples // step)


def test_the_bootstrap_keeps_one_sizes_draws_and_lets_them_go_before_drawing_the_next():
    """The draws kept for a second metric over the same instances are of one size only, and are
    let go before another size's are drawn: never two sizes' (32 MB each at most) held at once."""
    from eval.scoring import stats

    stats._shared_indices.clear()
    first = stats.bootstrap_ci([index % 2 for index in range(300)])
    assert list(stats._shared_indices) == [(300, stats.BOOTSTRAP_SAMPLES, stats.BOOTSTRAP_SEED)]
    draws = stats._resample_index_chunks(400, stats.BOOTSTRAP_SAMPLES, stats.BOOTSTRAP_SEED)
    next(draws)
    assert stats._shared_indices == {}  # the 300-value draws are gone before the first 400-value chunk
    list(draws)
    assert list(stats._shared_indices) == [(400, stats.BOOTSTRAP_SAMPLES, stats.BOOTSTRAP_SEED)]
    stats._shared_indices.clear()
    assert stats.bootstrap_ci([index % 2 for index in range(300)]) == first  # drawn again: the same interval
