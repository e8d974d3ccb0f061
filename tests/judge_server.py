"""A scripted OpenAI-compatible Judge on 127.0.0.1, shared by the Judge tests and the benchmark.

It speaks `/v1/responses` and `/v1/chat/completions` over plain HTTP/1.1 (keep-alive), records
every request, and answers through a handler: a function from the recorded request to a `Reply`.
The default handler gives valid verdicts read off markers in the candidate text (`[q=0.5]`,
`[s=0]`, ...), so a test can choose scores through its predictions.

Answers carry what real providers send (ids, `created_at` / `created`, `model`, `usage`), so the
stand-in can sit behind a gateway such as LiteLLM. Fault modes for the provider tests (SPEC §10):
`dead_handler` (every request a 500), `hang_handler` (accepts, never answers), `refused_base_url()`
(nothing listens), `RateLimit` (R requests per window, 429 with any header spelling or none),
`only_429_handler` (every request 429, Retry-After 1), `cooling_handler` (LiteLLM's "No deployments
available" 429), `param_500_handler` (llama-cpp-python's 500 for a body field it rejects),
`invalid_handler` (the same invalid verdict every time; valid on the repair turn, or never),
`JudgeServer(die_after=N)` (stops listening and drops every connection after N requests),
`key_echo_handler` (quotes the Authorization header back in a 401), `key_quoting_handler` (quotes the
key in 200 replies, in each shape of issue 34), `hostile_reply_handler` (an invalid first reply
that no parser may choke on, then a valid repair; with `usage` a count of any size). For calibration
tests, `scripted_handler(decide)` answers each prompt with a valid verdict of its own form carrying
the value `decide(candidate, prompt)` chooses (always right, always top, swayed, unstable, ...).
`varied_handler` is a healthy
Judge for the Judge-health tests: valid verdicts spread over the scale by a hash of the prompt;
`constant_handler(text)` is a degenerate one (the same reply to every prompt). `GET /models`
answers 404 unless a test sets `server.models` (a list of names, or a body); those requests are
recorded in `probes`, not `requests`.

In tests: `with JudgeServer(handler) as server: ... server.base_url ...`.
As a process (benchmark): `python tests/judge_server.py --latency 0.1 [--fault F]` prints `port N`,
serves until killed; `GET /stats` returns the request count, the 429s sent and the peak of
requests in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import itertools
import re
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           408: "Request Timeout", 409: "Conflict", 429: "Too Many Requests",
           500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
SOFT_IDS = ("style_consistency", "term_cross_sentence", "academic_format_preserve",
            "context_disambiguate", "coref_resolution")


STAND_IN_HEADER = "x-stand-in"  # every reply names the stand-in, so a run records that it was one


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    received_at: float

    @property
    def body(self) -> dict:
        return json.loads(self.raw) if self.raw else {}

    @property
    def prompt(self) -> str:
        return prompt_of(self.body)


@dataclass
class Reply:
    status: int = 200
    body: object = None  # dict -> JSON; str -> sent as is (UTF-8); bytes -> sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False  # close the connection without answering
    release: threading.Event | None = None  # after the delay, held until a test sets it (an order, not a time)


Handler = Callable[[Recorded], Reply]


# ---------------------------------------------------------------------------------------------
# Reading prompts and writing answers
# ---------------------------------------------------------------------------------------------

def prompt_of(body: dict) -> str:
    """The first user message's text: the prompt, also inside a repair conversation."""
    conversation = body["input"] if "input" in body else body["messages"]
    if isinstance(conversation, str):
        return conversation
    return conversation[0]["content"]


def is_repair(body: dict) -> bool:
    """A repair turn (SPEC §10): the prompt, the Judge's invalid reply, and the repair message."""
    conversation = body.get("input", body.get("messages"))
    return isinstance(conversation, list) and len(conversation) == 3


