"""Time the test suite as CI runs it (docs/testing.md#running-the-tests): wall and CPU time of
`python -m pytest -q tests` as a child process, with the machine's load before and after.

    python -m scripts.time_suite [--durations N] [PYTEST_ARGS ...]

`--durations N` also lists the N slowest tests. The suite's target is 150 s of wall time on the
2-core machine; on a shared machine the CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_WALL_S = 150.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--durations", type=int, default=0, metavar="N", help="list the N slowest tests too")
    args, pytest_args = parser.parse_known_args(argv)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(pytest_args or ["tests"])]
    if args.durations:
        command.append(f"--durations={args.durations}")
    load_before = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"suite: {wall:.0f} s wall, {cpu:.0f} s CPU (user + system, the tests' children included); "
          f"load {load_before:.1f} before, {os.getloadavg()[0]:.1f} after; {os.cpu_count()} cores; "
          f"target {TARGET_WALL_S:.0f} s wall: {'met' if wall <= TARGET_WALL_S else 'NOT met'}; pytest exit {done.returncode}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
