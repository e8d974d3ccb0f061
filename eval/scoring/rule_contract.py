"""The one rule contract of every benchmark (SPEC §7, §7b, §7c, §14).

A hard rule reads a validated row and a non-missing prediction under an explicit `ScoringContext`
(the run's syllable counter, rule set and scorer version) and returns a `Verdict`: passed, a
one-line reason, and the `detail` scores.jsonl keeps (as inspect_ai's `Score(value, explanation,
metadata)`). A benchmark states its constraints in one `RuleTable`: one `ConstraintSpec` per id,
with its kind, its rule for every rule set × scorer version the table declares, and the formatter
that turns a stored failing detail back into its reason (reports read scores.jsonl, not verdicts).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

HARD = "hard"
SOFT = "soft"
ORIGINAL = "original"  # the rule set that reproduces the original scorer: every table's default

SyllableCounter = Callable[[str, str], int]  # (text, language) -> syllables
Explain = Callable[[Mapping], str]   # a failing verdict's detail -> one line saying why


@dataclass(frozen=True)
class ScoringContext:
    """What a rule may need beyond the row and the prediction, passed explicitly: the run's
    syllable counter (None: the benchmark's own), its rule set and its scorer version (None: the
    table's newest)."""

    counter: SyllableCounter | None = None
    rule_set: str = ORIGINAL
    scorer_version: str | None = None

    def count(self, text: str, lang: str, own: SyllableCounter) -> int:
        """Syllables of `text` by the run's counter, else by `own` (the benchmark's)."""
        return (self.counter or own)(text, lang)


DEFAULT_CONTEXT = ScoringContext()


def one_line(text: str) -> str:
    """`text` with every run of whitespace (line breaks included) as one space."""
    return " ".join(str(text).split())


@dataclass(frozen=True)
class Verdict:
    """A hard rule's answer. `reason` is one line, each run of whitespace one space ("" when it
    passed, unless the benchmark says why it passed too); `detail` is what scores.jsonl writes, as
    it is (its keys and order are the benchmark's)."""

    passed: bool
    reason: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.reason:
            object.__setattr__(self, "reason", one_line(self.reason))


class Rule(Protocol):
    """A hard rule: (row, prediction, context) -> Verdict, on a non-missing prediction."""

    def __call__(self, row: Mapping, prediction: str, context: ScoringContext = DEFAULT_CONTEXT) -> Verdict: ...


def explained(explain: Explain) -> Callable[[Callable[..., tuple[bool, dict]]], Rule]:
    """Make a rule of a reading that returns (passed, detail): a failing verdict's reason is
    `explain(detail)`, the formatter the spec keeps for stored details. Keyword options of the
    reading (a scorer version's way of reading a text) pass through, so `partial` binds them."""

    def wrap(reading: Callable[..., tuple[bool, dict]]) -> Rule:
        @functools.wraps(reading)
        def rule(row: Mapping, prediction: str, context: ScoringContext = DEFAULT_CONTEXT, **options) -> Verdict:
            passed, detail = reading(row, prediction, context, **options)
            return Verdict(passed, "" if passed else explain(detail), detail)

        return rule

    return wrap


@dataclass(frozen=True)
class ConstraintSpec:
    """One constraint id: its kind, its rule per rule set and scorer version (hard ids), and per
    rule set the formatter of a stored failing detail's reason. A benchmark may extend it with
    fields of its own (InstTrans: keywords, rubric)."""

    id: str
    kind: str                                           # HARD (a rule decides) or SOFT (the Judge does)
    rules: Mapping[str, Mapping[str, Rule]] = field(default_factory=dict)  # rule set -> scorer version -> rule
    # rule set -> the reason of a stored failing detail (none where scores.jsonl keeps the reason)
    explain: Mapping[str, Explain] = field(default_factory=dict)


def same_rule_for(versions: tuple[str, ...], rule: Rule) -> dict[str, Rule]:
    """A rule set whose rule is one for every scorer version (a strict set, a benchmark with one)."""
    return {version: rule for version in versions}


@dataclass(frozen=True)
class RuleTable:
    """A benchmark's constraint table: one spec per id, the rule sets and scorer versions it
    declares (the first of each is the default: the original set, the newest version)."""

    specs: Mapping[str, ConstraintSpec]
    rule_sets: tuple[str, ...] = (ORIGINAL,)
    scorer_versions: tuple[str, ...] = ("1",)

    def context(self, counter: SyllableCounter | None = None, rule_set: str | None = None,
                scorer_version: str | None = None) -> ScoringContext:
        """A context with the table's defaults filled in (the original set, the newest version)."""
        return ScoringContext(counter, rule_set or self.rule_sets[0], scorer_version or self.scorer_versions[0])

    def rule(self, constraint_id: str, context: ScoringContext = DEFAULT_CONTEXT) -> Rule:
        """The rule of a hard id under `context` (its rule set, its version or the newest)."""
        versions = self.specs[constraint_id].rules[context.rule_set]
        return versions[context.scorer_version or self.scorer_versions[0]]

    def check(self, constraint_id: str, row: Mapping, prediction: str,
              context: ScoringContext = DEFAULT_CONTEXT) -> Verdict:
        """One hard rule on a non-missing prediction."""
        return self.rule(constraint_id, context)(row, prediction, context)

    def explain(self, constraint_id: str, detail: Mapping, rule_set: str = ORIGINAL) -> str:
        """The one-line reason a stored failing detail of `rule_set` gives (reports read these)."""
        return one_line(self.specs[constraint_id].explain[rule_set](detail))

    def rule_set(self, name: str) -> dict[str, Rule]:
        """{hard id: rule} of a rule set at the newest version."""
        return {cid: self.rule(cid, ScoringContext(rule_set=name)) for cid, spec in self.specs.items()
                if spec.kind == HARD}

    def kinds(self) -> dict[str, str]:
        return {cid: spec.kind for cid, spec in self.specs.items()}
