"""Run-wide provider health and one guarded HTTP exchange with an OpenAI-compatible provider (SPEC §10).

A provider is judged for the run, not per request. `ProviderHealth` holds what every request of
the run shares: a breaker opened by consecutive failures (transport errors, timeouts, 5xx, a 200
carrying an error) that lets no new request start, then one probe after a cool-down, and gives up
with `ProviderDown` once the provider has been down for the run-level deadline; a pool-wide pause
after a 429 until the announced time; and a concurrency limit that halves on a 429 and grows back
by one per round of successes, so a rate limit without any header is found as well. `send` is one
request through that health object: it retries what is transient, counts a 429 against no one,
caps the reply at 64 KB whatever its encoding (decoded as it arrives), and redacts secrets from every message it makes.

Both the Judge (eval/judge_client.py) and the prediction client build on this module; the shape
of requests and replies is eval/providers/openai_api.py.
"""

from __future__ import annotations

import asyncio
import email.utils
import io
import json
import math
import random
import re
import time
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from eval.errors import ConfigError, HarnessError, JudgeError
from eval.providers.openai_api import usage_of
from eval.providers.redaction import redact

if TYPE_CHECKING:  # annotations only; httpx is imported where it is used
    import httpx

MAX_REPLY_BYTES = 64 * 1024  # a verdict or a translation of one row is far smaller (SPEC §10)
MAX_PAUSE_S = 600.0  # an announced wait longer than this is taken as this
MESSAGE_LIMIT = 500
REJECTION_STATUSES = frozenset({400, 401, 403, 404})
TRANSIENT_STATUSES = frozenset({408, 409})  # plus every 5xx; 429 is handled on its own
# A 5xx in these words is the server validating the request body (llama-cpp-python answers a field
# it does not accept with a 500 "validation error"): the same request fails the same way every time.
REQUEST_VALIDATION = re.compile(r"validation error|extra_forbidden|literal_error|Extra inputs are not permitted"
                                r"|'loc': \('body'")


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------

class ProviderDown(JudgeError):
    """No request succeeded for the run's deadline (exit 3); names the host and last cause.

    `message` says what the provider did (not answering, only 429s, its own errors); by default
    "the provider at HOST is not answering: CAUSE"."""

    def __init__(self, host: str, last_cause: str, hint: str | None = None, message: str | None = None):
        super().__init__(message or f"the provider at {host} is not answering: {last_cause}", hint=hint)
        self.host = host
        self.last_cause = last_cause


class ProviderRejected(HarnessError):
    """The provider refused the request itself (4xx other than 408/409/429, or a 5xx in the words of
    a request validator): retrying cannot help.

    `provider_message` is the provider's own words (redacted, cut), `param` the field it blames.
    400/401/403/404 are configuration problems (exit 2); any other 4xx exits 3.
    """

    def __init__(self, host: str, status: int, provider_message: str, param: str = "", validation: bool = False):
        super().__init__(f"{host} answered HTTP {status}: {provider_message}")
        self.host = host
        self.status = status
        self.provider_message = provider_message
        self.param = param
        self.validation = validation  # a 5xx that validates the request body: a configuration error too
        self.exit_status = 2 if status in REJECTION_STATUSES or validation else 3


class ProviderFailing(JudgeError):
    """One request kept failing while the provider answered others (its own retries ran out)."""

    def __init__(self, host: str, last_cause: str, attempts: int):
        super().__init__(f"{host} kept failing this request: {last_cause} (after {attempts} attempts)")
        self.host = host
        self.last_cause = last_cause
        self.attempts = attempts


class ReplyTooLarge(JudgeError):
    """A 2xx reply larger than `MAX_REPLY_BYTES`: no verdict or row translation is that long."""


# ---------------------------------------------------------------------------------------------
# Secrets
# ---------------------------------------------------------------------------------------------

# redact() and its constants live in eval/providers/redaction.py (locking needs them without this module).


