"""Structure-aware chunkers: Markdown, HTML, title trees and JSON (code: ragchunk.code).

Each chunker is configured once and applied to many documents (``split``, ``split_text``,
``split_batch``), returns :class:`ragchunk.Chunk` objects with code-point offsets, and gives the
same result on the Rust core and on the pure-Python fallback.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import _backend
from ._chunk import Chunk, Splitter, check_texts, check_workers
from ._pure import html as _pure_html
from ._pure import structured as _pure
from ._tokenizers import ResolvedTokenizer, resolve_tokenizer

__all__ = ["HTMLSplitter", "JSONSplitter", "MarkdownSplitter", "TitleTreeChunker"]

_LENGTHS = ("tokens", "chars")


def _positive_int(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _check_text(text: object, name: str = "text") -> str:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{name} contains a lone surrogate at index {exc.start}; "
            "decode the source with errors='replace' first"
        ) from None
    return text


def _pure_counter(tok: ResolvedTokenizer | None) -> Callable[[str], int]:
    """How the fallback counts: characters, a built-in encoding's ``encode_ordinary`` (the
    Rust core's ``count_ordinary``: special-token text is plain text), or the callable."""
    if tok is None:
        return len
    if tok.builtin is not None:
        from ._pure.tokens import load_encoding

        encode = load_encoding(tok.builtin).encode_ordinary
        return lambda t: len(encode(t))
    assert tok.exact is not None
    return tok.exact


def _heading_levels(value: object) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(
            "headers_to_split_on must be a sequence of '#' strings such as ('#', '##'), "
            f"got {type(value).__name__}"
        )
    levels = []
    for i, h in enumerate(value):
        if not isinstance(h, str):
            raise TypeError(f"headers_to_split_on[{i}] must be a str, got {type(h).__name__}")
        if not 1 <= len(h) <= 6 or h.strip("#"):
            raise ValueError(f"headers_to_split_on[{i}] must be '#' to '######', got {h!r}")
        levels.append(len(h))
    return tuple(sorted(set(levels)))


class _Measured(Splitter):
    """Chunkers sized in tokens (a resolved tokenizer) or in characters (``length``)."""

    _tok: ResolvedTokenizer | None
    _pure_count: Callable[[str], int] | None

    def _set_length(self, length: str, tokenizer: Any) -> None:
        """Validate ``length`` and resolve ``tokenizer`` (only used with ``"tokens"``)."""
        if length not in _LENGTHS:
            raise ValueError(f"length must be 'tokens' or 'chars', got {length!r}")
        self.length = length
        self.tokenizer = tokenizer
        self._tok = resolve_tokenizer(tokenizer) if length == "tokens" else None
        self._pure_count = None

    def _count(self) -> Callable[[str], int]:
        """How the pure-Python paths count (built once, on first use)."""
        if self._pure_count is None:
            self._pure_count = _pure_counter(self._tok)
        return self._pure_count


