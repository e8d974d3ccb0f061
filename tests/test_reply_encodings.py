"""One reply costs at most the reply cap whatever its Content-Encoding (issue 34 item 3).

httpx's own decoders inflate each network chunk whole (2 KB of `gzip, gzip` became 1 GiB in one
call), so eval/providers/health.py reads the raw body and decodes it itself, counting as it goes. Real
bombs from a stand-in on 127.0.0.1; memory is compared with the bomb's decoded size (a ratio),
never with a fixed figure."""

from __future__ import annotations

import asyncio
import functools
import gzip
import json
import tracemalloc
import zlib

import httpx
import pytest

from eval.errors import HarnessError, JudgeError
from eval.prediction.runner import MAX_REPLY_BYTES as PREDICT_CAP
from eval.providers.health import (
    ACCEPT_ENCODING,
    MAX_REPLY_BYTES,
    ProviderFailing,
    ReplyTooLarge,
    raw_cap,
    read_capped,
)
from judge_server import JudgeServer, Reply, text_reply
from model_server import ModelServer
from test_judge_faults import items, judge_instances, settings_for
from test_predict import ROWS, predict
from test_provider import health_for, send_many

BOMB_SIZE = 48 * 1024 * 1024  # decoded; the old reader held all of it (and 1 GiB as readily)


def deflate(data: bytes, wbits: int) -> bytes:
    engine = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return engine.compress(data) + engine.flush()


def zeros_encoded(size: int, wbits: int) -> bytes:
    """`size` zero bytes compressed, built in steps (the test never holds the decoded body)."""
    engine, block, parts = zlib.compressobj(9, zlib.DEFLATED, wbits), bytes(1 << 20), []
    for _ in range(size >> 20):
        parts.append(engine.compress(block))
    return b"".join(parts) + engine.flush()


GZIP, ZLIB, RAW = zlib.MAX_WBITS | 16, zlib.MAX_WBITS, -zlib.MAX_WBITS
BOMBS = {  # name -> (Content-Encoding, how its body is built)
    "gzip": ("gzip", lambda: zeros_encoded(BOMB_SIZE, GZIP)),
    "gzip, gzip": ("gzip, gzip", lambda: deflate(zeros_encoded(BOMB_SIZE, GZIP), GZIP)),
    "deflate": ("deflate", lambda: zeros_encoded(BOMB_SIZE, ZLIB)),
    "raw deflate": ("deflate", lambda: zeros_encoded(BOMB_SIZE, RAW)),
    "deflate, gzip": ("deflate, gzip", lambda: deflate(zeros_encoded(BOMB_SIZE, ZLIB), GZIP)),
}


@functools.cache
def bomb(name: str) -> tuple[str, bytes]:
    """(Content-Encoding, body) of a named bomb, compressed on first use (about 0.2 s each): not at
    import, which every pytest-xdist worker pays while collecting. Taken before any memory is traced."""
    encoding, build = BOMBS[name]
    return encoding, build()


def bomb_handler(encoding: str, body: bytes):
    return lambda request: Reply(body=body, headers={"Content-Encoding": encoding})


def peak_of(call):
    """(what `call()` returned or raised, the peak of Python memory while it ran)."""
    tracemalloc.start()
    try:
        try:
            outcome = call()
        except HarnessError as error:
            outcome = error
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_a_decompression_bomb_is_too_large_at_the_cost_of_the_cap(name):
    encoding, body = bomb(name)
    assert len(body) < MAX_REPLY_BYTES  # a small raw body: only the decoded count can refuse it
    with JudgeServer(bomb_handler(encoding, body)) as server:
        health = health_for(server.base_url)
        (outcome,), peak = peak_of(lambda: asyncio.run(send_many(server.base_url, 1, health)))
    assert isinstance(outcome, ReplyTooLarge) and "larger than 64 KB" in str(outcome)
    assert peak < BOMB_SIZE / 32  # the cap and a few decoding steps, not the decoded body
    assert len(server.requests) == 1


@pytest.mark.parametrize("encoding", ["gzip", "gzip, gzip", "deflate", "x-gzip", "identity, gzip"])
def test_an_encoded_answer_under_the_cap_reads_as_the_plain_one(encoding):
    plain = json.dumps(text_reply("/v1/chat/completions", '{"score": 0.5}').body).encode()
    body = plain
    for name in [part.strip() for part in encoding.split(",")]:
        body = {"gzip": gzip.compress, "x-gzip": gzip.compress, "deflate": lambda data: deflate(data, ZLIB),
                "identity": lambda data: data}[name](body)
    with JudgeServer(bomb_handler(encoding, body)) as server:
        health = health_for(server.base_url)
        (reply,) = asyncio.run(send_many(server.base_url, 1, health))
    assert reply.text.encode() == plain
    assert server.requests[0].headers["accept-encoding"] == ACCEPT_ENCODING


