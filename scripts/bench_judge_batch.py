"""Measure a formal run's Judge phase on the bundled data, online and through the stand-in Batch
API (docs/judge.md "Batch jobs"): evaluate.py as a child process against tests/batch_server.py
(the Judge's stand-in verdicts, answered online or by batch; its batches complete on the third
look, so the batch time is the harness's own, not a provider's hours).

    python -m scripts.bench_judge_batch [--latency 0.02]

Prints, per path: the wall time of evaluate.py, the HTTP requests the server received (online
Judge requests, file uploads, batch creations and looks, file downloads), the Judge requests
answered by batch, and the tokens the stand-in reported (about four characters a token).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from batch_server import BatchServer  # noqa: E402


def run(server: BatchServer, out: Path, extra: list[str]) -> tuple[float, dict]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("JUDGE_API", "MODEL_API"))}
    env.update(JUDGE_API_BASE=server.base_url, JUDGE_API_KEY="bench-key")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--predictions",
                           str(ROOT / "data" / "example_predictions.jsonl"), "--output-dir", str(out), "--quiet",
                           *extra], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return elapsed, json.loads((out / "summary.json").read_text(encoding="utf-8"))


def tokens(usage: dict) -> tuple[int, int]:
    return (sum(counts["input_tokens"] for counts in usage.values()),
            sum(counts["output_tokens"] for counts in usage.values()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.02, help="seconds before each server answer")
    args = parser.parse_args(argv)
    print("| path | wall time | online Judge requests | other HTTP requests | answered by batch | tokens in | tokens out |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        for name, extra in (("online", []), ("batch", ["--judge-batch", "--judge-batch-poll", "0"])):
            with BatchServer() as server:
                server.latency = args.latency
                elapsed, summary = run(server, Path(scratch) / name, extra)
                online = len(server.online_posts())
                other = len(server.requests) - online
            judge = summary["judge"]
            usage = judge.get("batch", {}).get("usage") or judge["usage"]
            tokens_in, tokens_out = tokens(usage)
            by_batch = judge.get("batch", {}).get("answered", 0)
            print(f"| {name} | {elapsed:.1f} s | {online} | {other} | {by_batch} | {tokens_in:,} | {tokens_out:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
