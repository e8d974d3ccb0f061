"""explorer.html: every instance of a run, to read, filter and search (docs/explorer.md).

The page is one self-contained file: the instances as JSON inside a `<script type="application/json">`
block, and a small hand-written script (eval/reports/explorer_assets.py) that renders them with textContent
only. Which facets, numbers, texts and checks an instance has is the benchmark's business
(`ReportHooks.explorer_view`); this module knows none of them. eval/reports/compare_html.py builds its page of
changed instances from the same pieces.

Escaping: the JSON is written with every `<`, `>` and `&` as a \\u escape, so no text from data,
predictions or Judge replies can close the script element or open a tag; the script never parses
data as HTML.
"""

from __future__ import annotations

import codecs
import contextlib
import gc
import html
import json
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from eval.reports.explorer_assets import EXPLORER_CSS, EXPLORER_JS
from eval.inputs.predictions import is_missing, wrapper_diagnostics
from eval.scoring.score_rows import ScoreRow

# (character, its JSON escape); str.replace per character is ~25x faster than str.translate here.
_JSON_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


_EMBED_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def embed_json(value) -> str:
    """`value` as JSON that is inert inside a script element: no `</script`, no `<!--`, and none
    of the characters an HTML parser looks for."""
    text = _EMBED_ENCODER.encode(value)
    for character, escape in _JSON_ESCAPES:
        text = text.replace(character, escape)
    return text


def generic_view(row: dict | None, score: ScoreRow) -> dict:
    """A benchmark without its own view: the status only (every run still gets a page)."""
    return {"facets": {}, "numbers": {}, "texts": [], "checks": [], "judge": []}


def pane(view: dict, score: ScoreRow, prediction: str | None, diagnostics: list[str], heading: str = "") -> dict:
    """One column of an instance: its prediction, checks, Judge replies and diagnostics."""
    return {"h": heading, "st": score.status.value, "pr": prediction, "pl": view.get("prediction_lang", ""),
            "ws": bool(view.get("show_whitespace")), "c": [_check(check) for check in view.get("checks", [])],
            "j": [[label, text] for label, text in view.get("judge", [])], "d": diagnostics}


def _check(check: dict) -> list:
    """[name, kind, verdict shown, passed (1, 0, or None when not judged), explanation]."""
    passed = check.get("passed")
    return [check["name"], check.get("kind", ""), check.get("verdict", ""),
            None if passed is None else int(bool(passed)), check.get("explanation", "")]


def texts_of(view: dict) -> list[list]:
    """[label, text, folded (0/1), lang] per text the view shows beside the prediction."""
    return [[text["label"], text["text"], int(bool(text.get("folded"))), text.get("lang", "")]
            for text in view.get("texts", []) if isinstance(text.get("text"), str)]


def instance_item(view: dict, score: ScoreRow, prediction: str | None, diagnostics: list[str]) -> dict:
    """One instance of explorer.html."""
    facets = dict(view.get("facets", {}))
    facets["status"] = score.status.value
    if diagnostics:
        facets["diagnostic"] = diagnostics
    return {"id": score.case_id, "f": facets, "n": view.get("numbers", {}), "s": view.get("summary", ""),
            "t": texts_of(view), "p": [pane(view, score, prediction, diagnostics)]}


def explorer_items(bench, rows: list[dict], predictions: dict, scores: list[ScoreRow],
                   diagnostic_case_ids: dict[str, list[str]] | None = None) -> list[dict]:
    """Every scored instance in data order (rows and scores are aligned by the pipeline)."""
    return list(iter_explorer_items(bench, rows, predictions, scores, diagnostic_case_ids))


def iter_explorer_items(bench, rows: list[dict], predictions: dict, scores: list[ScoreRow],
                        diagnostic_case_ids: dict[str, list[str]] | None = None) -> Iterator[dict]:
    """The instances one at a time (the page serialises each and lets it go). The wrapper
    diagnostics come from the summary's `diagnostic_case_ids` when given, else are computed here."""
    view_of = bench.reports.explorer_view or generic_view
    named: dict[str, list[str]] = {}
    for name, case_ids in (diagnostic_case_ids or {}).items():
        for case_id in case_ids:
            named.setdefault(case_id, []).append(name)
    for row, score in zip(rows, scores):
        prediction = predictions.get(score.case_id)
        if diagnostic_case_ids is not None or is_missing(prediction):
            diagnostics = named.get(score.case_id, [])
        else:
            found = wrapper_diagnostics(prediction, bench.data.diagnostics_source(row), bench.data.diagnostics_target(row))
            diagnostics = [name for name, present in found.items() if present]
        yield instance_item(view_of(row, score), score, prediction, diagnostics)