@pytest.mark.parametrize("encoding, words", [("br", "content-encoding 'br'"), ("zstd", "content-encoding 'zstd'"),
                                             ("gzip, " * 5, "5 stacked content encodings")])
def test_an_encoding_the_harness_did_not_ask_for_is_a_failed_answer(encoding, words):
    with JudgeServer(bomb_handler(encoding.rstrip(", "), b"\x00" * 100)) as server:
        health = health_for(server.base_url, failure_threshold=100)
        (outcome,) = asyncio.run(send_many(server.base_url, 1, health, max_retries=1))
    assert isinstance(outcome, ProviderFailing) and words in str(outcome)


def test_a_corrupt_gzip_body_is_a_failed_answer():
    with JudgeServer(bomb_handler("gzip", gzip.compress(b"{}" * 100)[:-12] + b"garbage!" * 2)) as server:
        health = health_for(server.base_url, failure_threshold=100)
        (outcome,) = asyncio.run(send_many(server.base_url, 1, health, max_retries=0))
    assert isinstance(outcome, ProviderFailing) and "cannot be decoded" in str(outcome)


class _Stream(httpx.AsyncByteStream):
    def __init__(self, chunks):
        self.chunks = chunks

    async def __aiter__(self):
        for chunk in self.chunks:
            yield chunk


@pytest.mark.parametrize("cap", [1, 1000, 70_000])
def test_the_raw_body_is_capped_too_and_the_cap_is_inclusive(cap):
    """No Content-Length (chunked): an identity body of `cap` bytes is read whole, one more byte is
    too large, and raw bytes past `raw_cap` stop the read whatever they would decode to."""
    def read(chunks, encoding=""):
        headers = {"content-encoding": encoding} if encoding else {}
        response = httpx.Response(200, headers=headers, stream=_Stream(chunks))
        return asyncio.run(read_capped(response, cap))
    assert read([b"a" * cap]) == (b"a" * cap, False)
    assert read([b"a" * cap, b"b"]) == (b"a" * cap, True)
    stored = zlib.compressobj(0, zlib.DEFLATED, ZLIB)  # stored blocks: raw is a little over decoded
    body = stored.compress(bytes(range(256)) * (cap // 256 + 1)) + stored.flush()
    assert len(body) <= raw_cap(cap) or cap < 256
    assert read([body[i:i + 999] for i in range(0, len(body), 999)], "deflate")[1] is True
    assert read([b"\x00" * (raw_cap(cap) + 1)], "unknown-but-identity")[1] is True


def test_a_judge_run_refuses_a_bomb_as_too_large_and_caches_nothing(tmp_path):
    encoding, body = bomb("gzip, gzip")
    with JudgeServer(bomb_handler(encoding, body)) as server:
        caught, peak = peak_of(lambda: judge_instances(items(2), settings_for(server.base_url),
                                                       tmp_path / "c.sqlite"))
    assert isinstance(caught, JudgeError) and "larger than 64 KB" in str(caught) and caught.exit_status == 3
    assert peak < BOMB_SIZE / 16


class BombModel(ModelServer):
    """The stand-in model whose answers (or whose /models list) are a `gzip, gzip` bomb."""

    def __init__(self, *args, where: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.where = where
        self.bomb = bomb("gzip, gzip")

    def answer(self, request):
        is_list = request.method == "GET"
        if (self.where == "models") == is_list:
            return bomb_handler(*self.bomb)(request)
        return super().answer(request)


def test_predict_refuses_a_bomb_answer_as_too_large(tmp_path):
    with BombModel(ROWS, where="answers") as server:
        caught, peak = peak_of(lambda: predict(server, tmp_path, concurrency=1))
    assert isinstance(caught, HarnessError) and "larger than 8192 KB" in str(caught)
    assert peak < 3 * PREDICT_CAP < BOMB_SIZE  # the cap of predict's one reply, not the decoded body


def test_predict_reads_past_a_bomb_at_models_within_the_cap(tmp_path):
    with BombModel(ROWS, where="models") as server:
        result, peak = peak_of(lambda: predict(server, tmp_path, concurrency=1))
    assert not isinstance(result, HarnessError) and result.meta["engine"].get("id") is None  # the list is ignored
    assert len(server.posts()) == len(ROWS)
    assert peak < 3 * PREDICT_CAP < BOMB_SIZE