def candidate_of(prompt: str) -> str:
    """The candidate text between the prompt's CANDIDATE (IFMTBench: RESPONSE) markers."""
    match = re.search(r"<<<(CANDIDATE|RESPONSE) (\w+)>>>\n(.*)\n<<<END \1 \2>>>", prompt, re.S)
    return match.group(3) if match else ""


def soft_ids_of(prompt: str) -> list[str]:
    """The ids the soft prompt asks for, in its answer template's order."""
    match = re.search(r'\{"scores": \{(.*?)\}\}', prompt)
    return re.findall(r'"(\w+)": S', match.group(1)) if match else []


def is_soft_prompt(prompt: str) -> bool:
    return bool(soft_ids_of(prompt))


_IDS = itertools.count(1)


def token_count(text: str | None) -> int:
    """A stand-in tokenizer: about four characters per token, as providers count English."""
    return max(1, len(text or "") // 4)


def text_reply(path: str, text: str | None, *, incomplete: bool = False,
               refusal: str | None = None, model: str = "gpt-5.6-sol", prompt: str = "") -> Reply:
    """A 200 answer in the shape of the endpoint that `path` names, with the fields real
    providers send (`id`, `created_at` / `created`, `model`, `usage`)."""
    number = next(_IDS)
    input_tokens, output_tokens = token_count(prompt), token_count(text if refusal is None else refusal)
    if path.endswith("/responses"):
        content = ([{"type": "refusal", "refusal": refusal}] if refusal is not None
                   else [{"type": "output_text", "text": text, "annotations": []}])
        body = {"id": f"resp_{number:08x}", "object": "response", "created_at": int(time.time()),
                "model": model, "status": "incomplete" if incomplete else "completed",
                "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
                "output": [{"type": "reasoning", "id": f"rs_{number:08x}", "summary": []},
                           {"type": "message", "id": f"msg_{number:08x}", "role": "assistant",
                            "status": "completed", "content": content}],
                "usage": {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": input_tokens + output_tokens}}
        return Reply(body=body)
    message = {"role": "assistant", "content": None if refusal is not None else text, "refusal": refusal}
    body = {"id": f"chatcmpl-{number:08x}", "object": "chat.completion", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "length" if incomplete else "stop"}],
            "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens,
                      "total_tokens": input_tokens + output_tokens}}
    return Reply(body=body)


def marked_score(candidate: str, letter: str) -> float:
    """The score a candidate asks for with `[q=0.5]` / `[s=0]`; 1 when it has no marker."""
    match = re.search(rf"\[{letter}=(0\.5|0|1)\]", candidate)
    return float(match.group(1)) if match else 1.0


def verdict_text(prompt: str) -> str:
    """A valid verdict for `prompt`, scores chosen by the candidate's markers (IFMTBench's two
    kinds: full marks; tests/ifmtbench/helpers.py chooses them by markers)."""
    if '{"glossary": G}' in prompt:  # IFMTBench's glossary fallback: 0 or 1
        return json.dumps({"glossary": 1})
    if '{"scores": {"style": S, "background": S}}' in prompt:  # IFMTBench's rubric: 0-5 or null
        return json.dumps({"scores": {"style": 5, "background": 5}})
    candidate = candidate_of(prompt)
    ids = soft_ids_of(prompt)
    if ids:
        score = marked_score(candidate, "s")
        return json.dumps({"scores": {cid: score for cid in ids}})
    return json.dumps({"quality": marked_score(candidate, "q")})


def verdict_for(prompt: str, value: float) -> str:
    """A valid verdict of the prompt's own form with `value` everywhere (a scripted Judge's answer):
    quality, every soft id, IFMTBench's two rubric dimensions, or its glossary fallback."""
    if '{"glossary": G}' in prompt:
        return json.dumps({"glossary": int(value)})
    if '{"scores": {"style": S, "background": S}}' in prompt:
        return json.dumps({"scores": {"style": int(value), "background": int(value)}})
    ids = soft_ids_of(prompt)
    if ids:
        return json.dumps({"scores": {cid: value for cid in ids}})
    return json.dumps({"quality": value})


