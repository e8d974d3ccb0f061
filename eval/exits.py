"""The one place where an error becomes a message and an exit status (SPEC §11), for every script:
evaluate.py, prepare_inputs.py, predict.py, compare and leaderboard alike. Kept apart from the
flags (eval/run/cli.py) so that a tool reading finished runs needs no evaluate.py settings."""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import sys
from typing import Callable

from eval.errors import HarnessError


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: stop like Ctrl-C (SPEC §11), exiting 128 + the signal number.

    A KeyboardInterrupt because asyncio passes on only that and SystemExit: any other exception
    raised by a handler that runs inside a socket write is logged as a transport error and lost,
    and the run would go on to write its results."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def stopped_by(stop: KeyboardInterrupt) -> tuple[str, int]:
    """What stopped a run and its exit status: ("interrupted", 130) for Ctrl-C, ("stopped by
    SIGTERM", 143) and ("stopped by SIGHUP", 129) for a Terminated."""
    if isinstance(stop, Terminated):
        return f"stopped by {signal.Signals(stop.signum).name}", 128 + stop.signum
    return "interrupted", 128 + signal.SIGINT


def _raise_terminated(signum: int, frame) -> None:
    raise Terminated(signum)


def run_cli(main: Callable[[list[str] | None], int], argv: list[str] | None = None) -> int:
    """Run a script's main; a HarnessError becomes one clear message and its exit status.

    `main(None)` is the script's own process: evaluate.py's main then asks the run to ignore the
    stop signals once its results are in place (eval/io/outputs.py `write_results(settle=True)`)."""
    previous = {}
    with contextlib.suppress(ValueError):  # SIGINT's own handler, given back to an in-process caller
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.getsignal(signal.SIGINT))
    for signum in (signal.SIGTERM, signal.SIGHUP):
        try:
            previous[signum] = signal.signal(signum, _raise_terminated)
        except ValueError:  # not the main thread (a test calling main directly): leave the handler alone
            pass
    try:
        return main(argv)
    except HarnessError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_status
    except OSError as error:  # an output path that is a directory, a full disk, a locked cache
        where = f" {error.filename}" if error.filename else ""
        print(f"error: cannot write or read{where}: {error.strerror or error}\n"
              "  hint: check --output-dir, --output and --judge-cache", file=sys.stderr)
        return 2
    except sqlite3.Error as error:
        print(f"error: the Judge cache cannot be used ({type(error).__name__}: {error})\n"
              "  hint: point --judge-cache at a new file, or delete the broken one", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # Ctrl-C, or a Terminated
        words, status = stopped_by(stop)
        print(f"{words}: no result was written (Judge verdicts received so far stay in the cache)", file=sys.stderr)
        return status
    finally:
        for signum, handler in previous.items():
            # a script's own process is about to exit: a late signal changes nothing any more, so it
            # neither kills the process nor prints a traceback (an in-process caller gets its handlers back)
            signal.signal(signum, handler if argv is not None else signal.SIG_IGN)
