"""predict.py and `insttrans-predict`: ask an OpenAI-compatible server for the predictions
(docs/predict.md): resumable, with provenance.

    MODEL_API_BASE=http://127.0.0.1:8000/v1 MODEL_API_KEY=... \\
    python predict.py --inputs outputs/model_inputs.jsonl --output outputs/predictions.jsonl --model NAME

Writes the predictions and `<output stem>.meta.json` beside them; a rerun on the same output asks
only for what is missing. Exits 2 on a bad input or setting, 3 when the server fails or is down,
130 / 143 / 129 after Ctrl-C / SIGTERM / SIGHUP (the answers received so far stay).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from eval.exits import run_cli, stopped_by
from eval.flags import HarnessParser
from eval.providers.openai_api import REASONING_EFFORTS
from eval.prediction.runner import (DEFAULT_CONCURRENCY, DEFAULT_DEADLINE_S, DEFAULT_TIMEOUT_S, ENDPOINT_CHOICES,
                          Interrupted, build_settings, run_predict, summary_line)


def add_model_arguments(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    """The model and its decoding parameters: shared with `prepare_inputs.py --format openai-batch`, so
    that a Batch request line carries the very body predict.py would send online (SPEC §18)."""
    model = parser.add_argument_group(
        "Model", "Only the parameters given here are sent; anything else is the server's default.")
    model.add_argument("--model", required=required, default=None, help="model name as the server knows it")
    model.add_argument("--endpoint", choices=ENDPOINT_CHOICES, default="auto",
                       help="auto: gpt-5*, gpt-6*, o1*, o3*, o4* (last '/' segment) use /responses, "
                            "others /chat/completions (default: %(default)s)")
    model.add_argument("--temperature", type=float, default=None)
    model.add_argument("--top-p", type=float, default=None)
    model.add_argument("--max-tokens", type=int, default=None,
                       help="sent as max_tokens (chat) or max_output_tokens (responses)")
    model.add_argument("--seed", type=int, default=None)
    model.add_argument("--reasoning-effort", choices=REASONING_EFFORTS, default=None,
                       help="sent as reasoning_effort (chat) or reasoning.effort (responses)")
    model.add_argument("--extra-body", default=None, metavar="JSON",
                       help="a JSON object merged into every request, e.g. "
                            """'{"chat_template_kwargs": {"enable_thinking": false}}'""")


def description() -> str:
    """The help text's first lines, naming the registry's benchmarks (built only for --help)."""
    from eval.benchmarks import titles_listed

    return ("Ask an OpenAI-compatible server (MODEL_API_BASE, MODEL_API_KEY) for the predictions of "
            f"{titles_listed()} model inputs (from prepare_inputs.py).")


def build_parser() -> argparse.ArgumentParser:
    parser = HarnessParser(description=description)
    io = parser.add_argument_group("Inputs and output")
    io.add_argument("--inputs", type=Path, required=True, help="model inputs written by prepare_inputs.py")
    io.add_argument("--output", type=Path, required=True,
                    help="predictions JSONL; its provenance goes to <stem>.meta.json beside it; "
                         "an existing output is resumed")
    io.add_argument("--quiet", action="store_true", help="no progress bar")
    io.add_argument("--from-batch-output", type=Path, action="append", default=None, metavar="FILE",
                    help="read the answers from an OpenAI Batch or vLLM run_batch output file (repeatable: "
                         "the output and the error file) instead of asking a server; give the --model and "
                         "parameters given to prepare_inputs.py --format openai-batch")
    add_model_arguments(parser)
    transport = parser.add_argument_group("Transport")
    transport.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, metavar="N",
                           help="requests in flight at once (default: %(default)s)")
    transport.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                           help="timeout of one HTTP request (default: %(default)s)")
    transport.add_argument("--deadline", type=float, default=DEFAULT_DEADLINE_S, metavar="SECONDS",
                           help="how long the server may stay down before the run stops (default: %(default)s)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.from_batch_output:  # answers already produced offline: nothing is sent (SPEC §18)
        from eval.prediction.batch import batch_summary, from_batch_output, model_settings

        result = from_batch_output(model_settings(vars(args)), args.inputs, args.from_batch_output, args.output)
        print(batch_summary(result))
        return 0
    settings = build_settings(
        model=args.model, api_base=os.environ.get("MODEL_API_BASE", "").strip(),
        api_key=os.environ.get("MODEL_API_KEY", "").strip(), endpoint=args.endpoint,
        temperature=args.temperature, top_p=args.top_p, max_tokens=args.max_tokens, seed=args.seed,
        reasoning_effort=args.reasoning_effort, extra_body=args.extra_body, concurrency=args.concurrency,
        timeout=args.timeout, deadline_s=args.deadline)
    try:
        result = run_predict(settings, args.inputs, args.output, progress=not args.quiet)
    except (Interrupted, KeyboardInterrupt) as stop:
        if isinstance(stop, Interrupted):
            print(f"{stop}: {stop.written} of {stop.total} answers are saved in {args.output}; "
                  "rerun the same command to ask for the rest", file=sys.stderr)
            return 128 + stop.signum
        words, status = stopped_by(stop)
        print(f"{words} before any request: nothing was changed", file=sys.stderr)
        return status
    print(summary_line(result))
    return 0


def console_main() -> None:
    sys.exit(run_cli(main))