def scripted_handler(decide: Callable[[str, str], float]) -> Handler:
    """The scripting hook for calibration tests: `decide(candidate, prompt)` chooses the value, and
    the reply is a valid verdict of the prompt's form carrying it (a repair turn gets the same)."""
    def handler(request: Recorded) -> Reply:
        prompt = request.prompt
        return text_reply(request.path, verdict_for(prompt, decide(candidate_of(prompt), prompt)),
                          model=str(request.body.get("model", "")), prompt=prompt)
    return handler


def default_handler(request: Recorded) -> Reply:
    body = request.body
    return text_reply(request.path, verdict_text(request.prompt), model=str(body.get("model", "")),
                      prompt=request.prompt)


def _pick(prompt: str, salt: str, choices: tuple) -> object:
    """A choice that depends only on the prompt (and `salt`): the same prompt, the same verdict."""
    digest = hashlib.sha256(f"{salt}\0{prompt}".encode()).digest()
    return choices[int.from_bytes(digest[:4], "big") % len(choices)]


def varied_text(prompt: str) -> str:
    """A valid verdict for `prompt` as a healthy Judge might spread them: quality and soft scores
    1 for half the prompts, 0.5 for a third, 0 for a sixth; IFMTBench's rubric 0-5 or null and its
    glossary 0 or 1, each chosen by a hash of the prompt."""
    scale = (1, 1, 1, 0.5, 0.5, 0)
    if '{"glossary": G}' in prompt:
        return json.dumps({"glossary": _pick(prompt, "g", (0, 1, 1))})
    if '{"scores": {"style": S, "background": S}}' in prompt:
        return json.dumps({"scores": {"style": _pick(prompt, "style", (2, 3, 4, 4, 5, 5)),
                                      "background": _pick(prompt, "background", (None, None, 1, 3, 4, 5))}})
    ids = soft_ids_of(prompt)
    if ids:
        return json.dumps({"scores": {cid: _pick(prompt, cid, scale) for cid in ids}})
    return json.dumps({"quality": _pick(prompt, "q", scale)})


def varied_handler(request: Recorded) -> Reply:
    return text_reply(request.path, varied_text(request.prompt), model=str(request.body.get("model", "")),
                      prompt=request.prompt)


def constant_handler(text: str) -> Handler:
    """A degenerate Judge: `text` for every prompt, whatever it asks."""
    def handler(request: Recorded) -> Reply:
        return text_reply(request.path, text, model=str(request.body.get("model", "")), prompt=request.prompt)
    return handler


# ---------------------------------------------------------------------------------------------
# Fault modes (SPEC §10)
# ---------------------------------------------------------------------------------------------

def dead_handler(request: Recorded) -> Reply:
    """A provider that is down: every request a 500."""
    return Reply(500, {"error": {"message": "upstream connect error", "type": "server_error"}})


def hang_handler(request: Recorded) -> Reply:
    """A provider that accepts the request and never answers."""
    return Reply(delay=86400.0)


def key_echo_handler(request: Recorded) -> Reply:
    """A gateway that quotes the Authorization header back in its 401 (a leak the client must redact)."""
    return Reply(401, {"error": {"message": f"Authentication Error, invalid header {request.headers.get('authorization')!r}"
                                            f" ({request.headers.get('authorization', '')[:20]}...)",
                                 "type": "auth_error"}})


def only_429_handler(request: Recorded) -> Reply:
    """A provider that only rate-limits: every request a 429 with `Retry-After: 1`."""
    return Reply(429, {"error": {"message": "Rate limit reached for requests", "type": "requests",
                                 "code": "rate_limit_exceeded"}}, {"retry-after": "1"})


def cooling_handler(seconds: int = 5) -> Handler:
    """A LiteLLM router whose every upstream is cooling down: 429 "No deployments available"."""
    def handler(request: Recorded) -> Reply:
        message = (f"No deployments available for selected model, Try again in {seconds} seconds. Passed "
                   f"model={request.body.get('model')}. pre-call-checks=False, cooldown_list=[('d1', {{}})]")
        return Reply(429, {"error": {"message": message, "type": "None", "param": "None", "code": "429"}},
                     {"retry-after": str(seconds), "x-litellm-version": "1.108.7"})
    return handler


