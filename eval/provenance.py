"""What a number depends on (SPEC §9, §11): the signature string and the reasons a run is not formal
(the data's own reasons: eval/known_data.py).

Shared by both benchmarks; each passes its own settings (the rule set, the speech rates) and its
own words for what a run without the Judge leaves unscored.
"""

from __future__ import annotations

import json

from eval import __version__
from eval.stats import BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED


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
                   benchmark: str | None = None) -> str:
    """Every setting the numbers depend on, as one short `key:value|...` string.

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
    return "|".join(parts)
