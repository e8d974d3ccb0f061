"""Check the Judge before trusting it (SPEC §17): known answers, bias probes, stability, cost.

    python -m eval.calibrate --judge-model M --output-dir DIR [--benchmark B ...] [--repeats K]

The bundled known-answer items (data/calibration/<benchmark>.jsonl, built by
scripts/build_calibration.py) are asked through the same Judge client, cache, fault handling,
prompt set and request parameters as a run of that benchmark (eval/run/pipeline.py's Judge phase), so
that a calibration describes exactly the Judge a run uses. Each item's verdict is compared with the
label its construction fixes: exact agreement, Cohen's κ and quadratic-weighted κ (labels are
ordered) with seeded bootstrap intervals (eval/scoring/stats.py's resamples), the confusion table, repairs.
Bias probes (data/calibration/<benchmark>.probes.jsonl) pair a control item with the same candidate
padded, prefixed, carrying a written-in verdict or the echoed prompt (the verdict must not rise),
or a top item cut, replaced by its source or by another language (the verdict must fall).

Repeats: the cache would answer a repeated request from the first answer, so repeat k > 0 uses its
own cache file beside the run's (`<cache>.repeat<k>`): the repeat index is part of where a verdict
is kept, the request bodies stay byte-identical to a run's, and a rerun of the same calibration is
still served from the caches.

No module here names a benchmark: everything a kind needs is in its items (`prompt`, `read`).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
import time
from pathlib import Path

from eval import __version__
from eval.config import HARNESS, PROTOCOLS, RELEASE
from eval.errors import ConfigError, DataError
from eval.io.paths import ROOT
from eval.judge.calibration import FORMAT, _interval, _number
from eval.scoring.stats import BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED, bootstrap_ci, single_threaded_numpy

CALIBRATION_DIR = ROOT / "data" / "calibration"
NO_RISE, FALL = "no_rise", "fall"


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------

def kappa(truth: list[float], judged: list[float], weighted: bool = False) -> float | None:
    """Cohen's κ of the Judge against the known labels; with `weighted`, quadratic weights over
    the union of the label values in order (a one-step miss on 0–5 costs (1/5)², not 1). None when
    chance agreement is total (κ undefined: one label everywhere on both sides)."""
    numpy = single_threaded_numpy()
    if not truth:
        return None
    values = sorted(set(truth) | set(judged))
    index = {value: position for position, value in enumerate(values)}
    k = len(values)
    observed = numpy.zeros((k, k))
    for a, b in zip(truth, judged):
        observed[index[a], index[b]] += 1
    observed /= len(truth)
    expected = numpy.outer(observed.sum(axis=1), observed.sum(axis=0))
    grid = numpy.arange(k)
    if weighted and k > 1:
        span = numpy.asarray(values, dtype=float)
        weights = (span[:, None] - span[None, :]) ** 2 / (span[-1] - span[0]) ** 2
    else:
        weights = (grid[:, None] != grid[None, :]).astype(float)
    disagreement_expected = float((weights * expected).sum())
    if disagreement_expected <= 1e-12:
        return None
    return round(1.0 - float((weights * observed).sum()) / disagreement_expected, 6)


def kappa_interval(truth: list[float], judged: list[float], weighted: bool,
                   samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95 % percentile bootstrap interval of κ over items, with eval/scoring/stats.py's seed and draws
    (resamples where κ is undefined are left out; None when most are)."""
    from eval.scoring.stats import _resample_index_chunks

    numpy = single_threaded_numpy()
    if len(truth) < 2:
        return None
    a, b = numpy.asarray(truth, dtype=float), numpy.asarray(judged, dtype=float)
    found = []
    for _, indices in _resample_index_chunks(len(a), samples, seed):
        for row in indices:
            value = kappa(a[row].tolist(), b[row].tolist(), weighted)
            if value is not None:
                found.append(value)
    if len(found) < samples / 2:
        return None
    low, high = numpy.percentile(found, [2.5, 97.5])
    return [round(float(low), 6), round(float(high), 6)]


