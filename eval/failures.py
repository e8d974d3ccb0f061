"""The report's failures section (SPEC §11): which instances failed, and why, in one line each.

scores.jsonl stays the complete record; this is the readable view of it. The lists are the
benchmark's own (its record's `failure_sections`: InstTrans-Bench's failing hard constraints
with the reasons its rules write, its soft and quality lowest scores; Sandglass-Bench's largest
syllable misses); this module adds the missing predictions and the wrapper diagnostics, and
writes the section. It never names a benchmark.
"""

from __future__ import annotations

from eval.predictions import DIAGNOSTICS, wrapper_diagnostics

FAILURE_CAP = 20


# ---------------------------------------------------------------------------------------------
# The section's data
# ---------------------------------------------------------------------------------------------

def _diagnostics(scores: list[dict], summary: dict | None, predictions: dict | None,
                 source_texts: dict | None, row_texts: dict | None, cap: int) -> dict:
    """{name: {count, case_ids}}: from the predictions when given, else from the summary's
    `diagnostic_case_ids`, else from the prediction texts the score rows carry (`row_texts`)."""
    named: dict[str, list[str]] | None = None
    if predictions is not None:
        named = {name: [] for name in DIAGNOSTICS}
        for score in scores:
            text = predictions.get(score["case_id"])
            if text is not None and text.strip():
                source = (source_texts or {}).get(score["case_id"], "")
                for name, present in wrapper_diagnostics(text, source).items():
                    if present:
                        named[name].append(score["case_id"])
    elif summary and (summary.get("predictions") or {}).get("diagnostic_case_ids") is not None:
        named = summary["predictions"]["diagnostic_case_ids"]
    elif row_texts is not None:
        named = {name: [] for name in DIAGNOSTICS}
        for score in scores:
            text = row_texts.get(score["case_id"])
            if text and text.strip():
                for name, present in wrapper_diagnostics(text).items():
                    if present:
                        named[name].append(score["case_id"])
    counts = (summary or {}).get("predictions", {}).get("diagnostics", {})
    result = {}
    for name in DIAGNOSTICS:
        ids = None if named is None else list(named.get(name, []))
        count = len(ids) if ids is not None else counts.get(name, 0)
        result[name] = {"count": count, "case_ids": None if ids is None else ids[:cap]}
    return result


def failures(scores: list[dict], summary: dict | None = None, predictions: dict | None = None,
             source_texts: dict | None = None, cap: int = FAILURE_CAP, benchmark=None) -> dict:
    """The failures section of a run (SPEC §11), from its score rows.

    The lists come from `benchmark.failure_sections` (the record named by `summary["benchmark"]`
    when `benchmark` is not given). `predictions` ({case_id: text}) and `source_texts` give the
    diagnostics directly; without them they come from `summary["predictions"]["diagnostic_case_ids"]`
    or the prediction texts the benchmark reads off its rows. Lists are capped at `cap`, in data
    order (soft: lowest score first).
    """
    if benchmark is None:
        from eval.benchmarks import get_benchmark  # the registry: imported only where a run's name is read

        benchmark = get_benchmark((summary or {})["benchmark"])
    missing = [score["case_id"] for score in scores if score.get("status") == "missing"]
    result: dict = {"benchmark": benchmark.name, "cap": cap, "n": len(scores),
                    "missing": {"count": len(missing), "case_ids": missing[:cap]}}
    sections = benchmark.failure_sections(scores, summary, cap)
    row_texts = sections.pop("prediction_texts", None)
    result.update(sections)
    result["diagnostics"] = _diagnostics(scores, summary, predictions, source_texts, row_texts, cap)
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
    if "syllables" in data:
        block = data["syllables"]
        lines += [f"### Syllable budget: {block['below_full_reward']} of {block['n']} below full reward "
                  "(largest deviations first)", ""]
        if block["cases"]:
            lines += ["| case_id | target | output | deviation | reason |", "|---|---:|---:|---:|---|"]
            lines += [f"| `{case['case_id']}` | {case['target']} | {case['output']} | {100 * case['dev']:+.0f}% "
                      f"| {_md(case['reason'])} |" for case in block["cases"]]
            lines.append("")
    for cid, slot in list(data.get("soft", {}).items()) + [("quality", data.get("quality"))]:
        if slot is None:
            continue
        kind = "Judge" if cid == "quality" else "soft"
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


def failures_markdown_text(scores: list[dict], summary: dict) -> str:
    """The failures section as text to append to report.md (both benchmarks; SPEC §11)."""
    return "\n".join(failures_markdown(failures(scores, summary))) + "\n"