class _SectionSplitter(_Measured):
    """What MarkdownSplitter and HTMLSplitter share: arguments, counting, batch dispatch.

    Subclasses give the heading-level parser, the core's one-document and batch functions
    and how a result becomes chunks.
    """

    def __init__(
        self,
        chunk_size: int,
        chunk_overlap: int,
        headers_to_split_on: Sequence[str],
        strip_headers: bool,
        length: str,
        tokenizer: Any,
        parse_levels: Callable[[object], tuple[int, ...]],
    ) -> None:
        self.chunk_size = _positive_int(chunk_size, "chunk_size", 1)
        self.chunk_overlap = _positive_int(chunk_overlap, "chunk_overlap", 0)
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk_overlap ({chunk_overlap}) must be smaller than chunk_size ({chunk_size})"
            )
        self._levels = parse_levels(headers_to_split_on)
        self.headers_to_split_on = tuple(headers_to_split_on)
        if not isinstance(strip_headers, bool):
            raise TypeError(f"strip_headers must be a bool, got {type(strip_headers).__name__}")
        self.strip_headers = strip_headers
        self._set_length(length, tokenizer)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(chunk_size={self.chunk_size}, "
            f"chunk_overlap={self.chunk_overlap}, "
            f"headers_to_split_on={self.headers_to_split_on!r}, "
            f"strip_headers={self.strip_headers}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r})"
        )

    def _core_args(self) -> list[Any]:
        """The arguments every core call takes after the text: sizes, levels, stripping."""
        return [self.chunk_size, self.chunk_overlap, list(self._levels), self.strip_headers]

    def _core_counter(self) -> tuple[str | None, Callable[[str], int] | None]:
        """``(built-in encoding, Python counter)`` for the core: at most one is set."""
        tok = self._tok
        builtin = tok.builtin if tok is not None else None
        return builtin, (tok.exact if tok is not None and builtin is None else None)

    def _batch(self, texts: Sequence[str], workers: int | None, batch: str) -> list[Any] | None:
        """Validated documents run through the core's ``batch`` function in parallel (GIL
        released), or ``None`` when that is impossible (the fallback, or a Python tokenizer,
        which needs the GIL): then the caller runs :meth:`split` one after another."""
        check_workers(workers)
        core = _backend.core()
        tok = self._tok
        if core is None or (tok is not None and tok.builtin is None):
            return None
        builtin = tok.builtin if tok is not None else None
        results: list[Any] = getattr(core, batch)(list(texts), *self._core_args(), builtin, workers)
        return results

    @staticmethod
    def _docs(texts: Sequence[str]) -> list[str]:
        return [_check_text(t, f"texts[{i}]") for i, t in enumerate(check_texts(texts))]


