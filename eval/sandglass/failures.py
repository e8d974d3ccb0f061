"""Sandglass-Bench's lists in the failures section (SPEC §11): the largest syllable misses and
the lowest quality scores."""

from __future__ import annotations

from eval.scoring.reasons import MISSING_PREDICTION, cut as _cut, lowest as _lowest
from eval.scoring.score_rows import ScoreRow


def failure_lists(items: list[ScoreRow], summary: dict | None, cap: int) -> dict:
    """The largest syllable misses (by exact deviation; `syllables` holds them as data, `tables` as
    the section shows them) and the lowest quality scores."""
    ranked = sorted(enumerate(items), key=lambda pair: (-pair[1]["abs_diff"] / pair[1]["target_syllables"], pair[0]))
    misses = []
    for _, item in ranked:
        if item["syllable_reward"] >= 1:
            break
        if len(misses) == cap:
            break
        dev = (item["hyp_syllables"] - item["target_syllables"]) / item["target_syllables"]
        reason = (MISSING_PREDICTION if item.missing else
                  f"{item['target_language']} {item['target_kind']}: {_cut(item['hyp'] or '', 80)}")
        misses.append({"case_id": item["case_id"], "target": item["target_syllables"],
                       "output": item["hyp_syllables"], "dev": round(dev, 4), "reward": item["syllable_reward"],
                       "reason": reason})
    known = bool(items) and all(item["quality"] is not None for item in items)
    quality = ({"n": len(items), "judged": True, "below_full": sum(item["quality"] < 1 for item in items),
                "cases": _lowest([(item["case_id"], float(item["quality"]),
                                   MISSING_PREDICTION if item.missing else _cut(item["hyp"] or "", 60))
                                  for item in items], cap)}
               if known else {"n": len(items), "judged": False, "below_full": None, "cases": []})
    below = sum(item["syllable_reward"] < 1 for item in items)
    table = {"heading": f"Syllable budget: {below} of {len(items)} below full reward (largest deviations first)",
             "columns": ["case_id", "target", "output", "deviation", "reason"], "numeric": [1, 2, 3],
             "rows": [[case["case_id"], case["target"], case["output"], f"{100 * case['dev']:+.0f}%", case["reason"]]
                      for case in misses]}
    return {"syllables": {"n": len(items), "below_full_reward": below, "cases": misses},
            "tables": [table], "judge": {"quality": {**quality, "kind": "Judge"}}}
