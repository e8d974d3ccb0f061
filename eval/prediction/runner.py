"""Producing predictions from an OpenAI-compatible server (SPEC §13), resumable, with provenance.

Each exported row's `messages` go to the server unchanged (Chat Completions `messages`, or the
same list as Responses `input`), with only the parameters the user gave. The final answer text
is saved exactly as returned; reasoning returned separately, truncation, refusals and empty
answers are recorded per line (in the line's `response` object, which scoring ignores, §6) and
counted in `<output stem>.meta.json`.

Answers are appended one whole line at a time as they arrive, under an exclusive lock, so an
interrupted run loses at most the requests in flight and a rerun asks only for what is missing.
Provider faults are judged for the run by eval.providers.health (shared with the Judge, §10).
"""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import re
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from eval import __version__
from eval.providers import openai_api
from eval.io.data import file_sha256, read_jsonl_objects
from eval.errors import ConfigError, DataError, HarnessError
from eval.providers.openai_api import (
    Endpoint,
    CHAT,
    CONTEXT_WINDOW,
    GATEWAY_HEADER,
    REASONING_EFFORTS,
    RESPONSES,
    Answer,
    auth_headers,
    client_pool,
    endpoint_url,
    engine_headers,
    models_url,
    parse_answer,
    public_host,
    uses_responses_endpoint,
)
from eval.io.outputs import jsonl_line, jsonl_lines, write_atomic
from eval.inputs.system_meta import meta_path_for

ENDPOINT_CHOICES = ("auto", "chat", "responses")
DEFAULT_CONCURRENCY = 16
DEFAULT_TIMEOUT_S = 300.0  # a long answer takes minutes; a hung server is noticed after this plus the deadline
DEFAULT_DEADLINE_S = 30.0
STOP_GRACE_S = 5.0  # a stopped run waits at most this long for its cancelled requests
META_FORMAT = 1
# A reasoning model's chat answer carries its reasoning too: far more than a Judge verdict's 64 KB.
MAX_REPLY_BYTES = 8 * 1024 * 1024
# Body keys the harness owns: --extra-body may not replace the model or the messages.
RESERVED_BODY_KEYS = frozenset({"model", "messages", "input", "stream"})
# Request parameters that must stay the same across the runs that fill one output file.
RESUME_KEYS = ("model", "endpoint_kind", "params")
MODEL_ENTRY_FIELDS = ("id", "owned_by", "root", "parent", "max_model_len", "created")


class PredictError(HarnessError):
    """The model server returned something predict.py cannot use (exit 3, like a Judge abort)."""

    exit_status = 3


class Interrupted(Exception):
    """Ctrl-C, SIGTERM or SIGHUP stopped the run; the lines already written stay (SPEC §11, §13)."""

    def __init__(self, signum: int, written: int, total: int):
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum
        self.written = written
        self.total = total


# ---------------------------------------------------------------------------------------------
# Settings (built at the CLI edge)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PredictSettings(Endpoint):
    """Everything that decides how the model is asked (the endpoint's key is kept out of repr)."""
    endpoint_kind: str = CHAT
    params: dict = field(default_factory=dict)  # every request parameter besides model and messages
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT_S
    deadline_s: float = DEFAULT_DEADLINE_S


