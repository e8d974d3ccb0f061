"""Synthetic release folders for the `--protocol release` tests (SPEC §15).

Each folder has the shape the facts describe (file names, template names, placeholders, layout)
but this team's own synthetic text, which carries sentinel sentences. The sentinels are put
together at run time, so no file of this repository holds one: a test can grep the repository,
the outputs and the logs for them. Beside each folder, the test side's own fill functions rebuild
the prompts and request bodies from the facts alone (shared/RELEASE-FACTS.md §1.2–1.4, §2.2–2.4, §3.2–3.4),
independently of the harness's AST reader.
"""

from __future__ import annotations

import json
from pathlib import Path


def _sentinel(name: str) -> str:
    return "-".join(("RLS", "SENTINEL", name, "b7e2")) + " says the synthetic rubric"


Q_DEFAULT, Q_WEB, SOFT, SANDGLASS, JA_NOTES, JA_BAD, IF_GLOSSARY, IF_RUBRIC = (
    _sentinel(name) for name in ("QDEF", "QWEB", "SOFT", "SAND", "JANOTE", "JABAD", "IFGLOS", "IFRUB"))
SENTINELS = (Q_DEFAULT, Q_WEB, SOFT, SANDGLASS, JA_NOTES, JA_BAD, IF_GLOSSARY, IF_RUBRIC)

# ---------------------------------------------------------------------------------------------
# InstTrans-Bench
# ---------------------------------------------------------------------------------------------

IT_LANGUAGE_NAMES = {"zh": "名-zh", "ja": "名-ja", "de": "名-de"}  # en, ro, ms, hi: the raw code
IT_KEYWORDS = {"style_consistency": ["语体", "风格"], "context_disambiguate": ["歧义"],
               "coref_resolution": ["KW-never-matches"],  # the id itself stands in (RELEASE-FACTS §1.2)
               "term_cross_sentence": ["跨句", "全文统一"], "academic_format_preserve": ["学术", "LaTeX"]}
RESPONSES_PREFIXES = ("gpt-5", "gpt-6", "o1", "o3", "o4")

_QUALITY_BODY = '''{head} {src_name} → {tgt_name}.
<source {{not a field}}>
{source_text}
<reference>
{reference}
<candidate>
{prediction}
<score>:'''


def it_quality_prompt(row: dict, prediction: str) -> str:
    """The facts' fill (§1.2): names by `.get(code, code)`, the prediction as given."""
    head = Q_WEB if row.get("scenario") == "web_html" else Q_DEFAULT
    return _QUALITY_BODY.format(head=head, src_name=IT_LANGUAGE_NAMES.get(row["source_lang"], row["source_lang"]),
                                tgt_name=IT_LANGUAGE_NAMES.get(row["target_lang"], row["target_lang"]),
                                source_text=row["source_text"], reference=row["reference"],
                                prediction=prediction)


_SOFT_BODY = '''{head}
Source: {{source_text}}
Target: {{target_text}}
Check each:
{{constraint_list}}
Reply as {{{{"<id>": {{{{"score": S}}}}}}}}。'''


def it_soft_template() -> str:
    return _SOFT_BODY.format(head=SOFT)


def it_soft_prompt(row: dict, prediction: str) -> str | None:
    """The facts' soft fill (§1.2): soft ids in constraint_ids order, the first line holding a keyword."""
    descs: dict[str, str] = {}
    for cid in row["constraint_ids"]:
        if cid in IT_KEYWORDS and cid not in descs:
            descs[cid] = next((line for line in row["constraints"] if any(k in line for k in IT_KEYWORDS[cid])), cid)
    if not descs:
        return None
    listing = "\n".join(f"[{cid}] {desc}" for cid, desc in descs.items())
    return it_soft_template().format(source_text=row["source_text"], target_text=prediction, constraint_list=listing)


def it_body(model: str, prompt: str) -> tuple[str, bytes]:
    """(path, raw body) as the facts say the release's client sends it (§1.4)."""
    if model.startswith(RESPONSES_PREFIXES):
        path, body = "/v1/responses", {"input": prompt, "max_output_tokens": 4096, "model": model,
                                       "reasoning": {"effort": "none"}}
    else:
        path, body = "/v1/chat/completions", {"messages": [{"role": "user", "content": prompt}], "model": model,
                                              "max_tokens": 2048, "temperature": 0.0}
    return path, json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _fstring(head: str) -> str:
    """The quality template as the f-string the release returns (bare names only)."""
    text = _QUALITY_BODY.replace("{head}", head)  # its {{not a field}} stays a brace pair in the f-string
    return 'f"""' + text + '"""'


