"""The report's failures section (SPEC §11): which instances failed, and why, in one line each.

scores.jsonl stays the complete record; this is the readable view of it: per hard constraint the
count and the first failing case_ids (data order) with a reason drawn from the rule's `detail`,
per soft constraint (and quality) the lowest scores, the missing predictions, and the wrapper
diagnostics with their case_ids. Sandglass runs get the largest syllable misses instead of
constraints.
"""

from __future__ import annotations

import json

from eval.insttrans.rules import CONSTRAINT_KINDS
from eval.predictions import DIAGNOSTICS, wrapper_diagnostics

FAILURE_CAP = 20
_REASON_LIMIT = 160


def _listed(items, limit: int = 4) -> str:
    items = [str(item) for item in items]
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def _cut(text: str, limit: int = _REASON_LIMIT) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fallback(detail: dict) -> str:
    """A detail this module does not know (a new rule set): its most telling field, or the JSON."""
    for key in ("reason", "error", "missing", "lost", "failed"):
        if detail.get(key):
            value = detail[key]
            return f"{key}: {_listed(value) if isinstance(value, list) else value}"
    return json.dumps(detail, ensure_ascii=False, separators=(",", ":"))


def _not_json(error: str, starts: str | None) -> str:
    """`prediction is not JSON: Expecting value ...` as `not JSON (Expecting value ...)`."""
    cause = error.removeprefix("prediction is not JSON: ")
    text = f"not JSON ({cause})" if cause != error else error
    return text + (f", prediction starts {starts!r}" if starts else "")


def _json_part(part: dict) -> str:
    if part.get("error"):
        return "JSON: " + _not_json(part["error"], part.get("prediction_starts"))
    pieces = []
    if part.get("missing_paths"):
        pieces.append(f"missing key {_listed(part['missing_paths'])}"
                      + (f" ({part['n_missing']} in all)" if part.get("n_missing", 0) > len(part["missing_paths"]) else ""))
    if part.get("extra_paths"):
        pieces.append(f"extra key {_listed(part['extra_paths'])}")
    return "JSON: " + ("; ".join(pieces) or "key paths differ")


def _html_part(part: dict) -> str:
    pieces = []
    if part.get("missing_tags"):
        pieces.append(f"lost tag {_listed(part['missing_tags'])}")
    if part.get("extra_tags"):
        pieces.append(f"extra tag {_listed(part['extra_tags'])}")
    difference = part.get("first_difference") or {}
    if difference and not pieces:
        pieces.append(f"tag #{difference.get('index', 0) + 1} is {difference.get('prediction')!s}, "
                      f"source has {difference.get('source')!s} (order changed)")
    if part.get("untranslated_chinese"):
        pieces.append(f"untranslated Chinese left ({part.get('cjk_chars')} ideographs, "
                      f"{100 * part.get('cjk_share', 0):.1f}% of the text)")
    return "HTML: " + ("; ".join(pieces) or "tags differ")


def _markdown_part(part: dict) -> str:
    return "Markdown: lost " + _listed(part.get("lost") or ["a feature"], limit=6)


def _placeholder_part(part: dict) -> str:
    return "placeholder not kept: " + _listed(part.get("missing") or ["?"])


_FORMAT_PARTS = {"json": _json_part, "html": _html_part, "markdown": _markdown_part, "placeholders": _placeholder_part}


def _format_preserve(detail: dict) -> str:
    failed = detail.get("failed")
    if not failed:
        return _fallback(detail)
    reasons = []
    for name in failed:
        part = detail.get(name)
        reasons.append(_FORMAT_PARTS[name](part) if name in _FORMAT_PARTS and isinstance(part, dict)
                       else f"{name}: {_fallback(part) if isinstance(part, dict) else 'failed'}")
    return "; ".join(reasons)


def _syllable_order(detail: dict) -> str:
    if detail.get("error"):
        return _not_json(detail["error"], detail.get("prediction_starts"))
    if "concordance" in detail:
        counts = ",".join(str(count) for count in detail.get("counts", []))
        durations = ",".join(f"{value:g}" for value in detail.get("durations", []))
        return (f"concordance {detail['concordance']:.2f} < 0.9: {detail.get('inversions')} of "
                f"{detail.get('comparable')} pairs inverted (syllables {counts} for durations {durations} s)")
    return _fallback(detail)


