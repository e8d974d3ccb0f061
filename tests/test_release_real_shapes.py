"""The strict release reader (issue 34 item 6) accepts every harmless shape the public release files
use: checked by hand against the real public files (InstTrans public-v1 and 2026-10-05, the Sandglass
manifest copy and the later copy, Hy-MT2 IFMTBench), which all read; these synthetic folders carry the
same shapes in this team's words, so that a tighter reader that would refuse a real release fails here.

Shapes: locals and attributes of `self` changed in place next to a template read (`self._cache.clear()`,
`descs.setdefault`, `result[k] = ...`), a local alias of a module name (`config = LLM_CONFIG`), nested
functions and closures, `for`/`with`/`except` targets of other names, f-string and `"|".join` regexes
at module level, and a loop variable called `field` beside module constants.
"""

from __future__ import annotations

from pathlib import Path

from eval.ifmtbench.release import Templates as IfTemplates
from eval.insttrans.release import Templates as ItTemplates
from eval.sandglass.release import Templates as SgTemplates
from tests import release_folders as rf

IT_CLIENT_SHAPES = '''
import threading
from typing import Callable


class _Client:
    def __init__(self, model, base_url):
        self.model = model
        self.base_url = base_url
        self._use_responses = uses_responses_endpoint(model)
        self._lock = threading.Lock()
        self._cache = {}
        self._errors = 0

    def _key(self, prompt):
        if self._use_responses:
            params = {"max_output_tokens": JUDGE_MAX_OUTPUT_TOKENS, "effort": JUDGE_REASONING_EFFORT}
        else:
            params = {"temperature": JUDGE_TEMPERATURE, "max_tokens": JUDGE_MAX_TOKENS}
        return repr(sorted({"prompt": prompt, "base": self.base_url, **params}.items()))

    def _put(self, key, value):
        with self._lock:
            if key in self._cache:
                return
            self._cache[key] = value

    def _chat(self, client, prompt):
        return client.create(model=self.model, temperature=JUDGE_TEMPERATURE, max_tokens=JUDGE_MAX_TOKENS)

    def _responses(self, client, prompt):
        return client.create(model=self.model, input=prompt, max_output_tokens=JUDGE_MAX_OUTPUT_TOKENS,
                             reasoning={"effort": JUDGE_REASONING_EFFORT})

    def complete(self, client, prompt, validator: Callable[[str], bool] | None = None):
        error = None
        for attempt in range(3):
            try:
                text = self._responses(client, prompt) if self._use_responses else self._chat(client, prompt)
                if validator is not None and not validator(text):
                    raise ValueError("rejected")
                self._put(self._key(prompt), text)
                return text
            except BaseException as exc:
                error = exc
                self._errors += 1
        raise RuntimeError(error)

    def clear_cache(self):
        with self._lock:
            self._cache.clear()
'''

# The release's own loop: a second local changed in place (setdefault, a subscript), .get on the literal.
IT_COLLECT_REAL_SHAPE = '''def collect_soft_constraint_descs(constraint_ids, constraint_lines):
    keyword_map = {keywords!r}
    descs: dict[str, str] = {{}}
    for cid in constraint_ids:
        if cid not in SOFT_CONSTRAINT_IDS:
            continue
        for line in constraint_lines:
            if any(word in line for word in keyword_map.get(cid, [])):
                descs[cid] = line
                break
        descs.setdefault(cid, cid)
    return descs
'''

IT_CONSTRAINTS_SHAPES = r'''
import json
import re

_NO_SPACE = (r"\u3040-\u30ff"   # kana
             r"\u4e00-\u9fff")  # han
_NO_SPACE_CHAR = re.compile(f"[{_NO_SPACE}]")
_MARKER_FORMS = (r"\{[a-z_]+\}", r"%[dsf]")
_MARKER_TRIGGER = re.compile("|".join(_MARKER_FORMS))


def _keys(text):
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return False, []
    found = []

    def walk(obj, path=""):
        if isinstance(obj, dict):
            for key, value in obj.items():
                current = f"{path}.{key}" if path else key
                found.append(current)
                walk(value, current)
        elif isinstance(obj, list):
            for index, element in enumerate(obj):
                walk(element, f"{path}[{index}]")

    walk(parsed)
    return True, found


def _hard(row, prediction):
    results = {}
    for cid in row["constraint_ids"]:
        if cid not in HARD_CONSTRAINT_IDS:
            continue
        results[cid] = {"is_valid": bool(prediction)}
    return results
'''

IT_PROMPTS_SHAPES = '''

def _lang_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)


def _soft(row, prediction, soft_descs):
    constraint_list = "\\n".join(f"[{cid}] {desc}" for cid, desc in soft_descs.items())
    return SOFT_CONSTRAINT_JUDGE_TEMPLATE.format(source_text=row["source_text"], target_text=prediction,
                                                 constraint_list=constraint_list)
'''

