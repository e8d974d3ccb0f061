"""`evaluate.py --judge-batch` (SPEC §18): the Judge requests the cache does not hold, sent as
OpenAI Batch jobs, their answers put into the cache as the online path would, before the online
pass that follows serves them as cache hits.

Every request line is `custom_id` = the cache key and `body` = the very bytes the online path
sends (eval/providers/batch_files.py splices them in), split to the Batch API's limits. Nothing is paid
twice: each input file is recorded in the cache's `judge_batches` table before its batch is
created, and the batch id the moment it is; a rerun after a kill re-attaches to the recorded
batches (a file recorded without its batch is looked up in the provider's batch list by its file
id before a batch is created for it). Answers go through the online path's reply reading and
validation: a valid verdict is cached; an invalid one is cached for its repair turn (asked
online, as every repair) or, with --judge-repairs 0, aborts the run as online. Lines that failed,
expired, were cancelled or never came back stay uncached, so the online pass asks them within the
run's own fault bounds. Time is the caller's: `clock` and `sleep` are injectable, and the wait is
bounded by --judge-batch-wait (a run stopped there exits like an interrupted run and re-attaches
on its rerun).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Callable

from eval.providers import openai_api
from eval.providers.batch_files import ENDPOINT_PATHS, MAX_BYTES, MAX_LINES, outcome_of, request_line, split_lines
from eval.errors import HarnessError, JudgeError
from eval.judge.cache import ensure_batch_table, read_reply, write_reply
from eval.judge.cache import cache_key
from eval.judge_client import JudgeRequest, VerdictError, first_body, reply_text, request_url
from eval.providers.redaction import redact

FINAL = frozenset({"completed", "failed", "expired", "cancelled"})
MAX_JSON_BYTES = 4 * 1024 * 1024     # one batch object or list page
MAX_LINE_BYTES = 1024 * 1024         # one output line (a verdict reply is capped at 64 KB online)
LIST_PAGES = 20                      # pages of 100 batches looked through to find a lost batch id
HTTP_TIMEOUT_S = 120.0
CLOCK: Callable[[], float] = time.monotonic  # the run's clock and sleep, looked up at each call:
SLEEP: Callable[[float], None] = time.sleep  # tests replace them (no real waits)


class BatchWaitStopped(HarnessError):
    """--judge-batch-wait ran out with batches still running: stop like an interrupted run (exit
    130); their ids are in the cache and the rerun re-attaches."""

    exit_status = 130


@dataclass
class BatchReport:
    """What the batch phase did (the summary's `judge.batch`)."""

    batches: int = 0
    created: int = 0
    reattached: int = 0
    lines: int = 0
    answered: int = 0
    failed: int = 0          # error lines, unreadable answers and lines never returned: asked online
    cancelled: list = field(default_factory=list)
    failed_batches: list = field(default_factory=list)
    usage: dict = field(default_factory=dict)  # prompt name -> token counts of the batch answers

    def add_usage(self, name: str, usage: dict[str, int], cached: int | None) -> None:
        totals = self.usage.setdefault(name, {"replies": 0, "input_tokens": 0, "output_tokens": 0, "total_tokens": 0})
        totals["replies"] += 1
        for key in ("input_tokens", "output_tokens", "total_tokens"):
            totals[key] += usage.get(key, 0)
        if cached is not None:
            totals["cached_input_tokens"] = totals.get("cached_input_tokens", 0) + cached

    def block(self) -> dict:
        return {"batches": self.batches, "created": self.created, "reattached": self.reattached,
                "lines": self.lines, "answered": self.answered, "retried_online": self.failed,
                "cancelled": self.cancelled, "failed_batches": self.failed_batches,
                "usage": {name: dict(counts) for name, counts in sorted(self.usage.items())}}


class BatchClient:
    """The Files and Batches endpoints, synchronous, every body read with a cap, every message
    redacted of the key."""

    def __init__(self, api_base: str, api_key: str, timeout: float = HTTP_TIMEOUT_S):
        import httpx

        self.base = api_base
        self.key = api_key
        self.headers = openai_api.auth_headers(api_key)
        self.client = httpx.Client(timeout=timeout)
        self.stand_in: str | None = None  # what the last result file's x-stand-in header said (a test double)

    def close(self) -> None:
        self.client.close()

    def url(self, suffix: str) -> str:
        return openai_api._under_base(self.base, suffix)

    def _fail(self, what: str, detail: str) -> JudgeError:
        return JudgeError(redact(f"the Judge's Batch API failed to {what}: {detail}", (self.key,), 600),
                          hint="batch and file ids already created are stored in the Judge cache: rerun the same "
                               "command to re-attach")

    def _json(self, what: str, method: str, suffix: str, **options) -> dict:
        import httpx

        headers = self.headers if "json" in options else {  # httpx sets a multipart upload's own type
            name: value for name, value in self.headers.items() if name.lower() != "content-type"}
        try:
            with self.client.stream(method, self.url(suffix), headers=headers, **options) as response:
                data = bytearray()
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) > MAX_JSON_BYTES:
                        raise self._fail(what, f"the answer is larger than {MAX_JSON_BYTES} bytes")
                status = response.status_code
        except httpx.HTTPError as error:
            raise self._fail(what, f"{type(error).__name__}: {error}") from None
        try:
            payload = json.loads(bytes(data))
        except ValueError:
            payload = None
        if status != 200 or not isinstance(payload, dict):
            message = payload.get("error") if isinstance(payload, dict) else None
            message = message.get("message") if isinstance(message, dict) else bytes(data[:300]).decode("utf-8", "replace")
            raise self._fail(what, f"HTTP {status}: {message}")
        return payload

    def upload(self, content: bytes) -> str:
        payload = self._json("upload a request file", "POST", "/files", data={"purpose": "batch"},
                             files={"file": ("judge_batch.jsonl", content, "application/jsonl")})
        return _id(payload, "file", self._fail)

    def create(self, file_id: str, endpoint: str) -> dict:
        return self._json("create a batch", "POST", "/batches", json={
            "input_file_id": file_id, "endpoint": endpoint, "completion_window": "24h",
            "metadata": {"harness": "insttrans-bench judge"}})

    def retrieve(self, batch_id: str) -> dict:
        return self._json("retrieve a batch", "GET", f"/batches/{batch_id}")

    def find_by_file(self, file_id: str) -> dict | None:
        """The batch created for `file_id` (its id was lost to a kill between create and record)."""
        after = None
        for _ in range(LIST_PAGES):
            page = self._json("list batches", "GET", "/batches", params={"limit": 100, **({"after": after} if after else {})})
            data = [entry for entry in page.get("data") or [] if isinstance(entry, dict)]
            for entry in data:
                if entry.get("input_file_id") == file_id:
                    return entry
            if not page.get("has_more") or not data:
                return None
            after = data[-1].get("id")
        return None

    def lines(self, file_id: str):
        """The lines of an output / error file, each capped at MAX_LINE_BYTES (a longer one is
        yielded as None: unreadable, asked online)."""
        import httpx

        try:
            with self.client.stream("GET", self.url(f"/files/{file_id}/content"), headers=self.headers) as response:
                if response.status_code == 404:  # deleted, or past the provider's retention
                    raise ResultFileGone(file_id)
                if response.status_code != 200:
                    raise self._fail("download a result file", f"HTTP {response.status_code}")
                self.stand_in = openai_api.stand_in_of(response.headers)
                pending, skipping = bytearray(), False
                for chunk in response.iter_bytes():
                    while chunk:
                        cut = chunk.find(b"\n")
                        piece, chunk = (chunk, b"") if cut < 0 else (chunk[:cut], chunk[cut + 1:])
                        if not skipping:
                            pending += piece
                            if len(pending) > MAX_LINE_BYTES:
                                pending, skipping = bytearray(), True
                        if cut >= 0:
                            yield None if skipping else bytes(pending)
                            pending, skipping = bytearray(), False
                if pending or skipping:
                    yield None if skipping else bytes(pending)
        except httpx.HTTPError as error:
            raise self._fail("download a result file", f"{type(error).__name__}: {error}") from None