def build_settings(*, model: str, api_base: str, api_key: str, endpoint: str = "auto",
                   temperature: float | None = None, top_p: float | None = None, max_tokens: int | None = None,
                   seed: int | None = None, reasoning_effort: str | None = None, extra_body: str | None = None,
                   concurrency: int = DEFAULT_CONCURRENCY, timeout: float = DEFAULT_TIMEOUT_S,
                   deadline_s: float = DEFAULT_DEADLINE_S, offline: bool = False) -> PredictSettings:
    """Check every setting before anything is read or sent (SPEC §13); ConfigError names the flag.
    `offline`: no server is asked (Batch request or output files, SPEC §18), so MODEL_API_* are not needed."""
    from eval.providers.health import check_api_endpoint

    model = (model or "").strip()
    checks = ((bool(model), "--model must not be empty"),
              (endpoint in ENDPOINT_CHOICES, f"--endpoint must be one of {', '.join(ENDPOINT_CHOICES)}"),
              (concurrency >= 1, "--concurrency must be at least 1"),
              (timeout > 0, "--timeout must be positive"),
              (deadline_s > 0, "--deadline must be positive"),
              (max_tokens is None or max_tokens >= 1, "--max-tokens must be at least 1"),
              (temperature is None or temperature >= 0, "--temperature must be 0 or more"),
              (top_p is None or 0 < top_p <= 1, "--top-p must be in (0, 1]"),
              (reasoning_effort is None or reasoning_effort in REASONING_EFFORTS,
               f"--reasoning-effort must be one of {', '.join(REASONING_EFFORTS)}"))
    for ok, message in checks:
        if not ok:
            raise ConfigError(message)
    if not offline:
        check_api_endpoint("MODEL_API_BASE", "MODEL_API_KEY", api_base, api_key,
                           missing_hint="export MODEL_API_BASE=http://HOST:PORT/v1 and MODEL_API_KEY=... "
                                        "(any non-empty value for a local server without keys)",
                           example="e.g. http://127.0.0.1:8000/v1",
                           endpoint_hint="give the base only (e.g. http://127.0.0.1:8000/v1); --endpoint picks the "
                                         "endpoint")
    kind = endpoint_kind_for(model, endpoint)
    params = request_params(kind, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                            reasoning_effort=reasoning_effort)
    extra = parse_extra_body(extra_body)
    clashes = sorted(set(extra) & set(params))
    if clashes:
        raise ConfigError(f"--extra-body sets {', '.join(clashes)}, which a flag already sets",
                          hint="give each parameter once: by its flag or in --extra-body")
    return PredictSettings(model=model, api_base=api_base, api_key=api_key, endpoint_kind=kind,
                           params={**params, **extra}, concurrency=concurrency, timeout=timeout,
                           deadline_s=deadline_s)


def endpoint_kind_for(model: str, endpoint: str) -> str:
    """`auto` follows the Judge's name rule (SPEC §10): gpt-5*, gpt-6*, o1*, o3*, o4* use Responses."""
    if endpoint == "chat":
        return CHAT
    if endpoint == "responses":
        return RESPONSES
    return RESPONSES if uses_responses_endpoint(model) else CHAT


def request_params(kind: str, *, temperature=None, top_p=None, max_tokens=None, seed=None,
                   reasoning_effort=None) -> dict:
    """The parameters given, spelt as the endpoint expects; a parameter not given is not sent."""
    given = {"temperature": temperature, "top_p": top_p,
             "max_output_tokens" if kind == RESPONSES else "max_tokens": max_tokens, "seed": seed}
    if reasoning_effort is not None:
        given.update({"reasoning": {"effort": reasoning_effort}} if kind == RESPONSES
                     else {"reasoning_effort": reasoning_effort})
    return {key: value for key, value in given.items() if value is not None}


def parse_extra_body(text: str | None) -> dict:
    """--extra-body: one JSON object of engine-specific fields, merged into every request body."""
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"--extra-body is not valid JSON ({error.msg} at column {error.colno})",
                          hint="""e.g. --extra-body '{"chat_template_kwargs": {"enable_thinking": false}}'""") from None
    if not isinstance(value, dict):
        raise ConfigError(f"--extra-body must be a JSON object, got a {type(value).__name__}")
    reserved = sorted(RESERVED_BODY_KEYS & set(value))
    if reserved:
        raise ConfigError(f"--extra-body may not set {', '.join(reserved)}",
                          hint="the model comes from --model and the messages from --inputs, unchanged; "
                               "streaming is not supported")
    return value


# ---------------------------------------------------------------------------------------------
# Request bodies (nothing added)
# ---------------------------------------------------------------------------------------------

def request_body(settings: PredictSettings, messages: list[dict]) -> bytes:
    """The exact bytes sent for one row: model, the row's messages, the given parameters."""
    return openai_api.request_body(settings.endpoint_kind, settings.model, messages, settings.params)


# ---------------------------------------------------------------------------------------------
# Answers
# ---------------------------------------------------------------------------------------------

