"""A DEMONSTRATION of the whole flow, offline, in under a minute: export the model inputs, ask a
stand-in model for predictions, score them and the bundled example predictions with a stand-in
Judge, compare the two systems, and point at the reports.

    python -m scripts.demo [--output-dir outputs/demo]

Both stand-ins are the test servers (tests/model_server.py answers every prompt with the
instance's reference; tests/judge_server.py gives valid verdicts, 1 unless the text carries a
marker), started here as subprocesses on 127.0.0.1 and stopped at the end. The numbers show what
the outputs look like and mean nothing about any model. Needs the repository checkout (tests/).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BANNER = "DEMONSTRATION: a stand-in model and a stand-in Judge on 127.0.0.1; the numbers mean nothing"


@contextlib.contextmanager
def stand_in(script: str, *args: str):
    """A stand-in server as a subprocess; yields its base URL and stops it on the way out."""
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / script), "--latency", "0", *args],
                               stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline().strip()  # "port N" once it listens
        if not line.startswith("port "):
            raise RuntimeError(f"{script} did not start (it printed {line!r})")
        yield f"http://127.0.0.1:{line.split()[1]}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


@contextlib.contextmanager
def environment(**values: str):
    """os.environ with `values` set, restored afterwards."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def step(title: str, status: int) -> None:
    if status != 0:
        raise SystemExit(f"demo stopped: {title} exited {status}")


def run_demo(out: Path) -> None:
    import evaluate
    import predict
    import prepare_inputs
    from eval import compare
    from eval.cli import run_cli

    print(f"{BANNER}\n")
    inputs, predictions = out / "model_inputs.jsonl", out / "stand_in_predictions.jsonl"
    print("1. export the model inputs (prepare_inputs.py)")
    step("prepare_inputs", run_cli(prepare_inputs.main, ["--output", str(inputs)]))
    with stand_in("model_server.py") as model_base, stand_in("judge_server.py") as judge_base:
        print(f"\n2. predictions from the stand-in model at {model_base} (predict.py)")
        with environment(MODEL_API_BASE=model_base, MODEL_API_KEY="demo-key"):
            step("predict", run_cli(predict.main, ["--inputs", str(inputs), "--output", str(predictions),
                                                   "--model", "stand-in", "--quiet"]))
        with environment(JUDGE_API_BASE=judge_base, JUDGE_API_KEY="demo-key"):
            for name, path in (("example", ROOT / "data" / "example_predictions.jsonl"), ("stand_in", predictions)):
                print(f"\n3. judged evaluation of {name} predictions against the stand-in Judge at {judge_base}")
                step("evaluate", run_cli(evaluate.main, ["--predictions", str(path), "--output-dir", str(out / name),
                                                         "--judge-concurrency", "16"]))
    print("\n4. compare the two systems (python -m eval.compare)")
    step("compare", run_cli(compare.main, [str(out / "example"), str(out / "stand_in"),
                                          "--json", str(out / "compare.json")]))
    print(f"\n5. reports: {out / 'example' / 'report.html'} and {out / 'stand_in' / 'report.html'} "
          f"(report.md beside each), comparison in {out / 'compare.json'}")
    print(f"\n{BANNER}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output-dir", type=Path, default=Path("outputs/demo"),
                        help="where the demonstration writes (default: %(default)s)")
    args = parser.parse_args(argv)
    run_demo(args.output_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