def _term_compliance(detail: dict) -> str:
    if detail.get("missing"):
        return "term not found: " + _listed(detail["missing"])
    return _fallback(detail)


def _social_preserve(detail: dict) -> str:
    if detail.get("missing"):
        return "social element missing: " + _listed(detail["missing"])
    return _fallback(detail)


def _layout_break(detail: dict) -> str:
    pieces = []
    for feature in detail.get("failed") or []:
        counts = detail.get(feature)
        if feature == "newlines" and isinstance(counts, dict):
            pieces.append(f"{counts['source']} line breaks in the source, {counts['prediction']} in the prediction")
        elif feature == "indent" and isinstance(counts, dict):
            pieces.append("the source starts with whitespace and the prediction does not" if counts["source"]
                          else "the prediction starts with whitespace and the source does not")
        elif feature == "table":
            pieces.append("the source's table (a line with two |) is gone")
        else:
            pieces.append(f"{feature} differs")
    return "; ".join(pieces) or _fallback(detail)


_HARD_REASONS = {"format_preserve": _format_preserve, "syllable_order": _syllable_order,
                 "term_compliance": _term_compliance, "social_preserve": _social_preserve,
                 "layout_break": _layout_break}


def failure_reason(constraint_id: str, detail: dict | None) -> str:
    """One line saying why a hard rule failed, read off its `detail` (SPEC §7)."""
    if not isinstance(detail, dict) or not detail:
        return "no detail recorded"
    if str(detail.get("reason", "")).startswith("missing prediction"):
        return "missing prediction"
    reader = _HARD_REASONS.get(constraint_id, _fallback)
    try:
        return _cut(reader(detail))
    except (KeyError, TypeError, ValueError, AttributeError):  # a detail shaped differently: show it raw
        return _cut(_fallback(detail))


def judge_note(detail: dict | None) -> str:
    """What a Judge score's detail says beyond the placeholder: the raw reply when it carries one."""
    if not isinstance(detail, dict):
        return ""
    if str(detail.get("reason", "")).startswith("missing prediction"):
        return "missing prediction"
    for key in ("reply", "raw_reply", "raw", "response", "text"):
        if isinstance(detail.get(key), str) and detail[key].strip():
            return _cut(f"reply: {detail[key]}")
    return ""


# ---------------------------------------------------------------------------------------------
# The section's data
# ---------------------------------------------------------------------------------------------

def _diagnostics(scores: list[dict], summary: dict | None, predictions: dict | None,
                 source_texts: dict | None, cap: int) -> dict:
    """{name: {count, case_ids}}: from the predictions when given, else from the summary's
    `diagnostic_case_ids`, else (Sandglass) from the rows' own prediction text."""
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
    elif scores and "hyp" in scores[0]:
        named = {name: [] for name in DIAGNOSTICS}
        for score in scores:
            if score.get("hyp") and score["hyp"].strip():
                for name, present in wrapper_diagnostics(score["hyp"]).items():
                    if present:
                        named[name].append(score["case_id"])
    counts = (summary or {}).get("predictions", {}).get("diagnostics", {})
    result = {}
    for name in DIAGNOSTICS:
        ids = None if named is None else list(named.get(name, []))
        count = len(ids) if ids is not None else counts.get(name, 0)
        result[name] = {"count": count, "case_ids": None if ids is None else ids[:cap]}
    return result


def _lowest(entries: list[tuple[str, float, str]], cap: int) -> list[dict]:
    """Scores below 1, lowest first, ties in data order."""
    below = [(score, position, case_id, note) for position, (case_id, score, note) in enumerate(entries) if score < 1]
    below.sort(key=lambda item: (item[0], item[1]))
    return [{"case_id": case_id, "score": score, "reason": note} for score, _, case_id, note in below[:cap]]


def failures(scores: list[dict], summary: dict | None = None, predictions: dict | None = None,
             source_texts: dict | None = None, cap: int = FAILURE_CAP) -> dict:
    """The failures section of a run (SPEC §11), from its score rows.

    `predictions` ({case_id: text}) and `source_texts` give the diagnostics directly; without
    them they come from `summary["predictions"]["diagnostic_case_ids"]` (or, for Sandglass, from
    the rows' `hyp`). Lists are capped at `cap`, in data order (soft: lowest score first).
    """
    missing = [score["case_id"] for score in scores if score.get("status") == "missing"]
    result: dict = {"benchmark": "sandglass" if scores and "hyp" in scores[0] else "insttrans", "cap": cap,
                    "n": len(scores), "missing": {"count": len(missing), "case_ids": missing[:cap]}}
    if result["benchmark"] == "sandglass":
        result.update(_sandglass_failures(scores, cap))
    else:
        result.update(_insttrans_failures(scores, cap))
    result["diagnostics"] = _diagnostics(scores, summary, predictions, source_texts, cap)
    return result


