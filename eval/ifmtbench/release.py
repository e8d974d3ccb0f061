"""IFMTBench under `--protocol release` (SPEC §15): the release's two Judge templates, its request
and its reply parsing, read from the user's copy of the `IFMTBench/` folder; IFMTBench has no
syllable counter, so `--trust-release-code` changes nothing.

Where each piece lives, its placeholders, how it is filled and what is sent are facts about the
official scorer (shared/RELEASE-FACTS.md §3, in this team's words); the text itself is only ever
read from the user's release folder, filled, and sent. Nothing of it is written anywhere but the
requests and the Judge cache.

The replies are parsed as the release parses them (the glossary's first 0/1 anywhere, the rubric's
three-step JSON search), but the values are then validated as this harness validates everything
(SPEC §15: validation and aborts stay the harness's): a reading the release would silently drop,
count as passed or score outside its own scale (no value found, a string, `true`, 7 → 1.4) is an
invalid verdict that aborts the run. docs/ifmtbench.md lists each choice.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from eval.release import source as rs
from eval.benchmark import PromptSet
from eval.ifmtbench.labels import ID_KINDS, SOFT
from eval.ifmtbench.prompt import GLOSSARY, JUDGE_PARAMS, RUBRIC
from eval.ifmtbench.rules import forget_glossary_verdicts, glossary_verdict
from eval.inputs.predictions import is_missing
from eval.release.protocol import ReleaseProtocol, loads_reply

JUDGE_FILE = "eval/llm_judge.py"
CONFIG_FILE = "config.py"
EXAMINED = {  # SHA-256 of the copy the facts were checked on (RELEASE-FACTS §0): recorded, never required
    JUDGE_FILE: "d0f827f43b6303ee130973d73887fec0f05af03513939f310581c5bbc47223a2",
    CONFIG_FILE: "e6c7f7e709507706a225b6eb9c5a60f0c74d5cf647a614ace6b73327dfdad6d6",
}
GLOSSARY_TEMPLATE = "GLOSSARY_REWARD_PROMPT"
RUBRIC_TEMPLATE = "STYLE_AND_BACKGROUND_REWARD_PROMPT"
# SHA-256 of each template as the facts' own AST reader read it (RELEASE-FACTS §3.1).
EXAMINED_TEMPLATES = {
    GLOSSARY_TEMPLATE: "b2420619876c270b712b0e94895c1664ec127a0287352f01687fe0983ba14a2f",
    RUBRIC_TEMPLATE: "b7b2900dd9188aa58ab4fc4d985a37ee08fd23b1c41e18dd59541841f771c05e",
}
FIELDS = {"user_instruction": 1, "ground_truth": 1, "target_translation": 1}
# config.py's environment defaults the request uses, and how the release converts each (RELEASE-FACTS §3.1).
PARAMETERS = {"LLM_TEMPERATURE": ("temperature", float), "LLM_MAX_TOKENS": ("max_tokens", int),
              "LLM_TOP_P": ("top_p", float)}
# The key under which the release reads each dimension from `scores`. RELEASE-FACTS §3.5 does not
# name it; this harness's ids are assumed, and a reply without the key aborts rather than scoring.
DIMENSION_KEYS = {"style": "style", "background": "background"}
SCALE = 5


class Templates:
    """The two templates and the request's parameters, read once from the release's source."""

    def __init__(self, root: Path):
        judge, config = rs.read_source(root, JUDGE_FILE), rs.read_source(root, CONFIG_FILE)
        self.files = {judge.relpath: judge.sha256, config.relpath: config.sha256}
        self.glossary = rs.check_template(rs.constant(judge, GLOSSARY_TEMPLATE, str), FIELDS,
                                          f"{JUDGE_FILE}: {GLOSSARY_TEMPLATE}")
        self.rubric = rs.check_template(rs.constant(judge, RUBRIC_TEMPLATE, str), FIELDS,
                                        f"{JUDGE_FILE}: {RUBRIC_TEMPLATE}")
        defaults = rs.environment_defaults(config)
        missing = [name for name in PARAMETERS if name not in defaults]
        if missing:
            raise rs.release_error(CONFIG_FILE, "os.environ.get defaults for " + ", ".join(PARAMETERS),
                                   "none for " + ", ".join(missing))
        self.params = {}
        for name, (key, convert) in PARAMETERS.items():
            try:
                self.params[key] = convert(defaults[name])
            except (TypeError, ValueError, OverflowError):
                raise rs.release_error(f"{CONFIG_FILE}: {name}", f"a default that {convert.__name__}() reads",
                                       f"a {type(defaults[name]).__name__}") from None


# ---------------------------------------------------------------------------------------------
# Prompts (RELEASE-FACTS §3.2, §3.3)
# ---------------------------------------------------------------------------------------------

def fill(template: str, row: dict, response: str) -> str:
    """The release's fill: the instruction, the reference and the raw response, nothing stripped."""
    return template.format(user_instruction=row.get("input", ""), ground_truth=row.get("output", ""),
                           target_translation=response)


