"""explorer.html, the compare page and --log-samples (docs/explorer.md).

The page's data is checked from Python (every instance, its verdicts and reasons, hostile text kept
inert); tests marked `browser` drive headless Chromium over the bundled runs of each benchmark and
are skipped, with the reason printed, where Chromium or Playwright is absent. They share one
Chromium (a fresh page each), and the page's timers run on Playwright's clock: a test moves the
clock past the search box's pause instead of sleeping through it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import evaluate
import prepare_inputs
from chromium import SharedBrowser, unavailable_reason
from eval.benchmarks import get_benchmark
from eval.exits import run_cli
from eval.compare import compare, load_run
from eval.compare import main as compare_main
from eval.reports.compare_html import changed_case_ids, compare_items, render_compare_html
from eval.reports.explorer import embed_json, page
from eval.insttrans.failures import failure_reason
from eval.scoring.score_rows import ScoreRow, row_from_dict
from eval.io.outputs import RESULT_FILES
from judge_server import JudgeServer
from tests.ifmtbench.helpers import ifmt_handler
from conftest import make_row, write_jsonl

ROOT = Path(__file__).resolve().parent.parent
IT_DATA, IT_PREDICTIONS = ROOT / "data" / "test.jsonl", ROOT / "data" / "example_predictions.jsonl"
SG_DATA = ROOT / "data" / "sandglass" / "test.jsonl"
SG_PREDICTIONS = ROOT / "data" / "sandglass" / "example_predictions.jsonl"
IF_PREDICTIONS = ROOT / "data" / "ifmtbench" / "example_predictions.jsonl"
IF_FLAGS = ("--benchmark", "ifmtbench", "--judge-backoff", "0.001")
HOSTILE = ('</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
           '<!-- <svg onload=window.__pwned=3> &amp; \u2028 end')
NO_BROWSER = unavailable_reason()
browser = pytest.mark.skipif(NO_BROWSER is not None, reason=f"browser test skipped: {NO_BROWSER}")


def payload_of(html_text: str) -> dict:
    match = re.search(r'<script type="application/json" id="explorer-data">(.*?)</script>', html_text, re.S)
    return json.loads(match.group(1))


def read_scores(out: Path) -> list[ScoreRow]:
    return [row_from_dict(json.loads(line)) for line in (out / "scores.jsonl").read_text(encoding="utf-8").split("\n")
            if line]


def text_field(row: dict) -> str:
    """Where a predictions line holds its text: `prediction`, or IFMTBench's `response`."""
    return "prediction" if "case_id" in row else "response"


def read_predictions(path: Path) -> dict:
    """{case_id: text} of a predictions file; IFMTBench's original lines as {(md5, instruction_lang): text}."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    return {row["case_id"] if "case_id" in row else (row["md5"], row.get("instruction_lang")): row.get(text_field(row))
            for row in rows}


def prediction_for(score: dict, predictions: dict):
    """The text a score row was scored on, from read_predictions' map."""
    key = (score["md5"], score.get("instruction_lang")) if "md5" in score else score["case_id"]
    return predictions.get(key)


def evaluate_run(out: Path, data: Path | None, predictions: Path, *extra: str) -> Path:
    """evaluate.py on `data` (None: the benchmark named in `extra`, with its bundled data)."""
    where = [] if data is None else ["--data", str(data)]
    assert run_cli(evaluate.main, [*where, "--predictions", str(predictions), "--output-dir", str(out),
                                   "--quiet", *extra]) == 0
    return out


