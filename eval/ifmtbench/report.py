"""report.md, report.html sections, the failures section and the console table of an IFMTBench run.

The failures section reads the score rows: per hard id the failing cases with the rule's one-line
reason (the glossary's Judge fallback named), per soft id the lowest scores and the Judge nulls,
the missing predictions and the wrapper diagnostics.
"""

from __future__ import annotations

import html

from eval.ifmtbench.labels import HARD, ID_KINDS
from eval.report import console_footer, fmt, headline_cell, judge_lines, missing_notice, run_lines

TITLE = "IFMTBench"
FAILURE_CAP = 20
GROUPS = (("by_label_combination", "label combination"), ("by_instruction_lang", "instruction language"),
          ("by_language_pair", "language pair"), ("by_source_lang", "source language"),
          ("by_target_lang", "target language"), ("by_data_format", "data_format (structured rows)"),
          ("by_constraint_count", "labels per row"))
HEADLINE_NAMES = ("if_score", "if_score_single", "if_score_multi", "composition_drop", "hard_pass_rate")


def _cell(text: object) -> str:
    """A Markdown table cell: one line, pipes and angle brackets escaped."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rate(entry: dict) -> str:
    if not entry.get("n"):
        return "-"
    return fmt(entry.get("pass_rate", entry.get("mean")))


def headline_lines(summary: dict) -> list[str]:
    lines = ["| metric | value [95% CI] | n |", "|---|---|---:|"]
    for name in HEADLINE_NAMES:
        metric = summary[name]
        n = metric.get("n", "")
        if name == "composition_drop":
            n = f"{metric['n_single']} single, {metric['n_multi']} multi"
        lines.append(f"| {name} | {headline_cell(metric)} | {n} |")
    return lines


def report_markdown(summary: dict) -> str:
    """report.md: status and signature, the headlines, per id (single vs multi), the breakdowns."""
    lines = [f"# {TITLE} evaluation report", ""] + run_lines(summary, "rows") + judge_lines(summary.get("judge"))
    lines += ["", *headline_lines(summary), "",
              "if_score is the mean over every row (a missing prediction scores 0); composition_drop is "
              "if_score_single − if_score_multi. Without the Judge only hard_pass_rate is measured.", ""]
    lines += ["## By constraint id", "", "| id | kind | n | pass rate / mean | single: n | single | multi: n | multi |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for cid, entry in summary["by_constraint"].items():
        lines.append(f"| {cid} | {entry['kind']} | {entry['n']} | {_rate(entry)} | {entry['single']['n']} "
                     f"| {_rate(entry['single'])} | {entry['multi']['n']} | {_rate(entry['multi'])} |")
    fallback, nulls = summary["glossary_fallback"], summary["judge_nulls"]
    lines += ["", f"- Glossary Judge fallback: the rule failed on {fallback['rule_failed']} present response(s); "
              f"the Judge passed {fallback['judge_passed']}, failed {fallback['judge_failed']}"
              + (f"; {fallback['skipped']} not asked (--skip-judge: counted as failures)" if fallback["skipped"] else ""),
              f"- Judge nulls (a labelled dimension the Judge found not requested; each scores 0): {nulls['count']}"
              + (" (" + ", ".join(f"{cid} {count}" for cid, count in nulls["by_id"].items()) + ")"
                 if nulls["count"] else "")]
    for key, title in GROUPS:
        lines += ["", f"## By {title}", "", f"| {title} | n | if_score | hard_pass_rate |", "|---|---:|---:|---:|"]
        for group, entry in summary[key].items():
            lines.append(f"| {_cell(group)} | {entry['n']} | {fmt(entry['if_score'])} | {fmt(entry['hard_pass_rate'])} |")
    return "\n".join(lines) + "\n"


def console_table(summary: dict) -> str:
    """The compact table printed at the end of a run."""
    rows = [(name, headline_cell(summary[name])) for name in HEADLINE_NAMES]
    rows += [(f"  {cid} ({entry['kind']}, n={entry['n']})", _rate(entry)) for cid, entry in summary["by_constraint"].items()]
    width = max(len(name) for name, _ in rows)
    out = [f"{name:<{width}}  {value}" for name, value in rows]
    missing, total = summary["predictions"]["missing"], summary["data"]["n_instances"]
    if missing:
        out.append(missing_notice(summary) or f"{missing} of {total} rows have no prediction (scored 0)")
    return "\n".join(out + console_footer(summary))


# ---------------------------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------------------------

def failure_reason(entry: dict) -> str:
    """One line saying why a hard label failed, read off its detail."""
    detail = entry.get("detail") or {}
    reason = str(detail.get("reason") or "no reason recorded")
    if reason.startswith("missing prediction"):
        return "missing prediction"
    fallback = detail.get("fallback")
    if fallback == "failed":
        reason += "; the Judge fallback said 0"
    elif fallback == "skipped":
        reason += "; Judge fallback not asked (--skip-judge)"
    return _cut(reason)


def soft_note(entry: dict) -> str:
    detail = entry.get("detail") or {}
    if str(detail.get("reason", "")).startswith("missing prediction"):
        return "missing prediction"
    if detail.get("judge_null"):
        return "Judge null: dimension not found in the instruction"
    reply = (detail.get("judge") or {}).get("reply")
    return _cut(f"reply: {reply}") if reply else ""


def failure_lists(scores: list[dict], cap: int = FAILURE_CAP) -> dict:
    """{hard: {id: {n, failed, cases}}, soft: {id: {n, judged, below_full, cases}}}: per hard id the
    failing rows with their reasons (data order), per soft id the lowest scores."""
    hard: dict[str, dict] = {}
    soft: dict[str, dict] = {}
    for score in scores:
        for entry in score["constraints"]:
            cid = entry["id"]
            if entry["kind"] == HARD:
                slot = hard.setdefault(cid, {"n": 0, "failed": 0, "cases": []})
                slot["n"] += 1
                if not entry["passed"]:
                    slot["failed"] += 1
                    if len(slot["cases"]) < cap:
                        slot["cases"].append({"case_id": score["case_id"], "reason": failure_reason(entry)})
            else:
                slot = soft.setdefault(cid, {"n": 0, "judged": True, "entries": []})
                slot["n"] += 1
                if entry["score"] is None:
                    slot["judged"] = False
                else:
                    slot["entries"].append((entry["score"], len(slot["entries"]), score["case_id"], soft_note(entry)))
    soft_result = {}
    for cid, slot in soft.items():
        below = sorted(item for item in slot["entries"] if item[0] < 1)
        soft_result[cid] = {"n": slot["n"], "judged": slot["judged"],
                            "below_full": len(below) if slot["judged"] else None,
                            "cases": [{"case_id": case_id, "score": value, "reason": note}
                                      for value, _, case_id, note in below[:cap]] if slot["judged"] else []}
    order = list(ID_KINDS)
    return {"hard": {cid: hard[cid] for cid in order if cid in hard},
            "soft": {cid: soft_result[cid] for cid in order if cid in soft_result}}


def failures(scores: list[dict], summary: dict | None = None, cap: int = FAILURE_CAP) -> dict:
    """The failure lists with the missing predictions and the wrapper diagnostics."""
    missing = [score["case_id"] for score in scores if score["status"] == "missing"]
    predictions = (summary or {}).get("predictions") or {}
    named = predictions.get("diagnostic_case_ids") or {}
    diagnostics = {name: {"count": count, "case_ids": list(named.get(name, []))[:cap]}
                   for name, count in (predictions.get("diagnostics") or {}).items()}
    return {"cap": cap, "n": len(scores), "missing": {"count": len(missing), "case_ids": missing[:cap]},
            **failure_lists(scores, cap), "diagnostics": diagnostics}


def failures_markdown(scores: list[dict], summary: dict) -> str:
    """The "Failures" section of report.md."""
    data = failures(scores, summary)
    lines = ["", "## Failures", "",
             f"The first {data['cap']} per list, in data order (soft: lowest first); scores.jsonl has every row and "
             "the full detail.", ""]
    if data["missing"]["count"]:
        lines += [f"- Missing predictions ({data['missing']['count']}): "
                  + ", ".join(f"`{cid}`" for cid in data["missing"]["case_ids"]), ""]
    for cid, slot in data["hard"].items():
        lines += [f"### {cid} (hard): {slot['failed']} of {slot['n']} failed", ""]
        if slot["cases"]:
            lines += ["| case_id | reason |", "|---|---|"]
            lines += [f"| `{case['case_id']}` | {_cell(case['reason'])} |" for case in slot["cases"]]
            lines.append("")
    for cid, slot in data["soft"].items():
        if not slot["judged"]:
            lines += [f"### {cid} (soft): not judged (--skip-judge)", ""]
            continue
        lines += [f"### {cid} (soft): {slot['below_full']} of {slot['n']} below 1", ""]
        if slot["cases"]:
            lines += ["| case_id | score | note |", "|---|---:|---|"]
            lines += [f"| `{case['case_id']}` | {case['score']:g} | {_cell(case['reason'])} |" for case in slot["cases"]]
            lines.append("")
    lines += ["### Prediction diagnostics (no effect on scores)", ""]
    for name, entry in data["diagnostics"].items():
        shown = ", ".join(f"`{cid}`" for cid in entry["case_ids"])
        lines.append(f"- {name.replace('_', ' ')}: {entry['count']}" + (f": {shown}" if shown else ""))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# report.html
# ---------------------------------------------------------------------------------------------

def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{_e(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_sections(summary: dict, scores: list[dict]) -> list[str]:
    """The IFMTBench body of report.html: headlines, single vs multi per id, breakdowns, failures."""
    parts = ["<h2>Headline numbers</h2>",
             _html_table(["metric", "value [95% CI]"],
                         [[_e(name), _e(headline_cell(summary[name]))] for name in HEADLINE_NAMES]),
             "<h2>By constraint id: single vs multi</h2>",
             _html_table(["id", "kind", "n", "all", "single", "multi"],
                         [[_e(cid), _e(entry["kind"]), _e(entry["n"]), _e(_rate(entry)),
                           _e(f"{_rate(entry['single'])} (n={entry['single']['n']})"),
                           _e(f"{_rate(entry['multi'])} (n={entry['multi']['n']})")]
                          for cid, entry in summary["by_constraint"].items()])]
    fallback, nulls = summary["glossary_fallback"], summary["judge_nulls"]
    parts.append(f"<p>Glossary Judge fallback: the rule failed on {_e(fallback['rule_failed'])} present responses; the "
                 f"Judge passed {_e(fallback['judge_passed'])}, failed {_e(fallback['judge_failed'])}, not asked "
                 f"{_e(fallback['skipped'])}. Judge nulls: {_e(nulls['count'])}.</p>")
    data = failures(scores, summary)
    parts.append('<h2 id="failures">Failures</h2>')
    if data["missing"]["count"]:
        parts.append(f"<p>Missing predictions ({_e(data['missing']['count'])}): "
                     + ", ".join(f"<code>{_e(cid)}</code>" for cid in data["missing"]["case_ids"]) + "</p>")
    for cid, slot in data["hard"].items():
        parts.append(f"<h3>{_e(cid)} (hard): {_e(slot['failed'])} of {_e(slot['n'])} failed</h3>")
        if slot["cases"]:
            parts.append(_html_table(["case_id", "reason"], [[f"<code>{_e(case['case_id'])}</code>", _e(case["reason"])]
                                                             for case in slot["cases"]]))
    for cid, slot in data["soft"].items():
        if not slot["judged"]:
            parts.append(f"<h3>{_e(cid)} (soft): not judged (--skip-judge)</h3>")
            continue
        parts.append(f"<h3>{_e(cid)} (soft): {_e(slot['below_full'])} of {_e(slot['n'])} below 1</h3>")
        if slot["cases"]:
            parts.append(_html_table(["case_id", "score", "note"],
                                     [[f"<code>{_e(case['case_id'])}</code>", _e(f"{case['score']:g}"), _e(case["reason"])]
                                      for case in slot["cases"]]))
    parts.append("<h2>Breakdowns</h2>")
    for key, title in GROUPS:
        parts.append(f"<h3>By {_e(title)}</h3>")
        parts.append(_html_table([title, "n", "if_score", "hard_pass_rate"],
                                 [[_e(group), _e(entry["n"]), _e(fmt(entry["if_score"])), _e(fmt(entry["hard_pass_rate"]))]
                                  for group, entry in summary[key].items()]))
    return parts