class MarkdownSplitter(_SectionSplitter):
    """Cut Markdown into chunks that follow its headings and never break a block needlessly.

    The document is cut into sections at the headings listed in ``headers_to_split_on``; each
    chunk's ``metadata["headers"]`` is the path of those headings above it (outermost first).
    Within a section, whole blocks (paragraphs, fenced or indented code, tables, lists, block
    quotes, front matter, other headings) are packed into chunks of at most ``chunk_size``.
    A block is only cut when it alone exceeds the budget: a list between its items, then at
    line boundaries (a table at row boundaries), a line still too long at sentence ends, then
    at whitespace, then between characters; a single character over budget becomes a chunk
    of its own.

    Chunk text is ``source[start:end]``, with one documented exception: when a table is cut,
    every continuation chunk starts with the table's header and delimiter rows plus ``"\\n"``
    (so it is still a table); that added text is in ``metadata["added_prefix"]`` and
    ``start``/``end`` cover only the rows taken from the source. The header is repeated only
    if it takes at most half the budget. ``token_count`` counts the whole chunk text.

    The block scanner is line based (CommonMark rules for headings, fences, thematic breaks,
    indented code, HTML blocks and list markers, GFM tables, simplified list extent) and
    identical in both backends; see ``rust/splitters/markdown.rs``. An unclosed fence or HTML
    block (``<!--`` without ``-->``, ...) runs to the end of the document.

    Args:
        chunk_size: the budget per chunk, in tokens (or characters with ``length="chars"``).
        chunk_overlap: each chunk may start with trailing whole blocks of the previous chunk
            in the same section, up to this size (never across sections, never inside a cut
            block). ``0 <= chunk_overlap < chunk_size``.
        headers_to_split_on: heading levels that start sections, as ``"#"`` ... ``"######"``.
        strip_headers: leave those section headings out of the chunk text (their text stays
            in ``metadata["headers"]``). A heading whose section has nothing else stays as
            the section's only chunk, so no text is ever lost.
        length: ``"tokens"`` (default) or ``"chars"`` (code points).
        tokenizer: see :mod:`ragchunk` (``"cl100k_base"`` by default); unused with
            ``length="chars"``. Special-token text is counted as plain text.

    Raises:
        TypeError, ValueError: a bad argument (the message names it).

    >>> md = "# Guide\\n\\nIntro.\\n\\n## Install\\n\\n```sh\\npip install ragchunk\\n```\\n"
    >>> for c in MarkdownSplitter(chunk_size=64).split(md):
    ...     print(c.metadata["headers"], repr(c.text))
    ['Guide'] '# Guide\\n\\nIntro.'
    ['Guide', 'Install'] '## Install\\n\\n```sh\\npip install ragchunk\\n```'
    """

    def __init__(
        self,
        chunk_size: int,
        chunk_overlap: int = 0,
        headers_to_split_on: Sequence[str] = ("#", "##", "###"),
        strip_headers: bool = False,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
    ) -> None:
        super().__init__(
            chunk_size,
            chunk_overlap,
            headers_to_split_on,
            strip_headers,
            length,
            tokenizer,
            _heading_levels,
        )

    def _raw(self, text: str) -> tuple[list[_pure.MdChunkRaw], list[list[str]]]:
        core = _backend.core()
        if core is not None:
            chunks, sections = core.markdown_split(text, *self._core_args(), *self._core_counter())
            return chunks, sections
        return _pure.split_markdown(
            text,
            self.chunk_size,
            self.chunk_overlap,
            self._levels,
            self.strip_headers,
            self._count(),
        )

    @staticmethod
    def _build(text: str, raw: list[_pure.MdChunkRaw], sections: list[list[str]]) -> list[Chunk]:
        out = []
        for start, end, size, sec, prefix in raw:
            meta: dict[str, Any] = {"headers": list(sections[sec])}
            body = text[start:end]
            if prefix is not None:
                added = text[prefix[0] : prefix[1]] + "\n"
                meta["added_prefix"] = added
                body = added + body
            out.append(Chunk(body, start, end, size, meta))
        return out

    def split(self, text: str) -> list[Chunk]:
        """Cut one Markdown document into :class:`ragchunk.Chunk` objects."""
        text = _check_text(text)
        raw, sections = self._raw(text)
        return self._build(text, raw, sections)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents; in parallel with the GIL released on the Rust
        backend with a built-in tokenizer or ``length="chars"``. Results in input order."""
        docs = self._docs(texts)
        results = self._batch(docs, workers, "markdown_split_batch")
        if results is None:
            return [self.split(t) for t in docs]
        return [self._build(t, raw, secs) for t, (raw, secs) in zip(docs, results, strict=True)]


_HTML_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _html_heading_levels(value: object) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(
            "headers_to_split_on must be a sequence of heading tags such as ('h1', 'h2'), "
            f"got {type(value).__name__}"
        )
    levels = []
    for i, h in enumerate(value):
        if not isinstance(h, str):
            raise TypeError(f"headers_to_split_on[{i}] must be a str, got {type(h).__name__}")
        if h.lower() not in _HTML_HEADINGS:
            raise ValueError(f"headers_to_split_on[{i}] must be 'h1' to 'h6', got {h!r}")
        levels.append(int(h[1]))
    return tuple(sorted(set(levels)))


_HtmlRaw = tuple[str, list[_pure.MdChunkRaw], list[list[str]]]


class HTMLSplitter(_SectionSplitter):
    """Cut HTML into chunks that follow its headings, paragraphs, list items and tables.

    The document is parsed by a real HTML5 (WHATWG) parser — html5ever in the Rust core,
    html5lib in the pure-Python fallback, both with scripting disabled — so malformed input
    (unclosed or misnested tags, stray table content) is recovered exactly as a browser
    would, and both backends see the same tree (except in a few corners where html5lib 1.1
    predates newer parsing rules: ``<select>`` content, an unclosed ``<template>``,
    ``<frameset>``, some end tags inside ``<svg>``/``<math>``; see ``ragchunk._pure.html``).
    The tree is then laid out as plain text
    (:meth:`extract_text`):

    * ``script``, ``style``, ``template`` and ``noscript`` elements are dropped with their
      content; comments are ignored;
    * inline whitespace is collapsed as a browser renders it; ``<br>`` is a line break;
    * each block (``<p>``, ``<li>``, ``<div>``, ``<blockquote>``, headings, ``<pre>`` kept
      verbatim, ...) becomes a block of text, blocks separated by a blank line;
    * a table becomes one block: its captions first, then one line per row with the cells
      separated by a tab.

    Chunks are then made as in :class:`MarkdownSplitter`: sections at the headings listed in
    ``headers_to_split_on`` (``metadata["headers"]`` is the heading path, outermost first),
    whole blocks packed into chunks of at most ``chunk_size``, a block cut only when it alone
    exceeds the budget: a table at row boundaries with its header row repeated in front of
    every continuation chunk (the first row, when it is in ``<thead>`` or made of ``<th>``
    cells, and only if it takes at most half the budget), other blocks at lines, sentences,
    whitespace, then characters.

    **Offsets.** ``start``/``end`` are code-point offsets into the laid-out text
    ``extract_text(html)``, not into the HTML source (a parsed tree has no source positions,
    and after error recovery an element's text need not be contiguous in the source).
    ``chunk.text == extract_text(html)[start:end]``, except that a continuation chunk of a cut
    table starts with the repeated header row plus ``"\\n"``, given in
    ``metadata["added_prefix"]``. No text is lost: every non-whitespace character of the
    document's text content (outside the dropped elements) is in some chunk, in order.

    Args:
        chunk_size: the budget per chunk, in tokens (or characters with ``length="chars"``).
        chunk_overlap: each chunk may start with trailing whole blocks of the previous chunk
            in the same section, up to this size. ``0 <= chunk_overlap < chunk_size``.
        headers_to_split_on: heading tags that start sections, ``"h1"`` ... ``"h6"``.
        strip_headers: leave those section headings out of the chunk text (their text stays
            in ``metadata["headers"]``); a heading alone in its section is kept.
        length: ``"tokens"`` (default) or ``"chars"`` (code points).
        tokenizer: see :mod:`ragchunk` (``"cl100k_base"`` by default); unused with
            ``length="chars"``. Special-token text is counted as plain text.

    Raises:
        TypeError, ValueError: a bad argument (the message names it).
        ImportError: on the pure-Python backend without ``html5lib``
            (``pip install 'ragchunk[fallback]'``).

    >>> html = "<h1>Guide</h1><p>Intro.</p><h2>Install</h2><pre>pip install ragchunk</pre>"
    >>> for c in HTMLSplitter(chunk_size=64).split(html):
    ...     print(c.metadata["headers"], repr(c.text))
    ['Guide'] 'Guide\\n\\nIntro.'
    ['Guide', 'Install'] 'Install\\n\\npip install ragchunk'
    """

    def __init__(
        self,
        chunk_size: int,
        chunk_overlap: int = 0,
        headers_to_split_on: Sequence[str] = ("h1", "h2", "h3"),
        strip_headers: bool = False,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
    ) -> None:
        super().__init__(
            chunk_size,
            chunk_overlap,
            headers_to_split_on,
            strip_headers,
            length,
            tokenizer,
            _html_heading_levels,
        )

    def _raw(self, html: str) -> _HtmlRaw:
        core = _backend.core()
        if core is not None:
            text, chunks, sections = core.html_split(
                html, *self._core_args(), *self._core_counter()
            )
            return text, chunks, sections
        return _pure_html.split_html(
            html,
            self.chunk_size,
            self.chunk_overlap,
            self._levels,
            self.strip_headers,
            self._count(),
        )

    def extract_text(self, html: str) -> str:
        """The plain-text layout of ``html`` that chunk offsets index into.

        >>> HTMLSplitter(chunk_size=64).extract_text("<p>a  <b>b</b></p><ul><li>c<li>d</ul>")
        'a b\\n\\nc\\n\\nd'
        """
        html = _check_text(html, "html")
        core = _backend.core()
        if core is not None:
            text: str = core.html_text(html)
            return text
        return _pure_html.layout_html(html).text

    def split(self, html: str) -> list[Chunk]:
        """Cut one HTML document into :class:`ragchunk.Chunk` objects (offsets into
        :meth:`extract_text`)."""
        html = _check_text(html, "html")
        text, raw, sections = self._raw(html)
        return MarkdownSplitter._build(text, raw, sections)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents; in parallel with the GIL released on the Rust
        backend with a built-in tokenizer or ``length="chars"``. Results in input order."""
        docs = self._docs(texts)
        results = self._batch(docs, workers, "html_split_batch")
        if results is None:
            return [self.split(t) for t in docs]
        return [MarkdownSplitter._build(t, raw, secs) for t, raw, secs in results]


# ------------------------------------------------------------------------------ title trees


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
    core = _backend.core()
    if core is not None:
        text, blocks = core.html_layout(html)
    else:
        lay = _pure_html.layout_html(html)
        text = lay.text
        blocks = [
            (b.start, b.end, b.level if b.kind == "heading" else 0, b.text) for b in lay.blocks
        ]
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
    layout = _Layout(text, [""], [-1], [])
    stack = [(0, 0)]  # (level, node)
    for blk in _pure.scan_blocks(text):
        if blk.kind == "heading":
            while stack[-1][0] >= blk.level:
                stack.pop()
            node = len(layout.titles)
            layout.titles.append(blk.text)
            layout.parents.append(stack[-1][1])
            stack.append((blk.level, node))
        layout.items.append((stack[-1][1], blk.start, blk.end))
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


class TitleTreeChunker(_Measured):
    """Structure + length chunking over a title tree (``../shared/seeds/002_*``).

    1. Each smallest-title unit (a title with the paragraphs directly under it) becomes a
       chunk whose ``metadata["title_path"]`` is its full title path ``"A > B > C"``
       (``metadata["titles"]`` the same as a list).
    2. A unit over ``max_chunk_size`` is split by paragraph, then a paragraph by sentence
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
        max_chunk_size: the budget per chunk in tokens (or characters, ``length="chars"``).
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
        max_chunk_size: int,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
        title_source: str = "auto",
    ) -> None:
        self.max_chunk_size = _positive_int(max_chunk_size, "max_chunk_size", 1)
        self._set_length(length, tokenizer)
        if title_source not in _TITLE_SOURCES:
            raise ValueError(
                "title_source must be 'auto', 'markdown', 'numbered' or 'html', "
                f"got {title_source!r}"
            )
        self.title_source = title_source

    def __repr__(self) -> str:
        return (
            f"TitleTreeChunker(max_chunk_size={self.max_chunk_size}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r}, title_source={self.title_source!r})"
        )

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

    def _run(self, layout: _Layout) -> list[Chunk]:
        core = _backend.core()
        if core is not None:
            tok = self._tok
            builtin = tok.builtin if tok is not None else None
            counter = tok.exact if tok is not None and builtin is None else None
            raw = core.title_tree_split(
                layout.text,
                layout.parents,
                layout.items,
                self.max_chunk_size,
                builtin,
                counter,
            )
        else:
            raw = _pure.split_title_tree(
                layout.text, layout.parents, layout.items, self.max_chunk_size, self._count()
            )
        return self._chunks(layout, raw)

    def split(self, text: str) -> list[Chunk]:
        """Chunk a document whose titles are Markdown headings or numbered title lines."""
        return self._run(self._layout_text(_check_text(text)))

    def split_tree(self, tree: object) -> list[Chunk]:
        """Chunk a ``{"title": ..., "content": [...]}`` tree; offsets index
        :meth:`render` ``(tree)``.

        Raises:
            TypeError: a node, title or content of the wrong type (the message gives its
                path, e.g. ``tree["content"][2]["title"]``).
            ValueError: a node without a title, a cycle, a lone surrogate.
        """
        layout = _layout_tree(tree)
        _check_text(layout.text, "tree")
        return self._run(layout)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents; in parallel with the GIL released on the Rust
        backend with a built-in tokenizer or ``length="chars"``. Results in input order."""
        check_workers(workers)
        texts = check_texts(texts)
        layouts = [self._layout_text(_check_text(t, f"texts[{i}]")) for i, t in enumerate(texts)]
        core = _backend.core()
        tok = self._tok
        if core is None or (tok is not None and tok.builtin is None):
            return [self._run(lay) for lay in layouts]
        results = core.title_tree_split_batch(
            [(lay.text, lay.parents, lay.items) for lay in layouts],
            self.max_chunk_size,
            tok.builtin if tok is not None else None,
            workers,
        )
        return [self._chunks(lay, raw) for lay, raw in zip(layouts, results, strict=True)]


# ------------------------------------------------------------------------------------ JSON


_Where = tuple[object, "str | int"] | None  # (parent's _Where, key); None is the root


def _where(at: _Where) -> str:
    """``data['a'][0]...`` for a position, built only when an error is reported."""
    keys: list[str | int] = []
    while at is not None:
        at, key = at  # type: ignore[assignment]
        keys.append(key)
    return "data" + "".join(f"[{k!r}]" for k in reversed(keys))


def _check_json_value(data: object) -> None:
    """Reject what cannot be chunk JSON: non-str dict keys, non-JSON types, NaN/Infinity,
    cycles. Iterative, so any depth is checked (serialization still has Python's limit)."""
    stack: list[tuple[object, _Where, bool]] = [(data, None, False)]
    on_path: set[int] = set()
    while stack:
        value, at, leaving = stack.pop()
        if leaving:
            on_path.discard(id(value))
        elif isinstance(value, (dict, list, tuple)):
            if id(value) in on_path:
                raise ValueError(f"{_where(at)}: cycle in the JSON data")
            on_path.add(id(value))
            stack.append((value, at, True))
            if isinstance(value, dict):
                for k, v in value.items():
                    if not isinstance(k, str):
                        raise TypeError(f"{_where(at)}: keys must be str, got {type(k).__name__}")
                    if not k.isascii():
                        try:
                            k.encode("utf-8")
                        except UnicodeEncodeError:
                            _check_text(k, f"{_where(at)} key")
                    stack.append((v, (at, k), False))
            else:
                for i, v in enumerate(value):
                    stack.append((v, (at, i), False))
        elif isinstance(value, str):
            if not value.isascii():  # lone surrogates: the message names the position
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    _check_text(value, _where(at))
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"{_where(at)}: {value!r} is not valid JSON")
        elif value is not None and not isinstance(value, (bool, int)):
            raise TypeError(
                f"{_where(at)} must be dict, list, str, int, float, bool or None, "
                f"got {type(value).__name__}"
            )


