"""TitleTreeChunker: chunks that follow a document's title tree, each with its title path."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._pure.splitters import html as _pure_html
from .._pure.splitters import markdown as _pure_md
from .._pure.splitters import title_tree as _pure
from ..core import dispatch
from ..core.checks import check_int, check_parsed_text
from ..core.chunk import Chunk
from ..core.markup import bound_depth
from ._common import Measured, check_batch, configured, size_argument

__all__ = ["TitleTreeChunker"]


@dataclass
class _Layout:
    """A title tree laid out over a text: nodes in pre-order (node 0 the root) and items
    (title lines and paragraphs) as ``(node, start, end)`` code-point spans in order."""

    text: str
    titles: list[str]
    parents: list[int]
    items: list[tuple[int, int, int]]

    def path(self, node: int) -> list[str]:
        out = []
        while node > 0 or (node == 0 and self.titles[0]):
            if self.titles[node]:
                out.append(self.titles[node])
            if node == 0:
                break
            node = self.parents[node]
        return out[::-1]


_TREE_SEP = "\n\n"


def _layout_tree(tree: object) -> _Layout:
    """Render a ``{"title": str, "content": [str | node, ...]}`` tree (or a list of nodes) as
    text, iteratively (any depth), rejecting cycles. Titles and paragraphs are separated by
    a blank line; empty or whitespace-only strings are left out."""
    titles: list[str] = []
    parents: list[int] = []
    items: list[tuple[int, int, int]] = []
    parts: list[str] = []
    pos = 0

    def emit(node: int, s: str) -> None:
        nonlocal pos
        if not s.strip():
            return
        if parts:
            parts.append(_TREE_SEP)
            pos += len(_TREE_SEP)
        parts.append(s)
        items.append((node, pos, pos + len(s)))
        pos += len(s)

    # frames: [node id, content list, next index, id of the dict/list on the path]
    stack: list[list[Any]] = []
    on_path: set[int] = set()

    def where() -> str:
        return "tree" + "".join(f'["content"][{f[2] - 1}]' for f in stack)

    def enter(obj: object, parent: int) -> None:
        if isinstance(obj, Mapping):
            if "title" not in obj:
                raise ValueError(f'{where()}: a node needs a "title"')
            title = obj["title"]
            if not isinstance(title, str):
                raise TypeError(f'{where()}["title"] must be a str, got {type(title).__name__}')
            content = obj.get("content", [])
        elif isinstance(obj, (list, tuple)) and parent < 0:
            title, content = "", obj
        else:
            raise TypeError(
                f"{where()} must be a dict with title and content, got {type(obj).__name__}"
            )
        if isinstance(content, str) or not isinstance(content, (list, tuple)):
            raise TypeError(
                f'{where()}["content"] must be a list of str or nodes, got {type(content).__name__}'
            )
        key = id(obj)
        if key in on_path:
            raise ValueError(f"{where()}: cycle in the title tree")
        on_path.add(key)
        node = len(titles)
        titles.append(title)
        parents.append(parent)
        emit(node, title)
        stack.append([node, content, 0, key])

    enter(tree, -1)
    while stack:
        frame = stack[-1]
        node, content, i = frame[0], frame[1], frame[2]
        if i >= len(content):
            on_path.discard(frame[3])
            stack.pop()
            continue
        frame[2] = i + 1
        child = content[i]
        if isinstance(child, str):
            emit(node, child)
        else:
            enter(child, node)
    return _Layout("".join(parts), titles, parents, items)


def _layout_html(html: str) -> _Layout:
    """HTML headings (``<h1>``...``<h6>``) as titles, the other blocks of
    :meth:`HTMLSplitter.extract_text`'s layout as paragraphs; offsets index that layout."""
    html = bound_depth(html)

    def pure() -> tuple[str, list[tuple[int, int, int, str]]]:
        lay = _pure_html.layout_html(html)
        blocks = [
            (b.start, b.end, b.level if b.kind == "heading" else 0, b.text) for b in lay.blocks
        ]
        return lay.text, blocks

    text, blocks = dispatch.run(lambda core: tuple(core.html_layout(html)), pure)
    layout = _Layout(text, [""], [-1], [])
    stack = [(0, 0)]  # (level, node)
    for start, end, level, title in blocks:
        if level:
            while stack[-1][0] >= level:
                stack.pop()
            node = len(layout.titles)
            layout.titles.append(title)
            layout.parents.append(stack[-1][1])
            stack.append((level, node))
        layout.items.append((stack[-1][1], start, end))
    return layout


