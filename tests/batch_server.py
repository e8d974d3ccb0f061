"""A stand-in OpenAI Batch API on 127.0.0.1 (SPEC §18), on top of the Judge's stand-in.

`/v1/files` (multipart upload, purpose `batch`) and `/v1/files/{id}/content`; `/v1/batches`
(create, list), `/v1/batches/{id}` (retrieve) and `/v1/batches/{id}/cancel`; and the online
endpoints, answered by the same handler (tests/judge_server.py's verdicts by default), so a batch
answer and an online answer to the same body are the same.

Time is counted in retrieves, never in seconds: a batch is `validating` on its first retrieve,
then `in_progress`, answering `per_poll` lines a retrieve (all at once by default) unless `hold`
is set; then one `finalizing` retrieve, then `completed` with an output file and, for lines that
failed (`error_ids`), an error file. Modes: `fail` (validation fails: `failed` with `errors`),
`expire_after` (after that many answered lines: `expired`, the rest in the error file as
`batch_expired`), cancel (the endpoint: `cancelling`, then `cancelled`, answered lines only).
`created` counts the batches created; `received` keeps each uploaded line's body bytes.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eval.providers.batch_files import body_bytes  # noqa: E402
from judge_server import JudgeServer, Recorded, Reply, default_handler  # noqa: E402

FINAL = ("completed", "failed", "expired", "cancelled")


def multipart_file(request: Recorded) -> tuple[dict, bytes]:
    """The form fields and the file's bytes of a multipart/form-data body."""
    boundary = request.headers["content-type"].split("boundary=")[1].strip('"').encode()
    fields, content = {}, b""
    for part in request.raw.split(b"--" + boundary)[1:-1]:
        head, _, data = part.partition(b"\r\n\r\n")
        data = data[:-2] if data.endswith(b"\r\n") else data
        name = head.split(b'name="')[1].split(b'"')[0].decode()
        if b"filename=" in head:
            content = data
        else:
            fields[name] = data.decode()
    return fields, content


