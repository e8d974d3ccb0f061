"""Short provider pauses for the tests that run the Judge or predict.py against a stand-in.

The Judge and predict.py build their `ProviderHealth` with its defaults: a breaker cool-down of 1 s
doubling to 8 s, a 5 s start-up deadline, a 0.5 s blind pause. The behaviour those settings time is
tested in tests/test_provider.py with short settings; a test of what the Judge or predict.py does
with a fault (abort, hint, cache, resume) only needs the same behaviour sooner. `quick_health`
makes both build their health with `QUICK` (a test's own values win), so a run that waited 3 to 7 s
for cool-downs ends in a fraction of a second, and returns the list of what was built, so a test can
still check the settings the product passed.

`virtual_pauses=True` also makes a 429 pause, and the open breaker's cool-down before its next
probe, pass at once on the health's own clock: when a request waits to start and nothing is in
flight (the last answer of a burst has landed, so every 429 of it counted from the same moment, as
in real time), the clock jumps to the moment it may start, and `skew` says how far it moved in all
(a wait the health does not take is never skipped, so a pause left unhonoured still shows); `waits`
lists the wait each 429 announced (None: no header), as `send` read it. The jump moves everything
timed on that clock (the no-success and start-up deadlines) with it, so the health's times and
give-ups are the ones a real wait would give, and a test measures them on `clock` (a lower bound
too: the clock never runs slower than real time); a stand-in that shares the clock (a `RateLimit`
given `clock=`) sees its window end too. The request timeouts, the retries' back-off and the
Judge's watcher keep real time.
"""

from __future__ import annotations

import asyncio
import time

QUICK = {"cooldown_s": 0.05, "cooldown_max_s": 0.4, "startup_deadline_s": 0.5, "blind_pause_s": 0.05}


def quick_class(*, virtual_pauses: bool = False, shorten: bool = True, **timing) -> type:
    """ProviderHealth with `QUICK` timings (`shorten=False`: the defaults) under the product's own
    settings (`passed` keeps those)."""
    from eval.providers.health import ProviderHealth

    class QuickHealth(ProviderHealth):
        def __init__(self, *args, **settings):
            self.passed = dict(settings)  # what the caller asked for, before the quick values
            self.skew = 0.0  # how far the virtual pauses moved the clock
            self.waits: list[float | None] = []  # what each 429 announced
            if virtual_pauses:
                settings.setdefault("clock", lambda: time.monotonic() + self.skew)
            super().__init__(*args, **{**(QUICK if shorten else {}), **timing, **settings})

        async def record_rate_limit(self, ticket, wait_s, cause="HTTP 429"):
            self.waits.append(wait_s)
            await super().record_rate_limit(ticket, wait_s, cause)

        def _event(self):
            # `acquire` asks for the event only when it is about to wait (for `wake`, computed as
            # below): a pause it does not honour is never skipped. With nothing in flight, nothing
            # but the clock can end the wait: jump to its end, wake the other waiters to look again,
            # and hand this one an event already set.
            if virtual_pauses and self.in_flight == 0:
                until = max(self.paused_until, self.next_probe_at) if self.breaker_open and not self.probing \
                    else self.paused_until
                if until > self.clock():
                    self.skew += until - self.clock()
                    self._wake()
                    ready = asyncio.Event()
                    ready.set()
                    return ready
            return super()._event()

    return QuickHealth


class _Set:
    """monkeypatch's setattr for a child process, which has no pytest and undoes nothing."""

    @staticmethod
    def setattr(target, name, value):
        setattr(target, name, value)


def child_prelude(root: str, script: str, **timing) -> str:
    """`python -c` code that runs `script` (argv after it) as `python script` does, on `QUICK` timings
    and `timing`: for a test of the process edge (exit status, stderr) whose fault would otherwise
    wait out the default cool-downs and retry back-off."""
    tests = f"{root}/tests"
    return (f"import runpy, sys; sys.path[0] = {root!r}; sys.path.insert(1, {tests!r}); import quick_health; "
            f"quick_health.quick_health(quick_health._Set(), **{timing!r}); sys.argv[0] = {script!r}; "
            f"runpy.run_path({script!r}, run_name='__main__')")


def quick_health(monkeypatch, *, virtual_pauses: bool = False, shorten: bool = True, **timing) -> list:
    """Patch the ProviderHealth the Judge and predict.py build; the list fills with each one built."""
    import eval.judge_client
    import eval.providers.health as health

    built: list = []
    base = quick_class(virtual_pauses=virtual_pauses, shorten=shorten, **timing)

    class Recorded(base):
        def __init__(self, *args, **settings):
            super().__init__(*args, **settings)
            built.append(self)

    monkeypatch.setattr(eval.judge_client, "ProviderHealth", Recorded)
    monkeypatch.setattr(health, "ProviderHealth", Recorded)  # predict.py imports it when it runs
    return built