def perturbed(source: Path, target: Path, every: int = 7) -> Path:
    """A second system: every `every`-th prediction cut in half, every 11th dropped."""
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").split("\n") if line]
    for index, row in enumerate(rows):
        field = text_field(row)
        if row.get(field) and index % every == 0:
            row[field] = row[field][: len(row[field]) // 2]
        elif index % 11 == 0:
            row[field] = None
    return write_jsonl(target, rows)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The bundled example runs of each benchmark, judged by the stand-in Judge, and a second
    (perturbed, unjudged-free) system of each for the compare page. A benchmark's two runs share
    one Judge cache (`--judge-cache`): the stand-in's verdict depends on the prompt alone, so the
    second run asks only for the predictions the perturbation changed."""
    base = tmp_path_factory.mktemp("explorer-runs")

    def cache(name: str) -> tuple[str, ...]:
        return ("--judge-cache", str(base / f"{name}-judge-cache.sqlite"))

    with pytest.MonkeyPatch.context() as patch, JudgeServer() as server:
        patch.setenv("JUDGE_API_KEY", "sk-explorer-test")
        patch.setenv("JUDGE_API_BASE", server.base_url)
        made = {"it": evaluate_run(base / "it", IT_DATA, IT_PREDICTIONS, "--judge-backoff", "0.001", *cache("it")),
                "sg": evaluate_run(base / "sg", SG_DATA, SG_PREDICTIONS, "--judge-backoff", "0.001", *cache("sg")),
                "it_b": evaluate_run(base / "it_b", IT_DATA, perturbed(IT_PREDICTIONS, base / "it_b.jsonl"),
                                     "--judge-backoff", "0.001", *cache("it")),
                "sg_b": evaluate_run(base / "sg_b", SG_DATA, perturbed(SG_PREDICTIONS, base / "sg_b.jsonl"),
                                     "--judge-backoff", "0.001", *cache("sg"))}
    with pytest.MonkeyPatch.context() as patch, JudgeServer(ifmt_handler) as server:
        patch.setenv("JUDGE_API_KEY", "sk-explorer-test")
        patch.setenv("JUDGE_API_BASE", server.base_url)
        made["if"] = evaluate_run(base / "if", None, IF_PREDICTIONS, *IF_FLAGS, *cache("if"))
        made["if_b"] = evaluate_run(base / "if_b", None, perturbed(IF_PREDICTIONS, base / "if_b.jsonl"), *IF_FLAGS,
                                    *cache("if"))
    return made


# ---------------------------------------------------------------------------------------------
# The page's data
# ---------------------------------------------------------------------------------------------

def test_explorer_html_is_a_result_file_written_before_the_summary():
    assert "explorer.html" in RESULT_FILES and RESULT_FILES[-1] == "summary.json"


@pytest.mark.parametrize("name, predictions", [("it", IT_PREDICTIONS), ("sg", SG_PREDICTIONS),
                                               ("if", IF_PREDICTIONS)])
def test_every_instance_is_on_the_page_with_its_prediction_and_status(runs, name, predictions):
    out = runs[name]
    scores, page_data = read_scores(out), payload_of((out / "explorer.html").read_text(encoding="utf-8"))
    expected = read_predictions(predictions)
    assert [item["id"] for item in page_data["items"]] == [score["case_id"] for score in scores]
    for item, score in zip(page_data["items"], scores):
        assert item["f"]["status"] == score["status"]
        assert item["p"][0]["pr"] == prediction_for(score, expected)


def test_each_insttrans_constraint_has_its_verdict_and_reason(runs):
    scores = read_scores(runs["it"])
    items = payload_of((runs["it"] / "explorer.html").read_text(encoding="utf-8"))["items"]
    failed_hard = 0
    for item, score in zip(items, scores):
        checks = {check[0]: check for check in item["p"][0]["c"]}
        for entry in score["constraints"]:
            name, kind, verdict, passed, why = checks[entry["id"]]
            if entry["kind"] == "hard":
                assert passed == int(entry["passed"]) and verdict == ("pass" if entry["passed"] else "fail")
                if not entry["passed"]:
                    failed_hard += 1
                    assert why == failure_reason(entry["id"], entry["detail"], missing=score.missing) and why
            else:
                assert verdict == f"{entry['score']:g}"
        assert checks["quality"][2] == f"{score['quality']:g}"
        assert item["f"]["language pair"] == f"{score['source_lang']}-{score['target_lang']}"
        assert item["f"]["constraint"] == score["constraint_ids"]
        if score["status"] == "ok":  # the Judge's replies are there, as sent
            assert any(text == score["quality_detail"]["reply"] for _, text in item["p"][0]["j"])
    assert failed_hard > 10


def test_sandglass_items_carry_kind_fenqu_and_the_budget_check(runs):
    scores = read_scores(runs["sg"])
    items = payload_of((runs["sg"] / "explorer.html").read_text(encoding="utf-8"))["items"]
    for item, score in zip(items, scores):
        assert (item["f"]["target kind"], item["f"]["fenqu"], item["f"]["target language"]) == (
            score["target_kind"], score["fenqu"], score["target_language"])
        budget = item["p"][0]["c"][0]
        assert budget[2] == f"{score['hyp_syllables']} of {score['target_syllables']}"
        assert budget[3] == int(score["syllable_reward"] >= 1)


def test_hostile_text_cannot_leave_the_json_block(tmp_path):
    """A prediction, a data text and a Judge reply holding </script>, on*= and <!-- stay data."""
    row = make_row("x-1", source_text=HOSTILE, reference=HOSTILE)
    data = write_jsonl(tmp_path / "data.jsonl", [row])
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "x-1", "prediction": HOSTILE}])
    out = evaluate_run(tmp_path / "out", data, predictions, "--skip-judge")
    text = (out / "explorer.html").read_text(encoding="utf-8")
    assert len(re.findall(r"<script", text, re.I)) == 2 and "<img" not in text and "<!--" not in text
    item = payload_of(text)["items"][0]
    assert item["p"][0]["pr"] == HOSTILE and HOSTILE in [t[1] for t in item["t"]]
    assert "<" not in embed_json({"t": HOSTILE}) and json.loads(embed_json({"t": HOSTILE})) == {"t": HOSTILE}


# ---------------------------------------------------------------------------------------------
# --log-samples
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, predictions, flags", [(IT_DATA, IT_PREDICTIONS, ()), (SG_DATA, SG_PREDICTIONS, ()),
                                                      (None, IF_PREDICTIONS, ("--benchmark", "ifmtbench"))])
def test_log_samples_adds_the_prediction_and_the_model_input_and_nothing_else(tmp_path, data, predictions, flags):
    plain = read_scores(evaluate_run(tmp_path / "plain", data, predictions, "--skip-judge", "--limit", "40", *flags))
    logged = read_scores(evaluate_run(tmp_path / "logged", data, predictions, "--skip-judge", "--limit", "40",
                                      "--log-samples", *flags))
    exported = tmp_path / "inputs.jsonl"  # what prepare_inputs.py gives a model
    assert run_cli(prepare_inputs.main, [*(["--data", str(data)] if data else []), *flags, "--limit", "40",
                                         "--output", str(exported)]) == 0
    inputs = {row["case_id"]: row["messages"] for row in map(json.loads, exported.read_text().splitlines())}
    expected = read_predictions(predictions)
    for before, after in zip(plain, logged):
        assert "prediction" not in before and "model_input" not in before
        after = after.to_dict()
        extra = {key: after.pop(key) for key in ("prediction", "model_input")}
        assert after == before
        assert extra == {"prediction": prediction_for(before, expected), "model_input": inputs[before["case_id"]]}
    summaries = [json.loads((tmp_path / name / "summary.json").read_text()) for name in ("plain", "logged")]
    summaries[0]["predictions"].pop("path"), summaries[1]["predictions"].pop("path")
    assert summaries[0]["signature"] == summaries[1]["signature"]


# ---------------------------------------------------------------------------------------------
# The compare page
# ---------------------------------------------------------------------------------------------

def verdicts(row: dict) -> list[tuple]:
    return [(entry["id"], entry.get("passed"), entry.get("score")) for entry in row.get("constraints", [])]


def flips_from_scores(a: Path, b: Path) -> list[str]:
    """Changed instances computed from the two scores.jsonl files alone, field by field."""
    fields = ("hard_pass", "soft_mean", "if_score", "quality", "status", "score", "syllable_reward",
              "hyp_syllables")
    rows_b = {row["case_id"]: row for row in read_scores(b)}
    out = []
    for row in read_scores(a):
        other = rows_b[row["case_id"]]
        if any(row.get(name) != other.get(name) for name in fields) or verdicts(row) != verdicts(other):
            out.append(row["case_id"])
    return out


@pytest.mark.parametrize("a, b", [("it", "it_b"), ("sg", "sg_b"), ("if", "if_b")])
def test_the_compare_page_lists_exactly_the_flips_of_the_scores(runs, a, b, tmp_path):
    expected = flips_from_scores(runs[a], runs[b])
    assert expected  # the perturbation changed something
    run_a, run_b = load_run(runs[a]), load_run(runs[b])
    assert changed_case_ids(run_a, run_b) == expected
    out = tmp_path / "compare.html"
    assert run_cli(compare_main, [str(runs[a]), str(runs[b]), "--resamples", "200", "--html", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    items = payload_of(text)["items"]
    assert [item["id"] for item in items] == expected
    assert all(len(item["p"]) == 2 for item in items)
    result = compare([runs[a], runs[b]], resamples=200)
    n_metrics = len(result["metrics"]) + len(result["by_constraint"]) + sum(
        len(stats) for stats in (result["comparisons"][0].get("by_language") or {}).values())
    assert text.count("<circle") == n_metrics  # one dot per metric in the chart


def test_the_compare_page_shows_both_predictions_side_by_side(runs):
    result = compare([runs["it"], runs["it_b"]], resamples=200)
    items = compare_items([load_run(runs["it"]), load_run(runs["it_b"])])
    a, b = read_predictions(IT_PREDICTIONS), read_predictions(runs["it_b"].parent / "it_b.jsonl")
    for item in items:
        assert [pane["pr"] for pane in item["p"]] == [a.get(item["id"]), b.get(item["id"])]
    assert "<svg" in render_compare_html(result, [load_run(runs["it"]), load_run(runs["it_b"])])


# ---------------------------------------------------------------------------------------------
# In a real browser
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for this module's browser tests (a launch is about a CPU second)."""
    browser = SharedBrowser()
    yield browser
    browser.close()


def in_browser(chromium: SharedBrowser, steps: Callable[[Any], Any]) -> Any:
    """`steps(page)` on a fresh page whose timers run on Playwright's clock, so that a test moves
    time on (`search`) instead of waiting for it to pass."""
    def on_the_clock(driver):
        driver.clock.install()
        return steps(driver)

    return chromium.run(on_the_clock)


def open_page(driver, path: Path, fragment: str = ""):
    errors: list[str] = []
    driver.on("pageerror", lambda error: errors.append(str(error)))
    driver.goto(path.resolve().as_uri() + fragment)
    driver.wait_for_selector("body[data-ready='1']")
    return errors


def visible_count(driver) -> int:
    """The list's count: facets, sort and clear apply in their event handlers, so it is current."""
    return int(driver.inner_text("#count").split()[0])


def search(driver, text: str) -> None:
    """Types `text` into the search box, then runs the page's clock a second on: the box applies
    the search once typing has paused (120 ms), so the filter has run when this returns."""
    driver.fill("#search", text)
    driver.clock.run_for(1000)


def choose(driver, facet: str, value: str) -> None:
    group = driver.locator("details.facet").filter(
        has=driver.locator("summary", has_text=re.compile(f"^{re.escape(facet)}$")))
    group.locator("label").filter(has=driver.locator("span.fv", has_text=re.compile(f"^{re.escape(value)}$"))) \
        .locator("input").check()


def facet_count(driver, facet: str, value: str) -> int:
    group = driver.locator("details.facet").filter(
        has=driver.locator("summary", has_text=re.compile(f"^{re.escape(facet)}$")))
    label = group.locator("label").filter(has=driver.locator("span.fv", has_text=re.compile(f"^{re.escape(value)}$")))
    return int(label.locator("span.fc").text_content())


def open_first_row(driver) -> str:
    driver.locator("#spacer .row").first.click()
    if driver.locator("#show-ws").is_checked():
        driver.locator("#show-ws").uncheck()
    return driver.inner_text("#detail h2")


@browser
def test_browser_insttrans_facet_search_count_and_an_instance(runs, chromium):
    scores = read_scores(runs["it"])
    predictions = read_predictions(IT_PREDICTIONS)
    expected = [s for s in scores if s["status"] == "ok" and not s["hard_pass"] and "itb-social" in s["case_id"]]

    def steps(driver):
        errors = open_page(driver, runs["it"] / "explorer.html")
        assert visible_count(driver) == len(scores)
        choose(driver, "outcome", "hard fail")
        failing = [s for s in scores if s["status"] == "ok" and not s["hard_pass"]]
        assert visible_count(driver) == len(failing)
        for constraint in ("format_preserve", "layout_break"):  # the other facets' counts follow the filter
            assert facet_count(driver, "constraint", constraint) == sum(constraint in s["constraint_ids"]
                                                                        for s in failing)
        assert facet_count(driver, "outcome", "hard pass") == sum(s["status"] == "ok" and s["hard_pass"]
                                                                  for s in scores)  # what choosing it would add
        search(driver, "itb-social")
        assert visible_count(driver) == len(expected) > 0
        case_id = open_first_row(driver)
        assert case_id == expected[0]["case_id"]
        assert driver.locator("#detail [data-text=prediction]").text_content() == predictions[case_id]
        failing = next(e for e in expected[0]["constraints"] if e["kind"] == "hard" and not e["passed"])
        why = driver.locator(f"#detail tr[data-check={failing['id']}] td.expl").text_content()
        assert why == failure_reason(failing["id"], failing["detail"])
        driver.keyboard.press("j")  # the next instance the filters show
        assert driver.inner_text("#detail h2") == expected[1]["case_id"]
        driver.keyboard.press("k")
        # the link opens the instance on a fresh load (from another page: the same address with the
        # same fragment would not load the page again)
        link = driver.get_attribute("#detail a.link", "href")
        driver.goto("about:blank")
        open_page(driver, runs["it"] / "explorer.html", link)
        assert driver.inner_text("#detail h2") == case_id
        return errors

    assert in_browser(chromium, steps) == []


@browser
def test_browser_sandglass_facet_search_count_and_an_item(runs, chromium):
    scores = read_scores(runs["sg"])
    expected = [s for s in scores if s["target_language"] == "ja" and ":short" in s["case_id"]]

    def steps(driver):
        errors = open_page(driver, runs["sg"] / "explorer.html")
        choose(driver, "target language", "ja")
        assert visible_count(driver) == sum(s["target_language"] == "ja" for s in scores)
        search(driver, ":short")
        assert visible_count(driver) == len(expected) > 0
        case_id = open_first_row(driver)
        assert case_id == expected[0]["case_id"]
        assert driver.locator("#detail [data-text=prediction]").text_content() == expected[0]["hyp"]
        why = driver.locator("#detail tr[data-check='syllable budget'] td.expl").text_content()
        assert f"target of {expected[0]['target_syllables']} syllables" in why
        driver.select_option("#sort", "-dev")  # largest deviation first, ties in data order
        worst = sorted(expected, key=lambda s: -s["dev"])[0]["case_id"]
        assert driver.locator("#spacer .row .id").first.text_content() == worst
        return errors

    assert in_browser(chromium, steps) == []


@browser
def test_browser_ifmtbench_facets_search_count_and_a_row(runs, chromium):
    from eval.ifmtbench.report import failure_reason as ifmt_reason

    scores = read_scores(runs["if"])
    predictions = read_predictions(IF_PREDICTIONS)
    french = [s for s in scores if s["instruction_lang"] == "fr"]
    failing = [s for s in french if s["status"] == "ok" and not s["hard_pass"]]

    def steps(driver):
        errors = open_page(driver, runs["if"] / "explorer.html")
        choose(driver, "instruction language", "fr")
        assert visible_count(driver) == len(french)
        choose(driver, "outcome", "hard fail")
        assert visible_count(driver) == len(failing) > 1
        fragment = failing[1]["case_id"][:10]
        search(driver, fragment)
        expected = [s for s in failing if fragment in s["case_id"]]
        assert visible_count(driver) == len(expected) == 1
        assert open_first_row(driver) == expected[0]["case_id"]
        assert driver.locator("#detail [data-text=prediction]").text_content() == prediction_for(expected[0],
                                                                                                   predictions)
        entry = next(e for e in expected[0]["constraints"] if e["kind"] == "hard" and not e["passed"])
        why = driver.locator(f"#detail tr[data-check={entry['id']}] td.expl").text_content()
        assert why == ifmt_reason(entry, expected[0].missing) and why
        return errors

    assert in_browser(chromium, steps) == []


# What an injected fragment of HTML would leave in the document if the page let one in: an element
# that loads or runs something, an on* handler attribute, a javascript: address, a third script.
INJECTED = """() => ({
  active: [...document.querySelectorAll("img, svg, iframe, frame, object, embed, base, form, link, video, audio, "
                                        + "source, meta[http-equiv=refresh i]")].map(el => el.outerHTML),
  handlers: [...document.querySelectorAll("*")].flatMap(el => [...el.attributes]
      .filter(a => a.name.toLowerCase().startsWith("on")).map(a => el.tagName + " " + a.name)),
  addresses: [...document.querySelectorAll("[href], [src], [action]")]
      .filter(el => ["href", "src", "action"].some(a => /^\\s*javascript:/i.test(el.getAttribute(a) || "")))
      .map(el => el.outerHTML),
  scripts: document.scripts.length,
})"""
NOTHING_INJECTED = {"active": [], "handlers": [], "addresses": [], "scripts": 2}  # the page's data and its code


@browser
def test_browser_hostile_prediction_runs_nothing(tmp_path, chromium):
    """Hostile text in every field stays text: nothing ran, and nothing that could run later (an
    image's error handler, a timer) is in the document; the page's clock is run on to fire timers."""
    row = make_row("x-1", source_text=HOSTILE, reference=HOSTILE)
    data = write_jsonl(tmp_path / "data.jsonl", [row])
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "x-1", "prediction": HOSTILE}])
    out = evaluate_run(tmp_path / "out", data, predictions, "--skip-judge")
    hostile_page = tmp_path / "judge.html"  # a Judge reply and a facet value too, through the same page code
    hostile_page.write_text(page("t", {"kind": "run", "title": HOSTILE, "meta": [[HOSTILE, HOSTILE]], "numbers": [],
                                       "items": [{"id": HOSTILE, "f": {HOSTILE: HOSTILE}, "n": {}, "s": HOSTILE,
                                                  "t": [[HOSTILE, HOSTILE, 0, ""]],
                                                  "p": [{"h": HOSTILE, "st": "ok", "pr": HOSTILE, "pl": "", "ws": False,
                                                         "c": [[HOSTILE, "hard", HOSTILE, 0, HOSTILE]],
                                                         "j": [[HOSTILE, HOSTILE]], "d": [HOSTILE]}]}]}),
                            encoding="utf-8")
    dialogs: list[str] = []

    def steps(driver):
        driver.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        for path, fragment in ((out / "explorer.html", "#case=x-1"), (hostile_page, "")):
            errors = open_page(driver, path, fragment)
            if not fragment:
                driver.locator("#spacer .row").first.click()
            driver.clock.run_for(1000)
            assert driver.evaluate("window.__pwned") is None
            assert driver.locator("#detail img, #detail svg, #detail script").count() == 0
            assert driver.evaluate(INJECTED) == NOTHING_INJECTED
            assert driver.locator("#detail [data-text=prediction]").text_content() == HOSTILE
            search(driver, "onerror")  # the highlighted rendering too
            assert driver.locator("#detail [data-text=prediction] mark").count() == 1
            assert driver.locator("#detail [data-text=prediction]").text_content() == HOSTILE
            assert driver.evaluate(INJECTED) == NOTHING_INJECTED
            assert driver.evaluate("window.__pwned") is None
            assert errors == []

    in_browser(chromium, steps)
    assert dialogs == []


