"""Predictions at scale through a Batch API (SPEC §18): `prepare_inputs.py --format openai-batch`
writes one request line per instance (the OpenAI Batch API and vLLM's `run_batch` read the same
file), and `predict.py --from-batch-output` turns their output file into the predictions file with
the same provenance an online run writes.

The request bodies are built by predict.py's own `request_body` from predict.py's own flags, so a
batch line carries exactly what predict.py would send online. The predictions meta is predict.py's
(same model, endpoint, parameters and inputs hash), so an online `predict.py` run on the same
output asks only for the instances the batch did not answer (errors, lines not returned).
"""

from __future__ import annotations

import json
from pathlib import Path

from eval.providers.batch_files import MAX_BYTES, MAX_LINES, outcome_of, request_line, split_lines
from eval.io.data import file_sha256, read_jsonl_objects
from eval.errors import ConfigError, DataError
from eval.providers.openai_api import parse_answer
from eval.io.outputs import jsonl_lines, write_atomic
from eval.prediction.runner import (InputRow, PredictResult, PredictSettings, answer_record, build_meta, build_settings,
                          now_iso, read_inputs, request_body)
from eval.inputs.system_meta import meta_path_for

FORMATS = ("inputs", "openai-batch")
MODEL_FLAGS = ("temperature", "top_p", "max_tokens", "seed", "reasoning_effort", "extra_body")


def model_settings(flags: dict, *, flag: str = "--from-batch-output") -> PredictSettings:
    """The model and parameters from predict.py's flag values (by dest), without a server."""
    if not (flags.get("model") or "").strip():
        raise ConfigError(f"{flag} needs --model NAME",
                          "give the model and the parameters the batch requests are (or were) written with")
    return build_settings(model=flags["model"], api_base="", api_key="", endpoint=flags.get("endpoint") or "auto",
                          **{name: flags.get(name) for name in MODEL_FLAGS}, offline=True)


# ---------------------------------------------------------------------------------------------
# prepare_inputs.py --format openai-batch
# ---------------------------------------------------------------------------------------------

def prepare_settings(fmt: str, flags: dict) -> PredictSettings | None:
    """prepare_inputs.py's --format and model flags: None for the plain inputs (where a model flag
    is refused: it would change nothing), the request settings for --format openai-batch."""
    if fmt == "inputs":
        given = [name for name in ("model",) + MODEL_FLAGS if flags.get(name) is not None]
        given += ["endpoint"] if flags.get("endpoint", "auto") != "auto" else []
        if given:
            names = ", ".join("--" + name.replace("_", "-") for name in given)
            raise ConfigError(f"{names} {'applies' if len(given) == 1 else 'apply'} only to --format openai-batch",
                              "add --format openai-batch, or give the model and its parameters to predict.py")
        return None
    return model_settings(flags, flag="--format openai-batch")


def part_paths(output: Path, count: int) -> list[Path]:
    """One file: the output itself; more (over the Batch API's limits): `<stem>.partN<suffix>`."""
    if count == 1:
        return [output]
    return [output.with_name(f"{output.stem}.part{index}{output.suffix}") for index in range(1, count + 1)]