def soft_ids(row: dict) -> list[str]:
    return [cid for cid in dict.fromkeys(row["constraint_ids"]) if ID_KINDS[cid] == SOFT]


def judge_requests(templates: Templates, rows: list[dict], predictions: dict) -> list:
    """Per present row: one rubric prompt when it has style or background (the release sends the same
    prompt once per label; this harness asks once and reads both), and the glossary prompt when the
    glossary rule fails."""
    from eval.judge_client import JudgeRequest

    requests = []
    forget_glossary_verdicts()
    for row in rows:
        response = predictions.get(row["case_id"])
        if is_missing(response):
            continue
        dimensions = soft_ids(row)
        if dimensions:
            requests.append(JudgeRequest(row["case_id"], RUBRIC, fill(templates.rubric, row, response),
                                         rubric_validator(dimensions)))
        if "glossary" in row["constraint_ids"] and not glossary_verdict(row, response, remember=True).passed:
            requests.append(JudgeRequest(row["case_id"], GLOSSARY, fill(templates.glossary, row, response),
                                         validate_glossary))
    return requests


# ---------------------------------------------------------------------------------------------
# Replies (RELEASE-FACTS §3.5)
# ---------------------------------------------------------------------------------------------

_FIRST_BIT = re.compile(r"\b([01])\b")


def glossary_value(text: str) -> int | None:
    """The release's reading: the stripped text when it is exactly 0 or 1, else the first 0 or 1
    standing alone anywhere; None when there is none."""
    text = text.strip()
    if text in ("0", "1"):
        return int(text)
    match = _FIRST_BIT.search(text)
    return int(match.group(1)) if match else None


def validate_glossary(text: str) -> dict:
    from eval.judge_client import VerdictError

    value = glossary_value(text)
    if value is None:
        raise VerdictError("no 0 or 1 in the reply (the release's reply form)")
    return {"glossary": value}


_NOTHING = object()


def _loads(text: str) -> object:
    """The parsed text, or `_NOTHING` where it is not JSON, nests too deeply or holds an integer too
    long for Python (the next step of the search is tried, as on any reply that does not parse)."""
    try:
        return loads_reply(text)
    except (ValueError, RecursionError):  # json.JSONDecodeError is a ValueError
        return _NOTHING


def fenced_block(text: str) -> str | None:
    """Group 1 of the release's first fenced-block regex (```, an optional `json`, whitespace, the
    shortest text up to optional whitespace and the next ```), found in linear time: the regex's
    leftmost match opens at the first ``` and closes at the first ``` after its content starts."""
    start = text.find("```")
    if start == -1:
        return None
    content = start + 3
    if text.startswith("json", content):
        content += 4
    rest = text[content:]
    content += len(rest) - len(rest.lstrip())  # `\s*` (str.isspace is the pattern's \s)
    close = text.find("```", content)
    if close == -1:
        return None
    return text[content:close].rstrip()


def rubric_object(text: str) -> object:
    """The release's JSON search: the whole text, then the first fenced block, then the span from the
    first `{` to the last `}`; `_NOTHING` when none parses."""
    text = text.strip()
    parsed = _loads(text)
    if parsed is _NOTHING:
        block = fenced_block(text)
        if block is not None:
            parsed = _loads(block)
    if parsed is _NOTHING:
        start, end = text.find("{"), text.rfind("}")
        if start != -1 and end > start:
            parsed = _loads(text[start:end + 1])
    return parsed


