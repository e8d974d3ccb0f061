"""The argument parser every command uses: whole flag names only, and a misspelt flag answered with
the flag it most likely meant, before any "required" complaint hides the typo.

Abbreviations are off (`--skip-judg` is refused, not read as `--skip-judge`): a prefix that means one
flag today can mean another tomorrow, and a command in a paper must read the same in every version.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys


class HarnessParser(argparse.ArgumentParser):
    """argparse with `allow_abbrev=False`, did-you-mean for unknown flags, a two-line error, and
    `--version` (the harness version a result's signature names) on every command."""

    def __init__(self, *args, **kwargs):
        from eval import __version__

        kwargs["allow_abbrev"] = False
        if not args and "prog" not in kwargs and sys.argv[0].endswith(".py"):
            kwargs["prog"] = f"python {os.path.basename(sys.argv[0])}"  # a hint the user can paste
        super().__init__(*args, **kwargs)
        self.add_argument("--version", action="version", version=version_line(self.prog, __version__),
                          help="print the harness version and exit")

    def parse_args(self, argv=None, namespace=None):  # `args` in argparse; named so it is no Namespace
        argv = sys.argv[1:] if argv is None else [str(arg) for arg in argv]
        for token in argv:
            if token == "--":
                break
            name = token.split("=", 1)[0]
            if token.startswith("--") and name not in self._option_string_actions:
                self.error(unknown_flag_message(name, self.long_flags()))
        return super().parse_args(argv, namespace)

    def format_help(self) -> str:
        """A description given as a function is built only when help is shown (a text that names
        the registry's benchmarks costs their import, which a command's own work may not need)."""
        if callable(self.description):
            self.description = self.description()
        return super().format_help()

    def long_flags(self) -> list[str]:
        return sorted(flag for flag in self._option_string_actions if flag.startswith("--"))

    def error(self, message: str):
        """One line saying what is wrong, one pointing at --help (argparse's usage block buries the line)."""
        self.exit(2, f"{self.prog}: error: {message}\n  hint: `{self.prog} --help` lists every flag\n")


def version_line(prog: str, version: str) -> str:
    """`python evaluate.py 0.1.0 (insttrans-bench-harness)`: the version a signature's `version:` part names."""
    return f"{prog} {version} (insttrans-bench-harness)"


def unknown_flag_message(flag: str, known: list[str]) -> str:
    """`unknown flag --predicitons; did you mean --predictions?`, or just the first half."""
    close = difflib.get_close_matches(flag, known, n=1, cutoff=0.6)
    if not close:
        prefixed = [name for name in known if name.startswith(flag)]  # an abbreviation: --skip
        close = prefixed[:1] if len(prefixed) == 1 else []
    return f"unknown flag {flag}; did you mean {close[0]}?" if close else f"unknown flag {flag}"