def it_prompts_py(soft_name: str = "SOFT_CONSTRAINT_JUDGE_TEMPLATE", soft_template: str | None = None) -> str:
    soft = it_soft_template() if soft_template is None else soft_template
    return f'''"""Synthetic release prompts (tests only)."""
from __future__ import annotations

from typing import Any

LANGUAGE_NAMES = {IT_LANGUAGE_NAMES!r}

QUALITY_JUDGE_PROMPT_VERSION = "synthetic-quality-v1"
SOFT_CONSTRAINT_JUDGE_PROMPT_VERSION = "synthetic-soft-v1"


def build_quality_prompt(row: dict[str, Any], prediction: str) -> str:
    src_name = LANGUAGE_NAMES.get(row["source_lang"], row["source_lang"])
    tgt_name = LANGUAGE_NAMES.get(row["target_lang"], row["target_lang"])
    source_text = row["source_text"]
    reference = row["reference"]
    if row.get("scenario") == "web_html":
        return {_fstring(Q_WEB)}
    return {_fstring(Q_DEFAULT)}


{soft_name} = """{soft}"""


def build_soft_constraint_prompt(row, prediction, soft_descs):
    lines = "\\n".join(f"[{{cid}}] {{desc}}" for cid, desc in soft_descs.items())
    return SOFT_CONSTRAINT_JUDGE_TEMPLATE.format(source_text=row["source_text"], target_text=prediction,
                                                 constraint_list=lines)
'''


# public-v1's content markers (its placeholder patterns as regex literals), so that the synthetic
# release is recognised as that version (SPEC §7c), whose reply reading these tests pin.
IT_V1_MARKERS = r'PLACEHOLDER_PATTERNS = [r"\{[a-zA-Z_][a-zA-Z0-9_]*\}", r"%[dsf]", r"\$\d+", r"\{\{[a-zA-Z_][a-zA-Z0-9_]*\}\}"]' + "\n"


def it_constraints_py() -> str:
    return f'''"""Synthetic release constraints (tests only)."""
from .syllable import cal_syllable_count

HARD_CONSTRAINT_IDS = frozenset({{"format_preserve", "layout_break", "term_compliance", "syllable_order",
                                 "social_preserve"}})
SOFT_CONSTRAINT_IDS = frozenset({set(IT_KEYWORDS)!r})


def collect_soft_constraint_descs(constraint_ids, constraint_lines):
    keyword_map = {IT_KEYWORDS!r}
    descs = {{}}
    for cid in constraint_ids:
        if cid in SOFT_CONSTRAINT_IDS and cid not in descs:
            descs[cid] = next((l for l in constraint_lines if any(k in l for k in keyword_map[cid])), cid)
    return descs
'''


IT_CLIENT_PY = '''"""Synthetic release Judge client (tests only)."""
JUDGE_TEMPERATURE = 0.0
JUDGE_MAX_TOKENS = 2048
JUDGE_MAX_OUTPUT_TOKENS = 4096
JUDGE_REASONING_EFFORT = "none"


def uses_responses_endpoint(model: str) -> bool:
    return model.startswith(("gpt-5", "gpt-6", "o1", "o3", "o4"))
'''

IT_SYLLABLE_PY = '''"""Synthetic release counter (tests only): characters, not syllables, so that it differs."""


def cal_syllable_count(text, lang="en"):
    text = text.strip()
    return len(text) if text else 0
'''


def it_release_count(text: str, lang: str) -> int:
    """What the synthetic release counter returns (the test side's copy)."""
    text = text.strip()
    return len(text) if text else 0


def make_insttrans_release(root: Path, **prompts) -> Path:
    (root / "eval").mkdir(parents=True, exist_ok=True)
    (root / "eval" / "prompts.py").write_text(it_prompts_py(**prompts), encoding="utf-8")
    (root / "eval" / "constraints.py").write_text(it_constraints_py() + IT_V1_MARKERS, encoding="utf-8")
    (root / "eval" / "judge_client.py").write_text(IT_CLIENT_PY, encoding="utf-8")
    (root / "eval" / "syllable.py").write_text(IT_SYLLABLE_PY, encoding="utf-8")
    (root / "eval" / "__init__.py").write_text("", encoding="utf-8")
    return root


