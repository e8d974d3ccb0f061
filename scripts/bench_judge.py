"""Benchmark the Judge phase: throughput against a local server with fixed latency, then the cached rerun.

    python -m scripts.bench_judge [--instances 3000] [--concurrency 32] [--latency 0.1]
                                  [--data FILE --predictions FILE]

Without --data it writes a synthetic 3,000-row file in the bundled layout (about 43% of rows with
soft constraints, like the release) and predictions for every row, then loads them the way
evaluate.py does. The server (tests/judge_server.py) runs in its own process and answers every
request after `--latency` seconds, so the ideal rate is concurrency / latency requests per second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent

from eval.io.data import load_rows_from_file
from eval.insttrans.rows import render_prompt, validate_rows
from eval.config import HARNESS
from eval.insttrans.record import INSTTRANS
from eval.judge_client import run_judge_prompts
from eval.config import JudgeSettings
from eval.inputs.predictions import load_predictions

TARGETS = ("en", "ja", "ko", "vi", "es", "de", "fr", "it", "pt", "ru", "ro", "pl", "sv", "nl", "tr",
           "id", "ms", "ar", "fil", "th", "hi")
SOFT_LINES = {"style_consistency": "译文语体：正式，全文保持一致",
              "term_cross_sentence": "跨句术语一致：「模型」全文统一为同一译法",
              "coref_resolution": '指代一致：文中的"她"均指林晓'}


def synthetic_row(index: int) -> dict:
    """A valid row; rows with index % 7 < 3 carry one or two soft constraints."""
    soft = list(SOFT_LINES)[: 1 + index % 2] if index % 7 < 3 else []
    ids = ["format_preserve", *soft]
    constraints = ["保持原文格式", *(SOFT_LINES[cid] for cid in soft)]
    row = {"case_id": f"bench-{index:05d}", "source_lang": "zh", "target_lang": TARGETS[index % len(TARGETS)],
           "source_text": f"第{index}号模型今天发布了，她说效果很好。", "reference": f"Model {index} was released today.",
           "constraints": constraints, "constraint_ids": ids, "scenario": "novel", "domain": "小说"}
    if "style_consistency" in soft:
        row["style"] = {"formality": "formal"}
    row["prompt"] = render_prompt(row["source_lang"], row["target_lang"], row["constraints"], row["source_text"])
    return row


def write_inputs(folder: Path, n: int) -> tuple[Path, Path]:
    rows = [synthetic_row(i) for i in range(n)]
    data, predictions = folder / "data.jsonl", folder / "predictions.jsonl"
    data.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    predictions.write_text("".join(json.dumps({"case_id": row["case_id"], "prediction": f"Translation {i}."},
                                              ensure_ascii=False) + "\n" for i, row in enumerate(rows)),
                           encoding="utf-8")
    return data, predictions


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "judge_server.py"), "--latency", str(latency)],
                               stdout=subprocess.PIPE, text=True)
    port = int(process.stdout.readline().split()[1])
    return process, f"http://127.0.0.1:{port}/v1"


def server_stats(base_url: str) -> dict:
    return httpx.get(base_url + "/stats").json()


def time_evaluate(data: Path, predictions: Path, out: Path, cache: Path, base_url: str, key: str) -> float:
    """Wall time of a whole `evaluate.py` process (imports, rules, Judge from cache, outputs)."""
    env = {**os.environ, "JUDGE_API_BASE": base_url, "JUDGE_API_KEY": key}
    command = [sys.executable, str(ROOT / "evaluate.py"), "--data", str(data), "--predictions", str(predictions),
               "--output-dir", str(out), "--judge-cache", str(cache), "--quiet"]
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True)
    return time.perf_counter() - started


def bare_httpx_rate(base_url: str, concurrency: int, n: int) -> float:
    """Requests per second of plain httpx POSTs (no prompts, cache or parsing): the client's ceiling."""
    body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "x" * 2500}]}).encode()

    async def run() -> float:
        slots: asyncio.Queue = asyncio.Queue()
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(concurrency):
                slots.put_nowait(await stack.enter_async_context(
                    httpx.AsyncClient(limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))))

            async def one() -> None:
                client = await slots.get()
                try:
                    (await client.post(base_url + "/chat/completions", content=body)).json()
                finally:
                    slots.put_nowait(client)

            started = time.perf_counter()
            await asyncio.gather(*(one() for _ in range(n)))
            return n / (time.perf_counter() - started)

    return asyncio.run(run())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per answer")
    parser.add_argument("--data", type=Path, help="a data file to use instead of the synthetic one")
    parser.add_argument("--predictions", type=Path, help="its predictions (with --data)")
    parser.add_argument("--progress", action="store_true", help="show the Judge progress bar")
    parser.add_argument("--baseline", action="store_true", help="also measure bare httpx against the same server")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        data, predictions = (args.data, args.predictions) if args.data else write_inputs(folder, args.instances)
        rows = load_rows_from_file(data, validate_rows)
        loaded, _ = load_predictions(predictions, {row["case_id"] for row in rows}, set())
        requests = INSTTRANS.prompt_sets[HARNESS].judge_requests(rows, loaded)
        process, base_url = start_server(args.latency)
        try:
            settings = JudgeSettings(model="gpt-5.6-sol", api_base=base_url, api_key="bench-not-a-secret",
                                     concurrency=args.concurrency)
            cache = folder / "judge_cache.sqlite"
            started, cpu_started = time.perf_counter(), time.process_time()
            results, block = run_judge_prompts(requests, settings, cache, dict(INSTTRANS.prompt_versions), args.progress)
            cold, client_cpu = time.perf_counter() - started, time.process_time() - cpu_started
            after_cold = server_stats(base_url)
            started = time.perf_counter()
            cached_results, cached_block = run_judge_prompts(requests, settings, cache, dict(INSTTRANS.prompt_versions),
                                                             args.progress)
            warm = time.perf_counter() - started
            after_warm = server_stats(base_url)
            full_rerun = time_evaluate(data, predictions, folder / "out", cache, base_url, settings.api_key)
            after_full = server_stats(base_url)
            baseline = bare_httpx_rate(base_url, args.concurrency, 3000) if args.baseline else None
        finally:
            process.terminate()
            process.wait(10)

    assert cached_results == results
    requests = after_cold["requests"]
    rate = requests / cold
    ideal = args.concurrency / args.latency
    report = {
        "instances": len(rows), "requests": requests, "concurrency": args.concurrency,
        "latency_s": args.latency, "peak_in_flight": after_cold["max_in_flight"],
        "server_cpu_s": round(after_cold["cpu_s"], 2), "client_cpu_s": round(client_cpu, 2),
        "wall_s": round(cold, 2), "requests_per_s": round(rate, 1), "ideal_per_s": round(ideal, 1),
        "share_of_ideal": round(rate / ideal, 3),
        "cached_rerun_wall_s": round(warm, 2), "cached_rerun_requests": after_warm["requests"] - requests,
        "cached_rerun_cache_hits": cached_block["cache_hits"],
        "evaluate_py_cached_rerun_wall_s": round(full_rerun, 2),
        "evaluate_py_cached_rerun_requests": after_full["requests"] - after_warm["requests"],
    }
    if baseline is not None:
        report["bare_httpx_per_s"] = round(baseline, 1)
    print(json.dumps(report, indent=2))
    print("\n| instances | requests | concurrency | latency | req/s | ideal | share | cached Judge phase "
          "| cached evaluate.py | rerun requests |\n|---|---|---|---|---|---|---|---|---|---|\n"
          f"| {len(rows):,} | {requests:,} | {args.concurrency} | {args.latency * 1000:.0f} ms | {rate:.1f} | "
          f"{ideal:.0f} | {100 * rate / ideal:.1f}% | {warm:.2f} s | {full_rerun:.2f} s | "
          f"{report['cached_rerun_requests'] + report['evaluate_py_cached_rerun_requests']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
