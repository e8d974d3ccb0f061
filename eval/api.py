"""The Python API: one run of evaluate.py from a notebook or a script, its results as objects.

    from eval.api import evaluate
    run = evaluate("data/example_predictions.jsonl", "outputs/example", skip_judge=True)
    run.formal, run.signature, run.metric("hard_pass_rate"), run.rows[0]["constraints"]

Keyword arguments are evaluate.py's flags with `_` for `-` (`judge_model="gpt-5.6-sol"`,
`rule_set="strict"`, `data="my.jsonl"`, `limit=20`; `True` for a switch such as `skip_judge`), so
the API and the command line cannot drift apart. The run is the command's run: the same checks,
the same files in `output_dir`; a bad setting raises `eval.errors.HarnessError` (its message
names the fix) instead of exiting, and so does a keyword of the wrong type (`limit="many"`,
`skip_judge="yes"`), before anything runs. It also runs inside a running event loop (a notebook
cell). Documented in docs/api.md.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import math
import os
import re
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
    """`{"judge_model": "m", "skip_judge": True, "limit": 5}` → `--judge-model=m --skip-judge --limit=5`.

    Values are not checked here (`checked_options` does that against a parser)."""
    argv = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            argv += [f"{flag}={item}" for item in value]
        elif value is not None and value is not False:
            argv.append(f"{flag}={value}")  # one word: a value that starts with `-` stays a value
    return argv


def _kind_of(action: argparse.Action) -> str:
    """What a flag's value must be in Python: "switch", "int", "float", "path", "text", or "other"
    (a flag with a converter of its own: a str or a number, which argparse then converts)."""
    if action.nargs == 0:
        return "switch"
    return {int: "int", float: "float", Path: "path", None: "text", str: "text"}.get(action.type, "other")


_KIND_WORDS = {"switch": "True or False", "int": "an int", "float": "a number (int or float)",
               "path": "a path (str or os.PathLike)", "text": "a str", "other": "a str or a number"}


def _value_error(name: str, value: object, accepted: str) -> "ConfigError":
    from eval.errors import ConfigError

    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return ConfigError(f"keyword {name}={shown} is not accepted: {name} takes {accepted}",
                       "the keywords are evaluate.py's flags with _ for - (docs/api.md)")


def _check_one(name: str, action: argparse.Action, value: object) -> None:
    kind = _kind_of(action)
    accepted = _KIND_WORDS[kind]
    if action.choices is not None:
        accepted = "one of " + ", ".join(repr(choice) for choice in action.choices)
    if kind == "int":
        good = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "float":
        good = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    elif kind == "path":
        good = isinstance(value, (str, os.PathLike)) and str(value) != ""
    elif kind == "text":
        good = isinstance(value, str)
    else:
        good = isinstance(value, (str, int, float)) and not isinstance(value, bool)
    if not good or (action.choices is not None and value not in action.choices):
        raise _value_error(name, value, accepted)


def keyword_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The keywords `evaluate` takes: every long flag with `_` for `-`, but those that print and
    exit (--help, --version) and the two positional arguments."""
    return {flag[2:].replace("-", "_"): action for flag, action in parser._option_string_actions.items()
            if flag.startswith("--") and flag not in ("--predictions", "--output-dir")
            and not isinstance(action, (argparse._HelpAction, argparse._VersionAction))}


def checked_options(parser: argparse.ArgumentParser, options: dict) -> dict:
    """`options` with every value checked against its flag's kind and choices, before anything
    runs: a switch takes a bool, an int flag an int (not a bool), a choice one of its choices.
    Raises ConfigError naming the keyword and what it accepts (argparse would exit the interpreter)."""
    from eval.errors import ConfigError
    from eval.flags import unknown_flag_message

    actions = keyword_actions(parser)
    for name, value in options.items():
        action = actions.get(name)
        if action is None:
            raise ConfigError(unknown_flag_message(name, sorted(actions)).replace("unknown flag", "unknown keyword"),
                              "the keywords are evaluate.py's flags with _ for - (docs/api.md)")
        if _kind_of(action) == "switch":
            if not isinstance(value, bool):
                raise _value_error(name, value, "True or False")
        elif value is None or (value is False and action.nargs == "?"):
            continue  # the flag's default
        elif value is True and action.nargs == "?":
            continue  # the bare flag (`dataset=True` is `--dataset`)
        elif isinstance(action, argparse._AppendAction) and isinstance(value, (list, tuple)):
            for item in value:
                _check_one(name, action, item)
        else:
            _check_one(name, action, value)
    return options


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """argparse's verdict as a ConfigError (its `error` exits the interpreter)."""
    from eval.errors import ConfigError

    def refuse(message: str):
        message = re.sub(r"argument --([\w-]+)(?:/--[\w-]+)*",
                         lambda match: "keyword " + match.group(1).replace("-", "_"), message)
        raise ConfigError(message.splitlines()[0] if message else "bad keyword",
                          "the keywords are evaluate.py's flags with _ for - (docs/api.md)")

    parser.error = refuse  # type: ignore[method-assign]
    return parser.parse_args(argv)


def _running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def evaluate(predictions: str | Path, output_dir: str | Path, **options) -> RunResult:
    """Score `predictions` into `output_dir` exactly as evaluate.py does, and return the results.

    Progress and the console table are off unless `quiet=False` is given. Inside a running event
    loop (a notebook cell) the run happens in a worker thread with its own loop, and this call
    waits for it: the Judge's requests need a loop of their own."""
    from eval.cli import evaluate_parser, run_config_from_args
    from eval.errors import ConfigError

    for name, value in (("predictions", predictions), ("output_dir", output_dir)):
        if not isinstance(value, (str, os.PathLike)) or str(value) == "":
            raise ConfigError(f"{name}={value!r} is not accepted: {name} takes a path (str or os.PathLike)",
                              "call evaluate(predictions, output_dir, **flags) (docs/api.md)")
    parser = evaluate_parser()
    options = checked_options(parser, {"quiet": True, **options})
    argv = [f"--predictions={predictions}", f"--output-dir={output_dir}", *flags_of(options)]
    config = run_config_from_args(_parse(parser, argv))
    if not _running_loop():
        return _run(config, output_dir)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="insttrans-eval") as worker:
        return worker.submit(_run, config, output_dir).result()


def _run(config, output_dir: str | Path) -> RunResult:
    from eval.cli import paused_collector
    from eval.pipeline import run_evaluation

    with paused_collector():
        run_evaluation(config)
    return load_run(output_dir)
