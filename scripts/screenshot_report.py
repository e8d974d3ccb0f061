"""Render report.html of the bundled example runs in headless Chromium and save PNG screenshots.

    python -m scripts.screenshot_report [--out-dir DIR] [--chromium PATH] [--judge]

Scores data/example_predictions.jsonl (InstTrans-Bench) and data/sandglass/example_predictions.jsonl
(Sandglass-Bench) with --skip-judge, or with --judge against the scripted stand-in Judge
(tests/judge_server.py), then screenshots each report.html (1280 x 2400) with networking off.
The PNGs are for a person to look at (SPEC §11: the page must look right in a real browser);
they are not committed. Chromium: `apt-get install -y chromium` (Debian).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = {
    "insttrans": ["--predictions", str(ROOT / "data" / "example_predictions.jsonl")],
    "sandglass": ["--benchmark", "sandglass", "--predictions", str(ROOT / "data" / "sandglass" / "example_predictions.jsonl")],
}
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars")


def find_chromium(explicit: str | None) -> str:
    for candidate in ([explicit] if explicit else []) + ["chromium", "chromium-browser", "google-chrome"]:
        found = shutil.which(candidate) if candidate else None
        if found:
            return found
    sys.exit("error: no Chromium found\n  hint: apt-get update && apt-get install -y chromium, or pass --chromium PATH")


def screenshot(chromium: str, page: Path, png: Path, size: str = "1280,2400") -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--screenshot={png}",
                        f"--window-size={size}", page.resolve().as_uri()],
                       check=True, capture_output=True, timeout=120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-dir", type=Path, default=Path(tempfile.gettempdir()) / "report_screenshots")
    parser.add_argument("--chromium", default=None, help="the browser binary (default: chromium on PATH)")
    parser.add_argument("--judge", action="store_true", help="score with the stand-in Judge instead of --skip-judge")
    parser.add_argument("--height", type=int, default=2400, help="window height in pixels (default 2400; "
                        "a larger one shows the whole failures section)")
    args = parser.parse_args()
    chromium = find_chromium(args.chromium)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    env, server = dict(os.environ), None
    if args.judge:
        server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "judge_server.py")], stdout=subprocess.PIPE,
                                  text=True)
        port = server.stdout.readline().split()[1]
        env.update(JUDGE_API_BASE=f"http://127.0.0.1:{port}/v1", JUDGE_API_KEY="stand-in")
    try:
        for name, flags in RUNS.items():
            run_dir = args.out_dir / name
            judge_flags = [] if args.judge else ["--skip-judge"]
            subprocess.run([sys.executable, str(ROOT / "evaluate.py"), *flags, "--output-dir", str(run_dir), "--quiet",
                            *judge_flags], check=True, env=env)
            png = args.out_dir / f"{name}.png"
            screenshot(chromium, run_dir / "report.html", png, f"1280,{args.height}")
            print(f"{name}: {png} ({png.stat().st_size} bytes) from {run_dir / 'report.html'}")
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
