"""InstTrans-Bench in manifest.json (SPEC §9): its bundled set's entry, computed from the file
itself, and the published release's facts, never copied from the release's files.

The entry is written by `python -m eval.manifest`; at run time eval/run/known_data.py reads it back
through the Benchmark record (`manifest_section`, `official_release`, `data_statistics`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from eval import __version__
from eval.io.data import file_sha256, load_rows_from_file
from eval.insttrans.rows import DEFAULT_DATA, ROOT, validate_rows

REDACTION_MASKS = ("PHONE_REDACTED", "EMAIL_REDACTED", "QQ_GROUP_REDACTED", "WECHAT_ID_REDACTED")
PROVENANCE = (
    "Written for this repository by the harness team in the release schema; it is NOT the official "
    "InstTrans-Bench release (3,000 instances on the dataset hub) and its scores are not comparable "
    "with published ones. It exists so that the harness runs and is tested out of the box."
)

# The published release manifest's facts (SPEC §3, §9). Counts the publication gives only roughly
# ("19 other source languages about 14 each", "every other target about 130") are not recorded.
OFFICIAL_RELEASE: dict = {
    "name": "InstTrans-Bench (official release)",
    "hub_id": "IndexTeam/InstTrans-Bench",
    "file": "data/test.jsonl",
    "sha256": "fa47b65120a3c00e8c7e66bfdfe0dd75274de8d100dbd1ce0540d754bd5a4b63",
    "n_instances": 3000,
    "statistics": {
        "constraint_annotations": 5402,
        "by_constraint": {
            "format_preserve": 2098, "style_consistency": 633, "syllable_order": 601,
            "term_cross_sentence": 508, "term_compliance": 502, "academic_format_preserve": 412,
            "social_preserve": 316, "layout_break": 266, "context_disambiguate": 42, "coref_resolution": 24,
        },
        "constraints_per_instance": {"1": 1307, "2": 1138, "3": 426, "4": 104, "5": 25},
        "by_domain": {
            "B站动态": 320, "小说": 303, "ogv字幕": 302, "弹幕": 302, "评论": 300, "专栏文章": 300,
            "学术论文": 299, "UGC字幕": 299, "书籍": 293, "网页文本": 282,
        },
        "by_source_lang": {"zh": 2419, "en": 313},
        "by_target_lang": {"zh": 296},
        "language_pairs": 61,
        "target_languages": 22,
    },
}


def _counts(values) -> dict[str, int]:
    return {str(key): count for key, count in Counter(values).items()}


def data_statistics(rows: list[dict]) -> dict:
    """The counts the release publishes, computed from `rows` (same keys as its statistics)."""
    return {"constraint_annotations": sum(len(row["constraint_ids"]) for row in rows),
            "by_constraint": _counts(cid for row in rows for cid in row["constraint_ids"]),
            "constraints_per_instance": _counts(len(row["constraint_ids"]) for row in rows),
            "by_domain": _counts(row["domain"] for row in rows),
            "by_source_lang": _counts(row["source_lang"] for row in rows),
            "by_target_lang": _counts(row["target_lang"] for row in rows),
            "language_pairs": len({(row["source_lang"], row["target_lang"]) for row in rows}),
            "target_languages": len({row["target_lang"] for row in rows})}


def _sorted_counts(counter: Counter) -> dict:
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def manifest_entry(prompt_versions: dict[str, str], data_path: Path = DEFAULT_DATA) -> dict:
    """The top-level manifest.json keys of the bundled set (its identity under "data", statistics,
    prompt versions, redaction policy), as the first benchmark has always written them."""
    rows = load_rows_from_file(data_path, validate_rows)
    masks = {mask: sum(any(mask in row[field] for field in ("prompt", "reference", "source_text")) for row in rows)
             for mask in REDACTION_MASKS}
    rows_masked = sum(any(mask in row["prompt"] or mask in row["reference"] for mask in REDACTION_MASKS) for row in rows)
    return {
        "name": "InstTrans-Bench (bundled set)",
        "provenance": PROVENANCE,
        "harness_version": __version__,
        "data": {
            "path": str(Path(data_path).resolve().relative_to(ROOT)) if Path(data_path).resolve().is_relative_to(ROOT) else str(data_path),
            "sha256": file_sha256(data_path),
            "n_instances": len(rows),
        },
        "statistics": {
            "constraint_annotations": sum(len(row["constraint_ids"]) for row in rows),
            "by_constraint": _sorted_counts(Counter(cid for row in rows for cid in row["constraint_ids"])),
            "by_scenario": _sorted_counts(Counter(row["scenario"] for row in rows)),
            "by_domain": _sorted_counts(Counter(row["domain"] for row in rows)),
            "by_language_pair": _sorted_counts(Counter(f"{row['source_lang']}-{row['target_lang']}" for row in rows)),
            "by_source_lang": _sorted_counts(Counter(row["source_lang"] for row in rows)),
            "by_target_lang": _sorted_counts(Counter(row["target_lang"] for row in rows)),
            "constraints_per_instance": {str(k): v for k, v in sorted(Counter(len(row["constraint_ids"]) for row in rows).items())},
            "language_pairs": len({(row["source_lang"], row["target_lang"]) for row in rows}),
            "target_languages": len({row["target_lang"] for row in rows}),
        },
        "prompt_versions": dict(prompt_versions),
        "redaction": {
            "policy": ("Contact details that reach a person or a group chat (phone numbers, e-mail addresses, QQ "
                       "group numbers, WeChat IDs) are replaced by bare uppercase masks in prompt, reference and "
                       "source_text. URLs, @mentions, hashtags and emote codes are kept: rules score them."),
            "masks": masks,
            "instances_touched": rows_masked,
        },
        "license": "CC BY-NC 4.0 (data); see LICENSE",
    }
