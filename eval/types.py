"""The small typed records shared by the Judge and the metrics (a rule's verdict: eval/rule_contract.py)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class JudgeItem:
    """What the Judge needs for one instance with a non-missing prediction (SPEC §10)."""

    case_id: str
    source_lang: str
    target_lang: str
    source_text: str
    reference: str
    prediction: str
    soft: tuple[tuple[str, str], ...]  # (constraint id, the line that states it), in row order


@dataclass(frozen=True)
class JudgeResult:
    """The validated verdicts for one instance: quality and one score per soft id. `replies` maps
    "quality" / "soft" to {"cache_key", "reply"}: the verdict's cache key and the Judge's raw
    reply text, kept for audit in the score's detail (SPEC §10, §11)."""

    quality: float
    soft: dict[str, float]
    replies: dict[str, dict] = field(default_factory=dict)