def check_api_endpoint(base_variable: str, key_variable: str, api_base: str, api_key: str, *,
                       missing_hint: str, example: str, endpoint_hint: str) -> None:
    """One OpenAI-compatible endpoint's settings, checked before any work (SPEC §10, §13): both set,
    the base an http(s) URL without credentials and without an endpoint path, the key sendable in
    a header. Shared by the Judge (JUDGE_*) and predict.py (MODEL_*); messages never hold the key."""
    import httpx  # heavy: only the paths that talk to a provider need it

    missing = [name for name, value in ((base_variable, api_base), (key_variable, api_key)) if not value]
    if missing:  # every missing setting in one message: a user fixes both at once, not one per run
        raise ConfigError(f"{' and '.join(missing)} {'are' if len(missing) > 1 else 'is'} not set", hint=missing_hint)
    try:
        url = httpx.URL(api_base)
    except (httpx.InvalidURL, TypeError):
        url = None
    if url is None or url.scheme not in ("http", "https") or not url.host:
        raise ConfigError(f"{base_variable} is not an http(s) URL", hint=example)
    if url.userinfo:
        raise ConfigError(f"{base_variable} must not carry credentials", hint=f"put the key in {key_variable}")
    if url.path.rstrip("/").endswith(("/chat/completions", "/responses")):
        raise ConfigError(f"{base_variable} names an endpoint, not the API base", hint=endpoint_hint)
    if not (api_key.isascii() and api_key.isprintable()):
        raise ConfigError(f"{key_variable} holds characters that cannot be sent in an HTTP header",
                          hint="copy the key again: it must be printable ASCII")


# ---------------------------------------------------------------------------------------------
# Announced waits
# ---------------------------------------------------------------------------------------------

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
# The whole value as parts, possessive: checked first, so findall never retries every start of a
# long run of digits without a unit (quadratic: 8,000 digits in a reset header took 4.6 s).
_DURATION = re.compile(r"(?:\d++(?:\.\d++)?(?:ms|h|m|s))++")


def _duration_seconds(value: str) -> float | None:
    """OpenAI's reset spelling (`1s`, `6m0s`, `20ms`, `1h2m3.5s`) or a plain number of seconds."""
    value = value.strip().lower()
    try:
        return float(value)
    except ValueError:
        pass
    if _DURATION.fullmatch(value) is None:
        return None
    parts = _DURATION_PART.findall(value)
    if not parts or "".join(number + unit for number, unit in parts) != value:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(number) * scale[unit] for number, unit in parts)


def _seconds_or_date(value: str, now: float) -> float | None:
    try:
        return float(value.strip())
    except ValueError:
        pass
    try:
        return email.utils.parsedate_to_datetime(value.strip()).timestamp() - now
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def retry_after_seconds(headers: "httpx.Headers | dict[str, str]", now: float | None = None) -> float | None:
    """How long a 429 asks the client to wait, from any spelling providers and gateways use:
    `retry-after-ms`, `retry-after` (seconds or an HTTP date), `llm_provider-retry-after` (LiteLLM
    passing the upstream's on), and `x-ratelimit-reset-requests` / `-tokens` (the longer of the
    two). None when no header says; the value is clamped to [0, MAX_PAUSE_S]."""
    lower = {name.lower(): value for name, value in headers.items()}
    now = time.time() if now is None else now
    seconds: float | None = None
    if "retry-after-ms" in lower:
        try:
            seconds = float(lower["retry-after-ms"]) / 1000
        except ValueError:
            seconds = None
    for name in ("retry-after", "llm_provider-retry-after"):
        if seconds is None and name in lower:
            seconds = _seconds_or_date(lower[name], now)
    if seconds is None:
        resets = [_duration_seconds(lower[name]) for name in ("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens")
                  if name in lower]
        resets = [value for value in resets if value is not None]
        seconds = max(resets) if resets else None
    if seconds is None or math.isnan(seconds):
        return None
    return min(max(seconds, 0.0), MAX_PAUSE_S)


# ---------------------------------------------------------------------------------------------
# Run-wide health
# ---------------------------------------------------------------------------------------------

@dataclass
class Ticket:
    """The permission to send one request; `probe` when it tests a provider the breaker holds down."""

    started: float
    probe: bool


