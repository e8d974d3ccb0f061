"""explorer.html and report.html draw Thai, Devanagari, Arabic, Hangul and CJK with real glyphs, not
boxes (docs/explorer.md#fonts): a screenshot of each script's sample in the page's own font stack
is compared with a screenshot of as many characters no font has (each drawn as the same box). Only
the sample's letters are drawn: a space, or a mark drawn without width, differs from a box even
where the script has no font, so the whole samples passed the check with every letter a box.

Browser tests: skipped, saying why, without Chromium and Playwright, or without a font for a script
(Debian: apt-get install fonts-noto-core fonts-noto-cjk; .ci/run installs them). The fonts are
looked up when the test runs, not when every xdist worker collects this file."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
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


def letters(sample: str) -> str:
    """The sample's letters (Unicode category L*), without its spaces and combining marks."""
    return "".join(ch for ch in sample if unicodedata.category(ch).startswith("L"))


def fonts_missing() -> str | None:
    if shutil.which("fc-list") is None:
        return "fontconfig's fc-list is not installed"
    missing = [lang for lang in SAMPLES
               if not subprocess.run(["fc-list", f":lang={lang}", "family"], capture_output=True, text=True).stdout.strip()]
    return f"no font for {', '.join(missing)} (apt-get install fonts-noto-core fonts-noto-cjk)" if missing else None


NO_BROWSER = unavailable_reason()


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


@pytest.mark.skipif(NO_BROWSER is not None, reason=f"browser test skipped: {NO_BROWSER}")
def test_every_script_is_drawn_with_glyphs_not_boxes(pages, tmp_path):
    missing = fonts_missing()
    if missing:
        pytest.skip(f"browser test skipped: {missing}")
    with browser_page(width=900, height=600) as driver:  # one browser for both pages
        for which in ("explorer", "report"):
            assert_drawn(driver, which, pages[which], tmp_path)


def assert_drawn(driver, which: str, page: Path, tmp_path: Path) -> None:
    """Each script's letters, in the page's own font stack, differ from as many boxes."""
    driver.goto(page.as_uri())
    for lang, sample in SAMPLES.items():
        sample, shots = letters(sample), []
        for text in (sample, NO_GLYPH * len(sample)):
            where = driver.evaluate("""([text, lang]) => {
                document.getElementById('font-probe')?.remove();
                const probe = document.createElement('span');
                probe.id = 'font-probe'; probe.lang = lang; probe.textContent = text;
                probe.style.cssText = 'position:fixed;left:0;top:0;z-index:99999;background:#fff;' +
                                      'font-size:20px;padding:4px;white-space:nowrap';
                document.body.appendChild(probe);
                const r = probe.getBoundingClientRect();
                return {x: r.x, y: r.y, width: r.width, height: r.height};
            }""", [text, lang])
            shot = tmp_path / f"{which}-{lang}-{len(shots)}.png"
            # the probe's rectangle of the page (fixed, on top): an element screenshot's pixels
            # without its scrolling and waiting, in about half the browser's time
            driver.screenshot(path=str(shot), clip=where)
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