class ResultFileGone(Exception):
    """A finished batch's output or error file is no longer there (HTTP 404): its requests are
    asked online, as a failed line's are, instead of failing every rerun the same way."""


def _id(payload: dict, kind: str, fail) -> str:
    value = payload.get("id")
    if not isinstance(value, str) or not value or len(value) > 200:
        raise fail(f"read the new {kind}'s id", "the answer has no id")
    return value


def _status(batch: dict) -> str:
    status = batch.get("status")
    return status if isinstance(status, str) and len(status) < 40 else "unknown"


def _counts(batch: dict) -> tuple[int, int, int]:
    counts = batch.get("request_counts") if isinstance(batch.get("request_counts"), dict) else {}

    def number(name: str) -> int:
        value = counts.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

    return number("completed"), number("failed"), number("total")


def fill_cache_by_batch(requests: list[JudgeRequest], settings, shape, cache: sqlite3.Connection,
                        notify: Callable[[str], None], *, clock: Callable[[], float] | None = None,
                        sleep: Callable[[float], None] | None = None, max_lines: int = MAX_LINES,
                        max_bytes: int = MAX_BYTES) -> BatchReport:
    """Send what the cache lacks as Batch jobs (or re-attach), wait, and cache the answers."""
    kind = settings.endpoint_kind if shape is None else shape.kind
    url = request_url(settings, shape)
    planned: dict[str, tuple[bytes, JudgeRequest]] = {}
    for request in requests:
        body = first_body(settings, shape, request)
        key = cache_key(url, body)
        if key not in planned and read_reply(cache, key) is None:
            planned[key] = (body, request)
    ensure_batch_table(cache)
    report = BatchReport()
    client = BatchClient(settings.api_base, settings.api_key)
    try:
        rows = _open_rows(cache)
        covered = {key for row in rows for key in row["keys"]}
        report.reattached = sum(row["batch_id"] is not None for row in rows)
        if rows:
            notify(f"re-attaching to {len(rows)} Judge batch(es) recorded in the cache")
        for row in rows:  # a file recorded without its batch: find the batch, or create it now
            if row["batch_id"] is None:
                found = client.find_by_file(row["file_id"])
                batch = found if found is not None else client.create(row["file_id"], ENDPOINT_PATHS[kind])
                report.created += found is None
                row["batch_id"] = _id(batch, "batch", client._fail)
                _record_batch(cache, row["file_id"], row["batch_id"], _status(batch))
        new = [(key, planned[key][0]) for key in planned if key not in covered]
        if new:
            lines = (request_line(key, kind, body) for key, body in new)
            offset = 0
            for part in split_lines(lines, max_lines, max_bytes):  # in order: the part's keys are the next ones
                keys = [key for key, _ in new[offset:offset + len(part)]]
                offset += len(part)
                file_id = client.upload(b"".join(part))
                _record_file(cache, file_id, ENDPOINT_PATHS[kind], keys)  # before the batch exists
                batch = client.create(file_id, ENDPOINT_PATHS[kind])
                batch_id = _id(batch, "batch", client._fail)
                _record_batch(cache, file_id, batch_id, _status(batch))  # before any wait
                report.created += 1
                rows.append({"file_id": file_id, "batch_id": batch_id, "keys": keys})
            notify(f"sent {len(new)} Judge request(s) as {report.created} batch(es); waiting "
                   f"(batch ids are in the cache: a rerun re-attaches)")
        report.batches = len(rows)
        finals = _wait(client, rows, settings, notify, clock or CLOCK, sleep or SLEEP)
        for row in rows:
            _collect(client, cache, row, finals[row["batch_id"]], planned, settings, kind, report, notify)
    finally:
        client.close()
    return report


