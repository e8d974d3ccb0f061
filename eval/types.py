"""The small typed records the benchmarks' rules share."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RuleVerdict:
    """A hard rule's answer: `detail` says which key, tag, term or line decided it (SPEC §7)."""

    passed: bool
    detail: dict = field(default_factory=dict)
