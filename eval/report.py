"""report.md and the console table of an InstTrans-Bench run, and the pieces both benchmarks'
reports share (number cells, the run's status and the missing-predictions notice)."""

from __future__ import annotations

from eval.system_meta import system_report_lines


def fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def headline_cell(metric: dict) -> str:
    if metric["value"] is None:
        return "n/a"
    low, high = metric["ci95"]
    return f"{metric['value']:.4f} [{low:.4f}, {high:.4f}]"


def run_status(summary: dict) -> str:
    return "formal" if summary["formal"] else "NOT formal: " + "; ".join(summary["non_formal_reasons"])


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


def console_footer(summary: dict) -> list[str]:
    """The last lines of the console table: formality and signature."""
    out = [f"warning: {warning}" for warning in (summary.get("system") or {}).get("warnings") or []]
    out.append("formal run" if summary["formal"] else "NOT a formal run: " + "; ".join(summary["non_formal_reasons"]))
    out.append(f"signature: {summary['signature']}")
    return out


def report_markdown(summary: dict) -> str:
    """report.md: headline numbers, the run's status and signature, and the breakdown tables."""
    lines = ["# InstTrans-Bench evaluation report", ""] + run_lines(summary, "instances")
    lines += judge_lines(summary.get("judge"))
    lines.append("")
    lines += ["| metric | value [95% CI] |", "|---|---|"]
    for name in ("if_score", "quality", "hard_pass_rate", "hard_pass_rate_strict"):
        if name in summary:
            lines.append(f"| {name} | {headline_cell(summary[name])} |")
    lines += ["", "## By constraint", "", "| constraint | kind | n | pass rate / mean | strict pass rate |",
              "|---|---|---:|---:|---:|"]
    for cid, entry in summary["by_constraint"].items():
        value = entry.get("pass_rate", entry.get("mean"))
        strict = fmt(entry["pass_rate_strict"]) if "pass_rate_strict" in entry else ""
        lines.append(f"| {cid} | {entry['kind']} | {entry['n']} | {fmt(value)} | {strict} |")
    for key, title in (("by_scenario", "scenario"), ("by_domain", "domain"), ("by_language_pair", "language pair"),
                       ("by_target_lang", "target language"), ("by_constraint_count", "constraints per instance")):
        lines += ["", f"## By {title}", "", f"| {title} | n | if_score | quality | hard_pass_rate |",
                  "|---|---:|---:|---:|---:|"]
        for group, entry in summary[key].items():
            lines.append(f"| {group} | {entry['n']} | {fmt(entry['if_score'])} | {fmt(entry['quality'])} "
                         f"| {fmt(entry['hard_pass_rate'])} |")
    return "\n".join(lines) + "\n"


def console_table(summary: dict) -> str:
    """The compact table printed at the end of a run."""
    rows = [("if_score", headline_cell(summary["if_score"])), ("quality", headline_cell(summary["quality"])),
            ("hard_pass_rate", headline_cell(summary["hard_pass_rate"]))]
    if "hard_pass_rate_strict" in summary:
        rows.append(("hard_pass_rate_strict", headline_cell(summary["hard_pass_rate_strict"])))
    rows += [(f"  {cid} ({entry['kind']}, n={entry['n']})", fmt(entry.get("pass_rate", entry.get("mean")))
              + (f"  strict {fmt(entry['pass_rate_strict'])}" if "pass_rate_strict" in entry else ""))
             for cid, entry in summary["by_constraint"].items()]
    width = max(len(name) for name, _ in rows)
    out = [f"{name:<{width}}  {value}" for name, value in rows]
    missing, total = summary["predictions"]["missing"], summary["data"]["n_instances"]
    if missing:
        out.append(missing_notice(summary) or f"{missing} of {total} instances have no prediction (scored 0)")
    return "\n".join(out + console_footer(summary))