def _insttrans_failures(scores: list[dict], cap: int) -> dict:
    hard: dict[str, dict] = {}
    soft: dict[str, list] = {}
    soft_n: dict[str, int] = {}
    quality: list[tuple[str, float, str]] = []
    quality_known = True
    for score in scores:
        for entry in score["constraints"]:
            if entry["kind"] == "hard":
                slot = hard.setdefault(entry["id"], {"n": 0, "failed": 0, "cases": []})
                slot["n"] += 1
                if not entry["passed"]:
                    slot["failed"] += 1
                    if len(slot["cases"]) < cap:
                        slot["cases"].append({"case_id": score["case_id"],
                                              "reason": failure_reason(entry["id"], entry.get("detail"))})
            else:
                soft_n[entry["id"]] = soft_n.get(entry["id"], 0) + 1
                if entry.get("score") is None:
                    soft.setdefault(entry["id"], None)
                elif entry["id"] not in soft or soft[entry["id"]] is not None:
                    soft.setdefault(entry["id"], []).append(
                        (score["case_id"], float(entry["score"]), judge_note(entry.get("detail"))))
        if score.get("quality") is None:
            quality_known = False
        else:
            quality.append((score["case_id"], float(score["quality"]),
                            "missing prediction" if score.get("status") == "missing"
                            else judge_note(score.get("quality_detail"))))
    soft_result = {}
    for cid, entries in soft.items():
        if entries is None:
            soft_result[cid] = {"n": soft_n[cid], "judged": False, "below_full": None, "cases": []}
        else:
            soft_result[cid] = {"n": soft_n[cid], "judged": True, "below_full": sum(s < 1 for _, s, _ in entries),
                                "cases": _lowest(entries, cap)}
    quality_result = ({"n": len(scores), "judged": True, "below_full": sum(s < 1 for _, s, _ in quality),
                       "cases": _lowest(quality, cap)} if quality_known and scores
                      else {"n": len(scores), "judged": False, "below_full": None, "cases": []})
    order = list(CONSTRAINT_KINDS)
    rank = lambda cid: order.index(cid) if cid in order else len(order)  # noqa: E731
    return {"hard": {cid: hard[cid] for cid in sorted(hard, key=rank)},
            "soft": {cid: soft_result[cid] for cid in sorted(soft_result, key=rank)}, "quality": quality_result}


def _sandglass_failures(items: list[dict], cap: int) -> dict:
    """The largest syllable misses (by exact deviation) and the lowest quality scores."""
    ranked = sorted(enumerate(items), key=lambda pair: (-pair[1]["abs_diff"] / pair[1]["target_syllables"], pair[0]))
    misses = []
    for _, item in ranked:
        if item["syllable_reward"] >= 1:
            break
        if len(misses) == cap:
            break
        dev = (item["hyp_syllables"] - item["target_syllables"]) / item["target_syllables"]
        reason = ("missing prediction" if item["status"] == "missing" else
                  f"{item['target_language']} {item['target_kind']}: {_cut(item['hyp'] or '', 80)}")
        misses.append({"case_id": item["case_id"], "target": item["target_syllables"],
                       "output": item["hyp_syllables"], "dev": round(dev, 4), "reward": item["syllable_reward"],
                       "reason": reason})
    known = bool(items) and all(item["quality"] is not None for item in items)
    quality = ({"n": len(items), "judged": True, "below_full": sum(item["quality"] < 1 for item in items),
                "cases": _lowest([(item["case_id"], float(item["quality"]),
                                   "missing prediction" if item["status"] == "missing" else _cut(item["hyp"] or "", 60))
                                  for item in items], cap)}
               if known else {"n": len(items), "judged": False, "below_full": None, "cases": []})
    return {"syllables": {"n": len(items), "below_full_reward": sum(item["syllable_reward"] < 1 for item in items),
                          "cases": misses},
            "quality": quality}


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
