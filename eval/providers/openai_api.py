"""The OpenAI-compatible protocol, spoken once for the Judge and predict.py (SPEC §10, §13).

What a request looks like (routing by model name, endpoint URLs, body bytes), what a reply says
(the answer text and what came with it, token usage, the upstream model behind a gateway), what a
refusal means (the context-window words), and the bounded pool of single-connection clients a
run sends through. The transport and the run-wide health (breaker, deadline, 429 pause) are
eval/providers/health.py; the Judge (eval/judge_client.py) and predict.py (eval/prediction/runner.py) add only
their own policy: verdicts and cache, or resumable answer files.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only; httpx and asyncio are imported where they are used
    import asyncio

    import httpx

CHAT = "chat_completions"
RESPONSES = "responses"
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
RESPONSES_PREFIXES = ("gpt-5", "gpt-6", "o1", "o3", "o4")
# The words providers use when a prompt does not fit the model's context window (a 400).
CONTEXT_WINDOW = re.compile(r"context.length|maximum context|too many tokens|too long", re.I)
# Response headers that name what really answered behind a gateway (LiteLLM) or the engine itself.
ENGINE_HEADERS = ("server", "x-powered-by", "x-served-by", "openai-version", "x-litellm-model-id",
                  "x-litellm-version", "x-vllm-version", "x-litellm-model-name",
                  "llm_provider-server", "llm_provider-x-vllm-version", "x-stand-in")
GATEWAY_HEADER = "x-litellm-version"  # present on every LiteLLM proxy reply
STAND_IN_HEADER = "x-stand-in"  # a test double's own word that it is one (tests/judge_server.py, model_server.py)


def stand_in_of(headers: "httpx.Headers | dict[str, str]") -> str | None:
    """What a reply's x-stand-in header says (outside text: printable, at most 200 characters)."""
    value = {name.lower(): value for name, value in headers.items()}.get(STAND_IN_HEADER)
    if not value:
        return None
    value = "".join(ch for ch in value if ch.isprintable())[:200].strip()
    return value or None


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Endpoint:
    """Who is asked: the model name, the API base and the key (kept out of repr). The Judge's and
    predict.py's settings extend it with their own policy."""

    model: str
    api_base: str
    api_key: str = field(repr=False)


def uses_responses_endpoint(model: str) -> bool:
    """True when the last `/` segment of the name starts with a reasoning-model prefix (§10).

    Gateway names such as `openai/gpt-5.6-sol` route like `gpt-5.6-sol`; case is ignored.
    """
    return model.rsplit("/", 1)[-1].lower().startswith(RESPONSES_PREFIXES)


def endpoint_kind(model: str) -> str:
    return RESPONSES if uses_responses_endpoint(model) else CHAT


def _under_base(api_base: str, suffix: str) -> str:
    import httpx  # heavy: only the provider paths need it

    base = httpx.URL(api_base)
    return str(base.copy_with(path=base.path.rstrip("/") + suffix))


def endpoint_url(api_base: str, kind: str) -> str:
    """`{base}/responses` or `{base}/chat/completions`, keeping any query string of the base."""
    return _under_base(api_base, "/responses" if kind == RESPONSES else "/chat/completions")


def models_url(api_base: str) -> str:
    return _under_base(api_base, "/models")


def public_host(api_base: str) -> str:
    """Scheme, host and port of the base URL: no credentials, no path, no query."""
    import httpx  # heavy: only the provider paths need it

    url = httpx.URL(api_base)
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme}://{url.host}{port}"


def auth_headers(api_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}


def responses_input(messages: list[dict]) -> list[dict]:
    """Chat messages as Responses `input` items: the same roles and texts, in order.

    A string content stays a string; a list of `{"type": "text"}` parts becomes `input_text`
    parts (`output_text` for an assistant turn), the Responses spelling of the same part.
    """
    items = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            text_type = "output_text" if message["role"] == "assistant" else "input_text"
            content = [{**part, "type": text_type} if isinstance(part, dict) and part.get("type") == "text" else part
                       for part in content]
        items.append({**message, "content": content})
    return items


