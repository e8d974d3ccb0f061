"""The frozen settings of one run, built once at the command-line edge (eval/run/cli.py).

Everything below the CLI takes these records, never an argparse Namespace, so that a script, a
test or a benchmark can start a run without pretending to parse flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from eval.providers import openai_api
from eval.scoring.score_rows import ScoreRow
from eval.providers.openai_api import Endpoint

# The protocol names (SPEC §15), one set for every module: `harness` is also the name of the prompt
# set and syllable counter this harness ships (eval/benchmark.py), `release` that of the release's.
HARNESS = "harness"
RELEASE = "release"
PROTOCOLS = (HARNESS, RELEASE)

# The Judge's defaults (SPEC §10), here so that the command-line edge needs no Judge client.
DEFAULT_CONCURRENCY = 16
DEFAULT_MAX_RETRIES = 6
DEFAULT_TIMEOUT_S = 60.0  # why 60 s: see eval/judge_client.py
DEFAULT_DEADLINE_S = 30.0  # how long the provider may stay down before the run aborts (SPEC §10)
DEFAULT_BACKOFF_S = 1.0
MAX_BACKOFF_S = 8.0
DEFAULT_REPAIRS = 1  # repair turns after an invalid verdict (SPEC §10)


@dataclass(frozen=True)
class JudgeSettings(Endpoint):
    """Everything that decides how the Judge is asked (the endpoint's key is kept out of repr)."""

    concurrency: int = DEFAULT_CONCURRENCY
    reasoning_effort: str = "none"
    max_retries: int = DEFAULT_MAX_RETRIES
    timeout: float = DEFAULT_TIMEOUT_S
    backoff: float = DEFAULT_BACKOFF_S
    backoff_max: float = MAX_BACKOFF_S
    deadline: float = DEFAULT_DEADLINE_S
    params: dict | None = None  # chat request parameters a benchmark asks for instead of the shared ones
    repairs: int = DEFAULT_REPAIRS  # 0: abort at the first invalid verdict, as the original release did
    structured: bool | str = False  # --judge-structured: False, True / "json_schema", or "json_object"
    max_tokens: int | None = None  # --judge-max-tokens: the reply's token limit instead of the request's own
    price: object = None  # eval.judge.cost.Price (--judge-price), or None: no cost is computed (SPEC §18)
    budget: float | None = None  # --judge-budget USD: the run stops cleanly when its spend reaches it
    batch: bool = False  # --judge-batch: what the cache lacks goes as OpenAI Batch jobs first (SPEC §18)
    batch_wait: float | None = None  # --judge-batch-wait: seconds to wait for the batches (None: until done)
    batch_poll: float = 30.0  # --judge-batch-poll: seconds between two looks at the batches
    # The endpoint the model name routes to (SPEC §10: chat_completions or responses), resolved once
    # here from `model` and read everywhere else; not an argument, so `replace(model=...)` resolves anew.
    endpoint_kind: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "endpoint_kind", openai_api.endpoint_kind(self.model))


@dataclass(frozen=True)
class DataSource:
    """Where the rows come from: a JSONL file (`path`), a `datasets` name or path (`dataset`), or,
    with neither, the benchmark's bundled file."""

    path: Path | None = None
    dataset: str | None = None
    more_paths: tuple[Path, ...] = ()  # further --data files, read after `path` (IFMTBench's two release files)

    @property
    def paths(self) -> tuple[Path, ...]:
        return (self.path, *self.more_paths) if self.path is not None else ()


@dataclass(frozen=True)
class RunConfig:
    """One evaluate.py run: which benchmark, which data and predictions, which options and Judge."""

    benchmark: str                     # a registry name (eval/benchmarks.py), resolved, never "auto"
    predictions: Path
    output_dir: Path
    source: DataSource = DataSource()
    limit: int | None = None           # score the first N rows (a smoke run)
    case_ids: Path | None = None       # score exactly the ids listed in this file
    options: dict[str, str] = field(default_factory=dict)  # the benchmark's own settings (InstTrans: rule_set)
    prompt_set: str = HARNESS          # which of the benchmark's Judge prompt sets
    counter: str = HARNESS             # which of the benchmark's syllable counters
    judge: JudgeSettings | None = None  # None: --skip-judge
    judge_cache: Path | None = None    # default: <output_dir>/judge_cache.sqlite
    judge_calibration: Path | None = None  # a calibration.json of this Judge (SPEC §17); None: uncalibrated
    quiet: bool = False
    log_samples: bool = False          # scores.jsonl rows carry the prediction and the model input
    protocol: str = HARNESS            # "release": the release's prompt set, requests and counter (SPEC §15)
    release_dir: Path | None = None    # default: the folder --dataset loaded
    trust_release_code: bool = False   # import the release's syllable module (SPEC §15)
    only: Path | None = None           # score only the ids listed in this file (SPEC §16)
    exclude: Path | None = None        # score all but the ids listed in this file (SPEC §16)
    oracle: bool = False               # score each row's reference as its prediction (SPEC §16)
    estimate: bool = False             # print the Judge calls, tokens and cost still to pay; send nothing (SPEC §18)

    @property
    def skip_judge(self) -> bool:
        return self.judge is None

    @property
    def cache_path(self) -> Path:
        return self.judge_cache or self.output_dir / "judge_cache.sqlite"


@dataclass(frozen=True)
class RunResult:
    """What one run gave (eval/run/pipeline.py `run_evaluation`), in memory: nothing is read back from
    the files. `summary` is summary.json's content and `rows` scores.jsonl's rows in data order;
    an `--estimate` run writes nothing (summary None, no rows, no paths)."""

    exit_status: int
    output_dir: Path
    paths: tuple[Path, ...] = ()        # the result files written, in the order they were placed
    summary: dict | None = None
    rows: list[ScoreRow] = field(default_factory=list)  # eval/scoring/score_rows.py

    def _summary(self) -> dict:
        return self.summary if self.summary is not None else {}

    @property
    def formal(self) -> bool:
        return bool(self._summary().get("formal"))

    @property
    def signature(self) -> str | None:
        """The signature's text (summary.json `signature`); None when the run wrote no summary."""
        return self._summary().get("signature")

    @property
    def non_formal_reasons(self) -> list[str]:
        return list(self._summary().get("non_formal_reasons") or [])

    def metric(self, name: str) -> float | None:
        """A headline metric's value (`if_score`, `quality`, `hard_pass_rate`; Sandglass: `score`, ...)."""
        entry = self._summary().get(name)
        return entry.get("value") if isinstance(entry, dict) else entry

    def interval(self, name: str) -> tuple[float, float] | None:
        """A headline metric's 95% bootstrap interval, or None when it was not scored."""
        entry = self._summary().get(name)
        ci = entry.get("ci95") if isinstance(entry, dict) else None
        return tuple(ci) if ci else None

    def failed(self, constraint_id: str) -> list[ScoreRow]:
        """The rows where a hard constraint failed (each row's `constraints` entry says why)."""
        return [row for row in self.rows
                if any(entry.id == constraint_id and entry.passed is False for entry in row.constraints or ())]
