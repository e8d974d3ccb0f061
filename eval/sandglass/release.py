"""Sandglass-Bench under `--protocol release` (SPEC §15): the release's Judge prompt, request and
reply parsing, read from the user's copy of the release; with `--trust-release-code`, its counter.

Where each piece lives, its placeholders, how it is filled and what is sent are facts about the
official scorer (shared/RELEASE-FACTS.md §2, in this team's words). The request parameters and the
Japanese-only pieces are read from the user's own evaluate.py, whose published copies differ
(RELEASE-FACTS §0), never assumed. Nothing of the text is written anywhere but the requests and
the Judge cache.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from eval.release import source as rs
from eval.benchmark import PromptSet
from eval.io.data import file_sha256
from eval.errors import ConfigError
from eval.inputs.predictions import is_missing
from eval.release.protocol import ReleaseProtocol, validate_bare_quality

PROMPT_FILE = "judge_prompt.py"
EVALUATE = "evaluate.py"
COUNTER_FILE = "syllable_calculation.py"
COUNTER_SIBLING = "syllable_calculation_v2"
COUNTER_FUNCTION = "cal_syllable_count"
EXAMINED = {  # SHA-256 of the copy the facts were checked on (RELEASE-FACTS §0): recorded, never required
    PROMPT_FILE: "005deb8de734346f4cfa291540ee8677fdaf34396dd3b34c573fda13f2a2ed4a",
    EVALUATE: "f786d0273da1a1045d89a56632d13ff8756811a03e25c92238836576dfd6f286",
    COUNTER_FILE: "4af929c087917357276e148fdf48177d39e95d44311ff11e43ecae8cfab9bbab",
    f"{COUNTER_SIBLING}.py": "e34538d86cb95c3fc2fbbc9182c88a3aa8260248705a20fb3635c88a9ceed776",
}
# SHA-256 of the files the Sandglass release manifest lists (RELEASE-FACTS §0, "the copies that match
# the Sandglass release manifest"): they recognise the release's scorer, its one version (SPEC §7c).
SCORER_VERSION = "release-3686ba4"
MANIFEST = {
    EVALUATE: "a830540726b1051568e934d19c929190bcf98e4eb7eab15d4ecc14fd94054161",
    COUNTER_FILE: "48837eef20c49f82c38bb6a7531d5f411e0cfdcc44a8957fa9f33051b2f982f8",
    f"{COUNTER_SIBLING}.py": "101cf92b0ebd27a9cc4074cf3420129e5643e81b3f0a309c8ef24d9bcfe9ccb7",
}
_SCORER_FILE_LIMIT = 1 << 20  # the three files are under 50 KB; a larger one is no known copy


def recognise_scorer(root: Path) -> tuple[str, str | None]:
    """(how the scorer was identified, the one-line notice when it was not): the three scorer files
    by the manifest's SHA-256, or by the later copy's the facts examined; anything else is unknown."""
    digests = {}
    for name in MANIFEST:
        path = Path(root) / name
        try:
            digests[name] = file_sha256(path) if path.stat().st_size <= _SCORER_FILE_LIMIT else "too large"
        except OSError:
            digests[name] = "missing"
    listed = ", ".join(MANIFEST)
    if digests == MANIFEST:
        return f"sha256 of {listed} (the release manifest's)", None
    if all(digests[name] == EXAMINED[name] for name in MANIFEST):
        return f"sha256 of {listed} (a later copy than the release manifest's, the one RELEASE-FACTS examined)", None
    differing = ", ".join(f"{name} ({digests[name][:12]})" for name in MANIFEST if digests[name] != MANIFEST[name])
    return "unknown", (f"{differing} match no known Sandglass scorer; scoring with its one known version, "
                       f"{SCORER_VERSION}")


# SHA-256 of each piece as the facts' own AST reader read it (RELEASE-FACTS §2.1).
EXAMINED_TEMPLATES = {
    "JUDGE_PROMPT": "707c2785f6fcf807888d6f7be5d504116f8bfbda4072011afaf9bca952f84784",
    "lang_notes": "6d970be4c756c89d6bb1e667572d7392e2b554fa27088c4fbe9fc4f6751ab558",
    "bad_case": "8df2bb72ffde8ff610839c880ad64b141eaa70bbc4da1343285ab357e40a56f8",
}
PROMPT_FIELDS = {"target_lang": 6, "duration:.1f": 1, "target_syllables": 1, "summary": 1, "up_context": 1,
                 "down_context": 1, "origin_text": 2, "translate_text": 1, "lang_notes": 1, "bad_case": 1}
FORMAT_KEYWORDS = ("target_lang", "duration", "target_syllables", "summary", "up_context", "down_context",
                   "origin_text", "translate_text", "lang_notes", "bad_case")
LANGUAGE_BRANCHES = ("lang_notes", "bad_case")  # a literal for one target language, '' for the others
EXPRESSION_KEYWORDS = ("model", "messages")     # of the create call; every other keyword is a literal


class Templates:
    """The prompt, the per-language pieces and the request's parameters, read once."""

    def __init__(self, root: Path):
        prompt_file, evaluate = rs.read_source(root, PROMPT_FILE), rs.read_source(root, EVALUATE)
        self.files = {prompt_file.relpath: prompt_file.sha256, evaluate.relpath: evaluate.sha256}
        self.language_names = rs.constant(prompt_file, "LANG_CN", dict)
        self.prompt = rs.check_template(rs.constant(prompt_file, "JUDGE_PROMPT", str), PROMPT_FIELDS,
                                        f"{PROMPT_FILE}: JUDGE_PROMPT")
        for name in ("JUDGE_PROMPT", "LANG_CN"):  # evaluate.py must send them as judge_prompt.py binds them
            rs.imported(evaluate, name)
        fill = rs.one_call(evaluate, "format", receiver="JUDGE_PROMPT")
        where = f"{EVALUATE}: JUDGE_PROMPT.format"
        rs.check_members([item.arg for item in fill.keywords], FORMAT_KEYWORDS, f"{where} keywords")
        self.branches: dict[str, tuple[str, str]] = {}  # keyword -> (language, its literal)
        for name in LANGUAGE_BRANCHES:
            branch = rs.keyword_branch(fill, name, where)
            if branch.equals is None or not isinstance(branch.body, str) or branch.orelse != "":
                raise rs.release_error(f"{where}: {name}", "'<text>' if <target language> == '<code>' else ''",
                                       f"{'a test that is not == <code>' if branch.equals is None else 'a test'}, "
                                       f"a {type(branch.body).__name__} when true, "
                                       f"{repr('') if branch.orelse == '' else 'something else'} when false")
            self.branches[name] = (branch.equals, branch.body)
        self.params = create_params(evaluate)


