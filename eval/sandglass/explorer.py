"""One Sandglass-Bench item as the explorer shows it (docs/explorer.md): target language, kind
and fenqu as facets, the syllable budget and the quality verdict as checks.

`row` is None where only scores.jsonl is at hand (the compare page): the item row carries the
source and the prediction (`hyp`) itself.
"""

from __future__ import annotations

from eval.scoring.reasons import MISSING_PREDICTION
from eval.scoring.score_rows import ScoreRow


def budget_band(score: ScoreRow) -> str:
    """How far the syllable count landed from the target, in the card's bands."""
    if score.missing:
        return "missing"
    if score["hit_pm1"]:
        return "within ±1 syllable"
    if score["hit_10"]:
        return "within 10%"
    if score["hit_20"]:
        return "within 20%"
    return "off by more than 20%"


def judge_replies(detail: object) -> list[tuple[str, str]]:
    """The quality verdict's Judge texts: after a repair turn the invalid first reply, then the reply."""
    if not isinstance(detail, dict) or not isinstance(detail.get("reply"), str):
        return []
    if detail.get("repaired") and isinstance(detail.get("invalid_reply"), str):
        return [("quality: first reply (invalid, answered with a repair turn)", detail["invalid_reply"]),
                ("quality: reply after the repair turn", detail["reply"])]
    return [("quality reply", detail["reply"])]


def explorer_view(row: dict | None, score: ScoreRow) -> dict:
    """The item's facets, sortable numbers, texts and checks."""
    reward, quality, target = score["syllable_reward"], score.get("quality"), score["target_syllables"]
    checks = [
        {"name": "syllable budget", "kind": "count", "verdict": f"{score['hyp_syllables']} of {target}",
         "passed": reward >= 1, "value": (score["hyp_syllables"], reward),
         "explanation": (MISSING_PREDICTION if score.missing else
                         f"{score['signed_dev']:+.1%} against the {score['target_kind']} target of {target} "
                         f"syllables ({score['duration']:g} s); reward {reward:g}")},
        {"name": "quality", "kind": "Judge", "verdict": "not judged" if quality is None else f"{quality:g}",
         "passed": None if quality is None else quality >= 1, "value": quality, "explanation": ""},
    ]
    language = score["target_language"]
    texts = [{"label": "source", "text": score["source"], "lang": "zh"}]
    if row is not None:
        texts.append({"label": "reference", "text": row.get("label", ""), "lang": language})
        texts += [{"label": f"model input ({message.get('role')})", "text": message.get("content", ""), "folded": True,
                   "lang": "zh"} for message in row["prompt"] if isinstance(message, dict)]
    band = budget_band(score)
    return {
        "facets": {"target language": language, "target kind": score["target_kind"], "fenqu": score["fenqu"],
                   "syllables": band, "quality": "not judged" if quality is None else f"{quality:g}"},
        "summary": f"{language} {score['target_kind']} · {score['hyp_syllables']}/{target} syllables · {band}",
        "numbers": {"score": score.get("score"), "syllable_reward": reward, "quality": quality,
                    "dev": score["dev"], "signed_dev": score["signed_dev"], "target_syllables": target,
                    "hyp_syllables": score["hyp_syllables"]},
        "texts": texts, "checks": checks, "judge": judge_replies(score.get("quality_detail")), "prediction": score.get("hyp"), "prediction_lang": language,
        "lower_is_better": ("dev",),
    }
