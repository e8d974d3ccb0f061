"""Benchmark the Judge phase under provider faults (docs/judge-faults.md), as a user runs it: evaluate.py as a
child process against tests/judge_server.py in its own process.

    python scripts/bench_judge_faults.py [--rows 3000] [--rate 40] [--latency 0.05] [--only NAME ...]

The data file is the bundled rows repeated with fresh case_ids; every prediction carries its row
number, so every prompt is distinct (no cache hit, no in-flight sharing). For each fault it
prints the wall time of the run, its exit status, the requests the server received, requests per
needed verdict, whether result files were written and whether any 8-character piece of the key
appeared in the output, the logs or the output directory. The rate-limit rows compare the
completion time under a limit of `--rate` requests per second (fixed one-second windows) with
the ideal, needed / rate.
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

from scripts.bench_evaluate import build_files

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-bench-SECRET-0123456789abcdefghijklmnop"
RESULT_FILES = ("scores.jsonl", "summary.json", "report.md", "report.html")


class Server:
    """tests/judge_server.py in its own process; `stop()` returns its final counts."""

    def __init__(self, fault: str, latency: float, port: int = 0):
        self.process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "judge_server.py"), "--latency",
                                         str(latency), "--fault", fault, "--port", str(port)],
                                        stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline().split()[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> dict:
        self.process.terminate()
        out, _ = self.process.communicate(timeout=30)
        return json.loads(out.strip().splitlines()[-1])


def evaluate(data: Path, predictions: Path, out: Path, cache: Path, base_url: str, *extra: str) -> dict:
    env = {**os.environ, "JUDGE_API_BASE": base_url, "JUDGE_API_KEY": KEY}
    command = [sys.executable, str(ROOT / "evaluate.py"), "--data", str(data), "--predictions", str(predictions),
               "--output-dir", str(out), "--judge-cache", str(cache), "--quiet", *extra]
    started = time.perf_counter()
    process = subprocess.run(command, env=env, capture_output=True, text=True)
    ended = time.time()
    wall = time.perf_counter() - started
    files = sorted(path.name for path in out.iterdir()) if out.exists() else []
    exposed = process.stdout + process.stderr + "".join(
        (out / name).read_text(encoding="utf-8", errors="replace") for name in files if (out / name).is_file())
    exposed += cache.read_bytes().decode("utf-8", "replace") if cache.exists() else ""
    pieces = {KEY[i:i + 8] for i in range(len(KEY) - 7)}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8")) if (out / "summary.json").exists() else None
    return {"wall_s": wall, "ended_at": ended, "exit": process.returncode, "stderr": process.stderr.strip(),
            "results_written": any(name in files for name in RESULT_FILES),
            "key_leaked": any(piece in exposed for piece in pieces), "summary": summary}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--rate", type=int, default=40, help="requests per second the rate-limited server allows")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per answer of the stand-in")
    parser.add_argument("--only", nargs="*", help="names of the rows to run (default: all)")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    args = parser.parse_args(argv)
    wanted = (lambda name: not args.only or name in args.only)
    table: list[dict] = []

    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        data, predictions = build_files(folder, args.rows, prefix="fault", distinct=True)

        def run(name: str, fault: str, *extra: str, cache: Path | None = None, port: int = 0,
                note: str = "") -> dict:
            server = Server(fault, args.latency, port) if fault != "refused" else None
            base_url = server.base_url if server else "http://127.0.0.1:9/v1"  # discard port: nothing listens
            cache = cache or folder / f"{name}.sqlite"
            result = evaluate(data, predictions, folder / f"out-{name}", cache, base_url, *extra)
            stats = server.stop() if server else {"requests": 0, "rate_limited": 0}
            result.update(name=name, requests=stats["requests"], rate_limited=stats.get("rate_limited", 0),
                          died_at=stats.get("died_at"), note=note, port=server.port if server else None)
            print(f"{name}: exit {result['exit']}, {result['wall_s']:.1f} s, {result['requests']} requests",
                  file=sys.stderr, flush=True)
            return result

        healthy = run("healthy", "none")
        judge = healthy["summary"]["judge"]
        needed = judge["calls"]
        print(f"needed verdicts: {needed}", file=sys.stderr)
        healthy.update(needed=needed)
        table.append(healthy)
        if wanted("dead"):
            table.append(run("dead", "dead", note="every request HTTP 500"))
        if wanted("silent"):
            table.append(run("silent", "hang", "--judge-timeout", "5", note="accepts, never answers; --judge-timeout 5"))
        if wanted("refused"):
            table.append(run("refused", "refused", note="nothing listens at JUDGE_API_BASE"))
        if wanted("dies"):
            cache = folder / "dies.sqlite"
            died = run("dies", f"dies-after:{needed // 2}", cache=cache, note=f"stops listening after {needed // 2}")
            died["after_death_s"] = died["ended_at"] - died["died_at"] if died["died_at"] else None
            table.append(died)
            rerun = run("dies-rerun", "none", cache=cache, port=died["port"], note="healthy rerun on the same cache")
            rerun["missing"] = needed - (rerun["summary"]["judge"]["cache_hits"] if rerun["summary"] else 0)
            table.append(rerun)
        if wanted("only-429"):
            table.append(run("only-429", "only-429", note="every request 429, Retry-After 1"))
        if wanted("only-429-deadline-8"):
            table.append(run("only-429-deadline-8", "only-429", "--judge-deadline", "8",
                             note="every request 429, Retry-After 1; --judge-deadline 8"))
        if wanted("cooling"):
            table.append(run("cooling", "cooling:5", note='LiteLLM: 429 "No deployments available", retry in 5 s'))
        if wanted("slow"):
            table.append(run("slow", "hang", "--judge-timeout", "20", "--judge-deadline", "8",
                             note="never answers; --judge-timeout 20 longer than --judge-deadline 8"))
        if wanted("param-500"):
            table.append(run("param-500", "param-500", note="HTTP 500 validation error for a body field"))
        if wanted("invalid"):
            result = run("invalid", "invalid", note="the same invalid verdict every time, valid on the repair")
            repairs = (result["summary"] or {}).get("judge", {}).get("repairs") if result["summary"] else None
            result["note"] += f"; repairs {repairs}"
            table.append(result)
        if wanted("invalid-repairs-0"):
            table.append(run("invalid-repairs-0", "invalid", "--judge-repairs", "0",
                             note="the same invalid verdict; --judge-repairs 0"))
        if wanted("invalid-always"):
            table.append(run("invalid-always", "invalid-always", note="invalid on the repair turn too"))
        if wanted("key-echo"):
            table.append(run("key-echo", "key-echo", note="401 quoting the Authorization header"))
        for header in ("retry-after", "retry-after-date", "retry-after-ms", "x-ratelimit-reset-requests",
                       "llm_provider-retry-after", "none"):
            name = f"rate:{header}"
            if wanted(name) or wanted("rate"):
                result = run(name, f"rate:{args.rate}:{header}", note=f"{args.rate} req/s, header {header}")
                result["ideal_s"] = needed / args.rate
                table.append(result)

    print("\n| fault | exit | wall time | requests | requests / needed | 429s | result files | key piece leaked | note |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in table:
        wall = f"{row['wall_s']:.1f} s"
        if "ideal_s" in row:
            wall += f" (ideal {row['ideal_s']:.1f} s, {row['wall_s'] / row['ideal_s']:.2f}x)"
        if row.get("after_death_s") is not None:
            wall += f" ({row['after_death_s']:.1f} s after the death)"
        note = row["note"] + (f"; sent {row['requests']} for {row['missing']} missing" if "missing" in row else "")
        print(f"| {row['name']} | {row['exit']} | {wall} | {row['requests']:,} | {row['requests'] / needed:.2f} "
              f"| {row['rate_limited']:,} | {'yes' if row['results_written'] else 'no'} "
              f"| {'YES' if row['key_leaked'] else 'no'} | {note} |")
    for row in table:
        if row["exit"] != 0:
            print(f"\n{row['name']}: {row['stderr'].splitlines()[-2:] if row['stderr'] else ''}")
    if args.json:
        args.json.write_text(json.dumps([{k: v for k, v in row.items() if k != "summary"} for row in table],
                                        indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
