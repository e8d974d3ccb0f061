"""Comparing runs (SPEC §12): paired significance of B − A, the signature check, Judge agreement.

    python -m eval.compare RUN_A RUN_B [RUN_C ...] [--json PATH] [--seed N] [--resamples N] [--force]

A RUN is an output directory of evaluate.py (any benchmark: each declares the per-unit values of
its metrics, `Benchmark.compare_groups`, and compare only resamples them). Instances are paired by case_id;
every metric is a weighted mean over paired units, so one bootstrap weight matrix and one sign
matrix serve every metric at once (sacreBLEU's paired bootstrap and `--paired-ar`, vectorised).
With more than two runs each is compared with the first.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from eval.benchmark import Benchmark
from eval.benchmarks import DEFAULT_BENCHMARK, get_benchmark
from eval.errors import CompareError
from eval.flags import HarnessParser
from eval.scoring.pairing import metric_rows
from eval.provenance import Signature
from eval.scoring.score_rows import ScoreRow, Status, row_from_dict

DEFAULT_SEED = 12345
DEFAULT_RESAMPLES = 10000
SIGNIFICANCE = 0.05
_CHUNK = 500  # resamples per matrix product: keeps memory at CHUNK x n

JUDGE_KEYS = {"judge", "host", "endpoint"}


# ---------------------------------------------------------------------------------------------
# Reading runs
# ---------------------------------------------------------------------------------------------

# What a run folder may hold (they are hostile input: another machine's folder, a hand edit, a
# truncated copy). evaluate.py writes numbers well inside these bounds and nests a few levels deep.
MAX_SUMMARY_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 64 * 1024 * 1024
MAX_JSON_DEPTH = 64
MAX_NUMBER = 1e15  # any larger number is no score, count or time; keeps sums and means finite
RERUN_HINT = "rerun evaluate.py into this directory (the file is not as evaluate.py wrote it)"
# What a benchmark's reader raises on a field of the wrong type or a missing one.
BROKEN = (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError, ZeroDivisionError,
          RecursionError)


class _Unreadable(ValueError):
    """A run file's value this harness never writes (the message says which)."""


def _reject_constant(name: str) -> float:
    raise _Unreadable(f"the non-number {name}")


def _finite_float(text: str) -> float:
    value = float(text)
    if not abs(value) <= MAX_NUMBER:
        raise _Unreadable(f"the number {text[:20]} (beyond ±{MAX_NUMBER:g})")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 16:
        raise _Unreadable(f"an integer of {len(text)} digits (beyond ±{MAX_NUMBER:g})")
    return int(text)


def _depth(value: object) -> int:
    """The nesting depth of parsed JSON, without recursion; stops once past MAX_JSON_DEPTH."""
    deepest, stack = 0, [(value, 1)]
    while stack and deepest <= MAX_JSON_DEPTH:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, level + 1) for child in item)
    return deepest


