"""manifest.json: what the bundled data is, computed from the file itself.

    python -m eval.manifest            # rewrite manifest.json from data/test.jsonl
    python -m eval.manifest --check    # exit 1 when manifest.json is stale

Statistics are counted from the data file, never copied from the official release.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from eval import __version__
from eval.data import DEFAULT_DATA, file_sha256, load_rows_from_file

ROOT = Path(__file__).resolve().parent.parent
MANIFEST_PATH = ROOT / "manifest.json"
REDACTION_MASKS = ("PHONE_REDACTED", "EMAIL_REDACTED", "QQ_GROUP_REDACTED", "WECHAT_ID_REDACTED")
PROVENANCE = (
    "Written for this repository by the harness team in the release schema; it is NOT the official "
    "InstTrans-Bench release (3,000 instances on the dataset hub) and its scores are not comparable "
    "with published ones. It exists so that the harness runs and is tested out of the box."
)


def _sorted_counts(counter: Counter) -> dict:
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def build_manifest(data_path: Path = DEFAULT_DATA) -> dict:
    """The manifest of a data file: identity, statistics, prompt versions, redaction policy."""
    rows = load_rows_from_file(data_path)
    try:
        from eval.prompts import PROMPT_VERSIONS
    except ImportError:  # the Judge prompts are not written yet
        PROMPT_VERSIONS = {}
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
        "prompt_versions": dict(PROMPT_VERSIONS),
        "redaction": {
            "policy": ("Contact details that reach a person or a group chat (phone numbers, e-mail addresses, QQ "
                       "group numbers, WeChat IDs) are replaced by bare uppercase masks in prompt, reference and "
                       "source_text. URLs, @mentions, hashtags and emote codes are kept: rules score them."),
            "masks": masks,
            "instances_touched": rows_masked,
        },
        "license": "CC BY-NC 4.0 (data); see LICENSE",
    }


def manifest_text(manifest: dict) -> str:
    return json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate or check manifest.json from the data file.")
    parser.add_argument("--check", action="store_true", help="exit 1 when manifest.json is stale")
    args = parser.parse_args(argv)
    text = manifest_text(build_manifest())
    if args.check:
        current = MANIFEST_PATH.read_text(encoding="utf-8") if MANIFEST_PATH.exists() else ""
        if current != text:
            print("manifest.json is stale: run `python -m eval.manifest`", file=sys.stderr)
            return 1
        print("manifest.json is up to date")
        return 0
    MANIFEST_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {MANIFEST_PATH.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
