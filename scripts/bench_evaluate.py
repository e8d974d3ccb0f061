"""Wall time and peak memory of a `--skip-judge` run over a 3,000-row file.

    python -m scripts.bench_evaluate [--rows 3000 [30000 ...]] [--repeat 3] [--rule-set original|strict]
                                     [--against OTHER_CHECKOUT] [--floor] [--peak]

Wall time and CPU time are both printed: on a shared machine the CPU time is the steadier number.
A first, untimed run writes what later runs reuse (bytecode, the CMU syllable table in the user
cache directory); its time is printed apart.
The file is the bundled rows repeated with fresh case_ids, scored against the bundled example
predictions under the same fresh ids; evaluate.py runs as a child process, as a user runs it.
`--floor` first prints what every run costs before its first row: the bare interpreter, and the
interpreter with the modules an offline run imports (the harness, numpy, markdown-it).
`--peak` prints each checkout's peak RSS per size: the largest of its timed runs, each child's own
(`os.wait4`), where "peak RSS so far" is the largest of every child the script has run.
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


def build_files(directory: Path, n_rows: int, prefix: str = "bench", distinct: bool = False) -> tuple[Path, Path]:
    """`n_rows` bundled rows repeated with fresh ids, and the example predictions for them. With
    `distinct`, every prediction is made unique (a missing one becomes the reference), so that
    every Judge prompt differs and no request is answered from the cache or shared in flight."""
    rows = [json.loads(line) for line in (ROOT / "data" / "test.jsonl").read_text(encoding="utf-8").split("\n") if line]
    examples = {}
    for line in (ROOT / "data" / "example_predictions.jsonl").read_text(encoding="utf-8").split("\n"):
        if line:
            entry = json.loads(line)
            examples[entry["case_id"]] = entry["prediction"]
    data, predictions = directory / "data.jsonl", directory / "predictions.jsonl"
    with open(data, "w", encoding="utf-8") as data_out, open(predictions, "w", encoding="utf-8") as pred_out:
        for index in range(n_rows):
            row = dict(rows[index % len(rows)])
            original = row["case_id"]
            row["case_id"] = f"{prefix}-{index:05d}"
            prediction = examples.get(original)
            if distinct:
                prediction = f"{prediction or row['reference']} (#{index})"
            data_out.write(json.dumps(row, ensure_ascii=False) + "\n")
            pred_out.write(json.dumps({"case_id": row["case_id"], "prediction": prediction},
                                      ensure_ascii=False) + "\n")
    return data, predictions


def timed_run(command: list[str], env: dict) -> tuple[float, float]:
    """(wall time, CPU time) of one child run."""
    wall, cpu, _ = measured_run(command, env)
    return wall, cpu


def measured_run(command: list[str], env: dict) -> tuple[float, float, float]:
    """(wall time, CPU time, peak RSS in MB) of one child run, the child's own (`os.wait4`)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise subprocess.CalledProcessError(child.returncode, command)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


# What an offline run imports before it reads a row; numpy as eval.scoring.stats loads it (OpenBLAS at one thread).
_FLOOR_IMPORTS = ("import os; os.environ.setdefault('OPENBLAS_NUM_THREADS', '1'); "
                  "import evaluate, numpy, markdown_it, eval.insttrans.strict_rules")


def print_floor(repeat: int, env: dict) -> None:
    """The CPU time of the bare interpreter, and of the interpreter with the run's imports: the part
    of every run that does not shrink with fewer rows (site hooks of the environment included)."""
    for label, code in (("bare interpreter (python -c pass)", "pass"),
                        ("interpreter and the offline run's imports (harness, numpy, markdown-it)", _FLOOR_IMPORTS)):
        command = [sys.executable, "-c", code]
        timed_run(command, env)  # bytecode
        cpu_times = [timed_run(command, env)[1] for _ in range(repeat)]
        print(f"floor: {label}: CPU time best {min(cpu_times):.3f} s, median {median(cpu_times):.3f} s "
              f"over {repeat} runs", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[3000],
                        help="one or more sizes; with several, the CPU time per row of each is printed too")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rule-set", default="original", help="passed to evaluate.py")
    parser.add_argument("--against", type=Path, default=None, metavar="DIR",
                        help="another checkout (e.g. `git worktree add /tmp/base main`): its runs alternate "
                             "with this one's and the ratio of the CPU medians is printed")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE for the child: every run compiles the harness")
    parser.add_argument("--floor", action="store_true",
                        help="first print the CPU time of the bare interpreter and of the run's imports")
    parser.add_argument("--peak", action="store_true",
                        help="print each checkout's peak RSS per size (the largest of its timed runs, each "
                             "child measured alone)")
    args = parser.parse_args()
    env = dict(os.environ)
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: bytecode cached after the first run
    if args.floor:
        print_floor(args.repeat, env | {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))})
    checkouts = {"this": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    for rows in args.rows:
        with tempfile.TemporaryDirectory() as temporary:
            directory = Path(temporary)
            data, predictions = build_files(directory, rows)
            commands = {name: [sys.executable, str(repo / "evaluate.py"), "--data", str(data), "--predictions",
                               str(predictions), "--output-dir", str(directory / name), "--skip-judge", "--quiet",
                               "--rule-set", args.rule_set] for name, repo in checkouts.items()}
            first = {name: timed_run(command, env)[0] for name, command in commands.items()}  # bytecode, CMU cache
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
            peaks: dict[str, list[float]] = {name: [] for name in commands}
            for _ in range(args.repeat):  # interleaved, so that a change in the machine's load hits both
                for name, command in commands.items():
                    wall, cpu, peak = measured_run(command, env)
                    runs[name].append((wall, cpu))
                    peaks[name].append(peak)
            peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            medians = {}
            for name in commands:
                times, cpu_times = [wall for wall, _ in runs[name]], [cpu for _, cpu in runs[name]]
                medians[name] = median(cpu_times)
                print(f"{name}: rows: {rows}; rule set {args.rule_set}; --skip-judge wall time: best {min(times):.2f} s, "
                      f"median {median(times):.2f} s over {args.repeat} runs; CPU time best {min(cpu_times):.2f} s, "
                      f"median {medians[name]:.2f} s ({1000 * medians[name] / rows:.3f} ms per row; steadier than "
                      f"wall time on a shared machine); peak RSS so far {peak_mb:.0f} MB; first, untimed run "
                      f"{first[name]:.2f} s; bytecode {'off' if args.no_bytecode else 'cached'}", flush=True)
            if args.peak:
                for name in commands:
                    print(f"{name}: rows: {rows}; peak RSS {max(peaks[name]):.0f} MB (largest of {args.repeat} "
                          f"runs, each child's own); wall time median {median([w for w, _ in runs[name]]):.2f} s",
                          flush=True)
            if args.against:
                print(f"rows: {rows}; CPU median this / against: {medians['this'] / medians['against']:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