def param_500_handler(request: Recorded) -> Reply:
    """llama-cpp-python refusing a body field it does not know: HTTP 500 with its validation error."""
    return Reply(500, {"error": {"message": "[{'type': 'extra_forbidden', 'loc': ('body', 'bogus_field'), "
                                            "'msg': 'Extra inputs are not permitted', 'input': 1}]",
                                 "type": "internal_server_error"}})


def invalid_handler(repairable: bool = True) -> Handler:
    """A Judge at temperature 0 that gives the same invalid verdict every time (a prose score);
    `repairable`: it answers the repair turn with a valid verdict."""
    def handler(request: Recorded) -> Reply:
        body = request.body
        text = (verdict_text(request.prompt) if repairable and is_repair(body)
                else "Quality: 1 (the translation is accurate)")
        return text_reply(request.path, text, model=str(body.get("model", "")), prompt=request.prompt)
    return handler


KEY_SHAPES = ("repair", "fence", "prose")


def sent_key(request: Recorded) -> str:
    return request.headers.get("authorization", "").removeprefix("Bearer ")


def key_quoting_handler(shape: str) -> Handler:
    """A Judge that quotes the API key it was sent (SPEC §10: no piece of it may reach a file):
    `repair` an invalid first reply holding it, then a valid repair; `fence` a valid verdict in a
    fence whose language tag is the key's longest run of letters; `prose` the key around the verdict
    a release reads (IFMTBench's glossary: the first 0 or 1 standing alone, the key's own if it has
    one; a rubric: the object between the first { and the last })."""
    if shape not in KEY_SHAPES:
        raise ValueError(shape)

    def handler(request: Recorded) -> Reply:
        body, key = request.body, sent_key(request)
        verdict = verdict_text(request.prompt)
        if shape == "repair":
            text = verdict if is_repair(body) else f"Judged with key {key}: {verdict}"
        elif shape == "fence":
            text = f"```{max(re.findall('[A-Za-z]+', key), key=len)}\n{verdict}\n```"
        else:
            text = f"Judged with key {key}. Verdict: 1" if "0 or 1" in request.prompt else f"Key {key}: {verdict}"
        return text_reply(request.path, text, model=str(body.get("model", "")), prompt=request.prompt)
    return handler


def hostile_reply_handler(first: str | None = None, usage: int | None = None) -> Handler:
    """`first` as the first reply to every prompt and a valid verdict on the repair turn (None: a
    valid verdict at once); `usage` as every reply's prompt_tokens / input_tokens and total."""
    def handler(request: Recorded) -> Reply:
        body = request.body
        text = verdict_text(request.prompt) if first is None or is_repair(body) else first
        reply = text_reply(request.path, text, model=str(body.get("model", "")), prompt=request.prompt)
        if usage is not None:
            counts = reply.body["usage"]
            counts["prompt_tokens" if "prompt_tokens" in counts else "input_tokens"] = usage
            counts["total_tokens"] = usage
        return reply
    return handler


def refused_base_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens: connections are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


RATE_HEADERS = ("retry-after", "retry-after-ms", "x-ratelimit-reset-requests", "llm_provider-retry-after",
                "retry-after-date", None)


