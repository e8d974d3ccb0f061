"""The run pipeline every benchmark shares (SPEC §6, §9–§11); it never names one.

evaluate.py: settings → data → predictions → lock → Judge → scoring → aggregation → outputs.
The order keeps a failed run harmless: everything that can be checked is checked before the
output directory is touched, and the result files appear all at once or not at all.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import replace
from pathlib import Path

from eval import __version__
from eval.benchmark import SCORER_VERSION, Benchmark
from eval.benchmarks import get_benchmark, option_flag, other_benchmark_hint, other_benchmark_line_hint
from eval.config import HARNESS, PROTOCOLS, RELEASE, DataSource, RunConfig, RunResult
from eval.errors import ConfigError
from eval.reports.explorer import write_explorer_html
from eval.reports.failures import failures, failures_markdown
from eval.judge.health import console_lines as judge_health_lines
from eval.judge.health import health_html, health_markdown, judge_health, untranslated_ids
from eval.run.known_data import BY_SHA256, data_reasons, identify, release_by_files, signature_part
from eval.inputs.loading import LoadedData, load_data
from eval.io.locking import hold_lock
from eval.io.outputs import (json_text, jsonl_lines, jsonl_writer, remove_previous_results, result_paths, write_atomic,
                          write_results)
from eval.inputs.predictions import cut_case_ids, load_predictions, predictions_block
from eval.provenance import make_signature, run_reasons
from eval.release.protocol import (ReleaseProtocol, harness_counter_notice, protocol_block, protocol_markdown,
                                   release_dir)
from eval.release.protocol import signature_parts as release_signature_parts
from eval.scoring.rule_contract import ScoringContext
from eval.reports.report_html import render_report_html
from eval.scoring.score_rows import ScoreRow, row_dict
from eval.judge.calibration import calibration_console_line, calibration_markdown
from eval.judge.self_judging import self_judging
from eval.inputs.system_meta import system_summary
from eval.oracle import ORACLE_FILE, oracle_block, oracle_failures, oracle_predictions
from eval.published import run_self_judging, run_sections, sections_html
from eval.inputs.subsets import read_id_list, subset_block, subset_reason
from eval.inputs.subsets import signature_part as subset_signature_part


PREVIOUS_SUMMARY_LIMIT = 64 * 1024 * 1024  # a summary.json larger than this is nobody's run: not read


def previous_formal_signature(output_dir: Path) -> str | None:
    """The signature of the formal run whose results are in `output_dir`, or None (no run, not
    formal, unreadable): a rerun that replaces a formal result says so."""
    import json

    path = output_dir / "summary.json"
    try:
        if not path.is_file() or path.stat().st_size > PREVIOUS_SUMMARY_LIMIT:
            return None
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(summary, dict) or summary.get("formal") is not True:
        return None
    signature = summary.get("signature")
    if not isinstance(signature, str):
        return None
    # outside text printed to a terminal: no control character, a bounded length
    return signature if signature.isprintable() and len(signature) <= 4096 else "(not printable)"


def load_benchmark_data(bench: Benchmark, source: DataSource) -> LoadedData:
    return load_data(benchmark_files(bench, source), bench.default_data, bench.validate_rows, bench.data.clean_hub_row,
                     bench.release.hub_files)


def benchmark_files(bench: Benchmark, source: DataSource) -> DataSource:
    """A `--dataset DIR` (or a default_data folder) that holds the benchmark's own data files, as
    those files read in order; any other source unchanged."""
    if bench.data.dataset_files is None or source.path is not None:
        return source
    folder = Path(source.dataset) if source.dataset else bench.default_data
    files = bench.data.dataset_files(folder) if folder.is_dir() else None
    if not files:
        if source.dataset is None:
            raise ConfigError(f"{folder}: no {bench.title} data file found there", "pass the data with --data FILE")
        return source
    return DataSource(path=files[0], more_paths=tuple(files[1:]))


def check_choices(bench: Benchmark, config: RunConfig) -> None:
    """The prompt set, counter and options a run names must be the benchmark's (SPEC §15 plugs
    `release` in beside `harness`; a benchmark that counts nothing takes the default counter name)."""
    for what, name, known in (("prompt set", config.prompt_set, bench.prompt_sets),
                              ("syllable counter", config.counter, bench.counters)):
        if name not in known and (known or name != HARNESS):
            raise ConfigError(f"{bench.title} has no {what} {name!r}", f"use one of: {', '.join(known) or HARNESS}")
    for name, value in config.options.items():
        option = bench.option_named(name)
        if option is None:
            own = ", ".join(declared.flag for declared in bench.options) or "none"
            raise ConfigError(f"{option_flag(name)} does not apply to {bench.title}",
                              f"drop {option_flag(name)} ({bench.title}'s own options: {own})")
        if value not in option.choices:
            raise ConfigError(f"unknown {name.replace('_', ' ')} {value!r} for {bench.title}: use one of "
                              f"{', '.join(option.choices)}")


def scorer_version_block(bench: Benchmark, config: RunConfig) -> dict:
    """summary.json's "scorer_version" (SPEC §7c): the official scorer version whose rules scored the run."""
    return {"scorer_version": bench.option(config, SCORER_VERSION)} if bench.option_named(SCORER_VERSION) else {}