SG_EVALUATE_SHAPES = '''
import hashlib
import json
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlsplit


def redact_api_base(api_base):
    try:
        parsed = urlsplit(api_base)
        host = parsed.hostname or ""
        if parsed.port is not None:
            host += f":{parsed.port}"
        return f"{parsed.scheme}://{host}"
    except ValueError:
        return "<redacted>"


def score_rows(rows, preds, out_dir: Path):
    cache = {}
    summary = {}
    scored = []
    for row in rows:
        m, hyp = row["metadata"], preds.get(row["case_id"], "")
        language = LANG_CN[m["target_language"]]
        key = hashlib.sha256(json.dumps(dict(language=language, hyp=hyp), sort_keys=True).encode()).hexdigest()
        response = cache.get(key)
        if response is None:
            for attempt in range(3):
                try:
                    response = "1"
                    break
                except Exception:
                    response = None
                    if attempt == 2:
                        raise
            with (out_dir / "cache.jsonl").open("a", encoding="utf-8") as f:
                f.write(json.dumps(dict(key=key, response=response)) + "\\n")
            cache[key] = response
        scored.append(dict(case_id=row["case_id"], target_language=m["target_language"], quality=response))
    groups = defaultdict(dict)
    for r in scored:
        groups[r["target_language"]][r["case_id"]] = r
    for field in ["target_language", "quality"]:
        summary[field] = {k: len([r for r in scored if r[field] == k]) for k in sorted({r[field] for r in scored})}
    return summary, groups
'''

IF_JUDGE_SHAPES = r'''
import logging
import re
import time

log = logging.getLogger(__name__)


def _post(user_prompt):
    config = LLM_CONFIG
    url = config["api_base"].rstrip("/") + "/chat/completions"
    json_data = {"model": config["model"], "messages": [{"role": "user", "content": user_prompt}],
                 "temperature": config["temperature"], "max_tokens": config["max_tokens"],
                 "top_p": config["top_p"], "stream": False}
    return url, json_data, REQUEST_TIMEOUT


def _with_retry(user_prompt):
    last_error = None
    for attempt in range(MAX_RETRIES + 1):
        try:
            return _post(user_prompt)
        except Exception as e:
            last_error = str(e)
        if attempt < MAX_RETRIES:
            time.sleep(0)
    return last_error


def _glossary(instruction, reference, response):
    result = {"glossary": None, "if_score": None}
    prompt = GLOSSARY_REWARD_PROMPT.format(user_instruction=instruction, ground_truth=reference,
                                           target_translation=response)
    m = re.search(r"\b([01])\b", prompt)
    if m:
        result["glossary"] = int(m.group(1))

    def _extract(val):
        return val if isinstance(val, (int, float)) else None

    result["if_score"] = _extract(result["glossary"])
    return result


def _rubric(instruction, reference, response, expected):
    result = {"style": None, "background": None}
    prompt = STYLE_AND_BACKGROUND_REWARD_PROMPT.format(user_instruction=instruction, ground_truth=reference,
                                                       target_translation=response)
    scores = {"style": len(prompt) % 6}
    result["style"] = scores.get("style")
    log.warning("parsed %s", expected)
    return result
'''

IF_CONFIG_SHAPES = '''
LABEL_TO_DIMENSION = {"标签-甲": "glossary", "标签-乙": "style", "标签-丙": "background"}
JUDGE_LABELS = {"标签-乙", "标签-丙"}
GLOSSARY_LABELS = {"标签-甲"}
GATE_LABELS = GLOSSARY_LABELS | JUDGE_LABELS
CONTINUOUS_LABELS = JUDGE_LABELS
'''


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n" + text)


def test_insttrans_release_shapes_are_read(tmp_path):
    plain = ItTemplates(rf.make_insttrans_release(tmp_path / "plain"))
    root = rf.make_insttrans_release(tmp_path / "shaped")
    constraints = root / "eval" / "constraints.py"
    text = constraints.read_text(encoding="utf-8")
    start = text.index("def collect_soft_constraint_descs")
    end = text.index("    return descs\n", start) + len("    return descs\n")
    constraints.write_text(text[:start] + IT_COLLECT_REAL_SHAPE.format(keywords=rf.IT_KEYWORDS) + text[end:],
                           encoding="utf-8")
    _append(constraints, IT_CONSTRAINTS_SHAPES)
    _append(root / "eval" / "judge_client.py", IT_CLIENT_SHAPES)
    _append(root / "eval" / "prompts.py", IT_PROMPTS_SHAPES)
    shaped = ItTemplates(root)
    for name in ("language_names", "soft", "quality", "quality_web", "soft_ids", "keywords", "temperature",
                 "max_tokens", "max_output_tokens", "reasoning_effort", "responses_prefixes"):
        assert getattr(shaped, name) == getattr(plain, name), name
    assert shaped.keywords == {cid: tuple(words) for cid, words in rf.IT_KEYWORDS.items()}


def test_sandglass_release_shapes_are_read(tmp_path):
    plain = SgTemplates(rf.make_sandglass_release(tmp_path / "plain"))
    root = rf.make_sandglass_release(tmp_path / "shaped")
    _append(root / "evaluate.py", SG_EVALUATE_SHAPES)
    shaped = SgTemplates(root)
    assert shaped.prompt == plain.prompt == rf.SG_TEMPLATE
    assert shaped.language_names == plain.language_names == rf.SG_LANG_NAMES
    assert shaped.branches == plain.branches
    assert shaped.params == plain.params == {"reasoning_effort": "low"}


def test_ifmtbench_release_shapes_are_read(tmp_path):
    plain = IfTemplates(rf.make_ifmtbench_release(tmp_path / "plain"))
    root = rf.make_ifmtbench_release(tmp_path / "shaped")
    _append(root / "eval" / "llm_judge.py", IF_JUDGE_SHAPES)
    _append(root / "config.py", IF_CONFIG_SHAPES)
    shaped = IfTemplates(root)
    assert (shaped.glossary, shaped.rubric) == (plain.glossary, plain.rubric)
    assert shaped.params == plain.params == {"temperature": 0.0, "max_tokens": 8192, "top_p": 0.6}