def strict_json(text: str | bytes) -> object:
    """json.loads for a run's files: no NaN or Infinity, no number beyond ±MAX_NUMBER, nesting at most
    MAX_JSON_DEPTH; anything else is a ValueError whose message says what was found (never the text)."""
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except _Unreadable:
        raise
    except RecursionError:
        raise _Unreadable(f"JSON nested deeper than Python's parser goes (at most {MAX_JSON_DEPTH} levels are read)") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise _Unreadable(f"text that is not JSON ({_brief_json(error)})") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise _Unreadable(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def _brief_json(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at column {error.colno}"
    return type(error).__name__


def brief(error: BaseException) -> str:
    """An exception in a few words on one line, never a long quote of the data."""
    if isinstance(error, KeyError):
        text = f"no field {str(error.args[0])[:60]!r}" if error.args else "a missing field"
    else:
        text = f"{type(error).__name__}: {error}"
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157] + "..."


@dataclass
class Run:
    """One output directory: its summary and its score rows keyed by case_id (data order kept), with
    each row's line in scores.jsonl (for messages)."""

    path: Path
    name: str
    summary: dict
    scores: dict[str, ScoreRow] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    @property
    def summary_path(self) -> Path:
        return self.path / "summary.json"

    @property
    def scores_path(self) -> Path:
        return self.path / "scores.jsonl"

    @functools.cached_property
    def signature(self) -> Signature:
        """The run's signature, read once (check_summary has refused one that cannot be read)."""
        return Signature.from_summary(self.summary)

    @property
    def benchmark(self) -> str:
        """The benchmark's name; a summary of an older harness, without one, is the default's."""
        return self.summary.get("benchmark") or DEFAULT_BENCHMARK

    @property
    def bench(self) -> Benchmark:
        try:
            return get_benchmark(self.benchmark)
        except ValueError as error:
            raise CompareError(f"{self.path}: {error}", "compare runs of a benchmark this harness knows") from None

    def subset(self, case_ids: list[str]) -> "Run":
        """The same run with only `case_ids`' rows (to find the row a reader fails on)."""
        return Run(self.path, self.name, self.summary, {cid: self.scores[cid] for cid in case_ids},
                   {cid: self.lines[cid] for cid in case_ids if cid in self.lines})


def read_summary_file(path: Path) -> dict:
    """summary.json of a run folder, parsed strictly and checked (check_summary); anything else is a
    CompareError naming the file and the field."""
    summary_path = Path(path) / "summary.json"
    if not summary_path.is_file():
        raise CompareError(f"{summary_path} does not exist",
                           "a RUN is an output directory of evaluate.py that finished (it has summary.json)")
    try:
        with summary_path.open("rb") as handle:
            data = handle.read(MAX_SUMMARY_BYTES + 1)
        if len(data) > MAX_SUMMARY_BYTES:
            raise _Unreadable(f"more than {MAX_SUMMARY_BYTES:,} bytes")
        summary = strict_json(data)
        check_summary(summary)
    except (ValueError, OSError) as error:
        raise CompareError(f"{summary_path}: {error}", RERUN_HINT) from None
    return summary  # type: ignore[return-value]


def load_run(path: Path, name: str | None = None) -> Run:
    """Read summary.json and scores.jsonl of a run directory; a missing or broken file is a
    CompareError naming the file, the line and the field (never a traceback: exit 2 at the edge)."""
    path = Path(path)
    scores_path = path / "scores.jsonl"
    summary = read_summary_file(path)
    if not scores_path.is_file():
        raise CompareError(f"{scores_path} does not exist",
                           "a RUN is an output directory of evaluate.py that finished (it has summary.json)")
    scores: dict[str, ScoreRow] = {}
    lines: dict[str, int] = {}
    number = 0
    try:
        with scores_path.open("rb") as handle:
            for number, raw in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""), 1):
                if len(raw) > MAX_LINE_BYTES:
                    raise _Unreadable(f"a line of more than {MAX_LINE_BYTES:,} bytes")
                if not raw.strip():
                    continue
                row = row_from_dict(strict_json(raw))  # one ScoreRowError (a ValueError) naming the field
                scores[row.case_id] = row
                lines[row.case_id] = number
    except (ValueError, OSError) as error:
        raise CompareError(f"{scores_path}: line {number}: {error}", RERUN_HINT) from None
    return Run(path, name or path.name, summary, scores, lines)


