"""Score a predictions file: hard rules, the LLM Judge, IF_Score and quality (SPEC §6–§11).

    python evaluate.py --predictions P --output-dir O [--skip-judge] [--limit N] [--data FILE | --dataset [NAME]]

Writes O/scores.jsonl, O/summary.json and O/report.md (and the Judge cache); exits 2 on bad
input, 3 when the Judge aborts, and leaves no summary behind on any failure.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eval import __version__
from eval.cli import add_data_arguments, run_cli, start_run
from eval.constraints import DEFAULT_RULE_SET, RULE_SETS, SOFT_IDS, constraint_line_for
from eval.metrics import breakdowns, headline
from eval.manifest import recorded_sha256
from eval.predictions import is_missing, predictions_block
from eval.report import console_table, make_signature, non_formal_reasons, report_markdown, write_results
from eval.sandglass import add_benchmark_argument, evaluate_sandglass, resolve_benchmark
from eval.scoring import score_instance
from eval.system_meta import system_summary
from eval.types import JudgeItem
from prepare_inputs import model_input

MANIFEST_PATH = Path(__file__).resolve().parent / "manifest.json"


def build_parser() -> argparse.ArgumentParser:
    from eval import judge_client

    parser = argparse.ArgumentParser(description="Evaluate InstTrans-Bench predictions.")
    io = parser.add_argument_group("Predictions and outputs")
    io.add_argument("--predictions", type=Path, required=True, help="JSONL of {case_id, prediction}")
    io.add_argument("--output-dir", type=Path, required=True, help="where scores, summary, report and cache go")
    io.add_argument("--quiet", action="store_true", help="no progress bar and no table at the end")
    add_data_arguments(parser)
    rules = parser.add_argument_group("Rules")
    rules.add_argument("--rule-set", choices=sorted(RULE_SETS), default=DEFAULT_RULE_SET,
                       help="hard-rule semantics (default: the original scorer's)")
    parser.add_argument("--skip-judge", action="store_true",
                        help="hard rules only: offline and reproducible, never formal")
    judge_client.add_judge_arguments(parser)
    add_benchmark_argument(parser)
    return parser


def judge_items(rows: list[dict], predictions: dict) -> list[JudgeItem]:
    """One Judge item per instance with a non-missing prediction (SPEC §9: no call otherwise)."""
    items = []
    for row in rows:
        prediction = predictions.get(row["case_id"])
        if is_missing(prediction):
            continue
        soft = tuple((cid, constraint_line_for(row, cid)) for cid in row["constraint_ids"] if cid in SOFT_IDS)
        items.append(JudgeItem(row["case_id"], row["source_lang"], row["target_lang"], row["source_text"],
                               row["reference"], prediction, soft))
    return items


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if resolve_benchmark(args) == "sandglass":  # everything Sandglass lives in eval/sandglass.py
        return evaluate_sandglass(args, MANIFEST_PATH)
    run = start_run(args)
    data, rows, predictions, prediction_lines = run.data, run.rows, run.predictions, run.prediction_lines

    judge_results, judge_block = {}, None
    if run.judge_settings is not None:
        from eval import judge_client

        judge_results, judge_block = judge_client.judge_instances(
            judge_items(rows, predictions), run.judge_settings, run.cache_path, progress=not args.quiet)

    scores = [score_instance(row, predictions.get(row["case_id"]), judge_results.get(row["case_id"]), args.rule_set)
              for row in rows]
    summary = build_summary(args, data, rows, predictions, prediction_lines, scores, judge_block)
    write_results(args.output_dir, scores, summary, report_markdown(summary),
                  None if args.quiet else console_table(summary))
    return 0


def build_summary(args, data, rows, predictions, prediction_lines, scores, judge_block) -> dict:
    """summary.json (SPEC §11)."""
    expected = recorded_sha256("data", MANIFEST_PATH)
    reasons = non_formal_reasons(args, len(rows), len(data.rows), data.sha256, expected,
                                 unscored="soft constraints and quality were", manifest_entry="data checksum")
    if args.rule_set != DEFAULT_RULE_SET:
        reasons.append(f"--rule-set {args.rule_set}: not the protocol's hard rules")
    system, system_warnings, system_part = system_summary(args.predictions, rows, model_input)
    summary = {
        "harness_version": __version__,
        "formal": not reasons,
        "non_formal_reasons": reasons,
        "data": {"source": data.source, "sha256": data.sha256, "manifest_match": expected == data.sha256,
                 "n_instances": len(rows)},
        "predictions": predictions_block(
            args.predictions, prediction_lines, sum(score["status"] == "missing" for score in scores),
            [(predictions.get(row["case_id"]), row["source_text"]) for row in rows]),
        "rule_set": args.rule_set,
        "judge": judge_block,
        "system": system,
        "system_warnings": system_warnings,
        "signature": make_signature(data.sha256, len(rows), judge_block,
                                    settings=(f"rules:{args.rule_set}", *system_part)),
        "if_score": headline(scores, "if_score", known=not args.skip_judge),
        "quality": headline(scores, "quality", known=not args.skip_judge),
        "hard_pass_rate": headline(scores, "hard_pass"),
    }
    summary.update(breakdowns(scores, judged=not args.skip_judge))
    return summary


if __name__ == "__main__":
    sys.exit(run_cli(main))
