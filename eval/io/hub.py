"""Where data loaded through `datasets` lives on disk, so it has one identity (SPEC §9).

`--dataset FILE`, `--dataset DIR` (a dataset-repository snapshot, as `hf download … --local-dir`
leaves it) and `--dataset OWNER/NAME` (the hub, through the file the download put in the local
cache) are identified by the SHA-256 of the data file's bytes, exactly like `--data FILE`. The file
is found with the libraries' own resolution: `datasets`' data-file patterns and README configs for
a directory, huggingface_hub's cache API for a hub id. Imported only on the `--dataset` path.
"""

from __future__ import annotations

import re
from pathlib import Path

from eval.errors import DataError

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")
_SAVED_TO_DISK_MARKERS = ("dataset_dict.json", "state.json")


def is_hub_id(spec: str) -> bool:
    """`OWNER/NAME` that is not a local path."""
    return bool(_HUB_ID.match(spec)) and not Path(spec).exists()


def check_dataset_spec(spec: str) -> None:
    """Refuse a `--dataset` that reads as a local path but names nothing on disk, before `datasets`
    mistakes it for a malformed hub id."""
    path = Path(spec).expanduser()
    if path.exists() or is_hub_id(spec):
        return
    looks_like_path = (spec.startswith((".", "/", "~")) or "\\" in spec or spec.count("/") > 1
                       or path.suffix.lower() in (".jsonl", ".json", ".parquet", ".csv", ".arrow"))
    if looks_like_path:
        raise DataError(f"--dataset {spec}: the path does not exist",
                        "check the path (a file or a snapshot folder), or give a hub id as OWNER/NAME")


def hub_offline() -> bool:
    """HF_HUB_OFFLINE as huggingface_hub reads it."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def hub_unreachable(repo_id: str, timeout_s: float = 5.0) -> str | None:
    """Why the hub cannot be reached (None when it answers, even with "not found"): one quick
    request instead of `datasets`' retries, which take half a minute with no network."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    try:
        HfApi().dataset_info(repo_id, timeout=timeout_s)
    except HfHubHTTPError:  # the hub answered (not found, gated, ...): `datasets` words the error
        return None
    except Exception as error:  # DNS, refused, timeout, proxy: no answer at all
        return f"{type(error).__name__}: {error}"
    return None


def not_cached_error(repo_id: str, why: str) -> DataError:
    return DataError(f"dataset {repo_id}: {why}, and it is not in the local hub cache",
                     f"download it once while online (hf download --repo-type dataset {repo_id}) and rerun, "
                     "with HF_HUB_OFFLINE=1 if there is no network; or pass the data file with --data")


def cached_snapshot(repo_id: str) -> Path | None:
    """The snapshot folder of `repo_id`'s `main` revision in the local hub cache, or None.

    `snapshot_download(local_files_only=True)` reads the cache only (refs/main → snapshots/<commit>);
    a snapshot that `datasets` filled only partly (the card and the data file) is still the folder
    that holds the file it read.
    """
    if not is_hub_id(repo_id):
        return None
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return Path(snapshot_download(repo_id, repo_type="dataset", local_files_only=True))
    except LocalEntryNotFoundError as error:
        partial = getattr(error, "snapshot_path", None)  # IncompleteSnapshotError names the folder
        return Path(partial) if partial and Path(partial).is_dir() else None
    except (OSError, ValueError):
        return None


def is_saved_to_disk(directory: Path) -> bool:
    """A `Dataset.save_to_disk` / `DatasetDict.save_to_disk` folder: Arrow shards, no data file."""
    return any((directory / marker).is_file() for marker in _SAVED_TO_DISK_MARKERS)