def confusion(truth: list[float], judged: list[float]) -> dict[str, dict[str, int]]:
    """Known label → the Judge's label → count."""
    table: dict[str, dict[str, int]] = {}
    for a, b in zip(truth, judged):
        row = table.setdefault(f"{a:g}", {})
        row[f"{b:g}"] = row.get(f"{b:g}", 0) + 1
    return {key: dict(sorted(row.items(), key=lambda item: float(item[0])))
            for key, row in sorted(table.items(), key=lambda item: float(item[0]))}


def kind_statistics(truth: list[float], runs: list[list[float]]) -> dict:
    """One kind's figures: the first repeat against the labels, and the repeats against each other."""
    judged = runs[0]
    exact = [1.0 if a == b else 0.0 for a, b in zip(truth, judged)]
    stable = [1.0 if len(set(values)) == 1 else 0.0 for values in zip(*runs)] if len(runs) > 1 else []
    return {
        "n": len(truth),
        "exact_agreement": None if not exact else round(sum(exact) / len(exact), 6),
        "exact_agreement_ci95": bootstrap_ci(exact) if exact else None,
        "kappa": kappa(truth, judged),
        "kappa_ci95": kappa_interval(truth, judged, False),
        "weighted_kappa": kappa(truth, judged, weighted=True),
        "weighted_kappa_ci95": kappa_interval(truth, judged, True),
        "mean_label": None if not truth else round(sum(truth) / len(truth), 6),
        "mean_verdict": None if not judged else round(sum(judged) / len(judged), 6),
        "confusion": confusion(truth, judged),
        "self_agreement": None if not stable else round(sum(stable) / len(stable), 6),
        "repeats": len(runs),
    }


def probe_statistics(probes: list[dict], verdicts: dict[str, float]) -> dict:
    """Per probe: pairs, and how often the verdict moved the wrong way (rose when it must not, or
    did not fall when it must)."""
    out: dict[str, dict] = {}
    for probe in probes:
        if probe["id"] not in verdicts or probe["control"] not in verdicts:
            continue
        entry = out.setdefault(probe["probe"], {"expect": probe["expect"], "pairs": 0, "wrong_way": 0})
        control, changed = verdicts[probe["control"]], verdicts[probe["id"]]
        wrong = changed > control if probe["expect"] == NO_RISE else changed >= control
        entry["pairs"] += 1
        entry["wrong_way"] += int(wrong)
    for entry in out.values():
        entry["rate"] = round(entry["wrong_way"] / entry["pairs"], 6) if entry["pairs"] else None
    return dict(sorted(out.items()))


# ---------------------------------------------------------------------------------------------
# Items and requests
# ---------------------------------------------------------------------------------------------

def read_items(path: Path) -> list[dict]:
    """The items of one bundled file; a broken line names the file and the line."""
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise DataError(f"{path}:{number}: not a JSON object ({error.msg})",
                            "rebuild it: python -m scripts.build_calibration") from None
        if not isinstance(item, dict) or not {"id", "case_id", "kind", "prompt", "read", "candidate"} <= set(item):
            raise DataError(f"{path}:{number}: not a calibration item", "rebuild it: python -m scripts.build_calibration")
        items.append(item)
    return items


def read_value(verdict: dict, path: str) -> float | None:
    """The verdict's value at a dotted path (`quality`, `scores.style_consistency`); None for a
    null (an IFMTBench dimension the Judge found not asked for, which a run scores 0 and counts)."""
    value: object = verdict
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            raise DataError(f"the verdict {json.dumps(verdict)[:200]} has no {path!r}",
                            "the prompt set's verdicts have another shape than the calibration items expect")
        value = value[part]
    return None if value is None else float(value)


