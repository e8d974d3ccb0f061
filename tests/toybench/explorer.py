"""One Toy-Bench row as explorer.html and the compare page show it (docs/explorer.md)."""

from __future__ import annotations


def explorer_view(row: dict | None, score: dict) -> dict:
    adequacy = score.get("adequacy")
    checks = [{"name": check.id, "kind": "hard", "verdict": "pass" if check.passed else "fail",
               "passed": check.passed, "explanation": check.detail["reason"]} for check in score.constraints]
    checks.append({"name": "adequacy", "kind": "Judge", "verdict": "not judged" if adequacy is None else f"{adequacy:g}",
                   "passed": None if adequacy is None else adequacy >= 1, "explanation": ""})
    texts = [] if row is None else [{"label": "source", "text": row["source"]},
                                    {"label": "reference", "text": row["reference"], "lang": row["target_lang"]}]
    return {"facets": {"genre": score["genre"], "hard rules": "pass" if score["hard_pass"] else "fail"},
            "summary": f"{score['genre']} · {'pass' if score['hard_pass'] else 'fail'}",
            "numbers": {"toy_score": score["toy_score"], "adequacy": adequacy, "words_over": score["words_over"]},
            "texts": texts, "checks": checks, "judge": [], "prediction": score["prediction"],
            "prediction_lang": score["target_lang"], "lower_is_better": ("words_over",)}
