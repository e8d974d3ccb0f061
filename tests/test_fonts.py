"""explorer.html and report.html draw Thai, Devanagari, Arabic, Hangul and CJK with real glyphs, not
boxes (docs/explorer.md#fonts): a screenshot of each script's sample in the page's own font stack
is compared with a screenshot of as many characters no font has (each drawn as the same box).

Browser tests: skipped, saying why, without Chromium and Playwright, or without a font for a script
(Debian: apt-get install fonts-noto-core fonts-noto-cjk; .ci/run installs them)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import evaluate
from chromium import browser_page, unavailable_reason

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = {  # fontconfig language -> a sample of the script
    "th": "ภาษาไทยสวัสดี",
    "hi": "हिन्दी भाषा नमस्ते",
    "ar": "اللغة العربية مرحبا",
    "ko": "한국어 안녕하세요",
    "zh-cn": "中文翻译质量",
    "ja": "日本語のひらがなカタカナ",
}
NO_GLYPH = "\ue000"  # private use: no installed font draws it, so it is the box a missing glyph gets
FAMILIES = ("Noto Sans Thai", "Noto Sans Devanagari", "Noto Sans Arabic", "Noto Sans CJK KR", "Noto Sans CJK SC",
            "Noto Sans CJK JP")


def fonts_missing() -> str | None:
    if shutil.which("fc-list") is None:
        return "fontconfig's fc-list is not installed"
    missing = [lang for lang in SAMPLES
               if not subprocess.run(["fc-list", f":lang={lang}", "family"], capture_output=True, text=True).stdout.strip()]
    return f"no font for {', '.join(missing)} (apt-get install fonts-noto-core fonts-noto-cjk)" if missing else None


REASON = unavailable_reason() or fonts_missing()


def body_font_stack(css: str) -> str:
    return re.search(r"body\{[^}]*?font:[^;]*?px/[\d.]+ ([^;]+);", css, re.S).group(1)


def test_both_pages_name_a_font_for_every_script():
    from eval.reports.explorer_assets import EXPLORER_CSS
    from eval.reports.report_html import CSS as REPORT_CSS

    for css in (EXPLORER_CSS, REPORT_CSS):
        stack = body_font_stack(css)
        assert all(f'"{family}"' in stack for family in FAMILIES), stack
        assert stack.rstrip().endswith("sans-serif")


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("fonts") / "run"
    assert evaluate.main(["--predictions", str(ROOT / "data" / "example_predictions.jsonl"), "--output-dir", str(out),
                          "--skip-judge", "--quiet", "--limit", "5"]) == 0
    return {"explorer": out / "explorer.html", "report": out / "report.html"}


@pytest.mark.skipif(REASON is not None, reason=f"browser test skipped: {REASON}")
def test_every_script_is_drawn_with_glyphs_not_boxes(pages, tmp_path):
    with browser_page(width=900, height=600) as driver:  # one browser for both pages
        for which in ("explorer", "report"):
            assert_drawn(driver, which, pages[which], tmp_path)


def assert_drawn(driver, which: str, page: Path, tmp_path: Path) -> None:
    """Each script's sample, in the page's own font stack, differs from as many boxes."""
    driver.goto(page.as_uri())
    for lang, sample in SAMPLES.items():
        shots = []
        for text in (sample, NO_GLYPH * len(sample)):
            driver.evaluate("""([text, lang]) => {
                document.getElementById('font-probe')?.remove();
                const probe = document.createElement('span');
                probe.id = 'font-probe'; probe.lang = lang; probe.textContent = text;
                probe.style.cssText = 'position:fixed;left:0;top:0;z-index:99999;background:#fff;' +
                                      'font-size:20px;padding:4px;white-space:nowrap';
                document.body.appendChild(probe);
            }""", [text, lang])
            shot = tmp_path / f"{which}-{lang}-{len(shots)}.png"
            driver.locator("#font-probe").screenshot(path=str(shot))
            shots.append(shot.read_bytes())
        assert shots[0] != shots[1], f"{which}: the {lang} sample is drawn as boxes"
        boxes = driver.evaluate("""(text) => {
            const probe = document.getElementById('font-probe');
            const widths = [...text].map(ch => { probe.textContent = ch; return probe.getBoundingClientRect().width; });
            return widths;
        }""", sample)
        box = driver.evaluate("""(ch) => { const probe = document.getElementById('font-probe');
            probe.textContent = ch; return probe.getBoundingClientRect().width; }""", NO_GLYPH)
        assert any(abs(width - box) > 0.5 for width in boxes), f"{which}: every {lang} character is a box"
