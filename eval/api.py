"""The Python API: one run of evaluate.py from a notebook or a script, its results as objects.

    from eval.api import evaluate
    run = evaluate("data/example_predictions.jsonl", "outputs/example", skip_judge=True)
    run.formal, run.signature, run.metric("hard_pass_rate"), run.rows[0]["constraints"]

Keyword arguments are evaluate.py's flags with `_` for `-` (`judge_model="gpt-5.6-sol"`,
`rule_set="strict"`, `data="my.jsonl"`, `limit=20`; `True` for a switch such as `skip_judge`), so
the API and the command line cannot drift apart. The run is the command's run: the same checks,
the same files in `output_dir`; a bad setting raises `eval.errors.HarnessError` (its message
names the fix) instead of exiting. Documented in docs/api.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from eval import __version__

__all__ = ["RunResult", "__version__", "evaluate", "load_run"]


@dataclass(frozen=True)
class RunResult:
    """A finished run: `summary` is summary.json, `rows` are scores.jsonl's rows in data order."""

    output_dir: Path
    summary: dict
    rows: list[dict]

    @property
    def formal(self) -> bool:
        return bool(self.summary.get("formal"))

    @property
    def signature(self) -> str:
        return self.summary["signature"]

    @property
    def non_formal_reasons(self) -> list[str]:
        return list(self.summary.get("non_formal_reasons") or [])

    def metric(self, name: str) -> float | None:
        """A headline metric's value (`if_score`, `quality`, `hard_pass_rate`; Sandglass: `score`, ...)."""
        entry = self.summary.get(name)
        return entry.get("value") if isinstance(entry, dict) else entry

    def interval(self, name: str) -> tuple[float, float] | None:
        """A headline metric's 95% bootstrap interval, or None when it was not scored."""
        entry = self.summary.get(name)
        ci = entry.get("ci95") if isinstance(entry, dict) else None
        return tuple(ci) if ci else None

    def failed(self, constraint_id: str) -> list[dict]:
        """The rows where a hard constraint failed (each row's `constraints` entry says why)."""
        return [row for row in self.rows
                if any(entry.get("id") == constraint_id and entry.get("passed") is False
                       for entry in row.get("constraints") or [])]


def load_run(output_dir: str | Path) -> RunResult:
    """A RunResult read from an output directory of evaluate.py."""
    output_dir = Path(output_dir)
    summary = json.loads((output_dir / "summary.json").read_text(encoding="utf-8"))
    with open(output_dir / "scores.jsonl", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return RunResult(output_dir, summary, rows)


def flags_of(options: dict) -> list[str]:
    """`{"judge_model": "m", "skip_judge": True, "limit": 5}` → `--judge-model m --skip-judge --limit 5`."""
    argv = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is not None and value is not False:
            argv += [flag, str(value)]
    return argv


def evaluate(predictions: str | Path, output_dir: str | Path, **options) -> RunResult:
    """Score `predictions` into `output_dir` exactly as evaluate.py does, and return the results.

    Progress and the console table are off unless `quiet=False` is given."""
    from eval.cli import evaluate_parser, paused_collector, run_config_from_args
    from eval.errors import ConfigError
    from eval.pipeline import run_evaluation

    options = {"quiet": True, **options}
    argv = ["--predictions", str(predictions), "--output-dir", str(output_dir), *flags_of(options)]
    parser = evaluate_parser()
    known = sorted(flag[2:].replace("-", "_") for flag in parser.long_flags())
    for name in options:
        if name not in known:
            from eval.flags import unknown_flag_message

            raise ConfigError(unknown_flag_message(name, known).replace("unknown flag", "unknown keyword"),
                              "the keywords are evaluate.py's flags with _ for - (docs/api.md)")
    config = run_config_from_args(parser.parse_args(argv))
    with paused_collector():
        run_evaluation(config)
    return load_run(output_dir)
