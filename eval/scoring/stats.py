"""Statistics every benchmark's metrics use (SPEC §9, §11): means that know an unknown value, the
seeded bootstrap interval, and a headline number `{value, ci95, n}`.

No benchmark's metric lives here: each benchmark declares and aggregates its own
(`eval/insttrans/metrics.py`, `eval/sandglass/metrics.py`) over these.
"""

from __future__ import annotations

import os
import sys

BOOTSTRAP_SEED = 20260929
BOOTSTRAP_SAMPLES = 1000


def mean_or_none(values: list) -> float | None:
    """The mean, or None when any value is unknown (a skipped Judge) or there are none."""
    if not values or any(value is None for value in values):
        return None
    return sum(values) / len(values)


def bootstrap_ci(values: list, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95% percentile bootstrap interval of the mean, with a fixed seed so reruns agree."""
    if not values or any(value is None for value in values):
        return None
    numpy = single_threaded_numpy()
    data = numpy.asarray(values, dtype=float)
    means = numpy.empty(samples)
    for start, indices in _resample_index_chunks(len(data), samples, seed):
        means[start:start + len(indices)] = data[indices].mean(axis=1)
    low, high = numpy.percentile(means, [2.5, 97.5])
    return [round(float(low), 6), round(float(high), 6)]


_SHARED_INDICES_LIMIT = 4_000_000  # indices kept for the next call of the same size (32 MB at most)
_CHUNK_INDICES = 1_000_000  # indices drawn at once past 10,000 values (8 MB, and 8 MB gathered)
_shared_indices: dict[tuple[int, int, int], list] = {}


def _resample_index_chunks(n: int, samples: int, seed: int):
    """(first resample, its index rows) in chunks of 100 resamples, fewer past 10,000 values (memory:
    about a million indices whatever n; 100 x 100,000 drawn at once took 160 MB): the draws of
    `default_rng(seed)`, exactly as one call makes them (every chunk but the last draws an even
    count, so numpy's 32-bit draws, two per 64-bit word, split no word between chunks). The last
    size's draws are kept when small enough, so metrics over the same instances (hard_pass_rate
    and its strict twin) resample the same rows without drawing them again (drawing is most of a
    bootstrap's time); the intervals are the same either way."""
    key = (n, samples, seed)
    if key in _shared_indices:
        yield from _shared_indices[key]
        return
    numpy = single_threaded_numpy()
    rng = numpy.random.default_rng(seed)
    keep = n * samples <= _SHARED_INDICES_LIMIT
    if keep:  # the last size's draws go before these are drawn: never two sizes' held at once (issue 34)
        _shared_indices.clear()
    chunks = []
    step = max(2, min(100, _CHUNK_INDICES // n // 2 * 2))
    for start in range(0, samples, step):
        indices = rng.integers(0, n, size=(min(start + step, samples) - start, n))
        if keep:  # int64 as drawn: a gather with int32 indices converts them again, at twice the cost
            chunks.append((start, indices))
        yield start, indices
    if keep:
        _shared_indices[key] = chunks


def single_threaded_numpy():
    """numpy, imported here (only the summary needs it) with OpenBLAS held to one thread unless the
    user chose otherwise: a bootstrap never calls BLAS, yet OpenBLAS starts a thread per core on
    import, which costs more CPU than the whole import (0.06 s of 0.13 s on two cores)."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import numpy

    return numpy


def headline(scores: list[dict], field: str, known: bool = True) -> dict:
    """{value, ci95, n} for one headline metric; value and ci95 are null when any value is
    unknown, or when the metric as a whole is not measured (`known` false: the Judge skipped)."""
    return headline_of([float(score[field]) if score[field] is not None and known else None for score in scores])


def headline_blocks(scores: list[dict], metrics: tuple, judged: bool, derived: dict | None = None) -> dict:
    """{name: {value, ci95, n}} of each headline metric (`Benchmark.headline_metrics`), in their
    order: a `Mean` over its scores.jsonl field (over the instances its `where` selects), not
    measured without the Judge when it needs it; a `Derived` one as the benchmark computed it
    (`derived`). The metrics are eval/benchmark.py's, read by their fields only."""
    blocks = {}
    for metric in metrics:
        field = getattr(metric.aggregation, "field", None)
        if field is None:
            blocks[metric.name] = (derived or {})[metric.name]
            continue
        where = metric.aggregation.where
        rows = scores if where is None else [score for score in scores if bool(score[where[0]]) == where[1]]
        blocks[metric.name] = headline(rows, field, known=judged or not metric.judge)
    return blocks


def headline_of(values: list[float | None]) -> dict:
    """`headline` of the values themselves (None: unknown), for a caller that keeps no rows."""
    value = mean_or_none(values)
    return {"value": None if value is None else round(value, 6), "ci95": bootstrap_ci(values), "n": len(values)}


def rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