def create_params(evaluate: rs.SourceFile) -> dict:
    """The literal keywords of the release's one chat-completions call (e.g. reasoning_effort)."""
    found = [call for call in rs.calls(evaluate, "create")
             if isinstance(call.func, ast.Attribute) and ast.unparse(call.func.value).endswith("chat.completions")]
    if len(found) != 1:
        raise rs.release_error(EVALUATE, "exactly one call <client>.chat.completions.create(…)", str(len(found)))
    call, where = found[0], f"{EVALUATE}: chat.completions.create"
    names = [item.arg for item in found[0].keywords]
    if None in names or any(name not in names for name in EXPRESSION_KEYWORDS):
        raise rs.release_error(where, "keywords model, messages and literal parameters",
                               f"keywords {', '.join(map(str, names))}")
    return {name: rs.keyword_literal(call, name, where) for name in sorted(names) if name not in EXPRESSION_KEYWORDS}


# ---------------------------------------------------------------------------------------------
# The prompt (RELEASE-FACTS §2.2) and its reply (§2.5)
# ---------------------------------------------------------------------------------------------

def judge_prompt(templates: Templates, row: dict, prediction: str) -> str:
    meta = row["metadata"]
    lang = meta["target_language"]
    if lang not in templates.language_names:
        raise ConfigError(f"release protocol: case {row['case_id']}: the release's LANG_CN has no entry for "
                          f"target language {lang!r} (it has {', '.join(map(str, templates.language_names))})",
                          "score only the release's languages under --protocol release")
    pieces = {name: (text if lang == language else "") for name, (language, text) in templates.branches.items()}
    return templates.prompt.format(
        target_lang=templates.language_names[lang], duration=meta["duration"],
        target_syllables=meta["target_syllables"], summary=meta.get("summary", ""),
        up_context=meta.get("up_context", ""), down_context=meta.get("down_context", ""),
        origin_text=meta["source"], translate_text=prediction, **pieces)