# ---------------------------------------------------------------------------------------------
# Sandglass-Bench
# ---------------------------------------------------------------------------------------------

SG_LANG_NAMES = {"ja": "文-ja", "en": "文-en", "ar": "文-ar", "es": "文-es"}
SG_TEMPLATE = (SANDGLASS + " into {target_lang}, for {target_lang} viewers.\n"
               "Shown {duration:.1f} s; aim at {target_syllables} units of {target_lang}.{lang_notes}\n"
               "Summary: {summary}\n"
               "Context: {up_context} {origin_text} {down_context}\n"
               "Line: {origin_text}\n"
               "{target_lang} candidate: {translate_text}\n"
               "Bad {target_lang} cases:\n"
               "{bad_case}\n"
               "Answer in {target_lang} terms.\n"
               "<score>:")
SG_JA_NOTES = "\n- " + JA_NOTES
SG_JA_BAD = "- " + JA_BAD


def sg_prompt(row: dict, prediction: str) -> str:
    """The facts' fill (§2.2): one str.format with keywords, the ja pieces only for ja."""
    m = row["metadata"]
    ja = m["target_language"] == "ja"
    return SG_TEMPLATE.format(target_lang=SG_LANG_NAMES[m["target_language"]], duration=m["duration"],
                              target_syllables=m["target_syllables"], summary=m.get("summary", ""),
                              up_context=m.get("up_context", ""), down_context=m.get("down_context", ""),
                              origin_text=m["source"], translate_text=prediction,
                              lang_notes=SG_JA_NOTES if ja else "", bad_case=SG_JA_BAD if ja else "")


def sg_body(model: str, prompt: str) -> tuple[str, bytes]:
    """Always chat; messages, model, reasoning_effort (§2.4)."""
    body = {"messages": [{"role": "user", "content": prompt}], "model": model, "reasoning_effort": "low"}
    return "/v1/chat/completions", json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def sg_judge_prompt_py(template: str = SG_TEMPLATE) -> str:
    return f'LANG_CN = {SG_LANG_NAMES!r}\n\nJUDGE_PROMPT = """{template}"""\n'


def sg_evaluate_py(bad_case: str | None = None, extra_create: str = "") -> str:
    bad = (f"bad_case={SG_JA_BAD!r} if m['target_language'] == 'ja' else ''," if bad_case is None else bad_case)
    return f'''"""Synthetic release scorer (tests only)."""
import argparse
import os

from openai import OpenAI

import syllable_calculation as sc
from judge_prompt import JUDGE_PROMPT, LANG_CN


def judge(client, model, prompt):
    config = {{"model": model, "reasoning_effort": "low"}}
    response = client.chat.completions.create(model=model, messages=[{{"role": "user", "content": prompt}}],
                                              reasoning_effort="low"{extra_create})
    return response.choices[0].message.content


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge-model", default="gemini-2.5-flash")
    client = OpenAI(api_key=os.environ["JUDGE_API_KEY"], base_url="", timeout=120, max_retries=0)
    for m, hyp in []:
        prompt = JUDGE_PROMPT.format(
            target_lang=LANG_CN[m['target_language']], duration=m['duration'],
            target_syllables=m['target_syllables'], summary=m.get('summary', ''),
            up_context=m.get('up_context', ''), down_context=m.get('down_context', ''),
            origin_text=m['source'], translate_text=hyp,
            lang_notes={SG_JA_NOTES!r} if m['target_language'] == 'ja' else '',
            {bad}
        )
        judge(client, "m", prompt)
'''


SG_V2_PY = '''"""Synthetic v2 counter (tests only)."""
_FACTOR = 1


def cal_syllable_count(text, lang="en"):
    return len(text.split()) * _FACTOR
'''

SG_V3_PY = '''"""Synthetic v3 counter (tests only): imports v2 by its own name and patches it."""
try:
    from . import syllable_calculation_v2 as v2
except ImportError:
    import syllable_calculation_v2 as v2

v2._FACTOR = 3


def cal_syllable_count(text, lang="en"):
    return v2.cal_syllable_count(text, lang) + 1
'''


