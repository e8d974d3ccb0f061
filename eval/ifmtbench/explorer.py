"""One IFMTBench row as the explorer shows it (docs/explorer.md): its labels, single or multi,
instruction language and language pair as facets, each label's verdict with its one-line reason,
and the Judge's replies (the rubric and the glossary fallback).

`row` is None where only scores.jsonl is at hand (the compare page); everything but the texts
comes from the score row.
"""

from __future__ import annotations

from eval.ifmtbench.report import failure_reason, soft_note
from eval.scoring.score_rows import ConstraintResult, Fallback, ScoreRow


def _check(entry: ConstraintResult, missing: bool) -> dict:
    if entry.hard:
        verdict = "pass" if entry.passed else "fail"
        if entry.fallback in (Fallback.PASSED, Fallback.FAILED):
            verdict += " (Judge fallback)"
        return {"name": entry.id, "kind": "hard", "verdict": verdict, "passed": bool(entry.passed),
                "value": bool(entry.passed),  # what the compare page compares: the verdict, not its method
                "explanation": "" if entry.passed and not entry.fallback else failure_reason(entry, missing)}
    score = entry.score
    return {"name": entry.id, "kind": "soft (Judge 0-5)", "passed": None if score is None else score >= 1,
            "value": score,
            "verdict": "not judged" if score is None else f"{score:g}", "explanation": soft_note(entry, missing)}


def _replies(score: ScoreRow) -> list[tuple[str, str]]:
    """Each Judge reply the row's details carry, once per prompt kind (style and background share one)."""
    seen, out = set(), []
    for entry in score.constraints:
        judge = entry.detail.get("judge") or {}
        kind = "glossary fallback" if entry.id == "glossary" else "style and background"
        if judge.get("reply") and kind not in seen:
            seen.add(kind)
            out.append((f"{kind} reply" + (" (repaired)" if judge.get("repaired") else ""), judge["reply"]))
    return out


def explorer_view(row: dict | None, score: ScoreRow) -> dict:
    """The row's facets, sortable numbers, texts, checks and Judge replies."""
    ids = list(score["constraint_ids"])
    missing = score.missing
    checks = [_check(entry, missing) for entry in score.constraints]
    failed = [check["name"] for check in checks if check["passed"] is False]
    pair = f"{score.get('source_lang') or '-'}-{score.get('target_lang') or '-'}"
    facets = {
        "outcome": "missing" if missing else ("hard pass" if score["hard_pass"] else "hard fail"),
        "label": ids,
        "failed": failed or ["none"],
        "label combination": "+".join(sorted(ids)),
        "rows": "multi" if score["multi"] else "single",
        "instruction language": score.get("instruction_lang") or "-",
        "language pair": pair,
        "data_format": score.get("data_format") or "-",
    }
    texts = []
    if row is not None:
        texts = [{"label": "source (origin_text)", "text": row["origin_text"], "lang": row.get("origin_language", "")},
                 {"label": "reference (output)", "text": row["output"], "lang": row.get("target_language", "")},
                 {"label": "model input (the whole prompt)", "text": row["input"], "folded": True,
                  "lang": row.get("instruction_lang", "")}]
    summary = " · ".join([pair, facets["rows"], facets["outcome"]] + [f"✗ {cid}" for cid in failed]
                         + ([f"if {score['if_score']:.2f}"] if score.get("if_score") is not None else []))
    return {"facets": facets, "summary": summary, "texts": texts, "checks": checks, "judge": _replies(score),
            "numbers": {"if_score": score.get("if_score"), "soft_mean": score.get("soft_mean"),
                        "hard_pass": int(score["hard_pass"]), "labels": len(ids)},
            "prediction": None, "prediction_lang": score.get("target_lang") or "",
            "show_whitespace": any(entry.id == "layout" and entry.passed is False for entry in score.constraints)}