def judge_requests(templates: Templates, rows: list[dict], predictions: dict) -> list:
    """One quality prompt per present prediction, in data order."""
    from eval.judge_client import JudgeRequest

    return [JudgeRequest(row["case_id"], "sandglass_quality", judge_prompt(templates, row, predictions[row["case_id"]]),
                         validate_bare_quality)
            for row in rows if not is_missing(predictions.get(row["case_id"]))]


def request_shape(templates: Templates, settings):
    """Always /chat/completions; the body's keys as the release's client sends them (messages,
    model, then the literal parameters by name), compact and raw UTF-8."""
    from eval.judge_client import RequestShape
    from eval.providers.openai_api import CHAT

    model, params = settings.model, dict(templates.params)
    return RequestShape(CHAT, params, lambda prompt: json.dumps(
        {"messages": [{"role": "user", "content": prompt}], "model": model, **params},
        ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# The plug-in
# ---------------------------------------------------------------------------------------------

PUBLISHED = "the Sandglass-Bench card's leaderboard"


def open_release(root: Path, trust_code: bool) -> ReleaseProtocol:
    """Read the release folder; with `trust_code`, import its syllable module (v3, which patches
    the v2 beside it, so v2 is importable under its own name while v3 loads)."""
    from eval.release.code import load_counter

    templates = Templates(root)
    files = dict(templates.files)
    counter = None
    if trust_code:
        counter = load_counter(Path(root) / COUNTER_FILE, "sandglass_release_syllable", COUNTER_FUNCTION,
                               siblings=(COUNTER_SIBLING,), lang_by_keyword=True)  # called with lang=…
        for name in (COUNTER_FILE, f"{COUNTER_SIBLING}.py"):
            files[name] = file_sha256(Path(root) / name)
    comparable = [f"{PUBLISHED} quality (the release's prompt, request and reply parsing), under the same Judge model"]
    not_comparable = []
    syllable_metrics = "mean |dev|, ±1 rate, dev ≤ 5% rate, slope, syllable reward and score"
    if counter is not None:
        comparable.append(f"{PUBLISHED} {syllable_metrics} (the release's {COUNTER_FILE})")
    else:
        not_comparable.append(f"{PUBLISHED} {syllable_metrics}: counted by this harness's counter, not "
                              f"{COUNTER_FILE} (pass --trust-release-code)")
    identified_by, notice = recognise_scorer(root)
    return ReleaseProtocol(
        scorer_version=SCORER_VERSION, scorer_identified_by=identified_by, scorer_notice=notice,
        root=Path(root), files=files, examined=EXAMINED,
        prompt_set=PromptSet({"sandglass_quality": "release:" + rs.text_sha256(
            templates.prompt + "".join(text for _, text in templates.branches.values()))[:12]},
            lambda rows, predictions: judge_requests(templates, rows, predictions),
            shape=lambda settings: request_shape(templates, settings)),
        counter=counter, counter_file=COUNTER_FILE,
        comparable=tuple(comparable), not_comparable=tuple(not_comparable),
        templates={"JUDGE_PROMPT": rs.text_sha256(templates.prompt),
                   **{name: rs.text_sha256(text) for name, (_, text) in templates.branches.items()}},
        examined_templates=EXAMINED_TEMPLATES)
