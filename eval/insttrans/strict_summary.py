"""The strict hard-pass rate reported beside the original's (SPEC §7b).

A default run scores with the original rules; these helpers run the strict set on the same
predictions so the summary can show how much of a score rests on the original's leniency. They
add fields and change none: every score and every formal field stays the original's.
"""

from __future__ import annotations

from typing import Iterable

from eval.insttrans.rules import CONSTRAINT_KINDS, RULE_SETS
from eval.scoring.rule_contract import HARD
from eval.scoring.stats import headline_of
from eval.inputs.predictions import is_missing
from eval.scoring.reasons import cut
from eval.scoring.rule_contract import Verdict
from eval.scoring.score_rows import MISSING_REASON, missing_detail

STRICT = "strict"
_MISSING = Verdict(False, MISSING_REASON, missing_detail())  # read-only: shared by every missing row


def strict_verdicts(row: dict, prediction: str | None) -> dict[str, Verdict]:
    """{hard id: strict verdict} for the hard ids of `row`; a missing prediction fails each (§6)."""
    rules = RULE_SETS[STRICT]
    hard_ids = dict.fromkeys(cid for cid in row["constraint_ids"] if CONSTRAINT_KINDS[cid] == HARD)
    if is_missing(prediction):
        return {cid: _MISSING for cid in hard_ids}
    return {cid: rules[cid](row, prediction) for cid in hard_ids}  # this harness's counter (§7b companion)


def strict_instance(row: dict, prediction: str | None) -> dict:
    """One instance under the strict set, in the shape of a scores.jsonl row's hard part:
    {case_id, hard_pass, constraints: [{index, id, kind, passed}]} (no details: the summary needs
    only the verdicts)."""
    verdicts = strict_verdicts(row, prediction)
    constraints = [{"index": index, "id": cid, "kind": HARD, "passed": verdicts[cid].passed}
                   for index, cid in enumerate(row["constraint_ids"], 1) if cid in verdicts]
    return {"case_id": row["case_id"], "hard_pass": not is_missing(prediction) and all(
        entry["passed"] for entry in constraints), "constraints": constraints}


def strict_instances(rows: list[dict], predictions: dict[str, str | None]) -> list[dict]:
    """`strict_instance` for every row, in data order."""
    return [strict_instance(row, predictions.get(row["case_id"])) for row in rows]


def strict_summary(instances: Iterable[dict]) -> dict:
    """{"hard_pass_rate_strict": {value, ci95, n}, "pass_rate_strict": {hard id: rate}}.

    `instances` are `strict_instances(...)` (or a generator of `strict_instance`s: read once, none
    kept; a list of 100,000 took 100 MB, issue 34), or the scores.jsonl rows of a `--rule-set
    strict` run (same fields); the interval is eval/metrics.py's seeded bootstrap, as for hard_pass_rate."""
    counts: dict[str, list[int]] = {}  # hard id: [passed, verdicts]
    hard_pass: list[float | None] = []
    for instance in instances:
        for entry in instance["constraints"]:
            if entry["kind"] == HARD:
                count = counts.setdefault(entry["id"], [0, 0])
                count[0] += entry["passed"]
                count[1] += 1
        hard_pass.append(None if instance["hard_pass"] is None else float(instance["hard_pass"]))
    return {
        "hard_pass_rate_strict": headline_of(hard_pass),
        "pass_rate_strict": {cid: round(counts[cid][0] / counts[cid][1], 6) for cid in CONSTRAINT_KINDS if cid in counts},
    }


def add_strict_to_summary(summary: dict, strict: dict) -> None:
    """Put `hard_pass_rate_strict` right after `hard_pass_rate`, and each hard id's strict rate
    beside its `pass_rate` in `by_constraint`; nothing already in the summary changes."""
    entries = list(summary.items())
    summary.clear()
    for key, value in entries:
        summary[key] = value
        if key == "hard_pass_rate":
            summary["hard_pass_rate_strict"] = strict["hard_pass_rate_strict"]
    summary.setdefault("hard_pass_rate_strict", strict["hard_pass_rate_strict"])
    for cid, rate in strict["pass_rate_strict"].items():
        if cid in summary.get("by_constraint", {}):
            summary["by_constraint"][cid]["pass_rate_strict"] = rate


def rule_set_disagreements(rows: list[dict], predictions: dict[str, str | None]) -> list[dict]:
    """Every (instance, hard id) where the original and the strict rules disagree, in data order:
    {case_id, id, original, strict, reason} with the reason the failing side's rule writes (the
    differential check; docs/strict-rules.md lists it for the bundled example predictions)."""
    original_rules, strict_rules = RULE_SETS["original"], RULE_SETS[STRICT]
    found = []
    for row in rows:
        prediction = predictions.get(row["case_id"])
        if is_missing(prediction):
            continue  # both sets fail a missing prediction
        for cid in dict.fromkeys(c for c in row["constraint_ids"] if CONSTRAINT_KINDS[c] == HARD):
            original, strict = original_rules[cid](row, prediction), strict_rules[cid](row, prediction)
            if original.passed != strict.passed:
                failing_set, failing = (STRICT, strict) if original.passed else ("original", original)
                found.append({"case_id": row["case_id"], "id": cid, "original": original.passed,
                              "strict": strict.passed, "reason": cut(failing.reason)})
    return found