def answer_record(answer: Answer, case_id: str, secrets: tuple[str, ...] = ()) -> dict:
    """The output line: `prediction` is scored; `response` is provenance (ignored by scoring).
    The server's text is written as `provider_text` keeps it."""
    response = {"finish": answer.finish, "truncated": answer.truncated,
                "model": answer.model if answer.model is None else provider_text(answer.model, secrets)}
    if answer.incomplete_reason is not None:
        response["incomplete_reason"] = provider_text(answer.incomplete_reason, secrets)
    if answer.refusal is not None:
        response["refusal"] = provider_text(answer.refusal, secrets)
    if answer.reasoning_chars is not None:
        response["reasoning_chars"] = answer.reasoning_chars
    if answer.usage:
        response["usage"] = answer.usage
    return {"case_id": case_id, "prediction": provider_text(answer.text, secrets), "response": response}


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def provider_text(value, secrets: tuple[str, ...]):
    """A server's text as the output keeps it: without `secrets` (the API key, or any 8-character
    piece of it, as [redacted]: no file may hold a key, SPEC §10, and a translation has no use for
    one), and each lone surrogate (a `\\udXXX` escape that is no character, which the predictions
    reader refuses) as U+FFFD, so that the file predict.py writes is one it and evaluate.py read.
    Lists and dicts (a /models entry) are kept the same way, value by value."""
    from eval.providers.redaction import without_secrets

    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", without_secrets(value, secrets))
    if isinstance(value, list):
        return [provider_text(item, secrets) for item in value]
    if isinstance(value, dict):
        return {provider_text(key, secrets): provider_text(item, secrets) for key, item in value.items()}
    return value


extract_answer = parse_answer  # the final answer of a 200 body (SPEC §13), read by eval/providers/openai_api.py


# ---------------------------------------------------------------------------------------------
# Inputs and the existing output
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InputRow:
    case_id: str
    messages: list


def read_inputs(path: Path) -> list[InputRow]:
    """The exported `{case_id, messages}` rows; a bad line stops the run with file and line."""
    entries = read_jsonl_objects(Path(path), kind=DataError)
    if not entries:
        raise DataError(f"{path}: the inputs file has no rows", "write it with prepare_inputs.py")
    rows, seen = [], {}
    for number, entry in entries:
        where = f"{path}:{number}"
        hint = 'each line is {"case_id": "...", "messages": [{"role": "user", "content": "..."}]} (prepare_inputs.py)'
        if not isinstance(entry, dict):
            raise DataError(f"{where}: an input line must be a JSON object, got {type(entry).__name__}", hint)
        case_id, messages = entry.get("case_id"), entry.get("messages")
        if not isinstance(case_id, str) or not case_id:
            raise DataError(f"{where}: the line has no non-empty string case_id", hint)
        if case_id in seen:
            raise DataError(f"{where}: duplicate case_id {case_id!r} (first at line {seen[case_id]})", hint)
        if not isinstance(messages, list) or not messages:
            raise DataError(f"{where}: case_id {case_id!r} has no non-empty messages list", hint)
        for index, message in enumerate(messages):
            if (not isinstance(message, dict) or not isinstance(message.get("role"), str)
                    or not isinstance(message.get("content"), (str, list))):
                raise DataError(f"{where}: messages[{index}] of {case_id!r} is not a {{role, content}} object", hint)
        seen[case_id] = number
        rows.append(InputRow(case_id, messages))
    return rows


def read_written(path: Path, input_ids: set[str], notify: Callable[[str], None]) -> dict[str, dict]:
    """The lines an earlier run wrote, by case_id. A last line without its newline is a write
    cut by a crash: it is dropped (the file is truncated to the last whole line) with a notice."""
    if not path.exists():
        return {}
    raw = path.read_bytes()
    if raw and not raw.endswith(b"\n"):
        keep = raw.rfind(b"\n") + 1
        with open(path, "r+b") as handle:
            handle.truncate(keep)
        notify(f"notice: {path}: dropped an incomplete last line ({len(raw) - keep} bytes, cut by a crash); "
               "that case is asked again")
    written: dict[str, dict] = {}
    for number, entry in read_jsonl_objects(path, kind=DataError):
        where = f"{path}:{number}"
        if not isinstance(entry, dict) or not isinstance(entry.get("case_id"), str) or "prediction" not in entry:
            raise DataError(f"{where}: not a prediction line written by predict.py",
                            "choose another --output, or delete the file to start again")
        case_id = entry["case_id"]
        if case_id not in input_ids:
            raise DataError(f"{where}: case_id {case_id!r} is not in the inputs",
                            "this output belongs to other inputs: choose another --output")
        if case_id in written:
            raise DataError(f"{where}: duplicate case_id {case_id!r}", "delete the file to start again")
        written[case_id] = entry
    return written


