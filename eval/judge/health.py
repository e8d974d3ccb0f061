"""Judge health (docs/judge.md#judge-health): is the Judge telling items apart at all?

A small local Judge can answer the same label, or the same reply text, to nearly every prompt;
its verdicts are then valid one by one and worthless together. This module reads a run's
verdicts and raw replies (nothing else: it never changes a verdict) and gives the summary's
`judge.health` block, the warnings it implies, and their lines for the console and the reports.
"""

from __future__ import annotations

import html
import json
from collections import Counter

# One label for nearly every item: a field's non-null labels, when there are at least
# LABEL_MIN_ITEMS of them, are LABEL_SHARE or more one value.
LABEL_MIN_ITEMS = 20
LABEL_SHARE = 0.9
# One reply text for many prompts: of at least REPLY_MIN_PROMPTS replies of one prompt kind,
# REPLY_SHARE or more are the same text (stripped). Kinds whose verdict is one field are left to the
# label check: their bare replies ({"quality": 1}) have a handful of possible texts.
REPLY_MIN_PROMPTS = 10
REPLY_SHARE = 0.5
TOP_LABELS = 8  # labels listed per field (the rest are summed as "other")


def label(value: object) -> str:
    """A verdict value as one short label: JSON for numbers, strings, booleans and null."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text[:40]


def _fields(verdict: dict) -> dict[str, list[object]]:
    """A verdict's fields and their values: a field holding an object (soft scores by id) pools the
    object's values under the field's name."""
    fields: dict[str, list[object]] = {}
    for name, value in verdict.items():
        fields[str(name)] = list(value.values()) if isinstance(value, dict) else [value]
    return fields


# Full marks for answers that are no translation: of at least UNTRANSLATED_MIN judged answers that
# the output diagnostics flag as untranslated (UNTRANSLATED_DIAGNOSTICS), UNTRANSLATED_SHARE or
# more got the field's highest label of the run.
UNTRANSLATED_DIAGNOSTICS = ("source_script", "echoes_source", "wrong_target_script")
UNTRANSLATED_MIN = 3
UNTRANSLATED_SHARE = 0.5


def untranslated_ids(summary: dict) -> set[str]:
    """The case_ids the summary's output diagnostics flag as not translated."""
    named = (summary.get("predictions") or {}).get("diagnostic_case_ids") or {}
    return {case_id for name in UNTRANSLATED_DIAGNOSTICS for case_id in named.get(name) or ()}


def judge_health(verdicts: dict, replies: dict | None, rows: int, untranslated: set[str] = frozenset()) -> dict:
    """The `judge.health` block: per prompt kind the prompts asked (and their share of the `rows`
    scored: a fallback's share), repaired replies, each field's label counts and null share, the
    most repeated reply text's count, and the labels given to `untranslated` answers; and
    `warnings`, one line each. Deterministic: kinds and labels in sorted order, ties to the
    smaller label."""
    replies = replies or {}
    kinds: dict[str, dict] = {}
    for (case_id, name), verdict in sorted(verdicts.items(), key=lambda item: (str(item[0][1]), str(item[0][0]))):
        kind = kinds.setdefault(str(name), {"prompts": 0, "repaired": 0, "fields": {}, "_texts": Counter(),
                                            "_one_field": True})
        kind["prompts"] += 1
        reply = replies.get((case_id, name)) or {}
        kind["repaired"] += bool(reply.get("repaired"))
        if isinstance(reply.get("reply"), str):
            kind["_texts"][reply["reply"].strip()] += 1
        if not isinstance(verdict, dict):
            continue
        fields = _fields(verdict)
        kind["_one_field"] &= len(fields) == 1 and all(len(values) == 1 for values in fields.values())
        for field_name, values in fields.items():
            counts = kind["fields"].setdefault(field_name, Counter())
            counts.update(label(value) for value in values)
            if case_id in untranslated:
                kind.setdefault("_untranslated", {}).setdefault(field_name, Counter()).update(
                    label(value) for value in values)
    block: dict = {"kinds": {}, "warnings": []}
    for name, kind in sorted(kinds.items()):
        texts: Counter = kind.pop("_texts")
        one_field = kind.pop("_one_field")
        flagged: dict[str, Counter] = kind.pop("_untranslated", {})
        top_reply = max(texts.values(), default=0)
        entry = {"prompts": kind["prompts"], "share_of_rows": round(kind["prompts"] / rows, 4) if rows else 0.0,
                 "repaired": kind["repaired"], "replies": sum(texts.values()), "distinct_replies": len(texts),
                 "top_reply_count": top_reply, "fields": {}}
        for field_name, counts in sorted(kind["fields"].items()):
            total = sum(counts.values())
            nulls = counts.get("null", 0)
            ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
            labels = dict(ordered[:TOP_LABELS])
            if len(ordered) > TOP_LABELS:
                labels["other"] = sum(count for _, count in ordered[TOP_LABELS:])
            entry["fields"][field_name] = {"n": total, "labels": labels,
                                           "null_share": round(nulls / total, 4) if total else 0.0}
            if field_name in flagged:
                given = flagged[field_name]
                entry["fields"][field_name]["untranslated"] = dict(sorted(given.items(), key=lambda item: (-item[1], item[0])))
                top = _highest(counts)
                n_flagged = sum(count for value, count in given.items() if value != "null")
                if top is not None and n_flagged >= UNTRANSLATED_MIN and given.get(top, 0) >= UNTRANSLATED_SHARE * n_flagged:
                    block["warnings"].append(
                        f"the Judge gave {field_name} = {top} (the run's highest) to {given[top]} of {n_flagged} {name} "
                        f"answers that are not translated (source copied or another script; threshold "
                        f"{UNTRANSLATED_SHARE:.0%} of at least {UNTRANSLATED_MIN})")
            labelled = [(value, count) for value, count in ordered if value != "null"]
            n_labelled = total - nulls
            if labelled and n_labelled >= LABEL_MIN_ITEMS and labelled[0][1] >= LABEL_SHARE * n_labelled:
                block["warnings"].append(
                    f"the Judge answered {field_name} = {labelled[0][0]} to {labelled[0][1]} of {n_labelled} "
                    f"{name} verdicts (threshold {LABEL_SHARE:.0%} of at least {LABEL_MIN_ITEMS})")
        replies_n = entry["replies"]
        if (not one_field and replies_n >= REPLY_MIN_PROMPTS and top_reply >= REPLY_SHARE * replies_n):
            block["warnings"].append(
                f"the Judge gave one reply text to {top_reply} of {replies_n} {name} prompts "
                f"(threshold {REPLY_SHARE:.0%} of at least {REPLY_MIN_PROMPTS})")
        block["kinds"][name] = entry
    return block


