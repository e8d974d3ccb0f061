"""Shared pieces of the one-line reasons a report shows (SPEC §11): a list in a line, a line cut
short, the lowest scores first. A benchmark's rules and failure lists build their reasons with
them; eval/reports/failures.py frames the lists."""

from __future__ import annotations

REASON_LIMIT = 160
MISSING_PREDICTION = "missing prediction"


def listed(items, limit: int = 4) -> str:
    """`a, b, c, d (+2 more)`: a list in a reason."""
    items = [str(item) for item in items]
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def cut(text: str, limit: int = REASON_LIMIT) -> str:
    """One line of at most `limit` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def lowest(entries: list[tuple[str, float, str]], cap: int) -> list[dict]:
    """(case_id, score, note) entries below 1 as {case_id, score, reason}, lowest first, ties in
    data order, at most `cap`."""
    below = [(score, position, case_id, note) for position, (case_id, score, note) in enumerate(entries) if score < 1]
    below.sort(key=lambda item: (item[0], item[1]))
    return [{"case_id": case_id, "score": score, "reason": note} for score, _, case_id, note in below[:cap]]
