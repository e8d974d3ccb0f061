"""eval/insttrans/markdown_tokens.py gives markdown-it's own tokens, only faster: the line marks,
the block parse and the inline parse are compared with the library's on random and edge texts."""

from __future__ import annotations

import random

import pytest

from eval.insttrans import markdown_tokens

EDGES = ["", " ", "\t", "\n", "a", "a\n", "a\n ", "a\n \t", " \t a\n\tb", "\t\t x\n  \t y\n", "\n\n\n",
         "# h\n\n- a\n  - b\n\n> q\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", "    code\n\tmore\n", "```\nx\n```",
         "1. a\n2. b\n   \n3. c", "a  \nb", "  \n  \n", "x\r\ny", "**注意：**请", "- \t[a](b)\n\t- `c`"]


def random_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = "ab 1.)#>-*+=_`|[]()!<>\\:\n\n\t    注意请~"
    return [*EDGES, *("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80))) for _ in range(count))]


def library_marks(text: str) -> tuple:
    from markdown_it.rules_block import StateBlock

    state = StateBlock(text, markdown_tokens.markdown_parser(), {}, [])
    return state.bMarks, state.eMarks, state.tShift, state.sCount, state.bsCount, state.lineMax


def test_the_line_marks_are_markdown_its_own():
    for text in random_texts(11, 4_000):
        state = markdown_tokens._fast_block_state_class()(text, markdown_tokens.markdown_parser(), {}, [])
        assert (state.bMarks, state.eMarks, state.tShift, state.sCount, state.bsCount,
                state.lineMax) == library_marks(text), repr(text)


def test_a_last_line_of_blanks_is_no_line_and_tabs_expand_to_four():
    assert markdown_tokens.line_marks("a\n \t") == ([0], [1], [0], [0])
    assert markdown_tokens.line_marks(" \tb\n") == ([0], [3], [2], [4])
    assert markdown_tokens.line_marks("") == ([], [], [], [])


@pytest.mark.parametrize("links", [True, False])
def test_the_block_and_inline_parses_give_markdown_its_own_tokens(links):
    parser = markdown_tokens.markdown_parser(links=links)
    for text in random_texts(12, 2_000):
        native, fast = [], []
        parser.block.parse(text, parser, {}, native)
        markdown_tokens.parse_blocks(parser, text, {}, fast)
        assert [token.as_dict() for token in fast] == [token.as_dict() for token in native], repr(text)
        for token in native:
            if token.type == "inline":
                expected, got = [], []
                parser.inline.parse(token.content, parser, {}, expected)
                markdown_tokens.parse_inline(parser, token.content, {}, got)
                assert [child.as_dict() for child in got] == [child.as_dict() for child in expected], repr(text)
