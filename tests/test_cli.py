"""The command-line edge (eval/run/cli.py): Judge flags and settings, checked before any work."""

from __future__ import annotations

import argparse

import pytest

from eval.run.cli import add_judge_arguments, judge_settings_from_args
from eval.errors import ConfigError


def settings_from_args(args: argparse.Namespace):
    return judge_settings_from_args(args, default_model="gpt-5.6-sol")


# --- command line ------------------------------------------------------------------------------

def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_judge_arguments(parser)
    return parser.parse_args(argv)


def test_concurrency_alias_and_defaults():
    args = parse(["--concurrency", "7"])
    assert (args.judge_concurrency, args.judge_model, args.judge_reasoning_effort, args.judge_cache) == (7, None, "none", None)


@pytest.mark.parametrize("env, missing", [
    ({"JUDGE_API_KEY": "k"}, "JUDGE_API_BASE"),
    ({"JUDGE_API_BASE": "https://h/v1"}, "JUDGE_API_KEY"),
    ({"JUDGE_API_BASE": "https://h/v1", "JUDGE_API_KEY": "  "}, "JUDGE_API_KEY"),
])
def test_missing_endpoint_settings_are_a_config_error(monkeypatch, env, missing):
    monkeypatch.delenv("JUDGE_API_BASE", raising=False)
    monkeypatch.delenv("JUDGE_API_KEY", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=missing):
        settings_from_args(parse([]))


@pytest.mark.parametrize("base, argv", [
    ("ftp://h/v1", []), ("not a url", []), ("https://user:pw@h/v1", []),
    ("https://h/v1", ["--judge-concurrency", "0"]), ("https://h/v1", ["--judge-max-retries", "-1"]),
])
def test_bad_judge_settings_are_config_errors(monkeypatch, base, argv):
    monkeypatch.setenv("JUDGE_API_BASE", base)
    monkeypatch.setenv("JUDGE_API_KEY", "sk-test-key")
    with pytest.raises(ConfigError) as caught:
        settings_from_args(parse(argv))
    assert "sk-test-key" not in str(caught.value)


@pytest.mark.parametrize("base, key, expected", [
    ("https://h/v1/chat/completions", "sk-test-key", "names an endpoint"),
    ("https://h/v1/responses/", "sk-test-key", "names an endpoint"),
    ("https://h/v1", "sk-test-key…", "printable ASCII"),
])
def test_a_base_with_an_endpoint_or_a_key_with_odd_characters_is_refused(monkeypatch, base, key, expected):
    monkeypatch.setenv("JUDGE_API_BASE", base)
    monkeypatch.setenv("JUDGE_API_KEY", key)
    with pytest.raises(ConfigError) as caught:
        settings_from_args(parse([]))
    assert expected in str(caught.value) and key not in str(caught.value)