def test_judge_replies_show_every_text_a_detail_carries_repairs_included():
    from eval.insttrans.explorer import judge_replies

    detail = {"cache_key": "ab" * 32, "reply": '{"quality": 1}', "repaired": True, "invalid_reply": "quality: one"}
    assert judge_replies("quality", detail) == [
        ("quality: first reply (invalid, answered with a repair turn)", "quality: one"),
        ("quality: reply after the repair turn", '{"quality": 1}')]
    assert judge_replies("quality", {"cache_key": "k", "reply": "{}"}) == [("quality reply", "{}")]
    assert judge_replies("quality", None) == [] and judge_replies("quality", {"reason": ""}) == []


def test_the_chart_colours_and_marks_as_the_printed_table_does():
    import eval.compare
    import eval.reports.compare_html

    assert eval.reports.compare_html.SIGNIFICANCE == eval.compare.SIGNIFICANCE


def test_hostile_run_names_are_escaped_on_the_compare_page(runs, tmp_path):
    import shutil

    hostile = tmp_path / "<svg onload=alert(1)>&"
    shutil.copytree(runs["it_b"], hostile, ignore=shutil.ignore_patterns("*.sqlite*", ".lock"))
    out = tmp_path / "c.html"
    assert run_cli(compare_main, [str(runs["it"]), str(hostile), "--resamples", "200", "--html", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "<svg onload" not in text and "&lt;svg onload=alert(1)&gt;&amp;" in text
    assert payload_of(text)["meta"][1][1].startswith("<svg onload=alert(1)>&: ")


def test_diagnostics_from_the_summary_equal_those_computed_from_the_predictions(tmp_path):
    from eval.reports.explorer import explorer_items

    rows = [make_row("d-1"), make_row("d-2"), make_row("d-3")]
    predictions = {"d-1": "```\nHello\n```", "d-2": "<think>hm</think>Hello", "d-3": "Hello"}
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    files = write_jsonl(tmp_path / "p.jsonl", [{"case_id": k, "prediction": v} for k, v in predictions.items()])
    out = evaluate_run(tmp_path / "out", data, files, "--skip-judge")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    scores = read_scores(out)
    bench = get_benchmark("insttrans")
    computed = explorer_items(bench, rows, predictions, scores)
    given = explorer_items(bench, rows, predictions, scores, summary["predictions"]["diagnostic_case_ids"])
    assert [item["p"][0]["d"] for item in given] == [item["p"][0]["d"] for item in computed]
    assert [item["p"][0]["d"] for item in given] == [["code_fence"], ["think_block"], []]


@browser
@pytest.mark.parametrize("name", ["it", "sg", "if"])
def test_browser_a_case_id_in_report_html_opens_it_in_the_explorer(runs, name, chromium):
    def steps(driver):
        driver.goto((runs[name] / "report.html").as_uri())
        link = driver.locator('a[href^="explorer.html#case="]').first
        case_id = link.text_content()
        link.click()
        driver.wait_for_selector("body[data-ready='1']")
        assert driver.inner_text("#detail h2") == case_id

    in_browser(chromium, steps)


def test_a_repaired_verdict_shows_both_replies_on_the_page(tmp_path, monkeypatch):
    from judge_server import invalid_handler

    data = write_jsonl(tmp_path / "data.jsonl", [make_row("r-1")])
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"case_id": "r-1", "prediction": "Hello"}])
    monkeypatch.setenv("JUDGE_API_KEY", "sk-explorer-test")
    with JudgeServer(invalid_handler(repairable=True)) as server:
        monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
        out = evaluate_run(tmp_path / "out", data, predictions, "--judge-backoff", "0.001")
    item = payload_of((out / "explorer.html").read_text(encoding="utf-8"))["items"][0]
    replies = dict(item["p"][0]["j"])
    assert replies["quality: first reply (invalid, answered with a repair turn)"] == \
        "Quality: 1 (the translation is accurate)"
    assert json.loads(replies["quality: reply after the repair turn"])["quality"] == 1
    quality = next(check for check in item["p"][0]["c"] if check[0] == "quality")
    assert quality[4] == "repaired verdict (the Judge's first answer was invalid)"


