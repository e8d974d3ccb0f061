"""report.html (SPEC §11): self-contained, well-formed, escaped, with the charts and the failures."""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from eval.reports.failures import failures
from eval.insttrans.record import INSTTRANS
from eval.published import sections_html
from eval.reports.report_html import bar_chart_svg, render_report_html
from eval.scoring.score_rows import row_from_dict

ROOT = Path(__file__).resolve().parent.parent
VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr", "source"}


class PageParser(HTMLParser):
    """Collects the tags and text and checks that every element is closed in order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(page: str) -> PageParser:
    parser = PageParser()
    parser.feed(page)
    parser.close()
    assert not parser.errors and not parser.stack, (parser.errors, parser.stack)
    return parser


def _run(tmp_path, *flags) -> tuple[dict, list[dict], str]:
    out = tmp_path / "run"
    subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--quiet", "--skip-judge", *flags,
                    "--output-dir", str(out)], check=True, cwd=ROOT)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    scores = [row_from_dict(json.loads(line))
              for line in (out / "scores.jsonl").read_text(encoding="utf-8").split("\n") if line]
    return summary, scores, (out / "report.html").read_text(encoding="utf-8")


def test_the_insttrans_page_is_written_beside_report_md_and_holds_charts_and_failures(tmp_path):
    summary, scores, page = _run(tmp_path, "--predictions", str(ROOT / "data" / "example_predictions.jsonl"))
    parser = parse(page)
    tags = [tag for tag, _ in parser.tags]
    assert tags.count("svg") == 2  # per constraint, per target language
    assert "script" not in tags and "link" not in tags and "img" not in tags
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    text = "".join(parser.text)
    assert summary["signature"] in text
    entries = [entry for score in scores for entry in score["constraints"] if entry["id"] == "format_preserve"]
    failed = sum(not entry["passed"] for entry in entries)
    assert failed and f"format_preserve (hard): {failed} of {len(entries)} failed" in text
    first_failure = next(score for score in scores if not score["hard_pass"] and score["status"] == "ok")
    assert first_failure["case_id"] in text
    bars = [attrs for tag, attrs in parser.tags if tag == "rect" and attrs.get("fill") == "#3366aa"]
    assert len(bars) >= len([c for c in summary["by_constraint"].values() if c["kind"] == "hard"])
    lists = failures(scores, summary, bench=INSTTRANS)
    assert page == render_report_html(summary, scores, INSTTRANS, lists,  # the file is exactly the function's page
                                      sections_html(summary, INSTTRANS))


def test_the_sandglass_page_has_the_syllable_scatter_and_per_language_tables(tmp_path):
    summary, scores, page = _run(tmp_path, "--benchmark", "sandglass", "--predictions",
                                 str(ROOT / "data" / "sandglass" / "example_predictions.jsonl"))
    parser = parse(page)
    circles = [attrs for tag, attrs in parser.tags if tag == "circle"]
    scored = sum(score["status"] == "ok" for score in scores)
    assert len(circles) >= scored  # one dot per scored item, plus the legend
    text = "".join(parser.text)
    assert "target syllables" in text and "output syllables" in text
    for lang in summary["by_language"]:
        assert f"{lang}{summary['by_language'][lang]['n']}" in text.replace(" ", "")
    assert "Syllable budget:" in text


def test_every_text_is_escaped():
    hostile = '<script>alert("x")</script>'
    summary = {"formal": False, "non_formal_reasons": [hostile], "signature": f"data:{hostile}",
               "data": {"source": hostile, "n_instances": 1, "sha256": "0" * 64, "manifest_match": False},
               "predictions": {"path": hostile, "rows": 1, "missing": 0,
                               "diagnostics": {"code_fence": 0, "think_block": 0, "text_around_json": 0},
                               "diagnostic_case_ids": {"code_fence": [], "think_block": [], "text_around_json": []}},
               "judge": None, "if_score": {"value": None, "ci95": None}, "quality": {"value": None, "ci95": None},
               "hard_pass_rate": {"value": 0.0, "ci95": [0.0, 0.0]},
               "by_constraint": {"term_compliance": {"kind": "hard", "n": 1, "pass_rate": 0.0}},
               "by_scenario": {hostile: {"n": 1, "if_score": None, "quality": None, "hard_pass_rate": 0.0}},
               "by_domain": {}, "by_language_pair": {}, "by_constraint_count": {},
               "by_target_lang": {hostile: {"n": 1, "if_score": None, "quality": None, "hard_pass_rate": 0.0}}}
    scores = [row_from_dict({"case_id": hostile, "status": "ok", "target_lang": hostile, "hard_pass": False,
                             "if_score": None, "quality": None, "constraint_ids": ["term_compliance"],
                             "constraints": [{"index": 1, "id": "term_compliance", "kind": "hard", "passed": False,
                                              "detail": {"terms": [hostile], "missing": [hostile]}}]})]
    page = render_report_html(summary, scores, INSTTRANS, failures(scores, summary, bench=INSTTRANS))
    assert "<script" not in page
    parser = parse(page)
    assert hostile in "".join(parser.text)


def test_bars_are_scaled_and_whiskers_drawn_at_the_interval():
    svg = bar_chart_svg([{"label": "x", "value": 0.5, "ci95": [0.25, 0.75], "n": 4}], "t", width=730)
    parser = parse(svg)
    rect = next(attrs for tag, attrs in parser.tags if tag == "rect")
    plot = 730 - 230 - 220
    assert float(rect["width"]) == pytest.approx(plot * 0.5, abs=0.1)
    whisker = [attrs for tag, attrs in parser.tags if tag == "line" and attrs.get("stroke") == "#111"][0]
    assert float(whisker["x1"]) == pytest.approx(230 + plot * 0.25, abs=0.1)
    assert float(whisker["x2"]) == pytest.approx(230 + plot * 0.75, abs=0.1)
    unscored = parse(bar_chart_svg([{"label": "y", "value": None}], "t"))
    assert "not scored" in "".join(unscored.text)