class ProviderHealth:
    """What every request of a run knows about the provider (SPEC §10). Not thread-safe: one
    event loop uses it.

    - `failure_threshold` consecutive failures open the breaker; while it is open only one probe
      runs, after a cool-down that doubles from `cooldown_s` up to `cooldown_max_s`.
    - The run gives up (`ProviderDown`) when the next probe could not start before `deadline_s`
      after the first failed request of the streak was sent. While no request of the run has
      succeeded and every failure is a refused connection or an unknown host, the deadline is
      `startup_deadline_s`: a wrong address is reported within seconds, naming `setting`.
    - Whatever the mix of failures and 429s, the run gives up once `deadline_s` has passed since
      the first of them landed after the last success (SPEC §10: no success for the deadline): the
      next failure or 429 to land after that gives up (a long announced wait is still waited for,
      since its first request may succeed), and a request's own retry never runs past that point,
      so a timeout longer than the deadline still ends the run by about timeout + deadline.
    - A 429 pauses the pool until the announced time (or for a short blind pause, doubling while
      429s keep coming) and halves the concurrency limit; each success adds 1/limit to it. A 429
      before any success, or a second burst of 429s with no success between, drops the limit to
      one request at a time (a probe, at least `cooldown_s` doubling to `cooldown_max_s` apart),
      so a provider that only rate-limits costs few requests.
    """

    def __init__(self, host: str, *, max_concurrency: int, deadline_s: float = 30.0,
                 notify: Callable[[str], None] | None = None, setting: str = "JUDGE_API_BASE",
                 failure_threshold: int = 5, cooldown_s: float = 1.0, cooldown_max_s: float = 8.0,
                 backoff_s: float = 0.5, backoff_max_s: float = 8.0, startup_deadline_s: float = 5.0,
                 blind_pause_s: float = 0.5, clock: Callable[[], float] = time.monotonic,
                 timeout_flag: str = "--judge-timeout", deadline_flag: str = "--judge-deadline",
                 resume_hint: str = "the verdicts received so far are cached; rerun to resume",
                 down_hint: str = ""):
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.host = host
        self.max_concurrency = max_concurrency
        self.deadline_s = deadline_s
        self.notify = notify
        self.setting = setting
        self.failure_threshold = max(1, failure_threshold)
        self.cooldown_s, self.cooldown_max_s = cooldown_s, max(cooldown_s, cooldown_max_s)
        self.backoff_s, self.backoff_max_s = backoff_s, backoff_max_s
        self.startup_deadline_s = min(startup_deadline_s, deadline_s)
        self.blind_pause_initial_s = blind_pause_s
        self.clock = clock
        self.timeout_flag, self.deadline_flag, self.resume_hint = timeout_flag, deadline_flag, resume_hint
        self.down_hint = down_hint  # the hint's first words when nothing more specific is known
        # counters for the progress line
        self.sent = 0
        self.in_flight = 0
        self.retries = 0
        self.rate_limited = 0
        self.failures = 0
        self.succeeded = 0
        # state
        self.limit = float(max_concurrency)
        self.streak = 0
        self.streak_started: float | None = None
        self.streak_unreachable = True  # every failure of the streak: refused / unknown host
        self.ever_succeeded = False
        self.breaker_open = False
        self.probing = False
        self.next_probe_at = 0.0
        self.cooldown = cooldown_s
        self.paused_until = 0.0
        self.last_cut_at = -math.inf
        self.blind_pause = blind_pause_s
        self.last_cause = ""
        self.quiet_since: float | None = None  # when the first non-success since the last success landed
        self.quiet_kinds: set[str] = set()  # what those were: timeout, unreachable, transport, http, rate_limited
        self.rate_probe_gap = cooldown_s  # the least pause between 429 probes while nothing succeeds (doubles)
        self.down: ProviderDown | None = None
        self.stopped: BaseException | None = None
        self._changed: asyncio.Event | None = None

    # -- what the progress line shows --------------------------------------------------------

    def counters(self) -> dict[str, int]:
        return {"sent": self.sent, "in_flight": self.in_flight, "retries": self.retries,
                "rate_limited": self.rate_limited, "failures": self.failures}

    def state_line(self) -> str | None:
        """One line while the run is held up, e.g. "provider not answering, retrying in 8 s"."""
        now = self.clock()
        if self.down is not None:
            return "provider down, giving up"
        if self.breaker_open:
            if self.probing:
                return "provider not answering, probing"
            return f"provider not answering, retrying in {max(1, math.ceil(self.next_probe_at - now))} s"
        if now < self.paused_until:
            return f"rate limited, resuming in {max(1, math.ceil(self.paused_until - now))} s"
        return None

    # -- admission ---------------------------------------------------------------------------

    def _event(self) -> asyncio.Event:
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    def _wake(self) -> None:
        """Wake every waiting `acquire`: each looks at the state again (one event loop, no lock)."""
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def _wake_all(self) -> None:
        self._wake()

    def _deadline_at(self) -> float:
        budget = self.startup_deadline_s if (self.streak_unreachable and not self.ever_succeeded) else self.deadline_s
        return (self.streak_started if self.streak_started is not None else self.clock()) + budget

    def _give_up(self) -> ProviderDown:
        if self.down is None:
            cause, kinds, message = self.last_cause or "no answer", self.quiet_kinds, None
            hint = self.resume_hint
            if kinds == {"rate_limited"}:
                message = (f"the provider at {self.host} answered only 429 (rate limited) for "
                           f"{self.deadline_s:g} s: {cause}")
                hint = ("a gateway whose every upstream is failing or cooling down answers 429 too (LiteLLM: "
                        f'"No deployments available"): check what is behind {self.setting}, or raise '
                        f"{self.deadline_flag} to wait longer; " + hint)
            elif kinds == {"http"}:
                message = f"the provider at {self.host} answered, but failed every request: {cause}"
                hint = ("the server is up and these are its own words: a parameter or model it rejects, or an "
                        "upstream failing behind a gateway; " + hint)
            elif "timeout" in kinds:
                hint = (f"no answer came within {self.timeout_flag}: a slow model (a local engine on CPU) or a "
                        "gateway that holds requests (LiteLLM retrying an upstream) needs a larger "
                        f"{self.timeout_flag} (and {self.deadline_flag}); " + hint)
            elif self.streak_unreachable and not self.ever_succeeded:
                hint = (f"nothing accepts connections at {self.host}: check {self.setting} (host and port); "
                        + hint)
            else:
                hint = self.down_hint + hint
            if message is None:  # how many requests went out before it gave up (retries included)
                message = (f"the provider at {self.host} is not answering: {cause} ({self.sent} request"
                           f"{'' if self.sent == 1 else 's'} sent)")
            self.down = ProviderDown(self.host, cause, hint=hint, message=message)
            self._say(f"giving up on {self.host}: {cause}")
            self._wake()  # every waiter must see it
        return self.down

    def _quiet(self, now: float, kind: str) -> None:
        """A failure or a 429 landed: the no-success clock runs from the first since the last success,
        and the run gives up once it has run for the deadline (SPEC §10)."""
        if self.quiet_since is None:
            self.quiet_since = now
        self.quiet_kinds.add(kind)
        if now - self.quiet_since >= self.deadline_s - 0.05:
            self._give_up()

    def _heard(self) -> None:
        self.quiet_since = None
        self.quiet_kinds = set()
        self.rate_probe_gap = self.cooldown_s

    def stop(self, reason: BaseException) -> None:
        """The run is stopping for its own reason (an invalid verdict, Ctrl-C): from now on
        `acquire` raises `reason`, so no new request or retry starts; requests in flight finish."""
        if self.stopped is None:
            self.stopped = reason
            self._wake()

    def time_left(self, ticket: Ticket, timeout: float, retry: bool = False) -> float:
        """The timeout of one attempt: a probe never runs past the breaker's deadline, a retry
        never past the no-success deadline."""
        if ticket.probe:
            return max(0.05, min(timeout, self._deadline_at() - self.clock()))
        if retry and self.quiet_since is not None:
            return max(0.05, min(timeout, self.quiet_since + self.deadline_s - self.clock()))
        return timeout

    async def acquire(self) -> Ticket:
        """Wait until a request may start; raises ProviderDown once the run has given up."""
        while True:
            now = self.clock()
            if self.stopped is not None:
                raise self.stopped
            if self.down is not None:
                raise self.down
            wake: float | None = None
            if self.breaker_open:
                if not self.probing:
                    if self.next_probe_at >= self._deadline_at() - 0.05:
                        raise self._give_up()
                    start_at = max(self.next_probe_at, self.paused_until)
                    if now >= start_at:
                        self.probing = True
                        return self._start(now, probe=True)
                    wake = start_at
            elif now < self.paused_until:
                wake = self.paused_until
            elif self.in_flight < max(1, int(self.limit)):
                return self._start(now, probe=False)
            event = self._event()
            try:
                await asyncio.wait_for(event.wait(), None if wake is None else max(0.0, wake - now))
            except asyncio.TimeoutError:
                pass

    def _start(self, now: float, probe: bool) -> Ticket:
        self.in_flight += 1
        self.sent += 1
        return Ticket(started=now, probe=probe)

    # -- outcomes ----------------------------------------------------------------------------

    async def record_success(self, ticket: Ticket, headers: "httpx.Headers | dict | None" = None) -> None:
        """A usable answer: the streak ends, the breaker closes, the limit grows by 1/limit."""
        self.in_flight -= 1
        self.succeeded += 1
        self.ever_succeeded = True
        self._heard()
        if self.breaker_open:
            self._say(f"{self.host} answers again")
        self._close()
        self.limit = min(float(self.max_concurrency), self.limit + 1.0 / self.limit)
        self.blind_pause = self.blind_pause_initial_s
        if headers is not None:  # a provider that says its window is used up: wait before the 429
            lower = {name.lower(): value for name, value in headers.items()}
            if lower.get("x-ratelimit-remaining-requests", "").strip() == "0":
                wait = retry_after_seconds({"x-ratelimit-reset-requests": lower.get("x-ratelimit-reset-requests", "")})
                if wait:
                    self.paused_until = max(self.paused_until, self.clock() + wait)
        await self._wake_all()

    async def record_answer(self, ticket: Ticket) -> None:
        """An answer that proves the provider alive but is no success (a rejection, a bad body)."""
        self.in_flight -= 1
        self.ever_succeeded = True
        self._heard()
        self._close()
        await self._wake_all()

    async def record_failure(self, ticket: Ticket, cause: str, *, unreachable: bool = False,
                             kind: str = "transport") -> bool:
        """A transient failure; returns True when it counts against the request's own retries
        (every failure does, a failed probe too, so --judge-max-retries still bounds a small run;
        only 429s never count)."""
        now = self.clock()
        self.in_flight -= 1
        self.failures += 1
        self.last_cause = cause
        if self.streak == 0:
            self.streak_started = ticket.started
            self.streak_unreachable = True
        self.streak_started = min(self.streak_started, ticket.started)
        self.streak_unreachable = self.streak_unreachable and unreachable
        self.streak += 1
        if ticket.probe:
            self.probing = False
            self.cooldown = min(self.cooldown * 2, self.cooldown_max_s)
            self.next_probe_at = now + self.cooldown
        elif not self.breaker_open and self.streak >= self.failure_threshold:
            self.breaker_open = True
            self.cooldown = self.cooldown_s
            self.next_probe_at = now + self.cooldown
            self._say(f"provider not answering ({cause}); retrying in {self.cooldown:g} s")
        self._quiet(now, "unreachable" if unreachable else kind)
        await self._wake_all()
        return True

    async def record_rate_limit(self, ticket: Ticket, wait_s: float | None, cause: str = "HTTP 429") -> None:
        """A 429: the provider is alive; the pool pauses and the concurrency limit halves (drops
        to one when nothing has succeeded since the last burst); no success for the deadline gives up."""
        now = self.clock()
        self.in_flight -= 1
        self.rate_limited += 1
        self.last_cause = cause
        self._close()
        probing = False
        if ticket.started >= self.last_cut_at:  # one cut per burst, not one per rejected request
            again = self.quiet_since is not None and "rate_limited" in self.quiet_kinds
            probing = again or not self.ever_succeeded
            self.limit = 1.0 if probing else max(1.0, self.limit / 2)
            self.last_cut_at = now
        if probing:  # nothing succeeds: one probe at a time, 1, 2, 4, 8 s apart as the breaker's, but the
            # last one no later than the deadline (an announced wait is still honoured in full)
            left = (self.quiet_since if self.quiet_since is not None else now) + self.deadline_s - now
            wait_s = max(wait_s or 0.0, min(self.rate_probe_gap, max(0.0, left)))
            self.rate_probe_gap = min(self.rate_probe_gap * 2, self.cooldown_max_s)
        self._quiet(now, "rate_limited")
        if wait_s is None:
            wait_s = self.blind_pause * random.uniform(0.8, 1.2)
            if ticket.started >= self.paused_until:
                self.blind_pause = min(self.blind_pause * 2, 30.0)
        resume = now + wait_s
        if resume > self.paused_until + 1.0 and wait_s >= 2.0:
            self._say(f"rate limited by {self.host}, resuming in {math.ceil(wait_s)} s")
        self.paused_until = max(self.paused_until, resume)
        await self._wake_all()

    async def record_cancel(self, ticket: Ticket) -> None:
        """The request was cancelled (the run is stopping): give its slot back."""
        self.in_flight -= 1
        if ticket.probe:
            self.probing = False
        await self._wake_all()

    def retry_delay(self, failures: int) -> float:
        """A request's own wait before it tries again after its `failures`-th failure (jittered)."""
        return min(self.backoff_max_s, self.backoff_s * 2 ** max(0, failures - 1)) * random.uniform(0.5, 1.0)

    def _close(self) -> None:
        self.streak = 0
        self.streak_started = None
        self.streak_unreachable = True
        self.breaker_open = False
        self.probing = False
        self.cooldown = self.cooldown_s

    def _say(self, line: str) -> None:
        if self.notify is not None:
            self.notify(line)


