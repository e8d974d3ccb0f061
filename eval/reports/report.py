"""The frame every benchmark's report.md and console table share: number cells, the run's status,
signature, data and predictions, the Judge's bullet, the missing-predictions notice and the
footer. Each benchmark writes its own sections around them (`Benchmark.report_markdown`)."""

from __future__ import annotations

from eval.inputs.system_meta import system_report_lines


def fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def headline_cell(metric: dict) -> str:
    if metric["value"] is None:
        return "n/a"
    low, high = metric["ci95"]
    return f"{metric['value']:.4f} [{low:.4f}, {high:.4f}]"


def headline_rows(summary: dict, metrics: tuple) -> list[tuple[str, str]]:
    """(name, value [interval]) of each headline metric (`Benchmark.headline_metrics`, eval/benchmark.py
    `Metric`s: named here only, so that the report frame stays below the record), in order."""
    return [(metric.name, headline_cell(summary[metric.name])) for metric in metrics]


def judge_badge(summary: dict) -> str:
    """` (Judge: MODEL @ HOST)` beside the run's status, so a formal run names who judged it at a
    glance (a stand-in on 127.0.0.1 is formal too, but not the same number); empty when skipped."""
    judge = summary.get("judge")
    return f" (Judge: {judge['model']} @ {judge['host']})" if judge else ""


def stand_in_note(summary: dict) -> str:
    """` — stand-in Judge: …; stand-in model: …: the numbers mean nothing` when the Judge's replies or
    the model's (predictions.meta.json) carried an x-stand-in header; empty otherwise."""
    judge = summary.get("judge") or {}
    engine = (summary.get("system") or {}).get("engine") or {}
    parts = [f"stand-in {who}: {said}" for who, said in (("Judge", judge.get("stand_in")),
                                                         ("model", engine.get("header.x-stand-in"))) if said]
    return " — " + "; ".join(parts) + ": the numbers mean nothing" if parts else ""


def run_status(summary: dict) -> str:
    status = "formal" if summary["formal"] else "NOT formal: " + "; ".join(summary["non_formal_reasons"])
    return (status + judge_badge(summary) if summary["formal"] else status) + stand_in_note(summary)


def missing_notice(summary: dict) -> str | None:
    """One prominent line when more than half of the instances have no prediction (SPEC §6)."""
    missing, total = summary["predictions"]["missing"], summary["data"]["n_instances"]
    if 2 * missing <= total:
        return None
    return (f"WARNING: {missing} of {total} instances have no prediction and score 0; "
            "to score only the instances you predicted, pass --case-ids FILE (never formal)")


def run_lines(summary: dict, unit: str) -> list[str]:
    """The report's opening bullets: status, signature, data and predictions."""
    data, predictions = summary["data"], summary["predictions"]
    lines = [f"- Run: {run_status(summary)}", f"- Signature: `{summary['signature']}`",
             f"- Data: {data['source']} ({data['n_instances']} {unit}, sha256 {data['sha256'][:12]}, "
             f"known as: {data.get('known_as') or 'not a known data set'}"
             + (f", {len(data['warnings'])} data warnings" if data.get("warnings") else "") + ")",
             f"- Predictions: {predictions['path']} ({predictions['rows']} lines, "
             f"{predictions['missing']} {unit} missing)"]
    if summary.get("scorer_version"):  # SPEC §7c
        lines.insert(2, f"- Rules: the official scorer's, scorer version {summary['scorer_version']}")
    lines += system_report_lines(summary.get("system"))
    notice = missing_notice(summary)
    return ([f"**{notice}**", ""] if notice else []) + lines


def judge_lines(judge: dict | None) -> list[str]:
    """The Judge bullet of a report: who judged, what it cost (tokens per prompt kind)."""
    if not judge:
        return ["- Judge: skipped"]
    lines = [f"- Judge: {judge['model']} ({judge['endpoint_kind']}) at {judge['host']}; "
             f"{judge['calls']} calls, {judge['cache_hits']} cache hits"]
    for kind, usage in (judge.get("usage") or {}).items():
        lines.append(f"  - {kind} prompt: {usage.get('replies', 0)} replies, {usage.get('input_tokens', 0):,} input + "
                     f"{usage.get('output_tokens', 0):,} output = {usage.get('total_tokens', 0):,} tokens "
                     "(cache hits not counted)")
    for kind, count in (judge.get("repairs") or {}).items():  # SPEC §10: verdicts valid only after a repair turn
        lines.append(f"  - {kind} prompt: {count} verdict(s) repaired (valid after one repair turn; marked "
                     "`repaired` in the score's detail)")
    return lines


INTERVAL_LEGEND = "[low, high]: the 95% bootstrap interval"


def console_text(rows: list[tuple[str, str]], summary: dict, unit: str, notes: list[str] = ()) -> str:
    """A console table of (name, value) rows, aligned, then what the intervals are, how many `unit`
    have no prediction, the benchmark's `notes` and the footer."""
    width = max(len(name) for name, _ in rows)
    out = [f"{name:<{width}}  {value}" for name, value in rows]
    if any("[" in value for _, value in rows):
        out.append(INTERVAL_LEGEND)
    return "\n".join(out + [missing_line(summary, unit)] + list(notes) + console_footer(summary))


def missing_line(summary: dict, unit: str) -> str:
    """How many `unit` have no prediction, said also when none is missing (a reader checks for it)."""
    missing, total = summary["predictions"]["missing"], summary["data"]["n_instances"]
    return missing_notice(summary) or f"{missing} of {total} {unit} have no prediction" + (" (scored 0)" if missing else "")


def console_footer(summary: dict) -> list[str]:
    """The last lines of the console table: formality and signature."""
    system = summary.get("system")
    out = [system_report_lines(system)[0].removeprefix("- ")] if system and system.get("model") else []
    out += [f"warning: {warning}" for warning in (system or {}).get("warnings") or []]
    out.append(("formal run" + judge_badge(summary) if summary["formal"]
                else "NOT a formal run: " + "; ".join(summary["non_formal_reasons"])) + stand_in_note(summary))
    out.append(f"signature: {summary['signature']}")
    return out