@browser
def test_browser_a_long_text_shows_its_start_and_the_rest_on_request(tmp_path, chromium):
    long_text = "word " * 30_000  # 150,000 characters
    path = tmp_path / "long.html"
    path.write_text(page("t", {"kind": "run", "title": "t", "meta": [], "numbers": [],
                               "items": [{"id": "x", "f": {}, "n": {}, "s": "", "t": [],
                                          "p": [{"h": "", "st": "ok", "pr": long_text, "pl": "", "ws": False,
                                                 "c": [], "j": [], "d": []}]}]}), encoding="utf-8")
    def steps(driver):
        open_page(driver, path, "#case=x")
        assert len(driver.locator("#detail [data-text=prediction]").text_content()) == 100_000
        driver.locator("#detail button.link").click()
        assert driver.locator("#detail [data-text=prediction]").text_content() == long_text

    in_browser(chromium, steps)


PROTOTYPE_NAMES = ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"]


def prototype_named_page(path: Path) -> dict:
    """Rows whose facet values, facet names and number names are the names an object inherits."""
    values = ["constructor", "constructor", "toString", "hasOwnProperty", "__proto__", "__proto__", "__proto__",
              "valueOf", "plain"]
    items = [{"id": f"r{index}", "f": {"label": value, "__proto__": "p" if index % 2 else "q",
                                        **({"constructor": "c"} if index < 3 else {})},
              "n": {"toString": index} if index % 3 else {}, "s": value, "t": [],
              "p": [{"h": "", "st": "ok", "pr": value, "pl": "", "ws": False, "c": [], "j": [], "d": []}]}
             for index, value in enumerate(values)]
    path.write_text(page("prototype names", {"kind": "run", "title": "prototype names", "meta": [],
                                             "numbers": ["toString"], "items": items}), encoding="utf-8")
    return {"values": values, "items": items}