def test_split_files(directory: Path, release_files: tuple[str, ...] = ()) -> tuple[str, list[Path], bool]:
    """(split, its data files, whether `datasets` resolved them) of a dataset-repository folder.

    `datasets`' own resolution first (README configs, file-name patterns): the `test` split, else
    the only split. A release repository also holds code (`eval/` reads as a validation split to
    those patterns) and manifest.json, so when that resolution fails or finds no test split, the
    releases' own data file names are used (`release_files`: the benchmarks' `ReleaseHooks.hub_files`)."""
    from datasets import load_dataset_builder

    try:
        data_files = load_dataset_builder(str(directory)).config.data_files or {}
    except Exception:  # no data file datasets recognises, or code it takes for one
        data_files = {}
    split = "test" if "test" in data_files else next(iter(data_files)) if len(data_files) == 1 else None
    if split is not None:
        return split, [Path(str(path)) for path in data_files[split]], True
    files = [directory / name for name in release_files if (directory / name).is_file()]
    if len(files) != 1:
        raise DataError(f"dataset {directory}: no test split, and no single {' or '.join(release_files) or 'data file'}",
                        "point --data at the data file")
    return "test", files, False


def snapshot_data_file(directory: Path, release_files: tuple[str, ...] = ()) -> Path | None:
    """The one data file of a snapshot folder's test split (None when it has several or none)."""
    if is_saved_to_disk(directory):
        return None
    try:
        _, files, _ = test_split_files(directory, release_files)
    except DataError:
        return None
    return files[0] if len(files) == 1 and files[0].is_file() else None


def resolve_data_file(spec: str, release_files: tuple[str, ...] = ()) -> Path | None:
    """The file whose bytes identify the data `--dataset spec` loads (SPEC §9), or None when the
    data has no file (a `save_to_disk` folder, a hub dataset missing from the local cache)."""
    path = Path(spec)
    if path.is_file():
        return path
    directory = path if path.is_dir() else cached_snapshot(spec)
    return None if directory is None else snapshot_data_file(directory, release_files)


def load_test_split(name: str, release_files: tuple[str, ...] = ()):
    """(the test split as a `datasets.Dataset`, the data file it was read from or None).

    The hub is tried first, the real download path (it fills the local hub cache); only when that
    fails is a cached snapshot of the repository loaded, so an offline run after `hf download`
    works. A `save_to_disk` folder goes through `load_from_disk`.
    """
    check_dataset_spec(name)
    from datasets import load_dataset, load_from_disk

    path = Path(name)
    if path.is_file():
        return load_dataset("json", data_files={"test": str(path)}, split="test"), path
    if path.is_dir():
        if is_saved_to_disk(path):
            return _one_split(load_from_disk(str(path)), name), None
        return _load_directory(path, release_files)
    offline = hub_offline()
    unreachable = None if offline or not is_hub_id(name) else hub_unreachable(name)
    if unreachable is not None:
        snapshot = cached_snapshot(name)
        if snapshot is None:
            raise not_cached_error(name, f"the hub cannot be reached ({unreachable})")
        return _load_directory(snapshot, release_files)
    try:
        dataset = load_dataset(name, split="test")
    except Exception:
        snapshot = cached_snapshot(name)
        if snapshot is None:
            if offline and is_hub_id(name):
                raise not_cached_error(name, "HF_HUB_OFFLINE is set") from None
            raise
        return _load_directory(snapshot, release_files)
    return dataset, resolve_data_file(name, release_files)


def _load_directory(directory: Path, release_files: tuple[str, ...] = ()):
    """A snapshot folder's test split through `datasets`, and its data file (None if several)."""
    from datasets import load_dataset

    split, files, resolved = test_split_files(directory, release_files)
    if resolved:
        dataset = load_dataset(str(directory), split=split)
    else:
        dataset = load_dataset("json", data_files={"test": str(files[0])}, split="test")
    return dataset, files[0] if len(files) == 1 else None


def _one_split(loaded, name: str):
    """The test split (or the only split) of a DatasetDict; a Dataset as it is."""
    if not hasattr(loaded, "keys"):
        return loaded
    if "test" in loaded:
        return loaded["test"]
    if len(loaded) == 1:
        return next(iter(loaded.values()))
    raise DataError(f"dataset {name}: no test split among {sorted(loaded)}", "save the test split alone")
