"""Title trees of a text: Markdown headings, numbered title lines or HTML headings, laid out
for :mod:`.title_tree` to chunk (twin of ``rust/splitters/title_layout.rs``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ...core import rules
from . import html as _html
from . import markdown as _md
from .title_tree import split_title_tree

__all__ = ["TreeLayout", "layout", "numbered_level", "split_text"]


@dataclass
class TreeLayout:
    """A title tree laid out over a text: nodes in pre-order (node 0 the untitled root) and
    items ``(node, start, end)`` in code points; ``text`` is the laid-out text when it is not
    the input (HTML)."""

    text: str | None = None
    titles: list[str] = field(default_factory=lambda: [""])
    parents: list[int] = field(default_factory=lambda: [-1])
    items: list[tuple[int, int, int]] = field(default_factory=list)

    def path(self, node: int) -> list[str]:
        """The non-empty titles from the root down to ``node``."""
        out = []
        while node > 0:
            if self.titles[node]:
                out.append(self.titles[node])
            node = self.parents[node]
        return out[::-1]


class _Builder:
    def __init__(self) -> None:
        self.layout = TreeLayout()
        self.stack = [(0, 0)]  # (level, node) of the open titles

    def title(self, level: int, title: str) -> None:
        while self.stack[-1][0] >= level:
            self.stack.pop()
        node = len(self.layout.titles)
        self.layout.titles.append(title)
        self.layout.parents.append(self.stack[-1][1])
        self.stack.append((level, node))

    def item(self, start: int, end: int) -> None:
        self.layout.items.append((self.stack[-1][1], start, end))

    @classmethod
    def blocks(cls, blocks: Iterable[tuple[int, int, int, str]]) -> TreeLayout:
        b = cls()
        for start, end, level, title in blocks:
            if level:
                b.title(level, title)
            b.item(start, end)
        return b.layout


def layout_markdown(text: str) -> TreeLayout:
    """Markdown headings (any level, as the Markdown splitter scans them) as titles."""
    return _Builder.blocks(
        (b.start, b.end, b.level, b.text) if b.kind == "heading" else (b.start, b.end, 0, "")
        for b in _md.scan_blocks(text)
    )


def layout_html(html: str) -> TreeLayout:
    """HTML headings as titles, the other blocks of the text layout as paragraphs."""
    lay = _html.layout_html(html)
    out = _Builder.blocks(
        (b.start, b.end, b.level if b.kind == "heading" else 0, b.text) for b in lay.blocks
    )
    out.text = lay.text
    return out


_NUM = "零一二三四五六七八九十百千0-9"
_NUMBERED_TITLES: list[tuple[int, re.Pattern[str]]] = [
    (1, re.compile(rf"第[{_NUM}]+(?:编|部分)")),
    (2, re.compile(rf"第[{_NUM}]+章|(?:Chapter|CHAPTER|Part|PART) [0-9IVXLC]+\b")),
    (3, re.compile(rf"第[{_NUM}]+节|(?:Section|SECTION) [0-9]+\b")),
    (4, re.compile(rf"第[{_NUM}]+条|(?:Article|ARTICLE) [0-9]+\b")),
    (2, re.compile(r"[一二三四五六七八九十百]+、")),
    (3, re.compile(r"[(（][一二三四五六七八九十百]+[)）]")),
]
_DOTTED = re.compile(r"([0-9]{1,2}(?:\.[0-9]{1,2}){0,3})(?:[ 、．]|\.(?![0-9]))")
_NOT_TITLE_END = ("。", "；", ";", "，", ",", "：", ":")
#: What title lines are stripped of: Python's ``str.isspace``, spelled out in the rules file
#: (``chars.whitespace.langchain``) so that the core strips the same characters.
_STRIP = "".join(sorted(rules.char_set("chars.whitespace.langchain")))


def numbered_level(line: str) -> int | None:
    """The level of a RAGFlow-style numbered title (第一章, 第二节, 1.2.3, Article 5, ...):
    a short line (<= 64 characters stripped) starting with a numbering and not ending like
    a sentence or a lead-in (。；，： and ASCII ;,:)."""
    t = line.strip(_STRIP)
    if not t or len(t) > 64 or t.endswith(_NOT_TITLE_END):
        return None
    for level, pattern in _NUMBERED_TITLES:
        if pattern.match(t):
            return level
    m = _DOTTED.match(t)
    if m and len(t) > m.end():
        return 1 + m.group(1).count(".") + 1
    return None


def layout_numbered(text: str) -> TreeLayout:
    """Numbered title lines as titles; every other non-blank line a paragraph."""
    b = _Builder()
    start = 0
    n = len(text)
    while start <= n:
        nl = text.find("\n", start)
        end = n if nl < 0 else nl
        e = end - 1 if end > start and text[end - 1] == "\r" else end
        line = text[start:e]
        title = line.strip(_STRIP)
        if title:
            level = numbered_level(line)
            if level is not None:
                b.title(level, title)
            b.item(start, e)
        if nl < 0:
            break
        start = nl + 1
    return b.layout


def layout(text: str, source: str) -> TreeLayout:
    """The tree of ``text`` read from ``source`` (``auto``: Markdown when it has a heading,
    else numbered title lines)."""
    if source == "markdown":
        return layout_markdown(text)
    if source == "numbered":
        return layout_numbered(text)
    if source == "html":
        return layout_html(text)
    md = layout_markdown(text)
    return md if len(md.titles) > 1 else layout_numbered(text)


def split_text(
    text: str, source: str, budget: int, count: Callable[[str], int]
) -> tuple[str | None, list[tuple[int, int, int, int]], list[list[str]]]:
    """``(laid-out text or None, chunks (start, end, size, path), title paths)`` of a text's
    title tree, as the Rust core returns them."""
    lay = layout(text, source)
    base = text if lay.text is None else lay.text
    raw = split_title_tree(base, lay.parents, lay.items, budget, count)
    index: dict[int, int] = {}
    paths: list[list[str]] = []
    chunks = []
    for start, end, size, node in raw:
        if node not in index:
            index[node] = len(paths)
            paths.append(lay.path(node))
        chunks.append((start, end, size, index[node]))
    return lay.text, chunks, paths