class RateLimit:
    """A handler that allows `rate` requests per `window` seconds (fixed windows) and answers the
    rest 429, announcing the window's end with one `header` spelling, or with none (`header=None`).
    `retry-after` is rounded up to whole seconds, as HTTP writes it; `retry-after-date` sends the
    HTTP-date form of Retry-After. `clock` times the windows: a test that skips the client's pauses
    on virtual time (tests/quick_health.py) passes the same clock, so the window ends as the pause does."""

    def __init__(self, rate: int, header: str | None = "retry-after", window: float = 1.0,
                 inner: Handler = None, clock: Callable[[], float] = time.monotonic):
        self.rate, self.header, self.window, self.clock = rate, header, window, clock
        self.inner = inner or default_handler
        self.window_start = 0.0
        self.used = 0
        self.rejected = 0

    def __call__(self, request: Recorded) -> Reply:
        now = self.clock()
        if now - self.window_start >= self.window:
            self.window_start, self.used = now - (now - self.window_start) % self.window if self.window_start else now, 0
        left = self.window - (now - self.window_start)
        if self.used < self.rate:
            self.used += 1
            reply = self.inner(request)
            if self.header == "x-ratelimit-reset-requests":  # OpenAI sends these on every answer
                reply.headers.update({"x-ratelimit-limit-requests": str(self.rate),
                                      "x-ratelimit-remaining-requests": str(self.rate - self.used),
                                      "x-ratelimit-reset-requests": f"{int(left * 1000) + 1}ms"})
            return reply
        self.rejected += 1
        headers = {}
        if self.header == "retry-after":
            headers["Retry-After"] = str(max(1, int(-(-left // 1))))
        elif self.header == "retry-after-date":
            import email.utils
            headers["Retry-After"] = email.utils.formatdate(time.time() + left + 1, usegmt=True)
        elif self.header == "retry-after-ms":
            headers["retry-after-ms"] = str(int(left * 1000) + 1)
        elif self.header == "x-ratelimit-reset-requests":
            headers["x-ratelimit-reset-requests"] = f"{int(left * 1000) + 1}ms"
            headers["x-ratelimit-remaining-requests"] = "0"
        elif self.header == "llm_provider-retry-after":
            headers["llm_provider-retry-after"] = str(max(1, int(-(-left // 1))))
        return Reply(429, {"error": {"message": "Rate limit reached for requests", "type": "requests",
                                     "code": "rate_limit_exceeded"}}, headers)


# ---------------------------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------------------------

class JudgeServer:
    """A background-thread asyncio HTTP server; `requests` lists what it received."""

    identity = "tests/judge_server.py, a stand-in Judge for tests and demonstrations"
    intercept_models = True  # GET /models answered from `models` (a subclass may pass it to its handler)

    def __init__(self, handler: Handler = default_handler, latency: float = 0.0, die_after: int | None = None):
        self.handler = handler
        self.latency = latency
        self.die_after = die_after  # after this many requests: stop listening, drop every connection
        self.dead = False
        self.died_at: float | None = None
        self.requests: list[Recorded] = []
        self.models: list[str] | dict | str | None = None  # GET /models: None answers 404 (no list)
        self.probes: list[Recorded] = []  # the GET /models requests (not in `requests`)
        self.in_flight = 0
        self.max_in_flight = 0
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def judge_requests(self) -> list[Recorded]:
        return [request for request in self.requests if request.method == "POST"]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers = {}
                while True:
                    header = await reader.readline()
                    if header in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = header.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                raw = await reader.readexactly(int(headers.get("content-length", "0")))
                request = Recorded(method, path, headers, raw, time.monotonic())
                if method == "GET" and path.endswith("/models") and self.intercept_models:  # the model list
                    self.probes.append(request)
                    reply = (Reply(404, {"error": {"message": "not found"}}) if self.models is None
                             else Reply(body=self.models if isinstance(self.models, (dict, str))
                                        else {"object": "list", "data": [{"id": name, "object": "model",
                                                                          "owned_by": "me"} for name in self.models]}))
                elif method == "GET" and path.endswith("/stats"):
                    reply = Reply(body={"requests": len(self.judge_requests()),
                                        "rate_limited": getattr(self.handler, "rejected", 0),
                                        "max_in_flight": self.max_in_flight, "cpu_s": time.process_time()})
                else:
                    self.requests.append(request)
                    if self.die_after is not None and len(self.judge_requests()) > self.die_after:
                        self._die()
                        return
                    self.in_flight += 1
                    self.max_in_flight = max(self.max_in_flight, self.in_flight)
                    try:
                        reply = self.handler(request)
                        await asyncio.sleep(self.latency + reply.delay)
                        while reply.release is not None and not reply.release.is_set():
                            await asyncio.sleep(0.005)
                    finally:
                        self.in_flight -= 1
                if reply.drop:
                    return
                if isinstance(reply.body, bytes):  # sent as is (an encoded body: its headers say how)
                    data = reply.body
                else:
                    data = (reply.body if isinstance(reply.body, str) else json.dumps(reply.body)).encode("utf-8")
                head = [f"HTTP/1.1 {reply.status} {REASONS.get(reply.status, 'Status')}",
                        "Content-Type: application/json", f"Content-Length: {len(data)}"]
                head += [f"{name}: {value}" for name, value in reply.headers.items()]
                if self.identity and not any(name.lower() == STAND_IN_HEADER for name in reply.headers):
                    head.append(f"{STAND_IN_HEADER}: {self.identity}")  # a test double says so (docs/judge.md)
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            return
        except asyncio.CancelledError:  # the server stops with requests held (hang mode): no noise
            return
        finally:
            self._writers.discard(writer)
            writer.close()

    def _die(self) -> None:
        """The provider process is gone: nothing listens and open connections are reset."""
        if not self.dead:
            self.dead = True
            self.died_at = time.time()
            self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()

    async def _serve(self, ready: threading.Event) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        ready.set()

    async def _shutdown(self) -> None:
        self._server.close()
        for writer in list(self._writers):
            writer.close()
        current = asyncio.current_task()
        tasks = [task for task in asyncio.all_tasks() if task is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def start(self) -> "JudgeServer":
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()

        failed: list[BaseException] = []

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            try:
                self._loop.run_until_complete(self._serve(ready))
            except BaseException as error:  # a busy --port: said at once, not after the wait below
                failed.append(error)
                ready.set()
                return
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        if failed:
            self._thread.join()
            self._loop.close()
            self._loop = None
            raise failed[0]
        return self

    def stop(self) -> None:
        if self._loop is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self._loop = None

    def __enter__(self) -> "JudgeServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted local Judge server (valid verdicts).")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds before each answer")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fault", default="none",
                        help="none | dead | hang | key-echo | only-429 | cooling:SECONDS | param-500 | "
                             "invalid | invalid-always | dies-after:N | rate:R:HEADER "
                             f"(HEADER one of {', '.join(str(h) for h in RATE_HEADERS)}, 'none' for no header)")
    args = parser.parse_args(argv)
    handler, die_after = default_handler, None
    if args.fault == "dead":
        handler = dead_handler
    elif args.fault == "hang":
        handler = hang_handler
    elif args.fault == "key-echo":
        handler = key_echo_handler
    elif args.fault == "only-429":
        handler = only_429_handler
    elif args.fault.startswith("cooling:"):
        handler = cooling_handler(int(args.fault.split(":", 1)[1]))
    elif args.fault == "param-500":
        handler = param_500_handler
    elif args.fault in ("invalid", "invalid-always"):
        handler = invalid_handler(repairable=args.fault == "invalid")
    elif args.fault.startswith("dies-after:"):
        die_after = int(args.fault.split(":", 1)[1])
    elif args.fault.startswith("rate:"):
        _, rate, header = args.fault.split(":", 2)
        handler = RateLimit(int(rate), None if header == "none" else header)
    elif args.fault != "none":
        parser.error(f"unknown --fault {args.fault}")
    server = JudgeServer(handler, latency=args.latency, die_after=die_after)
    server.port = args.port
    server.start()
    print(f"port {server.port}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:  # the counts survive a server that stopped listening (dies-after)
        print(json.dumps({"requests": len(server.judge_requests()), "rate_limited": getattr(handler, "rejected", 0),
                          "max_in_flight": server.max_in_flight, "died_at": server.died_at}), flush=True)
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
