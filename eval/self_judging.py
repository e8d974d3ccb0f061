"""Self-judging (SPEC §16): the system under test is the Judge's model, or of its family.

A Judge scoring its own outputs (or its siblings') is the bias the published tables carry (a
Judge that is also a listed system); a run says so rather than hiding it. The family is the
model name's last `/` segment, lower-cased, up to its first digit or separator (`gpt-5.6-sol` and
`gpt-4o` are both `gpt`; `qwen3:32b` is `qwen`), which is deliberately coarse: a false flag costs a
line, a missed one a biased number.
"""

from __future__ import annotations

import re

_FAMILY = re.compile(r"[a-z]+")


def _name(model: str) -> str:
    return model.strip().rsplit("/", 1)[-1].strip().lower()


def self_judging(system_model: str | None, judge_model: str | None) -> str | None:
    """Why the run is self-judged (the same model, or the same family), or None."""
    if not system_model or not judge_model or not _name(system_model) or not _name(judge_model):
        return None
    system, judge = _name(system_model), _name(judge_model)
    if system == judge:
        return f"the system under test ({system_model}) is the Judge model ({judge_model})"
    family_system, family_judge = _FAMILY.match(system), _FAMILY.match(judge)
    if family_system and family_judge and family_system.group(0) == family_judge.group(0):
        return (f"the system under test ({system_model}) and the Judge ({judge_model}) are of one family "
                f"({family_system.group(0)})")
    return None
