"""The installed console commands (pyproject.toml): `insttrans-eval` and `insttrans-prepare` run
exactly what evaluate.py and prepare_inputs.py run; `insttrans-predict`, `insttrans-compare` and
`insttrans-leaderboard` point at eval/prediction/command.py, eval/compare.py and eval/leaderboard.py.

evaluate.py and prepare_inputs.py keep their own three-line `main` rather than importing these, so
that a checkout's scripts stay one floor above the pipeline (tests/test_architecture.py).
"""

from __future__ import annotations

import sys

from eval.run.cli import benchmark_and_source, evaluate_parser, paused_collector, prepare_parser, run_config_from_args
from eval.exits import run_cli
from eval.run.pipeline import export_model_inputs, run_evaluation
from eval.prediction.batch import prepare_settings


def evaluate_main(argv: list[str] | None = None) -> int:
    config = run_config_from_args(evaluate_parser().parse_args(argv))
    with paused_collector():
        return run_evaluation(config, settle=argv is None).exit_status  # None: the script's own process


def prepare_main(argv: list[str] | None = None) -> int:
    args = prepare_parser().parse_args(argv)
    benchmark, source = benchmark_and_source(args)
    return export_model_inputs(benchmark, source, args.limit, args.output,
                               prepare_settings(args.format, vars(args)))


def evaluate_command() -> None:
    sys.exit(run_cli(evaluate_main))


def prepare_command() -> None:
    sys.exit(run_cli(prepare_main))
