"""Benchmark predict.py: requests per second against the local stand-in model with fixed latency.

    python -m scripts.bench_predict [--instances 3000] [--concurrency 32 64] [--latency 0.1] [--baseline]

Writes a synthetic data file in the bundled layout (scripts/bench_judge.py's rows) and its model
inputs, starts tests/model_server.py in its own process (every answer after `--latency` seconds,
the row's reference as the text), and times one whole `run_predict` per concurrency: reading the
inputs, the lock, every request, each line appended, the final rewrite and the meta file. The
ideal rate is concurrency / latency; the table gives the share of it that predict.py reaches.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from eval.insttrans.record import INSTTRANS
from eval.prediction.runner import build_settings, run_predict
from scripts.bench_judge import bare_httpx_rate, synthetic_row

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-bench-predict-0000"


def start_server(data: Path, latency: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "model_server.py"), "--data", str(data),
                                "--latency", str(latency)], stdout=subprocess.PIPE, text=True)
    port = int(process.stdout.readline().split()[1])
    return process, f"http://127.0.0.1:{port}/v1"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[32, 64])
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--baseline", action="store_true", help="also time bare httpx at each concurrency")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        rows = [synthetic_row(i) for i in range(args.instances)]
        data, inputs = folder / "data.jsonl", folder / "model_inputs.jsonl"
        data.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
        inputs.write_text("".join(json.dumps(INSTTRANS.model_input(row), ensure_ascii=False) + "\n" for row in rows),
                          encoding="utf-8")
        server, base_url = start_server(data, args.latency)
        try:
            for concurrency in args.concurrency:
                output = folder / f"predictions-{concurrency}.jsonl"
                settings = build_settings(model="stand-in", api_base=base_url, api_key=KEY, concurrency=concurrency,
                                          temperature=0.0)
                before = httpx.get(base_url + "/stats").json()["requests"]
                start = time.monotonic()
                result = run_predict(settings, inputs, output, progress=False, notify=lambda line: None)
                wall = time.monotonic() - start
                requests = httpx.get(base_url + "/stats").json()["requests"] - before
                assert result.meta["counts"]["answered"] == args.instances, result.meta["counts"]
                ideal = concurrency / args.latency
                results.append({"instances": args.instances, "requests": requests, "concurrency": concurrency,
                                "latency_s": args.latency, "wall_s": round(wall, 2),
                                "requests_per_s": round(requests / wall, 1), "ideal_per_s": round(ideal, 1),
                                "share_of_ideal": round(requests / wall / ideal, 3)})
                if args.baseline:  # plain httpx POSTs, no health, parsing or file: the client's own ceiling
                    ceiling = bare_httpx_rate(base_url, concurrency, args.instances)
                    results[-1].update(bare_httpx_per_s=round(ceiling, 1),
                                       share_of_bare_httpx=round(requests / wall / ceiling, 3))
        finally:
            server.terminate()
            server.wait(10)
    print(json.dumps(results, indent=2))
    print("\n| instances | concurrency | latency | wall | req/s | ideal | share of ideal | bare httpx req/s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in results:
        bare = f"{row['bare_httpx_per_s']:.1f}" if "bare_httpx_per_s" in row else "n/a"
        print(f"| {row['instances']:,} | {row['concurrency']} | {row['latency_s'] * 1000:.0f} ms | {row['wall_s']:.2f} s "
              f"| {row['requests_per_s']:.1f} | {row['ideal_per_s']:.0f} | {100 * row['share_of_ideal']:.1f}% | {bare} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
