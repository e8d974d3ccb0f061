"""The frozen settings of one run, built once at the command-line edge (eval/cli.py).

Everything below the CLI takes these records, never an argparse Namespace, so that a script, a
test or a benchmark can start a run without pretending to parse flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the Judge client imports nothing heavy at module level
    from eval.judge_client import JudgeSettings


@dataclass(frozen=True)
class DataSource:
    """Where the rows come from: a JSONL file (`path`), a `datasets` name or path (`dataset`), or,
    with neither, the benchmark's bundled file."""

    path: Path | None = None
    dataset: str | None = None


@dataclass(frozen=True)
class RunConfig:
    """One evaluate.py run: which benchmark, which data and predictions, which rules and Judge."""

    benchmark: str                     # "insttrans" or "sandglass" (resolved, never "auto")
    predictions: Path
    output_dir: Path
    source: DataSource = DataSource()
    limit: int | None = None           # score the first N rows (a smoke run)
    case_ids: Path | None = None       # score exactly the ids listed in this file
    rule_set: str = "original"
    judge: JudgeSettings | None = None  # None: --skip-judge
    judge_cache: Path | None = None    # default: <output_dir>/judge_cache.sqlite
    quiet: bool = False
    protocol: str = "harness"          # "release": the release's Judge prompts and requests (SPEC §15)
    release_dir: Path | None = None    # default: the folder --dataset loaded
    trust_release_code: bool = False   # import the release's syllable module (SPEC §15)

    @property
    def skip_judge(self) -> bool:
        return self.judge is None

    @property
    def cache_path(self) -> Path:
        return self.judge_cache or self.output_dir / "judge_cache.sqlite"