def kind_of(value: object) -> str:
    return "null" if value is None else {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def _expect(value: object, kinds: tuple[type, ...], field_name: str, what: str) -> None:
    """ValueError naming the field unless `value` is of `kinds` (None allowed when listed; a bool is
    never taken for a number)."""
    if isinstance(value, bool) and bool not in kinds:
        ok = False
    else:
        ok = value is None if value is None else isinstance(value, kinds)
    if not ok:
        raise _Unreadable(f"field {field_name}: expected {what}, found {kind_of(value)}")


_NUMBER = (int, float)


def check_summary(summary: object) -> None:
    """ValueError naming the field unless `summary` has what compare and the leaderboard read, of the
    types evaluate.py writes: the signature, data (sha256, n_instances), benchmark, the Judge block's
    parameters and prompt versions, the predictions and system blocks, each headline entry."""
    if not isinstance(summary, dict):
        raise _Unreadable(f"expected an object, found {kind_of(summary)}")
    if not isinstance(summary.get("signature"), str):
        raise _Unreadable(f"field signature: expected a string, found {kind_of(summary.get('signature'))}"
                          if "signature" in summary else "no signature")
    try:  # its fields (an older harness's summary has only the text, parsed here)
        Signature.from_summary(summary)
    except ValueError as error:
        raise _Unreadable(str(error)) from None
    data = summary.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("sha256"), str):
        raise _Unreadable("no data.sha256" if not isinstance(data, dict) or "sha256" not in data
                          else f"field data.sha256: expected a string, found {kind_of(data['sha256'])}")
    _expect(data.get("n_instances"), (int, type(None)), "data.n_instances", "an integer")
    _expect(summary.get("benchmark"), (str, type(None)), "benchmark", "a benchmark's name")
    for block, fields in (("judge", ("params", "prompt_versions")), ("predictions", ()), ("system", ()),
                          ("overall", ()), ("by_constraint", ())):
        value = summary.get(block)
        _expect(value, (dict, type(None)), block, "an object")
        for inner in fields:
            _expect((value or {}).get(inner), (dict, type(None)), f"{block}.{inner}", "an object")
    _expect((summary.get("system") or {}).get("model"), (str, type(None)), "system.model", "a string")
    _expect((summary.get("predictions") or {}).get("sha256"), (str, type(None)), "predictions.sha256", "a string")
    for name, entry in summary.items():
        if isinstance(entry, dict) and "value" in entry and "ci95" in entry:  # a headline metric's block
            _expect(entry["value"], (*_NUMBER, type(None)), f"{name}.value", "a number or null")
            interval = entry["ci95"]
            if interval is not None and not (isinstance(interval, list) and len(interval) == 2 and all(
                    bound is None or (isinstance(bound, _NUMBER) and not isinstance(bound, bool)) for bound in interval)):
                raise _Unreadable(f"field {name}.ci95: expected [low, high] or null, found {kind_of(interval)}")


def _fails(probe, run: Run) -> BaseException | None:
    try:
        probe(run)
    except BROKEN as error:
        return error
    return None


def _failing_row(probe, run: Run, case_ids: list[str]) -> tuple[str, BaseException] | None:
    """A row that fails `probe` on its own, found by halving (about 2n rows read in all, not n
    probes of the whole run); None when only rows together fail."""
    while len(case_ids) > 1:
        half = len(case_ids) // 2
        for part in (case_ids[:half], case_ids[half:]):
            if _fails(probe, run.subset(part)) is not None:
                case_ids = part
                break
        else:
            return None
    if not case_ids:
        return None
    error = _fails(probe, run.subset(case_ids))
    return (case_ids[0], error) if error is not None else None


def blame(runs: list[Run], probe, what: str, error: BaseException) -> CompareError:
    """The one-line error for a benchmark's reader (`probe(run)`) that failed on `runs`: the first run
    whose reading alone fails, and in it a score row that fails alone (its file and line), else
    its summary.json. Costs nothing unless something already failed."""
    for run in runs:
        found = _fails(probe, run)
        if found is None:
            continue
        alone = _fails(probe, run.subset([]))  # the summary without any row
        row = None if alone is not None else _failing_row(probe, run, list(run.scores))
        if row is not None:
            cid, row_error = row
            return CompareError(f"{run.scores_path}: line {run.lines.get(cid, '?')} (case_id {cid[:80]!r}): "
                                f"{what} cannot read this score row ({brief(row_error)})", RERUN_HINT)
        return CompareError(f"{run.summary_path}: {what} cannot read this summary ({brief(alone or found)})",
                            RERUN_HINT)
    names = " and ".join(str(run.path) for run in runs)
    return CompareError(f"{names}: {what} failed on these runs together ({brief(error)})", RERUN_HINT)


def run_names(paths: list[Path]) -> list[str]:
    """Directory names, or the paths as given when two directories share a name."""
    names = [Path(path).name or str(path) for path in paths]
    return names if len(set(names)) == len(names) else [str(path) for path in paths]


# ---------------------------------------------------------------------------------------------
# Signatures
# ---------------------------------------------------------------------------------------------

def judge_keys(summary: dict) -> set[str]:
    """The signature keys that describe the Judge: model, host, endpoint, parameters, prompts."""
    judge = summary.get("judge") or {}
    keys = set(JUDGE_KEYS) | set((judge.get("params") or {}))
    keys |= {f"prompt.{name}" for name in (judge.get("prompt_versions") or {})}
    return keys


