"""The LLM Judge client (SPEC §10): OpenAI-compatible requests, strict verdicts, cache, retries.

One generic coroutine, `ask_judge`, turns a prompt string and a verdict validator into a
validated verdict: it serves the cache first, sends identical in-flight requests once, retries
transient failures with backoff, and commits every valid reply at once. A benchmark hands
`run_judge_prompts` its prompts with their validators (eval/insttrans.py, eval/sandglass/).

The API key lives only in the `JudgeSettings` object (hidden from its repr) and in the request
header; every message that leaves this module passes through `_scrub`.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import random
import re
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from eval.errors import ConfigError, HarnessError, JudgeError
from eval.judge_cache import cache_key, open_cache, read_reply, write_reply

if TYPE_CHECKING:  # annotations only; the modules are imported where they are used
    import httpx
    from tqdm import tqdm

DEFAULT_CONCURRENCY = 16
DEFAULT_MAX_RETRIES = 6
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_BACKOFF_S = 1.0
MAX_BACKOFF_S = 60.0
MAX_RETRY_AFTER_S = 600.0
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
RESPONSES_PREFIXES = ("gpt-5", "gpt-6", "o1", "o3", "o4")
RESPONSES = "responses"
CHAT = "chat_completions"
RETRY_STATUSES = frozenset({408, 409, 429})
CONFIG_STATUSES = frozenset({400, 401, 403, 404})
ALLOWED_SCORES = (0, 0.5, 1)


@dataclass(frozen=True)
class JudgeSettings:
    """Everything that decides how the Judge is asked; the key is kept out of repr."""

    model: str
    api_base: str
    api_key: str = field(repr=False)
    concurrency: int = DEFAULT_CONCURRENCY
    reasoning_effort: str = "none"
    max_retries: int = DEFAULT_MAX_RETRIES
    timeout: float = DEFAULT_TIMEOUT_S
    backoff: float = DEFAULT_BACKOFF_S
    backoff_max: float = MAX_BACKOFF_S


# ---------------------------------------------------------------------------------------------
# Request shape (SPEC §10)
# ---------------------------------------------------------------------------------------------

def uses_responses_endpoint(model: str) -> bool:
    """True when the last `/` segment of the name starts with a reasoning-model prefix (§10).

    Gateway names such as `openai/gpt-5.6-sol` route like `gpt-5.6-sol`; case is ignored.
    """
    return model.rsplit("/", 1)[-1].lower().startswith(RESPONSES_PREFIXES)


def endpoint_kind(model: str) -> str:
    return RESPONSES if uses_responses_endpoint(model) else CHAT


def request_params(settings: JudgeSettings) -> dict:
    """The request parameters besides the model and the prompt (recorded in the summary)."""
    if uses_responses_endpoint(settings.model):
        return {"max_output_tokens": 4096, "reasoning": {"effort": settings.reasoning_effort},
                "store": False}
    return {"temperature": 0, "max_tokens": 2048}


def endpoint_url(settings: JudgeSettings) -> str:
    """`{base}/responses` or `{base}/chat/completions`, keeping any query string of the base."""
    import httpx  # heavy: only the Judge path needs it
    base = httpx.URL(settings.api_base)
    suffix = "/responses" if uses_responses_endpoint(settings.model) else "/chat/completions"
    return str(base.copy_with(path=base.path.rstrip("/") + suffix))


def request_body(settings: JudgeSettings, prompt: str) -> bytes:
    """The exact bytes sent, serialised canonically so that the cache key is stable."""
    if uses_responses_endpoint(settings.model):
        body = {"model": settings.model, "input": prompt, **request_params(settings)}
    else:
        body = {"model": settings.model, "messages": [{"role": "user", "content": prompt}],
                **request_params(settings)}
    return json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def public_host(api_base: str) -> str:
    """Scheme, host and port of the base URL: no credentials, no path, no query."""
    import httpx  # heavy: only the Judge path needs it
    url = httpx.URL(api_base)
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme}://{url.host}{port}"


# ---------------------------------------------------------------------------------------------
# Verdicts (SPEC §10)
# ---------------------------------------------------------------------------------------------

class VerdictError(ValueError):
    """A reply that is not a valid verdict; the message says why."""


class ProviderFailure(ValueError):
    """The provider reported a failure inside a 200 reply: transient, retried like a 5xx."""


class IncompleteReply(ValueError):
    """The provider stopped before the answer was complete (length limit, `incomplete`)."""


_FENCE = re.compile(r"\A```[A-Za-z]*\s*(.*?)\s*```\Z", re.S)


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    keys = [key for key, _ in pairs]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise VerdictError(f"duplicate key(s) {duplicates}")
    return dict(pairs)


def _no_constant(name: str) -> float:
    raise VerdictError(f"{name} is not a score")


def parse_verdict_object(text: str) -> dict:
    """One JSON object, optionally inside one surrounding ``` fence; nothing else."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1)
    try:
        value = json.loads(stripped, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise VerdictError(f"not one JSON object ({error.msg})") from None
    except RecursionError:
        raise VerdictError("not one JSON object (nested too deeply)") from None
    if not isinstance(value, dict):
        raise VerdictError(f"a JSON {type(value).__name__}, not an object")
    return value


def score_value(value: object, name: str) -> float:
    """A JSON number equal to 0, 0.5 or 1; a boolean or a string is not a score."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value not in ALLOWED_SCORES:
        raise VerdictError(f"{name} = {json.dumps(value)} is not one of the numbers 0, 0.5, 1")
    return float(value) + 0.0  # -0.0 becomes 0.0


def _exact_keys(obj: dict, expected: tuple[str, ...], where: str) -> None:
    missing = [key for key in expected if key not in obj]
    extra = [key for key in obj if key not in expected]
    if missing or extra:
        parts = ([f"missing {missing}"] if missing else []) + ([f"unexpected {extra}"] if extra else [])
        raise VerdictError(f"{where}: " + ", ".join(parts))


def validate_quality(text: str) -> dict:
    """`{"quality": S}` and nothing else."""
    obj = parse_verdict_object(text)
    _exact_keys(obj, ("quality",), "verdict keys")
    return {"quality": score_value(obj["quality"], "quality")}


def soft_validator(ids: tuple[str, ...] | list[str]) -> Callable[[str], dict]:
    """A validator for `{"scores": {id: S, ...}}` with exactly `ids`."""
    expected = tuple(dict.fromkeys(ids))

    def validate_soft(text: str) -> dict:
        obj = parse_verdict_object(text)
        _exact_keys(obj, ("scores",), "verdict keys")
        scores = obj["scores"]
        if not isinstance(scores, dict):
            raise VerdictError('"scores" is not an object')
        _exact_keys(scores, expected, "soft constraint ids")
        return {"scores": {cid: score_value(scores[cid], cid) for cid in expected}}

    return validate_soft


def reply_text(kind: str, payload: object) -> str:
    """The answer text of a response body (Responses: `output_text` parts; Chat: the content)."""
    if not isinstance(payload, dict):
        raise VerdictError("the response body is not a JSON object")
    if payload.get("error"):  # some gateways report failures inside a 200
        error = payload["error"]
        raise ProviderFailure(f"the provider reported an error: {str(error.get('message', error) if isinstance(error, dict) else error)[:300]}")
    if kind == RESPONSES:
        status = payload.get("status")
        if status == "incomplete":
            details = payload.get("incomplete_details")
            reason = details.get("reason", "unknown") if isinstance(details, dict) else details or "unknown"
            raise IncompleteReply(f'status "incomplete" ({reason})')
        if status == "failed":
            raise ProviderFailure('response status "failed"')
        if status not in (None, "completed"):
            raise VerdictError(f"response status {json.dumps(status)}")
        texts = []
        for item in payload.get("output") or []:
            if not isinstance(item, dict) or item.get("type") != "message":
                continue
            for part in item.get("content") or []:
                if isinstance(part, dict) and part.get("type") == "refusal":
                    raise VerdictError(f"the Judge refused: {str(part.get('refusal'))[:200]}")
                if isinstance(part, dict) and part.get("type") == "output_text":
                    texts.append(str(part.get("text", "")))
        if not texts:
            raise VerdictError("no output_text in the response")
        return "".join(texts)
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise VerdictError("no choices in the response")
    choice = choices[0]
    if choice.get("finish_reason") == "length":
        raise IncompleteReply('finish_reason "length"')
    message = choice.get("message")
    if not isinstance(message, dict):
        raise VerdictError("no message in the first choice of the response")
    if message.get("refusal"):
        raise VerdictError(f"the Judge refused: {str(message['refusal'])[:200]}")
    if choice.get("finish_reason") == "content_filter":
        raise VerdictError('finish_reason "content_filter"')
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    if not isinstance(content, str):
        raise VerdictError("no message content in the response")
    return content


# ---------------------------------------------------------------------------------------------
# The generic asker: cache, in-flight sharing, retries
# ---------------------------------------------------------------------------------------------

@dataclass
class JudgeStats:
    calls: int = 0  # HTTP requests sent, retries included
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0  # attempts that failed transiently
    deduplicated: int = 0  # identical requests answered by another in-flight request


@dataclass
class JudgeSession:
    """One run's shared state. `clients` holds one single-connection client per concurrency
    slot: taking one bounds the requests in flight, and keeps httpcore's pool bookkeeping (which
    grows with the square of a pool's size) out of the hot path."""

    settings: JudgeSettings
    clients: asyncio.Queue
    cache: sqlite3.Connection
    stats: JudgeStats
    url: str
    kind: str
    abort: asyncio.Event
    bar: tqdm | None = None
    inflight: dict[str, asyncio.Task] = field(default_factory=dict)
    first_error: BaseException | None = None


@dataclass(frozen=True)
class JudgeRequest:
    """One prompt to ask: `name` says which prompt it is (for messages and results)."""

    case_id: str
    name: str
    prompt: str
    validate: Callable[[str], dict]


class _Aborted(Exception):
    """Another request already aborted the run; this one stops without asking."""


def _scrub(text: str, settings: JudgeSettings) -> str:
    """Remove the API key from any text that may leave the module."""
    if settings.api_key and len(settings.api_key) >= 4:
        text = text.replace(settings.api_key, "[redacted]")
    return text


def retry_after_seconds(headers: httpx.Headers) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (seconds or an HTTP date), capped."""
    try:
        if "retry-after-ms" in headers:
            return min(max(float(headers["retry-after-ms"]) / 1000, 0.0), MAX_RETRY_AFTER_S)
        if "retry-after" in headers:
            value = headers["retry-after"].strip()
            try:
                seconds = float(value)
            except ValueError:
                seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
            return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)
    except (TypeError, ValueError, OverflowError):
        return None
    return None


def provider_message(response: httpx.Response) -> tuple[str, str]:
    """The provider's error message and its `param` (when the body says), shortened."""
    try:
        payload = response.json()
    except ValueError:
        return response.text.strip()[:500] or response.reason_phrase, ""
    error = payload.get("error", payload) if isinstance(payload, dict) else payload
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or json.dumps(error, ensure_ascii=False)
        return str(message)[:500], str(error.get("param") or "")
    return str(error)[:500], ""


def _config_error(session: JudgeSession, status: int, message: str, param: str, where: str) -> HarnessError:
    settings = session.settings
    if status == 400 and re.search(r"context.length|maximum context|too many tokens|too long", f"{message} {param}", re.I):
        return JudgeError(f"the Judge model {settings.model} cannot read the prompt of {where}: it is longer "
                          f"than its context window (HTTP 400: {message})",
                          hint="use a Judge model with a longer context; the verdicts received so far are cached")
    mentions_effort = any(word in f"{message} {param}".lower() for word in ("reasoning", "effort"))
    if status == 400 and session.kind == RESPONSES and mentions_effort:
        return ConfigError(
            f"the Judge model {settings.model} rejected reasoning effort "
            f"{settings.reasoning_effort!r} (HTTP 400: {message})",
            hint="choose an effort this model supports with --judge-reasoning-effort "
                 "(models older than gpt-5.1 do not accept 'none'; try 'low' or 'minimal')")
    hints = {
        400: "the endpoint does not accept this request; check --judge-model and that "
             "JUDGE_API_BASE is OpenAI-compatible",
        401: "check JUDGE_API_KEY",
        403: "check JUDGE_API_KEY and that it may use this model",
        404: "check JUDGE_API_BASE (usually ends in /v1) and --judge-model",
    }
    return ConfigError(f"the Judge endpoint {public_host(settings.api_base)} answered HTTP {status}: "
                       f"{message} (asked for {where})", hint=hints[status])


async def _wait_or_abort(session: JudgeSession, delay: float) -> None:
    try:
        await asyncio.wait_for(session.abort.wait(), timeout=delay)
    except asyncio.TimeoutError:
        return
    raise _Aborted()


@contextlib.asynccontextmanager
async def _client_slot(session: JudgeSession):
    """Wait for a free client (a concurrency slot) and give it back afterwards."""
    client = await session.clients.get()
    try:
        yield client
    finally:
        session.clients.put_nowait(client)


def _abort(session: JudgeSession, error: HarnessError) -> HarnessError:
    """Record the first fatal error and stop every other request from starting or retrying."""
    if session.first_error is None:
        session.first_error = error
    session.abort.set()
    return error


async def _fetch(session: JudgeSession, body: bytes, case_id: str, name: str) -> str:
    """POST one request until it yields reply text; the abort is raised before anyone else sends."""
    try:
        return await _fetch_with_retries(session, body, case_id, name)
    except HarnessError as error:
        raise _abort(session, error)


async def _fetch_with_retries(session: JudgeSession, body: bytes, case_id: str, name: str) -> str:
    """POST one request until it yields reply text; retry what is transient (SPEC §10)."""
    import httpx  # heavy: only the Judge path needs it
    settings, stats = session.settings, session.stats
    where = f"case {case_id} ({name} prompt)"
    attempt = 0
    while True:
        if session.abort.is_set():
            raise _Aborted()
        async with _client_slot(session) as client:
            if session.abort.is_set():
                raise _Aborted()
            stats.calls += 1
            retry_after = None
            try:
                response = await client.post(session.url, content=body)
            except (httpx.TransportError, httpx.DecodingError) as error:
                problem = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            else:
                status = response.status_code
                if 200 <= status < 300:
                    try:
                        payload = response.json()
                    except ValueError:
                        raise JudgeError(f"the Judge endpoint sent a body that is not JSON for {where} "
                                         f"(HTTP {status}, {response.headers.get('content-type', 'no content type')})",
                                         hint="check that JUDGE_API_BASE points at an OpenAI-compatible API") from None
                    try:
                        return reply_text(session.kind, payload)
                    except ProviderFailure as error:
                        problem = _scrub(f"HTTP {status} carrying a failure: {error}", settings)
                    except ValueError as error:
                        label = "incomplete response" if isinstance(error, IncompleteReply) else "invalid Judge verdict"
                        raise JudgeError(_scrub(f"{label} for {where}: {error}", settings),
                                         hint="the verdicts received so far are cached; rerun to resume") from None
                else:
                    message, param = provider_message(response)
                    message = _scrub(message, settings)
                    if status in CONFIG_STATUSES:
                        raise _config_error(session, status, message, param, where)
                    if status not in RETRY_STATUSES and status < 500:
                        raise JudgeError(f"the Judge endpoint answered HTTP {status} for {where}: {message}")
                    problem = f"HTTP {status}: {message}"
                    retry_after = retry_after_seconds(response.headers)
        stats.failures += 1
        _refresh_bar(session)
        if attempt >= settings.max_retries:
            raise JudgeError(
                _scrub(f"the Judge endpoint kept failing for {where}: {problem} "
                       f"(after {attempt + 1} attempts)", settings),
                hint="the verdicts received so far are cached; rerun to resume, or raise "
                     "--judge-max-retries")
        delay = retry_after if retry_after is not None else (
            min(settings.backoff_max, settings.backoff * 2 ** attempt) * random.uniform(0.5, 1.0))
        attempt += 1
        stats.retries += 1
        await _wait_or_abort(session, delay)


def _refresh_bar(session: JudgeSession, done: int = 0) -> None:
    if session.bar is None:
        return
    stats = session.stats
    session.bar.set_postfix(calls=stats.calls, cached=stats.cache_hits, failed=stats.failures,
                            refresh=False)
    if done:
        session.bar.update(done)


async def ask_judge(session: JudgeSession, request: JudgeRequest) -> dict:
    """The validated verdict for one prompt: from the cache, a shared in-flight request, or HTTP."""
    body = request_body(session.settings, request.prompt)
    key = cache_key(session.url, body)
    task = session.inflight.get(key)
    owner = task is None
    if owner:
        cached = read_reply(session.cache, key)
        if cached is not None:
            try:
                verdict = request.validate(cached)
            except VerdictError:
                pass  # written under another validator; ask again and overwrite
            else:
                session.stats.cache_hits += 1
                return verdict
        task = asyncio.ensure_future(_fetch(session, body, request.case_id, request.name))
        session.inflight[key] = task
    else:
        session.stats.deduplicated += 1
    text = await asyncio.shield(task)
    try:
        verdict = request.validate(text)
    except VerdictError as error:
        raise _abort(session, JudgeError(
            _scrub(f"invalid Judge verdict for case {request.case_id} ({request.name} prompt): "
                   f"{error}; reply: {text[:300]!r}", session.settings),
            hint="the verdicts received so far are cached; rerun to resume")) from None
    if owner:
        write_reply(session.cache, key, session.settings.model, session.kind, body, text)
    return verdict


async def _ask_all(requests: list[JudgeRequest], settings: JudgeSettings, cache: sqlite3.Connection,
                   stats: JudgeStats, progress: bool) -> dict[tuple[str, str], dict]:
    import httpx  # heavy: only the Judge path needs it
    from tqdm import tqdm
    headers = {"Authorization": f"Bearer {settings.api_key}", "Content-Type": "application/json"}
    ssl_context = httpx.create_ssl_context()  # built once, shared by every client
    bar = tqdm(total=len(requests), desc="Judge", unit="req", disable=not progress, dynamic_ncols=True)
    async with contextlib.AsyncExitStack() as stack:
        clients: asyncio.Queue = asyncio.Queue()
        for _ in range(settings.concurrency):
            clients.put_nowait(await stack.enter_async_context(httpx.AsyncClient(
                headers=headers, verify=ssl_context, timeout=httpx.Timeout(settings.timeout),
                limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))))
        session = JudgeSession(settings=settings, clients=clients, cache=cache, stats=stats,
                               url=endpoint_url(settings), kind=endpoint_kind(settings.model),
                               abort=asyncio.Event(), bar=None if not progress else bar)
        verdicts: dict[tuple[str, str], dict] = {}

        async def one(request: JudgeRequest) -> None:
            try:
                verdicts[(request.case_id, request.name)] = await ask_judge(session, request)
            except _Aborted:
                return
            except HarnessError as error:
                _abort(session, error)
                return
            except Exception as error:  # a malformed reply or a cache failure: one clear abort, no traceback
                _abort(session, JudgeError(_scrub(f"unexpected error for case {request.case_id} ({request.name} "
                                                  f"prompt): {type(error).__name__}: {error}", settings)))
                return
            _refresh_bar(session, done=1)

        try:
            await asyncio.gather(*(one(request) for request in requests))
        finally:  # on Ctrl-C, stop the shielded requests before their clients close
            pending = [task for task in session.inflight.values() if not task.done()]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            bar.close()
        if session.first_error is not None:
            raise session.first_error
        return verdicts


def judge_block(settings: JudgeSettings, stats: JudgeStats, prompt_versions: dict[str, str]) -> dict:
    """The summary's `judge` block (SPEC §11): what decides a verdict, and what the run cost."""
    return {
        "model": settings.model,
        "endpoint_kind": endpoint_kind(settings.model),
        "host": public_host(settings.api_base),
        "params": request_params(settings),
        "prompt_versions": dict(prompt_versions),
        "calls": stats.calls,
        "cache_hits": stats.cache_hits,
        "retries": stats.retries,
        "deduplicated": stats.deduplicated,
    }


def run_judge_prompts(requests: list[JudgeRequest], settings: JudgeSettings, cache_path: Path,
                      prompt_versions: dict[str, str], progress: bool = True,
                      ) -> tuple[dict[tuple[str, str], dict], dict]:
    """Ask every request; returns verdicts by (case_id, name) and the `judge` block.

    Raises JudgeError or ConfigError on abort; replies received before it stay in the cache.
    """
    stats = JudgeStats()
    cache = open_cache(Path(cache_path))
    try:
        verdicts = asyncio.run(_ask_all(requests, settings, cache, stats, progress))
    finally:
        cache.close()
    return verdicts, judge_block(settings, stats, prompt_versions)
