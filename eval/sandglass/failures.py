"""Sandglass-Bench's lists for the report's failures section (SPEC §11): the largest syllable
misses and the lowest quality scores. eval/failures.py frames them."""

from __future__ import annotations

from eval.reasons import MISSING_PREDICTION, cut, lowest


def failure_sections(items: list[dict], summary: dict | None, cap: int) -> dict:
    """{"syllables": …, "quality": …, "prediction_texts": {case_id: hyp}} (the texts give the
    wrapper diagnostics, since a Sandglass summary does not list them)."""
    ranked = sorted(enumerate(items), key=lambda pair: (-pair[1]["abs_diff"] / pair[1]["target_syllables"], pair[0]))
    misses = []
    for _, item in ranked:
        if item["syllable_reward"] >= 1 or len(misses) == cap:
            break
        dev = (item["hyp_syllables"] - item["target_syllables"]) / item["target_syllables"]
        reason = (MISSING_PREDICTION if item["status"] == "missing" else
                  f"{item['target_language']} {item['target_kind']}: {cut(item['hyp'] or '', 80)}")
        misses.append({"case_id": item["case_id"], "target": item["target_syllables"],
                       "output": item["hyp_syllables"], "dev": round(dev, 4), "reward": item["syllable_reward"],
                       "reason": reason})
    known = bool(items) and all(item["quality"] is not None for item in items)
    quality = ({"n": len(items), "judged": True, "below_full": sum(item["quality"] < 1 for item in items),
                "cases": lowest([(item["case_id"], float(item["quality"]),
                                  MISSING_PREDICTION if item["status"] == "missing" else cut(item["hyp"] or "", 60))
                                 for item in items], cap)}
               if known else {"n": len(items), "judged": False, "below_full": None, "cases": []})
    return {"syllables": {"n": len(items), "below_full_reward": sum(item["syllable_reward"] < 1 for item in items),
                          "cases": misses},
            "quality": quality,
            "prediction_texts": {item["case_id"]: item["hyp"] for item in items}}
