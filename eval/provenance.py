"""What a number depends on (SPEC §9, §11): the signature and the reasons a run is not formal (the
data's own reasons: eval/run/known_data.py).

The signature is an object: its parts (key, value) in order, written to summary.json both as its
text (`signature`, `k:v|k:v|...`, sacreBLEU's form) and as fields (`signature_fields`, the same
parts as an object), so that compare diffs fields, never text. A summary of an older harness has
only the text: `Signature.from_summary` parses it there, once.

Shared by both benchmarks; each passes its own settings (the rule set, the speech rates) and its
own words for what a run without the Judge leaves unscored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from eval import __version__
from eval.config import HARNESS
from eval.scoring.stats import BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED

# What a signature means by leaving a part out: the harness's protocol, prompts and counter (SPEC §15).
UNSTATED = {"protocol": HARNESS, "prompts": HARNESS, "counter": HARNESS}
MAX_SIGNATURE_CHARS = 64 * 1024  # a signature is a few hundred characters; a longer one is nobody's


@dataclass(frozen=True)
class Signature:
    """Every setting a run's numbers depend on: `parts` as (key, value) pairs in the text's order."""

    parts: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        keys = [key for key, _ in self.parts]
        if len(set(keys)) != len(keys):
            raise ValueError(f"a signature names a key twice: {sorted({k for k in keys if keys.count(k) > 1})}")

    @property
    def text(self) -> str:
        """`k:v|k:v|...`: the form printed beside the numbers and stored as summary.json `signature`."""
        return "|".join(f"{key}:{value}" for key, value in self.parts)

    @property
    def fields(self) -> dict[str, str]:
        """The parts by key, with an unstated protocol, prompt set or counter as the harness's own:
        what the signature means, field by field."""
        stated = dict(self.parts)
        return {**stated, **{key: value for key, value in UNSTATED.items() if key not in stated}}

    def stored(self) -> dict:
        """summary.json's two keys: the text and the parts as an object."""
        return {"signature": self.text, "signature_fields": dict(self.parts)}

    @classmethod
    def from_parts(cls, parts: tuple[str, ...]) -> "Signature":
        """From `key:value` parts as the run states them (a value may hold ':' or '|')."""
        return cls(tuple((key, value) for key, _, value in (part.partition(":") for part in parts)))

    @classmethod
    def parse(cls, text: str) -> "Signature":
        """The signature a text states, as an older harness's summary holds it (a value may contain
        ':', JSON parameters); ValueError for a text no harness writes (a part without a key, a key
        named twice)."""
        if len(text) > MAX_SIGNATURE_CHARS:
            raise ValueError(f"a signature of more than {MAX_SIGNATURE_CHARS:,} characters")
        signature = cls.from_parts(tuple(text.split("|")))
        if any(not key for key, _ in signature.parts):
            raise ValueError("a signature part without a key")
        return signature

    @classmethod
    def from_summary(cls, summary: dict) -> "Signature":
        """A summary's signature: its fields when it has them, which must spell its text exactly;
        else (an older harness wrote only the text) the text parsed. ValueError naming the field."""
        text = summary.get("signature")
        if not isinstance(text, str):
            raise ValueError("field signature: expected a string")
        fields = summary.get("signature_fields")
        if fields is None:
            return cls.parse(text)
        if not isinstance(fields, dict) or not all(isinstance(value, str) and key for key, value in fields.items()):
            raise ValueError("field signature_fields: expected an object of strings")
        signature = cls(tuple(fields.items()))
        if signature.text != text:
            raise ValueError("field signature_fields: does not spell the field signature (edited by hand?)")
        return signature

    def differences(self, other: "Signature", ignore: tuple[str, ...] = ()) -> list[dict]:
        """Field by field (`fields`: an unstated protocol is the harness's), every key whose value
        differs (`a`, `b`; None where one has no such key), in the order this signature states its
        parts and then the other's."""
        mine, theirs = self.fields, other.fields
        stated = dict.fromkeys([*(key for key, _ in self.parts), *(key for key, _ in other.parts)])
        return [{"key": key, "a": mine.get(key), "b": theirs.get(key)}
                for key in stated if key not in ignore and mine.get(key) != theirs.get(key)]


def parse_signature(text: str) -> dict[str, str]:
    """The text's own parts by key, in order (nothing filled in)."""
    return dict(Signature.parse(text).parts)


def run_reasons(n_used: int, n_total: int, limit: int | None, case_ids: str | None, skip_judge: bool,
                unscored: str) -> list[str]:
    """The reasons that come from how the run was asked for: a subset, no Judge."""
    reasons = []
    if case_ids is not None:
        reasons.append(f"--case-ids {case_ids}: {n_used} of {n_total} instances scored")
    elif n_used < n_total:
        reasons.append(f"--limit {limit}: {n_used} of {n_total} instances scored")
    if skip_judge:
        reasons.append(f"--skip-judge: {unscored} not scored")
    return reasons


def make_signature(data_sha256: str, n_instances: int, judge: dict | None, settings: tuple[str, ...] = (),
                   benchmark: str | None = None) -> Signature:
    """Every setting the numbers depend on (its text: one short `key:value|...` string).

    `settings` are the benchmark's own `key:value` parts (the rule set, the speech rates)."""
    parts = ([f"bench:{benchmark}"] if benchmark else []) + [f"data:{data_sha256[:12]}", f"n:{n_instances}"]
    parts += list(settings)
    if judge is None:
        parts.append("judge:none")
    else:
        parts.append(f"judge:{judge['model']}")
        parts.append(f"host:{judge['host']}")
        parts.append(f"endpoint:{judge['endpoint_kind']}")
        for key, value in sorted(judge.get("params", {}).items()):
            parts.append(f"{key}:{json.dumps(value, sort_keys=True, separators=(',', ':'), ensure_ascii=False)}")
        for key, value in sorted(judge.get("prompt_versions", {}).items()):
            parts.append(f"prompt.{key}:{value}")
        if judge.get("calibration"):  # SPEC §17: which calibration the run carries (absent: uncalibrated)
            parts.append(f"judge-calibration:{judge['calibration']['sha256'][:12]}")
    parts.append(f"boot:{BOOTSTRAP_SAMPLES}")
    parts.append(f"seed:{BOOTSTRAP_SEED}")
    parts.append(f"version:{__version__}")
    return Signature.from_parts(tuple(parts))
