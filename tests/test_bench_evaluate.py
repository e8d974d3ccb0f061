"""scripts/bench_evaluate.py runs end to end and prints what docs/testing.md quotes from it (its
figures themselves are never checked here: they belong to the machine)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECONDS = r"(\d+\.\d+) s"


def test_the_floor_and_a_small_run_are_printed_with_their_cpu_times():
    done = subprocess.run([sys.executable, "-m", "scripts.bench_evaluate", "--floor", "--rows", "4", "--repeat", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    bare = [line for line in lines if line.startswith("floor: bare interpreter")]
    imports = [line for line in lines if line.startswith("floor: interpreter and the offline run's imports")]
    run = [line for line in lines if line.startswith("this: rows: 4;")]
    assert len(bare) == len(imports) == len(run) == 1, done.stdout
    bare_cpu = float(re.search(f"CPU time best {SECONDS}", bare[0]).group(1))
    imports_cpu = float(re.search(f"CPU time best {SECONDS}", imports[0]).group(1))
    assert imports_cpu > bare_cpu  # numpy and markdown-it are imported on top of the interpreter
    assert re.search(f"CPU time best {SECONDS}, median {SECONDS}", run[0])


def test_peak_prints_each_checkouts_own_peak_rss_per_size():
    done = subprocess.run([sys.executable, "-m", "scripts.bench_evaluate", "--peak", "--rows", "4", "--repeat", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    peak = [line for line in done.stdout.splitlines() if line.startswith("this: rows: 4; peak RSS")]
    assert len(peak) == 1, done.stdout
    megabytes = int(re.search(r"peak RSS (\d+) MB \(largest of 1 runs, each child's own\)", peak[0]).group(1))
    assert 10 < megabytes < 10_000  # a Python process with numpy: tens of MB, never the parent's or 0
