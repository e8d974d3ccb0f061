"""A DEMONSTRATION of the whole flow, offline, in under a minute: export the model inputs, ask a
stand-in model for predictions, score them and the bundled example predictions with a stand-in
Judge, compare the two systems, and point at the reports.

    python -m scripts.demo [--output-dir outputs/demo]

Both stand-ins are the test servers (tests/model_server.py answers every prompt with the
instance's reference; tests/judge_server.py gives valid verdicts, 1 unless the text carries a
marker), started here as subprocesses on 127.0.0.1 and stopped at the end. The numbers show what
the outputs look like and mean nothing about any model. Needs the repository checkout (tests/).

Each stand-in listens on a fixed port (DEMO_PORTS) when it is free, so a rerun talks to the same
Judge address: its requests, and so the Judge cache's keys and the runs' signatures, are the same,
and the rerun answers from the cache. A busy port falls back to any free one (the rerun then asks
the stand-in again). Ctrl-C stops the demonstration with one line and exit status 130.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from eval.flags import HarnessParser

ROOT = Path(__file__).resolve().parent.parent
BANNER = "DEMONSTRATION: a stand-in model and a stand-in Judge on 127.0.0.1; the numbers mean nothing"
DEMO_PORTS = {"model_server.py": 18731, "judge_server.py": 18732}  # stable, so the Judge cache keys are too


@contextlib.contextmanager
def running(command: list[str], **options):
    """A child process that is always stopped on the way out (SIGTERM, then SIGKILL after 10 s).
    A Ctrl-C while it is being started is held back until the process exists and raised then, so
    no interrupt can leave a child running that the demo has no handle on."""
    noted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    process = None
    try:
        try:
            process = subprocess.Popen(command, **options)
        finally:
            signal.signal(signal.SIGINT, previous)
        if noted:
            raise KeyboardInterrupt
        yield process
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()


def port_is_free(port: int) -> bool:
    """Whether nothing listens on 127.0.0.1:port (a stand-in told to take a busy port would not say so)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the stand-in binds: TIME_WAIT is no obstacle
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@contextlib.contextmanager
def stand_in(script: str, *args: str, port: int | None = None):
    """A stand-in server as a subprocess on `port` (DEMO_PORTS) or, where that is busy, on any free
    port; yields its base URL and stops it on the way out. Its own session: a Ctrl-C in the terminal
    reaches the demo, which stops the server, and not the server, which would print a traceback."""
    port = DEMO_PORTS[script] if port is None else port
    # a port taken between the check and the bind (another demo, a parallel test): any free one then
    for attempt in dict.fromkeys((port if port_is_free(port) else 0, 0)):
        with running([sys.executable, str(ROOT / "tests" / script), "--latency", "0", "--port", str(attempt), *args],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True) as server:
            line = server.stdout.readline().strip()  # "port N" once it listens
            if line.startswith("port "):
                yield f"http://127.0.0.1:{line.split()[1]}/v1"
                return
    raise RuntimeError(f"{script} did not start")


def step(title: str, *command: str, env: dict | None = None) -> None:
    """Run one command of the flow as a user types it (`python evaluate.py ...`), from the checkout.

    The command runs in its own session, so a Ctrl-C reaches the demo alone, which hands it on as
    SIGTERM: the commands stop on SIGTERM as on Ctrl-C and say what they kept (SPEC §11), and a
    SIGTERM that finds the interpreter still starting ends it silently, where a SIGINT would make it
    print a fatal error and a traceback."""
    with running([sys.executable, *command], cwd=ROOT, env={**os.environ, **(env or {})},
                 start_new_session=True) as child:
        status = child.wait()
    if status != 0:
        raise SystemExit(f"demo stopped: {title} exited {status}")


def run_demo(out: Path) -> None:
    out = out.resolve()
    print(f"{BANNER}\n", flush=True)
    inputs, predictions = out / "model_inputs.jsonl", out / "stand_in_predictions.jsonl"
    print("1. export the model inputs: python prepare_inputs.py", flush=True)
    step("prepare_inputs.py", "prepare_inputs.py", "--output", str(inputs))
    with stand_in("model_server.py") as model_base, stand_in("judge_server.py") as judge_base:
        print(f"\n2. predictions from the stand-in model at {model_base}: python predict.py", flush=True)
        step("predict.py", "predict.py", "--inputs", str(inputs), "--output", str(predictions), "--model", "stand-in",
             "--quiet", env={"MODEL_API_BASE": model_base, "MODEL_API_KEY": "demo-key"})
        judge = {"JUDGE_API_BASE": judge_base, "JUDGE_API_KEY": "demo-key"}
        for number, name, path in ((3, "example", ROOT / "data" / "example_predictions.jsonl"),
                                   (4, "stand_in", predictions)):
            print(f"\n{number}. judged evaluation of the {name} predictions, stand-in Judge at {judge_base}: "
                  "python evaluate.py", flush=True)
            step("evaluate.py", "evaluate.py", "--predictions", str(path), "--output-dir", str(out / name),
                 "--judge-concurrency", "16", env=judge)
    print("\n5. compare the two systems: python -m eval.compare", flush=True)
    step("eval.compare", "-m", "eval.compare", str(out / "example"), str(out / "stand_in"),
         "--json", str(out / "compare.json"))
    print(f"\n6. reports: {out / 'example' / 'report.html'} and {out / 'stand_in' / 'report.html'} "
          f"(report.md beside each), comparison in {out / 'compare.json'}")
    print(f"\n{BANNER}")


def main(argv: list[str] | None = None) -> int:
    parser = HarnessParser(prog="python -m scripts.demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--output-dir", type=Path, default=Path("outputs/demo"),
                        help="where the demonstration writes (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        run_demo(args.output_dir)
    except KeyboardInterrupt:  # the command running then has said what it kept; the stand-ins are stopped
        print("demo interrupted (Ctrl-C): the stand-ins are stopped; rerun the same command to go on",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
