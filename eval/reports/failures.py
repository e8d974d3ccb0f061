"""The report's failures section (SPEC §11): which instances failed, and why, in one line each.

scores.jsonl stays the complete record; this is the readable view of it. Each benchmark gives its
own lists (`ReportHooks.failure_lists`) in three kinds this module writes: `hard` (per rule the
failing case_ids with the one-line reason it writes), `tables` (any other list, as a heading,
columns and rows whose first cell is a case_id: Sandglass's largest syllable misses) and `judge`
(per name the lowest Judge scores, each list with its `kind`: "soft" for a soft constraint,
"Judge" for a verdict on the whole instance such as quality). This module adds the missing
predictions (by the rows' status) and the wrapper diagnostics, and writes the section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval.inputs.predictions import DIAGNOSTICS, wrapper_diagnostics
from eval.scoring.score_rows import ScoreRow

if TYPE_CHECKING:
    from eval.benchmark import Benchmark

FAILURE_CAP = 20


# ---------------------------------------------------------------------------------------------
# The section's data
# ---------------------------------------------------------------------------------------------

def _diagnostics(scores: list[ScoreRow], summary: dict | None, predictions: dict | None,
                 source_texts: dict | None, cap: int, text_field: str | None) -> dict:
    """{name: {count, case_ids}}: from the predictions when given, else from the summary's
    `diagnostic_case_ids`, else from the rows' own prediction text (`text_field`)."""
    named: dict[str, list[str]] | None = None
    if predictions is not None:
        named = {name: [] for name in DIAGNOSTICS}
        for score in scores:
            text = predictions.get(score.case_id)
            if text is not None and text.strip():
                source = (source_texts or {}).get(score.case_id, "")
                for name, present in wrapper_diagnostics(text, source).items():
                    if present:
                        named[name].append(score.case_id)
    elif summary and (summary.get("predictions") or {}).get("diagnostic_case_ids") is not None:
        named = summary["predictions"]["diagnostic_case_ids"]
    elif scores and text_field is not None and text_field in scores[0]:
        named = {name: [] for name in DIAGNOSTICS}
        for score in scores:
            if score.get(text_field) and score[text_field].strip():
                for name, present in wrapper_diagnostics(score[text_field]).items():
                    if present:
                        named[name].append(score.case_id)
    counts = (summary or {}).get("predictions", {}).get("diagnostics", {})
    result = {}
    for name in DIAGNOSTICS:
        ids = None if named is None else list(named.get(name, []))
        count = len(ids) if ids is not None else counts.get(name, 0)
        result[name] = {"count": count, "case_ids": None if ids is None else ids[:cap]}
    return result


def failures(scores: list[ScoreRow], summary: dict | None = None, predictions: dict | None = None,
             source_texts: dict | None = None, cap: int = FAILURE_CAP, *, bench: Benchmark) -> dict:
    """The failures section of a run (SPEC §11), from its score rows.

    `predictions` ({case_id: text}) and `source_texts` give the diagnostics directly; without
    them they come from `summary["predictions"]["diagnostic_case_ids"]` (or from the prediction
    text the rows carry, `bench.data.prediction_field`). The lists are the benchmark's own
    (`bench.reports.failure_lists`), capped at `cap`, in data order (soft: lowest score first).
    """
    missing = [score.case_id for score in scores if score.missing]
    result: dict = {"benchmark": bench.name, "cap": cap,
                    "n": len(scores), "missing": {"count": len(missing), "case_ids": missing[:cap]}}
    result.update(bench.reports.failure_lists(scores, summary, cap))
    result["diagnostics"] = _diagnostics(scores, summary, predictions, source_texts, cap, bench.data.prediction_field)
    return result


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------

def _md(text: str) -> str:
    """A table cell: pipes escaped, kept on one line."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def failures_markdown(data: dict) -> list[str]:
    """The "Failures" section of report.md as lines (headings, case_ids and reasons)."""
    cap = data["cap"]
    lines = ["", "## Failures", "",
             f"The first {cap} per list, in data order (soft and quality: lowest first); scores.jsonl has every "
             "instance and the full detail.", ""]
    if data["missing"]["count"]:
        lines += [f"- Missing predictions ({data['missing']['count']}): "
                  + ", ".join(f"`{cid}`" for cid in data["missing"]["case_ids"]), ""]
    for cid, slot in data.get("hard", {}).items():
        lines.append(f"### {cid} (hard): {slot['failed']} of {slot['n']} failed")
        lines.append("")
        if slot["cases"]:
            lines += ["| case_id | reason |", "|---|---|"]
            lines += [f"| `{case['case_id']}` | {_md(case['reason'])} |" for case in slot["cases"]]
            lines.append("")
    for block in data.get("tables", []):
        lines += [f"### {block['heading']}", ""]
        if block["rows"]:
            numeric = set(block.get("numeric", ()))
            lines += ["| " + " | ".join(block["columns"]) + " |",
                      "|" + "|".join("---:" if index in numeric else "---" for index in range(len(block["columns"]))) + "|"]
            lines += ["| " + " | ".join([f"`{row[0]}`", *(_md(cell) for cell in row[1:])]) + " |" for row in block["rows"]]
            lines.append("")
    for cid, slot in data.get("judge", {}).items():
        kind = slot["kind"]
        if not slot["judged"]:
            lines += [f"### {cid} ({kind}): not judged (--skip-judge)", ""]
            continue
        lines += [f"### {cid} ({kind}): {slot['below_full']} of {slot['n']} below 1", ""]
        if slot["cases"]:
            lines += ["| case_id | score | note |", "|---|---:|---|"]
            lines += [f"| `{case['case_id']}` | {case['score']:g} | {_md(case['reason'])} |" for case in slot["cases"]]
            lines.append("")
    lines += ["### Prediction diagnostics (no effect on scores)", ""]
    for name, entry in data["diagnostics"].items():
        label = name.replace("_", " ")
        if entry["case_ids"] is None:
            lines.append(f"- {label}: {entry['count']}")
        else:
            shown = ", ".join(f"`{cid}`" for cid in entry["case_ids"])
            more = f" (+{entry['count'] - len(entry['case_ids'])} more)" if entry["count"] > len(entry["case_ids"]) else ""
            lines.append(f"- {label}: {entry['count']}" + (f": {shown}{more}" if shown else ""))
    return lines
