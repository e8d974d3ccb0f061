"""What the two command-line scripts share: the data-source flags and the error edge."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from eval.data import (DEFAULT_DATA, DEFAULT_DATASET, file_sha256, read_rows_from_dataset, read_rows_from_file,
                       rows_sha256, warnings_line)
from eval.errors import ConfigError, HarnessError


@dataclass(frozen=True)
class LoadedData:
    """The rows of a run and where they came from."""

    rows: list[dict]
    source: str
    sha256: str
    warnings: tuple = ()     # data warnings {case_id, where, message} (SPEC §9)
    identity: str = "file"   # "file": sha256 of the data file's bytes; "rows": canonical rows (no file)


def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """--data (alias --data-file, as the original scripts spell it), --dataset and --limit."""
    group = parser.add_argument_group("Data")
    source = group.add_mutually_exclusive_group()
    source.add_argument("--data", "--data-file", dest="data", type=Path, default=None,
                        help=f"data JSONL file (default: {DEFAULT_DATA.relative_to(DEFAULT_DATA.parent.parent)})")
    source.add_argument("--dataset", nargs="?", const=DEFAULT_DATASET, default=None, metavar="NAME",
                        help=f"load the test split with `datasets` (default name: {DEFAULT_DATASET})")
    group.add_argument("--limit", type=int, default=None, metavar="N",
                       help="use only the first N rows (a smoke run; never formal)")


def load_data(args: argparse.Namespace, default_data: Path = DEFAULT_DATA, default_dataset: str = DEFAULT_DATASET,
              validate: Callable | None = None) -> LoadedData:
    """Load and validate the rows the flags name (a benchmark mode passes its own defaults and row
    validator); --limit is applied afterwards."""
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be a positive number, got {args.limit}", "drop --limit to use every row")
    if args.dataset:
        name = default_dataset if args.dataset == DEFAULT_DATASET else args.dataset  # a bare --dataset
        loaded = read_rows_from_dataset(name, validate=validate)
        if loaded.data_file is not None:  # one identity whatever the path (SPEC §9)
            data = LoadedData(loaded.rows, f"dataset:{name}", file_sha256(loaded.data_file), loaded.warnings)
        else:
            data = LoadedData(loaded.rows, f"dataset:{name}", rows_sha256(loaded.rows), loaded.warnings, "rows")
    else:
        path = args.data or default_data
        loaded = read_rows_from_file(path, validate=validate)
        root = DEFAULT_DATA.parent.parent
        shown = str(path) if args.data or not path.is_relative_to(root) else str(path.relative_to(root))
        data = LoadedData(loaded.rows, shown, file_sha256(path), loaded.warnings)
    if data.warnings:
        print(warnings_line(data.warnings), file=sys.stderr)
    return data


@dataclass(frozen=True)
class RunInputs:
    """What a scoring run starts from, checked in the order that keeps a failed run harmless."""

    data: LoadedData
    rows: list[dict]                     # the rows this run scores (after --limit)
    predictions: dict[str, str | None]   # case_id -> prediction, for the scored rows
    prediction_lines: int
    judge_settings: object | None        # judge_client.JudgeSettings, or None with --skip-judge
    cache_path: Path


def start_run(args: argparse.Namespace, load: Callable[[argparse.Namespace], LoadedData] = load_data,
              default_model: str | None = None) -> RunInputs:
    """Check the Judge settings (before anything changes), delete an earlier run's results, load
    the data and the predictions. Shared by both benchmarks; `load` and `default_model` are the
    mode's own."""
    from eval.predictions import load_predictions
    from eval.report import remove_previous_results

    judge_settings = None
    if not args.skip_judge:
        from eval import judge_client

        model_default = {} if default_model is None else {"default_model": default_model}
        judge_settings = judge_client.settings_from_args(args, **model_default)
    remove_previous_results(args.output_dir)  # the run starts: no earlier result may pass for this one
    data = load(args)
    rows = data.rows[: args.limit] if args.limit else data.rows
    ignored_ids = {row["case_id"] for row in data.rows[len(rows):]}
    predictions, lines = load_predictions(args.predictions, {row["case_id"] for row in rows}, ignored_ids)
    cache_path = Path(args.judge_cache or args.output_dir / "judge_cache.sqlite")
    return RunInputs(data, rows, predictions, lines, judge_settings, cache_path)


def run_cli(main: Callable[[list[str] | None], int], argv: list[str] | None = None) -> int:
    """Run a script's main; a HarnessError becomes one clear message and its exit status."""
    try:
        return main(argv)
    except HarnessError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_status
    except OSError as error:  # an output path that is a directory, a full disk, a locked cache
        where = f" {error.filename}" if error.filename else ""
        print(f"error: cannot write or read{where}: {error.strerror or error}\n"
              "  hint: check --output-dir, --output and --judge-cache", file=sys.stderr)
        return 2
    except sqlite3.Error as error:
        print(f"error: the Judge cache cannot be used ({type(error).__name__}: {error})\n"
              "  hint: point --judge-cache at a new file, or delete the broken one", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: no result was written (Judge verdicts received so far stay in the cache)", file=sys.stderr)
        return 130