# ---------------------------------------------------------------------------------------------
# One request
# ---------------------------------------------------------------------------------------------

@dataclass
class ProviderReply:
    """A 2xx answer: its status, headers, body text (at most MAX_REPLY_BYTES) and parsed JSON
    (None when the body is not JSON: the caller decides what that means)."""

    status: int
    headers: "httpx.Headers"
    text: str
    payload: object = None
    usage: dict[str, int] = field(default_factory=dict)


def provider_message(text: str, secrets: tuple[str, ...]) -> tuple[str, str]:
    """The provider's own error message and the `param` it blames, redacted, then cut."""
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        return redact(text.strip(), secrets, MESSAGE_LIMIT), ""
    error = payload.get("error", payload) if isinstance(payload, dict) else payload
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or json.dumps(error, ensure_ascii=False)
        return redact(str(message), secrets, MESSAGE_LIMIT), redact(str(error.get("param") or ""), secrets, 100)
    return redact(str(error), secrets, MESSAGE_LIMIT), ""


def _failure_in_body(payload: object) -> str | None:
    """Some gateways report a failure inside a 200: an `error` object, or Responses `failed`."""
    if not isinstance(payload, dict):
        return None
    error = payload.get("error")
    if error:
        return str(error.get("message", error) if isinstance(error, dict) else error)
    if payload.get("status") == "failed":
        return 'response status "failed"'
    return None