class AnswerWriter:
    """The one writer of the output file: each answer is one `write` of one whole line, flushed."""

    def __init__(self, path: Path):
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)

    def write(self, record: dict) -> None:
        data = jsonl_line(record).encode("utf-8")
        while data:  # a regular file takes it in one call; the loop only guards a short write
            data = data[os.write(self._fd, data):]

    def close(self) -> None:
        if self._fd >= 0:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = -1


# ---------------------------------------------------------------------------------------------
# Provenance (predictions.meta.json)
# ---------------------------------------------------------------------------------------------

def now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def count_records(records: list[dict]) -> tuple[dict, dict, dict]:
    """(counts, token usage, reported models) over the whole file (SPEC §13)."""
    counts = {"written": 0, "answered": 0, "truncated": 0, "empty": 0, "refused": 0, "reasoning_returned": 0}
    finishes: dict[str, int] = {}
    usage = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0, "reasoning_tokens": 0}
    models: dict[str, int] = {}
    for record in records:
        response = record.get("response") if isinstance(record.get("response"), dict) else {}
        prediction = record.get("prediction")
        empty = not isinstance(prediction, str) or not prediction.strip()
        truncated = bool(response.get("truncated"))
        counts["written"] += 1
        counts["answered"] += not empty and not truncated
        counts["truncated"] += truncated
        counts["empty"] += empty
        counts["refused"] += bool(response.get("refusal"))
        counts["reasoning_returned"] += response.get("reasoning_chars") is not None
        finish = str(response.get("finish"))
        finishes[finish] = finishes.get(finish, 0) + 1
        tokens = response.get("usage") if isinstance(response.get("usage"), dict) else {}
        for short, name in (("input", "input_tokens"), ("output", "output_tokens"), ("total", "total_tokens"),
                            ("reasoning", "reasoning_tokens")):
            usage[name] += tokens.get(short, 0) if isinstance(tokens.get(short), int) else 0
        if isinstance(response.get("model"), str):
            models[response["model"]] = models.get(response["model"], 0) + 1
    counts["finish_reasons"] = dict(sorted(finishes.items()))
    return counts, usage, models


def read_meta(path: Path) -> dict | None:
    if not path.exists():
        return None
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DataError(f"{path}: cannot read the provenance file ({error})",
                        "delete the output and its .meta.json to start again") from None
    if not isinstance(meta, dict) or meta.get("tool") != "predict.py":
        raise DataError(f"{path}: not a provenance file written by predict.py",
                        "choose another --output, or delete the file")
    return meta


def resume_conflicts(previous: dict, settings: PredictSettings, inputs_sha256: str) -> list[str]:
    """What differs between the run that started the file and this one; any difference is refused,
    so that one output file holds answers to one set of inputs under one set of parameters."""
    current = {"model": settings.model, "endpoint_kind": settings.endpoint_kind, "params": settings.params}
    conflicts = [f"{key}: {json.dumps(previous.get(key), ensure_ascii=False)} before, "
                 f"{json.dumps(current[key], ensure_ascii=False)} now"
                 for key in RESUME_KEYS if previous.get(key) != current[key]]
    if (previous.get("inputs") or {}).get("sha256") != inputs_sha256:
        conflicts.append("inputs: the inputs file changed since the output was started")
    return conflicts


