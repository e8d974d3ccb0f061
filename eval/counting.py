"""Which syllable counter a run's scoring uses (SPEC §8, §15).

The pipeline sets the counter the run chose (`Benchmark.counters[RunConfig.counter]`: this
harness's, or a trusted release's) around the scoring stage only, so companion metrics (the strict
rule set) keep this harness's counter; code that counts (the syllable_order rule, Sandglass's
scoring) asks `active_counter()` and falls back on eval/syllable.py outside a run.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Callable, Iterator

_COUNTER: ContextVar[Callable[[str, str], int] | None] = ContextVar("syllable_counter", default=None)


def active_counter() -> Callable[[str, str], int] | None:
    """The counter the scoring stage runs under, or None (this harness's, eval/syllable.py)."""
    return _COUNTER.get()


@contextlib.contextmanager
def counting_with(counter: Callable[[str, str], int] | None) -> Iterator[None]:
    """Score with `counter` inside the block (None: this harness's)."""
    token = _COUNTER.set(counter)
    try:
        yield
    finally:
        _COUNTER.reset(token)
