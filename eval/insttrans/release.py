"""InstTrans-Bench under `--protocol release` (SPEC §15): the release's Judge prompts, requests and
reply parsing, read from the user's copy of the release; with `--trust-release-code`, its counter.

Where each piece lives, its placeholders, how it is filled and what is sent are facts about the
official scorer (shared/RELEASE-FACTS.md §1, in this team's words); the text itself is only ever
read from the user's release folder, filled, and sent. Nothing of it is written anywhere but the
requests and the Judge cache.
"""

from __future__ import annotations

import json
from pathlib import Path

from eval.release import source as rs
from eval.benchmark import PromptSet
from eval.io.data import file_sha256
from eval.inputs.predictions import is_missing
from eval.release.protocol import ReleaseProtocol, loads_reply, validate_bare_quality

PROMPTS = "eval/prompts.py"
CONSTRAINTS = "eval/constraints.py"
CLIENT = "eval/judge_client.py"
SYLLABLE = "eval/syllable.py"
# SHA-256 of the copy the facts were checked on (RELEASE-FACTS §0): recorded, never required.
EXAMINED = {
    PROMPTS: "31cb0335333c8a0bfebd2c12d078760468570a2548c03ef7296c307af24473a7",
    CLIENT: "128a6e9d49059d9ccd184150a5b828857c401f4fa5c4ca6bb811a293d529cb8c",
    CONSTRAINTS: "00cd6f3bb140bfcfaebb1e281790331059aef9f9091b75213e33e67ecd3074e7",
    SYLLABLE: "aa0036d763fbce3db89225ab12f64f5f7dcdfb8fc5e40ab1d78ab5b4aea968f6",
}
# SHA-256 of each template as the facts' own AST reader read it (RELEASE-FACTS §1.1).
EXAMINED_TEMPLATES = {
    "SOFT_CONSTRAINT_JUDGE_TEMPLATE": "0cf65442ad596a4d79141b568cb9f4c5b9942649bc39e20a950395d3da664009",
    "build_quality_prompt": "3c778d6990cd17a7e92da0290b6a8d5b1598c87672aaf7b36335149bdfe16c50",
    "build_quality_prompt (web_html)": "074d71333124a717f00e485ab65aa4d78b06d31b94b9c2ded35fdeae70603e21",
}
SOFT_IDS = ("style_consistency", "context_disambiguate", "coref_resolution", "term_cross_sentence",
            "academic_format_preserve")
QUALITY_FIELDS = {"src_name": 1, "tgt_name": 1, "source_text": 1, "reference": 1, "prediction": 1}
SOFT_FIELDS = {"source_text": 1, "target_text": 1, "constraint_list": 1}
WEB_HTML = "web_html"
COUNTER_FUNCTION = "cal_syllable_count"


class Templates:
    """Everything the release's prompts and requests need, read once from its source."""

    def __init__(self, root: Path):
        prompts, constraints, client = (rs.read_source(root, path) for path in (PROMPTS, CONSTRAINTS, CLIENT))
        self.files = {source.relpath: source.sha256 for source in (prompts, constraints, client)}
        self.language_names = rs.constant(prompts, "LANGUAGE_NAMES", dict)
        self.soft = rs.check_template(rs.constant(prompts, "SOFT_CONSTRAINT_JUDGE_TEMPLATE", str), SOFT_FIELDS,
                                      f"{PROMPTS}: SOFT_CONSTRAINT_JUDGE_TEMPLATE")
        self.quality, self.quality_web = quality_templates(prompts)
        soft_ids = rs.call_argument(constraints, "SOFT_CONSTRAINT_IDS")
        rs.check_members(soft_ids, SOFT_IDS, f"{CONSTRAINTS}: SOFT_CONSTRAINT_IDS")
        self.soft_ids = frozenset(soft_ids)
        keywords = rs.local_literal(constraints, "collect_soft_constraint_descs", "keyword_map")
        if not isinstance(keywords, dict):
            raise rs.release_error(f"{CONSTRAINTS}: keyword_map", "a dict", type(keywords).__name__)
        rs.check_members(keywords, SOFT_IDS, f"{CONSTRAINTS}: collect_soft_constraint_descs.keyword_map")
        self.keywords = {cid: tuple(words) for cid, words in keywords.items()}
        self.temperature = rs.constant(client, "JUDGE_TEMPERATURE", (int, float))
        self.max_tokens = rs.constant(client, "JUDGE_MAX_TOKENS", int)
        self.max_output_tokens = rs.constant(client, "JUDGE_MAX_OUTPUT_TOKENS", int)
        self.reasoning_effort = rs.constant(client, "JUDGE_REASONING_EFFORT", str)
        prefixes = rs.method_call_argument(client, "uses_responses_endpoint", "startswith")
        if not isinstance(prefixes, tuple) or not all(isinstance(p, str) for p in prefixes):
            raise rs.release_error(f"{CLIENT}: uses_responses_endpoint", "a tuple of name prefixes", repr(prefixes))
        self.responses_prefixes = prefixes


