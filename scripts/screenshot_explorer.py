"""Screenshots of explorer.html and the compare page in headless Chromium, for a person to look at.

    python -m scripts.screenshot_explorer [--out-dir DIR]

Scores the bundled example predictions of both benchmarks against the scripted stand-in Judge
(tests/judge_server.py), and a second system (every 7th prediction cut in half, every 11th
dropped, as tests/test_explorer.py does), then saves: the InstTrans list filtered to failures
with a search, an instance whose layout failed (whitespace shown), a Sandglass item, and the
compare page of each benchmark. The PNGs are not committed; docs/explorer.md describes them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from chromium import browser_page, unavailable_reason  # noqa: E402
from judge_server import JudgeServer  # noqa: E402
from test_explorer import (IT_DATA, IT_PREDICTIONS, SG_DATA, SG_PREDICTIONS, choose, evaluate_run,  # noqa: E402
                           perturbed)

from eval.compare import main as compare_main  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", type=Path, default=Path("explorer-screenshots"))
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    args.out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary, JudgeServer() as server:
        base = Path(temporary)
        os.environ.update(JUDGE_API_KEY="sk-screenshots", JUDGE_API_BASE=server.base_url)
        runs = {"it": evaluate_run(base / "it", IT_DATA, IT_PREDICTIONS),
                "it_b": evaluate_run(base / "it_b", IT_DATA, perturbed(IT_PREDICTIONS, base / "it_b.jsonl")),
                "sg": evaluate_run(base / "sg", SG_DATA, SG_PREDICTIONS),
                "sg_b": evaluate_run(base / "sg_b", SG_DATA, perturbed(SG_PREDICTIONS, base / "sg_b.jsonl"))}
        for name in ("it", "sg"):
            compare_main([str(runs[name]), str(runs[name + "_b"]), "--resamples", "1000", "--html",
                          str(base / f"compare_{name}.html")])
        with browser_page(1400, 900) as page:
            page.goto((runs["it"] / "explorer.html").as_uri())
            page.wait_for_selector("body[data-ready='1']")
            choose(page, "outcome", "hard fail")
            page.fill("#search", "social")
            page.wait_for_timeout(300)
            page.locator("#spacer .row").first.click()
            page.screenshot(path=str(args.out_dir / "insttrans_filtered.png"))
            page.goto((runs["it"] / "explorer.html").as_uri() + "#case=itb-doc-016")
            page.reload()
            page.wait_for_selector("body[data-ready='1']")
            page.screenshot(path=str(args.out_dir / "insttrans_layout.png"))
            page.goto((runs["sg"] / "explorer.html").as_uri())
            page.wait_for_selector("body[data-ready='1']")
            choose(page, "syllables", "off by more than 20%")
            page.locator("#spacer .row").first.click()
            page.screenshot(path=str(args.out_dir / "sandglass_item.png"))
            for name in ("it", "sg"):
                page.goto((base / f"compare_{name}.html").as_uri())
                page.wait_for_selector("body[data-ready='1']")
                page.locator("#spacer .row").first.click()
                page.screenshot(path=str(args.out_dir / f"compare_{name}.png"))
    print(f"wrote 5 screenshots to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