def run_meta(summary: dict) -> list[list[str]]:
    """The header lines of a run's page: status, data, predictions, Judge, signature."""
    data, predictions, judge = summary.get("data", {}), summary.get("predictions", {}), summary.get("judge")
    status = "formal" if summary.get("formal") else "NOT formal: " + "; ".join(summary.get("non_formal_reasons", []))
    return [["run", status],
            ["data", f"{data.get('source')} ({data.get('n_instances')} instances, "
                     f"sha256 {str(data.get('sha256'))[:12]})"],
            ["predictions", f"{predictions.get('path')} ({predictions.get('missing', 0)} missing)"],
            ["judge", "skipped" if not judge else f"{judge.get('model')} at {judge.get('host')}"],
            ["signature", str(summary.get("signature", ""))]]


def payload_json(header: dict, items: Iterable[dict]) -> str:
    """The page's data as embedded JSON: `header` (title, meta, ...) with the instances, each
    serialised as it comes; `numbers` (the sortable names, in first-seen order) is collected on
    the way unless the header names them."""
    names: dict[str, None] = {}
    pieces = []
    for item in items:
        names.update(dict.fromkeys(item["n"]))
        pieces.append(embed_json(item))
    head = embed_json({"numbers": list(names), **header})
    return "".join([head[:-1], ',"items":[', ",".join(pieces), "]}"])


def page(title: str, payload: dict | str, prelude: str = "") -> str:
    """The whole HTML document around the embedded payload (a dict, or payload_json's text);
    `prelude` is escaped HTML (a chart) the script moves into the header."""
    data = payload if isinstance(payload, str) else embed_json(payload)
    before, after = page_frame(title, prelude)
    return "".join([before, data, after])


def page_frame(title: str, prelude: str = "") -> tuple[str, str]:
    """The document before and after the embedded payload (`page` puts the payload between)."""
    before = "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{html.escape(title)}</title><style>{EXPLORER_CSS}</style></head>\n<body>\n",
        "<noscript>This page needs JavaScript to show the instances; scores.jsonl holds them all.</noscript>\n",
        f"<div id=\"prelude\">{prelude}</div>\n" if prelude else "",
        "<script type=\"application/json\" id=\"explorer-data\">"])
    return before, f"</script>\n<script>{EXPLORER_JS}</script>\n</body></html>\n"


def render_explorer_html(bench, summary: dict, rows: list[dict], predictions: dict, scores: list[ScoreRow]) -> str:
    """explorer.html of one run (SPEC §11 result file; docs/explorer.md)."""
    with _no_cyclic_gc():
        items = iter_explorer_items(bench, rows, predictions, scores,
                                    (summary.get("predictions") or {}).get("diagnostic_case_ids"))
        header = {"kind": "run", "title": f"{bench.title} instances", "meta": run_meta(summary)}
        return page(f"{bench.title} explorer", payload_json(header, items))


def write_explorer_html(write: Callable[[str], None], bench, summary: dict, rows: list[dict], predictions: dict,
                        scores: list[ScoreRow], scratch_dir: Path, batch: int = 256, chunk: int = 1 << 20) -> None:
    """explorer.html of one run through `write`, the same bytes as `render_explorer_html`, without
    ever holding the page: the instances go one batch at a time to an unnamed scratch file in
    `scratch_dir` (the sortable numbers' names, which the header carries before them, are known only
    after the last one), then the page is written around a copy of it. The scratch file has no name
    (O_TMPFILE, or unlinked at once), so a killed run leaves nothing of it behind. `batch` (items) and
    `chunk` (bytes of each copy) bound what it holds; tests make them small to see that bound."""
    title = f"{bench.title} explorer"
    header = {"kind": "run", "title": f"{bench.title} instances", "meta": run_meta(summary)}
    names: dict[str, None] = {}
    with _no_cyclic_gc(), tempfile.TemporaryFile(dir=scratch_dir) as scratch:
        pieces: list[str] = []
        separator = ""
        for item in iter_explorer_items(bench, rows, predictions, scores,
                                        (summary.get("predictions") or {}).get("diagnostic_case_ids")):
            names.update(dict.fromkeys(item["n"]))
            pieces.append(embed_json(item))
            if len(pieces) == batch:
                scratch.write((separator + ",".join(pieces)).encode("utf-8", "surrogatepass"))
                pieces, separator = [], ","
        if pieces:
            scratch.write((separator + ",".join(pieces)).encode("utf-8", "surrogatepass"))
        before, after = page_frame(title)
        head = embed_json({"numbers": list(names), **header})
        write("".join([before, head[:-1], ',"items":[']))
        scratch.seek(0)
        # Bytes read and decoded here: a text-mode read keeps its own large decode buffers.
        decoder = codecs.getincrementaldecoder("utf-8")("surrogatepass")
        while part := scratch.read(chunk):
            write(decoder.decode(part))
        write(decoder.decode(b"", final=True))
        write("]}" + after)


@contextlib.contextmanager
def _no_cyclic_gc():
    """The page's many small, acyclic dicts and lists would set off full collections over the
    whole run's heap (half the page's build time at 3,000 rows); reference counting frees them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

