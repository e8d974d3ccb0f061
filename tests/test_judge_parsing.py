"""A Judge reply is hostile input (issue 34): every parse of it near-linear, every verdict the same.

The fence of SPEC §10 is found by a scanner, not by its pattern (cubic in a run of whitespace);
the two are compared on generated replies, as is the whole verdict reading before and after.
Every validator of the three benchmarks (harness and release readers) is timed on the hostile
shapes at n and 4n characters: linear gives ×4, a quadratic parse ×16, the old fence gave
×64. A number too long for Python is an invalid verdict (a repair turn), never
an "unexpected error". Figures: `python -m scripts.bench_hostile --judge` (docs/testing.md).
"""

from __future__ import annotations

import gc
import json
import random
import re
import time

import pytest

from eval import judge_client
from eval.ifmtbench import prompt as ifmt_prompt
from eval.ifmtbench import release as ifmt_release
from eval.insttrans import release as it_release
from eval.insttrans import verdicts
from eval.judge_client import VerdictError, fenced_content, parse_verdict_object
from eval.providers.openai_api import MAX_TOKEN_COUNT, request_body, usage_of
from eval.providers.redaction import REDACTED, redact, without_secrets
from eval.release.protocol import validate_bare_quality
from scripts.bench_hostile import JUDGE_SHAPES, judge_validators

# SPEC §10's fence as a pattern: the specification the scanner is checked against (cubic in a
# run of whitespace that no closing fence follows: only ever run here on short replies).
SPEC_FENCE = re.compile(r"\A```[A-Za-z]*\s*(.*?)\s*```\Z", re.S)
FENCE_MARKS = ["`", "``", "```", "json", "JSON", "j", "Z", "é", "1", "{", "}", '"', ":", " ", "\n", "\t", "\r",
               "\u00a0", "\u2028", "\u3000", "\x1c", "\x85", "\u200b", "x"]


def spec_fence(text: str) -> str | None:
    match = SPEC_FENCE.match(text)
    return match.group(1) if match else None


def _random_reply(rng: random.Random) -> str:
    parts = [rng.choice(FENCE_MARKS) for _ in range(rng.randint(0, 14))]
    if rng.random() < 0.5:
        parts = ["```", *parts]
    if rng.random() < 0.5:
        parts.append("```")
    return "".join(parts)


EDGE_REPLIES = ["", "`", "``````", "`````", "```````", "````````", "```a```", "```json```", "```json\n```",
                "```\n```", "``` ```", '```{"quality": 1}```', '```json\n{"quality": 1}\n```',
                '```JSON {"quality": 0.5} ```', '```json\n{"quality": 1}\n```\n```', '```py\n```\n```',
                "```\u00a0\u3000x\u2028```", "```é\n{}\n```", "```json1\n{}\n```", "```\n\n\n", "x```"]


def test_the_fence_scanner_gives_the_patterns_content_on_generated_replies():
    rng = random.Random(34)
    replies = EDGE_REPLIES + [_random_reply(rng) for _ in range(30_000)]
    for reply in replies:
        for text in (reply, reply.strip()):
            assert fenced_content(text) == spec_fence(text), repr(text)
    assert sum(spec_fence(reply.strip()) is not None for reply in replies) > 5_000  # both outcomes well covered


def test_the_scanners_whitespace_is_the_patterns():
    """`\\s` of a str pattern, str.isspace() and str.strip() agree on every code point."""
    every = "".join(map(chr, range(0x110000)))
    spaces = [character for character in every if character.isspace()]
    assert re.findall(r"\s", every) == spaces
    assert all((character + "x").lstrip() == "x" and ("x" + character).rstrip() == "x" for character in spaces)
    assert re.sub(r"\s", "", every).strip() == re.sub(r"\s", "", every)  # nothing else is stripped


def _old_duplicate_keys(pairs):
    keys = [key for key, _ in pairs]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise VerdictError(f"duplicate key(s) {duplicates}")
    return dict(pairs)


