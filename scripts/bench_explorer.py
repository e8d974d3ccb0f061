"""Size of explorer.html and the time until it is usable in headless Chromium, at 3,000 and 30,000 rows.

    python -m scripts.bench_explorer [--rows 3000 30000] [--repeat 3]

For each size: the bundled InstTrans-Bench rows repeated with fresh ids (scripts/bench_evaluate's
builder) are scored with --skip-judge; the page's size is printed, then Chromium (Debian's, as in
tests/chromium.py) opens it `--repeat` times in a fresh profile and reports the time from
navigation until the list, the facets and the counts are drawn (`data-ready-ms`, the page's own
performance.now()), and the time of one facet click plus one search. Figures: docs/explorer.md.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from chromium import browser_page, unavailable_reason  # noqa: E402
from scripts.bench_evaluate import build_files  # noqa: E402


# In the page: one facet click (filters and counts update synchronously), then one search (the
# box waits 120 ms for typing to stop; that pause is subtracted). The first search also lowers
# every instance's text once.
INTERACT = """async () => {
  const count = () => document.getElementById('count').textContent;
  let start = performance.now();
  document.querySelector('details.facet label input').click();
  const click = performance.now() - start;
  const before = count(), search = document.getElementById('search');
  start = performance.now();
  search.value = 'social';
  search.dispatchEvent(new Event('input'));
  while (count() === before) await new Promise(resolve => setTimeout(resolve, 2));
  return [click, performance.now() - start - 120];
}"""


def measure(path: Path, repeat: int) -> tuple[list[float], list[tuple[float, float]]]:
    """(ms until usable, (ms of a facet click, ms of a search)) per fresh load."""
    loads, interactions = [], []
    for _ in range(repeat):
        with browser_page() as page:
            page.goto(path.as_uri())
            page.wait_for_selector("body[data-ready='1']", timeout=120_000)
            loads.append(float(page.get_attribute("body", "data-ready-ms")))
            click_ms, search_ms = page.evaluate(INTERACT)
            interactions.append((click_ms, search_ms))
    return loads, interactions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[3000, 30000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    for rows in args.rows:
        with tempfile.TemporaryDirectory() as temporary:
            directory = Path(temporary)
            data, predictions = build_files(directory, rows)
            start = time.perf_counter()
            subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--data", str(data), "--predictions",
                            str(predictions), "--output-dir", str(directory / "out"), "--skip-judge", "--quiet"],
                           check=True)
            run_s = time.perf_counter() - start
            page = directory / "out" / "explorer.html"
            size = page.stat().st_size
            loads, interactions = measure(page, args.repeat)
            print(f"rows {rows}: explorer.html {size / 1e6:.2f} MB ({size / rows:.0f} bytes per instance); "
                  f"evaluate.py {run_s:.1f} s; usable after {min(loads):.0f} ms (best of {args.repeat}, "
                  f"worst {max(loads):.0f} ms); facet click {min(i[0] for i in interactions):.0f} ms, "
                  f"first search {min(i[1] for i in interactions):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
