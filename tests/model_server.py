"""A stand-in model on 127.0.0.1 for predict.py's tests and benchmark (SPEC §13).

It is the Judge's stand-in (tests/judge_server.py: the HTTP plumbing, `die_after`, latency)
with a model's handler: it speaks `/v1/chat/completions` and `/v1/responses`, lists itself at
`GET /v1/models` and names its engine in a `server` header. Given data rows, it finds each
request's instance by its messages and answers in the instance's mode:

- `reference`: the row's reference (InstTrans `reference`, Sandglass `label`), exactly;
- `reasoning` / `reasoning-field`: the reference, with reasoning returned separately
  (chat `reasoning_content` / `reasoning`; Responses a `reasoning` item with a summary);
- `think-inline`: a `<think>` block inside the answer text itself (the model's own words);
- `truncate`: the first half of the reference, `finish_reason: length` / `status: incomplete`;
- `empty`, `refuse`: an empty answer, a refusal;
- `error`: HTTP 500; `hang`: accepts and never answers.

With `gateway=True` it answers as LiteLLM in front of it does: `x-litellm-version`,
`x-litellm-model-name` (the upstream model) and `llm_provider-server` headers, and a `<think>`
block moved out of the chat content into `reasoning_content`.

In tests: `with ModelServer(rows, modes={"case-1": "truncate"}) as server: ... server.base_url`.
As a process: `python tests/model_server.py --data data/test.jsonl --latency 0.1` prints `port N`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_server import JudgeServer, Recorded, Reply, token_count  # noqa: E402

MODES = ("reference", "reasoning", "reasoning-field", "think-inline", "truncate", "empty", "refuse", "error", "hang")
ENGINE = "stand-in-engine"
UNKNOWN_ANSWER = "[the stand-in has no reference for this prompt]"


def text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def messages_key(messages: list) -> str:
    """The identity of a conversation: its roles and texts, whatever the endpoint's spelling."""
    return json.dumps([(message.get("role"), text_of(message.get("content"))) for message in messages],
                      ensure_ascii=False)


def reference_rows(path: Path) -> list[dict]:
    """Data rows of either benchmark as {case_id, messages, reference}; a Sandglass row without a
    `label` is answered with its source subtitle, so that every answer is non-empty."""
    rows = []
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        if line.strip():
            row = json.loads(line)
            prompt = row["prompt"]
            messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
            reference = row.get("reference") or row.get("label") or (row.get("metadata") or {}).get("source")
            rows.append({"case_id": row["case_id"], "messages": messages, "reference": reference or UNKNOWN_ANSWER})
    return rows


class ModelServer(JudgeServer):
    """The stand-in model; `posts()` lists the generation requests it received, in order."""

    identity = "tests/model_server.py, a stand-in model for tests and demonstrations"
    intercept_models = False  # its handler answers GET /models as the engine would

    def __init__(self, rows: list[dict] = (), *, mode: str = "reference", modes: dict[str, str] | None = None,
                 latency: float = 0.0, die_after: int | None = None, model_id: str | None = None,
                 engine: str = ENGINE, gateway: bool = False):
        super().__init__(self.answer, latency=latency, die_after=die_after)
        self.by_messages = {messages_key(row["messages"]): row for row in rows}
        self.mode = mode
        self.modes = dict(modes or {})
        self.model_id = model_id
        self.engine = engine
        self.gateway = gateway

    def posts(self) -> list[Recorded]:
        return [request for request in self.requests if request.method == "POST"]

    def case_of(self, request: Recorded) -> dict | None:
        body = request.body
        messages = body.get("input") if request.path.endswith("/responses") else body.get("messages")
        return self.by_messages.get(messages_key(messages if isinstance(messages, list) else []))

    def answer(self, request: Recorded) -> Reply:
        headers = {"server": f"{self.engine}/1.0"}
        if self.gateway:
            headers = {"server": "uvicorn", "x-litellm-version": "1.108.7",
                       "x-litellm-model-name": f"hosted_vllm/{self.model_id or 'stand-in'}",
                       "llm_provider-server": f"{self.engine}/1.0"}
        if request.method == "GET" and request.path.endswith("/models"):
            model = self.model_id or "stand-in"
            return Reply(body={"object": "list", "data": [
                {"id": model, "object": "model", "owned_by": self.engine, "root": f"/models/{model}",
                 "max_model_len": 8192, "created": 1764547200}]}, headers=headers)
        if request.method != "POST":
            return Reply(404, {"error": {"message": f"no route {request.path}"}}, headers)
        row = self.case_of(request)
        mode = self.modes.get(row["case_id"], self.mode) if row else self.mode
        if mode == "error":
            return Reply(500, {"error": {"message": "the engine crashed", "type": "server_error"}}, headers)
        if mode == "hang":
            return Reply(delay=86400.0)
        reference = row["reference"] if row else UNKNOWN_ANSWER
        model = self.model_id or str(request.body.get("model", ""))
        reply = self.generation(request, mode, reference, model)
        reply.headers.update(headers)
        return reply

    def generation(self, request: Recorded, mode: str, reference: str, model: str) -> Reply:
        text, refusal, reasoning, cut = reference, None, None, mode == "truncate"
        if mode in ("reasoning", "reasoning-field"):
            reasoning = f"The user wants a translation; I will keep every constraint. ({len(reference)} chars)"
        elif mode == "think-inline":
            text = "<think>\nkeep the format\n</think>\n\n" + reference
            if self.gateway and not request.path.endswith("/responses"):  # LiteLLM strips the block
                found = re.match(r"\s*<think>(.*?)</think>\s*", text, re.S)
                reasoning, text = found.group(1).strip(), text[found.end():]
        elif mode == "truncate":
            text = reference[: max(1, len(reference) // 2)]
        elif mode == "empty":
            text = ""
        elif mode == "refuse":
            text, refusal = None, "I can't help with that."
        prompt = json.dumps(request.body.get("input") or request.body.get("messages"), ensure_ascii=False)
        tokens_in, tokens_out = token_count(prompt), token_count(text or refusal)
        tokens_reasoning = token_count(reasoning) if reasoning else 0
        if request.path.endswith("/responses"):
            output = []
            if reasoning:
                output.append({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": reasoning}]})
            content = ([{"type": "refusal", "refusal": refusal}] if refusal is not None
                       else [{"type": "output_text", "text": text, "annotations": []}])
            output.append({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                           "content": content})
            return Reply(body={
                "id": "resp_1", "object": "response", "created_at": int(time.time()), "model": model,
                "status": "incomplete" if cut else "completed",
                "incomplete_details": {"reason": "max_output_tokens"} if cut else None, "output": output,
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out + tokens_reasoning,
                          "output_tokens_details": {"reasoning_tokens": tokens_reasoning},
                          "total_tokens": tokens_in + tokens_out + tokens_reasoning}})
        message = {"role": "assistant", "content": text, "refusal": refusal}
        if reasoning:
            message["reasoning" if mode == "reasoning-field" else "reasoning_content"] = reasoning
        return Reply(body={
            "id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "length" if cut else "stop"}],
            "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out + tokens_reasoning,
                      "completion_tokens_details": {"reasoning_tokens": tokens_reasoning},
                      "total_tokens": tokens_in + tokens_out + tokens_reasoning}})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Stand-in model server answering with each instance's reference.")
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parent.parent / "data" / "test.jsonl")
    parser.add_argument("--mode", choices=MODES, default="reference")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds before each answer")
    parser.add_argument("--die-after", type=int, default=None, metavar="N")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = ModelServer(reference_rows(args.data), mode=args.mode, latency=args.latency, die_after=args.die_after)
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