# The encodings a reply may carry: the harness asks for these only and decodes them itself, with
# a bound on every step (httpx's own decoders inflate a whole network chunk at once: 2 KB of
# `gzip, gzip` became 1 GiB in one call). Another compression (br, zstd) is a failed answer;
# a name that is no compression (identity, junk) is ignored, as httpx ignores it.
ACCEPT_ENCODING = "gzip, deflate"
MAX_ENCODINGS = 4  # `gzip, gzip` is legal; a long stack is only ever a decompression bomb
INFLATE_STEP = 16 * 1024  # the most any decoding step yields at once
_WBITS = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}
_REFUSED = frozenset({"br", "zstd", "compress", "x-compress"})  # compressions this reader cannot bound


class _Inflater:
    """One `Content-Encoding` layer, decoded in steps of at most INFLATE_STEP bytes."""

    def __init__(self, name: str):
        self.name = name
        self.raw_deflate_tried = name != "deflate"  # "deflate" is zlib-wrapped, or raw in old servers
        self.engine = zlib.decompressobj(_WBITS[name])

    def steps(self, data: bytes):
        """The decoded bytes of `data`, step by step (the caller may stop at any step)."""
        while True:
            try:
                out = self.engine.decompress(data, INFLATE_STEP)
            except zlib.error as error:
                if self.raw_deflate_tried:
                    raise _decoding_error(f"{self.name}: {error}") from None
                self.raw_deflate_tried = True
                self.engine = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            self.raw_deflate_tried = True
            data = self.engine.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < INFLATE_STEP:
                return

    def flush(self) -> bytes:
        try:
            return self.engine.flush()  # every step was drained: at most the last window is left
        except zlib.error as error:
            raise _decoding_error(f"{self.name}: {error}") from None


