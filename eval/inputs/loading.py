"""Loading a benchmark's rows from where a run names them (SPEC §9): its bundled file, a JSONL
file, or a `datasets` name (a hub id, a snapshot directory, a file), with one identity for the
same bytes whichever path gave them. Reading and hashing a file is eval/io/data.py's; the hub's
files are eval/io/hub.py's; what a row must hold is the benchmark's validator.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from eval.config import DataSource
from eval.io.data import (ROOT, DataRows, Validate, file_sha256, files_sha256, read_jsonl_objects, read_rows_from_file,
                       read_rows_from_files, refuse_repeated_keys_and_lone_surrogates, rows_sha256, warnings_line)
from eval.errors import DataError


def read_rows_from_dataset(name: str, validate: Validate, clean: Callable[[dict], dict] | None = None,
                           release_files: tuple[str, ...] = ()) -> DataRows:
    """Rows loaded with `datasets` (the official release or a local copy), validated, with the file
    they came from (SPEC §9: one identity whatever the path).

    A local .json/.jsonl file is loaded with the json builder; a `save_to_disk` directory with
    `load_from_disk` (no file: identified by its rows); a dataset-repository directory or a hub id
    through `load_dataset`, the `test` split (or the only split). When the hub cannot be reached, a
    snapshot of the repository in the local hub cache is loaded instead. `clean` undoes what
    `datasets` adds to a row (None for an optional field the row lacks) before validation;
    `release_files` names the release repository's data file(s) (eval/io/hub.py `test_split_files`).
    """
    from eval.io import hub  # heavy (datasets): imported only on this path

    data_file = hub.resolve_data_file(name, release_files)  # a local file, a snapshot's data file, the hub's cached file
    if data_file is not None and data_file.suffix == ".jsonl":
        refuse_repeated_keys_and_lone_surrogates(data_file)
    try:
        dataset, data_file = hub.load_test_split(name, release_files)
    except DataError:
        raise
    except Exception as error:  # datasets raises many types; all mean "could not load"
        raise DataError(f"dataset {name}: could not load the test split ({type(error).__name__}: {error})",
                        "check the name, your network access, or pass a downloaded file with --data") from None
    located = []
    for index, row in enumerate(dataset):
        row = dict(row)
        located.append((f"dataset {name} [test][{index}]", clean(row) if clean else row))
    if not located:
        raise DataError(f"dataset {name}: the test split is empty", "check the dataset name")
    rows, warnings = validate(located)
    if data_file is not None and not file_holds_rows(data_file, rows):
        data_file = None  # the cached file is not what datasets loaded: identify the rows themselves
    return DataRows(rows, tuple(warnings), data_file)


def file_holds_rows(path: Path, rows: list[dict]) -> bool:
    """Whether a JSONL file's case_ids are the loaded rows', in order: a hub cache that moved on
    since `datasets` built its Arrow copy must not lend its identity to other rows. A file this
    reader cannot check (not .jsonl, unreadable) keeps its identity."""
    if path.suffix != ".jsonl":
        return True
    try:
        entries = read_jsonl_objects(path)
    except DataError:
        return True
    ids = [value.get("case_id") if isinstance(value, dict) else None for _, value in entries]
    return ids == [row["case_id"] for row in rows]


def load_rows_from_dataset(name: str, validate: Validate, clean: Callable[[dict], dict] | None = None) -> list[dict]:
    """The rows alone of `read_rows_from_dataset`."""
    return read_rows_from_dataset(name, validate, clean).rows


@dataclass(frozen=True)
class LoadedData:
    """The rows of a run, where they came from, and their identity (SPEC §9)."""

    rows: list[dict]
    source: str
    sha256: str
    warnings: tuple = ()     # data warnings {case_id, where, message} (SPEC §9)
    identity: str = "file"   # "file": sha256 of the data file's bytes; "rows": canonical rows (no file)


def load_data(source: DataSource, default_data: Path, validate: Validate,
              clean: Callable[[dict], dict] | None = None, release_files: tuple[str, ...] = ()) -> LoadedData:
    """Load and validate the rows `source` names (the benchmark gives its defaults, its row
    validator and its cleaner of hub rows). The data file's bytes are the identity whichever flag
    named it, a snapshot directory and the hub's cached file included; only rows without a file fall back to the
    canonical-rows hash (SPEC §9). Data warnings are shown in one line on stderr."""
    if source.dataset:
        name = source.dataset
        loaded = read_rows_from_dataset(name, validate, clean, release_files)
        if loaded.data_file is not None:
            data = LoadedData(loaded.rows, f"dataset:{name}", file_sha256(loaded.data_file), loaded.warnings)
        else:
            data = LoadedData(loaded.rows, f"dataset:{name}", rows_sha256(loaded.rows), loaded.warnings, "rows")
    elif source.more_paths:  # repeated --data (IFMTBench's two release files): one identity for all
        loaded = read_rows_from_files(source.paths, validate)
        shown = " + ".join(str(path.relative_to(ROOT)) if path.is_absolute() and path.is_relative_to(ROOT)
                           else str(path) for path in source.paths)
        data = LoadedData(loaded.rows, shown, files_sha256(source.paths), loaded.warnings)
    else:
        path = source.path or default_data
        loaded = read_rows_from_file(path, validate)
        shown = str(path) if source.path or not path.is_relative_to(ROOT) else str(path.relative_to(ROOT))
        data = LoadedData(loaded.rows, shown, file_sha256(path), loaded.warnings)
    if data.warnings:
        print(warnings_line(data.warnings), file=sys.stderr)
    return data