def scorer_parts(bench: Benchmark, config: RunConfig) -> tuple[str, ...]:
    """The signature's `scorer:NAME` part (SPEC §7c), so compare refuses runs of two versions."""
    return tuple(f"scorer:{name}" for name in scorer_version_block(bench, config).values())


def choice_parts(config: RunConfig) -> tuple[str, ...]:
    """Signature parts for a prompt set or counter other than the harness's own (none by default)."""
    return tuple(f"{key}:{name}" for key, name in (("prompts", config.prompt_set), ("counter", config.counter))
                 if name != HARNESS)


def open_release(bench: Benchmark, config: RunConfig) -> tuple[Benchmark, RunConfig, ReleaseProtocol | None]:
    """`--protocol release` (SPEC §15): the benchmark's plug-in reads the release folder, and the
    run registers its prompt set (and, when trusted, its counter) as `release` beside `harness`
    and chooses them. A missing or different file is exit 2 naming what was expected and found."""
    if config.protocol == HARNESS:
        return bench, config, None
    if config.protocol != RELEASE:
        raise ConfigError(f"unknown protocol {config.protocol!r}", f"use one of: {', '.join(PROTOCOLS)}")
    if bench.release.open_release is None:
        raise ConfigError(f"--protocol release: {bench.title} has no release plug-in yet", "use --protocol harness")
    release = bench.release.open_release(release_dir(config.release_dir, config.source.dataset), config.trust_release_code)
    counters = dict(bench.counters)
    if release.counter is not None:
        counters[RELEASE] = release.counter
    elif release.counter_file:  # "" : the benchmark counts no syllables, so there is nothing to say
        print(f"release protocol: {harness_counter_notice(release.counter_file)}", file=sys.stderr)
    bench = dataclasses.replace(bench, prompt_sets={**bench.prompt_sets, RELEASE: release.prompt_set},
                                counters=counters)
    config = dataclasses.replace(config, prompt_set=RELEASE, counter=RELEASE if release.counter else HARNESS)
    if release.scorer_notice:  # SPEC §7c: an unknown version says so and scores with the newest
        print(f"release protocol: {release.scorer_notice}", file=sys.stderr)
    if release.scorer_version is not None and SCORER_VERSION not in config.options:  # --scorer-version wins
        config = dataclasses.replace(config, options={**config.options, SCORER_VERSION: release.scorer_version})
    return bench, config, release