def _layout_markdown(text: str) -> _Layout:
    """Markdown headings (any level, same scanner as :class:`MarkdownSplitter`) as titles;
    the other blocks as paragraphs."""

    def pure() -> list[tuple[int, int, int, str]]:
        return [
            (b.start, b.end, b.level, b.text) if b.kind == "heading" else (b.start, b.end, 0, "")
            for b in _pure_md.scan_blocks(text)
        ]

    blocks = dispatch.run(lambda core: core.markdown_blocks(text), pure)
    layout = _Layout(text, [""], [-1], [])
    stack = [(0, 0)]  # (level, node)
    for start, end, level, title in blocks:
        if level:
            while stack[-1][0] >= level:
                stack.pop()
            node = len(layout.titles)
            layout.titles.append(title)
            layout.parents.append(stack[-1][1])
            stack.append((level, node))
        layout.items.append((stack[-1][1], start, end))
    return layout


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


def _numbered_level(line: str) -> int | None:
    """The level of a RAGFlow-style numbered title (第一章, 第二节, 1.2.3, Article 5, ...):
    a short line (<= 64 characters stripped) starting with a numbering and not ending like
    a sentence or a lead-in (。；，： and ASCII ;,:)."""
    t = line.strip()
    if not t or len(t) > 64 or t.endswith(_NOT_TITLE_END):
        return None
    for level, pattern in _NUMBERED_TITLES:
        if pattern.match(t):
            return level
    m = _DOTTED.match(t)
    if m and len(t) > m.end():
        return 1 + m.group(1).count(".") + 1
    return None


def _layout_numbered(text: str) -> _Layout:
    """Numbered title lines as titles; every other non-blank line a paragraph."""
    layout = _Layout(text, [""], [-1], [])
    stack = [(0, 0)]
    start = 0
    n = len(text)
    while start <= n:
        nl = text.find("\n", start)
        end = n if nl < 0 else nl
        e = end - 1 if end > start and text[end - 1] == "\r" else end
        line = text[start:e]
        if line.strip():
            level = _numbered_level(line)
            if level is not None:
                while stack[-1][0] >= level:
                    stack.pop()
                node = len(layout.titles)
                layout.titles.append(line.strip())
                layout.parents.append(stack[-1][1])
                stack.append((level, node))
            layout.items.append((stack[-1][1], start, e))
        if nl < 0:
            break
        start = nl + 1
    return layout


_TITLE_SOURCES = ("auto", "markdown", "numbered", "html")


