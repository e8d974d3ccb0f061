"""markdown-it's own tokens for the strict Markdown comparison (§7b), produced faster.

The strict rules read Markdown exactly as markdown-it-py (CommonMark + tables + the CJK-friendly
emphasis amendment) does; this module changes how fast, never what. markdown-it-py walks two
loops one Python step per character: the block state's line marks, and the inline `text` rule
(plus, on 3.x, the pending text, appended with `+=`: quadratic in a run of `[`). Here the line
marks come from `str.find` per line, the text run from one regex match, and the pending text is a
list of pieces. tests/test_hostile_input.py and tests/test_markdown_tokens.py compare every token
with the library's own on random and hostile texts, on whichever markdown-it-py is installed.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache


@lru_cache(maxsize=2)
def markdown_parser(links: bool = True):
    """The one parser (`links=False`: without the link and image rules, for inline texts with no
    `]`, where no link can close but the rules would still scan every `[`: 2 s for 100 KB)."""
    from markdown_it import MarkdownIt  # imported here: only Markdown-bearing texts need it
    from mdit_py_cjk_friendly import cjk_friendly

    # CommonMark's emphasis with the CJK-friendly amendment (§7b): `**注意：**请` is bold, as
    # Chinese renderers show it. The plugin changes nothing where no CJK character is involved.
    parser = MarkdownIt("commonmark").enable("table").use(cjk_friendly)
    _silence_rule_debug_logging()
    return parser if links else parser.disable(["link", "image"])


def _silence_rule_debug_logging() -> None:
    """markdown-it's block rules log "entering <rule>" at DEBUG on every attempt, ~15 calls per
    parsed text even when nothing listens. Where DEBUG is off for those loggers (always, unless a
    user turned it on) their `debug` becomes a no-op for this process: the parse is unchanged."""
    import logging

    for name, module in list(sys.modules.items()):
        logger = getattr(module, "LOGGER", None) if name.startswith("markdown_it.rules_") else None
        if isinstance(logger, logging.Logger) and not logger.isEnabledFor(logging.DEBUG):
            logger.debug = _ignore


def _ignore(*args, **kwargs) -> None:
    return None


# --- the block parse ------------------------------------------------------------------------------


def parse_blocks(parser, text: str, env: dict, tokens: list) -> None:
    """`parser.block.parse(text, parser, env, tokens)`, its line marks found a line at a time."""
    if text:
        state = _fast_block_state_class()(text, parser, env, tokens)
        parser.block.tokenize(state, state.line, state.lineMax)


def line_marks(text: str) -> tuple[list[int], list[int], list[int], list[int]]:
    """markdown-it's (bMarks, eMarks, tShift, sCount) for `text`, without the fake last entry: each
    line's start, end (its `\\n`, or the text's end), leading spaces and tabs, and that indent with
    tabs expanded to the next multiple of 4. As in markdown-it's loop, a last line of spaces and
    tabs alone with no `\\n` after it is not a line."""
    starts, ends, shifts, counts = [], [], [], []
    length, start = len(text), 0
    while start < length:
        end = text.find("\n", start)
        if end < 0:
            end = length
        content = text[start:end]
        body = content.lstrip(" \t")
        indent = len(content) - len(body)
        if end == length and not body:
            break
        offset = indent
        if "\t" in content[:indent]:
            offset = 0
            for character in content[:indent]:
                offset += 4 - offset % 4 if character == "\t" else 1
        starts.append(start)
        ends.append(end)
        shifts.append(indent)
        counts.append(offset)
        start = end + 1
    return starts, ends, shifts, counts


@lru_cache(maxsize=1)
def _fast_block_state_class():
    from markdown_it.rules_block import StateBlock

    class LineMarkedStateBlock(StateBlock):
        """StateBlock whose line marks come from `line_marks` (the library's loop is a Python step
        per character of the text)."""

        def __init__(self, src: str, md, env, tokens) -> None:
            super().__init__("", md, env, tokens)  # every other field as the library sets it
            self.src = src
            starts, ends, shifts, counts = line_marks(src)
            self.bMarks, self.eMarks = [*starts, len(src)], [*ends, len(src)]
            self.tShift, self.sCount = [*shifts, 0], [*counts, 0]
            self.bsCount = [0] * (len(starts) + 1)
            self.lineMax = len(starts)

    return LineMarkedStateBlock


# --- the inline parse -----------------------------------------------------------------------------


def parse_inline(parser, text: str, env: dict, children: list) -> None:
    """The inline parse of `text` into `children`, linear in its length on every markdown-it-py.

    markdown-it-py 4 buffers the text no rule claims; 3.x (what a fresh install resolves to, since
    mdit-py-cjk-friendly asks for markdown-it-py<4) appends it with `+=` on an attribute, one
    character at a time: 9.5 s for 1 MB of `[`. On 3.x the same loop and rules run over a state
    that buffers that text, so the tokens are the same."""
    from markdown_it.rules_inline import StateInline

    if hasattr(StateInline, "append_pending"):
        parser.inline.parse(text, parser, env, children)
    else:
        parse_inline_buffered(parser, text, env, children)


def parse_inline_buffered(parser, text: str, env: dict, children: list) -> None:
    """markdown-it-py 3.0's ParserInline.parse, the pending text buffered and the `text` rule's
    run found by one regex match."""
    state = _buffered_state_class()(text, parser, env, children)
    rules = [_buffered_text if rule.__name__ == "text" else rule for rule in parser.inline.ruler.getRules("")]
    end, max_nesting, ok = state.posMax, parser.options["maxNesting"], False
    while state.pos < end:  # markdown-it-py 3.0's ParserInline.tokenize
        if state.level < max_nesting:
            for rule in rules:
                ok = rule(state, False)
                if ok:
                    break
        if ok:
            if state.pos >= end:
                break
            continue
        state.append_pending(state.src[state.pos])
        state.pos += 1
    if state.pending:
        state.pushPending()
    for rule in parser.inline.ruler2.getRules(""):
        rule(state)


def _buffered_text(state, silent: bool) -> bool:
    """markdown-it's `text` rule: the run of characters up to the next terminator (or posMax)
    goes to the pending buffer."""
    found = _text_run().match(state.src, state.pos, state.posMax)
    if found is None:
        return False
    if not silent:
        state.append_pending(found.group())
    state.pos = found.end()
    return True


@lru_cache(maxsize=1)
def _text_run():
    """A run of the characters markdown-it's `text` rule skips: anything but its terminators."""
    from markdown_it.rules_inline.text import _TerminatorChars

    return re.compile("[^" + "".join(re.escape(character) for character in sorted(_TerminatorChars)) + "]+")


@lru_cache(maxsize=1)
def _buffered_state_class():
    from markdown_it.rules_inline import StateInline

    class BufferedPendingState(StateInline):
        """StateInline whose pending text is a list of pieces, joined only when a rule reads it."""

        @property
        def pending(self) -> str:
            pieces = self.__dict__.setdefault("_pieces", [])
            if len(pieces) > 1:
                pieces[:] = ["".join(pieces)]
            return pieces[0] if pieces else ""

        @pending.setter
        def pending(self, value: str) -> None:
            self.__dict__["_pieces"] = [value] if value else []

        def append_pending(self, piece: str) -> None:
            self.__dict__.setdefault("_pieces", []).append(piece)

    return BufferedPendingState