class JSONSplitter(_Measured):
    """Cut JSON into chunks that are each a valid JSON object keeping every value at its
    full path from the root (``{"a": {"b": {"c": 1}}}``), like LangChain's
    ``RecursiveJsonSplitter``.

    The tree is walked depth first, in document order. Each entry (a key's value) joins the
    open chunk while the chunk's serialization stays within ``max_chunk_size``. An entry that
    does not fit closes the open chunk and starts a fresh one (whole if it fits alone); a
    non-empty object or array too big on its own is recursed into. While the open chunk is
    smaller than ``min_chunk_size`` a too-big container is recursed into *without* closing it
    (tighter packing, more subtrees cut). A scalar, empty object or empty array too big on
    its own, with its path, is a chunk of its own over budget: nothing is ever cut or lost.

    Arrays are recursed into like objects keyed by index: an array placed whole stays an
    array, but one that had to be cut appears in chunk text as an object with keys ``"0"``,
    ``"1"``... (as LangChain's ``convert_lists=True``); in ``metadata["paths"]`` an index is
    an ``int``. A scalar or empty root is one chunk.

    Chunks are **re-serialized** JSON, never slices of the input, so ``start``/``end`` are
    not character offsets: they index the leaves (scalars, empty objects/arrays) of the
    document in depth-first order, and chunk ``i`` holds leaves ``[start, end)`` -- the
    chunks partition ``range(number_of_leaves)`` in order. ``metadata["paths"]`` lists the
    paths (lists of keys and indices) of the entries placed in the chunk: leaves, or whole
    subtrees that fitted. ``token_count`` is the size of ``text``. Serialization is
    ``json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))``.

    Both backends run the same Python tree walk and serialization (the structure lives in
    Python objects anyway, and one ``json.dumps`` makes the bytes identical by
    construction); the Rust core does the counting for the built-in tokenizers.

    Args:
        max_chunk_size: the budget per chunk, in tokens (or characters with
            ``length="chars"``).
        min_chunk_size: see above; ``None`` means 0 (always close before recursing).
            ``0 <= min_chunk_size <= max_chunk_size``.
        length: ``"tokens"`` (default) or ``"chars"`` (code points).
        tokenizer: see :mod:`ragchunk` (``"cl100k_base"`` by default); unused with
            ``length="chars"``. Special-token text is counted as plain text.

    Raises:
        TypeError, ValueError: a bad argument (the message names it); :meth:`split` raises
            ``ValueError`` with ``json.loads``'s line, column and position on invalid JSON.

    >>> s = JSONSplitter(max_chunk_size=16, length="chars")
    >>> [c.text for c in s.split_json({"a": {"b": 1, "c": 2}, "d": [3, 4]})]
    ['{"a": {"b": 1}}', '{"a": {"c": 2}}', '{"d": [3, 4]}']
    """

    def __init__(
        self,
        max_chunk_size: int = 512,
        min_chunk_size: int | None = None,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
    ) -> None:
        self.max_chunk_size = _positive_int(max_chunk_size, "max_chunk_size", 1)
        if min_chunk_size is not None:
            _positive_int(min_chunk_size, "min_chunk_size", 0)
            if min_chunk_size > self.max_chunk_size:
                raise ValueError(
                    f"min_chunk_size ({min_chunk_size}) must be <= max_chunk_size "
                    f"({max_chunk_size})"
                )
        self.min_chunk_size = min_chunk_size
        self._set_length(length, tokenizer)

    def __repr__(self) -> str:
        return (
            f"JSONSplitter(max_chunk_size={self.max_chunk_size}, "
            f"min_chunk_size={self.min_chunk_size}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r})"
        )

    def _counter(self) -> Callable[[str], int]:
        tok = self._tok
        core = _backend.core()
        if tok is not None and tok.builtin is not None and core is not None:
            from ._naive import _surrogate_safe

            return _surrogate_safe(core.count_ordinary, tok.builtin)
        count = _pure_counter(tok)
        if tok is None or tok.builtin is None:
            return count
        from ._naive import _fix_surrogates

        def safe(text: str) -> int:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                text = _fix_surrogates(text)
            return count(text)

        return safe

    def split_json(self, data: Any) -> list[Chunk]:
        """Cut a parsed JSON value (dict, list, str, int, float, bool or None; tuples are
        arrays) into :class:`ragchunk.Chunk` objects."""
        _check_json_value(data)
        tok = self._tok
        core = _backend.core()
        resume: _pure.Resume | None = None
        if tok is not None and tok.builtin is not None and core is not None:
            # JSON data has no lone surrogates (checked above): count the text as is.
            enc, resume_core = tok.builtin, core.count_ordinary_resume

            def resume(text: str, start: int, tail: int, stop: int | None) -> tuple[int, int, int]:
                found: tuple[int, int, int] = resume_core(text, enc, start, tail, stop)
                return found

        raw = _pure.split_json(
            data, self.max_chunk_size, self.min_chunk_size or 0, self._counter(), resume
        )
        return [
            Chunk(text, first, end, size, {"paths": paths}) for text, first, end, size, paths in raw
        ]

    def split(self, text: str) -> list[Chunk]:
        """Parse a JSON document (``json.loads``) and cut it (see :meth:`split_json`)."""
        text = _check_text(text)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"text is not valid JSON: {exc}") from None
        return self.split_json(data)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many JSON documents, one after another (``workers`` is
        validated but unused: the tree walk runs in Python). Results in input order."""
        check_workers(workers)
        return [self.split(_check_text(t, f"texts[{i}]")) for i, t in enumerate(check_texts(texts))]
