"""HTMLSplitter: HTML laid out as a browser would, cut by its structure, with heading paths."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._pure.splitters import html as _pure_html
from ..core import dispatch
from ..core.checks import check_parsed_text
from ..core.chunk import Chunk, MdChunkRaw
from ._common import MERGE_DEFAULT, SectionSplitter, section_chunks

__all__ = ["HTMLSplitter"]

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


_HtmlRaw = tuple[str, list[MdChunkRaw], list[list[str]], list[list[list[str]]]]


class HTMLSplitter(SectionSplitter):
    """Cut HTML into chunks that follow its headings, paragraphs, list items and tables.

    The document is parsed by a real HTML5 (WHATWG) parser — html5ever in the Rust core,
    html5lib in the pure-Python fallback, both with scripting disabled — so malformed input
    (unclosed or misnested tags, stray table content) is recovered exactly as a browser
    would, and both backends see the same tree (except in a few corners where html5lib 1.1
    predates newer parsing rules: ``<select>`` content, an unclosed ``<template>``,
    ``<frameset>``, some end tags inside ``<svg>``/``<math>``; see
    ``ragchunk._pure.splitters.html``). The tree is then laid out as plain text
    (:meth:`extract_text`):

    * ``script``, ``style``, ``template`` and ``noscript`` elements are dropped with their
      content; comments are ignored;
    * inline whitespace is collapsed as a browser renders it; ``<br>`` is a line break;
    * each block (``<p>``, ``<li>``, ``<div>``, ``<blockquote>``, headings, ``<pre>`` kept
      verbatim, ...) becomes a block of text, blocks separated by a blank line;
    * a table becomes one block: its captions first, then one line per row with the cells
      separated by a tab;
    * elements nested more than 512 levels deep (``MAX_DEPTH`` of
      ``ragchunk._pure.splitters.html``, Blink's limit) are laid out as text: their tags are
      removed before parsing, their text is kept (an HTML parser's time grows with the depth
      of the open elements, so unbounded nesting would take quadratic time).

    Chunks are then made as in :class:`MarkdownSplitter`: sections at the headings listed in
    ``headers_to_split_on`` (``metadata["headers"]`` is the heading path, outermost first),
    small adjacent sections of one parent merged while they fit (``merge_sections``;
    ``metadata["sections"]`` lists the merged sections' paths, ``headers`` is their common
    path), whole blocks packed into chunks of at most ``chunk_size``, a block cut only when it alone
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
            in ``metadata["headers"]``); a heading alone in its section is kept, and so are
            the merged sections' headings in a merged chunk (only a leading heading that
            ends its ``headers`` is left out).
        length: ``"tokens"`` (default) or ``"chars"`` (code points).
        tokenizer: see :mod:`ragchunk` (``"cl100k_base"`` by default); unused with
            ``length="chars"``. Special-token text is counted as plain text.
        merge_sections: merge small adjacent sections of one parent into one chunk while it
            fits (default ``True``); ``False`` starts a chunk at every section heading.

    Raises:
        TypeError, ValueError: a bad argument (the message names it).
        ImportError: on the pure-Python backend without ``html5lib``
            (``pip install 'ragchunk[fallback]'``).

    >>> html = "<h1>Guide</h1><p>Intro.</p><h2>Install</h2><pre>pip install ragchunk</pre>"
    >>> for c in HTMLSplitter(chunk_size=64, merge_sections=False).split(html):
    ...     print(c.metadata["headers"], repr(c.text))
    ['Guide'] 'Guide\\n\\nIntro.'
    ['Guide', 'Install'] 'Install\\n\\npip install ragchunk'
    >>> (merged,) = HTMLSplitter(chunk_size=64).split(html)
    >>> merged.metadata
    {'headers': ['Guide'], 'sections': [['Guide'], ['Guide', 'Install']]}
    """

    _core_class = "HTMLSplitter"

    def __init__(
        self,
        chunk_size: int,
        chunk_overlap: int = 0,
        headers_to_split_on: Sequence[str] = ("h1", "h2", "h3"),
        strip_headers: bool = False,
        length: str = "tokens",
        tokenizer: Any = "cl100k_base",
        merge_sections: bool = MERGE_DEFAULT,
    ) -> None:
        super().__init__(
            chunk_size,
            chunk_overlap,
            headers_to_split_on,
            strip_headers,
            length,
            tokenizer,
            _html_heading_levels,
            merge_sections,
        )

    def _raw(self, html: str) -> _HtmlRaw:
        return dispatch.run(
            lambda core: tuple(self._core(core).split(html)),
            lambda: _pure_html.split_html(
                html,
                self.chunk_size,
                self.chunk_overlap,
                self._levels,
                self.strip_headers,
                self._count(),
                self.merge_sections,
            ),
        )

    def extract_text(self, html: str) -> str:
        """The plain-text layout of ``html`` that chunk offsets index into.

        >>> HTMLSplitter(chunk_size=64).extract_text("<p>a  <b>b</b></p><ul><li>c<li>d</ul>")
        'a b\\n\\nc\\n\\nd'
        """
        html = check_parsed_text(html, "html")
        return dispatch.run(
            lambda core: str(core.html_text(html)), lambda: _pure_html.layout_html(html).text
        )

    def split(self, html: str) -> list[Chunk]:
        """Cut one HTML document into :class:`ragchunk.Chunk` objects (offsets into
        :meth:`extract_text`)."""
        html = check_parsed_text(html, "html")
        text, raw, sections, merged = self._raw(html)
        return section_chunks(text, raw, sections, merged)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents, in input order; on the Rust backend in parallel
        with the GIL released (a built-in tokenizer or ``length="chars"``), or one after
        another inside the core for a Python tokenizer."""
        return self._split_batch(texts, workers, lambda _doc, result: section_chunks(*result))
