"""Toy-Bench's two hard rules, each a (passed, one-line reason) per prediction."""

from __future__ import annotations

from eval.counting import active_counter

from .rows import words


def word_budget(row: dict, prediction: str) -> tuple[bool, str]:
    """At most `max_words` words, counted by the run's counter (the pipeline sets it around scoring)."""
    count = (active_counter() or (lambda text, lang: words(text)))(prediction, row["target_lang"])
    return count <= row["max_words"], f"{count} words, budget {row['max_words']}"


def terms(row: dict, prediction: str) -> tuple[bool, str]:
    """Every required term, case-insensitively."""
    absent = [term for term in row["must_include"] if term.lower() not in prediction.lower()]
    return not absent, ("all terms used" if not absent else "missing: " + ", ".join(absent))


RULES = {"word_budget": word_budget, "terms": terms}
