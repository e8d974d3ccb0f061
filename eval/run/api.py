"""The Python API: one run of evaluate.py from a notebook or a script, its results as objects.

    from eval.run.api import evaluate
    run = evaluate("data/example_predictions.jsonl", "outputs/example", skip_judge=True)
    run.formal, run.signature, run.metric("hard_pass_rate"), run.rows[0]["constraints"]

Keyword arguments are evaluate.py's flags with `_` for `-` (`judge_model="gpt-5.6-sol"`,
`rule_set="strict"`, `data="my.jsonl"`, `limit=20`; `True` for a switch such as `skip_judge`), so
the API and the command line cannot drift apart: `run_config` checks each value against its
flag's declaration (kind, choices), takes the flags' defaults for the rest, and builds the
RunConfig through the command line's own checks (eval/run/cli.py `run_config_from_args`); no argv is
made or parsed. A bad setting raises `eval.errors.HarnessError` (its message names the fix, the
same line the command prints) instead of exiting, before anything runs. `evaluate` returns the
pipeline's own `RunResult` (eval/config.py): nothing is read back from the files. It also runs
inside a running event loop (a notebook cell). Documented in docs/api.md.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import math
import os
from pathlib import Path

from eval import __version__
from eval.config import RunConfig, RunResult

__all__ = ["__version__", "evaluate", "load_run", "run_config"]


def load_run(output_dir: str | Path) -> RunResult:
    """A RunResult read from an output directory of an earlier evaluate.py run (it finished: exit 0)."""
    from eval.io.outputs import result_paths
    from eval.scoring.score_rows import row_from_dict

    output_dir = Path(output_dir)
    summary = json.loads((output_dir / "summary.json").read_text(encoding="utf-8"))
    with open(output_dir / "scores.jsonl", encoding="utf-8") as handle:  # typed as the run held them
        rows = [row_from_dict(json.loads(line)) for line in handle if line.strip()]
    return RunResult(0, output_dir, tuple(path for path in result_paths(output_dir) if path.is_file()), summary, rows)


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


def _value(action: argparse.Action, value: object) -> object:
    """A checked keyword's value as the command line would hold it after reading its flag."""
    if action.nargs == 0:
        return value
    if action.nargs == "?" and (value is None or value is False):
        return action.default
    if action.nargs == "?" and value is True:
        return action.const  # the bare flag (`dataset=True` is `--dataset`)
    if value is None:
        return action.default
    convert = action.type if callable(action.type) else (lambda item: item)
    if _kind_of(action) == "other":
        convert = (lambda item, to=action.type: to(str(item)))  # a converter of its own reads the flag's text
    elif action.type is float:
        convert = float
    if isinstance(action, argparse._AppendAction):
        return [convert(item) for item in (value if isinstance(value, (list, tuple)) else [value])]
    return convert(value)


def flag_values(parser: argparse.ArgumentParser, keywords: dict) -> argparse.Namespace:
    """The flags' values with `keywords` in place of their defaults, each checked first
    (`checked_options`), and the parser's exclusive groups kept (`data` and `dataset` together are
    refused as the command refuses `--data` with `--dataset`)."""
    from eval.errors import ConfigError

    checked_options(parser, keywords)
    actions = keyword_actions(parser)
    given = {actions[name].dest: name for name, value in keywords.items()
             if _value(actions[name], value) != actions[name].default}
    for group in parser._mutually_exclusive_groups:
        named = [given[action.dest] for action in group._group_actions if action.dest in given]
        if len(named) > 1:
            raise ConfigError(f"keyword {named[1]}: not allowed with keyword {named[0]}",
                              f"give one of {', '.join(named)}")
    values = {action.dest: action.default for action in parser._actions
              if not isinstance(action, (argparse._HelpAction, argparse._VersionAction))}
    values.update({actions[name].dest: _value(actions[name], value) for name, value in keywords.items()})
    return argparse.Namespace(**values)


def run_config(predictions: str | Path | None, output_dir: str | Path, **keywords) -> RunConfig:
    """The RunConfig of evaluate.py with these flags, built by keywords: every value checked
    against its flag, then the command line's own checks (one path for both, so a bad setting is
    the same one-line error either way). `predictions=None` goes with `oracle=True`."""
    from eval.run.cli import evaluate_parser, run_config_from_args
    from eval.errors import ConfigError

    for name, value in (("predictions", predictions), ("output_dir", output_dir)):
        if (value is not None or name == "output_dir") and (not isinstance(value, (str, os.PathLike))
                                                            or str(value) == ""):
            raise ConfigError(f"{name}={value!r} is not accepted: {name} takes a path (str or os.PathLike)",
                              "call evaluate(predictions, output_dir, **flags) (docs/api.md)")
    values = flag_values(evaluate_parser(), keywords)
    values.predictions = None if predictions is None else Path(predictions)
    values.output_dir = Path(output_dir)
    return run_config_from_args(values)


def _running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def evaluate(predictions: str | Path | None, output_dir: str | Path, **keywords) -> RunResult:
    """Score `predictions` into `output_dir` exactly as evaluate.py does, and return the results.

    Progress and the console table are off unless `quiet=False` is given. Inside a running event
    loop (a notebook cell) the run happens in a worker thread with its own loop, and this call
    waits for it: the Judge's requests need a loop of their own."""
    config = run_config(predictions, output_dir, **{"quiet": True, **keywords})
    if not _running_loop():
        return _run(config)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="insttrans-eval") as worker:
        return worker.submit(_run, config).result()


def _run(config: RunConfig) -> RunResult:
    from eval.run.cli import paused_collector
    from eval.run.pipeline import run_evaluation

    with paused_collector():
        return run_evaluation(config)