class BatchServer(JudgeServer):
    def __init__(self, answer=default_handler, *, per_poll: int | None = None, hold: bool = False,
                 fail: bool = False, expire_after: int | None = None, error_ids: frozenset = frozenset()):
        super().__init__(self.route)
        self.answer = answer
        self.per_poll, self.hold, self.fail, self.expire_after = per_poll, hold, fail, expire_after
        self.error_ids = set(error_ids)
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.created = 0
        self.received: list[tuple[str, bytes]] = []  # (custom_id, body bytes) of every uploaded line

    def online_posts(self) -> list[Recorded]:
        return [request for request in self.requests if request.method == "POST"
                and request.path.endswith(("/chat/completions", "/responses"))]

    # -- routes -------------------------------------------------------------------------------

    def route(self, request: Recorded) -> Reply:
        path = request.path.split("?")[0].removeprefix("/v1")
        parts = [part for part in path.split("/") if part]
        if request.method == "POST" and path in ("/chat/completions", "/responses"):
            return self.answer(request)
        if request.method == "POST" and parts == ["files"]:
            fields, content = multipart_file(request)
            if fields.get("purpose") != "batch":
                return Reply(400, {"error": {"message": "purpose must be batch"}})
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = content
            for line in content.splitlines(keepends=True):
                self.received.append((json.loads(line)["custom_id"], body_bytes(line)))
            return Reply(body={"id": file_id, "object": "file", "bytes": len(content), "purpose": "batch",
                               "filename": "input.jsonl", "created_at": int(time.time())})
        if request.method == "GET" and len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
            if parts[1] not in self.files:
                return Reply(404, {"error": {"message": "no such file"}})
            return Reply(body=self.files[parts[1]])
        if request.method == "POST" and parts == ["batches"]:
            return self.create(request.body)
        if request.method == "GET" and parts == ["batches"]:
            return Reply(body={"object": "list", "data": [self.public(batch) for batch in
                                                          reversed(list(self.batches.values()))],
                               "has_more": False})
        if len(parts) >= 2 and parts[0] == "batches" and parts[1] in self.batches:
            batch = self.batches[parts[1]]
            if request.method == "POST" and parts[2:] == ["cancel"]:
                if batch["status"] not in FINAL:
                    batch["status"] = "cancelling"
                return Reply(body=self.public(batch))
            if request.method == "GET" and len(parts) == 2:
                self.advance(batch)
                return Reply(body=self.public(batch))
        return Reply(404, {"error": {"message": f"no route {request.method} {request.path}"}})

    def create(self, body: dict) -> Reply:
        if body.get("input_file_id") not in self.files or body.get("completion_window") != "24h":
            return Reply(400, {"error": {"message": "bad batch request"}})
        self.created += 1
        batch_id = f"batch_{self.created}"
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].splitlines()]
        self.batches[batch_id] = {
            "id": batch_id, "object": "batch", "endpoint": body.get("endpoint"), "errors": None,
            "input_file_id": body["input_file_id"], "completion_window": "24h", "status": "new",
            "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
            "metadata": body.get("metadata"), "_lines": lines, "_done": 0, "_out": [], "_err": []}
        return Reply(body=self.public(self.batches[batch_id]))

    def public(self, batch: dict) -> dict:
        shown = {key: value for key, value in batch.items() if not key.startswith("_")}
        shown["status"] = "validating" if batch["status"] == "new" else batch["status"]
        failed = len(batch["_err"])
        shown["request_counts"] = {"total": len(batch["_lines"]), "completed": len(batch["_out"]), "failed": failed}
        return shown

    # -- time, counted in retrieves -------------------------------------------------------------

    def advance(self, batch: dict) -> None:
        status = batch["status"]
        if status == "new":
            batch["status"] = "validating"
        elif status == "validating":
            if self.fail:
                batch["status"] = "failed"
                batch["errors"] = {"object": "list", "data": [
                    {"code": "invalid_request", "message": "the stand-in refuses this file", "line": 1}]}
            else:
                batch["status"] = "in_progress"
        elif status == "in_progress" and not self.hold:
            todo = batch["_lines"][batch["_done"]:]
            for line in todo[: self.per_poll or len(todo)]:
                if self.expire_after is not None and batch["_done"] >= self.expire_after:
                    break
                self.run_line(batch, line)
            if self.expire_after is not None and batch["_done"] >= self.expire_after and batch["_done"] < len(
                    batch["_lines"]):
                for line in batch["_lines"][batch["_done"]:]:
                    batch["_err"].append({"id": "x", "custom_id": line["custom_id"], "response": None,
                                          "error": {"code": "batch_expired", "message": "not run in 24h"}})
                self.finish(batch, "expired")
            elif batch["_done"] == len(batch["_lines"]):
                batch["status"] = "finalizing"
        elif status == "finalizing":
            self.finish(batch, "completed")
        elif status == "cancelling":
            self.finish(batch, "cancelled")

    def run_line(self, batch: dict, line: dict) -> None:
        batch["_done"] += 1
        number = batch["_done"]
        if line["custom_id"] in self.error_ids:
            batch["_err"].append({"id": f"batch_req_{number}", "custom_id": line["custom_id"], "error": None,
                                  "response": {"status_code": 500, "request_id": f"req_{number}",
                                               "body": {"error": {"message": "the stand-in failed this line"}}}})
            return
        raw = json.dumps(line["body"]).encode()
        reply = self.answer(Recorded("POST", "/v1" + line["url"].removeprefix("/v1"), {}, raw, time.monotonic()))
        batch["_out"].append({"id": f"batch_req_{number}", "custom_id": line["custom_id"], "error": None,
                              "response": {"status_code": reply.status, "request_id": f"req_{number}",
                                           "body": reply.body}})

    def finish(self, batch: dict, status: str) -> None:
        batch["status"] = status
        for name, entries in (("output_file_id", batch["_out"]), ("error_file_id", batch["_err"])):
            if entries:
                file_id = f"file-{len(self.files) + 1}"
                self.files[file_id] = "".join(json.dumps(entry) + "\n" for entry in entries).encode()
                batch[name] = file_id
