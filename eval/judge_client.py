"""The LLM Judge client (SPEC §10): OpenAI-compatible requests, strict verdicts, cache, retries.

One generic coroutine, `ask_judge`, turns a prompt string and a verdict validator into a
validated verdict: it serves the cache first, sends identical in-flight requests once, sends the
rest through the run's provider health (eval/providers/health.py: breaker, deadline, shared 429 pause,
adaptive concurrency), and commits every valid reply at once. A benchmark hands
`run_judge_prompts` its prompts with their validators (eval/insttrans/, eval/sandglass/); the
verdicts it returns also carry, in `.replies`, each verdict's cache key and the Judge's raw
reply. The cache file is locked for the run (eval/io/locking.py).

The API key lives only in the `JudgeSettings` object (hidden from its repr) and in the request
header; every message that leaves this module is redacted of it (`eval.providers.health.redact`).

The per-request timeout defaults to 60 s: a verdict is a few tokens (`{"quality": 1}`), and even a
reasoning model at effort "none" behind a gateway answers one in seconds; a minute leaves room
for a slow queue, while a hung provider is noticed in a minute rather than in two per attempt.
A gateway that holds over-limit requests longer than the timeout (LiteLLM: up to ~180 s) needs a
larger --judge-timeout: otherwise the held requests time out and, with nothing succeeding for the
deadline, the run aborts with a hint naming --judge-timeout (docs/judge-faults.md).
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from eval.judge import models as judge_models
from eval.providers import openai_api
from eval.config import JudgeSettings
from eval.errors import ConfigError, HarnessError, JudgeError
from eval.judge.cache import cache_key, open_cache, read_reply, read_stored, write_reply
from eval.judge.cost import budget_error, cost_block, reply_cost
from eval.io.locking import hold_lock
from eval.providers.openai_api import (
    CHAT,
    CONTEXT_WINDOW,
    MAX_TOKEN_COUNT,
    RESPONSES,
    client_pool,
    stand_in_of,
    parse_answer,
    public_host,
)
from eval.providers.health import (
    REJECTION_STATUSES,
    ProviderDown,
    ProviderFailing,
    ProviderHealth,
    ProviderRejected,
    ReplyTooLarge,
    send,
)
from eval.providers.redaction import redact, without_secrets

if TYPE_CHECKING:  # annotations only; the module is imported where it is used
    from tqdm import tqdm

# The Judge's settings and their defaults live with the run's other settings (eval/config.py), so
# the command-line edge builds them without importing this client; DEFAULT_TIMEOUT_S: see the
# module docstring for why 60 s.
ABORT_GRACE_S = 10.0  # after an abort, requests in flight may still land their verdicts for this long
QUIET_STATE_EVERY_S = 10.0  # --quiet: a notice this often while the run is held up
QUIET_PROGRESS_EVERY_S = 60.0  # --quiet: a progress line this often otherwise
WATCH_EVERY_S = 1.0  # how often the state line is refreshed (and --quiet's notices considered)
REPAIR_VERSION = "repair-1"  # the repair message's version (signature, summary), SPEC §10
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# ---------------------------------------------------------------------------------------------
# Request shape (SPEC §10)
# ---------------------------------------------------------------------------------------------

def request_params(settings: JudgeSettings) -> dict:
    """The request parameters besides the model and the prompt (recorded in the summary);
    --judge-max-tokens replaces the token limit in place (unset: the bytes of SPEC §10's request)."""
    if settings.endpoint_kind == RESPONSES:
        return {"max_output_tokens": settings.max_tokens or 4096, "reasoning": {"effort": settings.reasoning_effort},
                "store": False}
    params = dict(settings.params) if settings.params is not None else {"temperature": 0, "max_tokens": 2048}
    if settings.max_tokens is not None:
        params["max_tokens"] = settings.max_tokens
    return params


def repeats_on_rerun(settings: JudgeSettings) -> bool:
    """Whether a rerun asks exactly the same at temperature 0: the same reply is then most likely."""
    return request_params(settings).get("temperature") == 0


@dataclass(frozen=True)
class RequestShape:
    """How a prompt becomes a request when it is not SPEC §10's: the endpoint kind (where the reply
    text is read), the body parameters besides the model and the prompt (recorded in the summary),
    and the exact body bytes. A release's prompt set brings its release's (SPEC §15); it has no
    repair turn and no structured form."""

    kind: str
    params: dict
    body: Callable[[str], bytes]


def endpoint_url(settings: JudgeSettings) -> str:
    """`{base}/responses` or `{base}/chat/completions`, keeping any query string of the base."""
    return openai_api.endpoint_url(settings.api_base, settings.endpoint_kind)


def _params(settings: JudgeSettings, schema: dict | None) -> dict:
    """The request parameters, with the verdict's JSON schema when --judge-structured asks for it."""
    params = request_params(settings)
    if schema is not None:
        params.update(openai_api.json_schema_params(settings.endpoint_kind, "verdict", schema,
                                                    structured_form(settings)))
    return params


def structured_form(settings: JudgeSettings) -> str:
    return "json_schema" if settings.structured is True else str(settings.structured or "json_schema")


def recorded_params(settings: JudgeSettings) -> dict:
    """The parameters as the summary and the signature record them: the schema's field by name only
    (its content follows from the prompt kind)."""
    params = request_params(settings)
    if settings.structured:
        chat = settings.endpoint_kind == CHAT
        params["response_format" if chat else "text.format"] = structured_form(settings) if chat else "json_schema"
    return params


def request_body(settings: JudgeSettings, prompt: str, schema: dict | None = None) -> bytes:
    """The exact bytes sent, serialised canonically so that the cache key is stable."""
    return openai_api.request_body(settings.endpoint_kind, settings.model, prompt, _params(settings, schema),
                                   canonical=True)


# ---------------------------------------------------------------------------------------------
# Verdicts (SPEC §10)
# ---------------------------------------------------------------------------------------------

class VerdictError(ValueError):
    """A reply that is not a valid verdict; the message says why."""


class ProviderFailure(ValueError):
    """The provider reported a failure inside a 200 reply: transient, retried like a 5xx."""


class IncompleteReply(ValueError):
    """The provider stopped before the answer was complete (length limit, `incomplete`)."""


# The fence's opening: ``` then a language tag of ASCII letters, then whitespace. Nothing follows
# either repeat in the pattern, so it never backtracks (one pass over what it reads).
_FENCE_OPENING = re.compile(r"[A-Za-z]*\s*")
MAX_INTEGER_DIGITS = 4300  # Python's default int() limit; no score has more digits than that


def fenced_content(text: str) -> str | None:
    """Group 1 of SPEC §10's fence, `\\A```[A-Za-z]*\\s*(.*?)\\s*```\\Z` (DOTALL) matched on `text`,
    found in one pass: None unless the text opens and closes with ``` (six characters at least); the
    content starts after the greedy tag and whitespace (a backtick ends both, so they never run into
    the closing ```) and ends where only whitespace is left before the closing ```. The pattern
    itself is cubic in a run of whitespace with no closing fence (issue 34: 6 KB held a run for
    minutes); tests/test_judge_parsing.py checks the two agree on generated replies."""
    if len(text) < 6 or not (text.startswith("```") and text.endswith("```")):
        return None
    start = _FENCE_OPENING.match(text, 3).end()
    end = len(text[:-3].rstrip())
    return text[start:max(start, end)]


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    value = dict(pairs)
    if len(value) < len(pairs):  # one pass (a reply of 8,000 keys must not compare every pair)
        seen: set[str] = set()
        duplicates = sorted({key for key, _ in pairs if key in seen or seen.add(key)})
        raise VerdictError(f"duplicate key(s) {duplicates}")
    return value


def _no_constant(name: str) -> float:
    raise VerdictError(f"{name} is not a score")


def _integer(digits: str) -> int:
    """A JSON integer; one too long for int() (4,301 digits and more) is no score, and an invalid
    verdict like any other (a ValueError from Python's limit would end the run)."""
    if len(digits.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise VerdictError(f"a number of {len(digits.lstrip('-')):,} digits is not a score")
    try:
        return int(digits)
    except ValueError:  # a lower limit set by sys.set_int_max_str_digits
        raise VerdictError(f"a number of {len(digits.lstrip('-')):,} digits is not a score") from None


def parse_verdict_object(text: str) -> dict:
    """One JSON object, optionally inside one surrounding ``` fence; nothing else. Linear in the
    reply's length (the fence, the keys, the numbers), so it may run on the event loop."""
    stripped = text.strip()
    fenced = fenced_content(stripped)
    if fenced is not None:
        stripped = fenced
    try:
        value = json.loads(stripped, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant,
                           parse_int=_integer)
    except json.JSONDecodeError as error:
        raise VerdictError(f"not one JSON object ({error.msg})") from None
    except RecursionError:
        raise VerdictError("not one JSON object (nested too deeply)") from None
    if not isinstance(value, dict):
        raise VerdictError(f"a JSON {type(value).__name__}, not an object")
    return value


@dataclass(frozen=True)
class VerdictForm:
    """What a Judge reply must be (SPEC §10): the validator that reads it (calling the form calls
    it), the JSON object as the repair turn restates it (`form`), what its values may be
    (`values`: the prompt's own scale, restated by the repair turn; None: nothing to restate), and
    the JSON schema --judge-structured asks an engine to enforce (None: the form has none, and a
    structured run sends none). Each benchmark declares its forms (eval/insttrans/verdicts.py)."""

    validate: Callable[[str], dict]
    form: str = "the JSON object the instructions above ask for"
    values: str | None = None
    schema: dict | None = None

    def __call__(self, text: str) -> dict:
        return self.validate(text)


def verdict_form(validate: "VerdictForm | Callable[[str], dict]") -> VerdictForm:
    """A request's validator as its VerdictForm; a bare function (a release's reader, which has no
    repair turn and no structured form) has the general words and no schema."""
    return validate if isinstance(validate, VerdictForm) else VerdictForm(validate)


def verdict_schema(validate: "VerdictForm | Callable[[str], dict]") -> dict | None:
    """The JSON schema of the verdict a validator accepts (None for a validator that has none)."""
    return verdict_form(validate).schema


def repair_message(error: VerdictError, validate: "VerdictForm | Callable[[str], dict]") -> str:
    """The repair turn's user message (version REPAIR_VERSION): what was wrong, and the allowed form."""
    form = verdict_form(validate)
    where = f", where {form.values}" if form.values else ""
    return (f"Your reply is not a valid verdict: {error}. Reply again with exactly one JSON object of the form "
            f"{form.form}{where}, and nothing else.")


def reply_text(kind: str, payload: object) -> str:
    """The answer text of a response body (Responses: `output_text` parts; Chat: the content),
    read by eval/providers/openai_api.py; anything but a complete answer is an error of its kind."""
    if isinstance(payload, dict) and payload.get("error"):  # some gateways report failures inside a 200
        error = payload["error"]
        raise ProviderFailure(f"the provider reported an error: {str(error.get('message', error) if isinstance(error, dict) else error)}")
    try:
        answer = parse_answer(kind, payload)
    except ValueError as error:
        raise VerdictError(str(error)) from None
    if answer.truncated:
        cut = IncompleteReply(f'status "incomplete" ({answer.incomplete_reason or "unknown"})' if kind == RESPONSES
                              else 'finish_reason "length"')
        cut.text = answer.text or ""  # what came before the cut, for the repair turn
        raise cut
    if answer.finish == "failed" and kind == RESPONSES:
        raise ProviderFailure('response status "failed"')
    if kind == RESPONSES and payload.get("status") not in (None, "completed"):
        raise VerdictError(f"response status {json.dumps(payload.get('status'))}")
    if answer.refusal:
        raise VerdictError(f"the Judge refused: {answer.refusal}")
    if answer.finish == "content_filter":
        raise VerdictError('finish_reason "content_filter"')
    if not answer.has_text:
        raise VerdictError("no output_text in the response" if kind == RESPONSES
                           else "no message content in the response")
    return answer.text


# ---------------------------------------------------------------------------------------------
# The generic asker: cache, in-flight sharing, run-wide provider health
# ---------------------------------------------------------------------------------------------

@dataclass
class JudgeStats:
    calls: int = 0  # HTTP requests sent, retries included
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0  # attempts that failed transiently
    rate_limited: int = 0  # 429 answers
    deduplicated: int = 0  # identical requests answered by another in-flight request
    repairs: dict[str, int] = field(default_factory=dict)  # prompt name -> verdicts valid after a repair turn
    usage: dict[str, dict[str, int]] = field(default_factory=dict)  # prompt name -> token counts
    stand_in: str | None = None  # what a reply's x-stand-in header said: the Judge is a test double
    model_check: dict | None = None  # the Judge's name against the server's /models list (eval/judge/models.py)

    def add_usage(self, name: str, usage: dict[str, int], cached: int | None = None) -> None:
        totals = self.usage.setdefault(name, {"replies": 0, "input_tokens": 0, "output_tokens": 0, "total_tokens": 0})
        totals["replies"] += 1
        for key in ("input_tokens", "output_tokens", "total_tokens"):
            totals[key] += usage.get(key, 0)
        if cached is not None:  # only where the provider reports its prompt cache (SPEC §18)
            totals["cached_input_tokens"] = totals.get("cached_input_tokens", 0) + cached


@dataclass
class JudgeSession:
    """One run's shared state. `pool` holds one single-connection client per concurrency slot
    (eval/providers/openai_api.py); `health` is the run-wide view of the provider (eval/providers/health.py): it
    decides when a request may start."""

    settings: JudgeSettings
    pool: openai_api.ClientPool
    cache: sqlite3.Connection
    stats: JudgeStats
    url: str
    kind: str
    abort: asyncio.Event
    health: ProviderHealth
    shape: RequestShape | None = None  # None: SPEC §10's request
    headers: dict[str, str] = field(repr=False, default_factory=dict)
    bar: tqdm | None = None
    done: int = 0
    inflight: dict[str, asyncio.Task] = field(default_factory=dict)
    replies: dict[tuple[str, str], dict] = field(default_factory=dict)
    first_error: BaseException | None = None
    secrets: tuple[str, ...] = field(repr=False, default=())  # no stored text may hold them (SPEC §10)
    notify: Callable[[str], None] | None = None
    noticed: set[str] = field(default_factory=set)
    spent: float = 0.0  # USD of this run's replies at --judge-price (SPEC §18)
    budget_stopped: bool = False


@dataclass(frozen=True)
class JudgeRequest:
    """One prompt to ask: `name` says which prompt it is (for messages and results)."""

    case_id: str
    name: str
    prompt: str
    validate: VerdictForm | Callable[[str], dict]  # a bare function: a release's reader (see verdict_form)


@dataclass(frozen=True)
class JudgeRun:
    """What asking a list of prompts gives: verdicts and, for audit, each verdict's cache key
    and the Judge's raw reply text, both by (case_id, prompt name); and the summary's block."""

    verdicts: dict[tuple[str, str], dict]
    replies: dict[tuple[str, str], dict]
    block: dict


class Verdicts(dict):
    """Verdicts by (case_id, prompt name), as a plain dict; `.replies` holds, by the same keys,
    {"cache_key", "reply"}: where each verdict is cached and the Judge's raw text (SPEC §10)."""

    def __init__(self, verdicts: dict, replies: dict | None = None):
        super().__init__(verdicts)
        self.replies = dict(replies or {})


class _Aborted(Exception):
    """Another request already aborted the run; this one stops without asking."""


def stored_secrets(settings: JudgeSettings) -> tuple[str, ...]:
    """The keys no text the Judge client stores or prints may hold: the one it sends, the only one
    a provider can quote back. (predict.py keeps the model's key out of the answers it writes; a key
    that is no secret, a placeholder that is an ordinary word, would only cost redacted text.)"""
    return (settings.api_key,)


class _CutReply(Exception):
    """A reply cut by the length limit, to be asked about in a repair turn (not an abort yet)."""

    def __init__(self, reason: str, text: str):
        super().__init__(reason)
        self.reason, self.text = reason, text


def _repeat_hint(session: JudgeSession, cut: bool = False, repaired: bool = False) -> str:
    """The hint of an abort for a reply: whether a rerun will meet it again, and the flags that change it."""
    settings = session.settings
    if repeats_on_rerun(settings):
        hint = ("the verdicts received so far are cached, but a rerun asks the same at temperature 0 and will most "
                "likely get the same reply: ")
    else:
        hint = "the verdicts received so far are cached; rerun to resume, or: "
    flags = []
    if cut:
        limit = request_params(settings).get("max_tokens", request_params(settings).get("max_output_tokens"))
        flags.append(f"--judge-max-tokens N sets the reply's limit (now {limit}; a looping reply is cut at any "
                     "limit, a lower one fails sooner)")
    if not settings.repairs and session.shape is None:
        flags.append("--judge-repairs 1 asks the Judge once more, naming what was wrong")
    if not settings.structured and session.shape is None:
        flags.append("--judge-structured asks an engine that supports it to enforce the verdict's form")
    flags.append("--judge-model names another Judge")
    return hint + "; ".join(flags)


def _scrub(text: str, settings: JudgeSettings, limit: int | None = None) -> str:
    """The text without the API key, any 8-character piece of it or a Bearer value; then cut."""
    return redact(text, stored_secrets(settings), limit)


BAD_REQUEST_FLAGS = ("--judge-model", "--judge-reasoning-effort (Responses models)",
                     "JUDGE_API_BASE (an OpenAI-compatible base)",
                     "JUDGE_API_KEY (some gateways answer a bad key with 400)")


def _config_error(session: JudgeSession, status: int, message: str, param: str, where: str) -> HarnessError:
    """The provider's own words first, then what may be wrong, without claiming which (SPEC §10)."""
    settings = session.settings
    host = public_host(settings.api_base)
    if status == 400 and CONTEXT_WINDOW.search(f"{message} {param}"):
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
    if status not in REJECTION_STATUSES:  # a 5xx in a request validator's words
        structured = settings.structured and re.search(r"response_format|json_schema|json_object|text", message)
        return ConfigError(
            f"the Judge endpoint {host} refused the request (HTTP {status}: {message}) (asked for {where})",
            hint=("this server does not take --judge-structured in this form: drop --judge-structured, or try "
                  "--judge-structured json_object (llama-cpp-python's spelling)" if structured else
                  "the server is up and names the field it refuses above: check --judge-model and the Judge's "
                  "settings") + "; the verdicts received so far are cached")
    param_note = f" (the provider names the field {param!r})" if param else ""
    hints = {
        400: f"the provider's words are above{param_note}; settings that often cause a 400: "
             + ", ".join(BAD_REQUEST_FLAGS),
        401: "the key was rejected by JUDGE_API_BASE's host, or by the provider behind it; "
             "check JUDGE_API_KEY and, behind a gateway, the gateway's own upstream key",
        403: "the key was rejected by JUDGE_API_BASE's host, or by the provider behind it; "
             "check JUDGE_API_KEY and that it may use this model",
        404: "check JUDGE_API_BASE (usually ends in /v1) and --judge-model"
             + (f"; the name {settings.model!r} sends the request to {session.url.split('?')[0]} (a gpt-5, gpt-6, "
                "o1, o3 or o4 name goes to /responses), which a chat-only server lacks: pass --judge-model with "
                "the served name" if session.kind == RESPONSES and session.shape is None else ""),
    }
    return ConfigError(f"the Judge endpoint {host} answered HTTP {status}: {message} (asked for {where})",
                       hint=hints[status])


def _abort(session: JudgeSession, error: HarnessError) -> HarnessError:
    """Record the first fatal error; no new request starts, and requests still in flight get a
    short grace to land their verdicts in the cache (none when the provider is down)."""
    if session.first_error is None:
        session.first_error = error
        session.abort.set()
        session.health.stop(_Aborted())
        grace = 0.0 if isinstance(error, ProviderDown) else min(session.settings.timeout, ABORT_GRACE_S)
        asyncio.get_running_loop().call_later(grace, _cancel_inflight, session)
    return error


def _cancel_inflight(session: JudgeSession) -> None:
    for task in session.inflight.values():
        if not task.done():
            task.cancel()


async def _fetch(session: JudgeSession, body: bytes, case_id: str, name: str) -> tuple[str, dict, str | None]:
    """The reply text, token usage and stand-in header (None from a real Judge) of one request; the
    abort is raised before anyone else sends."""
    try:
        return await _fetch_reply(session, body, case_id, name)
    except HarnessError as error:
        raise _abort(session, error)


def _account(session: JudgeSession, name: str, where: str, reply, body: bytes, text: str) -> None:
    """A paid reply's tokens into the usage, and its price into the run's spend (SPEC §18); a reply
    whose counts are no counts (over MAX_TOKEN_COUNT) is left out, with one notice."""
    if _absurd_usage(reply.payload):
        _notice(session, "usage", f"the reply for {where} reports a token count above {MAX_TOKEN_COUNT:,}, which is no "
                                  "count: replies with such counts are left out of the summary's usage")
        return
    cached = openai_api.cached_input_tokens(reply.payload)
    session.stats.add_usage(name, reply.usage, cached)
    if session.settings.price is not None:
        session.spent += reply_cost(reply.usage, cached, session.settings.price, body, text)


async def _fetch_reply(session: JudgeSession, body: bytes, case_id: str, name: str) -> tuple[str, dict, str | None]:
    """POST one request through the run's provider health (SPEC §10) and read the answer text."""
    settings = session.settings
    where = f"case {case_id} ({name} prompt)"
    async with session.pool.slot() as client:
        if settings.budget is not None and session.spent >= settings.budget:
            session.budget_stopped = True  # no new request (SPEC §18); those in flight finish and are cached
            raise _Aborted()
        try:
            reply = await send(client, session.health, session.url, body, session.headers, timeout=settings.timeout,
                               secrets=(settings.api_key,), max_retries=settings.max_retries)
        except ProviderRejected as error:
            if error.status in REJECTION_STATUSES or error.validation:
                raise _config_error(session, error.status, error.provider_message, error.param, where) from None
            raise JudgeError(f"the Judge endpoint answered HTTP {error.status} for {where}: {error.provider_message}",
                             hint="the verdicts received so far are cached") from None
        except ProviderFailing as error:
            raise JudgeError(f"the Judge endpoint kept failing for {where}: {error.last_cause} "
                             f"(after {error.attempts} attempts)",
                             hint="the verdicts received so far are cached; rerun to resume, or raise "
                                  "--judge-max-retries") from None
        except ReplyTooLarge as error:
            raise JudgeError(f"invalid Judge reply for {where}: {error.message}",
                             hint="the verdicts received so far are cached; rerun to resume") from None
    if reply.payload is None:
        raise JudgeError(f"the Judge endpoint sent a body that is not JSON for {where} "
                         f"(HTTP {reply.status}, {reply.headers.get('content-type', 'no content type')})",
                         hint="check that JUDGE_API_BASE points at an OpenAI-compatible API")
    try:
        text = reply_text(session.kind, reply.payload)
    except ValueError as error:  # ProviderFailure cannot reach here: send retries errors in a 200
        cut = isinstance(error, IncompleteReply)
        if cut and settings.repairs > 0 and session.shape is None:  # asked again, with a hint (ask_judge)
            _account(session, name, where, reply, body, getattr(error, "text", ""))
            raise _CutReply(str(error), getattr(error, "text", "")) from None
        label = "incomplete response" if cut else "invalid Judge verdict"
        raise JudgeError(_scrub(f"{label} for {where}: {error}", settings, 600),
                         hint=_repeat_hint(session, cut=cut)) from None
    _account(session, name, where, reply, body, text)
    said = stand_in_of(reply.headers)
    if session.stats.stand_in is None:
        session.stats.stand_in = said
    return text, reply.usage, said


def _absurd_usage(payload: object) -> bool:
    """A reply whose `usage` gives a count above MAX_TOKEN_COUNT (summed, 4,300-digit counts could
    not be written: the summary would fail after every verdict was paid for)."""
    usage = payload.get("usage") if isinstance(payload, dict) else None
    return isinstance(usage, dict) and any(
        isinstance(value, (int, float)) and not isinstance(value, bool) and value > MAX_TOKEN_COUNT
        for value in usage.values())


def _refresh_bar(session: JudgeSession, done: int = 0) -> None:
    """done / total (the bar), then calls, cache hits, failures, in flight, retries, 429s, and
    the state line while the run waits for the provider."""
    if session.bar is None:
        return
    stats, health = session.stats, session.health
    postfix = (f"calls={health.sent}, cached={stats.cache_hits}, failed={health.failures}, "
               f"in flight={health.in_flight}, retries={health.retries}, 429s={health.rate_limited}")
    state = health.state_line()
    session.bar.set_postfix_str(postfix + (f" | {state}" if state else ""), refresh=False)
    if done:
        session.bar.update(done)
    elif state:
        session.bar.refresh()


async def _watch(session: JudgeSession, total: int, quiet: bool) -> None:
    """Keep the state line current; with --quiet, an occasional one-line notice on stderr, so a
    long wait is never silent (a notice when the run is held up, and a progress line now and then)."""
    last_notice = time.monotonic()
    while True:
        await asyncio.sleep(WATCH_EVERY_S)
        _refresh_bar(session)
        if not quiet:
            continue
        now, state = time.monotonic(), session.health.state_line()
        if now - last_notice >= (QUIET_STATE_EVERY_S if state else QUIET_PROGRESS_EVERY_S):
            print(f"Judge: {session.done}/{total} done, {session.health.in_flight} in flight, "
                  f"{session.health.retries} retries, {session.health.rate_limited} 429s"
                  + (f"; {state}" if state else ""), file=sys.stderr, flush=True)
            last_notice = now


def first_body(settings: JudgeSettings, shape: RequestShape | None, request: JudgeRequest) -> bytes:
    """The exact body of a request's first turn (its cache key's bytes): shared with the estimate
    and the Batch path (SPEC §18), so that all three ask the very same question."""
    schema = verdict_schema(request.validate) if settings.structured else None
    return request_body(settings, request.prompt, schema) if shape is None else shape.body(request.prompt)


def request_url(settings: JudgeSettings, shape: RequestShape | None) -> str:
    """The URL the requests go to (part of every cache key)."""
    return endpoint_url(settings) if shape is None else openai_api.endpoint_url(settings.api_base, shape.kind)


async def ask_judge(session: JudgeSession, request: JudgeRequest) -> dict:
    """The validated verdict for one prompt: from the cache, a shared in-flight request, or HTTP;
    an invalid one is asked about once more in a repair turn (SPEC §10) unless --judge-repairs 0."""
    settings = session.settings
    schema = verdict_schema(request.validate) if settings.structured else None
    body = first_body(settings, session.shape, request)
    try:
        key, text, owner, cached, said = await _reply_for(session, request, body)
    except _CutReply as cut:  # the verdict was cut off: one repair turn says so (SPEC §10)
        return await _repair(session, request, cut.text, VerdictError(
            f"it was cut off by the length limit ({cut.reason}) before the verdict was complete; give the "
            "verdict first and keep the reply short"), schema)
    try:
        verdict = request.validate(text)
    except VerdictError as error:
        if settings.repairs < 1:
            raise _invalid(session, request, error, text) from None
        if owner and not cached:  # kept, so that a rerun repairs without asking the first question again
            _keep(session, key, body, text, said)
        return await _repair(session, request, text, error, schema)
    if owner and not cached:
        _keep(session, key, body, text, said)
    if cached:
        session.stats.cache_hits += 1
    session.replies[(request.case_id, request.name)] = {"cache_key": key, "reply": _stored(session, text)}
    return verdict


def _stored(session: JudgeSession, text: str) -> str:
    """The copy of a reply that the results keep: the text with every key and 8-character piece of
    one as [redacted]. The verdict was read off the reply as it came (redaction never changes a
    verdict); only what is written changes (SPEC §10)."""
    stored = without_secrets(text, session.secrets)
    if stored != text:
        _notice(session, "key", KEY_NOTICE)
    return stored


KEY_NOTICE = ("a reply quotes an API key (or an 8-character piece of one): the results keep it with [redacted] in "
              "its place (the verdict is read off the reply as it came), and it is not cached (a rerun asks again; "
              "a key that is an ordinary word, a local server's placeholder, makes this frequent: change it)")


def _keep(session: JudgeSession, key: str, body: bytes, text: str, stand_in: str | None) -> None:
    """Commit a reply to the cache with what its stand-in header said (None from a real Judge: a
    rerun answered from the cache names the stand-in too), unless it cannot be kept as it came:
    one that holds a key or a piece of one (a redacted copy, served back, could read as another
    verdict: the rerun asks again) or a lone surrogate (no UTF-8 for SQLite to store). The request
    is kept for audit only (a verdict is found by its hash, taken over the bytes sent): it is
    stored redacted."""
    if without_secrets(text, session.secrets) != text:
        _notice(session, "key", KEY_NOTICE)
        return
    if _LONE_SURROGATE.search(text) is not None:
        _notice(session, "surrogate", "a reply holds a lone surrogate (a \\udXXX escape that is no character): it is "
                                      "not cached (a rerun asks again); the results write it as its escape")
        return
    request = body.decode("utf-8")
    audit = without_secrets(request, session.secrets)
    write_reply(session.cache, key, session.settings.model, session.kind,
                body if audit == request else audit.encode("utf-8"), text, stand_in)


def _notice(session: JudgeSession, kind: str, line: str) -> None:
    """One line on stderr, once per run and kind."""
    if kind in session.noticed or session.notify is None:
        return
    session.noticed.add(kind)
    session.notify(line)


async def _reply_for(session: JudgeSession, request: JudgeRequest,
                     body: bytes) -> tuple[str, str, bool, bool, str | None]:
    """(cache key, reply text, whether this request owns the exchange, whether it came from the
    cache, what its stand-in Judge said) for one request body: the cache first, then an identical
    request in flight, then HTTP. A reply served from the cache names its stand-in as a fresh one does."""
    key = cache_key(session.url, body)
    task = session.inflight.get(key)
    owner = task is None
    if owner:
        stored = read_stored(session.cache, key)
        if stored is not None:
            cached, said = stored
            try:
                request.validate(cached)
            except VerdictError:
                if session.settings.repairs > 0:  # an invalid first reply kept for its repair turn
                    return key, cached, owner, True, _cached_stand_in(session, said)
                # otherwise written under another validator: ask again and overwrite
            else:
                return key, cached, owner, True, _cached_stand_in(session, said)
        if session.abort.is_set():
            raise _Aborted()
        task = asyncio.ensure_future(_fetch(session, body, request.case_id, request.name))
        session.inflight[key] = task
    else:
        session.stats.deduplicated += 1
    text, _, said = await asyncio.shield(task)
    return key, text, owner, False, said


def _cached_stand_in(session: JudgeSession, said: str | None) -> str | None:
    """A cached reply's stand-in, recorded for the run as a fresh reply's header is."""
    if session.stats.stand_in is None:
        session.stats.stand_in = said
    return said


async def _repair(session: JudgeSession, request: JudgeRequest, first: str, error: VerdictError,
                  schema: dict | None) -> dict:
    """One repair turn (SPEC §10): the prompt, the invalid reply as the assistant's message, and a
    short message naming what was wrong; a valid answer is the verdict, marked `repaired`."""
    settings = session.settings
    conversation = [{"role": "user", "content": request.prompt}, {"role": "assistant", "content": first},
                    {"role": "user", "content": repair_message(error, request.validate)}]
    body = openai_api.request_body(session.kind, settings.model, conversation, _params(settings, schema),
                                   canonical=True)
    try:
        key, text, owner, cached, said = await _reply_for(session, request, body)
    except _CutReply as cut:
        raise _abort(session, JudgeError(
            _scrub(f"incomplete response for case {request.case_id} ({request.name} prompt) after a repair turn: "
                   f"{cut.reason}; reply: {_scrub(cut.text, settings, 300)!r}", settings),
            hint=_repeat_hint(session, cut=True, repaired=True))) from None
    try:
        verdict = request.validate(text)
    except VerdictError as second:
        raise _invalid(session, request, second, text, repaired=True) from None
    if owner and not cached:
        _keep(session, key, body, text, said)
    if cached:
        session.stats.cache_hits += 1
    session.stats.repairs[request.name] = session.stats.repairs.get(request.name, 0) + 1
    session.replies[(request.case_id, request.name)] = {"cache_key": key, "reply": _stored(session, text),
                                                        "repaired": True, "invalid_reply": _stored(session, first)}
    return verdict


def _invalid(session: JudgeSession, request: JudgeRequest, error: VerdictError, text: str,
             repaired: bool = False) -> HarnessError:
    """The abort for an invalid verdict (after the repair turn, when there was one)."""
    turn = " after a repair turn" if repaired else ""
    hint = _repeat_hint(session, repaired=repaired)
    return _abort(session, JudgeError(
        _scrub(f"invalid Judge verdict for case {request.case_id} ({request.name} prompt){turn}: "
               f"{error}; reply: {_scrub(text, session.settings, 300)!r}", session.settings), hint=hint))


async def _ask_all(requests: list[JudgeRequest], settings: JudgeSettings, cache: sqlite3.Connection,
                   stats: JudgeStats, progress: bool, shape: RequestShape | None = None,
                   ) -> tuple[dict[tuple[str, str], dict], dict]:
    from tqdm import tqdm
    headers = openai_api.auth_headers(settings.api_key)
    bar = tqdm(total=len(requests), desc="Judge", unit="req", disable=not progress, dynamic_ncols=True)
    host = public_host(settings.api_base)

    def notify(line: str) -> None:
        if progress:
            bar.write(f"Judge: {line}", file=sys.stderr)
        else:
            print(f"Judge: {line}", file=sys.stderr, flush=True)

    health = ProviderHealth(host, max_concurrency=settings.concurrency, deadline_s=settings.deadline,
                            notify=notify, setting="JUDGE_API_BASE", backoff_s=settings.backoff,
                            backoff_max_s=settings.backoff_max)
    async with client_pool(settings.concurrency, settings.timeout) as pool:
        session = JudgeSession(settings=settings, pool=pool, cache=cache, stats=stats,
                               url=request_url(settings, shape),
                               kind=settings.endpoint_kind if shape is None else shape.kind,
                               abort=asyncio.Event(), health=health, shape=shape, headers=headers,
                               bar=None if not progress else bar, secrets=stored_secrets(settings), notify=notify)
        verdicts: dict[tuple[str, str], dict] = {}
        if any(read_reply(cache, cache_key(session.url, first_body(settings, shape, request))) is None
               for request in requests):  # the name against the server's list, once, when a request is sent (never fatal)
            async with pool.slot() as client:
                listed = await judge_models.probe(client, openai_api.models_url(settings.api_base), headers,
                                                  min(settings.timeout, 10.0))
            stats.model_check = judge_models.model_check(settings.model, listed)
            warning = judge_models.mismatch_warning(stats.model_check)
            if warning:
                bar.write(warning, file=sys.stderr) if progress else print(warning, file=sys.stderr, flush=True)

        async def one(request: JudgeRequest) -> None:
            try:
                verdicts[(request.case_id, request.name)] = await ask_judge(session, request)
            except _Aborted:
                return
            except asyncio.CancelledError:
                if session.abort.is_set():  # cut off by the abort's grace, not by Ctrl-C
                    return
                raise
            except HarnessError as error:
                _abort(session, error)
                return
            except Exception as error:  # a malformed reply or a cache failure: one clear abort, no traceback
                _abort(session, JudgeError(_scrub(f"unexpected error for case {request.case_id} ({request.name} "
                                                  f"prompt): {type(error).__name__}: {error}", settings)))
                return
            session.done += 1
            _refresh_bar(session, done=1)

        watcher = asyncio.ensure_future(_watch(session, len(requests), quiet=not progress))
        try:
            await asyncio.gather(*(one(request) for request in requests))
        finally:  # on Ctrl-C, stop the shielded requests before their clients close
            watcher.cancel()
            pending = [task for task in session.inflight.values() if not task.done()]
            for task in pending:
                task.cancel()
            await asyncio.gather(watcher, *pending, return_exceptions=True)
            for task in session.inflight.values():  # retrieve every outcome: no "never retrieved" noise
                if task.done() and not task.cancelled():
                    task.exception()
            bar.close()
            stats.calls, stats.retries = health.sent, health.retries
            stats.failures, stats.rate_limited = health.failures, health.rate_limited
        if session.first_error is not None:
            raise session.first_error
        if session.budget_stopped:
            raise budget_error(session.spent, settings.budget, health.sent)
        return verdicts, session.replies


def judge_block(settings: JudgeSettings, stats: JudgeStats, prompt_versions: dict[str, str],
                shape: RequestShape | None = None) -> dict:
    """The summary's `judge` block (SPEC §11): what decides a verdict, and what the run cost.

    `usage` sums the token counts the provider reported for this run's requests, per prompt
    (verdicts served from the cache cost nothing and are not counted)."""
    return {
        "model": settings.model,
        "endpoint_kind": settings.endpoint_kind if shape is None else shape.kind,
        "host": public_host(settings.api_base),
        "params": recorded_params(settings) if shape is None else dict(shape.params),
        "prompt_versions": {**prompt_versions, **({"repair": REPAIR_VERSION} if settings.repairs else {})},
        "calls": stats.calls,
        "cache_hits": stats.cache_hits,
        "retries": stats.retries,
        "rate_limited": stats.rate_limited,
        "deduplicated": stats.deduplicated,
        "repairs": dict(sorted(stats.repairs.items())),
        "usage": {name: dict(counts) for name, counts in sorted(stats.usage.items())},
        **({"stand_in": stats.stand_in} if getattr(stats, "stand_in", None) else {}),  # only a test double
        **({} if getattr(stats, "model_check", None) is None else {"model_check": stats.model_check}),
        **({"cost": cost_block(stats.usage, settings.price, settings.budget)} if settings.price is not None else {}),
    }


def ask_prompts(requests: list[JudgeRequest], settings: JudgeSettings, cache_path: Path,
                prompt_versions: dict[str, str], progress: bool = True,
                shape: RequestShape | None = None, prefill: Callable | None = None) -> JudgeRun:
    """Ask every request under the cache file's lock (one run per cache, SPEC §10).

    Raises JudgeError or ConfigError on abort (ProviderDown when the provider stays down);
    replies received before it stay in the cache."""
    stats = JudgeStats()
    cache_path = Path(cache_path)
    with hold_lock(cache_path, "Judge cache", is_dir=False):
        cache = open_cache(cache_path)
        try:  # `prefill` (eval/run/judge_batch.py, --judge-batch) fills the cache first; the online pass then asks the rest
            batch = None if prefill is None else prefill(
                requests, settings, shape, cache, lambda line: print(f"Judge: {line}", file=sys.stderr, flush=True))
            verdicts, replies = asyncio.run(_ask_all(requests, settings, cache, stats, progress, shape))
        finally:
            cache.close()
    block = judge_block(settings, stats, prompt_versions, shape)
    if batch is not None:
        block["batch"] = batch.block()
        if settings.price is not None:
            block["cost"] = cost_block(stats.usage, settings.price, settings.budget, batch.usage)
    return JudgeRun(verdicts, replies, block)


def run_judge_prompts(requests: list[JudgeRequest], settings: JudgeSettings, cache_path: Path,
                      prompt_versions: dict[str, str], progress: bool = True,
                      shape: RequestShape | None = None, prefill: Callable | None = None,
                      ) -> tuple[dict[tuple[str, str], dict], dict]:
    """Ask every request; returns verdicts by (case_id, name) and the `judge` block. The verdicts
    mapping is a `Verdicts`: its `.replies` gives each one's cache key and raw reply (audit).

    Raises JudgeError or ConfigError on abort; replies received before it stay in the cache.
    """
    run = ask_prompts(requests, settings, cache_path, prompt_versions, progress, shape, prefill)
    return Verdicts(run.verdicts, replies=run.replies), run.block
