"""Writing the outputs (SPEC §11): scores.jsonl, summary.json, report.md, and the console table.

Every file is written to a temporary name and renamed into place, so a reader never sees half a
file; summary.json is written last, so its presence means the run finished.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from eval import __version__
from eval.metrics import BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED
from eval.system_meta import system_report_lines

OUTPUT_FILES = ("summary.json", "report.md", "scores.jsonl")


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes the file private; results are meant to be shared
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_previous_results(output_dir: Path) -> None:
    """Delete the result files of an earlier run before a new one starts.

    A run that then aborts leaves nothing that could pass for its result (the Judge cache stays).
    """
    for name in OUTPUT_FILES:
        (output_dir / name).unlink(missing_ok=True)


def non_formal_reasons(args, n_used: int, n_total: int, sha256: str, expected_sha256: str | None,
                       unscored: str, manifest_entry: str) -> list[str]:
    """The reasons a run is not formal that both benchmarks share (SPEC §9): a subset, no Judge,
    data that is not the data manifest.json records. `unscored` says what --skip-judge leaves out."""
    reasons = []
    if n_used < n_total:
        reasons.append(f"--limit {args.limit}: {n_used} of {n_total} instances scored")
    if args.skip_judge:
        reasons.append(f"--skip-judge: {unscored} not scored")
    if expected_sha256 is None:
        reasons.append(f"manifest.json has no {manifest_entry}, so the data cannot be identified")
    elif expected_sha256 != sha256:
        reasons.append(f"the data's SHA-256 differs from manifest.json's {manifest_entry}")
    return reasons


def make_signature(data_sha256: str, n_instances: int, judge: dict | None, settings: tuple[str, ...] = (),
                   benchmark: str | None = None) -> str:
    """Every setting the numbers depend on, as one short `key:value|...` string.

    `settings` are the benchmark's own `key:value` parts (the rule set, the speech rates)."""
    parts = ([f"bench:{benchmark}"] if benchmark else []) + [f"data:{data_sha256[:12]}", f"n:{n_instances}"]
    parts += list(settings)
    if judge is None:
        parts.append("judge:none")
    else:
        parts.append(f"judge:{judge['model']}")
        parts.append(f"host:{judge['host']}")
        parts.append(f"endpoint:{judge['endpoint_kind']}")
        for key, value in sorted(judge.get("params", {}).items()):
            parts.append(f"{key}:{json.dumps(value, sort_keys=True, separators=(',', ':'), ensure_ascii=False)}")
        for key, value in sorted(judge.get("prompt_versions", {}).items()):
            parts.append(f"prompt.{key}:{value}")
    parts.append(f"boot:{BOOTSTRAP_SAMPLES}")
    parts.append(f"seed:{BOOTSTRAP_SEED}")
    parts.append(f"version:{__version__}")
    return "|".join(parts)


# Characters that str.splitlines() treats as line breaks; escaped so a JSONL record stays one line
# for every reader (SPEC §1: source texts contain U+2028).
_LINE_BREAKS_IN_JSON = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085",
                                      "\x1c": "\\u001c", "\x1d": "\\u001d", "\x1e": "\\u001e"})


def jsonl_line(value) -> str:
    """One JSONL record: UTF-8 text kept readable, every line-breaking character escaped."""
    return json.dumps(value, ensure_ascii=False).translate(_LINE_BREAKS_IN_JSON) + "\n"


def write_results(output_dir: Path, scores: list[dict], summary: dict, report: str, table: str | None) -> None:
    """scores.jsonl, report.md, then summary.json (its presence means the run finished); print
    the table unless it is None (--quiet)."""
    write_atomic(output_dir / "scores.jsonl", "".join(jsonl_line(score) for score in scores))
    write_atomic(output_dir / "report.md", report)
    write_atomic(output_dir / "summary.json", json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    if table is not None:
        print(table)
        print(f"wrote {output_dir / 'scores.jsonl'}, summary.json and report.md")


def _fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.4f}"