def _old_parse(text: str):
    """parse_verdict_object as it was before issue 34 (the pattern, pairwise duplicate keys)."""
    stripped = text.strip()
    fenced = SPEC_FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1)
    try:
        value = json.loads(stripped, object_pairs_hook=_old_duplicate_keys,
                           parse_constant=judge_client._no_constant)
    except json.JSONDecodeError as error:
        raise VerdictError(f"not one JSON object ({error.msg})") from None
    except RecursionError:
        raise VerdictError("not one JSON object (nested too deeply)") from None
    if not isinstance(value, dict):
        raise VerdictError(f"a JSON {type(value).__name__}, not an object")
    return value


def _outcome(parse, text: str):
    try:
        return ("value", parse(text))
    except VerdictError as error:
        return ("invalid", str(error))


VERDICT_MARKS = ['{"quality": 1}', '{"quality": 0.5}', '{"scores": {"a": 1, "a": 0}}', '{"a": 1, "b": 2, "a": 3}',
                 '{"quality": NaN}', "[1]", "1", '"x"', "{", "}", ",", "```", "```json", "\n", " ", "x",
                 '{"glossary": 1}', '{"scores": {"style": 5, "background": null}}', "-0", "1e3", '{"q": 12345678901}']


def test_the_verdict_reading_is_the_same_as_before_on_generated_replies():
    rng = random.Random(3434)
    replies = [rng.choice(VERDICT_MARKS) for _ in range(200)]
    replies += ["".join(rng.choice(VERDICT_MARKS) for _ in range(rng.randint(1, 5))) for _ in range(20_000)]
    valid = 0
    for reply in replies:
        old, new = _outcome(_old_parse, reply), _outcome(parse_verdict_object, reply)
        assert new == old, reply
        valid += old[0] == "value"
    assert valid > 1_000


# --- numbers too long for Python -------------------------------------------------------------

HUGE = "9" * 4301


@pytest.mark.parametrize("validate, reply", [
    (verdicts.validate_quality, f'{{"quality": {HUGE}}}'),
    (verdicts.validate_quality, f'{{"quality": -{HUGE}}}'),
    (verdicts.validate_quality, f'```json\n{{"quality": 1, "x": [{HUGE}]}}\n```'),
    (verdicts.soft_validator(["a"]), f'{{"scores": {{"a": {HUGE}}}}}'),
    (ifmt_prompt.validate_rubric, f'{{"scores": {{"style": {HUGE}, "background": 1}}}}'),
    (ifmt_prompt.validate_glossary, f'{{"glossary": {HUGE}}}'),
    (ifmt_release.rubric_validator(["style"]), f'{{"scores": {{"style": {HUGE}}}}}'),
    (ifmt_release.rubric_validator(["style"]), f'```json\n{{"style": {HUGE}}}\n```'),
    (it_release.soft_validator(["a"]), f'{{"a": {{"score": {HUGE}}}}}'),
    (it_release.soft_validator(["a"]), f'Here: {{"a": {{"score": {HUGE}}}}}'),
    (validate_bare_quality, HUGE),
])
def test_a_number_too_long_for_python_is_an_invalid_verdict(validate, reply):
    with pytest.raises(VerdictError):
        validate(reply)


def test_the_longest_integer_python_reads_is_still_read():
    longest = "1" + "0" * 4299
    with pytest.raises(VerdictError, match="is not one of the numbers"):
        verdicts.validate_quality(f'{{"quality": {longest}}}')
    assert verdicts.validate_quality('{"quality": 1}') == {"quality": 1.0}


def test_python_s_int_limit_does_not_decide_what_is_read():
    """Raised (0: no limit) or lowered, the readers read the same: a reply of 50,000 digits stays
    invalid and cheap, 4,300 digits stay a number."""
    import sys

    previous = sys.get_int_max_str_digits()
    try:
        for limit in (0, 640):
            sys.set_int_max_str_digits(limit)
            with pytest.raises(VerdictError, match="digits is not a score"):
                parse_verdict_object('{"quality": ' + "1" * 50_000 + "}")
            with pytest.raises(VerdictError):
                ifmt_release.rubric_validator(["style"])('{"style": ' + "1" * 50_000 + "}")
    finally:
        sys.set_int_max_str_digits(previous)


