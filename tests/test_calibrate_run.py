"""A run that carries its Judge's calibration (`evaluate.py --judge-calibration`, SPEC §17), and a
run that is self-judged (SPEC §16): refused for another Judge, naming the difference; κ per kind in
the summary, signature, report.md and console; "uncalibrated" without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evaluate
from conftest import make_row, write_jsonl
from eval.exits import run_cli
from eval import calibrate
from judge_server import JudgeServer

KEY = "sk-calibration-run-SECRET-77aa"
ROWS = [make_row("r1", reference="Hello, world"), make_row("r2", source_text="再见", reference="Goodbye")]
PREDICTIONS = [{"case_id": "r1", "prediction": "Hello, world"}, {"case_id": "r2", "prediction": "Bye [q=0.5]"}]


@pytest.fixture(scope="module")
def calibration(tmp_path_factory) -> Path:
    """A calibration of the stand-in Judge (gpt-5.6-sol on /responses) for InstTrans's prompts."""
    out = tmp_path_factory.mktemp("calibration")
    with pytest.MonkeyPatch.context() as patch, JudgeServer() as server:
        patch.setenv("JUDGE_API_KEY", KEY)
        patch.setenv("JUDGE_API_BASE", server.base_url)
        assert calibrate.main(["--judge-model", "gpt-5.6-sol", "--output-dir", str(out), "--benchmark", "insttrans",
                               "--no-probes", "--quiet"]) == 0
    return out / "calibration.json"