@browser
def test_browser_facet_values_named_like_object_properties_count_as_any_other(tmp_path, chromium):
    """`constructor`, `toString`, `hasOwnProperty`, `valueOf` show their counts (not a function's
    source) and `__proto__` is a value and a facet like any other (issue 34 item 10)."""
    built = prototype_named_page(tmp_path / "proto.html")

    def steps(driver):
        errors = open_page(driver, tmp_path / "proto.html")
        assert visible_count(driver) == len(built["items"])
        for value in set(built["values"]):
            assert facet_count(driver, "label", value) == built["values"].count(value), value
        facets = driver.locator("details.facet summary").all_text_contents()
        assert facets == ["label", "__proto__", "constructor"]
        assert facet_count(driver, "__proto__", "p") == 4 and facet_count(driver, "__proto__", "q") == 5
        assert facet_count(driver, "constructor", "c") == 3  # rows without the facet are not counted
        driver.screenshot(path=str(tmp_path / "proto.png"))
        choose(driver, "label", "__proto__")
        assert visible_count(driver) == 3
        assert facet_count(driver, "constructor", "c") == 0  # rows 4-6 lack it: no inherited value
        choose(driver, "__proto__", "q")
        assert visible_count(driver) == 2  # rows 4 and 6
        driver.click("#clear")
        driver.select_option("#sort", "-toString")  # a number named like a property sorts by the data
        first = driver.locator("#spacer .row").first.get_attribute("data-index")
        assert first == "8"
        return errors

    assert in_browser(chromium, steps) == []