def signature_check(a: Run, b: Run) -> dict:
    """Every way B's configuration differs from A's, beyond the predictions (SPEC §12).

    The signatures are compared field by field (eval/provenance.py `Signature`). The `system:` part
    belongs to the predictions and may differ, and `judge-calibration:` only says what is known
    about the Judge (SPEC §17), not how it scored. Data is compared by the full SHA-256 of the
    summary, not only the signature's prefix.
    """
    differences = a.signature.differences(b.signature, ignore=("system", "judge-calibration"))
    sha_a, sha_b = a.summary["data"]["sha256"], b.summary["data"]["sha256"]
    if sha_a != sha_b and not any(item["key"] == "data" for item in differences):
        differences.append({"key": "data.sha256", "a": sha_a, "b": sha_b})
    if a.benchmark != b.benchmark and not any(item["key"] == "bench" for item in differences):
        differences.append({"key": "benchmark", "a": a.benchmark, "b": b.benchmark})
    judge_side = judge_keys(a.summary) | judge_keys(b.summary)
    return {"a": a.summary["signature"], "b": b.summary["signature"], "compatible": not differences,
            "differences": differences,
            "judge_only": bool(differences) and all(item["key"] in judge_side for item in differences)}


def describe_differences(differences: list[dict]) -> str:
    return "; ".join(f"{item['key']}: {item['a']!r} vs {item['b']!r}" for item in differences)


# ---------------------------------------------------------------------------------------------
# Pairing
# ---------------------------------------------------------------------------------------------

def pair_case_ids(a: Run, b: Run) -> tuple[list[str], dict]:
    """The case_ids both runs scored, in A's order, and what either lacks."""
    only_a = [case_id for case_id in a.scores if case_id not in b.scores]
    only_b = [case_id for case_id in b.scores if case_id not in a.scores]
    paired = [case_id for case_id in a.scores if case_id in b.scores]
    return paired, {"paired": len(paired), "only_in_a": only_a, "only_in_b": only_b}


def describe_pairing(pairing: dict, a: Run, b: Run) -> str:
    parts = []
    for key, run in (("only_in_a", a), ("only_in_b", b)):
        ids = pairing[key]
        if ids:
            shown = ", ".join(ids[:5]) + (" …" if len(ids) > 5 else "")
            parts.append(f"{len(ids)} case_ids only in {run.name} ({shown})")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------

def paired_statistics(units: dict, resamples: int, seed: int) -> dict:
    """{metric: {a, b, delta, ci95, p_value, n}} for metrics that share one list of units.

    ci95: percentile interval of the delta over `resamples` paired bootstrap resamples (units
    drawn with replacement, A and B together). p_value: paired approximate randomization, each
    unit's A and B swapped with probability 1/2; p = (1 + #{|Δ*| ≥ |Δ|}) / (1 + resamples).
    Both are seeded, so the same inputs give the same numbers.
    """
    import numpy

    if not units:
        return {}
    names = list(units)
    a = numpy.array([units[name].a for name in names], dtype=float).T   # n x m
    b = numpy.array([units[name].b for name in names], dtype=float).T
    w = numpy.array([units[name].weight for name in names], dtype=float).T
    n = a.shape[0]
    total = w.sum(axis=0)
    mean_a, mean_b = (w * a).sum(axis=0) / total, (w * b).sum(axis=0) / total
    wd = w * (b - a)
    observed = wd.sum(axis=0) / total

    rng = numpy.random.default_rng(seed)
    boot = numpy.empty((resamples, len(names)))
    extreme = numpy.zeros(len(names), dtype=numpy.int64)
    tolerance = 1e-12 * numpy.maximum(1.0, numpy.abs(observed))
    offsets = None
    for start in range(0, resamples, _CHUNK):
        size = min(_CHUNK, resamples - start)
        draws = rng.integers(0, n, size=(size, n))
        if offsets is None or offsets.shape[0] != size:
            offsets = (numpy.arange(size) * n)[:, None]
        counts = numpy.bincount((draws + offsets).ravel(), minlength=size * n).reshape(size, n).astype(float)
        with numpy.errstate(invalid="ignore", divide="ignore"):
            boot[start:start + size] = (counts @ wd) / (counts @ w)
        signs = rng.integers(0, 2, size=(size, n)).astype(float) * 2.0 - 1.0
        shuffled = (signs @ wd) / total
        extreme += (numpy.abs(shuffled) >= numpy.abs(observed) - tolerance).sum(axis=0)
    low, high = numpy.nanpercentile(boot, [2.5, 97.5], axis=0)
    result = {}
    for index, name in enumerate(names):
        result[name] = {
            "a": round(float(mean_a[index]), 6),
            "b": round(float(mean_b[index]), 6),
            "delta": round(float(observed[index]), 6),
            "ci95": [round(float(low[index]), 6), round(float(high[index]), 6)],
            "p_value": round(float((1 + extreme[index]) / (1 + resamples)), 6),
            "n": int(numpy.count_nonzero(w[:, index])),
        }
    return result