def build_meta(settings: PredictSettings, *, inputs_path: Path, inputs_sha256: str, n_inputs: int,
               records: list[dict], runs: list[dict], engine: dict | None, started_at: str) -> dict:
    """The provenance of a predictions file: what was asked, of whom, and what came back."""
    counts, usage, models = count_records(records)
    counts = {"inputs": n_inputs, **counts}
    reported = max(models, key=models.get) if models else None
    split = sum(bool((record.get("response") or {}).get("reasoning_split_by_gateway")) for record in records)
    return {
        "tool": "predict.py",
        "format": META_FORMAT,
        "harness_version": __version__,
        "model": settings.model,
        "model_reported": reported,
        "models_reported": models,
        "endpoint_kind": settings.endpoint_kind,
        "host": public_host(settings.api_base),
        "params": settings.params,
        "engine": engine,
        "started_at": started_at,
        "finished_at": runs[-1].get("finished_at") if runs else None,
        "complete": counts["written"] == n_inputs,
        "counts": counts,
        "usage": usage,
        "inputs": {"path": str(inputs_path), "sha256": inputs_sha256, "rows": n_inputs},
        "runs": runs,
        "gateway": gateway_of(engine, split),
        "warnings": provenance_warnings(settings.model, reported, engine, split),
    }


def kept_from(previous: dict | None) -> dict:
    """What a rerun keeps of the meta it resumes: the `batch` block of a file that
    `predict.py --from-batch-output` started (SPEC §18), whose errors this run may now fill."""
    return {"batch": previous["batch"]} if previous and "batch" in previous else {}


def gateway_of(engine: dict | None, split: int) -> dict | None:
    """What a gateway in front of the engine says of itself and of what it changed: LiteLLM's
    version, the upstream model and server it routed to, and how many answers came back with the
    reasoning split off the content (LiteLLM strips `<think>` blocks from chat content)."""
    engine = engine or {}
    if f"header.{GATEWAY_HEADER}" not in engine:
        return None
    return {"kind": "litellm", "version": engine.get(f"header.{GATEWAY_HEADER}"),
            "upstream_model": engine.get("header.x-litellm-model-name"),
            "upstream_server": engine.get("header.llm_provider-server"),
            "answer_channel_altered": split > 0, "answers_with_reasoning_split_off": split}


def provenance_warnings(model: str, reported: str | None, engine: dict | None, split: int) -> list[str]:
    """What the provenance itself says may be wrong: a model name the server does not serve (it
    answered anyway), or a gateway that altered the answer text."""
    warnings = []
    served = (engine or {}).get("id")
    listed = (engine or {}).get("listed_models")
    if isinstance(served, str) and served != model:
        warnings.append(f"--model {model!r} is not the model the server lists ({served!r}); it answered anyway: "
                        "check the name")
    elif isinstance(listed, list) and model not in listed:
        warnings.append(f"--model {model!r} is not among the models the server lists ({', '.join(listed[:5])}); "
                        "check the name")
    if split:
        warnings.append(f"the gateway returned {split} answer(s) with the reasoning split off the content (LiteLLM "
                        "strips <think>...</think>): these predictions can differ from the model's direct output")
    return warnings


def rejection_error(error, settings: PredictSettings, case_id: str) -> HarnessError:
    """A request the server refused (eval.providers.health.ProviderRejected) as one line with a hint of
    what to change; 400/401/403/404 exit 2, any other 4xx exits 3 (its own exit status)."""
    text = f"{error.provider_message} {error.param}"
    if error.status == 400 and CONTEXT_WINDOW.search(text):
        hint = "the prompt and --max-tokens exceed the model's context window: lower --max-tokens or serve a longer context"
    else:
        hint = {400: "the server does not accept this request: check --model, --endpoint, the parameters, "
                     "--extra-body and MODEL_API_KEY (some gateways answer a bad key with 400)",
                401: "check MODEL_API_KEY", 403: "check MODEL_API_KEY and that it may use this model",
                404: "check MODEL_API_BASE (usually ends in /v1) and --model"}.get(
            error.status, "the server refused this request")
        if getattr(error, "validation", False):
            hint = ("the server is up and refuses a field of the request in the words above: check --extra-body "
                    "and the parameters")
    rejected = HarnessError(f"the model server {error.host} answered HTTP {error.status} for case {case_id}: "
                            f"{error.provider_message}", hint=hint + "; answers received so far are saved")
    rejected.exit_status = error.exit_status
    return rejected


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------

@dataclass
class RunState:
    written: int = 0
    engine_headers: dict = field(default_factory=dict)
    first_error: BaseException | None = None
    quoted_key: bool = False  # an answer held the key (or a piece of it): said once


