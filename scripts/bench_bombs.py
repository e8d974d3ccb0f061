"""Decompression bombs against a judged run and predict.py (issue 34 item 3, docs/judge-faults.md).

    python -m scripts.bench_bombs [--gib 1] [--encodings "gzip, gzip" deflate]

A stand-in on 127.0.0.1 answers every request with a body of `--gib` GiB of zeros, compressed in
each given Content-Encoding; evaluate.py (the Judge, --limit 3) and predict.py (3 rows) run as child
processes against it, and then against the plain stand-in for a baseline. Prints each child's exit
status, the line it ended with and its peak RSS (os.wait4). The body a bomb decodes to is never held.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for entry in (str(ROOT), str(ROOT / "tests")):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from judge_server import JudgeServer, Reply  # noqa: E402
from model_server import ModelServer  # noqa: E402

KEY = "sk-bench-bomb-0123456789abcdef"
WBITS = {"gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}


def bomb(gib: float, encoding: str) -> bytes:
    """Zeros compressed in each layer of `encoding` (applied left to right), built in 1 MB steps."""
    layers = [name.strip() for name in encoding.split(",")]
    engine = zlib.compressobj(9, zlib.DEFLATED, WBITS[layers[0]])
    block, parts = bytes(1 << 20), []
    for _ in range(int(gib * 1024)):
        parts.append(engine.compress(block))
    body = b"".join(parts) + engine.flush()
    for name in layers[1:]:
        engine = zlib.compressobj(9, zlib.DEFLATED, WBITS[name])
        body = engine.compress(body) + engine.flush()
    return body


def run_child(command: list[str], env: dict) -> tuple[int, str, float]:
    """(exit status, last line of stderr, peak RSS in MB) of one child process."""
    with tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=errors, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        lines = [line for line in errors.read().splitlines() if line.strip()]
    return process.returncode, (lines[0] if lines else "")[:110], usage.ru_maxrss / 1024


class BombModel(ModelServer):
    def __init__(self, *args, body: bytes | None, encoding: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.body, self.encoding = body, encoding

    def answer(self, request):
        if self.body is None or request.method != "POST":
            return super().answer(request)
        return Reply(body=self.body, headers={"Content-Encoding": self.encoding})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gib", type=float, default=1.0, help="decoded size of each bomb in GiB (default 1)")
    parser.add_argument("--encodings", nargs="+", default=["gzip, gzip", "gzip", "deflate"])
    args = parser.parse_args()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("JUDGE_API", "MODEL_API"))}
    print("| client | Content-Encoding | raw body | decoded | exit | peak RSS | first line |")
    print("|---|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="bench-bombs-") as folder:
        folder = Path(folder)
        inputs = folder / "inputs.jsonl"
        subprocess.run([sys.executable, str(ROOT / "prepare_inputs.py"), "--output", str(inputs), "--limit", "3"],
                       check=True, capture_output=True)
        for number, encoding in enumerate([None, *args.encodings]):
            body = None if encoding is None else bomb(args.gib, encoding)
            size = "-" if body is None else f"{len(body):,} B"
            decoded = "-" if body is None else f"{args.gib:g} GiB"
            label = encoding or "none (baseline)"
            handler = None if body is None else (lambda request, body=body, encoding=encoding:
                                                 Reply(body=body, headers={"Content-Encoding": encoding}))
            with JudgeServer(handler) if handler else JudgeServer() as server:
                judge_env = {**env, "JUDGE_API_BASE": server.base_url, "JUDGE_API_KEY": KEY}
                status, line, peak = run_child(
                    [sys.executable, str(ROOT / "evaluate.py"), "--predictions",
                     str(ROOT / "data" / "example_predictions.jsonl"), "--output-dir", str(folder / "run"),
                     "--limit", "3", "--quiet", "--judge-cache", str(folder / f"cache-{number}.sqlite"),
                     "--judge-max-retries", "0"], judge_env)
            print(f"| Judge (evaluate.py) | {label} | {size} | {decoded} | {status} | {peak:.0f} MB | {line} |",
                  flush=True)
            with BombModel(body=body, encoding=encoding or "") as server:
                model_env = {**env, "MODEL_API_BASE": server.base_url, "MODEL_API_KEY": KEY}
                output = folder / f"predictions-{number}.jsonl"
                status, line, peak = run_child(
                    [sys.executable, str(ROOT / "predict.py"), "--inputs", str(inputs), "--output", str(output),
                     "--model", "stand-in", "--quiet", "--concurrency", "1"], model_env)
            print(f"| predict.py | {label} | {size} | {decoded} | {status} | {peak:.0f} MB | {line} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
