"""Toy-Bench in compare and the leaderboard: per-row units of its headline metrics (and, per genre,
the same units weighted 0 outside the genre: the `by_genre` section), the Judge's verdicts for
agreement, and one leaderboard column per genre."""

from __future__ import annotations

from eval.scoring.pairing import UnitValues, headline_units

from .metrics import HEADLINE_METRICS


def compare_units(a, b, case_ids: list[str]) -> list[dict[tuple, UnitValues]]:
    units = headline_units(a, b, case_ids, HEADLINE_METRICS)
    items = {path[-1]: unit for path, unit in units.items()}
    for genre in dict.fromkeys(a.scores[cid]["genre"] for cid in case_ids):
        mask = [1.0 if a.scores[cid]["genre"] == genre else 0.0 for cid in case_ids]
        for name in ("toy_score", "hard_pass_rate"):
            if name in items:
                units[("by_genre", genre, name)] = UnitValues(items[name].a, items[name].b, mask)
    return [units]


def judge_labels(score: dict) -> dict[str, float]:
    return {} if score.get("adequacy") is None else {"adequacy": float(score["adequacy"])}


def leaderboard_columns(summaries: list[dict]) -> list[str]:
    genres = dict.fromkeys(genre for summary in summaries for genre in summary.get("by_genre") or {})
    return [f"hard_pass_{genre}" for genre in genres]


def leaderboard_value(summary: dict, column: str) -> float | None:
    return ((summary.get("by_genre") or {}).get(column.removeprefix("hard_pass_")) or {}).get("hard_pass_rate")
