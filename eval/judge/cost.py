"""What the Judge costs (SPEC §18): prices, a token estimator, and the spend of reported usage.

Prices are USD per million tokens (`--judge-price IN,OUT[,CACHED_IN]`); a Batch API run is
billed at half (OpenAI's Batch discount). The estimator is deliberately simple and documented
(docs/judge.md "Cost"): a CJK character (Han, kana, Hangul, full-width forms) is about one token
in the tokenizers of current models, another non-ASCII character (Cyrillic, Greek, Arabic, Thai,
accented Latin, …) about half of one, and ASCII about a quarter; each request adds a small fixed
overhead for the message framing. It reads each text once (near-linear) and knows no model.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from eval.errors import ConfigError, HarnessError

BATCH_DISCOUNT = 0.5
REQUEST_OVERHEAD_TOKENS = 8  # role and framing tokens around one message
TYPICAL_OUTPUT_TOKENS = 16   # a verdict with no schema to size it by (`{"quality": 1}` is about 6)
CJK_RUNS = re.compile(r"[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
                      r"\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]+")
PRICE_HINT = "e.g. --judge-price 1.25,10 (USD per million input and output tokens; a third number prices cached input)"


@dataclass(frozen=True)
class Price:
    """USD per million tokens; `cached_input` defaults to the input price (no discount known)."""

    input: float
    output: float
    cached_input: float | None = None

    def as_dict(self) -> dict:
        return {"input": self.input, "output": self.output,
                "cached_input": self.input if self.cached_input is None else self.cached_input}


def parse_price(text: str) -> Price:
    """--judge-price IN,OUT[,CACHED_IN]: non-negative finite numbers; ConfigError names the flag."""
    parts = [part.strip() for part in str(text).split(",")]
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        numbers = []
    if len(numbers) not in (2, 3) or any(not math.isfinite(number) or number < 0 for number in numbers):
        raise ConfigError(f"--judge-price {text!r} is not IN,OUT or IN,OUT,CACHED_IN", PRICE_HINT)
    return Price(*numbers)


def check_budget(budget: float | None, price: Price | None) -> None:
    if budget is None:
        return
    if not math.isfinite(budget) or budget <= 0:
        raise ConfigError(f"--judge-budget must be a positive number of USD, got {budget}", "e.g. --judge-budget 20")
    if price is None:
        raise ConfigError("--judge-budget needs --judge-price to know what a request costs", PRICE_HINT)


def estimate_tokens(text: str) -> int:
    """Tokens of a text by script (see the module's docstring): CJK 1 per character, other
    non-ASCII 1/2, ASCII 1/4, rounded up."""
    cjk = sum(len(run) for run in CJK_RUNS.findall(text))
    ascii_chars = len(text.encode("ascii", "ignore"))
    other = len(text) - cjk - ascii_chars
    return cjk + math.ceil(other / 2) + math.ceil(ascii_chars / 4)


def cost_usd(input_tokens: int, output_tokens: int, price: Price, cached_input_tokens: int = 0) -> float:
    """The price of one request's (or a run's) tokens; cached input at the cached price."""
    cached = min(max(cached_input_tokens, 0), input_tokens)
    cached_price = price.input if price.cached_input is None else price.cached_input
    return ((input_tokens - cached) * price.input + cached * cached_price + output_tokens * price.output) / 1e6


def usage_cost(usage: dict[str, dict[str, int]], price: Price) -> float:
    """The cost of a judge block's per-prompt usage."""
    return sum(cost_usd(counts.get("input_tokens", 0), counts.get("output_tokens", 0), price,
                        counts.get("cached_input_tokens", 0)) for counts in usage.values())


def cost_block(usage: dict[str, dict[str, int]], price: Price | None, budget: float | None,
               batch_usage: dict[str, dict[str, int]] | None = None) -> dict | None:
    """The summary's `judge.cost` (None without a price): this run's spend at the given price,
    answers from a Batch job at BATCH_DISCOUNT."""
    if price is None:
        return None
    spent = usage_cost(usage, price) + BATCH_DISCOUNT * usage_cost(batch_usage or {}, price)
    return {"price_usd_per_million_tokens": price.as_dict(), "usd": round(spent, 6), "budget_usd": budget}


class BudgetReached(HarnessError):
    """--judge-budget is spent: the run stops like an interrupted one (exit 130, SPEC §18); the
    replies received stay in the cache, so a rerun resumes without paying for them again."""

    exit_status = 130


def budget_error(spent: float, budget: float, calls: int) -> BudgetReached:
    return BudgetReached(f"stopped at the Judge budget: ${spent:.4f} spent of --judge-budget ${budget:g} "
                         f"({calls} requests): no result was written (Judge verdicts received so far stay in "
                         "the cache)", "rerun to resume (cached verdicts cost nothing again; the budget counts "
                                      "each run's own requests), with a higher --judge-budget or none")


def reply_cost(usage: dict[str, int], cached: int | None, price: Price, body: bytes, text: str) -> float:
    """What one reply cost: its reported usage, or (a provider that reports none) the estimate
    of its request and reply texts."""
    if usage:
        return cost_usd(usage.get("input_tokens", 0), usage.get("output_tokens", 0), price, cached or 0)
    return cost_usd(estimate_tokens(body.decode("utf-8", "replace")), estimate_tokens(text), price)