def _engine_from_models(payload: object, model: str) -> dict | None:
    """The /models entry of the model asked for (or the only one), trimmed to what names the engine."""
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
        return None
    entries = [entry for entry in payload["data"] if isinstance(entry, dict)]
    chosen = next((entry for entry in entries if entry.get("id") == model), None)
    if chosen is None and len(entries) == 1:
        chosen = entries[0]
    if chosen is None:
        return {"listed_models": [str(entry.get("id")) for entry in entries][:20]}
    return {key: chosen[key] for key in MODEL_ENTRY_FIELDS if key in chosen
            and isinstance(chosen[key], (str, int, float)) and not isinstance(chosen[key], bool)}


async def _probe_models(client, settings: PredictSettings, headers: dict) -> dict | None:
    """GET {base}/models once: the engine often names itself there. Never fatal."""
    import httpx

    from eval.providers.health import ACCEPT_ENCODING, read_capped

    limit = min(settings.timeout, 10.0)
    try:
        async with asyncio.timeout(limit), client.stream(
                "GET", models_url(settings.api_base), headers={**headers, "Accept-Encoding": ACCEPT_ENCODING},
                timeout=limit) as response:
            if response.status_code != 200:
                return None
            raw, too_large = await read_capped(response, MAX_REPLY_BYTES)  # bounded whatever its encoding
        return None if too_large else _engine_from_models(json.loads(raw), settings.model)
    except (httpx.HTTPError, ValueError, TimeoutError):
        return None


class _Stopped(Exception):
    """The run is stopping: a request that has not started yet is not sent."""


async def _ask_all(settings: PredictSettings, pending: list[InputRow], writer: AnswerWriter, state: RunState,
                   stop_requested: asyncio.Event, notify: Callable[[str], None], progress: bool) -> dict | None:
    """Ask for every pending row, `concurrency` at a time; returns the /models engine entry.

    The first fatal error (a rejected request, the provider down past the deadline, a body that is
    not a response) or `stop_requested` (a signal) stops every other request; the error is left in
    `state.first_error`. Answers written so far stay.
    """
    import httpx
    from tqdm import tqdm

    from eval.providers.health import ProviderFailing, ProviderHealth, ProviderRejected, send
    from eval.providers.redaction import REDACTED, redact

    secrets = (settings.api_key,)
    headers = auth_headers(settings.api_key)
    url = endpoint_url(settings.api_base, settings.endpoint_kind)
    host = public_host(settings.api_base)
    health = ProviderHealth(host, max_concurrency=settings.concurrency, deadline_s=settings.deadline_s,
                            notify=notify, setting="MODEL_API_BASE", timeout_flag="--timeout",
                            deadline_flag="--deadline", down_hint=f"check that the model server at {host} is up "
                                                                  "(MODEL_API_BASE); ",
                            resume_hint="the answers received so far are saved: rerun the same command to resume")
    rows = iter(pending)
    bar = tqdm(total=len(pending), desc="predict", unit="req", disable=not progress, dynamic_ncols=True)

    async def worker(pool) -> None:
        async with pool.slot() as client:
            await ask_rows(client)

    async def ask_rows(client) -> None:
        for row in rows:
            body = request_body(settings, row.messages)
            try:
                reply = await send(client, health, url, body, headers, timeout=settings.timeout, secrets=secrets,
                                   max_reply_bytes=MAX_REPLY_BYTES)
            except _Stopped:
                return
            except ProviderRejected as error:
                raise rejection_error(error, settings, row.case_id) from None
            except ProviderFailing as error:
                raise PredictError(f"case {row.case_id}: {error}",
                                   hint="the server answers other requests but not this one; the answers received "
                                        "so far are saved: rerun to resume") from None
            if not state.engine_headers:
                state.engine_headers = engine_headers(reply.headers)
            try:
                answer = extract_answer(settings.endpoint_kind, reply.payload)
            except ValueError as error:
                raise PredictError(redact(f"the model server's answer for case {row.case_id} is not a "
                                          f"{settings.endpoint_kind} response: {error}", secrets, 500),
                                   hint="check MODEL_API_BASE (an OpenAI-compatible API) and --endpoint; the "
                                        "answers received so far are saved: rerun to resume") from None
            record = answer_record(answer, row.case_id, secrets)
            if not state.quoted_key and REDACTED in record["prediction"] and REDACTED not in answer.text:
                state.quoted_key = True
                notify(f"case {row.case_id}: the answer quotes the API key (or an 8-character piece of it), written "
                       "and scored with [redacted] in its place (a key that is an ordinary word, a local server's "
                       "placeholder, makes this frequent: change MODEL_API_KEY)")
            if answer.reasoning_chars is not None and GATEWAY_HEADER in reply.headers:
                record["response"]["reasoning_split_by_gateway"] = True  # LiteLLM moves <think> out of the content
            writer.write(record)
            state.written += 1
            bar.update(1)

    size = min(settings.concurrency, max(len(pending), 1))
    async with client_pool(size, settings.timeout) as pool, httpx.AsyncClient(verify=pool.ssl_context) as probe_client:
        probe = asyncio.ensure_future(_probe_models(probe_client, settings, headers))  # beside the work, never before it
        tasks = [asyncio.ensure_future(worker(pool)) for _ in range(size)]
        stop_waiter = asyncio.ensure_future(stop_requested.wait())
        try:
            while True:
                running = [task for task in tasks if not task.done()]
                failed = [task for task in tasks if task.done() and task.exception() is not None]
                if failed:
                    state.first_error = failed[0].exception()
                if failed or not running or stop_requested.is_set():
                    break
                await asyncio.wait(running + [stop_waiter], return_when=asyncio.FIRST_COMPLETED)
        finally:  # an error, a signal, or the end: no request starts any more, those in flight are dropped
            health.stop(_Stopped())
            stop_waiter.cancel()
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks, timeout=STOP_GRACE_S)
            for task in tasks:  # every outcome is read, so none is reported as "never retrieved"
                if task.done() and not task.cancelled():
                    task.exception()
            if not probe.done():
                probe.cancel()
            await asyncio.wait([probe], timeout=1.0)
            bar.close()
    return probe.result() if probe.done() and not probe.cancelled() else None


