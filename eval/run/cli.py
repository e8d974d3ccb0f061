"""The command-line edge of every script: flags in argument groups, the frozen RunConfig built
from them once; errors become messages and exit statuses in eval/exits.py."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import os
from pathlib import Path

from eval.benchmark import Benchmark, Option
from eval.benchmarks import BENCHMARKS, detect_benchmark, get_benchmark, listed, titles_listed
from eval.config import HARNESS, PROTOCOLS, RELEASE, DataSource, RunConfig
from eval.errors import ConfigError
from eval.flags import HarnessParser
from eval.providers.openai_api import REASONING_EFFORTS

BARE_DATASET = "\0bare"  # `--dataset` without a name: the benchmark's own hub id


NO_HUB_ID = "the release folder's path"  # a benchmark whose release is no hub dataset


def bundled_data(bench: Benchmark) -> str:
    """A benchmark's bundled set as a path from the checkout (a folder with a trailing /)."""
    from eval.io.paths import ROOT

    try:
        shown = bench.default_data.relative_to(ROOT).as_posix()
    except ValueError:
        shown = bench.default_data.as_posix()
    return shown + "/" if bench.default_data.is_dir() else shown


# ---------------------------------------------------------------------------------------------
# Flags
# ---------------------------------------------------------------------------------------------