def cohen_kappa(labels_a: list[float], labels_b: list[float]) -> float | None:
    """Cohen's κ of two raters on the same items; None when chance agreement is total (both
    raters gave one and the same label to everything, so κ is undefined)."""
    n = len(labels_a)
    if n == 0:
        return None
    categories = sorted(set(labels_a) | set(labels_b))
    observed = sum(x == y for x, y in zip(labels_a, labels_b)) / n
    expected = sum((labels_a.count(c) / n) * (labels_b.count(c) / n) for c in categories)
    if expected >= 1.0:
        return None
    return round((observed - expected) / (1 - expected), 6)


def agreement(labels_a: list[float], labels_b: list[float]) -> dict:
    """Exact-match rate, Cohen's κ and the confusion table (A's label → B's label → count)."""
    n = len(labels_a)
    confusion: dict[str, dict[str, int]] = {}
    for x, y in zip(labels_a, labels_b):
        row = confusion.setdefault(f"{x:g}", {})
        row[f"{y:g}"] = row.get(f"{y:g}", 0) + 1
    return {"n": n, "exact_match": None if n == 0 else round(sum(x == y for x, y in zip(labels_a, labels_b)) / n, 6),
            "kappa": cohen_kappa(labels_a, labels_b), "confusion": confusion}


# ---------------------------------------------------------------------------------------------
# Judge agreement: the same predictions under two Judges
# ---------------------------------------------------------------------------------------------

def same_predictions(a: Run, b: Run, case_ids: list[str]) -> tuple[bool | None, str]:
    """(same?, how we know). Rows that carry the prediction (the benchmark's `prediction_field`)
    are compared text by text; otherwise the summaries' predictions-file SHA-256. Without either
    it cannot be told (None)."""
    field_name = a.bench.data.prediction_field
    if field_name is not None:
        same = all(a.scores[cid].get(field_name) == b.scores[cid].get(field_name) for cid in case_ids)
        return same, f"the prediction texts in scores.jsonl ({field_name})"
    sha_a = (a.summary.get("predictions") or {}).get("sha256")
    sha_b = (b.summary.get("predictions") or {}).get("sha256")
    if sha_a is None or sha_b is None:
        return None, "a summary lacks predictions.sha256 (a run from an older harness)"
    return sha_a == sha_b, "the predictions file's SHA-256 in summary.json"


def judge_agreement(a: Run, b: Run, case_ids: list[str]) -> dict:
    """Per kind of verdict (the benchmark's `judge_labels`: quality, each soft id): exact-match rate
    and Cohen's κ between the two runs' Judge verdicts, over instances with a prediction (missing
    ones get no Judge call)."""
    bench = a.bench
    judged = [cid for cid in case_ids if a.scores[cid].status is Status.OK and b.scores[cid].status is Status.OK]
    kinds: dict[str, tuple[list[float], list[float]]] = {}
    for cid in judged:
        labels_a, labels_b = bench.judge.judge_labels(a.scores[cid]), bench.judge.judge_labels(b.scores[cid])
        for kind, label in labels_a.items():
            if kind in labels_b:
                pair = kinds.setdefault(kind, ([], []))
                pair[0].append(label)
                pair[1].append(labels_b[kind])
    order = list(bench.judge.judge_label_order)
    ranked = sorted(kinds, key=lambda kind: order.index(kind) if kind in order else len(order))
    return {kind: agreement(*kinds[kind]) for kind in ranked}


