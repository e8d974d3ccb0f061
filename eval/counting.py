"""Which syllable counter a run's scoring uses (SPEC §8, §15).

This harness's counter (eval/syllable.py) unless the run scores under a release's own counter
(`--protocol release --trust-release-code`); the pipeline sets it around the scoring stage only,
so companion metrics (the strict rule set) keep this harness's counter.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Callable, Iterator

_COUNTER: ContextVar[Callable[[str, str], int] | None] = ContextVar("syllable_counter", default=None)


def count_syllables(text: str, lang: str) -> int:
    counter = _COUNTER.get()
    if counter is None:
        from eval.syllable import count_syllables as harness_count

        return harness_count(text, lang)
    return counter(text, lang)


@contextlib.contextmanager
def counting_with(counter: Callable[[str, str], int] | None) -> Iterator[None]:
    """Score with `counter` inside the block (None: this harness's)."""
    token = _COUNTER.set(counter)
    try:
        yield
    finally:
        _COUNTER.reset(token)
