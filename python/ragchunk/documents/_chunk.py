""":func:`chunk_document`: any ragchunk chunker over a parsed document, chunks that cite it."""

from __future__ import annotations

import bisect
from typing import Any

from ..core.chunk import Chunk
from ._model import Box, Document, Section, Span

__all__ = ["chunk_document", "heading_paths"]


def heading_paths(sections: list[Section]) -> list[list[str]]:
    """The heading path (outermost first) each section sits under; a title's path ends with
    itself.

    >>> heading_paths([Section("title", "A", level=1), Section("title", "B", level=2),
    ...                Section("text", "x"), Section("title", "C", level=1)])
    [['A'], ['A', 'B'], ['A', 'B'], ['C']]
    """
    stack: list[tuple[int, str]] = []
    out = []
    for s in sections:
        if s.kind == "title":
            level = s.level or 1
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, s.text))
        out.append([t for _, t in stack])
    return out


def _boxes_in(sec: Section, lo: int, hi: int, markdown: bool) -> list[Box]:
    starts = sec.metadata.get("box_offsets")
    if markdown or not starts or len(starts) != len(sec.boxes):
        return list(sec.boxes)
    starts = list(starts)
    first = max(0, bisect.bisect_right(starts, lo) - 1)
    last = max(first, bisect.bisect_left(starts, hi) - 1)
    return list(sec.boxes[first : last + 1])


def chunk_document(doc: Document, chunker: Any, *, markdown: bool | None = None) -> list[Chunk]:
    """Chunk a parsed document with any ragchunk chunker; every chunk cites where it came from.

    The chunker cuts :attr:`Document.text` (or :meth:`Document.markdown`), so chunk offsets
    index that view. Each chunk's metadata gains (besides the chunker's own keys):

    * ``"pages"``: the sorted 1-based pages its sections are on (``[]`` without pages);
    * ``"bboxes"``: ``[{"page": p, "bbox": [x0, top, x1, bottom]}, ...]``, the boxes of the
      parts of sections it holds (``[]`` without layout);
    * ``"headings"``: the heading path (outermost first) of its first section;
    * ``"sections"``: the indexes into ``doc.sections`` of the sections it overlaps.

    Args:
        doc: a :class:`~ragchunk.documents.Document`.
        chunker: any ragchunk chunker (an object whose ``split(text)`` returns
            :class:`ragchunk.Chunk` objects with offsets into ``text``).
        markdown: cut the Markdown view instead of the plain text; by default only for
            :class:`ragchunk.MarkdownSplitter`, which reads Markdown structure.

    Raises:
        TypeError: ``doc`` is not a Document, or ``chunker`` has no ``split`` method or
            returns something other than chunks.

    >>> from ragchunk import RecursiveSplitter
    >>> from ragchunk.documents import Document, Section
    >>> doc = Document([
    ...     Section("title", "Setup", level=1, boxes=[(1, 72, 60, 300, 80)]),
    ...     Section("text", "Install it.", boxes=[(1, 72, 90, 500, 104)]),
    ...     Section("title", "Use", level=1, boxes=[(2, 72, 60, 200, 80)]),
    ...     Section("text", "Call it.", boxes=[(2, 72, 90, 500, 104)]),
    ... ])
    >>> for c in chunk_document(doc, RecursiveSplitter(chunk_size=6)):
    ...     print(repr(c.text), c.metadata["pages"], c.metadata["headings"])
    'Setup\\n\\nInstall it.' [1] ['Setup']
    'Use\\n\\nCall it.' [2] ['Use']
    """
    if not isinstance(doc, Document):
        raise TypeError(f"doc must be a ragchunk.documents.Document, got {type(doc).__name__}")
    split = getattr(chunker, "split", None)
    if not callable(split):
        raise TypeError(
            f"chunker must be a ragchunk chunker with a split(text) method, got "
            f"{type(chunker).__name__}"
        )
    if markdown is None:
        from ..splitters.markdown import MarkdownSplitter

        markdown = isinstance(chunker, MarkdownSplitter)
    text = doc.markdown() if markdown else doc.text
    spans = doc.spans(markdown=markdown)
    starts = [s.start for s in spans]
    paths = heading_paths(doc.sections)
    out = []
    for i, c in enumerate(split(text)):
        if not isinstance(c, Chunk):
            raise TypeError(f"chunker.split returned {type(c).__name__} at [{i}], not a Chunk")
        lo = max(0, bisect.bisect_right(starts, c.start) - 1)
        hit: list[Span] = []
        for s in spans[lo:]:
            if s.start >= c.end and hit:
                break
            if s.start < c.end and s.end > c.start:
                hit.append(s)
            elif s.start >= c.end:
                break
        pages: set[int] = set()
        boxes: list[dict[str, Any]] = []
        for s in hit:
            sec = doc.sections[s.section_index]
            if sec.page is not None and not sec.boxes:
                pages.add(sec.page)
            for b in _boxes_in(sec, c.start - s.start, c.end - s.start, markdown):
                pages.add(b.page)
                boxes.append({"page": b.page, "bbox": list(b.bbox)})
        meta = dict(c.metadata)
        meta["pages"] = sorted(pages)
        meta["bboxes"] = boxes
        meta["headings"] = list(paths[hit[0].section_index]) if hit else []
        meta["sections"] = [s.section_index for s in hit]
        out.append(Chunk(c.text, c.start, c.end, c.token_count, meta))
    return out