def headline_cell(metric: dict) -> str:
    if metric["value"] is None:
        return "n/a"
    low, high = metric["ci95"]
    return f"{metric['value']:.4f} [{low:.4f}, {high:.4f}]"


def report_markdown(summary: dict) -> str:
    """report.md: headline numbers, the run's status and signature, and the breakdown tables."""
    lines = ["# InstTrans-Bench evaluation report", ""]
    status = "formal" if summary["formal"] else "NOT formal: " + "; ".join(summary["non_formal_reasons"])
    lines += [f"- Run: {status}", f"- Signature: `{summary['signature']}`",
              f"- Data: {summary['data']['source']} ({summary['data']['n_instances']} instances, "
              f"sha256 {summary['data']['sha256'][:12]}, manifest match: {summary['data']['manifest_match']})",
              f"- Predictions: {summary['predictions']['path']} ({summary['predictions']['rows']} lines, "
              f"{summary['predictions']['missing']} instances missing)"]
    lines += system_report_lines(summary.get("system"), summary.get("system_warnings", []))
    judge = summary.get("judge")
    if judge:
        lines.append(f"- Judge: {judge['model']} ({judge['endpoint_kind']}) at {judge['host']}; "
                     f"{judge['calls']} calls, {judge['cache_hits']} cache hits")
    else:
        lines.append("- Judge: skipped")
    lines.append("")
    lines += ["| metric | value [95% CI] |", "|---|---|"]
    for name in ("if_score", "quality", "hard_pass_rate"):
        lines.append(f"| {name} | {headline_cell(summary[name])} |")
    lines += ["", "## By constraint", "", "| constraint | kind | n | pass rate / mean |", "|---|---|---:|---:|"]
    for cid, entry in summary["by_constraint"].items():
        value = entry.get("pass_rate", entry.get("mean"))
        lines.append(f"| {cid} | {entry['kind']} | {entry['n']} | {_fmt(value)} |")
    for key, title in (("by_scenario", "scenario"), ("by_domain", "domain"), ("by_language_pair", "language pair"),
                       ("by_target_lang", "target language"), ("by_constraint_count", "constraints per instance")):
        lines += ["", f"## By {title}", "", f"| {title} | n | if_score | quality | hard_pass_rate |",
                  "|---|---:|---:|---:|---:|"]
        for group, entry in summary[key].items():
            lines.append(f"| {group} | {entry['n']} | {_fmt(entry['if_score'])} | {_fmt(entry['quality'])} "
                         f"| {_fmt(entry['hard_pass_rate'])} |")
    diagnostics = summary["predictions"]["diagnostics"]
    lines += ["", "## Prediction diagnostics (no effect on scores)", ""]
    lines += [f"- {name.replace('_', ' ')}: {count}" for name, count in diagnostics.items()]
    return "\n".join(lines) + "\n"


def console_table(summary: dict) -> str:
    """The compact table printed at the end of a run."""
    rows = [("if_score", headline_cell(summary["if_score"])), ("quality", headline_cell(summary["quality"])),
            ("hard_pass_rate", headline_cell(summary["hard_pass_rate"]))]
    rows += [(f"  {cid} ({entry['kind']}, n={entry['n']})", _fmt(entry.get("pass_rate", entry.get("mean"))))
             for cid, entry in summary["by_constraint"].items()]
    width = max(len(name) for name, _ in rows)
    out = [f"{name:<{width}}  {value}" for name, value in rows]
    missing, total = summary["predictions"]["missing"], summary["data"]["n_instances"]
    if missing:
        out.append(f"{missing} of {total} instances have no prediction (scored 0)")
    out += [f"warning: {warning}" for warning in summary.get("system_warnings", [])]
    out.append("formal run" if summary["formal"] else "NOT a formal run: " + "; ".join(summary["non_formal_reasons"]))
    out.append(f"signature: {summary['signature']}")
    return "\n".join(out)