def _decoding_error(message: str) -> Exception:
    import httpx

    return httpx.DecodingError(f"the reply's body cannot be decoded ({message})")


class _BoundedBody:
    """A reply's body decoded layer by layer and counted as it grows: the caller stops at its cap,
    so no layer ever holds more than INFLATE_STEP bytes of output (a bomb costs the cap, not GiB)."""

    def __init__(self, content_encoding: str):
        names = [name.strip().lower() for name in content_encoding.split(",")]
        refused = [name for name in names if name in _REFUSED]
        if refused:
            raise _decoding_error(f"content-encoding {refused[0]!r}, which the harness does not ask for "
                                  f"(Accept-Encoding: {ACCEPT_ENCODING})")
        names = [name for name in names if name in _WBITS]  # others (identity, junk) change nothing, as in httpx
        if len(names) > MAX_ENCODINGS:
            raise _decoding_error(f"{len(names)} stacked content encodings")
        self.layers = [_Inflater(name) for name in reversed(names)]  # the last applied is undone first

    def feed(self, data: bytes, layer: int = 0):
        """The decoded bytes `data` (raw, or the output of layer `layer - 1`) yields, step by step."""
        if layer == len(self.layers):
            if data:
                yield data
            return
        for step in self.layers[layer].steps(data):
            yield from self.feed(step, layer + 1)

    def finish(self, layer: int = 0):
        """What the layers still hold once the raw body has ended."""
        if layer == len(self.layers):
            return
        yield from self.feed(self.layers[layer].flush(), layer + 1)
        yield from self.finish(layer + 1)