# ---------------------------------------------------------------------------------------------
# One comparison, many comparisons
# ---------------------------------------------------------------------------------------------

def compare_runs(a: Run, b: Run, seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
                 force: bool = False) -> dict:
    """A against B: signature check, pairing, paired statistics, and Judge agreement when the
    same predictions were judged differently. Raises CompareError on an incompatible signature
    or unpaired rows unless `force` (then the differences are recorded)."""
    if a.benchmark != b.benchmark:  # --force cannot help: no instance pairs, no metric is shared
        raise CompareError(f"{a.name} and {b.name} are runs of two benchmarks ({a.bench.title} and {b.bench.title})",
                           "compare runs of one benchmark; a leaderboard per benchmark lists them side by side")
    check = signature_check(a, b)
    paired, pairing = pair_case_ids(a, b)
    unpaired = bool(pairing["only_in_a"] or pairing["only_in_b"])
    if (not check["compatible"] or unpaired) and not force:
        problems, hints = [], []
        if not check["compatible"]:
            problems.append(describe_differences(check["differences"]))
            hints.append("compare runs of the same data, rules, Judge and harness version")
        if unpaired:
            problems.append(f"they do not pair up: {describe_pairing(pairing, a, b)}")
            hints.append("both runs must score the same instances")
        hint = "; ".join(hints) + " (--force compares the common instances anyway and records the differences)"
        if check["judge_only"] and not unpaired and same_predictions(a, b, paired)[0]:
            hint = "the same predictions under two Judges: --force reports the Judges' agreement"
        raise CompareError(f"{a.name} and {b.name} are not comparable: " + "; ".join(problems), hint)
    if not paired:
        raise CompareError(f"{a.name} and {b.name} have no case_id in common", "compare runs of the same data")
    bench = a.bench
    sections: dict[str, dict] = {"metrics": {}, "by_constraint": {}, **{name: {} for name in bench.compare.compare_sections}}
    try:
        statistics = [paired_statistics(group, resamples, seed) for group in bench.compare_groups(a, b, paired)]
    except BROKEN as error:  # a score row or summary without what its benchmark's rows hold
        raise blame([a, b], _units_probe, "compare", error) from None
    for group_statistics in statistics:
        # Metrics over the same units share one set of resamples: one weight and one sign matrix.
        for path, stats in group_statistics.items():
            place = sections[path[0]]
            for key in path[1:-1]:
                place = place.setdefault(key, {})
            place[path[-1]] = stats
    result = {"a": a.name, "b": b.name, "signature_check": check, "pairing": pairing,
              "forced": force and (not check["compatible"] or unpaired),
              "metrics": sections.pop("metrics"), "by_constraint": sections.pop("by_constraint"),
              "judge_agreement": None, **sections}
    same, how = same_predictions(a, b, paired)
    result["same_predictions"] = {"same": same, "by": how}
    if same and check["judge_only"]:
        try:
            result["judge_agreement"] = judge_agreement(a, b, paired)
        except BROKEN as error:
            raise blame([a, b], lambda run: judge_agreement(run, run, list(run.scores)), "the Judge agreement",
                        error) from None
    return result


def _units_probe(run: Run) -> None:
    """A run's metrics against itself: what compare reads of each row and of the summary."""
    for group in run.bench.compare_groups(run, run, list(run.scores)):
        if run.scores:  # with no row, only what compare reads of the summary
            paired_statistics(group, 100, 0)


def compare(paths: list[Path], seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
            force: bool = False) -> dict:
    """Every run against the first; the top-level `signature_check`, `metrics` and
    `by_constraint` are those of the first comparison, all of them are in `comparisons`."""
    return compare_read(paths, seed, resamples, force)[0]


