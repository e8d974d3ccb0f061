"""Toy-Bench's two hard rules on the rule contract (eval/scoring/rule_contract.py): each takes the row, the
prediction and the scoring context and returns a Verdict with a one-line reason; `RULE_TABLE` has
one spec per id."""

from __future__ import annotations

from eval.scoring.rule_contract import (DEFAULT_CONTEXT, HARD, ORIGINAL, ConstraintSpec, RuleTable, ScoringContext, Verdict,
                                same_rule_for)

from .rows import words

VERSIONS = ("toy-1",)  # one scorer version


def word_budget(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> Verdict:
    """At most `max_words` words, counted by the run's counter (the context's), else whitespace words."""
    count = context.count(prediction, row["target_lang"], lambda text, lang: words(text))
    return Verdict(count <= row["max_words"], f"{count} words, budget {row['max_words']}", {"words": count})


def terms(row: dict, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> Verdict:
    """Every required term, case-insensitively."""
    absent = [term for term in row["must_include"] if term.lower() not in prediction.lower()]
    return Verdict(not absent, "all terms used" if not absent else "missing: " + ", ".join(absent), {"absent": absent})


# one spec per id; scores.jsonl keeps each verdict's reason, so no formatter of stored details
RULE_TABLE = RuleTable({rule.__name__: ConstraintSpec(rule.__name__, HARD, {ORIGINAL: same_rule_for(VERSIONS, rule)})
                        for rule in (word_budget, terms)}, (ORIGINAL,), VERSIONS)
RULES = RULE_TABLE.rule_set(ORIGINAL)
