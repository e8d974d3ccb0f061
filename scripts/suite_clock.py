"""A pytest plugin for scripts/time_suite.py: each test's wall and CPU seconds, one JSON line per
test appended to the file named by SUITE_CLOCK_FILE (each xdist worker appends its own lines).

CPU is the process's user + system time and its reaped children's (the subprocesses a test runs),
so a file's figure is steady on a shared machine where wall time is not; a test whose wall time
far exceeds its CPU time is waiting (a sleep, a timeout, a server). Fixture set-up counts to the
test that first needs it. Loaded by `-p scripts.suite_clock`; without SUITE_CLOCK_FILE it records
nothing.
"""

from __future__ import annotations

import json
import os
import time

import pytest


def cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path = os.environ.get("SUITE_CLOCK_FILE")
    wall, cpu = time.perf_counter(), cpu_seconds()
    yield
    if path:
        line = json.dumps({"test": item.nodeid, "wall": round(time.perf_counter() - wall, 4),
                           "cpu": round(cpu_seconds() - cpu, 4)})
        with open(path, "a", encoding="utf-8") as handle:  # one short append per test: workers do not interleave
            handle.write(line + "\n")
