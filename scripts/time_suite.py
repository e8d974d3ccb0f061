"""Time the test suite as CI runs it (docs/testing.md#running-the-tests): wall and CPU time of
`python -m pytest -q -n auto tests` as a child process, with the machine's load before and after.

    python -m scripts.time_suite [--durations N] [--by-file N] [PYTEST_ARGS ...]

`--durations N` also lists the N slowest tests. `--by-file N` lists the N test files of most CPU
time with their wall time (scripts/suite_clock.py records every test, into SUITE_CLOCK_FILE when
that is set, which then keeps the records). The last line spreads the CPU time over the workers:
the least wall time a quiet machine with that many free cores would take. PYTEST_ARGS replace
`-n auto tests` (`-n 0 tests`: one process, as the suite ran before issue 33). The suite's target
is 150 s of wall time on the 2-core machine; on a shared machine the CPU time is the steadier
figure.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_WALL_S = 150.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--durations", type=int, default=0, metavar="N", help="list the N slowest tests too")
    parser.add_argument("--by-file", type=int, default=0, metavar="N", help="list the N test files of most CPU time")
    args, pytest_args = parser.parse_known_args(argv)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(pytest_args or ["-n", "auto", "tests"])]
    if args.durations:
        command.append(f"--durations={args.durations}")
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="time_suite-") as scratch:
        clock = Path(os.environ.get("SUITE_CLOCK_FILE") or Path(scratch) / "tests.jsonl")  # set: kept after
        if args.by_file:
            command[3:3] = ["-p", "scripts.suite_clock"]
            env["SUITE_CLOCK_FILE"] = str(clock)
        load_before = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=env)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        records = [json.loads(line) for line in clock.read_text(encoding="utf-8").splitlines()] if clock.exists() else []
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if args.by_file:
        print(by_file(records, args.by_file))
    workers = worker_count(command)
    print(f"suite: {wall:.0f} s wall, {cpu:.0f} s CPU (user + system, the tests' children included); "
          f"load {load_before:.1f} before, {os.getloadavg()[0]:.1f} after; {os.cpu_count()} cores; "
          f"{workers} worker(s): at least {cpu / min(workers, os.cpu_count() or 1):.0f} s wall on a quiet machine; "
          f"target {TARGET_WALL_S:.0f} s wall: {'met' if wall <= TARGET_WALL_S else 'NOT met'}; pytest exit {done.returncode}")
    return done.returncode


def worker_count(command: list[str]) -> int:
    """The processes running tests: `-n N` / `-nN` / `--numprocesses N` (auto: the cores), else 1."""
    for index, word in enumerate(command):
        value = None
        if word in ("-n", "--numprocesses") and index + 1 < len(command):
            value = command[index + 1]
        elif word.startswith("-n") and word[2:].isdigit():
            value = word[2:]
        elif word.startswith("--numprocesses="):
            value = word.split("=", 1)[1]
        if value is not None:
            if value in ("auto", "logical"):
                return os.cpu_count() or 1
            return max(int(value), 1) if value.isdigit() else 1
    return 1


def by_file(records: list[dict], limit: int) -> str:
    """The `limit` test files of most CPU time: CPU s, wall s, tests; then the totals."""
    files: dict[str, list[float]] = {}
    for record in records:
        totals = files.setdefault(record["test"].split("::")[0], [0.0, 0.0, 0])
        totals[0] += record["cpu"]
        totals[1] += record["wall"]
        totals[2] += 1
    ranked = sorted(files.items(), key=lambda item: (-item[1][0], item[0]))
    lines = [f"{'CPU s':>8} {'wall s':>8} {'tests':>6}  file"]
    lines += [f"{cpu:8.1f} {wall:8.1f} {count:6d}  {name}" for name, (cpu, wall, count) in ranked[:limit]]
    lines.append(f"{sum(v[0] for v in files.values()):8.1f} {sum(v[1] for v in files.values()):8.1f} "
                 f"{sum(v[2] for v in files.values()):6d}  all {len(files)} files (tests only: collection and "
                 "start-up are not in these rows)")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