def request_body(kind: str, model: str, messages: str | list[dict], params: dict, *,
                 canonical: bool = False) -> bytes:
    """The exact bytes sent: the model, the conversation, the parameters.

    `messages` is a chat message list, or a prompt string (one user message; on Responses the
    `input` string itself). `canonical` sorts keys and drops spaces, so that a cache key over the
    bytes is stable (the Judge); otherwise the body keeps its order (predict.py).
    """
    if kind == RESPONSES:
        conversation = {"input": messages if isinstance(messages, str) else responses_input(messages)}
    else:
        conversation = {"messages": [{"role": "user", "content": messages}] if isinstance(messages, str) else messages}
    body = {"model": model, **conversation, **params}
    if canonical:
        return _utf8(json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":")))
    return _utf8(json.dumps(body, ensure_ascii=False))


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(text: str) -> bytes:
    """A JSON text's bytes; a lone surrogate (a Judge's invalid reply quoted in a repair turn) goes
    as its `\\udXXX` escape, the same string to the server, where UTF-8 has no encoding for it."""
    if _LONE_SURROGATE.search(text) is not None:
        text = _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    return text.encode("utf-8")


def json_schema_params(kind: str, name: str, schema: dict, form: str = "json_schema") -> dict:
    """The parameter that asks an engine to enforce a JSON schema on the answer (SPEC §10
    `--judge-structured`): `response_format` on Chat Completions, `text.format` on Responses.

    `form` "json_object" is llama-cpp-python's spelling on Chat Completions (`{"type":
    "json_object", "schema": ...}`; its server refuses "json_schema"); Responses has one form."""
    if kind == RESPONSES:
        return {"text": {"format": {"type": "json_schema", "name": name, "schema": schema, "strict": True}}}
    if form == "json_object":
        return {"response_format": {"type": "json_object", "schema": schema}}
    return {"response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema,
                                                                        "strict": True}}}


# ---------------------------------------------------------------------------------------------
# Replies
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Answer:
    """What one 200 body says: the answer text exactly as returned, and what came with it.

    `has_text`: the body carried an answer channel at all (Chat `content` a string or parts,
    Responses an `output_text` part), so that "no answer" and "an empty answer" differ.
    """

    text: str
    finish: str | None               # chat finish_reason, or Responses status
    truncated: bool
    refusal: str | None = None
    reasoning_chars: int | None = None  # None: no reasoning came back separately
    model: str | None = None
    usage: dict = field(default_factory=dict)
    incomplete_reason: str | None = None
    has_text: bool = True


def _part_text(part: dict) -> str:
    text = part.get("text")
    return text if isinstance(text, str) else ""  # a part with null text adds nothing, never "None"


def _text_of(content: object) -> tuple[str, bool]:
    if isinstance(content, str):
        return content, True
    if isinstance(content, list):
        return "".join(_part_text(part) for part in content
                       if isinstance(part, dict) and part.get("type", "text") in ("text", "output_text")), True
    return "", False


MAX_TOKEN_COUNT = 10 ** 12  # above it a count is absurd (4,300-digit counts summed cannot be written)