def sg_release_count(text: str, lang: str) -> int:
    return len(text.split()) * 3 + 1


def make_sandglass_release(root: Path, template: str = SG_TEMPLATE, **evaluate) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "judge_prompt.py").write_text(sg_judge_prompt_py(template), encoding="utf-8")
    (root / "evaluate.py").write_text(sg_evaluate_py(**evaluate), encoding="utf-8")
    (root / "syllable_calculation.py").write_text(SG_V3_PY, encoding="utf-8")
    (root / "syllable_calculation_v2.py").write_text(SG_V2_PY, encoding="utf-8")
    return root


# ---------------------------------------------------------------------------------------------
# IFMTBench
# ---------------------------------------------------------------------------------------------

# Both start with a newline; the glossary one ends with one, the rubric one with an escaped brace
# (a literal `}` once formatted) after two escaped pairs (RELEASE-FACTS §3.1).
IF_GLOSSARY_TEMPLATE = ("\n" + IF_GLOSSARY + " (0 or 1).\n<instruction>\n{user_instruction}\n</instruction>\n"
                        "<ground_truth>\n{ground_truth}\n</ground_truth>\n"
                        "<model_output>\n{target_translation}\n</model_output>\n")
IF_RUBRIC_TEMPLATE = ("\n" + IF_RUBRIC + "; see <instruction> below.\n<instruction>\n{user_instruction}\n"
                      "</instruction>\n<ground_truth>\n{ground_truth}\n</ground_truth>\n"
                      "<model_output>\n{target_translation}\n</model_output>\n"
                      'Reply {{"scores": {{"style": S, "background": S}}}}')


def if_prompt(template: str, row: dict, response: str) -> str:
    """The facts' fill (§3.2): instruction, reference, raw response; nothing stripped."""
    return template.format(user_instruction=row.get("input", ""), ground_truth=row.get("output", ""),
                           target_translation=response)


def if_body(model: str, prompt: str) -> tuple[str, bytes]:
    """Always chat; model, messages, temperature, max_tokens, top_p, stream; `requests`' json.dumps (§3.4)."""
    body = {"model": model, "messages": [{"role": "user", "content": prompt}], "temperature": 0.0,
            "max_tokens": 8192, "top_p": 0.6, "stream": False}
    return "/v1/chat/completions", json.dumps(body).encode("utf-8")


def if_llm_judge_py(glossary_name: str = "GLOSSARY_REWARD_PROMPT", glossary: str = IF_GLOSSARY_TEMPLATE,
                    rubric: str = IF_RUBRIC_TEMPLATE) -> str:
    return f'''"""Synthetic release Judge (tests only)."""
import requests

from config import LLM_CONFIG, MAX_RETRIES, REQUEST_TIMEOUT

{glossary_name} = {glossary!r}

STYLE_AND_BACKGROUND_REWARD_PROMPT = {rubric!r}


def call_llm(prompt):
    return requests.post(LLM_CONFIG["api_base"].rstrip("/") + "/chat/completions", json={{}}).json()
'''


def if_config_py(temperature: str = "0.0") -> str:
    return f'''"""Synthetic release config (tests only)."""
import os

LLM_CONFIG = {{
    "api_base": os.environ.get("LLM_API_BASE", ""),
    "api_key": os.environ.get("LLM_API_KEY", ""),
    "model": os.environ.get("LLM_MODEL_NAME", "gpt-4o"),
    "temperature": float(os.environ.get("LLM_TEMPERATURE", "{temperature}")),
    "max_tokens": int(os.environ.get("LLM_MAX_TOKENS", "8192")),
    "top_p": float(os.environ.get("LLM_TOP_P", "0.6")),
}}
MAX_WORKERS = int(os.environ.get("EVAL_MAX_WORKERS", "20"))
MAX_RETRIES = int(os.environ.get("EVAL_MAX_RETRIES", "5"))
REQUEST_TIMEOUT = int(os.environ.get("EVAL_REQUEST_TIMEOUT", "360"))
'''


def make_ifmtbench_release(root: Path, config: str | None = None, **judge) -> Path:
    (root / "eval").mkdir(parents=True, exist_ok=True)
    (root / "eval" / "llm_judge.py").write_text(if_llm_judge_py(**judge), encoding="utf-8")
    (root / "config.py").write_text(if_config_py() if config is None else config, encoding="utf-8")
    return root
