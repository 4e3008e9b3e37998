"""MarkdownSplitter against a real CommonMark parser (markdown-it-py) as a test-time oracle.

Both backends use the same hand-written line scanner (see ``rust/splitters/markdown.rs`` for
why). These tests hold it to what a CommonMark + GFM-tables parser sees on the real corpus:

* a top-level block (fence, indented code, table, HTML block, list, block quote) that fits
  the budget is never cut;
* a list over budget is cut between its items, unless an item alone is over budget;
* every top-level heading of a split level starts a chunk whose heading path ends with it
  (``merge_sections=False``), or, with small sections merged, lies at a line start inside
  a chunk whose heading path is a prefix of the heading's own path and which lists that
  path among its merged sections.
"""

from __future__ import annotations

import bisect

import pytest
import ragchunk
from markdown_it import MarkdownIt
from markdown_it.token import Token
from ragchunk._pure.splitters import markdown as pure
from ragchunk.splitters.markdown import MarkdownSplitter
from testdata import corpus_documents

SIZE = 256
# Every third document of each corpus folder keeps the parse affordable; the scanner's rules
# are the same everywhere.
DOCS = corpus_documents()[::3]
WHOLE = {"fence", "code_block", "table", "html_block", "bullet_list", "ordered_list", "blockquote"}

pytestmark = pytest.mark.single_backend  # the backends agree (differential tests elsewhere)


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def _top_level(tokens: list[Token]) -> list[tuple[str, int, int, int]]:
    """(kind, first line, end line exclusive, token index) of the top-level blocks."""
    out = []
    for k, t in enumerate(tokens):
        if t.level == 0 and t.map is not None and t.nesting >= 0:
            out.append((t.type.removesuffix("_open"), t.map[0], t.map[1], k))
    return out


def _chunk_start_lines(chunks: list[ragchunk.Chunk], starts: list[int]) -> dict[int, int]:
    """Line of each chunk start that is not the first chunk -> column."""
    out = {}
    for c in chunks[1:]:
        line = bisect.bisect_right(starts, c.start) - 1
        out[line] = c.start - starts[line]
    return out


@pytest.mark.parametrize("merge", [False, True], ids=["unmerged", "merged"])
@pytest.mark.parametrize("name,text", DOCS, ids=[n for n, _ in DOCS])
def test_commonmark_blocks_and_headings(name: str, text: str, merge: bool) -> None:
    md = _parser()
    lines = text.split("\n")
    # CommonMark has no front matter (it would read it as a setext heading): blank it out
    # for the oracle, keeping the line numbers.
    blocks = pure.scan_blocks(text)
    skip = blocks[0].last + 1 if blocks and blocks[0].kind == "front_matter" else 0
    tokens = md.parse("\n" * skip + "\n".join(lines[skip:]))
    starts = _line_starts(text)
    chunks = MarkdownSplitter(SIZE, merge_sections=merge).split(text)
    plain = chunks if not merge else MarkdownSplitter(SIZE, merge_sections=False).split(text)
    cuts = _chunk_start_lines(chunks, starts)
    cut_lines = sorted(cuts)

    for kind, first, end, k in _top_level(tokens):
        block = "\n".join(lines[first:end]).rstrip()
        inside = [ln for ln in cut_lines[bisect.bisect_right(cut_lines, first) :] if ln < end]
        if kind in WHOLE and inside:
            assert ragchunk.count_tokens(block) > SIZE, (kind, first, end, inside)
            if kind in ("bullet_list", "ordered_list"):
                # Over budget: cut at item starts, or inside an item that is itself too big.
                items = []
                for t in tokens[k + 1 :]:
                    if t.level == 0:
                        break
                    if t.type == "list_item_open" and t.level == 1 and t.map:
                        items.append((t.map[0], t.map[1]))
                for ln in inside:
                    if any(a == ln for a, _ in items):
                        continue
                    owner = [(a, b) for a, b in items if a < ln < b]
                    assert owner, (first, ln)
                    a, b = owner[0]
                    item = "\n".join(lines[a:b]).rstrip()
                    assert ragchunk.count_tokens(item) > SIZE, (name, first, ln, item[:80])
        if kind == "heading" and tokens[k].tag in ("h1", "h2", "h3"):
            # A multi-line setext heading's lines are joined by spaces in the heading path.
            title = " ".join(ln.strip() for ln in tokens[k + 1].content.split("\n")).strip()
            chunk = next((c for c in plain if c.start == starts[first]), None)
            if chunk is None:  # the first chunk starts at the first non-blank line
                assert all(not ln.strip() for ln in lines[:first]), (first, title)
                chunk = plain[0]
            assert chunk.metadata["headers"][-1:] == ([title] if title else []), (first, title)
            if merge:
                path = chunk.metadata["headers"]
                at = max(starts[first], chunk.start)
                holder = [c for c in chunks if c.start <= at < c.end]
                assert len(holder) == 1, (first, title)
                got = holder[0].metadata
                assert path[: len(got["headers"])] == got["headers"], (first, path, got)
                if holder[0].start < at:  # inside a merged chunk: one of its sections
                    assert path in got["sections"], (first, path, got)


def test_oracle_sees_the_constructs_we_test() -> None:
    """The oracle really parses what the scanner treats specially (guards the test above)."""
    doc = "<!--\n# x\n\n- y\n-->\n\n1. a\n\n- b\n* c\n\n| a |\n|---|\n| 1 |\n"
    kinds = [k for k, *_ in _top_level(_parser().parse(doc))]
    assert kinds == ["html_block", "ordered_list", "bullet_list", "bullet_list", "table"]
    chunks = MarkdownSplitter(20, length="chars").split(doc)
    # The comment is one block: no heading, no list, kept whole within the budget.
    assert chunks[0].text == "<!--\n# x\n\n- y\n-->"
    assert chunks[0].metadata["headers"] == []
    texts = [c.text for c in MarkdownSplitter(1000, length="chars").split(doc)]
    assert texts == [doc.rstrip("\n")]