class TitleTreeChunker(Measured):
    """Structure + length chunking over a title tree.

    1. Each smallest-title unit (a title with the paragraphs directly under it) becomes a
       chunk whose ``metadata["title_path"]`` is its full title path ``"A > B > C"``
       (``metadata["titles"]`` the same as a list).
    2. A unit over ``chunk_size`` is split by paragraph, then a paragraph by sentence
       (after 。！？； or . ! ? before whitespace), never mid-sentence unless one sentence alone
       exceeds the budget (then at whitespace, then between characters).
    3. Small neighbours merge bottom-up while the merged text fits: siblings under the same
       lowest title first, then up the tree. A merged chunk spanning several titles carries
       the path of the title it was merged under.

    Chunk text is always ``source[start:end]`` and includes the title lines it spans, so no
    text is lost. The source is the text given to :meth:`split`, or for a tree given to
    :meth:`split_tree` its rendering :meth:`render` (titles and paragraphs separated by a
    blank line).

    Where the tree comes from:

    * :meth:`split_tree`: ``{"title": str, "content": [str | node, ...]}`` (or a list of
      such nodes). Cycles raise ``ValueError``; any depth works (iterative).
    * :meth:`split` with ``title_source="markdown"``: Markdown headings (ATX or setext, as
      :class:`MarkdownSplitter` scans them) are the titles, the other blocks paragraphs.
    * ``title_source="numbered"``: RAGFlow-style numbered title lines (第一编/章/节/条,
      一、, （一）, 1 / 1.2 / 1.2.3, Chapter/Part/Section/Article N) are the titles, every other
      non-blank line a paragraph.
    * ``title_source="html"``: the text is HTML; ``<h1>``...``<h6>`` are the titles and the
      other blocks of :meth:`HTMLSplitter.extract_text` (paragraphs, list items, tables...)
      the paragraphs. Chunk text and offsets then refer to that extracted text, not to the
      HTML source (as for :class:`HTMLSplitter`).
    * ``"auto"`` (default): Markdown when the text has a Markdown heading, else numbered.

    Args:
        chunk_size: the budget per chunk in tokens (or characters, ``length="chars"``);
            ``max_chunk_size`` is accepted as an older name for it.
        length: ``"tokens"`` or ``"chars"``.
        tokenizer: see :mod:`ragchunk`; unused with ``length="chars"``.
        title_source: ``"auto"``, ``"markdown"``, ``"numbered"`` or ``"html"``.

    >>> tree = {"title": "Guide", "content": [
    ...     {"title": "Install", "content": ["Run pip.", "Done."]},
    ...     {"title": "Use", "content": ["Import it."]}]}
    >>> chunker = TitleTreeChunker(24, length="chars")
    >>> for c in chunker.split_tree(tree):
    ...     print(repr(c.metadata["title_path"]), repr(c.text))
    'Guide' 'Guide'
    'Guide > Install' 'Install\\n\\nRun pip.\\n\\nDone.'
    'Guide > Use' 'Use\\n\\nImport it.'
    >>> [c.text for c in TitleTreeChunker(60, length="chars").split_tree(tree)]
    ['Guide\\n\\nInstall\\n\\nRun pip.\\n\\nDone.\\n\\nUse\\n\\nImport it.']
    """

    def __init__(
        self,
        chunk_size: int | None = None,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
        title_source: str = "auto",
        *,
        max_chunk_size: int | None = None,
    ) -> None:
        name = "max_chunk_size" if max_chunk_size is not None else "chunk_size"
        self.chunk_size = check_int(name, size_argument(chunk_size, max_chunk_size), 1)
        self._set_length(length, tokenizer)
        if title_source not in _TITLE_SOURCES:
            raise ValueError(
                "title_source must be 'auto', 'markdown', 'numbered' or 'html', "
                f"got {title_source!r}"
            )
        self.title_source = title_source

    def __repr__(self) -> str:
        return (
            f"TitleTreeChunker(chunk_size={self.chunk_size}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r}, title_source={self.title_source!r})"
        )

    @property
    def max_chunk_size(self) -> int:
        """The older name of :attr:`chunk_size`."""
        return self.chunk_size

    @staticmethod
    def render(tree: object) -> str:
        """The text a tree is chunked as (chunk offsets index into it)."""
        return _layout_tree(tree).text

    def _layout_text(self, text: str) -> _Layout:
        if self.title_source == "markdown":
            return _layout_markdown(text)
        if self.title_source == "numbered":
            return _layout_numbered(text)
        if self.title_source == "html":
            return _layout_html(text)
        md = _layout_markdown(text)
        return md if len(md.titles) > 1 else _layout_numbered(text)

    def _chunks(self, layout: _Layout, raw: Sequence[tuple[int, int, int, int]]) -> list[Chunk]:
        out = []
        paths: dict[int, list[str]] = {}
        for start, end, size, node in raw:
            if node not in paths:
                paths[node] = layout.path(node)
            titles = paths[node]
            meta = {"title_path": " > ".join(titles), "titles": list(titles)}
            out.append(Chunk(layout.text[start:end], start, end, size, meta))
        return out

    def _core(self, core: Any) -> Any:
        return configured(
            self,
            core,
            lambda c: c.TitleTreeChunker(self.chunk_size, self.length, *self._core_counter()),
        )

    def _run(self, layout: _Layout) -> list[Chunk]:
        raw = dispatch.run(
            lambda core: self._core(core).split(layout.text, layout.parents, layout.items),
            lambda: _pure.split_title_tree(
                layout.text, layout.parents, layout.items, self.chunk_size, self._count()
            ),
        )
        return self._chunks(layout, raw)

    def split(self, text: str) -> list[Chunk]:
        """Chunk a document whose titles are Markdown headings or numbered title lines."""
        return self._run(self._layout_text(check_parsed_text(text)))

    def split_tree(self, tree: object) -> list[Chunk]:
        """Chunk a ``{"title": ..., "content": [...]}`` tree; offsets index
        :meth:`render` ``(tree)``.

        Raises:
            TypeError: a node, title or content of the wrong type (the message gives its
                path, e.g. ``tree["content"][2]["title"]``).
            ValueError: a node without a title, a cycle, a lone surrogate.
        """
        layout = _layout_tree(tree)
        check_parsed_text(layout.text, "tree")
        return self._run(layout)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents, in input order; on the Rust backend in parallel
        with the GIL released (a built-in tokenizer or ``length="chars"``), or one after
        another inside the core for a Python tokenizer."""
        texts = check_batch(texts, workers)
        layouts = [
            self._layout_text(check_parsed_text(t, f"texts[{i}]")) for i, t in enumerate(texts)
        ]

        def rust(core: Any) -> list[list[Chunk]]:
            results = self._core(core).split_batch(
                [(lay.text, lay.parents, lay.items) for lay in layouts], workers
            )
            return [self._chunks(lay, raw) for lay, raw in zip(layouts, results, strict=True)]

        return dispatch.run(rust, lambda: [self._run(lay) for lay in layouts])