def quality_templates(prompts: rs.SourceFile) -> tuple[str, str]:
    """(default, web_html) quality templates: the f-string returned at the function's level, and
    the one returned under the `if` that compares the scenario with web_html (RELEASE-FACTS §1.1)."""
    returned = rs.returned_fstrings(prompts, "build_quality_prompt")
    default = [item.template for item in returned if not item.guards]
    web = [item.template for item in returned if WEB_HTML in item.guards]
    where = f"{PROMPTS}: build_quality_prompt"
    if len(default) != 1 or len(web) != 1 or len(returned) != 2:
        found = ", ".join("under if " + "/".join(item.guards) if item.guards else "at the function's level"
                          for item in returned) or "none"
        raise rs.release_error(where, "two returned f-strings: one at the function's level and one under "
                                      f"an if comparing with {WEB_HTML!r}", f"returned f-strings {found}")
    return (rs.check_template(default[0], QUALITY_FIELDS, f"{where} (default)"),
            rs.check_template(web[0], QUALITY_FIELDS, f"{where} ({WEB_HTML})"))


# ---------------------------------------------------------------------------------------------
# Prompts (RELEASE-FACTS §1.2, §1.3)
# ---------------------------------------------------------------------------------------------

def quality_prompt(templates: Templates, row: dict, prediction: str) -> str:
    names = templates.language_names
    template = templates.quality_web if row.get("scenario") == WEB_HTML else templates.quality
    return template.format(src_name=names.get(row["source_lang"], row["source_lang"]),
                           tgt_name=names.get(row["target_lang"], row["target_lang"]),
                           source_text=row["source_text"], reference=row["reference"], prediction=prediction)


def soft_descriptions(templates: Templates, row: dict) -> dict[str, str]:
    """Each soft id in constraint_ids order → the first constraint line holding any of its
    keywords, else the id itself."""
    descriptions: dict[str, str] = {}
    for cid in row["constraint_ids"]:
        if cid not in templates.soft_ids or cid in descriptions:
            continue
        words = templates.keywords.get(cid, ())
        descriptions[cid] = next((line for line in row["constraints"] if any(word in line for word in words)), cid)
    return descriptions


def soft_prompt(templates: Templates, row: dict, prediction: str, descriptions: dict[str, str]) -> str:
    constraint_list = "\n".join(f"[{cid}] {desc}" for cid, desc in descriptions.items())
    return templates.soft.format(source_text=row["source_text"], target_text=prediction,
                                 constraint_list=constraint_list)


# ---------------------------------------------------------------------------------------------
# Replies (RELEASE-FACTS §1.5)
# ---------------------------------------------------------------------------------------------

def soft_scores(text: str, ids: list[str], booleans: bool = True) -> dict[str, float | None]:
    """Each id's score as the release reads it; None where it reads none. `booleans`: a JSON true
    or false is a score (1 or 0), as public-v1 reads it; 2026-10-05 reads none there (SPEC §7c)."""
    value = _json_object(text)
    if not isinstance(value, dict):
        return {cid: None for cid in ids}
    return {cid: _entry_score(value.get(cid), booleans) for cid in ids}


def _json_object(text: str) -> object:
    """json.loads of the stripped text; on a decode error only, of the span from the first `{` to
    the last `}` (the release's greedy regex, found in linear time). An integer too long for Python
    (a ValueError, not a decode error: the release stops there) reads as nothing, an invalid verdict."""
    try:
        return loads_reply(text.strip())
    except RecursionError:
        return None
    except json.JSONDecodeError:
        pass
    except ValueError:
        return None
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end <= start:
        return None
    try:
        return loads_reply(text[start:end + 1])
    except (ValueError, RecursionError):
        return None


def _entry_score(entry: object, booleans: bool = True) -> float | None:
    if not isinstance(entry, dict) or "score" not in entry:
        return None
    if isinstance(entry["score"], bool) and not booleans:
        return None
    try:
        score = float(entry["score"])
    except (TypeError, ValueError, OverflowError):
        return None
    return score if score in (0.0, 0.5, 1.0) else None


def soft_validator(ids: list[str], booleans: bool = True):
    from eval.judge_client import VerdictError

    def validate(text: str) -> dict:
        scores = soft_scores(text, ids, booleans)
        unread = [cid for cid, score in scores.items() if score is None]
        if unread:
            raise VerdictError(f"no valid score for {unread} (the release's reply form)")
        return {"scores": scores}

    return validate


