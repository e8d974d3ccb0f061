"""Toy-Bench's headline metrics, declared once: the record, the reports, the leaderboard and compare
read them from here."""

from __future__ import annotations

from eval.benchmark import Mean, Metric

HEADLINE_METRICS = (
    Metric("toy_score", Mean("toy_score", text="mean over rows of hard pass × adequacy"), judge=True),
    Metric("hard_pass_rate", Mean("hard_pass")),
    Metric("adequacy", Mean("adequacy"), judge=True),
    Metric("words_over", Mean("words_over", text="mean words beyond the budget"), higher_is_better=False),
)