def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """--benchmark, --data (alias --data-file, as the original scripts spell it), --dataset, --limit."""
    group = parser.add_argument_group("Data")
    group.add_argument("--benchmark", choices=("auto", *BENCHMARKS), default="auto",
                       help="which benchmark the data belongs to: " + listed(f"{name} ({bench.title})"
                                                                               for name, bench in BENCHMARKS.items())
                            + " (default: auto, recognised from the first data row; a hub --dataset by its name). "
                            "Each benchmark has its own bundled data (" + ", ".join(bundled_data(bench) for bench in
                                                                                      BENCHMARKS.values())
                            + ") and, in evaluate.py, its own default Judge model")
    source = group.add_mutually_exclusive_group()
    source.add_argument("--data", "--data-file", dest="data", type=Path, default=None, action="append",
                        help="data JSONL file (default: the benchmark's bundled set); give it again to read "
                             "several files in order (a benchmark whose data comes in several files)")
    source.add_argument("--dataset", nargs="?", const=BARE_DATASET, default=None, metavar="NAME",
                        help="load the test split with `datasets`: a hub id, a snapshot directory or a file "
                             "(default name: " + "; ".join(f"{bench.title}: {bench.data.default_dataset or NO_HUB_ID}"
                                                           for bench in BENCHMARKS.values()) + ")")
    group.add_argument("--limit", type=int, default=None, metavar="N",
                       help="use only the first N rows (a smoke run; never formal)")


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The "Judge" argument group; the endpoint and key come from the environment."""
    from eval import config as defaults

    group = parser.add_argument_group(
        "Judge", "LLM Judge for soft constraints and quality. Set JUDGE_API_BASE "
                 "(an OpenAI-compatible base URL, e.g. https://host/v1) and JUDGE_API_KEY.")
    group.add_argument("--skip-judge", action="store_true",
                       help="hard rules only: offline and reproducible, never formal")
    group.add_argument("--judge-model", default=None,
                       help="Judge model name; gpt-5*, gpt-6*, o1*, o3*, o4* (last '/' segment) use /responses, "
                            "others /chat/completions (default: " + "; ".join(
                                f"{bench.title}: {bench.default_judge_model}" for bench in BENCHMARKS.values()) + ")")
    group.add_argument("--judge-concurrency", "--concurrency", dest="judge_concurrency", type=int,
                       default=defaults.DEFAULT_CONCURRENCY, metavar="N",
                       help="requests in flight at once (default: %(default)s)")
    group.add_argument("--judge-reasoning-effort", default="none", choices=REASONING_EFFORTS,
                       help="reasoning effort sent to /responses models (default: %(default)s)")
    group.add_argument("--judge-max-retries", type=int, default=defaults.DEFAULT_MAX_RETRIES, metavar="N",
                       help="retries of a request after a transient failure (default: %(default)s)")
    group.add_argument("--judge-timeout", type=float, default=defaults.DEFAULT_TIMEOUT_S, metavar="SECONDS",
                       help="timeout of one HTTP request (default: %(default)s; raise it behind a gateway "
                            "that holds over-limit requests longer)")
    group.add_argument("--judge-deadline", type=float, default=defaults.DEFAULT_DEADLINE_S, metavar="SECONDS",
                       help="how long the provider may fail every request before the run aborts "
                            "(default: %(default)s)")
    group.add_argument("--judge-backoff", type=float, default=defaults.DEFAULT_BACKOFF_S, metavar="SECONDS",
                       help="first retry delay, doubled per retry, with jitter (default: %(default)s)")
    group.add_argument("--judge-repairs", type=int, default=defaults.DEFAULT_REPAIRS, metavar="{0,1}", choices=(0, 1),
                       help="repair turns after an invalid or cut verdict, 0 or 1: 1 asks the Judge once more, "
                            "naming what was wrong; 0 aborts at once as the original release did (default: %(default)s)")
    group.add_argument("--judge-max-tokens", type=int, default=None, metavar="N",
                       help="the Judge reply's token limit (max_tokens; max_output_tokens on /responses) instead of "
                            "the request's own (2048, " + "".join(
                                f"{bench.title} {bench.prompt_sets[HARNESS].params['max_tokens']}, "
                                for bench in BENCHMARKS.values() if "max_tokens" in (bench.prompt_sets[HARNESS].params or {}))
                            + "/responses 4096); recorded in the signature "
                            "only when set. Lower it to fail sooner on a Judge that loops")
    group.add_argument("--judge-structured", nargs="?", const="json_schema", default=False,
                       choices=("json_schema", "json_object"), metavar="FORM",
                       help="ask for the verdict's JSON schema (response_format / text.format), for engines "
                            "that enforce it (OpenAI, vLLM, SGLang, llama.cpp, Ollama); FORM json_object is "
                            "llama-cpp-python's spelling on chat (default form: json_schema)")
    group.add_argument("--judge-cache", dest="judge_cache", type=Path, default=None, metavar="PATH",
                       help="SQLite response cache (default: <output-dir>/judge_cache.sqlite)")


def declared_options() -> dict[str, list[tuple[Benchmark, Option]]]:
    """{flag: [(benchmark, its declaration)]}: the benchmarks' own options (`Benchmark.options`),
    in registry order; a flag several benchmarks declare is one flag."""
    flags: dict[str, list[tuple[Benchmark, Option]]] = {}
    for bench in BENCHMARKS.values():
        for option in bench.options:
            flags.setdefault(option.flag, []).append((bench, option))
    return flags


def add_option_arguments(parser: argparse.ArgumentParser) -> None:
    """The "Rules" group: one flag per option the registry's benchmarks declare. An option without
    a metavar lists its choices (every benchmark's, in order); one with a metavar names each
    benchmark's choices in its help text, where `{choices}` stands."""
    group = parser.add_argument_group("Rules")
    for flag, declared in declared_options().items():
        first = declared[0][1]
        if first.metavar is None:
            choices = list(dict.fromkeys(choice for _, option in declared for choice in option.choices))
            group.add_argument(flag, dest=first.name, choices=choices, default=None, help=first.help)
        else:
            listed = "; ".join(f"{bench.title}: {', '.join(option.choices)}" for bench, option in declared)
            group.add_argument(flag, dest=first.name, default=None, metavar=first.metavar,
                               help=first.help.replace("{choices}", listed))


def evaluate_parser() -> argparse.ArgumentParser:
    parser = HarnessParser(
        description=f"Score predictions of {titles_listed()} (recognised from the data). "
                    "Writes scores.jsonl, summary.json, report.md, report.html and explorer.html (and with --oracle "
                    "oracle_failures.jsonl) to --output-dir, "
                    "and the Judge cache judge_cache.sqlite beside them.")
    io = parser.add_argument_group("Predictions and outputs")
    io.add_argument("--predictions", type=Path, default=None,
                    help="JSONL of {case_id, prediction} (required, except with --oracle)")
    io.add_argument("--output-dir", type=Path, required=True,
                    help="where the five result files and the Judge cache go (a directory; created if missing)")
    io.add_argument("--case-ids", type=Path, default=None, metavar="FILE",
                    help="score exactly the case_ids listed in FILE, one per line (never formal)")
    io.add_argument("--only", type=Path, default=None, metavar="FILE",
                    help="score only the rows listed in FILE (a case_id per line, or md5 and instruction "
                         "language); the subset's count and sha256 go into every output (docs/published.md)")
    io.add_argument("--exclude", type=Path, default=None, metavar="FILE",
                    help="score every row but those listed in FILE (same form as --only)")
    io.add_argument("--oracle", action="store_true",
                    help="score each row's reference as its prediction and list the references that fail a "
                         "hard rule in oracle_failures.jsonl (never formal)")
    io.add_argument("--quiet", action="store_true", help="no progress bar and no table at the end")
    io.add_argument("--log-samples", action="store_true",
                    help="scores.jsonl rows also carry the prediction and the model input (off by default)")
    add_data_arguments(parser)
    add_option_arguments(parser)
    add_judge_arguments(parser)
    parser.add_argument_group("Judge calibration").add_argument(
        "--judge-calibration", type=Path, default=None, metavar="FILE",
        help="calibration.json of this Judge (python -m eval.calibrate; refused if made with another Judge model, "
             "endpoint kind, parameters or prompt versions): its agreement per prompt kind goes into the summary, "
             "signature and reports")
    add_cost_arguments(parser)
    add_protocol_arguments(parser)
    return parser


def add_cost_arguments(parser: argparse.ArgumentParser) -> None:
    """--estimate, --judge-price, --judge-budget (SPEC §18, docs/judge.md "Cost")."""
    group = parser.add_argument_group("Judge cost", "What the Judge requests cost (docs/judge.md).")
    group.add_argument("--estimate", action="store_true",
                       help="print the Judge requests the cache does not hold, their estimated tokens and cost "
                            "(online and batch), and exit 0 without sending anything")
    group.add_argument("--judge-price", default=None, metavar="IN,OUT",
                       help="USD per million input and output tokens (a third number prices cached input): "
                            "the estimate's cost and the summary's judge.cost")
    group.add_argument("--judge-budget", type=float, default=None, metavar="USD",
                       help="stop the run cleanly when this run's Judge spend reaches USD (needs --judge-price); "
                            "a rerun resumes from the cache")
    group.add_argument("--judge-batch", action="store_true",
                       help="send the requests the cache does not hold as OpenAI Batch jobs (about half the price), "
                            "wait, then ask online only what failed; a rerun re-attaches to batches in flight")
    group.add_argument("--judge-batch-wait", type=float, default=None, metavar="SECONDS",
                       help="stop waiting for the batches after SECONDS (exit 130; rerun to re-attach) "
                            "(default: until they end)")
    group.add_argument("--judge-batch-poll", type=float, default=30.0, metavar="SECONDS",
                       help="seconds between two looks at the batches (default: %(default)s)")


def cost_settings(args: argparse.Namespace, judge):
    """The Judge settings with --judge-price / --judge-budget, checked; --estimate needs the Judge."""
    from eval.judge.cost import check_budget, parse_price

    if judge is None:
        for flag, given in (("--estimate", args.estimate), ("--judge-price", args.judge_price is not None),
                            ("--judge-budget", args.judge_budget is not None), ("--judge-batch", args.judge_batch)):
            if given:
                raise ConfigError(f"{flag} is about the Judge, and --skip-judge asks none", f"drop {flag} or --skip-judge")
        return None
    price = None if args.judge_price is None else parse_price(args.judge_price)
    check_budget(args.judge_budget, price)
    batch_flags = (("--judge-batch-wait", args.judge_batch_wait is not None),
                   ("--judge-batch-poll", args.judge_batch_poll != 30.0))
    for flag, given in batch_flags if not args.judge_batch else ():
        if given:
            raise ConfigError(f"{flag} applies to --judge-batch only", "add --judge-batch, or drop it")
    if args.judge_batch and args.judge_budget is not None:
        raise ConfigError("--judge-budget stops online requests one by one; a Batch job is paid as a whole",
                          "drop --judge-budget with --judge-batch (--estimate prints the batch cost first)")
    for flag, value in (("--judge-batch-wait", args.judge_batch_wait), ("--judge-batch-poll", args.judge_batch_poll)):
        if value is not None and not (value >= 0 and value < float("inf")):
            raise ConfigError(f"{flag} must be 0 or more seconds, got {value}")
    return dataclasses.replace(judge, price=price, budget=args.judge_budget, batch=args.judge_batch,
                               batch_wait=args.judge_batch_wait, batch_poll=args.judge_batch_poll)


def add_protocol_arguments(parser: argparse.ArgumentParser) -> None:
    """--protocol, --release-dir, --trust-release-code (SPEC §15, docs/release.md)."""
    group = parser.add_argument_group(
        "Protocol", "Whose Judge prompts, requests and syllable counter score the run (docs/release.md).")
    group.add_argument("--protocol", choices=PROTOCOLS, default=HARNESS,
                       help="harness: this harness's Judge prompts and counter (default); release: the official "
                            "release's Judge prompts, requests and reply parsing, read from its folder without "
                            "running it, for numbers comparable with the published ones")
    group.add_argument("--release-dir", type=Path, default=None, metavar="DIR",
                       help="the release folder (default: the folder --dataset loaded)")
    group.add_argument("--trust-release-code", action="store_true",
                       help="with --protocol release: import the release's syllable module from its folder and "
                            "count with it (runs the release's code)")


def prepare_parser() -> argparse.ArgumentParser:
    parser = HarnessParser(description="Export model inputs (case_id + chat messages), never the reference, for "
                                       f"{titles_listed()} data.")
    parser.add_argument("--output", type=Path, required=True, help="JSONL file to write")
    add_data_arguments(parser)
    # issue 32: --format openai-batch writes Batch API request lines with predict.py's own model flags
    from eval.prediction.command import add_model_arguments

    parser.add_argument("--format", choices=("inputs", "openai-batch"), default="inputs",
                        help="inputs: {case_id, messages} rows for predict.py; openai-batch: one OpenAI Batch "
                             "API / vLLM run_batch request line per instance (needs --model) (default: %(default)s)")
    add_model_arguments(parser, required=False)
    return parser


# ---------------------------------------------------------------------------------------------
# From flags to settings (checked before anything runs)
# ---------------------------------------------------------------------------------------------

def benchmark_and_source(args: argparse.Namespace) -> tuple[str, DataSource]:
    """The benchmark the flags mean, and the data source with a bare --dataset resolved."""
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be a positive number, got {args.limit}", "drop --limit to use every row")
    dataset = None if args.dataset == BARE_DATASET else args.dataset
    if dataset is not None:
        from eval.io.hub import check_dataset_spec

        check_dataset_spec(dataset)
    paths = (args.data,) if isinstance(args.data, Path) else tuple(args.data or ())  # --data is repeatable
    benchmark = args.benchmark if args.benchmark != "auto" else detect_benchmark(paths[0] if paths else None, dataset)
    if args.benchmark != "auto" and paths and paths[0].is_file():
        refuse_other_benchmarks_data(args.benchmark, paths[0])
    if args.dataset == BARE_DATASET:
        dataset = get_benchmark(benchmark).data.default_dataset
    return benchmark, DataSource(path=paths[0] if paths else None, dataset=dataset, more_paths=paths[1:])


def refuse_other_benchmarks_data(benchmark: str, path: Path) -> None:
    """`--benchmark A` on data the first row of which is recognised as benchmark B's: one line naming
    both, instead of the row error B's fields cause under A's schema."""
    from eval.benchmarks import DEFAULT_BENCHMARK

    recognised = detect_benchmark(path, None)
    if recognised not in (benchmark, DEFAULT_BENCHMARK):  # the default is also the answer when unsure
        found, asked = get_benchmark(recognised), get_benchmark(benchmark)
        raise ConfigError(f"{path} is {found.title} data, not {asked.title} data (--benchmark {benchmark})",
                          f"run with --benchmark {recognised}, or leave --benchmark out: it is recognised from the data")


def judge_settings_from_args(args: argparse.Namespace, default_model: str):
    """JudgeSettings from the flags and JUDGE_API_BASE / JUDGE_API_KEY; checked before any work."""
    from eval.config import JudgeSettings
    from eval.providers.health import check_api_endpoint

    model = default_model if args.judge_model is None else args.judge_model
    api_base = os.environ.get("JUDGE_API_BASE", "").strip()
    api_key = os.environ.get("JUDGE_API_KEY", "").strip()
    check_api_endpoint("JUDGE_API_BASE", "JUDGE_API_KEY", api_base, api_key,
                       missing_hint="export JUDGE_API_BASE=https://HOST/v1 and JUDGE_API_KEY=..., "
                                    "or pass --skip-judge for a hard-rules-only run",
                       example="e.g. https://api.example.com/v1 or http://127.0.0.1:8000/v1",
                       endpoint_hint="give the base only (e.g. https://host/v1); the endpoint follows from "
                                     "--judge-model")
    checks = ((args.judge_concurrency >= 1, "--judge-concurrency must be at least 1"),
              (args.judge_max_retries >= 0, "--judge-max-retries must be 0 or more"),
              (args.judge_timeout > 0, "--judge-timeout must be positive"),
              (args.judge_deadline > 0, "--judge-deadline must be positive"),
              (args.judge_backoff >= 0, "--judge-backoff must be 0 or more"),
              (getattr(args, "judge_max_tokens", None) is None or args.judge_max_tokens >= 1,
               "--judge-max-tokens must be 1 or more"),
              (bool(model.strip()), "--judge-model must not be empty"))
    for ok, message in checks:
        if not ok:
            raise ConfigError(message)
    return JudgeSettings(model=model.strip(), api_base=api_base, api_key=api_key,
                         concurrency=args.judge_concurrency,
                         reasoning_effort=args.judge_reasoning_effort,
                         max_retries=args.judge_max_retries, timeout=args.judge_timeout,
                         backoff=args.judge_backoff, deadline=args.judge_deadline,
                         repairs=args.judge_repairs, structured=args.judge_structured,
                         max_tokens=getattr(args, "judge_max_tokens", None))


def run_config_from_args(args: argparse.Namespace) -> RunConfig:
    """The frozen RunConfig of an evaluate.py command line."""
    if (args.predictions is None) == (not args.oracle):
        raise ConfigError("--oracle scores the references: it takes no --predictions" if args.oracle else
                          "the following arguments are required: --predictions",
                          "drop --predictions" if args.oracle else "pass --predictions FILE (or --oracle)")
    if args.output_dir.exists() and not args.output_dir.is_dir():
        raise ConfigError(f"--output-dir {args.output_dir} is a file, not a directory",
                          "give a directory for the result files (it is created if missing)")
    benchmark, source = benchmark_and_source(args)
    check_protocol_flags(args)
    judge = None
    if args.skip_judge and getattr(args, "judge_calibration", None) is not None:
        raise ConfigError("--judge-calibration needs the Judge: this run skips it", "drop --skip-judge or the flag")
    if not args.skip_judge:
        judge = judge_settings_from_args(args, get_benchmark(benchmark).default_judge_model)
        if args.protocol == RELEASE:  # the release reads one reply and aborts on a bad one: no repair turn
            judge = dataclasses.replace(judge, repairs=0)
        from eval.judge.cache import check_cache_file  # a foreign file is refused before any file changes

        check_cache_file(args.judge_cache or args.output_dir / "judge_cache.sqlite")
    judge = cost_settings(args, judge)  # issue 32: --judge-price, --judge-budget, --estimate
    return RunConfig(benchmark=benchmark, predictions=args.predictions, output_dir=args.output_dir, source=source,
                     limit=args.limit, case_ids=args.case_ids, judge=judge,
                     options={declared[0][1].name: getattr(args, declared[0][1].name)
                              for declared in declared_options().values()
                              if getattr(args, declared[0][1].name, None) is not None},
                     judge_cache=args.judge_cache, quiet=args.quiet, log_samples=args.log_samples,
                     judge_calibration=getattr(args, "judge_calibration", None), protocol=args.protocol, release_dir=args.release_dir,
                     trust_release_code=args.trust_release_code, only=args.only, exclude=args.exclude,
                     oracle=args.oracle, estimate=args.estimate)


def check_protocol_flags(args: argparse.Namespace) -> None:
    """The release flags mean something only together; the release sends its own request."""
    if args.protocol != RELEASE:
        for flag, given in (("--release-dir", args.release_dir is not None),
                            ("--trust-release-code", args.trust_release_code)):
            if given:
                raise ConfigError(f"{flag} applies to --protocol release only", "add --protocol release, or drop it")
        return
    for flag, given in (("--judge-reasoning-effort", args.judge_reasoning_effort != "none"),
                        ("--judge-structured", bool(args.judge_structured)),
                        ("--judge-max-tokens", getattr(args, "judge_max_tokens", None) is not None)):
        if given:
            raise ConfigError(f"{flag} applies to --protocol harness: the release protocol sends the release's "
                              "own request", f"drop {flag}")


# ---------------------------------------------------------------------------------------------
# A run's collector (evaluate.py, eval/run/commands.py, eval/run/api.py)
# ---------------------------------------------------------------------------------------------

@contextlib.contextmanager
def paused_collector():
    """Python's cyclic garbage collector off for a run, everything imported so far frozen.

    A run builds millions of small dicts and lists that live to its end and form no cycles; the
    collector walks them again and again (25 ms at 3,000 rows, 2.5 s at 100,000: the cost per row
    grows with the rows). Reference counting still frees everything; the few cycles a run makes
    are collected after it. docs/testing.md has the figures."""
    was_enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()