def _open_rows(cache: sqlite3.Connection) -> list[dict]:
    return [{"file_id": file_id, "batch_id": batch_id, "keys": json.loads(keys)} for file_id, batch_id, keys in
            cache.execute("SELECT input_file_id, batch_id, keys FROM judge_batches WHERE collected_at IS NULL "
                          "ORDER BY created_at")]


def _record_file(cache: sqlite3.Connection, file_id: str, endpoint: str, keys: list[str]) -> None:
    cache.execute("INSERT OR REPLACE INTO judge_batches (input_file_id, batch_id, endpoint, keys, status, created_at,"
                  " collected_at) VALUES (?, NULL, ?, ?, 'uploaded', ?, NULL)",
                  (file_id, endpoint, json.dumps(keys), time.time()))


def _record_batch(cache: sqlite3.Connection, file_id: str, batch_id: str, status: str) -> None:
    cache.execute("UPDATE judge_batches SET batch_id = ?, status = ? WHERE input_file_id = ?",
                  (batch_id, status, file_id))


def _wait(client: BatchClient, rows: list[dict], settings, notify, clock, sleep) -> dict[str, dict]:
    """Poll every batch until all are final; a truthful line per poll; BatchWaitStopped past the wait."""
    start = clock()
    finals: dict[str, dict] = {}
    last = None
    while True:
        states = {}
        for row in rows:
            batch_id = row["batch_id"]
            batch = finals.get(batch_id) or client.retrieve(batch_id)
            states[batch_id] = batch
            if _status(batch) in FINAL:
                finals[batch_id] = batch
        done = sum(_counts(batch)[0] for batch in states.values())
        failed = sum(_counts(batch)[1] for batch in states.values())
        total = sum(_counts(batch)[2] or len(row["keys"]) for row, batch in zip(rows, states.values()))
        by_status: dict[str, int] = {}
        for batch in states.values():
            by_status[_status(batch)] = by_status.get(_status(batch), 0) + 1
        elapsed = clock() - start
        line = (f"Judge batch: {', '.join(f'{count} {name}' for name, count in sorted(by_status.items()))}; "
                f"{done}/{total} requests done, {failed} failed; {elapsed:.0f} s elapsed")
        if line != last:
            notify(line)
            last = line
        if len(finals) == len(rows):
            return finals
        if settings.batch_wait is not None and elapsed >= settings.batch_wait:
            raise BatchWaitStopped(
                f"stopped waiting for the Judge batches after {elapsed:.0f} s (--judge-batch-wait "
                f"{settings.batch_wait:g}): {done}/{total} requests done; no result was written (their batch ids "
                "stay in the Judge cache)", "rerun the same command later to re-attach: nothing is sent or paid twice")
        sleep(settings.batch_poll)


