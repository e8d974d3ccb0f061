"""InstTrans-Bench evaluation harness: data, rules, syllables, Judge, metrics."""

import os as _os  # os and sys are loaded before any code runs: importing them reads no folder
import sys as _sys

__version__ = "0.1.0"


def _leave_the_current_directory() -> None:
    """`python -m eval.X` puts the current directory first on sys.path (Python's rule). Once this
    package is found there or elsewhere, nothing else the command imports may come from that
    folder: a release folder's `argparse.py` or `numpy/` must not run. Only for `-m eval…`: a
    notebook or another program importing this package keeps its sys.path. A folder holding an
    `eval/__init__.py` of its own is imported instead of this package, before any code of ours can
    look; the console commands, `python -P -m eval.X` and the checkout's scripts never import from
    the current directory (docs/api.md)."""
    if _sys.argv[:1] != ["-m"]:  # argv[0] is "-m" only while `python -m` looks for its module
        return
    argv = list(getattr(_sys, "orig_argv", ()))
    module = ""
    for index, arg in enumerate(argv[1:], 1):
        if arg == "-m" and index + 1 < len(argv):
            module = argv[index + 1]
            break
        if arg.startswith("-m") and not arg.startswith("--"):
            module = arg[2:]
            break
    if module != "eval" and not module.startswith("eval."):
        return
    home = _os.path.dirname(_os.path.dirname(_os.path.realpath(__file__)))
    here = _os.path.realpath(_os.getcwd())
    if here == home:  # the checkout itself: the folder this package came from
        return
    _sys.path[:] = [entry for entry in _sys.path if _os.path.realpath(entry or _os.curdir) != here]


_leave_the_current_directory()