def _numeric(value: object) -> bool:
    return isinstance(value, (int, float))  # bool included, as the release reads it


def rubric_values(text: str, dimensions: list[str]) -> dict[str, object]:
    """Each dimension's raw value as the release reads it: `scores` (or the object itself), a lone
    value going to every expected dimension, the first element of a list; `_NOTHING` for none."""
    parsed = rubric_object(text)
    if not isinstance(parsed, dict):
        return {name: _NOTHING for name in dimensions}
    scores = parsed.get("scores", parsed)
    values = {}
    for name in dimensions:
        if not isinstance(scores, dict):
            value = scores
        else:
            value = scores.get(DIMENSION_KEYS[name], _NOTHING)
        if isinstance(value, list):
            value = value[0] if value and _numeric(value[0]) else _NOTHING
        values[name] = value
    return values


def rubric_validator(dimensions: list[str]):
    """{dimension: value} for the expected dimensions, a JSON null kept as null (scored 0 and counted,
    SPEC §14); anything the release would drop or score off its 0–5 scale is an invalid verdict."""
    from eval.judge_client import VerdictError

    def validate(text: str) -> dict:
        verdict, problems = {}, []
        for name, value in rubric_values(text, dimensions).items():
            if value is None:
                verdict[name] = None
            elif value is _NOTHING or not _numeric(value):
                problems.append(f"no numeric {name} score")
            elif isinstance(value, bool) or not (0 <= value <= SCALE) or math.isnan(value):
                problems.append(f"{name} = {json.dumps(value)} is off the 0–{SCALE} scale")
            else:
                verdict[name] = value
        if problems:
            raise VerdictError("; ".join(problems) + " (the release's reply form)")
        return verdict

    return validate


# ---------------------------------------------------------------------------------------------
# Requests (RELEASE-FACTS §3.4)
# ---------------------------------------------------------------------------------------------

def request_shape(templates: Templates, settings):
    """Always /chat/completions under the base; model, messages, the config's temperature,
    max_tokens and top_p, stream false; serialised as `requests` does (spaced, ASCII escapes)."""
    from eval.judge_client import RequestShape
    from eval.providers.openai_api import CHAT

    model, params = settings.model, {**templates.params, "stream": False}
    return RequestShape(CHAT, params, lambda prompt: json.dumps(
        {"model": model, "messages": [{"role": "user", "content": prompt}], **params}).encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# The plug-in
# ---------------------------------------------------------------------------------------------

PUBLISHED = "the IFMTBench paper's"


def open_release(root: Path, trust_code: bool) -> ReleaseProtocol:
    """Read the release folder (exit 2 on anything missing or different, saying what was expected
    and found). There is no code to trust: IFMTBench counts no syllables."""
    templates = Templates(root)
    comparable = (f"{PUBLISHED} IF scores per label, single vs multi and overall (the release's prompts, "
                  "request and reply parsing, and the original rules), under the same Judge model; only when "
                  "every row has a prediction and no Judge answer is null (the release drops both from its "
                  "averages, this harness counts them as 0)",)
    versions = {RUBRIC: f"release:{rs.text_sha256(templates.rubric)[:12]}",
                GLOSSARY: f"release:{rs.text_sha256(templates.glossary)[:12]}"}
    return ReleaseProtocol(
        root=Path(root), files=dict(templates.files), examined=EXAMINED,
        # params: the harness's parameters, as under `harness`; the release's own request (shape) carries
        # the config's, so they reach only a repair turn, which the command line turns off here.
        prompt_set=PromptSet(versions, lambda rows, predictions: judge_requests(templates, rows, predictions),
                             shape=lambda settings: request_shape(templates, settings), params=JUDGE_PARAMS),
        counter=None, counter_file="",
        comparable=comparable, not_comparable=(),
        templates={GLOSSARY_TEMPLATE: rs.text_sha256(templates.glossary),
                   RUBRIC_TEMPLATE: rs.text_sha256(templates.rubric)},
        examined_templates=EXAMINED_TEMPLATES)