def _collect(client: BatchClient, cache: sqlite3.Connection, row: dict, batch: dict, planned: dict, settings,
             kind: str, report: BatchReport, notify) -> None:
    """Cache every valid answer of a final batch (as the online path would); count the rest."""
    status = _status(batch)
    keys = set(row["keys"])
    answered: set[str] = set()
    for name in ("output_file_id", "error_file_id"):
        file_id = batch.get(name)
        if not isinstance(file_id, str) or not file_id:
            continue
        try:
            for raw in client.lines(file_id):
                if raw is None or not raw.strip():
                    continue
                try:
                    outcome = outcome_of(json.loads(raw))
                except ValueError:
                    continue
                key = outcome.custom_id
                if key not in keys or key in answered or outcome.error is not None:
                    continue  # a line of no request of this batch, repeated, or failed: asked online
                body_request = planned.get(key)
                if body_request is None:  # answered meanwhile (another run, a second copy): keep the cache's
                    answered.add(key)
                    continue
                body, request = body_request
                try:
                    text = reply_text(kind, outcome.body)
                except ValueError:
                    continue  # an incomplete or unreadable answer: asked online, as a retry
                report.add_usage(request.name, openai_api.usage_of(outcome.body),
                                 openai_api.cached_input_tokens(outcome.body))
                try:
                    request.validate(text)
                except VerdictError as error:
                    if settings.repairs < 1:
                        raise JudgeError(redact(f"invalid Judge verdict for case {request.case_id} ({request.name} "
                                                f"prompt), from its batch: {error}; reply: {text[:300]!r}",
                                                (settings.api_key,)),
                                         hint="the verdicts received so far are cached; rerun to resume; "
                                              "--judge-repairs 1 asks the Judge once more about an invalid verdict")
                write_reply(cache, key, settings.model, kind, body, text,  # an invalid one: for its repair turn
                            client.stand_in)
                answered.add(key)
        except ResultFileGone:  # every line of it is asked online, as a failed line is
            notify(f"the {name.removesuffix('_id').replace('_', ' ')} {file_id} of batch {row['batch_id']} is gone "
                   "(HTTP 404: deleted, or past the provider's retention); its requests are asked online")
    report.lines += len(keys)
    report.answered += len(answered)
    missing = len(keys) - len(answered)
    report.failed += missing
    if status == "cancelled":
        report.cancelled.append(row["batch_id"])
        notify(f"batch {row['batch_id']} was cancelled: {len(answered)} of {len(keys)} requests answered; "
               "the rest are asked online")
    elif status in ("failed", "expired"):
        report.failed_batches.append({"id": row["batch_id"], "status": status})
        errors = batch.get("errors") if isinstance(batch.get("errors"), dict) else {}
        first = next((entry for entry in errors.get("data") or [] if isinstance(entry, dict)), None)
        reason = f" ({str(first.get('message'))[:200]})" if first else ""
        notify(f"batch {row['batch_id']} {status}{reason}: {len(answered)} of {len(keys)} requests answered; "
               "the rest are asked online")
    elif missing:
        notify(f"batch {row['batch_id']}: {missing} of {len(keys)} requests failed or did not come back; "
               "they are asked online")
    cache.execute("UPDATE judge_batches SET status = ?, collected_at = ? WHERE input_file_id = ?",
                  (status, time.time(), row["file_id"]))
