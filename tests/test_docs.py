"""The README stays a front door and the docs stay linked (README ≤ 20 KB, docs/ holds
the reference with relative links between the pages, the README shows CI's test command)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_LIMIT_BYTES = 20_000

# Pages other work writes in parallel: a link to one of them may point ahead of its file. A link
# to any other missing file is broken.
PAGES_WRITTEN_ELSEWHERE = frozenset({"release.md", "judge-faults.md", "compare.md", "predict.md",
                                     "strict-rules.md", "testing.md"})

LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code removed: links and headings in code
    are examples, not part of the page."""
    lines, fence = [], None
    for line in text.split("\n"):
        match = FENCE.match(line.strip())
        if match and fence is None and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            fence = match.group(1)  # a backtick fence's info string holds no backtick (CommonMark)
            continue
        if match and fence is not None and match.group(1).startswith(fence) and not match.group(2).strip():
            fence = None
            continue
        if fence is None:
            lines.append(INLINE_CODE.sub("", line))
    return lines


def heading_anchor(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).replace("`", "").lower()
    kept = "".join(ch for ch in title if ch in " -_" or unicodedata.category(ch)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a page defines, duplicates numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    result = set()
    for line in prose_lines(text):
        match = HEADING.match(line)
        if not match:
            continue
        anchor = heading_anchor(match.group(2))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        result.add(anchor if count == 0 else f"{anchor}-{count}")
    return result


def broken_links(page: Path, docs: Path = DOCS, pending: frozenset[str] = PAGES_WRITTEN_ELSEWHERE) -> list[str]:
    """The relative links of a page that point at no file, or at a heading the target lacks; a
    link to a page of `pending` inside `docs` may point ahead of its file."""
    problems = []
    for line in prose_lines(page.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path_part, _, anchor = target.partition("#")
            linked = (page.parent / path_part).resolve() if path_part else page
            if not linked.exists():
                if linked.parent == docs.resolve() and linked.name in pending:
                    continue
                problems.append(f"{page.name}: {target} (no such file)")
                continue
            if anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text(encoding="utf-8")):
                problems.append(f"{page.name}: {target} (no such heading)")
    return problems


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


# --- the checker itself: a passing and a failing table --------------------------------------

@pytest.mark.parametrize("title, anchor", [
    ("Quick start", "quick-start"),
    ("The lenient spots, kept on purpose", "the-lenient-spots-kept-on-purpose"),
    ("format_preserve", "format_preserve"),
    ("`eval.compare` and the leaderboard", "evalcompare-and-the-leaderboard"),
    ("Accuracy on a held-out set", "accuracy-on-a-held-out-set"),
])
def test_heading_anchor_follows_github(title, anchor):
    assert heading_anchor(title) == anchor


def test_duplicate_headings_are_numbered_and_code_is_not_a_heading():
    text = "# A\n## Notes\n```bash\n# not a heading\n```\n## Notes\n```` ```x``` ```` is code\n## End\n"
    assert anchors(text) == {"a", "notes", "notes-1", "end"}


@pytest.mark.parametrize("body", [
    "[ok](other.md)",
    "[ok](other.md#a-heading)",
    "[ok](#local)",
    "[web](https://example.com/missing.md)",
    "[ahead](release.md)",                 # written elsewhere, not there yet
    "`[code](missing.md)`",               # inline code is an example
    "```\n[code](missing.md)\n```",       # so is a fenced block
])
def test_links_that_resolve(tmp_path, body):
    (tmp_path / "other.md").write_text("# Other\n## A heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(f"# Page\n## Local\n{body}\n", encoding="utf-8")
    assert broken_links(page, docs=tmp_path) == []


@pytest.mark.parametrize("body, problem", [
    ("[gone](missing.md)", "missing.md (no such file)"),
    ("[gone](other.md#no-heading)", "other.md#no-heading (no such heading)"),
    ("[gone](#nowhere)", "#nowhere (no such heading)"),
    ("[gone](../release.md)", "../release.md (no such file)"),  # only docs/ pages may be ahead
    ("see [a](other.md) and [b](sub/x.md)", "sub/x.md (no such file)"),
])
def test_links_that_are_broken(tmp_path, body, problem):
    (tmp_path / "other.md").write_text("# Other\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(f"# Page\n{body}\n", encoding="utf-8")
    assert broken_links(page, docs=tmp_path) == [f"page.md: {problem}"]


# --- the repository's pages ------------------------------------------------------------------

def test_readme_is_a_front_door():
    size = len(README.read_bytes())
    assert size <= README_LIMIT_BYTES, f"README.md is {size} bytes; move reference text into docs/"


def test_every_relative_link_resolves():
    problems = [problem for page in pages() for problem in broken_links(page)]
    assert problems == []


def test_docs_index_maps_every_page():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = {target.partition("#")[0] for line in prose_lines(index) for target in LINK.findall(line)}
    expected = {page.name for page in DOCS.glob("*.md") if page.name != "index.md"} | PAGES_WRITTEN_ELSEWHERE
    assert expected - linked == set()


def test_readme_shows_the_test_command_ci_runs():
    ci_commands = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").split("\n")
                   if line.strip().startswith("python -m pytest")]
    assert ci_commands, ".ci/run runs no pytest command"
    readme_lines = README.read_text(encoding="utf-8").split("\n")
    for command in ci_commands:
        assert any("Running the tests" in line and f"`{command}`" in line for line in readme_lines), \
            f"README.md has no 'Running the tests' line showing `{command}`"
