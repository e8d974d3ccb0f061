"""IFMTBench test helpers: rows in the release schema, and a stand-in Judge handler for the two
IFMTBench prompt kinds (verdicts chosen by markers in the response: `[style=3]`,
`[background=null]`, `[glossary=0]`)."""

from __future__ import annotations

import json
import re

from tests.judge_server import Recorded, Reply, text_reply

LABEL = {
    "glossary": "机器翻译-术语表约束翻译",
    "layout": "机器翻译-布局保留翻译",
    "structured": "机器翻译-结构化数据翻译",
    "inline_code": "机器翻译-内联代码保留翻译",
    "code_tag": "机器翻译-代码标签保留翻译",
    "style": "机器翻译-风格指令遵循",
    "background": "机器翻译-带上下文背景翻译",
}


def ifmt_row(md5: str = "m1", ids=("layout",), **fields) -> dict:
    """A valid row in the release schema; the reference passes its own hard rules."""
    row = {
        "md5": md5,
        "class": [LABEL[cid] for cid in ids],
        "input": f"Translate into English, keeping the layout.\n\n第一行\n第二行 ({md5})",
        "output": "First line\nSecond line",
        "origin_text": "第一行\n第二行",
        "meta_data": {"data_format": "JSON", "primary_delimiter": "\n", "source_chunks": ["第一行", "第二行"],
                      "extracted_assets": []},
        "term_dict": {},
        "origin_language": "zh",
        "target_language": "en",
        "instruction_lang": "en",
        "selected_style": "",
        "generated_background": "",
    }
    row.update(fields)
    return row


def response_of(prompt: str) -> str:
    match = re.search(r"<<<RESPONSE (\w+)>>>\n(.*)\n<<<END RESPONSE \1>>>", prompt, re.S)
    return match.group(2) if match else ""


def _marker(text: str, name: str, default):
    match = re.search(rf"\[{name}=(null|\d)\]", text)
    if not match:
        return default
    return None if match.group(1) == "null" else int(match.group(1))


def ifmt_verdict(prompt: str) -> str:
    response = response_of(prompt)
    if '{"glossary": G}' in prompt:
        return json.dumps({"glossary": _marker(response, "glossary", 1)})
    return json.dumps({"scores": {"style": _marker(response, "style", 5),
                                  "background": _marker(response, "background", 5)}})


def ifmt_handler(request: Recorded) -> Reply:
    """Valid IFMTBench verdicts, chosen by the response's markers (5, 5 and 1 without them)."""
    return text_reply(request.path, ifmt_verdict(request.prompt), model=str(request.body.get("model", "")),
                      prompt=request.prompt)
