"""A run that carries its Judge's calibration (SPEC §17): `evaluate.py --judge-calibration FILE`.

The file is the calibration.json `python -m eval.calibrate` wrote. It is accepted only for the Judge
it describes (model, endpoint kind, request parameters, prompt versions: the parts of the signature
that decide a verdict); its figures per prompt kind go into the summary's `judge.calibration`, the
signature, report.md and the console. Kept apart from eval/calibrate.py so that the run pipeline
does not import the calibration command (which runs the pipeline's Judge phase).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from eval.errors import ConfigError

FORMAT = "judge-calibration-1"
MAX_BYTES = 16_000_000  # a calibration.json is tens of KB; anything this large is not one


def _number(value, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _interval(value) -> str:
    return "" if not value else f" [{value[0]:.2f}, {value[1]:.2f}]"


IDENTITY = ("model", "endpoint_kind", "params", "prompt_versions")
UNCALIBRATED = ("The Judge is uncalibrated: nothing says how often its verdicts match known answers. "
                "Run `python -m eval.calibrate` with this Judge and pass `--judge-calibration "
                "calibration.json` (docs/judge.md#calibration).")


def run_calibration(path: Path, benchmark: str, judge_block: dict) -> dict:
    """The summary's `judge.calibration` for a run whose Judge is described by `judge_block` (the
    block a run writes, before any verdict): refused, naming every difference, unless the file
    calibrated the same Judge model, endpoint kind, parameters and prompt versions."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise ConfigError(f"--judge-calibration {path}: larger than {MAX_BYTES // 1_000_000} MB, not a calibration.json",
                              "give the calibration.json that python -m eval.calibrate wrote")
        result = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ConfigError(f"--judge-calibration {path}: not a readable calibration.json ({error})",
                          "give the calibration.json that python -m eval.calibrate wrote") from None
    if not isinstance(result, dict) or result.get("format") != FORMAT or not isinstance(result.get("benchmarks"), dict):
        raise ConfigError(f"--judge-calibration {path}: not a calibration.json of format {FORMAT}",
                          "give the calibration.json that python -m eval.calibrate wrote")
    block = result["benchmarks"].get(benchmark)
    if not isinstance(block, dict) or not isinstance(block.get("judge"), dict):
        raise ConfigError(f"--judge-calibration {path}: it calibrates no {benchmark} prompt",
                          f"calibrate with --benchmark {benchmark}")
    differences = [f"{key}: calibrated {json.dumps(block['judge'].get(key), sort_keys=True)}, this run "
                   f"{json.dumps(judge_block.get(key), sort_keys=True)}"
                   for key in IDENTITY if block["judge"].get(key) != judge_block.get(key)]
    if differences:
        raise ConfigError(f"--judge-calibration {path} was made with another Judge: " + "; ".join(differences),
                          "calibrate this Judge with the same flags (python -m eval.calibrate), or drop the flag")
    kinds = block.get("kinds") if isinstance(block.get("kinds"), dict) else {}
    probes = block.get("bias_probes") if isinstance(block.get("bias_probes"), dict) else {}
    return {"file": Path(path).name, "sha256": hashlib.sha256(raw).hexdigest(),
            "harness_version": str(result.get("harness_version")), "repeats": _figure(block.get("repeats")),
            "kinds": {str(kind): {key: (_interval_of if key.endswith("_ci95") else _figure)(stats.get(key))
                                  for key in KEPT}
                      for kind, stats in kinds.items() if isinstance(stats, dict)},
            "bias_probes": {str(kind): {str(probe): _figure(entry.get("rate")) for probe, entry in entries.items()
                                        if isinstance(entry, dict)}
                            for kind, entries in probes.items() if isinstance(entries, dict)}}


KEPT = ("n", "exact_agreement", "kappa", "kappa_ci95", "weighted_kappa", "weighted_kappa_ci95", "self_agreement")


def _figure(value: object) -> float | int | None:
    """A finite number from the file, or None (the file is outside text: nothing else is carried)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) == float("inf"):
        return None
    return value


def _interval_of(value: object) -> list | None:
    if isinstance(value, list) and len(value) == 2 and all(_figure(item) is not None for item in value):
        return list(value)
    return None


def calibration_markdown(judge: dict | None) -> str:
    """report.md's section on the Judge's calibration (nothing without a Judge)."""
    if not judge:
        return ""
    lines = ["", "## Judge calibration", ""]
    calibration = judge.get("calibration")
    if not calibration:
        return "\n".join(lines + [UNCALIBRATED]) + "\n"
    lines += [f"Calibrated by `{calibration['file']}` (sha256 {calibration['sha256'][:12]}): the Judge against "
              "known answers, per prompt kind.", "",
              "| " + " | ".join(CALIBRATION_COLUMNS) + " |", "|" + "---|" * len(CALIBRATION_COLUMNS)]
    lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in calibration_rows(judge)]
    return "\n".join(lines) + "\n"


def _md_cell(text: str) -> str:
    """A table cell of outside text: one line, its pipes escaped, no markup."""
    return " ".join(text.split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def calibration_rows(judge: dict) -> list[list[str]]:
    """The per-kind rows report.md and report.html show: kind, n, exact, κ, weighted κ,
    self-agreement, worst bias probe (plain text; the HTML page escapes them)."""
    calibration = judge["calibration"]
    rows = []
    for kind, stats in calibration["kinds"].items():
        probes = {probe: rate for probe, rate in calibration["bias_probes"].get(kind, {}).items() if rate is not None}
        worst = max(probes.items(), key=lambda item: item[1], default=None)
        rows.append([kind, "n/a" if stats["n"] is None else f"{stats['n']}", _number(stats["exact_agreement"]),
                     _number(stats["kappa"]) + _interval(stats["kappa_ci95"]),
                     _number(stats["weighted_kappa"]) + _interval(stats["weighted_kappa_ci95"]),
                     _number(stats["self_agreement"]), f"{worst[0]} {worst[1]:.2f}" if worst else "n/a"])
    return rows


CALIBRATION_COLUMNS = ["kind", "n", "exact", "κ", "weighted κ", "self-agreement", "worst bias probe"]


def calibration_console_line(judge: dict | None) -> str | None:
    """One console line: κ per kind, or that the Judge is uncalibrated (self-judging has its own
    warning line, eval/published.py)."""
    if not judge:
        return None
    calibration = judge.get("calibration")
    line = ("Judge calibration: " + ", ".join(f"{kind} κ {_number(stats['kappa'], 2)}"
                                             for kind, stats in calibration["kinds"].items())
            if calibration else "Judge uncalibrated (python -m eval.calibrate; --judge-calibration FILE)")
    return line