def _highest(counts: Counter) -> str | None:
    """The highest numeric label among `counts` (None when no label is a number)."""
    numbers = []
    for value in counts:
        try:
            number = float(value)
        except ValueError:
            continue
        numbers.append((number, value))
    return max(numbers)[1] if numbers else None


WARNING_PREFIX = "warning: Judge looks degenerate: "
ADVICE = ("read its verdicts before trusting the scores (a strong system can earn one label honestly); "
          "docs/judge.md#judge-health")


def health_warnings(summary: dict) -> list[str]:
    """The degenerate-Judge warnings of a summary (none for a run without a Judge or an older run)."""
    judge = summary.get("judge") or {}
    return list((judge.get("health") or {}).get("warnings") or [])


def console_lines(summary: dict) -> list[str]:
    """One console line per warning, and the advice once."""
    warnings = health_warnings(summary)
    return [WARNING_PREFIX + line for line in warnings] + ([f"  {ADVICE}"] if warnings else [])


def _distribution(entry: dict) -> str:
    return "; ".join(f"{field_name}: " + ", ".join(f"{value} ×{count}" for value, count in data["labels"].items())
                     + (f" (null {data['null_share']:.0%})" if data["null_share"] else "")
                     for field_name, data in entry["fields"].items())


def health_markdown(summary: dict) -> str:
    """report.md's "Judge health" section (empty for a run without a Judge)."""
    health = (summary.get("judge") or {}).get("health")
    if not health:
        return ""
    lines = ["", "## Judge health", ""]
    lines += [f"- **Warning: the Judge looks degenerate**: {line}" for line in health["warnings"]]
    if health["warnings"]:
        lines += [f"- {ADVICE[0].upper()}{ADVICE[1:]}"]
    for name, entry in health["kinds"].items():
        lines.append(f"- {name}: {entry['prompts']} prompts ({entry['share_of_rows']:.0%} of rows), "
                     f"{entry['repaired']} repaired, {entry['distinct_replies']} distinct replies "
                     f"(most repeated ×{entry['top_reply_count']}); {_distribution(entry)}")
    return "\n".join(lines) + "\n"


def health_html(summary: dict) -> str:
    """report.html's "Judge health" section (empty for a run without a Judge)."""
    health = (summary.get("judge") or {}).get("health")
    if not health:
        return ""
    parts = ['<section id="judge-health"><h2>Judge health</h2>']
    if health["warnings"]:
        parts.append('<ul class="warnings">' + "".join(
            f"<li><strong>Warning: the Judge looks degenerate</strong>: {html.escape(line)}</li>"
            for line in health["warnings"]) + f"<li>{html.escape(ADVICE)}</li></ul>")
    parts.append("<table><thead><tr><th>prompt</th><th>prompts</th><th>share of rows</th><th>repaired</th>"
                 "<th>distinct replies</th><th>most repeated</th><th>verdicts</th></tr></thead><tbody>")
    for name, entry in health["kinds"].items():
        parts.append(f"<tr><td>{html.escape(name)}</td><td>{entry['prompts']}</td><td>{entry['share_of_rows']:.0%}</td>"
                     f"<td>{entry['repaired']}</td><td>{entry['distinct_replies']}</td>"
                     f"<td>{entry['top_reply_count']}</td><td>{html.escape(_distribution(entry))}</td></tr>")
    parts.append("</tbody></table></section>")
    return "".join(parts)