def read_case_ids(path: Path, known: set[str]) -> list[str]:
    """The ids of a --case-ids file: one per line, blank lines ignored, each in the data."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"--case-ids {path}: cannot be read ({error})", "give a UTF-8 file with one case_id per line")
    first_line: dict[str, int] = {}  # case_id -> its line, in file order
    for number, line in enumerate(text.split("\n"), 1):
        case_id = line.strip()
        if not case_id:
            continue
        if case_id not in known:
            raise ConfigError(f"{path}:{number}: case_id {case_id!r} is not in the data",
                              "list only ids of the data being scored")
        if case_id in first_line:
            raise ConfigError(f"{path}:{number}: case_id {case_id!r} is listed twice (first at line "
                              f"{first_line[case_id]})", "list each id once")
        first_line[case_id] = number
    if not first_line:
        raise ConfigError(f"--case-ids {path}: the file lists no case_id", "write one case_id per line")
    return list(first_line)


def selected_rows(data: LoadedData, config: RunConfig, benchmark: str | None = None) -> tuple[list[dict], dict | None]:
    """(the rows this run scores, in data order, and the summary's "subset" block or None):
    --case-ids or --only, --exclude, else the first --limit rows, else all (SPEC §16)."""
    chosen = [(flag, value) for flag, value in (("--case-ids", config.case_ids), ("--only", config.only),
                                                 ("--exclude", config.exclude), ("--limit", config.limit))
              if value is not None]
    if len(chosen) > 1:
        raise ConfigError(f"{' and '.join(flag for flag, _ in chosen)} choose the scored rows in several ways",
                          "keep one of them")
    if config.case_ids is not None or config.only is not None or config.exclude is not None:
        flag, path = chosen[0]
        known = {row["case_id"] for row in data.rows}
        listed = read_case_ids(path, known) if flag == "--case-ids" else read_id_list(path, flag, known,
                                                                                        allow_empty=flag == "--exclude")
        if not listed:  # --exclude of an empty list (a clean oracle run's file): the full run
            return data.rows, None
        wanted = set(listed)
        keep = flag != "--exclude"
        block = subset_block("exclude" if flag == "--exclude" else "only", listed, f"{flag} {path}",
                             benchmark=benchmark)
        return [row for row in data.rows if (row["case_id"] in wanted) == keep], block
    if config.limit and config.limit < len(data.rows):
        rows = data.rows[: config.limit]
        return rows, subset_block("limit", [row["case_id"] for row in rows], f"--limit {config.limit}",
                                  benchmark=benchmark)
    return data.rows, None


def refuse_inputs_among_results(config: RunConfig) -> None:
    """An input that is one of this run's result files would be deleted before it is read (§11)."""
    results = {path.resolve() for path in result_paths(config.output_dir)}
    inputs = [("--predictions", config.predictions), *(("--data", path) for path in config.source.paths),
              ("--case-ids", config.case_ids), ("--judge-cache", config.judge_cache)]
    for flag, path in inputs:
        if path is not None and Path(path).resolve() in results:
            raise ConfigError(f"{flag} {path} is one of this run's result files, which a run replaces",
                              "move the file out of --output-dir, or choose another --output-dir")


def build_summary(bench: Benchmark, config: RunConfig, data: LoadedData, rows: list[dict], predictions: dict,
                  prediction_lines: int, scores: list[ScoreRow], judge_block: dict | None,
                  extra_reasons: list[str], release: ReleaseProtocol | None = None,
                  subset: dict | None = None) -> dict:
    """summary.json (SPEC §11): the shared skeleton around the benchmark's own blocks."""
    known_as = identify(data.sha256, bench)
    by_files = (known_as is None and bench.release.release_files is not None
                and release_by_files(benchmark_files(bench, config.source).paths, dict(bench.release.release_files)))
    if by_files:
        known_as = BY_SHA256
    by_rows = known_as is None and bench.release.release_by_rows is not None and bench.release.release_by_rows(data.rows)
    if by_rows:
        known_as = "official release (by row counts)"
    recognised = subset is not None and subset.get("protocol") is not None  # a published protocol's list
    reasons = run_reasons(len(rows), len(rows) if recognised else len(data.rows), config.limit,
                          None if config.case_ids is None or recognised else str(config.case_ids),
                          config.skip_judge, bench.unscored_without_judge)
    if config.only is not None or config.exclude is not None:
        reasons += [reason for reason in (subset_reason(subset, len(rows), len(data.rows)),) if reason]
    if config.oracle:
        reasons.append("--oracle: each row's reference was scored as its prediction")
    if not (by_rows or by_files):
        reasons += data_reasons(data.sha256, len(data.rows), data.rows, bench, identity=data.identity)
    reasons += extra_reasons
    system, _, system_part = system_summary(config.predictions, rows, bench.model_input, data.rows)
    if judge_block is not None:  # SPEC §16: a Judge scoring its own model or family is said so
        judge_block["self_judging"] = self_judging((system or {}).get("model"), judge_block["model"])
    summary = {
        "harness_version": __version__,
        "benchmark": bench.name,
        **scorer_version_block(bench, config),
        "formal": not reasons,
        "non_formal_reasons": reasons,
        "data": {"source": data.source, "sha256": data.sha256, "identity": data.identity, "known_as": known_as,
                 "manifest_match": known_as is not None, "n_instances": len(rows), "warnings": list(data.warnings)},
        "predictions": predictions_block(config.predictions, prediction_lines,
                                         sum(score.missing for score in scores),
                                         ((predictions.get(row["case_id"]), bench.data.diagnostics_source(row),
                                           bench.data.diagnostics_target(row), prompt_text(bench, row))
                                          for row in rows), [row["case_id"] for row in rows],
                                         cut_case_ids(config.predictions)),
        **bench.settings(config),
        **({} if release is None else {"protocol": protocol_block(release)}),
        "judge": judge_block,
        "system": system,
        "subset": subset,
        **make_signature(data.sha256, len(rows), judge_block,
                         settings=(signature_part(known_as), *scorer_parts(bench, config),
                                   *bench.signature_parts(config), *choice_parts(config),
                                   *(() if release is None else release_signature_parts(release)),
                                   *system_part, *subset_signature_part(subset)),
                         benchmark=bench.signature_tag).stored(),
    }
    summary.update(bench.metrics(scores, not config.skip_judge))
    if bench.companion_metrics is not None:
        bench.companion_metrics(summary, rows, predictions, scores, config)
    return summary


def prompt_text(bench: Benchmark, row: dict) -> str:
    """Everything the model saw for a row, one message after another (for the `echoes_prompt`
    diagnostic)."""
    return "\n".join(str(message.get("content") or "") for message in bench.model_input(row)["messages"]
                     if isinstance(message, dict))


def log_samples(bench: Benchmark, rows: list[dict], predictions: dict, scores: list[ScoreRow]) -> list[ScoreRow]:
    """--log-samples (lm-eval's name): each score row also carries the prediction exactly as given
    (null when missing) and the messages the model saw, for readers with their own tools."""
    return [score.with_columns(prediction=predictions.get(row["case_id"]), model_input=bench.model_input(row)["messages"])
            for row, score in zip(rows, scores)]


def judge_calibration(bench: Benchmark, config: RunConfig, prompts, settings) -> dict | None:
    """--judge-calibration FILE (SPEC §17): the calibration's figures for the summary, checked
    against the Judge this run will ask (before it asks); None without the flag."""
    if settings is None or config.judge_calibration is None:
        return None
    from eval.judge.calibration import run_calibration
    from eval.judge_client import JudgeStats, judge_block

    shape = None if prompts.shape is None else prompts.shape(settings)
    return run_calibration(config.judge_calibration, bench.name,
                           judge_block(settings, JudgeStats(), dict(prompts.versions), shape))


def run_evaluation(config: RunConfig, settle: bool = False) -> RunResult:
    """Score one predictions file; returns what the run gave, in memory (errors raise HarnessError).
    `settle`: the script's own process (eval/io/outputs.py `write_results`)."""
    bench, config, release = open_release(get_benchmark(config.benchmark), config)
    check_choices(bench, config)
    extra_reasons = bench.check_config(config)
    refuse_inputs_among_results(config)
    data = load_benchmark_data(bench, config.source)
    rows, subset = selected_rows(data, config, bench.name)
    if config.oracle:  # the references as a predictions file, read like any other (eval/oracle.py)
        with oracle_predictions(bench, rows) as path:
            return _run_loaded(bench, dataclasses.replace(config, predictions=path), release, extra_reasons, data,
                               rows, subset, settle)
    return _run_loaded(bench, config, release, extra_reasons, data, rows, subset, settle)


def _run_loaded(bench: Benchmark, config: RunConfig, release: ReleaseProtocol | None, extra_reasons: list[str],
                data: LoadedData, rows: list[dict], subset: dict | None, settle: bool = False) -> RunResult:
    """run_evaluation from the predictions on, once the data and the rows to score are known."""
    scored_ids = {row["case_id"] for row in rows}
    ignored_ids = {row["case_id"] for row in data.rows} - scored_ids
    if bench.data.load_predictions is not None:
        predictions, prediction_lines = bench.data.load_predictions(
            config.predictions, rows, [row for row in data.rows if row["case_id"] in ignored_ids])
    else:
        predictions, prediction_lines = load_predictions(config.predictions, scored_ids, ignored_ids,
                                                            lambda case_id: other_benchmark_hint(bench.name, case_id),
                                                            lambda entry: other_benchmark_line_hint(bench.name, entry))
    prompts = bench.prompt_sets[config.prompt_set]
    # Every prompt is built before the output directory changes (a release's table may lack a language).
    requests = None if config.judge is None else prompts.judge_requests(rows, predictions)
    settings = config.judge
    if settings is not None and prompts.params is not None:  # the prompt set's own parameters (eval/benchmark.py PromptSet)
        settings = replace(settings, params=dict(prompts.params))
    calibration = judge_calibration(bench, config, prompts, settings)  # refused before anything changes
    if config.estimate:  # SPEC §18: before the lock; nothing is sent and no file changes
        from eval.run.judge_estimate import print_estimate

        return RunResult(print_estimate(requests, config.judge, prompts, config.cache_path), config.output_dir)

    # One run at a time per output directory; from here on the directory changes, and no earlier
    # result may pass for this run's.
    with hold_lock(config.output_dir, "output directory", is_dir=True):
        replaced = previous_formal_signature(config.output_dir)
        remove_previous_results(config.output_dir)
        verdicts, judge_block = None, None
        if config.judge is not None:
            from eval import judge_client

            prefill = None
            if settings.batch:  # SPEC §18: the cache's missing requests go as Batch jobs first
                from eval.run.judge_batch import fill_cache_by_batch as prefill
            verdicts, judge_block = judge_client.run_judge_prompts(
                requests, settings, config.cache_path, dict(prompts.versions), progress=not config.quiet,
                shape=None if prompts.shape is None else prompts.shape(settings), prefill=prefill)
            judge_block["calibration"] = calibration  # None: uncalibrated (SPEC §17)
        scoring = ScoringContext(counter=bench.counters.get(config.counter))  # the rules and Sandglass count with it
        scores = bench.score_rows(rows, predictions, verdicts, config, scoring)
        if config.log_samples:
            scores = log_samples(bench, rows, predictions, scores)
        summary = build_summary(bench, config, data, rows, predictions, prediction_lines, scores, judge_block,
                                extra_reasons, release, subset)
        if summary["judge"] is not None:  # read off the verdicts and replies; never changes one (eval/judge/health.py)
            summary["judge"]["health"] = judge_health(verdicts, getattr(verdicts, "replies", None), len(rows),
                                                      untranslated_ids(summary))
        extra_files, oracle_list = {}, None
        if config.oracle:
            oracle_list = oracle_failures(scores)
            summary["predictions"]["path"] = "oracle"  # a temporary file; its sha256 stays
            summary["oracle"] = oracle_block(oracle_list, scores)
            extra_files[ORACLE_FILE] = jsonl_lines(oracle_list)
        failure_lists = failures(scores, summary, bench=bench)
        sections = run_sections(summary, bench, oracle_list)  # SPEC §16: subset, oracle, published tables
        # scores.jsonl and explorer.html are written into their temporaries piece by piece: a
        # 100,000-row run never holds either text whole (docs/architecture.md, speed and memory).
        paths = write_results(config.output_dir, {
            "scores.jsonl": jsonl_writer(scores, row_dict),
            "report.md": (bench.report_markdown(summary) + health_markdown(summary) + sections[0]
                          + protocol_markdown(summary.get("protocol")) + sections[1] + sections[2]
                          + calibration_markdown(summary["judge"]) + "\n".join(failures_markdown(failure_lists)) + "\n"),
            "report.html": render_report_html(summary, scores, bench, failure_lists,
                                              (*sections_html(summary, bench),
                                               *filter(None, (health_html(summary),)))),
            "explorer.html": lambda write: write_explorer_html(write, bench, summary, rows, predictions, scores,
                                                               config.output_dir),
            **extra_files,
            "summary.json": json_text(summary),
        }, settle)
    if replaced is not None and replaced != summary["signature"]:  # said even with --quiet: a result is gone
        status = "formal" if summary["formal"] else "not formal: " + "; ".join(summary["non_formal_reasons"])
        print(f"replaced the formal run that was in {config.output_dir} (signature {replaced}) with this run, "
              f"which is {status}", file=sys.stderr)
    if not config.quiet:
        print(bench.console_table(summary))
        if run_self_judging(summary):
            print(f"warning: {run_self_judging(summary)}")
        for line in judge_health_lines(summary):
            print(line)
        if summary["judge"] is not None:
            print(calibration_console_line(summary["judge"]))
        if release is not None:
            counter = summary["protocol"]["syllable_counter"] or "none"
            print(f"protocol: release ({release.root}); syllable counter: {counter}; "
                  "report.md says which published numbers this run is comparable with")
        print(f"wrote {config.output_dir / 'scores.jsonl'}, summary.json, report.md, report.html and explorer.html"
              + (f" and {ORACLE_FILE}" if config.oracle else ""))
    return RunResult(0, config.output_dir, tuple(paths), summary, scores)


def export_model_inputs(benchmark: str, source: DataSource, limit: int | None, output: Path, batch=None) -> int:
    """prepare_inputs.py: one `{case_id, messages}` line per row, never the reference; with `batch`
    (PredictSettings, --format openai-batch) one Batch API request line per row instead (SPEC §18)."""
    bench = get_benchmark(benchmark)
    data = load_benchmark_data(bench, source)
    rows = data.rows[:limit] if limit else data.rows
    if batch is not None:
        from eval.prediction.runner import InputRow
        from eval.prediction.batch import batch_written_line, write_batch_requests

        inputs = [bench.model_input(row) for row in rows]
        paths = write_batch_requests([InputRow(entry["case_id"], entry["messages"]) for entry in inputs], batch, output)
        print(batch_written_line(len(rows), bench.title, batch, paths))
        return 0
    write_atomic(output, jsonl_lines(bench.model_input(row) for row in rows))
    print(f"wrote {len(rows)} {bench.title} model inputs to {output}")
    return 0
