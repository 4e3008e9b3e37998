"""MarkdownSplitter: Markdown cut by its structure (headings, blocks), with heading paths."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._pure.splitters import markdown as _pure
from ..core import dispatch
from ..core.checks import check_parsed_text
from ..core.chunk import Chunk, MdChunkRaw
from ._common import MERGE_DEFAULT, SectionSplitter, section_chunks

__all__ = ["MarkdownSplitter"]


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


class MarkdownSplitter(SectionSplitter):
    """Cut Markdown into chunks that follow its headings and never break a block needlessly.

    The document is cut into sections at the headings listed in ``headers_to_split_on``; each
    chunk's ``metadata["headers"]`` is the path of those headings above it (outermost first).
    Small adjacent sections of one parent then share a chunk while their text fits
    (``merge_sections``, on by default): a parent's own blocks with its first children,
    consecutive siblings, never across a heading of a higher level than the parent's
    children. Such a chunk's ``metadata["headers"]`` is the common path of its sections,
    ``metadata["sections"]`` lists their own paths, and their headings stay in its text.
    Within a section too big for one chunk,
    whole blocks (paragraphs, fenced or indented code, tables, lists, block
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
            block; a merged chunk holds whole sections and carries none).
            ``0 <= chunk_overlap < chunk_size``.
        headers_to_split_on: heading levels that start sections, as ``"#"`` ... ``"######"``.
        strip_headers: leave those section headings out of the chunk text (their text stays
            in ``metadata["headers"]``). A heading whose section has nothing else stays as
            the section's only chunk, so no text is ever lost. In a merged chunk only a
            leading heading that ends its ``headers`` is left out; the merged sections'
            headings are not in ``headers`` and stay in the text.
        length: ``"tokens"`` (default) or ``"chars"`` (code points).
        tokenizer: see :mod:`ragchunk` (``"cl100k_base"`` by default); unused with
            ``length="chars"``. Special-token text is counted as plain text.
        merge_sections: merge small adjacent sections of one parent into one chunk while it
            fits (default ``True``); ``False`` starts a chunk at every section heading.

    Raises:
        TypeError, ValueError: a bad argument (the message names it).

    >>> md = "# Guide\\n\\nIntro.\\n\\n## Install\\n\\n```sh\\npip install ragchunk\\n```\\n"
    >>> (chunk,) = MarkdownSplitter(chunk_size=64).split(md)
    >>> chunk.metadata
    {'headers': ['Guide'], 'sections': [['Guide'], ['Guide', 'Install']]}
    >>> chunk.text == md.strip()
    True
    >>> for c in MarkdownSplitter(chunk_size=64, merge_sections=False).split(md):
    ...     print(c.metadata, repr(c.text))
    {'headers': ['Guide']} '# Guide\\n\\nIntro.'
    {'headers': ['Guide', 'Install']} '## Install\\n\\n```sh\\npip install ragchunk\\n```'
    """

    _core_class = "MarkdownSplitter"

    def __init__(
        self,
        chunk_size: int,
        chunk_overlap: int = 0,
        headers_to_split_on: Sequence[str] = ("#", "##", "###"),
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
            _heading_levels,
            merge_sections,
        )

    def _raw(self, text: str) -> tuple[list[MdChunkRaw], list[list[str]], list[list[list[str]]]]:
        return dispatch.run(
            lambda core: tuple(self._core(core).split(text)),
            lambda: _pure.split_markdown(
                text,
                self.chunk_size,
                self.chunk_overlap,
                self._levels,
                self.strip_headers,
                self._count(),
                self.merge_sections,
            ),
        )

    def split(self, text: str) -> list[Chunk]:
        """Cut one Markdown document into :class:`ragchunk.Chunk` objects."""
        text = check_parsed_text(text)
        raw, sections, merged = self._raw(text)
        return section_chunks(text, raw, sections, merged)

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents, in input order; on the Rust backend in parallel
        with the GIL released (a built-in tokenizer or ``length="chars"``), or one after
        another inside the core for a Python tokenizer."""
        return self._split_batch(texts, workers, lambda doc, result: section_chunks(doc, *result))