# --- usage and lone surrogates ---------------------------------------------------------------

def test_an_absurd_token_count_is_no_count():
    body = {"usage": {"prompt_tokens": int("9" * 4300), "completion_tokens": 5, "total_tokens": 10 ** 13}}
    assert usage_of(body) == {"input_tokens": 0, "output_tokens": 5, "total_tokens": 5}
    assert usage_of({"usage": {"prompt_tokens": MAX_TOKEN_COUNT}})["input_tokens"] == MAX_TOKEN_COUNT
    assert judge_client._absurd_usage(body) and not judge_client._absurd_usage({"usage": {"prompt_tokens": 7}})


def test_a_lone_surrogate_in_a_repair_conversation_is_sent_as_its_escape():
    conversation = [{"role": "user", "content": "p"}, {"role": "assistant", "content": '{"quality": "\ud800"}'}]
    body = request_body("chat_completions", "m", conversation, {}, canonical=True)
    assert b"\\ud800" in body
    assert json.loads(body)["messages"][1]["content"] == '{"quality": "\ud800"}'
    assert request_body("chat_completions", "m", "é\u2028", {}) == json.dumps(
        {"model": "m", "messages": [{"role": "user", "content": "é\u2028"}]}, ensure_ascii=False).encode("utf-8")


# --- redaction -------------------------------------------------------------------------------

_BEARER = re.compile(r"(?i)\b(bearer)(\s+|%20|\+)[^\s\"'<>,;\\]+")


def _old_redact(text, secrets, limit=None):
    """redact() as it was before issue 34 (one set look-up per window of the whole text)."""
    pieces = set()
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
        if len(secret) > 8:
            pieces.update(secret[i:i + 8] for i in range(len(secret) - 7))
    if pieces:
        covered = [False] * len(text)
        for start in range(len(text) - 7):
            if text[start:start + 8] in pieces:
                covered[start:start + 8] = [True] * 8
        if any(covered):
            out, inside = [], False
            for char, hidden in zip(text, covered):
                if hidden and not inside:
                    out.append(REDACTED)
                elif not hidden:
                    out.append(char)
                inside = hidden
            text = "".join(out)
    text = _BEARER.sub(lambda match: f"{match.group(1)} {REDACTED}", text)
    if limit is not None and len(text) > limit:
        text = text[: max(0, limit - 1)] + "…"
    return text


def test_redaction_is_the_same_as_before_on_generated_texts():
    rng = random.Random(8)
    for _ in range(20_000):
        key = "".join(rng.choice("ab-1]^\\") for _ in range(rng.randint(4, 20)))
        other = "".join(rng.choice("abc") for _ in range(rng.randint(0, 12)))
        parts = []
        for _ in range(rng.randint(0, 6)):
            start = rng.randint(0, len(key))
            parts.append(rng.choice([key[start:rng.randint(start, len(key))], "Bearer ", "a", " ", "[", "-1"]))
        text, secrets, limit = "".join(parts), rng.choice([(key, other), [other, key]]), rng.choice([None, 5, 30])
        assert redact(text, secrets, limit) == _old_redact(text, secrets, limit), (text, secrets)


def test_no_8_character_piece_of_a_key_survives_and_nothing_else_changes():
    key = "sk-proj-ABCDEFGHijklmnop0123456789"
    text = f"a bearer of news; {key[3:11]} and {key[10:30]}x, {key[:7]} {key}"
    stored = without_secrets(text, (key,))
    assert stored == f"a bearer of news; {REDACTED} and {REDACTED}x, sk-proj {REDACTED}"
    assert not any(key[i:i + 8] in stored for i in range(len(key) - 7))
    assert without_secrets("nothing here", (key, "")) == "nothing here"


# --- every parse of a reply near-linear ------------------------------------------------------

