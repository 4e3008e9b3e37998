"""The pages panel of a parsed document: each page as an inline PNG, with the boxes of its
sections and of every column's chunks, as the page's script draws them over the images.

Boxes stay in PDF points from the page's top-left corner (the documents model's unit); the
script places them as percentages of the page, so they scale with the image. Only the first
``max_pages`` pages are rendered to images (at ``page_width`` pixels wide): later pages are
drawn as blank sheets of the right size that still carry their boxes, so a 300-page PDF
gives a page of a few megabytes, not hundreds.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

from ..core.chunk import Chunk
from ..documents import Document, chunk_document
from ._model import Column, Utf16

__all__ = ["MAX_PAGES", "PAGE_WIDTH", "check_pages", "locate_columns", "pages_data"]

#: Pages rendered to images by default; the later ones are blank sheets with their boxes.
MAX_PAGES = 30
#: The width, in pixels, pages are rendered at by default (about 1.35 pixels per point on A4).
PAGE_WIDTH = 800


class _Given:
    """A chunker that gives chunks already cut (so :func:`chunk_document` can cite them)."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self._chunks = chunks

    def split(self, text: str) -> list[Chunk]:
        return self._chunks


def locate_columns(doc: Document, columns: list[Column]) -> None:
    """Give every chunk of ``columns`` (cut from ``doc.text``) the pages, boxes, heading path
    and section indexes :func:`~ragchunk.documents.chunk_document` gives, in place.

    >>> from ragchunk.documents import Section
    >>> doc = Document([Section("text", "Hello.", boxes=[(1, 10, 20, 90, 30)])])
    >>> cols = [Column("c", [Chunk("Hello.", 0, 6, 2)])]
    >>> locate_columns(doc, cols)
    >>> cols[0].chunks[0].metadata["bboxes"]
    [{'page': 1, 'bbox': [10.0, 20.0, 90.0, 30.0]}]
    """
    for col in columns:
        col.chunks = chunk_document(doc, _Given(col.chunks), markdown=False)


def check_pages(max_pages: object, page_width: object) -> tuple[int, int]:
    """``max_pages`` and ``page_width``, checked.

    >>> check_pages(0, 400)
    (0, 400)
    >>> check_pages(-1, 400)
    Traceback (most recent call last):
    ...
    ValueError: max_pages must be an int >= 0, got -1
    """
    if isinstance(max_pages, bool) or not isinstance(max_pages, int) or max_pages < 0:
        raise ValueError(f"max_pages must be an int >= 0, got {max_pages!r}")
    if (
        isinstance(page_width, bool)
        or not isinstance(page_width, int)
        or not 16 <= page_width <= 4000
    ):
        raise ValueError(f"page_width must be an int from 16 to 4000 pixels, got {page_width!r}")
    return max_pages, page_width


def _png(doc: Document, number: int, scale: float) -> str:
    img = doc.page_image(number, scale=scale)
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _box_ranges(doc: Document, to16: Utf16) -> dict[int, list[tuple[int, int] | None]]:
    """Per section index, the UTF-16 range of ``doc.text`` each of its boxes holds (None for
    a section that is not in the text: headers, footers, empty figures)."""
    out: dict[int, list[tuple[int, int] | None]] = {}
    for span in doc.spans():
        sec = doc.sections[span.section_index]
        n = len(sec.boxes)
        starts = list(sec.metadata.get("box_offsets") or [])
        if len(starts) != n:
            starts = [0] + [span.end - span.start] * (n - 1)
        ends = [*starts[1:], span.end - span.start]
        out[span.section_index] = [
            (to16(span.start + s), to16(span.start + max(s, e)))
            for s, e in zip(starts, ends, strict=True)
        ]
    return out


def pages_data(
    doc: Document,
    columns: list[Column],
    to16: Utf16,
    *,
    max_pages: int = MAX_PAGES,
    page_width: int = PAGE_WIDTH,
) -> dict[str, Any] | None:
    """What the script draws in the pages panel, or None for a document without pages.

    ``pages`` is ``[number, width, height, image]`` per page (``image`` a ``data:`` URI or
    None past ``max_pages``); ``boxes`` is ``[page, x0, top, x1, bottom, section, kind,
    start, end]`` per section box, ``start``/``end`` the UTF-16 range of the text it holds
    (None outside the body text); ``columns`` lists, per column, ``[chunk, box]`` pairs:
    the chunks drawn in each section box.

    >>> from ragchunk.documents import Page, Section
    >>> doc = Document([Section("text", "Hi.", boxes=[(1, 10, 20, 90, 30)])],
    ...                [Page(1, 200.0, 100.0)])
    >>> cols = [Column("c", [Chunk("Hi.", 0, 3, 1)])]
    >>> locate_columns(doc, cols)
    >>> d = pages_data(doc, cols, Utf16(doc.text), max_pages=0)
    >>> d["pages"], d["boxes"], d["columns"]
    ([[1, 200.0, 100.0, None]], [[1, 10.0, 20.0, 90.0, 30.0, 0, 'text', 0, 3]], [[[0, 0]]])
    """
    if not doc.pages:
        return None
    ranges = _box_ranges(doc, to16)
    boxes: list[list[Any]] = []
    where: dict[tuple[int, int, tuple[float, ...]], int] = {}
    for si, sec in enumerate(doc.sections):
        for bi, b in enumerate(sec.boxes):
            r = ranges.get(si)
            held = r[bi] if r is not None else None
            s, e = held if held is not None else (None, None)
            where.setdefault((si, b.page, b.bbox), len(boxes))
            boxes.append([b.page, b.x0, b.top, b.x1, b.bottom, si, sec.kind, s, e])
    per_column = []
    for col in columns:
        pairs: list[list[int]] = []
        for k, c in enumerate(col.chunks):
            sections: Sequence[int] = c.metadata.get("sections") or []
            for cb in c.metadata.get("bboxes") or []:
                key = tuple(float(v) for v in cb["bbox"])
                for si in sections:
                    found = where.get((si, cb["page"], key))
                    if found is not None:
                        pairs.append([k, found])
                        break
        per_column.append(pairs)
    pages = []
    for n, p in enumerate(doc.pages):
        # PDFium rounds the bitmap size up: half a pixel less keeps it at page_width.
        scale = (page_width - 0.5) / p.width
        image = _png(doc, p.number, scale) if n < max_pages else None
        pages.append([p.number, p.width, p.height, image])
    return {"pages": pages, "boxes": boxes, "columns": per_column, "max_pages": max_pages}