def requests_for(entries: list[dict], rows: dict[str, dict], judge_requests) -> list:
    """One Judge request per item: the benchmark's own request for its row and candidate, under
    the item's id (so that two candidates of one row are two verdicts)."""
    out = []
    for entry in entries:
        row = rows.get(entry["case_id"])
        if row is None:
            raise DataError(f"calibration item {entry['id']}: case_id {entry['case_id']!r} is not in the bundled data",
                            "rebuild the items: python -m scripts.build_calibration")
        made = [request for request in judge_requests([row], {row["case_id"]: entry["candidate"]})
                if request.name == entry["prompt"]]
        if not made:
            raise DataError(f"calibration item {entry['id']}: the benchmark asks no {entry['prompt']!r} prompt for it",
                            "rebuild the items: python -m scripts.build_calibration")
        out.append(dataclasses.replace(made[0], case_id=entry["id"]))
    return out


def repeat_cache(path: Path, repeat: int) -> Path:
    """Where repeat `repeat` keeps its verdicts (the run's cache for the first)."""
    return path if repeat == 0 else path.with_name(f"{path.name}.repeat{repeat}")


def bundled_requests(bench, prompts, with_probes: bool = True) -> tuple[list[dict], list[dict], list]:
    """A benchmark's known-answer items, its probes, and their Judge requests under `prompts`."""
    from eval.io.data import read_rows_from_files

    files = (bench.data.dataset_files(bench.default_data) if bench.data.dataset_files else None) or [bench.default_data]
    rows = {row["case_id"]: row for row in read_rows_from_files(files, bench.validate_rows).rows}
    items = read_items(CALIBRATION_DIR / f"{bench.name}.jsonl")
    probes_path = CALIBRATION_DIR / f"{bench.name}.probes.jsonl"
    probes = read_items(probes_path) if with_probes and probes_path.is_file() else []
    return items, probes, requests_for(items + probes, rows, prompts.judge_requests)


def calibrate_benchmark(name: str, settings, cache: Path, repeats: int, protocol: str = HARNESS,
                        release_dir: Path | None = None, progress: bool = False, clock=time.monotonic,
                        with_probes: bool = True) -> dict:
    """Ask one benchmark's items (and probes) `repeats` times; its block of calibration.json."""
    from eval.benchmarks import get_benchmark
    from eval.config import DataSource, RunConfig
    from eval.judge_client import ask_prompts
    from eval.run.pipeline import open_release

    bench = get_benchmark(name)
    config = RunConfig(benchmark=name, predictions=Path("calibration"), output_dir=cache.parent, source=DataSource(),
                       judge=settings, judge_cache=cache, quiet=True, protocol=protocol, release_dir=release_dir)
    bench, config, _ = open_release(bench, config)
    prompts = bench.prompt_sets[config.prompt_set]
    if prompts.params is not None:
        settings = dataclasses.replace(settings, params=dict(prompts.params))
    items, probes, requests = bundled_requests(bench, prompts, with_probes)
    items_path, probes_path = CALIBRATION_DIR / f"{name}.jsonl", CALIBRATION_DIR / f"{name}.probes.jsonl"
    shape = None if prompts.shape is None else prompts.shape(settings)
    runs, blocks, seconds, nulls = [], [], 0.0, {}
    for repeat in range(repeats):
        start = clock()
        run = ask_prompts(requests, settings, repeat_cache(cache, repeat), dict(prompts.versions), progress, shape)
        seconds += clock() - start
        values = {entry["id"]: read_value(run.verdicts[(entry["id"], entry["prompt"])], entry["read"])
                  for entry in items + probes}
        if repeat == 0:  # IFMTBench: a dimension the Judge found not asked for (scored 0, counted, as in a run)
            for entry in items:
                if values[entry["id"]] is None:
                    nulls[entry["kind"]] = nulls.get(entry["kind"], 0) + 1
        runs.append({key: 0.0 if value is None else value for key, value in values.items()})
        blocks.append(run.block)
    kinds = {}
    for kind in dict.fromkeys(entry["kind"] for entry in items):
        of_kind = [entry for entry in items if entry["kind"] == kind]
        truth = [float(entry["label"]) for entry in of_kind]
        stats = kind_statistics(truth, [[run[entry["id"]] for entry in of_kind] for run in runs])
        certain = [(float(entry["label"]), runs[0][entry["id"]]) for entry in of_kind if entry["certainty"] == "certain"]
        stats["null_verdicts"] = nulls.get(kind, 0)
        stats["certain_n"] = len(certain)
        stats["certain_exact_agreement"] = (round(sum(a == b for a, b in certain) / len(certain), 6)
                                            if certain else None)
        kinds[kind] = stats
    first = blocks[0]
    calls = sum(block["calls"] for block in blocks)
    tokens = {key: sum(counts.get(key, 0) for block in blocks for counts in block["usage"].values())
              for key in ("input_tokens", "output_tokens", "total_tokens")}
    asked = len(requests) * repeats
    repairs: dict[str, int] = {}
    for block in blocks:
        for prompt, count in block["repairs"].items():
            repairs[prompt] = repairs.get(prompt, 0) + count
    return {
        "judge": {key: first[key] for key in ("model", "endpoint_kind", "host", "params", "prompt_versions")},
        "protocol": protocol,
        "items_sha256": hashlib.sha256(items_path.read_bytes()).hexdigest(),
        "probes_sha256": hashlib.sha256(probes_path.read_bytes()).hexdigest() if probes else None,
        "items": len(items), "probes": len(probes), "repeats": repeats,
        "kinds": kinds,
        "bias_probes": {kind: probe_statistics([probe for probe in probes if probe["kind"] == kind], runs[0])
                        for kind in dict.fromkeys(probe["kind"] for probe in probes)},
        "replies": {"asked": asked, "repaired": repairs, "invalid_first_replies": sum(repairs.values()),
                    "cache_hits": sum(block["cache_hits"] for block in blocks)},
        "cost": {"calls": calls, "seconds": round(seconds, 3), **tokens,
                 "per_1000_items": {"calls": round(1000 * calls / asked, 3) if asked else None,
                                    "seconds": round(1000 * seconds / asked, 3) if asked else None,
                                    "total_tokens": round(1000 * tokens["total_tokens"] / asked, 1) if asked else None}},
    }