def write_batch_requests(rows: list[InputRow], settings: PredictSettings, output: Path, *,
                         max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> list[Path]:
    """One request line per row (custom_id = case_id, body = predict.py's online body), split into
    files the OpenAI Batch API accepts; each file is written atomically."""
    lines = (request_line(row.case_id, settings.endpoint_kind, request_body(settings, row.messages)) for row in rows)
    try:
        files = split_lines(lines, max_lines, max_bytes)
    except ValueError as error:
        raise ConfigError(f"{output}: {error}", "shorten the prompt; the OpenAI Batch API refuses such a file") from None
    paths = part_paths(output, len(files))
    output.parent.mkdir(parents=True, exist_ok=True)
    for path, part in zip(paths, files):
        write_atomic(path, b"".join(part).decode("utf-8"))
    return paths


def batch_written_line(count: int, title: str, settings: PredictSettings, paths: list[Path]) -> str:
    where = str(paths[0]) if len(paths) == 1 else f"{len(paths)} files ({', '.join(map(str, paths))})"
    return f"wrote {count} {title} batch requests for {settings.model} ({settings.endpoint_kind}) to {where}"


# ---------------------------------------------------------------------------------------------
# predict.py --from-batch-output
# ---------------------------------------------------------------------------------------------

FIX_HINT = ("give --inputs the model inputs the batch requests were written from, and the same --model and "
            "parameters as prepare_inputs.py --format openai-batch")


def read_outcomes(paths: list[Path], input_ids: set[str], inputs_path: Path):
    """(where, Outcome) for every line of every output / error file; a line that is not an output
    line, names no instance of the inputs, or repeats a custom_id stops with file and line."""
    seen: dict[str, str] = {}
    found = []
    for path in paths:
        for number, entry in read_jsonl_objects(Path(path), kind=DataError):
            where = f"{path}:{number}"
            try:
                outcome = outcome_of(entry)
            except ValueError as error:
                raise DataError(f"{where}: {error}", "give the output or error file of an OpenAI Batch or vLLM "
                                                     "run_batch job") from None
            if outcome.custom_id not in input_ids:
                raise DataError(f"{where}: custom_id {outcome.custom_id[:200]!r} is not a case_id of {inputs_path}",
                                FIX_HINT)
            if outcome.custom_id in seen:
                raise DataError(f"{where}: custom_id {outcome.custom_id!r} was already answered at "
                                f"{seen[outcome.custom_id]}", "give each batch's output and error file once")
            seen[outcome.custom_id] = where
            found.append((where, outcome))
    return found


def from_batch_output(settings: PredictSettings, inputs_path: Path, batch_paths: list[Path],
                      output_path: Path) -> PredictResult:
    """Write the predictions (input order) and predict.py's meta from Batch output files; errors,
    truncations and instances with no line are listed in the meta's `batch` block."""
    from eval.io.locking import hold_lock

    inputs_path, output_path = Path(inputs_path), Path(output_path)
    meta_path = meta_path_for(output_path)
    for path in [inputs_path, *map(Path, batch_paths)]:
        if path.exists() and output_path.exists() and path.resolve() == output_path.resolve():
            raise ConfigError(f"--output is the input file {path}", "write the predictions to another file")
    inputs = read_inputs(inputs_path)
    inputs_sha256 = file_sha256(inputs_path)
    input_ids = {row.case_id for row in inputs}
    outcomes = read_outcomes(list(batch_paths), input_ids, inputs_path)
    started = now_iso()
    records: dict[str, dict] = {}
    errors = []
    for where, outcome in outcomes:
        if outcome.error is not None:
            errors.append({"case_id": outcome.custom_id, "status_code": outcome.status_code,
                           "error": outcome.error, "line": where})
            continue
        try:
            answer = parse_answer(settings.endpoint_kind, outcome.body)
        except ValueError as error:
            raise DataError(f"{where}: the answer for {outcome.custom_id!r} is not a {settings.endpoint_kind} "
                            f"response ({error})", "give the same --model / --endpoint as the batch requests") from None
        records[outcome.custom_id] = answer_record(answer, outcome.custom_id)
    ordered = [records[row.case_id] for row in inputs if row.case_id in records]
    answered_or_failed = {outcome.custom_id for _, outcome in outcomes}
    output_path.parent.mkdir(parents=True, exist_ok=True)
    with hold_lock(output_path, "output file", is_dir=False):
        if output_path.exists() or meta_path.exists():
            raise ConfigError(f"{output_path} or {meta_path.name} already exists",
                              "choose another --output, or delete both to convert the batch output again")
        run = {"started_at": started, "host": None, "skipped": 0, "asked": 0, "from_batch_output": len(outcomes),
               "finished_at": now_iso(), "stopped_by": None}
        meta = build_meta(settings, inputs_path=inputs_path, inputs_sha256=inputs_sha256, n_inputs=len(inputs),
                          records=ordered, runs=[run], engine=None, started_at=started)
        meta["host"] = None
        meta["batch"] = {
            "files": [{"path": str(path), "sha256": file_sha256(Path(path))} for path in batch_paths],
            "lines": len(outcomes), "answered": len(ordered), "errors": errors,
            "truncated": [record["case_id"] for record in ordered if record["response"].get("truncated")],
            "not_returned": [row.case_id for row in inputs if row.case_id not in answered_or_failed],
        }
        write_atomic(output_path, jsonl_lines(ordered))
        write_atomic(meta_path, json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
    return PredictResult(output_path, meta_path, meta, asked=0, skipped=0)


def batch_summary(result: PredictResult) -> str:
    """The line printed after a conversion: what came back, and what to do about what did not."""
    batch = result.meta["batch"]
    missing = len(batch["errors"]) + len(batch["not_returned"])
    line = (f"read {batch['lines']} batch line(s): {batch['answered']} answer(s), {len(batch['truncated'])} "
            f"truncated, {len(batch['errors'])} error(s), {len(batch['not_returned'])} instance(s) not in the "
            f"files; listed in {result.meta_path}")
    if missing:
        line += ("\nto fill the missing ones, run predict.py online with the same --inputs, --output, --model and "
                 "parameters: it asks only for what is missing")
    return line
