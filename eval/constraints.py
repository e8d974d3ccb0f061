"""The ten constraints: their kinds, the keywords that find their lines, and the hard rules.

The hard rules restate the original scorer's semantics (SPEC §7), lenient spots included, so that
verdicts on the official release match published numbers. A stricter companion rule set can be
added as another entry of `RULE_SETS` without touching `ORIGINAL_RULES`.
"""

from __future__ import annotations

from typing import Callable

from eval.types import RuleVerdict

HARD = "hard"
SOFT = "soft"

# SPEC §4: id -> kind, in the SPEC's order.
CONSTRAINT_KINDS: dict[str, str] = {
    "format_preserve": HARD,
    "syllable_order": HARD,
    "term_compliance": HARD,
    "social_preserve": HARD,
    "layout_break": HARD,
    "style_consistency": SOFT,
    "term_cross_sentence": SOFT,
    "academic_format_preserve": SOFT,
    "context_disambiguate": SOFT,
    "coref_resolution": SOFT,
}
HARD_IDS = tuple(cid for cid, kind in CONSTRAINT_KINDS.items() if kind == HARD)
SOFT_IDS = tuple(cid for cid, kind in CONSTRAINT_KINDS.items() if kind == SOFT)

# SPEC §5: the keywords by which a constraint line is recognised as stating an id.
# format_preserve and syllable_order lines carry no keyword the rules read.
LINE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "term_compliance": ("术语对照:", "术语对照："),
    "social_preserve": ("社交元素",),
    "layout_break": ("布局", "排版"),
    "style_consistency": ("语体", "风格"),
    "context_disambiguate": ("歧义", "消歧"),
    "coref_resolution": ("指代", "代词"),
    "term_cross_sentence": ("跨句", "全文统一"),
    "academic_format_preserve": ("学术", "LaTeX", "学术格式"),
}


def line_states(line: str, constraint_id: str) -> bool:
    """True when `line` carries one of the §5 keywords of `constraint_id`."""
    return any(keyword in line for keyword in LINE_KEYWORDS.get(constraint_id, ()))


def constraint_line_for(row: dict, constraint_id: str) -> str:
    """The line the Judge is shown for a soft id: the first line carrying its keywords (§10).

    Falls back to the line at the id's own position, which validation guarantees exists.
    """
    for line in row["constraints"]:
        if line_states(line, constraint_id):
            return line
    return row["constraints"][row["constraint_ids"].index(constraint_id)]


# ---------------------------------------------------------------------------------------------
# The hard rules (SPEC §7). Each takes (prediction, row) and returns a RuleVerdict.
# ---------------------------------------------------------------------------------------------

HardRule = Callable[[str, dict], RuleVerdict]


def check_format_preserve(prediction: str, row: dict) -> RuleVerdict:
    """SPEC §7.1."""
    raise NotImplementedError


def check_syllable_order(prediction: str, row: dict) -> RuleVerdict:
    """SPEC §7.2."""
    raise NotImplementedError


def check_term_compliance(prediction: str, row: dict) -> RuleVerdict:
    """SPEC §7.3."""
    raise NotImplementedError


def check_social_preserve(prediction: str, row: dict) -> RuleVerdict:
    """SPEC §7.4."""
    raise NotImplementedError


def check_layout_break(prediction: str, row: dict) -> RuleVerdict:
    """SPEC §7.5."""
    raise NotImplementedError


ORIGINAL_RULES: dict[str, HardRule] = {
    "format_preserve": check_format_preserve,
    "syllable_order": check_syllable_order,
    "term_compliance": check_term_compliance,
    "social_preserve": check_social_preserve,
    "layout_break": check_layout_break,
}

RULE_SETS: dict[str, dict[str, HardRule]] = {"original": ORIGINAL_RULES}
DEFAULT_RULE_SET = "original"


def check_hard(constraint_id: str, prediction: str, row: dict, rule_set: str = DEFAULT_RULE_SET) -> RuleVerdict:
    """Run one hard rule of a rule set on a non-missing prediction."""
    return RULE_SETS[rule_set][constraint_id](prediction, row)