# ---------------------------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------------------------

def markdown(result: dict) -> str:
    """calibration.md: per benchmark and kind the agreement table, the confusion tables, the probes."""
    lines = ["# Judge calibration", "",
             f"Harness {result['harness_version']}; {result['repeats']} repeat(s). "
             "Labels are fixed by how each candidate was made (docs/judge.md#calibration); κ is Cohen's, "
             "weighted κ uses quadratic weights; intervals are 95 % bootstrap over items.", ""]
    for name, block in result["benchmarks"].items():
        judge = block["judge"]
        lines += [f"## {name}", "",
                  f"Judge `{judge['model']}` on `{judge['endpoint_kind']}`, prompts " +
                  ", ".join(f"`{key}:{value}`" for key, value in judge["prompt_versions"].items()) +
                  f", protocol `{block['protocol']}`.", "",
                  "| kind | n | exact | κ | weighted κ | certain-only exact | self-agreement |",
                  "|---|---|---|---|---|---|---|"]
        for kind, stats in block["kinds"].items():
            lines.append(f"| {kind} | {stats['n']} | {_number(stats['exact_agreement'])}"
                         f"{_interval(stats['exact_agreement_ci95'])} | {_number(stats['kappa'])}"
                         f"{_interval(stats['kappa_ci95'])} | {_number(stats['weighted_kappa'])}"
                         f"{_interval(stats['weighted_kappa_ci95'])} | {_number(stats['certain_exact_agreement'])}"
                         f" (n={stats['certain_n']}) | {_number(stats['self_agreement'])} |")
        lines += ["", "Confusion (rows: known label; columns: the Judge's):", ""]
        for kind, stats in block["kinds"].items():
            labels = sorted({key for row in stats["confusion"].values() for key in row} | set(stats["confusion"]),
                            key=float)
            lines += [f"- {kind}: " + "; ".join(
                f"{truth} → " + ", ".join(f"{label}: {stats['confusion'][truth].get(label, 0)}" for label in labels)
                for truth in stats["confusion"])]
        if block["bias_probes"]:
            lines += ["", "Bias probes (how often the verdict moved the wrong way: rose when it must not, or did "
                          "not fall when it must):", "", "| kind | probe | expect | pairs | wrong way | rate |",
                      "|---|---|---|---|---|---|"]
            for kind, probes in block["bias_probes"].items():
                for probe, entry in probes.items():
                    lines.append(f"| {kind} | {probe} | {entry['expect']} | {entry['pairs']} | {entry['wrong_way']} "
                                 f"| {_number(entry['rate'])} |")
        replies, cost = block["replies"], block["cost"]
        per = cost["per_1000_items"]
        nulls = {kind: stats["null_verdicts"] for kind, stats in block["kinds"].items() if stats["null_verdicts"]}
        lines += ["", f"Replies: {replies['asked']} asked, {replies['invalid_first_replies']} invalid first replies "
                      f"(repaired: {json.dumps(replies['repaired'])}), {replies['cache_hits']} from the cache"
                      + (f"; null verdicts (scored 0): {json.dumps(nulls)}." if nulls else "."),
                  f"Cost: {cost['calls']} calls, {cost['total_tokens']} tokens, {cost['seconds']} s; per 1,000 items: "
                  f"{per['calls']} calls, {per['total_tokens']} tokens, {per['seconds']} s.", ""]
    return "\n".join(lines) + "\n"