def evaluate_run(tmp_path: Path, monkeypatch, *extra: str, meta: dict | None = None,
                 quiet: bool = True) -> tuple[int, Path]:
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = write_jsonl(tmp_path / "data.jsonl", ROWS)
    predictions = write_jsonl(tmp_path / "predictions.jsonl", PREDICTIONS)
    if meta is not None:
        (tmp_path / "predictions.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    out = tmp_path / "out"
    with JudgeServer() as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        status = run_cli(evaluate.main, ["--data", str(data), "--predictions", str(predictions), "--output-dir",
                                         str(out), *(["--quiet"] if quiet else []), *extra])
    return status, out


def test_a_calibrated_run_shows_kappa_per_kind(tmp_path, monkeypatch, calibration, capsys):
    status, out = evaluate_run(tmp_path, monkeypatch, "--judge-calibration", str(calibration), quiet=False)
    assert status == 0
    assert "Judge calibration: quality κ 0.00, style_consistency κ" in capsys.readouterr().out  # the stand-in: all top
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    carried = summary["judge"]["calibration"]
    made = json.loads(calibration.read_text(encoding="utf-8"))["benchmarks"]["insttrans"]
    assert carried["file"] == "calibration.json" and len(carried["sha256"]) == 64
    assert set(carried["kinds"]) == set(made["kinds"])
    for kind, stats in carried["kinds"].items():
        assert stats["kappa"] == made["kinds"][kind]["kappa"] and stats["n"] == made["kinds"][kind]["n"]
    assert f"judge-calibration:{carried['sha256'][:12]}" in summary["signature"]
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Judge calibration" in report and "| quality | 42 |" in report and "uncalibrated" not in report


def test_an_uncalibrated_run_says_so_and_keeps_its_signature(tmp_path, monkeypatch, capsys):
    status, out = evaluate_run(tmp_path, monkeypatch)
    assert status == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["judge"]["calibration"] is None and "judge-calibration" not in summary["signature"]
    assert "The Judge is uncalibrated" in (out / "report.md").read_text(encoding="utf-8")


def test_a_calibration_of_another_judge_is_refused_naming_the_difference(tmp_path, monkeypatch, calibration, capsys):
    status, out = evaluate_run(tmp_path, monkeypatch, "--judge-calibration", str(calibration),
                               "--judge-model", "qwen3-32b")
    assert status == 2
    err = capsys.readouterr().err
    assert "made with another Judge" in err and 'model: calibrated "gpt-5.6-sol", this run "qwen3-32b"' in err
    assert "endpoint_kind" in err and "params" in err
    assert not (out / "summary.json").exists()
    status, _ = evaluate_run(tmp_path / "b", monkeypatch, "--judge-calibration", str(calibration),
                             "--judge-reasoning-effort", "low")
    assert status == 2 and "params" in capsys.readouterr().err


def test_a_calibration_of_other_prompts_or_benchmark_or_no_file_is_refused(tmp_path, monkeypatch, calibration, capsys):
    edited = json.loads(calibration.read_text(encoding="utf-8"))
    edited["benchmarks"]["insttrans"]["judge"]["prompt_versions"]["quality"] = "quality-0"
    (tmp_path / "edited.json").write_text(json.dumps(edited), encoding="utf-8")
    status, _ = evaluate_run(tmp_path / "a", monkeypatch, "--judge-calibration", str(tmp_path / "edited.json"))
    assert status == 2 and 'prompt_versions: calibrated' in capsys.readouterr().err
    del edited["benchmarks"]["insttrans"]
    (tmp_path / "other.json").write_text(json.dumps(edited), encoding="utf-8")
    status, _ = evaluate_run(tmp_path / "b", monkeypatch, "--judge-calibration", str(tmp_path / "other.json"))
    assert status == 2 and "calibrates no insttrans prompt" in capsys.readouterr().err
    (tmp_path / "junk.json").write_text("{", encoding="utf-8")
    status, _ = evaluate_run(tmp_path / "c", monkeypatch, "--judge-calibration", str(tmp_path / "junk.json"))
    assert status == 2 and "junk.json" in capsys.readouterr().err
    monkeypatch.setattr("eval.judge.calibration.MAX_BYTES", 100)
    status, _ = evaluate_run(tmp_path / "e", monkeypatch, "--judge-calibration", str(calibration))
    assert status == 2 and "larger than" in capsys.readouterr().err
    (tmp_path / "deep.json").write_text("[" * 100_000, encoding="utf-8")
    monkeypatch.setattr("eval.judge.calibration.MAX_BYTES", 16_000_000)
    status, _ = evaluate_run(tmp_path / "f", monkeypatch, "--judge-calibration", str(tmp_path / "deep.json"))
    assert status == 2 and "deep.json" in capsys.readouterr().err
    status, _ = evaluate_run(tmp_path / "d", monkeypatch, "--judge-calibration", str(calibration), "--skip-judge")
    assert status == 2 and "--skip-judge" in capsys.readouterr().err


def test_self_judging_is_said_in_the_summary_report_and_console(tmp_path, monkeypatch, capsys):
    meta = {"model": "openai/gpt-5.6-sol", "inputs": {"sha256": "0" * 64}}
    status, out = evaluate_run(tmp_path, monkeypatch, meta=meta, quiet=False)
    assert status == 0
    console = capsys.readouterr().out
    assert "self-judging: the system 'openai/gpt-5.6-sol' is the Judge model 'gpt-5.6-sol'" in console
    assert "Judge uncalibrated" in console
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["judge"]["self_judging"] == ("self-judging: the system 'openai/gpt-5.6-sol' is the Judge model "
                                                "'gpt-5.6-sol'")
    assert "self-judging" in (out / "report.md").read_text(encoding="utf-8").lower()
    status, out = evaluate_run(tmp_path / "other", monkeypatch, meta={"model": "qwen3:32b"})
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert status == 0 and summary["judge"]["self_judging"] is None


def test_a_release_protocol_calibration_uses_the_release_prompts(tmp_path, monkeypatch, capsys):
    """`--protocol release`: the release's prompt and request (RELEASE-FACTS §2), its bare-score
    replies; the calibration serves a release run and is refused for a harness run."""
    from judge_server import Reply, text_reply
    from release_folders import SANDGLASS, make_sandglass_release

    release = make_sandglass_release(tmp_path / "Sandglass-Bench")
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    prompts: list[str] = []

    def bare(request) -> Reply:
        prompts.append(request.prompt)
        return text_reply(request.path, "0.5", prompt=request.prompt)

    root = Path(__file__).resolve().parent.parent
    common = ["--benchmark", "sandglass", "--data", str(root / "data" / "sandglass" / "test.jsonl"), "--predictions",
              str(root / "data" / "sandglass" / "example_predictions.jsonl"), "--quiet", "--judge-model", "m1"]
    with JudgeServer(bare) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        assert calibrate.main(["--judge-model", "m1", "--output-dir", str(tmp_path / "cal"), "--benchmark", "sandglass",
                               "--protocol", "release", "--release-dir", str(release), "--no-probes", "--quiet"]) == 0
        made = json.loads((tmp_path / "cal" / "calibration.json").read_text(encoding="utf-8"))["benchmarks"]["sandglass"]
        assert made["protocol"] == "release" and made["judge"]["prompt_versions"]["sandglass_quality"].startswith("release:")
        assert made["kinds"]["sandglass_quality"]["exact_agreement"] == round(14 / 42, 6)  # every verdict 0.5
        assert prompts and all(SANDGLASS in prompt for prompt in prompts)
        status = run_cli(evaluate.main, [*common, "--output-dir", str(tmp_path / "rel"), "--protocol", "release",
                                         "--release-dir", str(release), "--judge-calibration",
                                         str(tmp_path / "cal" / "calibration.json")])
        assert status == 0
        summary = json.loads((tmp_path / "rel" / "summary.json").read_text(encoding="utf-8"))
        assert summary["judge"]["calibration"]["kinds"]["sandglass_quality"]["n"] == 42
        capsys.readouterr()
        status = run_cli(evaluate.main, [*common, "--output-dir", str(tmp_path / "harness"), "--judge-calibration",
                                         str(tmp_path / "cal" / "calibration.json")])
        assert status == 2 and "prompt_versions: calibrated" in capsys.readouterr().err


def test_report_html_shows_the_calibration_and_outside_text_is_escaped(tmp_path, monkeypatch, calibration):
    hostile = json.loads(calibration.read_text(encoding="utf-8"))
    kinds = hostile["benchmarks"]["insttrans"]["kinds"]
    kinds["<script>x</script>|\nkind"] = dict(kinds["quality"], kappa="1; DROP", n=True)
    (tmp_path / "hostile.json").write_text(json.dumps(hostile), encoding="utf-8")
    status, out = evaluate_run(tmp_path, monkeypatch, "--judge-calibration", str(tmp_path / "hostile.json"))
    assert status == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    assert '<h2 id="judge-calibration">Judge calibration</h2>' in page and "<script>x</script>" not in page
    assert "&lt;script&gt;" in page
    carried = json.loads((out / "summary.json").read_text(encoding="utf-8"))["judge"]["calibration"]["kinds"]
    assert carried["<script>x</script>|\nkind"]["kappa"] is None and carried["<script>x</script>|\nkind"]["n"] is None
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| &lt;script&gt;x&lt;/script&gt;\\| kind | n/a |" in report  # one row: no markup, the pipe escaped
    status, plain = evaluate_run(tmp_path / "plain", monkeypatch)
    assert "The Judge is uncalibrated" in (plain / "report.html").read_text(encoding="utf-8")


def test_compare_treats_a_calibrated_and_an_uncalibrated_run_of_one_judge_as_comparable(tmp_path, monkeypatch,
                                                                                          calibration):
    from types import SimpleNamespace

    from eval.compare import signature_check
    from eval.provenance import Signature

    status, out = evaluate_run(tmp_path, monkeypatch, "--judge-calibration", str(calibration))
    assert status == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    plain = dict(summary, signature="|".join(part for part in summary["signature"].split("|")
                                             if not part.startswith("judge-calibration:")),
                 signature_fields={key: value for key, value in summary["signature_fields"].items()
                                   if key != "judge-calibration"})
    assert plain["signature"] != summary["signature"]

    def run(made: dict) -> SimpleNamespace:  # what compare reads of a run (eval/compare.py Run)
        return SimpleNamespace(summary=made, benchmark="insttrans", signature=Signature.from_summary(made))

    check = signature_check(run(summary), run(plain))
    assert check["compatible"] and check["differences"] == []
    other = dict(plain, signature=plain["signature"].replace("judge:gpt-5.6-sol", "judge:other"),
                 signature_fields={**plain["signature_fields"], "judge": "other"})
    assert not signature_check(run(summary), run(other))["compatible"]
