"""`evaluate.py --estimate` (SPEC §18): the Judge requests a run would send that the cache does not
hold, their tokens and their cost, online and through a Batch API, before anything is sent.

The requests are the run's own: the same prompts, bodies (`judge_client.first_body`) and cache
keys, so "to ask" is exactly what the run would send (repair turns aside: they depend on the
replies). The cache is only read (a read-only connection; a missing cache holds nothing), and the
output directory is not touched. Token counts come from eval/judge/cost.py's estimator.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from eval.judge.cache import cache_key, check_cache_file
from eval.judge_client import JudgeRequest, first_body, request_url, verdict_schema
from eval.judge.cost import (BATCH_DISCOUNT, REQUEST_OVERHEAD_TOKENS, TYPICAL_OUTPUT_TOKENS, Price, cost_usd,
                             estimate_tokens)

KEYS_PER_QUERY = 500


def run_settings(judge, prompts):
    """The Judge settings and request shape a run uses for this prompt set (as eval/run/pipeline.py)."""
    settings = judge if prompts.params is None else replace(judge, params=dict(prompts.params))
    return settings, (None if prompts.shape is None else prompts.shape(settings))


def held_keys(cache_path: Path, keys: list[str]) -> set[str]:
    """The keys the cache holds a reply for; the file is only read (refused first if foreign)."""
    cache_path = Path(cache_path)
    check_cache_file(cache_path)
    if not cache_path.exists() or cache_path.stat().st_size == 0:
        return set()
    connection = sqlite3.connect(cache_path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        if connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'judge_replies'").fetchone() is None:
            return set()
        held: set[str] = set()
        for start in range(0, len(keys), KEYS_PER_QUERY):
            chunk = keys[start:start + KEYS_PER_QUERY]
            marks = ",".join("?" * len(chunk))
            held.update(key for (key,) in connection.execute(
                f"SELECT key FROM judge_replies WHERE key IN ({marks})", chunk))
        return held
    finally:
        connection.close()


def typical_output_tokens(request: JudgeRequest) -> int:
    """A valid verdict's tokens, built from the prompt kind's schema (every score 1), plus the
    reply's framing; a kind without a schema counts TYPICAL_OUTPUT_TOKENS."""
    schema = verdict_schema(request.validate)

    def instance(node: dict):
        if isinstance(node, dict) and node.get("type") == "object":
            return {name: instance(sub) for name, sub in (node.get("properties") or {}).items()}
        return 1

    if not isinstance(schema, dict):
        return TYPICAL_OUTPUT_TOKENS
    return estimate_tokens(json.dumps(instance(schema))) + 2


def max_output_tokens(body: bytes) -> int | None:
    params = json.loads(body)
    value = params.get("max_output_tokens", params.get("max_tokens", params.get("max_completion_tokens")))
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def estimate(requests: list[JudgeRequest], settings, shape, cache_path: Path) -> dict:
    """Counts, tokens and (with settings.price) cost of the requests the cache does not hold."""
    url = request_url(settings, shape)
    planned = []
    seen: set[str] = set()
    for request in requests:
        body = first_body(settings, shape, request)
        key = cache_key(url, body)
        if key in seen:  # an identical request is sent once (the run deduplicates it)
            continue
        seen.add(key)
        planned.append((key, body, request))
    held = held_keys(cache_path, [key for key, _, _ in planned])
    to_ask = [(body, request) for key, body, request in planned if key not in held]
    by_kind: dict[str, int] = {}
    prompt_tokens = typical = most = 0
    limit = max_output_tokens(to_ask[0][0]) if to_ask else None
    for body, request in to_ask:
        by_kind[request.name] = by_kind.get(request.name, 0) + 1
        prompt_tokens += estimate_tokens(request.prompt) + REQUEST_OVERHEAD_TOKENS
        typical += typical_output_tokens(request)
        most += limit or 0
    result = {"requests": len(requests), "distinct": len(planned), "held": len(planned) - len(to_ask),
              "to_ask": len(to_ask), "by_kind": dict(sorted(by_kind.items())), "prompt_tokens": prompt_tokens,
              "output_tokens": typical, "max_output_tokens_each": limit,
              "output_tokens_at_most": most if limit else None, "cost": None}
    price: Price | None = settings.price
    if price is not None:
        online = cost_usd(prompt_tokens, typical, price)
        ceiling = cost_usd(prompt_tokens, most, price) if limit else None
        result["cost"] = {"online_usd": online, "batch_usd": online * BATCH_DISCOUNT,
                          "online_usd_at_most": ceiling,
                          "batch_usd_at_most": None if ceiling is None else ceiling * BATCH_DISCOUNT,
                          "price_usd_per_million_tokens": price.as_dict()}
    return result


def estimate_text(result: dict) -> str:
    """The lines --estimate prints."""
    kinds = "; ".join(f"{name} {count:,}" for name, count in result["by_kind"].items())
    lines = [f"Judge estimate (nothing was sent): {result['requests']:,} requests, {result['held']:,} held by the "
             f"cache, {result['to_ask']:,} to ask" + (f" ({kinds})" if kinds else ""),
             f"prompt tokens: about {result['prompt_tokens']:,} (CJK 1 per character, other non-ASCII 1/2, "
             f"ASCII 1/4, +{REQUEST_OVERHEAD_TOKENS} per request)",
             f"output tokens: about {result['output_tokens']:,} (a valid verdict per request)"
             + (f"; at most {result['output_tokens_at_most']:,} ({result['max_output_tokens_each']:,} each)"
                if result["output_tokens_at_most"] is not None else "")]
    cost = result["cost"]
    if cost is None:
        lines.append("cost: give --judge-price IN,OUT (USD per million tokens) to price these tokens")
    else:
        price = cost["price_usd_per_million_tokens"]
        ceiling = cost["online_usd_at_most"] is not None
        lines.append(f"cost at ${price['input']:g} in / ${price['output']:g} out per million tokens: online about "
                     f"${cost['online_usd']:.2f}" + (f" (at most ${cost['online_usd_at_most']:.2f})" if ceiling else "")
                     + f"; batch (half price) about ${cost['batch_usd']:.2f}"
                     + (f" (at most ${cost['batch_usd_at_most']:.2f})" if ceiling else ""))
    lines.append("not counted: repair turns (one more request per invalid verdict) and hidden reasoning tokens")
    return "\n".join(lines)


def print_estimate(requests: list[JudgeRequest], judge, prompts, cache_path: Path) -> int:
    """evaluate.py --estimate: print and exit 0; nothing is sent and no file changes."""
    settings, shape = run_settings(judge, prompts)
    print(estimate_text(estimate(requests, settings, shape, cache_path)))
    return 0