GROWTH_LIMIT = 9.0  # over a fourfold reply: linear gives 4, quadratic 16, the old fence 64
MEASURE_S = 0.004  # each timing repeats the parse until the smaller size takes about this long
SIZES = (8_000, 32_000)


def _times(functions: list, repeat: int) -> list[float]:
    """The best of three timings of `repeat` calls of each function, taken in turns (a slow spell
    of the shared machine hits every size alike), the garbage collector held (its pauses are noise)."""
    best = [float("inf")] * len(functions)
    gc.disable()
    try:
        for _ in range(3):
            for index, function in enumerate(functions):
                started = time.thread_time()  # CPU seconds: other processes do not stretch them
                for _ in range(repeat):
                    function()
                best[index] = min(best[index], time.thread_time() - started)
    finally:
        gc.enable()
    return best


def _repeat_for(function) -> int:
    started = time.thread_time()
    function()
    return max(1, int(MEASURE_S / max(time.thread_time() - started, 1e-6)))


def _parse(validate, reply):
    def run():
        try:
            validate(reply)
        except VerdictError:
            pass
    return run


def _growth(functions: list) -> list[float]:
    """Times of the functions (sizes n, 4n); measured again, up to three times in all, while
    4n takes more than GROWTH_LIMIT times n: a super-linear parse fails every time, a busy
    spell of the shared machine seldom three times running."""
    for _ in range(3):
        times = _times(functions, _repeat_for(functions[0]))
        if times[1] <= GROWTH_LIMIT * times[0]:
            break
    return times


@pytest.mark.parametrize("shape", list(JUDGE_SHAPES))
def test_each_validator_grows_linearly_on_a_hostile_reply(shape):
    """Sizes n and 4n below the 64 KB reply cap; 4n may take at most GROWTH_LIMIT times n."""
    build = JUDGE_SHAPES[shape]
    for name, validate in judge_validators().items():
        times = _growth([_parse(validate, build(size)) for size in SIZES])
        assert times[1] <= GROWTH_LIMIT * times[0], (shape, name, times)


def test_redaction_grows_linearly():
    key = "sk-" + "".join(random.Random(1).choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(160))
    for token in ("abcdefgh", key[:7] + "!", "a b c d "):
        functions = [lambda size=size: without_secrets((token * (size // len(token) + 1))[:size], (key,))
                     for size in (16_000, 64_000)]
        times = _growth(functions)
        assert times[1] <= GROWTH_LIMIT * times[0], (token, times)


# --- provider text outside the reply: an announced wait ----------------------------------------

_OLD_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def _old_duration_seconds(value: str):
    value = value.strip().lower()
    try:
        return float(value)
    except ValueError:
        pass
    parts = _OLD_DURATION_PART.findall(value)
    if not parts or "".join(number + unit for number, unit in parts) != value:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(number) * scale[unit] for number, unit in parts)


def test_a_reset_header_reads_as_before_on_generated_values():
    from eval.providers.health import _duration_seconds

    rng = random.Random(429)
    marks = ["1", "0", "5", ".", "m", "s", "ms", "h", "H", " ", "x", "e", "-", "inf", "nan"]
    values = ["1s", "6m0s", "20ms", "1h2m3.5s", "0.5", "1.5.5s", "1ms", "m", ""]
    values += ["".join(rng.choice(marks) for _ in range(rng.randint(0, 8))) for _ in range(30_000)]
    for value in values:
        old, new = _old_duration_seconds(value), _duration_seconds(value)
        assert new == old or (old != old and new != new), value  # NaN reads as NaN


def test_a_reset_header_of_digits_reads_in_linear_time():
    """`x-ratelimit-reset-requests: 111…1x` (the header block may hold 16 KB): the part pattern
    retried every start of the digits (8,000 took 4.6 s, in the event loop)."""
    from eval.providers.health import _duration_seconds

    functions = [lambda size=size: _duration_seconds("1" * size + "x") for size in (4_000, 16_000)]
    times = _growth(functions)
    assert times[1] <= GROWTH_LIMIT * times[0], times
