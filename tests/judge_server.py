"""A scripted OpenAI-compatible Judge on 127.0.0.1, shared by the Judge tests and the benchmark.

It speaks `/v1/responses` and `/v1/chat/completions` over plain HTTP/1.1 (keep-alive), records
every request, and answers through a handler: a function from the recorded request to a `Reply`.
The default handler gives valid verdicts read off markers in the candidate text (`[q=0.5]`,
`[s=0]`, ...), so a test can choose scores through its predictions.

In tests: `with JudgeServer(handler) as server: ... server.base_url ...`.
As a process (benchmark): `python tests/judge_server.py --latency 0.1` prints `port N`, serves
until killed; `GET /stats` returns the request count and the peak of requests in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
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
    body: object = None  # dict -> JSON; str -> sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False  # close the connection without answering


Handler = Callable[[Recorded], Reply]


# ---------------------------------------------------------------------------------------------
# Reading prompts and writing answers
# ---------------------------------------------------------------------------------------------

def prompt_of(body: dict) -> str:
    if "input" in body:
        return body["input"]
    return body["messages"][0]["content"]


def candidate_of(prompt: str) -> str:
    """The candidate text between the prompt's CANDIDATE markers."""
    match = re.search(r"<<<CANDIDATE (\w+)>>>\n(.*)\n<<<END CANDIDATE \1>>>", prompt, re.S)
    return match.group(2) if match else ""


def soft_ids_of(prompt: str) -> list[str]:
    """The ids the soft prompt asks for, in its answer template's order."""
    match = re.search(r'\{"scores": \{(.*?)\}\}', prompt)
    return re.findall(r'"(\w+)": S', match.group(1)) if match else []


def is_soft_prompt(prompt: str) -> bool:
    return bool(soft_ids_of(prompt))


def text_reply(path: str, text: str | None, *, incomplete: bool = False,
               refusal: str | None = None) -> Reply:
    """A 200 answer in the shape of the endpoint that `path` names."""
    if path.endswith("/responses"):
        content = ([{"type": "refusal", "refusal": refusal}] if refusal is not None
                   else [{"type": "output_text", "text": text, "annotations": []}])
        body = {"id": "resp_test", "object": "response", "status": "incomplete" if incomplete else "completed",
                "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
                "output": [{"type": "reasoning", "id": "rs_test", "summary": []},
                           {"type": "message", "id": "msg_test", "role": "assistant",
                            "status": "completed", "content": content}]}
        return Reply(body=body)
    message = {"role": "assistant", "content": None if refusal is not None else text, "refusal": refusal}
    body = {"id": "chatcmpl-test", "object": "chat.completion",
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "length" if incomplete else "stop"}]}
    return Reply(body=body)


def marked_score(candidate: str, letter: str) -> float:
    """The score a candidate asks for with `[q=0.5]` / `[s=0]`; 1 when it has no marker."""
    match = re.search(rf"\[{letter}=(0\.5|0|1)\]", candidate)
    return float(match.group(1)) if match else 1.0


def verdict_text(prompt: str) -> str:
    """A valid verdict for `prompt`, scores chosen by the candidate's markers."""
    candidate = candidate_of(prompt)
    ids = soft_ids_of(prompt)
    if ids:
        score = marked_score(candidate, "s")
        return json.dumps({"scores": {cid: score for cid in ids}})
    return json.dumps({"quality": marked_score(candidate, "q")})


def default_handler(request: Recorded) -> Reply:
    return text_reply(request.path, verdict_text(request.prompt))


# ---------------------------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------------------------

class JudgeServer:
    """A background-thread asyncio HTTP server; `requests` lists what it received."""

    def __init__(self, handler: Handler = default_handler, latency: float = 0.0):
        self.handler = handler
        self.latency = latency
        self.requests: list[Recorded] = []
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
                if method == "GET" and path.endswith("/stats"):
                    reply = Reply(body={"requests": len(self.judge_requests()),
                                        "max_in_flight": self.max_in_flight, "cpu_s": time.process_time()})
                else:
                    self.requests.append(request)
                    self.in_flight += 1
                    self.max_in_flight = max(self.max_in_flight, self.in_flight)
                    try:
                        reply = self.handler(request)
                        await asyncio.sleep(self.latency + reply.delay)
                    finally:
                        self.in_flight -= 1
                if reply.drop:
                    return
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode("utf-8")
                head = [f"HTTP/1.1 {reply.status} {REASONS.get(reply.status, 'Status')}",
                        "Content-Type: application/json", f"Content-Length: {len(data)}"]
                head += [f"{name}: {value}" for name, value in reply.headers.items()]
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            return
        finally:
            self._writers.discard(writer)
            writer.close()

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

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(self._serve(ready))
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
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
    args = parser.parse_args(argv)
    server = JudgeServer(latency=args.latency)
    server.port = args.port
    server.start()
    print(f"port {server.port}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