def judge_requests(templates: Templates, rows: list[dict], predictions: dict, booleans: bool = True) -> list:
    """Per present row, the soft prompt (when it has soft ids) then the quality prompt."""
    from eval.judge_client import JudgeRequest

    requests = []
    for row in rows:
        prediction = predictions.get(row["case_id"])
        if is_missing(prediction):
            continue
        descriptions = soft_descriptions(templates, row)
        if descriptions:
            requests.append(JudgeRequest(row["case_id"], "soft", soft_prompt(templates, row, prediction, descriptions),
                                         soft_validator(list(descriptions), booleans)))
        requests.append(JudgeRequest(row["case_id"], "quality", quality_prompt(templates, row, prediction),
                                     validate_bare_quality))
    return requests


# ---------------------------------------------------------------------------------------------
# Requests (RELEASE-FACTS §1.4)
# ---------------------------------------------------------------------------------------------

def request_shape(templates: Templates, settings):
    """The endpoint by the release's name rule (a plain prefix test of the whole name) and its
    body, keys in the order the release's client sends them, compact and raw UTF-8."""
    from eval.judge_client import RequestShape
    from eval.providers.openai_api import CHAT, RESPONSES

    model = settings.model
    if model.startswith(templates.responses_prefixes):
        params = {"max_output_tokens": templates.max_output_tokens,
                  "reasoning": {"effort": templates.reasoning_effort}}
        return RequestShape(RESPONSES, params, lambda prompt: _dumps(
            {"input": prompt, "max_output_tokens": templates.max_output_tokens, "model": model,
             "reasoning": {"effort": templates.reasoning_effort}}))
    params = {"max_tokens": templates.max_tokens, "temperature": templates.temperature}
    return RequestShape(CHAT, params, lambda prompt: _dumps(
        {"messages": [{"role": "user", "content": prompt}], "model": model, "max_tokens": templates.max_tokens,
         "temperature": templates.temperature}))


def _dumps(body: dict) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# The plug-in
# ---------------------------------------------------------------------------------------------

PUBLISHED = "the InstTrans-Bench leaderboard's"


def open_release(root: Path, trust_code: bool) -> ReleaseProtocol:
    """Read the release folder; with `trust_code`, import its syllable module (exit 2 on anything
    missing or different, saying what was expected and found)."""
    from eval.release.code import load_counter

    templates = Templates(root)
    files = dict(templates.files)
    counter = None
    if trust_code:
        counter = load_counter(Path(root) / SYLLABLE, "insttrans_release_syllable", COUNTER_FUNCTION)  # (text, lang)
        files[SYLLABLE] = file_sha256(Path(root) / SYLLABLE)
    comparable = [f"{PUBLISHED} IF_Score, translation quality and soft-constraint scores (the release's "
                  "prompts, requests and reply parsing), under the same Judge model; quality only when every "
                  "instance has a prediction (the release averages it over present predictions, this harness "
                  "counts a missing one as 0)",
                  f"{PUBLISHED} hard-rule pass rates except syllable_order (the original rules)"]
    not_comparable = []
    if counter is not None:
        comparable.append(f"{PUBLISHED} syllable_order pass rate (the release's {SYLLABLE})")
    else:
        not_comparable.append(f"{PUBLISHED} syllable_order pass rate, and the IF_Score of rows with "
                              f"syllable_order: counted by this harness's counter, not {SYLLABLE} "
                              "(pass --trust-release-code)")
    versions = {"quality": f"release:{rs.text_sha256(templates.quality + templates.quality_web)[:12]}",
                "soft": f"release:{rs.text_sha256(templates.soft)[:12]}"}
    from eval.insttrans.scorer_versions import recognise_release
    from eval.insttrans.rules import PUBLIC_V1

    scorer = recognise_release(root)
    booleans = scorer.version == PUBLIC_V1  # the folder's version reads the replies (SPEC §7c)
    return ReleaseProtocol(
        scorer_version=scorer.version, scorer_identified_by=scorer.identified_by, scorer_notice=scorer.notice,
        root=Path(root), files=files, examined=EXAMINED,
        prompt_set=PromptSet(versions, lambda rows, predictions: judge_requests(templates, rows, predictions, booleans),
                             shape=lambda settings: request_shape(templates, settings)),
        counter=counter, counter_file=SYLLABLE,
        comparable=tuple(comparable), not_comparable=tuple(not_comparable),
        templates={"SOFT_CONSTRAINT_JUDGE_TEMPLATE": rs.text_sha256(templates.soft),
                   "build_quality_prompt": rs.text_sha256(templates.quality),
                   "build_quality_prompt (web_html)": rs.text_sha256(templates.quality_web)},
        examined_templates=EXAMINED_TEMPLATES)