def compare_read(paths: list[Path], seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
                 force: bool = False) -> tuple[dict, list[Run]]:
    """`compare`, and the runs it read, for a page that shows them too (read once: a run's
    scores.jsonl can be large)."""
    if len(paths) < 2:
        raise CompareError("give at least two runs", "python -m eval.compare RUN_A RUN_B")
    if resamples < 100:
        raise CompareError(f"--resamples must be at least 100, got {resamples}", "the default is 10000")
    if seed < 0:
        raise CompareError(f"--seed must be a non-negative integer, got {seed}", f"the default is {DEFAULT_SEED}")
    runs = [load_run(path, name) for path, name in zip(paths, run_names(paths))]
    comparisons = [compare_runs(runs[0], run, seed, resamples, force) for run in runs[1:]]
    first = comparisons[0]
    return {
        "runs": [{"name": run.name, "path": str(run.path), "benchmark": run.benchmark,
                  "signature": run.summary["signature"], "n": len(run.scores)} for run in runs],
        "seed": seed, "resamples": resamples,
        "signature_check": first["signature_check"], "metrics": first["metrics"],
        "by_constraint": first["by_constraint"], "judge_agreement": first["judge_agreement"],
        "comparisons": comparisons,
    }, runs


def result_json(result: dict) -> str:
    """The --json text: strict JSON (no NaN or Infinity, which other readers reject), or exit 2."""
    try:
        return json.dumps(result, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    except ValueError:
        raise CompareError("the comparison holds a number that is not finite (NaN or Infinity), which JSON "
                           "cannot carry", "check the runs' score rows for values evaluate.py never writes, "
                           "and rerun evaluate.py into those directories") from None


# ---------------------------------------------------------------------------------------------
# The printed table
# ---------------------------------------------------------------------------------------------

def _mark(p_value: float) -> str:
    return "**" if p_value < 0.01 else "*" if p_value < SIGNIFICANCE else ""


def format_comparison(comparison: dict, lower_is_better: frozenset[str] = frozenset(),
                      sections: tuple[str, ...] = ()) -> list[str]:
    """Lines of the table of one comparison, significant deltas marked * (p < 0.05) and ** (p < 0.01),
    metrics where smaller is better (the benchmark declares them) noted beside the delta; `sections`:
    the benchmark's result sections beside `by_constraint`."""
    lines = [f"A = {comparison['a']}   B = {comparison['b']}   ({comparison['pairing']['paired']} paired instances)"]
    check = comparison["signature_check"]
    if not check["compatible"]:
        lines.append("  FORCED: signatures differ: " + describe_differences(check["differences"]))
    if comparison["pairing"]["only_in_a"] or comparison["pairing"]["only_in_b"]:
        lines.append(f"  FORCED: compared on the common instances only "
                     f"({len(comparison['pairing']['only_in_a'])} only in A, "
                     f"{len(comparison['pairing']['only_in_b'])} only in B)")
    rows = metric_rows(comparison, sections)
    width = max([len(name) for name, _ in rows] + [6])
    lines.append(f"  {'metric':<{width}}  {'n':>5}  {'A':>8}  {'B':>8}  {'B − A':>8}  {'95% CI of B − A':>20}  {'p':>7}")
    for name, stats in rows:
        note = "  (lower is better)" if name.split()[-1] in lower_is_better else ""
        interval = f"[{stats['ci95'][0]:+.4f}, {stats['ci95'][1]:+.4f}]"
        lines.append(f"  {name:<{width}}  {stats['n']:>5}  {stats['a']:>8.4f}  {stats['b']:>8.4f}  "
                     f"{stats['delta']:>+8.4f}  {interval:>20}  {stats['p_value']:>7.4f} {_mark(stats['p_value']):<2}{note}")
    if comparison["judge_agreement"]:
        lines.append("  Judge agreement (same predictions, different Judge):")
        lines.append(f"    {'kind':<26}  {'n':>5}  {'exact':>7}  {'kappa':>7}")
        for kind, stats in comparison["judge_agreement"].items():
            kappa = "n/a" if stats["kappa"] is None else f"{stats['kappa']:.4f}"
            lines.append(f"    {kind:<26}  {stats['n']:>5}  {stats['exact_match']:>7.4f}  {kappa:>7}")
    return lines


def format_report(result: dict) -> str:
    bench = get_benchmark(result["runs"][0]["benchmark"])
    lines = []
    for comparison in result["comparisons"]:
        lines += format_comparison(comparison, bench.lower_is_better(), bench.compare.compare_sections) + [""]
    lines.append(f"* p < {SIGNIFICANCE}, ** p < 0.01 (paired approximate randomization, {result['resamples']} "
                 f"resamples, seed {result['seed']}); CI: paired bootstrap percentile interval. "
                 "p-values are not corrected for the number of metrics.")
    return "\n".join(lines)


def format_latex(result: dict) -> str:
    """Each comparison as a booktabs `tabular` for a paper: metric, n, A, B, B − A with its paired 95%
    interval, p and its mark; the runs, the marks and the tests named in `%` comments above it."""
    from eval.reports.latex import latex_escape, tabular

    bench = get_benchmark(result["runs"][0]["benchmark"])
    tables = []
    for comparison in result["comparisons"]:
        body = []
        for name, stats in metric_rows(comparison, bench.compare.compare_sections):
            depth = len(name) - len(name.lstrip(" "))
            label = r"\quad " * (depth // 2) + latex_escape(name.strip())
            if name.split()[-1] in bench.lower_is_better():
                label += r" ($\downarrow$)"
            mark = {"**": "$^{**}$", "*": "$^{*}$", "": ""}[_mark(stats["p_value"])]
            body.append([label, str(stats["n"]), f"{stats['a']:.4f}", f"{stats['b']:.4f}",
                         f"{stats['delta']:+.4f}{mark} {{\\scriptsize[{stats['ci95'][0]:+.4f}, {stats['ci95'][1]:+.4f}]}}",
                         f"{stats['p_value']:.4f}"])
        comments = [f"python -m eval.compare --latex: A = {comparison['a']}, B = {comparison['b']} "
                    f"({comparison['pairing']['paired']} paired instances); needs \\usepackage{{booktabs}}",
                    f"B - A with its paired bootstrap 95% interval; p: paired approximate randomization "
                    f"({result['resamples']} resamples, seed {result['seed']}), * p < {SIGNIFICANCE}, ** p < 0.01, "
                    "not corrected for the number of metrics; (down arrow): lower is better"]
        if comparison.get("forced"):
            comments.append("FORCED: " + describe_differences(comparison["signature_check"]["differences"]))
        tables.append(tabular(["metric", "n", "A", "B", "B - A [95% CI]", "p"], body, "lrrrrr", comments))
    return "\n".join(tables)


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = HarnessParser(prog="python -m eval.compare",
                                     description="Paired significance of the differences between runs (docs/compare.md).")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="output directories of evaluate.py; "
                        "each is compared with the first")
    stats = parser.add_argument_group("Statistics")
    stats.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    stats.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                       help=f"bootstrap and randomization resamples (default {DEFAULT_RESAMPLES})")
    checks = parser.add_argument_group("Checks and output")
    checks.add_argument("--force", action="store_true",
                        help="compare runs whose signatures differ or that do not pair up; differences are "
                             "printed and recorded")
    checks.add_argument("--json", type=Path, metavar="PATH", help="write the full result as JSON")
    checks.add_argument("--latex", type=Path, metavar="PATH",
                        help="write the table as booktabs LaTeX (deltas with their 95%% intervals, p-values) "
                             "for a paper")
    checks.add_argument("--html", type=Path, metavar="PATH",
                        help="write a page with the deltas as a chart and the changed instances side by side")
    return parser


def main(argv: list[str] | None = None) -> int:
    from eval.exits import run_cli

    def run(arguments: list[str] | None) -> int:
        args = build_parser().parse_args(arguments)
        result, runs = compare_read(args.runs, seed=args.seed, resamples=args.resamples, force=args.force)
        text = result_json(result) if args.json else None  # checked before anything is printed
        page = None
        if args.html:
            from eval.reports.compare_html import check_page_rows, render_compare_html

            try:
                page = render_compare_html(result, runs)
            except BROKEN as error:
                raise blame(runs, check_page_rows, "the compare page", error) from None
        print(format_report(result))
        if args.json:
            from eval.io.outputs import write_atomic

            write_atomic(args.json, text)
            print(f"wrote {args.json}")
        if args.latex:
            from eval.io.outputs import write_atomic

            write_atomic(args.latex, format_latex(result))
            print(f"wrote {args.latex}")
        if args.html:
            from eval.io.outputs import write_atomic

            write_atomic(args.html, page)
            print(f"wrote {args.html}")
        return 0

    return run_cli(run, argv)


if __name__ == "__main__":
    sys.exit(main())
