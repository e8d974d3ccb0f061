"""The official InstTrans scorer's versions (SPEC §7c): where each was published, its rule per
hard id read off the one constraint table (eval/insttrans/rules.py, a row per id with its rule
per rule set and scorer version, on the rule contract of eval/scoring/rule_contract.py), and the
recognition of the version a release folder ships.

A version reproduces that scorer's verdicts exactly, lenient spots included (scripts/scorer_fuzz.py
checks it against a copy of the scorer); docs/protocol.md lists what changed between them, with an
example each. The default is the newest official version. The strict set (§7b) is one for all.
"""

from __future__ import annotations

from dataclasses import dataclass

from eval.insttrans.rules import (DEFAULT_RULE_SET, HARD_IDS, PUBLIC_V1, RULE_TABLE, SCORER_VERSION_NAMES,
                                  V2026_10_05)
from eval.scoring.rule_contract import Rule, ScoringContext


@dataclass(frozen=True)
class ScorerVersion:
    """One official scorer version: where it was published, and its rule per hard id (the table's)."""

    name: str
    published: str                                  # the date the version was published
    source: str                                     # where its code was read

    @property
    def rules(self) -> dict[str, Rule]:
        return {cid: RULE_TABLE.rule(cid, ScoringContext(None, DEFAULT_RULE_SET, self.name))
                for cid in HARD_IDS}


# public-v1: the rules of SPEC §7 as written. 2026-10-05: the authors' review fixes
# (format_preserve, layout_break, term_compliance and syllable_order read differently;
# social_preserve is unchanged).
PUBLIC_V1_TABLE = ScorerVersion(PUBLIC_V1, "2026-10-04", "jfwoe/Index-Translate @ 590d45f (benchmarks/insttrans/)")
V2026_10_05_TABLE = ScorerVersion(V2026_10_05, "2026-10-05", "bilibili/Index-Translate @ aafb1e3 (benchmarks/insttrans/)")

# Newest first: the first is the default (the table's order).
SCORER_VERSIONS: dict[str, ScorerVersion] = {table.name: table for table in (V2026_10_05_TABLE, PUBLIC_V1_TABLE)}
assert tuple(SCORER_VERSIONS) == SCORER_VERSION_NAMES
DEFAULT_SCORER_VERSION = SCORER_VERSION_NAMES[0]


# --- recognising the version a release folder ships (SPEC §7c, §15) ----------------------------

CONSTRAINTS_FILE = "eval/constraints.py"
_READ_LIMIT = 1 << 20  # the scorer's rules file is ~16 KB; anything larger is no known version

# SHA-256 of eval/constraints.py as each version published it (RELEASE-FACTS §0: the InstTrans
# release's copy is public-v1's). 2026-10-05 has no published manifest, so it is known by content.
KNOWN_DIGESTS = {"00cd6f3bb140bfcfaebb1e281790331059aef9f9091b75213e33e67ecd3074e7": PUBLIC_V1}

# Content markers, read as text (nothing is run): short literal pieces of each version's placeholder
# patterns and HTML reading, each (pieces that must all be there, pieces that must all be absent).
CONTENT_MARKERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    V2026_10_05: ((r"\$[a-zA-Z_][a-zA-Z0-9_]*", r"%\([a-zA-Z_][a-zA-Z0-9_]*\)[dsf]", "(script|style)"), (r"\$\d+",)),
    PUBLIC_V1: ((r"\$\d+", r"%[dsf]", r"\{\{[a-zA-Z_][a-zA-Z0-9_]*\}\}"), ("(script|style)", r"%\(")),
}


@dataclass(frozen=True)
class Recognition:
    """Which scorer version a release folder ships, and how that was told."""

    version: str            # the version the run uses (the newest when unknown)
    identified_by: str      # "sha256 of eval/constraints.py", "content of eval/constraints.py", or "unknown"
    notice: str | None      # the one line a run prints when the version is unknown


def recognise_release(root) -> Recognition:
    """The scorer version of the release folder `root`: its eval/constraints.py by SHA-256, else by
    content markers; neither (or the file missing) is unknown, and the run uses the newest."""
    import hashlib
    from pathlib import Path

    path = Path(root) / CONSTRAINTS_FILE
    try:
        with open(path, "rb") as handle:
            data = handle.read(_READ_LIMIT + 1)
    except OSError:
        return Recognition(DEFAULT_SCORER_VERSION, "unknown",
                           f"{path}: not found, so the scorer version is unknown; scoring with the newest, "
                           f"{DEFAULT_SCORER_VERSION}")
    digest = hashlib.sha256(data).hexdigest()
    if digest in KNOWN_DIGESTS:
        return Recognition(KNOWN_DIGESTS[digest], f"sha256 of {CONSTRAINTS_FILE}", None)
    text = data[:_READ_LIMIT].decode("utf-8", errors="replace")
    matches = [name for name, (present, absent) in CONTENT_MARKERS.items()
               if all(piece in text for piece in present) and not any(piece in text for piece in absent)]
    if len(data) <= _READ_LIMIT and len(matches) == 1:
        return Recognition(matches[0], f"content of {CONSTRAINTS_FILE}", None)
    return Recognition(DEFAULT_SCORER_VERSION, "unknown",
                       f"{path} (sha256 {digest[:12]}) is no known scorer version; scoring with the newest, "
                       f"{DEFAULT_SCORER_VERSION} (--scorer-version NAME chooses another)")
