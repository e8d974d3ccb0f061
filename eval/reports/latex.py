"""Tables a paper can include: booktabs LaTeX from the leaderboard's rows and a comparison's metrics.

Every text cell is escaped (LaTeX's ten special characters, control characters dropped, line breaks
made spaces), so a run name or signature cannot break the document or run a macro. Numbers carry
their 95% interval in brackets; an unscored value is an en dash. The output is a `tabular` only
(wrap it in your own `table` to place and caption it) and needs `\\usepackage{booktabs}`.
"""

from __future__ import annotations

import re

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_SPECIAL_PATTERN = re.compile(r"[\\&%$#_{}~^]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LINE_BREAK = re.compile(r"[\r\n\u2028\u2029\x85]+")
UNSCORED = "--"


def latex_escape(text: object) -> str:
    """Text set literally in LaTeX: one pass over the input (linear), no macro survives."""
    text = _CONTROL.sub("", _LINE_BREAK.sub(" ", str(text)))
    return _SPECIAL_PATTERN.sub(lambda match: _SPECIAL[match.group(0)], text)


def latex_comment(text: object) -> str:
    """A `%` comment line: a line break in the text cannot end the comment early."""
    return "% " + _CONTROL.sub("", _LINE_BREAK.sub(" ", str(text)))


def value_with_interval(value: float | None, low: float | None, high: float | None, digits: int = 4) -> str:
    if value is None:
        return UNSCORED
    cell = f"{value:.{digits}f}"
    if low is not None and high is not None:
        cell += rf" {{\scriptsize[{low:.{digits}f}, {high:.{digits}f}]}}"
    return cell


def tabular(header: list[str], body: list[list[str]], align: str, comments: list[str] = ()) -> str:
    """A booktabs tabular; header cells are escaped here, body cells must be escaped by the caller."""
    lines = [latex_comment(comment) for comment in comments]
    lines += [rf"\begin{{tabular}}{{{align}}}", r"\toprule",
              " & ".join(latex_escape(cell) for cell in header) + r" \\", r"\midrule"]
    lines += [" & ".join(row) + r" \\" for row in body]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
