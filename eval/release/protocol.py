"""`--protocol release` (SPEC §15): the release's Judge prompts, requests, reply parsing and, when
trusted, syllable counter, with everything else this harness's.

A benchmark's plug-in (`<benchmark package>/release.py`) reads one release folder and returns a
`ReleaseProtocol`; this module finds the folder, and turns the record into the summary's
`protocol` block, the signature's parts and report lines. No benchmark is named here.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from eval.config import HARNESS, RELEASE
from eval.errors import ConfigError

if TYPE_CHECKING:
    from eval.benchmark import PromptSet



@dataclass(frozen=True)
class ReleaseProtocol:
    """What a plug-in made of one release folder."""

    root: Path
    files: dict[str, str]            # relpath -> SHA-256 of every file read (the counter's when it runs)
    examined: dict[str, str]         # relpath -> SHA-256 of the copy the facts were checked on
    prompt_set: PromptSet            # the release's prompts, versions `release:<template digest>`, request shape
    counter: Callable[[str, str], int] | None  # None: the harness's counter (not trusted)
    counter_file: str                # relpath of the release's syllable module ("" when it counts none)
    comparable: tuple[str, ...]      # the published numbers this run can stand beside
    not_comparable: tuple[str, ...]  # and those it cannot, each with why
    templates: dict[str, str] = field(default_factory=dict)           # template name -> SHA-256 as read
    examined_templates: dict[str, str] = field(default_factory=dict)  # and as the facts' reader read it
    # The official scorer version the folder ships (SPEC §7c): its name (None: the plug-in does not
    # tell), how it was told ("sha256 of …", "content of …", "unknown") and, when unknown, the one
    # line the run prints (it then scores with the newest version).
    scorer_version: str | None = None
    scorer_identified_by: str | None = None
    scorer_notice: str | None = None


def release_dir(release_dir: Path | None, dataset: str | None) -> Path:
    """--release-dir, else the folder --dataset loaded (a snapshot folder, a data file's release
    folder, a hub id's cached snapshot); anything else is exit 2 saying what to give."""
    if release_dir is not None:
        if not Path(release_dir).is_dir():
            raise ConfigError(f"--release-dir {release_dir}: expected a folder; found none",
                              "give the folder `hf download ... --local-dir` wrote")
        return Path(release_dir)
    if dataset:
        path = Path(dataset)
        if path.is_dir():
            return path
        if path.is_file():
            return path.parent.parent if path.parent.name == "data" else path.parent
        from eval.io.hub import cached_snapshot

        snapshot = cached_snapshot(dataset)
        if snapshot is not None:
            return snapshot
    raise ConfigError("--protocol release needs the release folder: expected --release-dir DIR or --dataset DIR; "
                      f"found {'--dataset ' + dataset + ' (no local folder)' if dataset else 'neither'}",
                      "hf download the release (docs/release.md) and pass --release-dir with its folder")


def files_digest(files: dict[str, str]) -> str:
    """One short digest of every file used, for the signature."""
    joined = "\n".join(f"{path} {sha}" for path, sha in sorted(files.items()))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:12]


def protocol_block(release: ReleaseProtocol) -> dict:
    """The summary's `protocol` block: what was read, whether the counter is the release's, and
    what the numbers may stand beside."""
    return {
        "name": RELEASE,
        "release_dir": str(release.root),
        "files": {path: {"sha256": sha, "matches_examined_copy": release.examined.get(path) == sha}
                  for path, sha in sorted(release.files.items())},
        "templates": {name: {"sha256": sha, "matches_examined_copy": release.examined_templates.get(name) == sha}
                      for name, sha in sorted(release.templates.items())},
        "syllable_counter": counter_name(release),
        **({} if release.scorer_version is None else
           {"scorer_version": {"recognised": release.scorer_version if release.scorer_notice is None else None,
                               "identified_by": release.scorer_identified_by}}),
        "comparable_with": list(release.comparable),
        "not_comparable_with": list(release.not_comparable),
    }


def counter_name(release: ReleaseProtocol) -> str | None:
    """`release`, `harness` (the release's counter not trusted), or None for a benchmark without one."""
    if release.counter is not None:
        return RELEASE
    return HARNESS if release.counter_file else None


def signature_parts(release: ReleaseProtocol) -> tuple[str, ...]:
    """protocol:release, the files' digest, and counter:harness when the release's counter is not
    trusted (the pipeline's choice parts already say prompts:release and counter:release)."""
    untrusted = (f"counter:{HARNESS}",) if counter_name(release) == HARNESS else ()
    return (f"protocol:{RELEASE}", f"release:{files_digest(release.files)}", *untrusted)


def harness_counter_notice(counter_file: str) -> str:
    return (f"syllable metrics use this harness's counter, not the release's {counter_file} "
            "(pass --trust-release-code to run the release's counter)")


def protocol_markdown(block: dict | None) -> str:
    """report.md's section on the protocol ("" under the harness protocol, whose report is unchanged)."""
    return "\n".join(report_lines(block)) if block else ""


def report_lines(block: dict) -> list[str]:
    lines = ["", "## Protocol: release", "",
             f"protocol: release (Judge prompts, requests and reply parsing read from {block['release_dir']})", ""]
    lines += [f"- `{path}` sha256 `{entry['sha256']}`"
              + ("" if entry["matches_examined_copy"]
                 else " (differs from the copy the harness's facts were checked on)")
              for path, entry in block["files"].items()]
    matching = sum(entry["matches_examined_copy"] for entry in block["templates"].values())
    lines += ["", f"Judge templates as read: {matching} of {len(block['templates'])} identical to the ones the "
                  "harness's facts were checked on (`summary.json` `protocol.templates`).",
              "", f"Syllable counter: {block['syllable_counter'] or 'none (the benchmark counts no syllables)'}.",
              "", "Comparable with published numbers:"]
    lines += [f"- {item}" for item in block["comparable_with"]] or ["- none"]
    lines += ["", "Not comparable:"]
    lines += [f"- {item}" for item in block["not_comparable_with"]] or ["- none"]
    return lines + [""]


_BARE_SCORE = re.compile(r"(?:0(?:\.0+)?|0\.50*|1(?:\.0+)?)")
MAX_INTEGER_DIGITS = 4300  # Python's default int() limit, whatever limit this process has set


def loads_reply(text: str) -> object:
    """json.loads as a release reads a Judge reply, with an integer of more than 4,300 digits a
    ValueError (as under Python's default limit, where the release runs; a raised limit would make
    its reading quadratic). json.JSONDecodeError for text that is not JSON, RecursionError for
    nesting too deep: the caller decides what each means."""
    return json.loads(text, parse_int=_bounded_int)


def _bounded_int(digits: str) -> int:
    if len(digits) > MAX_INTEGER_DIGITS + digits.startswith("-"):
        raise ValueError(f"an integer of {len(digits):,} characters")
    return int(digits)


def bare_score(text: str) -> float | None:
    """A reply that is one score, as the releases read it: stripped, one optional `[…]` pair
    removed, then exactly 0, 0.5 or 1 with optional trailing zeros; None otherwise."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1].strip()
    return float(text) if _BARE_SCORE.fullmatch(text) else None


def validate_bare_quality(text: str) -> dict:
    """A validator for the shared Judge client: `{"quality": S}` from a bare-score reply."""
    from eval.judge_client import VerdictError

    score = bare_score(text)
    if score is None:
        raise VerdictError("not a bare score 0, 0.5 or 1 (the release's reply form)")
    return {"quality": score}