def _count(value: object) -> int | None:
    """A token count: a whole number from 0 to MAX_TOKEN_COUNT (a float that is whole counts;
    anything else, an absurd count included, not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value) if 0 <= value <= MAX_TOKEN_COUNT else None


def usage_counts(payload: object) -> dict[str, int]:
    """Token counts of either endpoint's body as `input`, `output`, `total`, `reasoning`; a count
    the provider does not give, or gives as something other than a non-negative number, is left out."""
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if not isinstance(usage, dict):
        return {}

    def first(*names: str) -> int | None:
        for name in names:
            count = _count(usage.get(name))
            if count is not None:
                return count
        return None

    details = usage.get("completion_tokens_details") or usage.get("output_tokens_details") or {}
    counts = {"input": first("input_tokens", "prompt_tokens"), "output": first("output_tokens", "completion_tokens"),
              "total": first("total_tokens"),
              "reasoning": _count(details.get("reasoning_tokens")) if isinstance(details, dict) else None}
    return {key: value for key, value in counts.items() if value is not None}


def usage_of(payload: object) -> dict[str, int]:
    """The Judge's spelling of the counts: input / output / total tokens (zeros where the provider
    does not say; the total is input + output when not given); {} when the body has no usage."""
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if not isinstance(usage, dict):
        return {}
    counts = usage_counts(payload)
    spent = {"input_tokens": counts.get("input", 0), "output_tokens": counts.get("output", 0)}
    spent["total_tokens"] = counts.get("total") or spent["input_tokens"] + spent["output_tokens"]
    return spent


def cached_input_tokens(payload: object) -> int | None:
    """The prompt tokens the provider served from its prompt cache (`usage.prompt_tokens_details.
    cached_tokens` on chat, `usage.input_tokens_details.cached_tokens` on Responses); None where
    the provider does not say (SPEC §18)."""
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if not isinstance(usage, dict):
        return None
    for name in ("prompt_tokens_details", "input_tokens_details"):
        details = usage.get(name)
        if isinstance(details, dict) and _count(details.get("cached_tokens")) is not None:
            return _count(details.get("cached_tokens"))
    return None


def parse_answer(kind: str, payload: object) -> Answer:
    """The final answer of a 200 body (SPEC §13); ValueError when the body is not a response.

    Chat: `choices[0].message.content`; `reasoning_content` / `reasoning` are not the answer.
    Responses: the `output_text` parts of the `message` items; `reasoning` items are not.
    """
    if not isinstance(payload, dict):
        raise ValueError("the response body is not a JSON object")
    model = payload.get("model") if isinstance(payload.get("model"), str) else None
    if kind == RESPONSES:
        output = payload.get("output")
        if not isinstance(output, list):
            raise ValueError("the response has no output list")
        status = payload.get("status")
        texts, refusals, reasoning = [], [], None
        for item in output:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "reasoning":
                parts = [part.get("text", "") for key in ("summary", "content")
                         for part in item.get(key) or [] if isinstance(part, dict)]
                reasoning = (reasoning or 0) + sum(len(str(text)) for text in parts)
            elif item.get("type") == "message":
                for part in item.get("content") or []:
                    if isinstance(part, dict) and part.get("type") == "output_text":
                        texts.append(_part_text(part))
                    elif isinstance(part, dict) and part.get("type") == "refusal":
                        refusals.append(str(part.get("refusal", "")))
        details = payload.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else details
        return Answer(text="".join(texts), finish=status if isinstance(status, str) else None,
                      truncated=status == "incomplete", refusal="".join(refusals) if refusals else None,
                      reasoning_chars=reasoning, model=model, usage=usage_counts(payload),
                      incomplete_reason=str(reason) if reason is not None else None, has_text=bool(texts))
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("the response has no choices")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ValueError("the first choice has no message")
    finish = choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
    reasoning = None
    for name in ("reasoning_content", "reasoning"):
        value = message.get(name)
        if isinstance(value, str) and value:
            reasoning = (reasoning or 0) + len(value)
    refusal = message.get("refusal")
    text, has_text = _text_of(message.get("content"))
    return Answer(text=text, finish=finish, truncated=finish == "length",
                  refusal=str(refusal) if refusal else None, reasoning_chars=reasoning, model=model,
                  usage=usage_counts(payload), has_text=has_text)


def engine_headers(headers: "httpx.Headers | dict[str, str]") -> dict[str, str]:
    """The response headers that name the engine, or the upstream model and engine behind a gateway
    (LiteLLM: `x-litellm-model-name`, `llm_provider-server`)."""
    lower = {name.lower(): value for name, value in headers.items()}
    return {name: lower[name] for name in ENGINE_HEADERS if name in lower}


# ---------------------------------------------------------------------------------------------
# The pool
# ---------------------------------------------------------------------------------------------

@dataclass
class ClientPool:
    """One single-connection client per concurrency slot: taking one bounds the requests in
    flight, and keeps httpcore's pool bookkeeping (which grows with the square of a pool's size)
    out of the hot path. `ssl_context` is built once and shared by every client."""

    clients: asyncio.Queue
    ssl_context: object

    @contextlib.asynccontextmanager
    async def slot(self):
        """Wait for a free client and give it back afterwards."""
        client = await self.clients.get()
        try:
            yield client
        finally:
            self.clients.put_nowait(client)


@contextlib.asynccontextmanager
async def client_pool(size: int, timeout: float):
    """`size` clients with `timeout` for one whole exchange, closed when the block ends."""
    import asyncio  # with httpx: only the provider paths need them (an offline run never does)

    import httpx

    ssl_context = httpx.create_ssl_context()
    async with contextlib.AsyncExitStack() as stack:
        clients: asyncio.Queue = asyncio.Queue()
        for _ in range(size):
            clients.put_nowait(await stack.enter_async_context(httpx.AsyncClient(
                verify=ssl_context, timeout=httpx.Timeout(timeout),
                limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))))
        yield ClientPool(clients, ssl_context)