def raw_cap(cap: int) -> int:
    """The most raw bytes a body decoding to at most `cap` can take (deflate adds 5 bytes per
    stored block of 16 KB to incompressible data, plus headers)."""
    return cap + cap // 1024 + 1024


async def read_capped(response: "httpx.Response", cap: int) -> tuple[bytes, bool]:
    """At most `cap` bytes of the decoded body; True when there was more (or the raw body alone
    was longer than any body of `cap` bytes can be). Decoded and counted as it arrives."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > raw_cap(cap):
        return b"", True
    body = _BoundedBody(response.headers.get("content-encoding", ""))
    decoded = io.BytesIO()  # getvalue() hands its buffer over: the body is held once

    def over(steps) -> bool:
        for step in steps:
            decoded.write(step)
            if decoded.tell() > cap:
                decoded.truncate(cap)
                return True
        return False

    raw_size = 0
    async for raw in response.aiter_raw():
        raw_size += len(raw)
        if raw_size > raw_cap(cap) or over(body.feed(raw)):
            return decoded.getvalue(), True
    too_large = over(body.finish())
    return decoded.getvalue(), too_large


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def timeout_cause(limit: float, timeout: float) -> str:
    """A timed-out request's cause. A retry gets what is left of the deadline, not the whole
    timeout, and says so; a limit cut by under 0.05 s is shown as the timeout the user gave (not
    "0.998763 s")."""
    if limit < timeout - 0.05:
        return (f"no complete answer within {round(limit, 2):g} s (what was left of the run's deadline; "
                f"the request timeout is {timeout:g} s)")
    return f"no complete answer within {timeout:g} s"


async def send(client: "httpx.AsyncClient", health: ProviderHealth, url: str, body: bytes, headers: dict,
               *, timeout: float, secrets: tuple[str, ...], max_retries: int = 6,
               max_reply_bytes: int = MAX_REPLY_BYTES) -> ProviderReply:
    """POST `body` until a 2xx with a usable body arrives (SPEC §10).

    Transient faults (transport errors, `timeout` seconds without a full answer, 408, 409, 5xx,
    a 200 carrying an error) are retried through `health`; a request's own failures are limited
    to `max_retries` retries (then `ProviderFailing`); 429s are not counted.
    Raises `ProviderRejected` for any other 4xx, `ProviderDown` when the run gives up,
    `ReplyTooLarge` for a 2xx body over `max_reply_bytes`. Every message is redacted.
    """
    import httpx  # heavy: only the provider paths need it

    failures = 0
    first = True
    while True:
        ticket = await health.acquire()
        if not first:
            health.retries += 1
        first = False
        limit = health.time_left(ticket, timeout, retry=failures > 0)
        outcome: str
        cause, kind = "", "transport"
        unreachable = False
        try:
            async with asyncio.timeout(limit):
                async with client.stream("POST", url, content=body,
                                         headers={**headers, "Accept-Encoding": ACCEPT_ENCODING},
                                         timeout=httpx.Timeout(limit)) as response:
                    raw, too_large = await read_capped(response, max_reply_bytes)
            status = response.status_code
        except (httpx.TransportError, httpx.DecodingError, TimeoutError) as error:
            status = 0
            if isinstance(error, TimeoutError) or isinstance(error, httpx.TimeoutException):
                cause, kind = timeout_cause(limit, timeout), "timeout"
            else:
                cause = redact(_describe(error), secrets, MESSAGE_LIMIT)
            unreachable = isinstance(error, httpx.ConnectError)
        except BaseException:
            await health.record_cancel(ticket)
            raise
        if status == 0:
            outcome = "failure"
        elif 200 <= status < 300:
            if too_large:
                await health.record_answer(ticket)
                raise ReplyTooLarge(f"{health.host} sent a reply larger than {max_reply_bytes // 1024} KB "
                                    "(no valid answer is that long)",
                                    hint="check that the endpoint is an OpenAI-compatible API")
            text = raw.decode("utf-8", errors="replace")
            try:
                payload = json.loads(text)
            except (ValueError, RecursionError):  # RecursionError: nested too deeply
                payload = None
            failure = _failure_in_body(payload)
            if failure is None:
                await health.record_success(ticket, response.headers)
                return ProviderReply(status, response.headers, text, payload, usage_of(payload))
            outcome, kind = "failure", "http"
            cause = f"HTTP {status} carrying an error: {redact(failure, secrets, 300)}"
        else:
            text = raw.decode("utf-8", errors="replace")
            message, param = provider_message(text or response.reason_phrase, secrets)
            if status == 429 and "insufficient_quota" not in text:
                outcome = "rate_limited"
            elif status >= 500 and REQUEST_VALIDATION.search(message):
                await health.record_answer(ticket)
                raise ProviderRejected(health.host, status, message, param, validation=True)
            elif status in TRANSIENT_STATUSES or status >= 500:
                outcome, cause, kind = "failure", f"HTTP {status}: {message}", "http"
            else:
                await health.record_answer(ticket)
                raise ProviderRejected(health.host, status, message, param)
        if outcome == "rate_limited":
            await health.record_rate_limit(ticket, retry_after_seconds(response.headers), f"HTTP 429: {message}")
            if health.down is not None:
                raise health.down
            continue
        counts = await health.record_failure(ticket, cause, unreachable=unreachable, kind=kind)
        if health.down is not None:
            raise health.down
        if counts:
            failures += 1
            if failures > max_retries:
                raise ProviderFailing(health.host, cause, failures)
            await asyncio.sleep(health.retry_delay(failures))