def html_page(result: dict) -> str:
    """calibration.html: the same figures as calibration.md, with each confusion table as a grid."""
    from eval.reports.report_html import CSS, escape, table

    parts = ["<h1>Judge calibration</h1>",
             f'<p class="muted">Harness {escape(result["harness_version"])}; {escape(result["repeats"])} repeat(s). '
             "Labels are fixed by how each candidate was made (docs/judge.md, Calibration); κ is Cohen's, "
             "weighted κ uses quadratic weights; intervals are 95 % bootstrap over items.</p>"]
    for name, block in result["benchmarks"].items():
        judge = block["judge"]
        parts += [f"<h2>{escape(name)}</h2>",
                  f'<p class="muted">Judge <code>{escape(judge["model"])}</code> on '
                  f'<code>{escape(judge["endpoint_kind"])}</code>, prompts '
                  + ", ".join(f"<code>{escape(key)}:{escape(value)}</code>"
                              for key, value in judge["prompt_versions"].items())
                  + f', protocol <code>{escape(block["protocol"])}</code>.</p>']
        rows = [[escape(kind), escape(stats["n"]),
                 escape(_number(stats["exact_agreement"]) + _interval(stats["exact_agreement_ci95"])),
                 escape(_number(stats["kappa"]) + _interval(stats["kappa_ci95"])),
                 escape(_number(stats["weighted_kappa"]) + _interval(stats["weighted_kappa_ci95"])),
                 escape(f"{_number(stats['certain_exact_agreement'])} (n={stats['certain_n']})"),
                 escape(_number(stats["self_agreement"]))] for kind, stats in block["kinds"].items()]
        parts.append(table(["kind", "n", "exact", "κ", "weighted κ", "certain-only exact", "self-agreement"], rows,
                           numeric={1, 2, 3, 4, 5, 6}))
        for kind, stats in block["kinds"].items():
            labels = sorted({key for row in stats["confusion"].values() for key in row} | set(stats["confusion"]),
                            key=float)
            parts += [f"<h3>{escape(kind)}: known label (rows) × the Judge's (columns)</h3>",
                      table(["", *labels], [[escape(truth), *(escape(stats["confusion"][truth].get(label, 0))
                                                              for label in labels)]
                                            for truth in stats["confusion"]], numeric=set(range(1, len(labels) + 1)))]
        if block["bias_probes"]:
            parts.append("<h3>Bias probes: how often the verdict moved the wrong way</h3>")
            parts.append(table(["kind", "probe", "expect", "pairs", "wrong way", "rate"],
                               [[escape(kind), escape(probe), escape(entry["expect"]), escape(entry["pairs"]),
                                 escape(entry["wrong_way"]), escape(_number(entry["rate"]))]
                                for kind, probes in block["bias_probes"].items() for probe, entry in probes.items()],
                               numeric={3, 4, 5}))
        cost, per = block["cost"], block["cost"]["per_1000_items"]
        parts.append(f'<p class="muted">{escape(block["replies"]["asked"])} asked, '
                     f'{escape(block["replies"]["invalid_first_replies"])} invalid first replies (repaired), '
                     f'{escape(block["replies"]["cache_hits"])} from the cache; {escape(cost["calls"])} calls, '
                     f'{escape(cost["total_tokens"])} tokens, {escape(cost["seconds"])} s; per 1,000 items '
                     f'{escape(per["calls"])} calls, {escape(per["total_tokens"])} tokens, {escape(per["seconds"])} s.</p>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Judge calibration</title>"
            f"<meta name=\"viewport\" content=\"width=device-width\"><style>{CSS}</style></head><body>\n"
            + "\n".join(parts) + "\n</body></html>\n")


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    from eval.benchmarks import BENCHMARKS
    from eval.run.cli import add_judge_arguments
    from eval.flags import HarnessParser

    parser = HarnessParser(prog="python -m eval.calibrate",
                           description="Ask a Judge the bundled known-answer items and bias probes and report "
                                       "its agreement, bias, stability and cost (docs/judge.md#calibration).")
    parser.add_argument("--output-dir", type=Path, required=True, help="where calibration.json, .md and .html go")
    parser.add_argument("--benchmark", action="append", choices=sorted(BENCHMARKS), default=None,
                        help="calibrate this benchmark's prompt kinds (repeatable; default: every benchmark)")
    parser.add_argument("--repeats", type=int, default=1, metavar="K",
                        help="ask every item K times, each repeat with its own cache (default: %(default)s)")
    parser.add_argument("--no-probes", action="store_true", help="ask the known-answer items only")
    parser.add_argument("--protocol", choices=PROTOCOLS, default=HARNESS,
                        help="whose Judge prompts: this harness's (default) or the release's (docs/release.md)")
    parser.add_argument("--release-dir", type=Path, default=None, metavar="DIR", help="the release folder")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_judge_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    from eval.exits import run_cli

    def run(arguments: list[str] | None) -> int:
        from eval.benchmarks import BENCHMARKS, get_benchmark
        from eval.run.cli import judge_settings_from_args
        from eval.io.locking import hold_lock
        from eval.io.outputs import json_text, write_atomic

        args = build_parser().parse_args(arguments)
        if args.skip_judge:
            raise ConfigError("--skip-judge: a calibration asks the Judge", "drop --skip-judge")
        if args.repeats < 1:
            raise ConfigError(f"--repeats must be at least 1, got {args.repeats}")
        names = args.benchmark or list(BENCHMARKS)
        output_dir = args.output_dir
        output_dir.mkdir(parents=True, exist_ok=True)
        cache = args.judge_cache or output_dir / "judge_cache.sqlite"
        benchmarks = {}
        with hold_lock(output_dir, "output directory", is_dir=True):
            for name in names:
                settings = judge_settings_from_args(args, get_benchmark(name).default_judge_model)
                if args.protocol == RELEASE:
                    settings = dataclasses.replace(settings, repairs=0)
                benchmarks[name] = calibrate_benchmark(name, settings, cache, args.repeats, args.protocol,
                                                       args.release_dir, progress=not args.quiet,
                                                       with_probes=not args.no_probes)
            result = {"format": FORMAT, "harness_version": __version__,
                      "judge_model": args.judge_model, "repeats": args.repeats,  # null: each benchmark's default
                      "benchmarks": benchmarks}
            write_atomic(output_dir / "calibration.md", markdown(result))
            write_atomic(output_dir / "calibration.html", html_page(result))
            write_atomic(output_dir / "calibration.json", json_text(result))
        print(markdown(result), end="")
        print(f"wrote {output_dir / 'calibration.json'}, calibration.md and calibration.html")
        return 0

    return run_cli(run, argv)


if __name__ == "__main__":
    sys.exit(main())
