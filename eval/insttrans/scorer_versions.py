"""The official InstTrans scorer's versions (SPEC §7c): one table per version, each hard id's rule
and the formatter of its one-line reason, on the rule contract of eval/insttrans/rules.py.

A version reproduces that scorer's verdicts exactly, lenient spots included (scripts/scorer_fuzz.py
checks it against a copy of the scorer); docs/protocol.md lists what changed between them, with an
example each. The default is the newest official version. The strict set (§7b) is one for all.
"""

from __future__ import annotations

from dataclasses import dataclass

import eval.insttrans.rules as rules
from eval.insttrans.rule_parts import explain_concordance
from eval.types import RuleVerdict

PUBLIC_V1 = "public-v1"
V2026_10_05 = "2026-10-05"


@dataclass(frozen=True)
class ScorerVersion:
    """One official scorer version: where it was published and its rule per hard id."""

    name: str
    published: str                                  # the date the version was published
    source: str                                     # where its code was read
    rules: dict[str, rules.HardRule]
    explanations: dict[str, rules.Explain]


_EXPLANATIONS = {
    "format_preserve": rules.explain_format_preserve,
    "syllable_order": explain_concordance,
    "term_compliance": rules.explain_term_compliance,
    "social_preserve": rules.explain_social_preserve,
    "layout_break": rules.explain_layout_break,
}

# public-v1: the rules of SPEC §7 as written.
PUBLIC_V1_TABLE = ScorerVersion(
    name=PUBLIC_V1, published="2026-10-04", source="jfwoe/Index-Translate @ 590d45f (benchmarks/insttrans/)",
    rules={
        "format_preserve": rules.check_format_preserve,
        "syllable_order": rules.check_syllable_order,
        "term_compliance": rules.check_term_compliance,
        "social_preserve": rules.check_social_preserve,
        "layout_break": rules.check_layout_break,
    },
    explanations=_EXPLANATIONS,
)

# 2026-10-05: the authors' review fixes (format_preserve, layout_break, term_compliance and
# syllable_order read differently; social_preserve is unchanged).
V2026_10_05_TABLE = ScorerVersion(
    name=V2026_10_05, published="2026-10-05", source="bilibili/Index-Translate @ aafb1e3 (benchmarks/insttrans/)",
    rules={
        "format_preserve": rules.check_format_preserve_1005,
        "syllable_order": rules.check_syllable_order_1005,
        "term_compliance": rules.check_term_compliance_1005,
        "social_preserve": rules.check_social_preserve,
        "layout_break": rules.check_layout_break_1005,
    },
    explanations=_EXPLANATIONS,
)

# Newest first: the first is the default.
SCORER_VERSIONS: dict[str, ScorerVersion] = {table.name: table for table in (V2026_10_05_TABLE, PUBLIC_V1_TABLE)}
DEFAULT_SCORER_VERSION = V2026_10_05


def check_versioned(constraint_id: str, prediction: str, row: dict, version: str) -> RuleVerdict:
    """One hard rule of a scorer version on a non-missing prediction."""
    return SCORER_VERSIONS[version].rules[constraint_id](prediction, row)


def check_hard(constraint_id: str, prediction: str, row: dict, rule_set: str = rules.DEFAULT_RULE_SET,
               scorer_version: str | None = None) -> RuleVerdict:
    """One hard rule of a rule set on a non-missing prediction; the original set's rules are those
    of `scorer_version` (None: the newest), the strict set's are one for all (SPEC §7c)."""
    if rule_set == rules.DEFAULT_RULE_SET and scorer_version is not None:
        return check_versioned(constraint_id, prediction, row, scorer_version)
    return rules.check_hard(constraint_id, prediction, row, rule_set)