def _run_with_signals(run: Callable[[asyncio.Event], object]) -> tuple[object, int | None]:
    """Run the asking loop; SIGINT, SIGTERM and SIGHUP ask it to stop at once (the lines already
    written are whole). Returns (result, the signal that stopped it, or None)."""
    stopped: list[int] = []

    async def main():
        stop_requested = asyncio.Event()
        loop = asyncio.get_running_loop()
        installed = []
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            try:
                loop.add_signal_handler(signum, lambda s=signum: (stopped.append(s), stop_requested.set()))
                installed.append(signum)
            except (ValueError, RuntimeError, NotImplementedError):  # not the main thread
                pass
        try:
            return await run(stop_requested)
        finally:
            for signum in installed:
                loop.remove_signal_handler(signum)

    result = asyncio.run(main())
    return result, (stopped[0] if stopped else None)


@dataclass(frozen=True)
class PredictResult:
    output: Path
    meta_path: Path
    meta: dict
    asked: int       # requests answered in this run
    skipped: int     # case_ids already in the file


def run_predict(settings: PredictSettings, inputs_path: Path, output_path: Path, *, progress: bool = True,
                notify: Callable[[str], None] | None = None) -> PredictResult:
    """Fill `output_path` with one answer per input row (SPEC §13), resuming what is there.

    Order: check the inputs, take the lock, read what an earlier run wrote (dropping a torn last
    line), refuse a resume under other parameters or inputs, ask for the rest, appending each
    answer; then rewrite the file in input order and write the meta, both atomically. Raises
    Interrupted after a signal (meta updated, file still valid) and HarnessError on a fault.
    """
    from eval.io.locking import hold_lock

    notify = notify or (lambda message: print(message, file=sys.stderr, flush=True))
    inputs_path, output_path = Path(inputs_path), Path(output_path)
    if inputs_path.resolve() == output_path.resolve():
        raise ConfigError("--output is the --inputs file", "write the predictions to another file")
    meta_path = meta_path_for(output_path)
    inputs = read_inputs(inputs_path)
    inputs_sha256 = file_sha256(inputs_path)
    input_ids = {row.case_id for row in inputs}
    output_path.parent.mkdir(parents=True, exist_ok=True)
    with hold_lock(output_path, "output file", is_dir=False, secrets=(settings.api_key,)):
        previous = read_meta(meta_path) if output_path.exists() else None  # no output: a fresh start
        if output_path.exists() and output_path.stat().st_size and previous is None:
            raise ConfigError(f"{output_path} exists but has no {meta_path.name} beside it, so it was not "
                              "started by predict.py", "choose another --output, or delete the file")
        if previous is not None:
            conflicts = resume_conflicts(previous, settings, inputs_sha256)
            if conflicts:
                raise ConfigError(f"{output_path} was started with other settings; " + "; ".join(conflicts),
                                  "rerun with the settings recorded in " + meta_path.name +
                                  ", or choose another --output")
        written = read_written(output_path, input_ids, notify)
        pending = [row for row in inputs if row.case_id not in written]
        runs = list(previous.get("runs", [])) if previous else []
        started_at = previous.get("started_at") if previous else None
        run_entry = {"started_at": now_iso(), "host": public_host(settings.api_base),
                     "skipped": len(written), "asked": 0, "finished_at": None, "stopped_by": None}
        runs.append(run_entry)
        engine = previous.get("engine") if previous else None
        state = RunState()
        if pending:
            if written:
                notify(f"resuming: {len(written)} of {len(inputs)} answers already in {output_path}; "
                       f"asking for {len(pending)}")
            # the meta first: a run killed before its end (even by SIGKILL) leaves a file a rerun resumes
            write_atomic(meta_path, json.dumps(build_meta(
                settings, inputs_path=inputs_path, inputs_sha256=inputs_sha256, n_inputs=len(inputs),
                records=list(written.values()), runs=runs, engine=engine,
                started_at=started_at or run_entry["started_at"]) | kept_from(previous), ensure_ascii=False,
                indent=2) + "\n")
            writer = AnswerWriter(output_path)
            try:
                found, signum = _run_with_signals(
                    lambda stop: _ask_all(settings, pending, writer, state, stop, notify, progress))
            finally:
                writer.close()
            if found:
                engine = found
        else:
            found, signum = None, None
        engine = provider_text({**(engine or {}), **(found or {}),
                                **{f"header.{name}": value for name, value in state.engine_headers.items()}},
                               (settings.api_key,)) or None
        records = list(read_written(output_path, input_ids, notify).values())
        order = {row.case_id: index for index, row in enumerate(inputs)}
        records.sort(key=lambda record: order[record["case_id"]])
        run_entry.update(asked=state.written, finished_at=now_iso(),
                         stopped_by=signal.Signals(signum).name if signum else
                         (type(state.first_error).__name__ if state.first_error else None))
        meta = build_meta(settings, inputs_path=inputs_path, inputs_sha256=inputs_sha256, n_inputs=len(inputs),
                          records=records, runs=runs, engine=engine, started_at=started_at or run_entry["started_at"]) | kept_from(previous)
        if meta["complete"]:  # the final pass: one atomic rewrite in input order
            write_atomic(output_path, jsonl_lines(records))
        write_atomic(meta_path, json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
    for warning in meta["warnings"]:
        notify(f"warning: {warning}")
    if signum is not None:
        raise Interrupted(signum, len(records), len(inputs))
    if isinstance(state.first_error, HarnessError):
        raise state.first_error
    if state.first_error is not None:  # a fault nobody typed: one clear line, never a traceback or the key
        from eval.providers.redaction import redact

        error = state.first_error
        raise PredictError(redact(f"unexpected error while asking the model: {type(error).__name__}: {error}",
                                  (settings.api_key,)), hint="answers received so far are saved; rerun to resume")
    return PredictResult(output_path, meta_path, meta, asked=state.written, skipped=len(written))


def summary_line(result: PredictResult) -> str:
    """The one line printed at the end of a run."""
    counts, usage = result.meta["counts"], result.meta["usage"]
    return (f"wrote {counts['written']} predictions to {result.output} ({result.asked} asked now, "
            f"{result.skipped} from before): {counts['answered']} answered, {counts['truncated']} truncated, "
            f"{counts['empty']} empty ({counts['refused']} refused), {counts['reasoning_returned']} with "
            f"separate reasoning; tokens in {usage['input_tokens']}, out {usage['output_tokens']}; "
            f"provenance in {result.meta_path}")
