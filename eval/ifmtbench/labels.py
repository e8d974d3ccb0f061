"""IFMTBench's seven class labels, their English ids and kinds (SPEC §14).

The release labels rows in Chinese; scores, the summary and the reports use the English ids.
A hard id is a gate (1/0); a soft id is a Judge score 0–5 read as value / 5.
"""

from __future__ import annotations

HARD, SOFT = "hard", "soft"

# label -> (id, kind), in the order the reports list the ids
LABELS: dict[str, tuple[str, str]] = {
    "机器翻译-术语表约束翻译": ("glossary", HARD),
    "机器翻译-布局保留翻译": ("layout", HARD),
    "机器翻译-结构化数据翻译": ("structured", HARD),
    "机器翻译-内联代码保留翻译": ("inline_code", HARD),
    "机器翻译-代码标签保留翻译": ("code_tag", HARD),
    "机器翻译-风格指令遵循": ("style", SOFT),
    "机器翻译-带上下文背景翻译": ("background", SOFT),
}
ID_KINDS: dict[str, str] = {cid: kind for cid, kind in LABELS.values()}
LABEL_OF: dict[str, str] = {cid: label for label, (cid, _) in LABELS.items()}
SOFT_IDS = tuple(cid for cid, kind in ID_KINDS.items() if kind == SOFT)

# SPEC §14: the structured rule's data_format dispatch, exact and case-sensitive
DATA_FORMATS: dict[str, str] = {
    "JSON": "json", "json": "json",
    "HTML片段": "html", "HTML": "html", "html": "html",
    "CSV": "csv", "csv": "csv",
    "Markdown表格": "markdown", "Markdown": "markdown", "markdown": "markdown",
}
