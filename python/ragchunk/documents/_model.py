"""The parsed-document model: :class:`Document`, :class:`Section`, :class:`Page`, :class:`Box`.

Every parser (DOCX, spreadsheets, HTML, Markdown, plain text, code, JSON, PDF) produces the
same model, so everything downstream (the text views, :func:`~ragchunk.documents.chunk_document`,
the RAGFlow adapters) is written once. Positions follow RAGFlow's position tags: pages are
1-based, boxes are ``(x0, top, x1, bottom)`` in PDF points from the page's top-left corner.
Formats without pages (DOCX, HTML, ...) have ``page=None`` and no boxes.
"""

from __future__ import annotations

import bisect
import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = ["KINDS", "Box", "Document", "Location", "Page", "Section", "Span"]

#: The section kinds, as RAGFlow's layout types and the documents oracle name them.
KINDS = frozenset(
    ("title", "text", "list", "table", "code", "figure", "caption", "header", "footer")
)

#: Kinds kept out of the body text (:attr:`Document.text`): running page furniture.
_FURNITURE = frozenset(("header", "footer"))


class Box(NamedTuple):
    """Where part of a section is drawn: a 1-based ``page`` and ``(x0, top, x1, bottom)`` in
    PDF points from the page's top-left corner.

    >>> b = Box(2, 72.0, 90.5, 523.3, 104.0)
    >>> b.page, b.bbox
    (2, (72.0, 90.5, 523.3, 104.0))
    """

    page: int
    x0: float
    top: float
    x1: float
    bottom: float

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        """``(x0, top, x1, bottom)``."""
        return (self.x0, self.top, self.x1, self.bottom)

    def position_tag(self) -> str:
        """RAGFlow's position tag for this box, ``@@page\\tx0\\tx1\\ttop\\tbottom##``.

        >>> Box(1, 10.0, 20.0, 30.0, 40.0).position_tag()
        '@@1\\t10.0\\t30.0\\t20.0\\t40.0##'
        """
        return f"@@{self.page}\t{self.x0:.1f}\t{self.x1:.1f}\t{self.top:.1f}\t{self.bottom:.1f}##"


@dataclass(frozen=True)
class Section:
    """One block of a document, in reading order.

    Attributes:
        kind: one of :data:`KINDS`: ``"title"``, ``"text"``, ``"list"`` (one list item),
            ``"table"``, ``"code"``, ``"figure"``, ``"caption"``, ``"header"``, ``"footer"``.
        text: the plain text (a table: its rows joined by ``"\\n"``, cells by ``" | "``; a
            figure: ``""`` or its alternative text).
        level: the heading level (1 = outermost) for titles, else None.
        page: the 1-based page the section starts on; None for formats without pages. Given
            ``boxes`` and no ``page``, it is the first box's page.
        boxes: one :class:`Box` per page (or column) the section is drawn in; empty for
            formats without layout.
        rows: a table's cells, row by row (a merged cell appears once); None for other kinds.
        metadata: format-specific facts, e.g. ``{"language": "python"}`` for code, the sheet
            name of a spreadsheet table, a figure's alternative text.

    >>> s = Section("title", "Install", level=2)
    >>> s.kind, s.level, s.page, s.bbox
    ('title', 2, None, None)
    >>> Section("table", "a | b", rows=[["a", "b"]]).rows
    [['a', 'b']]
    """

    kind: str
    text: str
    level: int | None = None
    page: int | None = None
    boxes: tuple[Box, ...] = ()
    rows: list[list[str]] | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {sorted(KINDS)}, got {self.kind!r}")
        if not isinstance(self.text, str):
            raise TypeError(f"text must be a str, got {type(self.text).__name__}")
        if self.level is not None and (self.kind != "title" or self.level < 1):
            raise ValueError(f"level must be None, or >= 1 for a title, got {self.level!r}")
        boxes = tuple(
            Box(int(b[0]), float(b[1]), float(b[2]), float(b[3]), float(b[4])) for b in self.boxes
        )
        object.__setattr__(self, "boxes", boxes)
        if self.page is None and boxes:
            object.__setattr__(self, "page", boxes[0].page)

    @property
    def bbox(self) -> tuple[float, float, float, float] | None:
        """The first box, ``(x0, top, x1, bottom)``, or None without layout."""
        return self.boxes[0].bbox if self.boxes else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the documents scorer's section shape).

        >>> Section("text", "Hi.").to_dict()
        {'kind': 'text', 'text': 'Hi.', 'level': None, 'page': None, 'bbox': None, 'boxes': []}
        """
        out: dict[str, Any] = {
            "kind": self.kind,
            "text": self.text,
            "level": self.level,
            "page": self.page,
            "bbox": list(self.bbox) if self.bbox else None,
            "boxes": [{"page": b.page, "bbox": list(b.bbox)} for b in self.boxes],
        }
        if self.rows is not None:
            out["rows"] = [list(r) for r in self.rows]
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        return out


@dataclass(frozen=True)
class Page:
    """One page of a paged document (PDF).

    >>> p = Page(1, 595.3, 841.9, has_text_layer=False)
    >>> p.needs_ocr
    True
    """

    number: int
    width: float
    height: float
    has_text_layer: bool = True

    @property
    def needs_ocr(self) -> bool:
        """True when the page has no text layer (a scan): its text needs OCR."""
        return not self.has_text_layer


class Span(NamedTuple):
    """Where a section's text sits in a rendered view: ``view[start:end]`` is the rendering
    of ``doc.sections[section_index]``.

    >>> doc = Document([Section("title", "A", level=1), Section("text", "b")])
    >>> [doc.markdown()[s.start : s.end] for s in doc.spans(markdown=True)]
    ['# A', 'b']
    """

    start: int
    end: int
    section_index: int


class Location(NamedTuple):
    """What a character of a rendered view belongs to (:meth:`Document.locate`): the
    section's index and the section, its page and the box holding the character.

    >>> loc = Document([Section("text", "x", boxes=[(3, 1, 2, 3, 4)])]).locate(0)
    >>> loc.section_index, loc.page, loc.box.bbox
    (0, 3, (1.0, 2.0, 3.0, 4.0))
    """

    section_index: int
    section: Section
    page: int | None
    box: Box | None


def table_text(rows: Sequence[Sequence[str]]) -> str:
    """A table's plain text: rows joined by ``"\\n"``, cells by ``" | "``."""
    return "\n".join(" | ".join(r) for r in rows)


def _md_cell(cell: str) -> str:
    return " ".join(cell.replace("|", "\\|").split())


def _markdown_of(s: Section) -> str:
    if s.kind == "title":
        return "#" * min(s.level or 1, 6) + " " + " ".join(s.text.split())
    if s.kind == "list":
        return "- " + s.text.replace("\n", "\n  ")
    if s.kind == "code":
        lang = str(s.metadata.get("language", ""))
        fence = "````" if "```" in s.text else "```"
        return f"{fence}{lang}\n{s.text}\n{fence}"
    if s.kind == "table" and s.rows:
        width = max(len(r) for r in s.rows)
        rows = [[_md_cell(c) for c in r] + [""] * (width - len(r)) for r in s.rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        return "\n".join(lines)
    if s.kind == "caption":
        return f"*{s.text}*"
    return s.text


def _html_table(rows: Sequence[Sequence[str]]) -> str:
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c, quote=False)}</td>" for c in r) + "</tr>"
        for r in rows
    )
    return f"<table>{body}</table>"


class Document:
    """A parsed document: its sections in reading order, its pages and its metadata.

    Made by :func:`ragchunk.documents.parse`; can also be built by hand (a parser of your
    own feeding ragchunk's chunkers).

    Attributes:
        sections: the :class:`Section` list, in reading order. Running headers and footers
            are ``"header"``/``"footer"`` sections, kept out of :attr:`text`.
        pages: the :class:`Page` list (PDF); empty for formats without pages.
        metadata: ``title``, ``author``, ``page_count`` (None without pages), ``outline``
            (``[(level, title), ...]``) and format-specific keys, where known.
        format: the format parsed (``"docx"``, ``"xlsx"``, ``"csv"``, ``"html"``,
            ``"markdown"``, ``"text"``, ``"code"``, ``"json"``, ``"jsonl"``, ``"pdf"``).
        filename: the file's name, when known.

    >>> doc = Document([Section("title", "Guide", level=1), Section("text", "Intro.")])
    >>> doc.text
    'Guide\\n\\nIntro.'
    >>> doc.markdown()
    '# Guide\\n\\nIntro.'
    >>> doc.locate(8).section.text
    'Intro.'
    """

    #: The separator between two sections in :attr:`text` and :meth:`markdown` (two items
    #: of one list are separated by a single newline).
    SEPARATOR = "\n\n"

    def __init__(
        self,
        sections: Sequence[Section],
        pages: Sequence[Page] = (),
        metadata: Mapping[str, Any] | None = None,
        *,
        format: str | None = None,
        filename: str | None = None,
    ) -> None:
        for i, s in enumerate(sections):
            if not isinstance(s, Section):
                raise TypeError(f"sections[{i}] must be a Section, got {type(s).__name__}")
        self.sections: list[Section] = list(sections)
        self.pages: list[Page] = list(pages)
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.metadata.setdefault("page_count", len(self.pages) if self.pages else None)
        if "outline" not in self.metadata:
            self.metadata["outline"] = [
                (s.level, s.text) for s in self.sections if s.kind == "title"
            ]
        self.format = format
        self.filename = filename
        self._views: dict[bool, tuple[str, list[Span]]] = {}
        # (page, bbox or None, scale) -> image; set by the parsers of renderable formats.
        self._renderer: Callable[[int, tuple[float, float, float, float] | None, float], Any]
        self._renderer = _no_renderer

    def page_image(
        self,
        page: int,
        bbox: Sequence[float] | None = None,
        *,
        scale: float = 2.0,
    ) -> Any:
        """A page, or the region ``bbox`` = ``(x0, top, x1, bottom)`` of it, rendered as a
        Pillow image (PDF, through PDFium; needs Pillow), ``scale`` pixels per point: the
        image RAGFlow's ``crop`` cuts for a section, for :func:`ragchunk.naive_merge_with_images`.

        Raises:
            ValueError: ``page`` is not one of :attr:`pages`, ``bbox`` is not four numbers
                with ``x0 < x1`` and ``top < bottom``, ``scale`` is not positive, or the
                document has no pages to render.

        >>> Document([Section("text", "x")], format="docx").page_image(1)
        Traceback (most recent call last):
        ...
        ValueError: page_image renders paged documents (PDF); this document is docx
        """
        if not self.pages:
            raise ValueError(
                f"page_image renders paged documents (PDF); this document is {self.format}"
            )
        numbers = [p.number for p in self.pages]
        if isinstance(page, bool) or not isinstance(page, int) or page not in numbers:
            raise ValueError(f"page must be one of the parsed pages {numbers}, got {page!r}")
        box: tuple[float, float, float, float] | None = None
        if bbox is not None:
            if len(bbox) != 4:
                raise ValueError(f"bbox must be (x0, top, x1, bottom), got {bbox!r}")
            x0, top, x1, bottom = (float(v) for v in bbox)
            if not (x0 < x1 and top < bottom):
                raise ValueError(f"bbox must have x0 < x1 and top < bottom, got {bbox!r}")
            box = (x0, top, x1, bottom)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
            raise ValueError(f"scale must be a positive number, got {scale!r}")
        return self._renderer(page, box, float(scale))

    def __repr__(self) -> str:
        name = f" {self.filename!r}" if self.filename else ""
        return (
            f"<Document{name} format={self.format!r} sections={len(self.sections)} "
            f"pages={len(self.pages)}>"
        )

    def _view(self, markdown: bool) -> tuple[str, list[Span]]:
        if markdown not in self._views:
            parts: list[str] = []
            spans: list[Span] = []
            at = 0
            prev = ""
            for i, s in enumerate(self.sections):
                if s.kind in _FURNITURE:
                    continue
                body = _markdown_of(s) if markdown else s.text
                if not body:
                    continue
                if parts:
                    # Items of one list stay on consecutive lines; other sections are blocks.
                    sep = "\n" if s.kind == "list" and prev == "list" else self.SEPARATOR
                    parts.append(sep)
                    at += len(sep)
                prev = s.kind
                parts.append(body)
                spans.append(Span(at, at + len(body), i))
                at += len(body)
            self._views[markdown] = ("".join(parts), spans)
        return self._views[markdown]

    @property
    def text(self) -> str:
        """The body as plain text: every section but headers, footers and empty figures,
        joined by a blank line, list items by a newline (:meth:`spans` maps it back).

        >>> Document([Section("header", "ACME"), Section("text", "Body.")]).text
        'Body.'
        """
        return self._view(False)[0]

    def markdown(self) -> str:
        """The body as Markdown: ``#`` headings by level, ``-`` list items, fenced code, GFM
        tables, captions in italics; headers and footers left out.

        >>> Document([Section("table", "a | b\\n1 | 2", rows=[["a", "b"], ["1", "2"]])]).markdown()
        '| a | b |\\n| --- | --- |\\n| 1 | 2 |'
        """
        return self._view(True)[0]

    def spans(self, *, markdown: bool = False) -> list[Span]:
        """Where each section's text is in :attr:`text` (or :meth:`markdown`): one
        :class:`Span` per rendered section; the characters between spans are separators.

        >>> Document([Section("text", "a"), Section("text", "bc")]).spans()
        [Span(start=0, end=1, section_index=0), Span(start=3, end=5, section_index=1)]
        """
        return list(self._view(markdown)[1])

    def locate(self, offset: int, *, markdown: bool = False) -> Location | None:
        """The section, page and box holding character ``offset`` of :attr:`text` (or
        :meth:`markdown`); None for a separator between sections.

        A section with several boxes whose ``metadata["box_offsets"]`` gives where each box's
        text starts (in the section's text) resolves to the box holding the character; without
        it, to the first box.

        >>> doc = Document([Section("text", "one", page=1, boxes=[(1, 0, 0, 9, 9)])])
        >>> doc.locate(1).page, doc.locate(1).box.bbox
        (1, (0.0, 0.0, 9.0, 9.0))
        """
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise TypeError(f"offset must be an int, got {type(offset).__name__}")
        _, spans = self._view(markdown)
        k = bisect.bisect_right([s.start for s in spans], offset) - 1
        if k < 0 or offset >= spans[k].end:
            return None
        span = spans[k]
        sec = self.sections[span.section_index]
        return Location(
            span.section_index, sec, sec.page, _box_at(sec, offset - span.start, markdown)
        )

    def ragflow_sections(self, *, layout: bool = False) -> list[tuple[str, str]]:
        """The body as RAGFlow's parsers hand it to ``naive_merge``.

        By default ``(text, position_tags)`` pairs, what
        :func:`ragchunk.naive_merge_with_positions` takes: the tags are RAGFlow's
        ``@@page\\tx0\\tx1\\ttop\\tbottom##``, one per box, ``""`` without layout. With
        ``layout=True``, ``(text + position_tags, layout_type)`` pairs, the shape RAGFlow's PDF
        parser returns (layout types ``"title"``, ``"text"``, ``"table"``, ``"figure"``,
        ``"table caption"``, ``"figure caption"``). Tables are their plain text; headers,
        footers and empty figures are left out.

        >>> doc = Document([Section("text", "Intro", boxes=[(2, 1, 3, 9, 4)])])
        >>> doc.ragflow_sections()
        [('Intro', '@@2\\t1.0\\t9.0\\t3.0\\t4.0##')]
        >>> import ragchunk
        >>> ragchunk.naive_merge_with_positions(doc.ragflow_sections())
        [('\\nIntro', [([1], 1.0, 9.0, 3.0, 4.0)])]
        """
        out: list[tuple[str, str]] = []
        for i, s in self._body():
            tags = "".join(b.position_tag() for b in s.boxes)
            if layout:
                out.append((s.text + tags, self._layout_type(i)))
            else:
                out.append((s.text, tags))
        return out

    def pipeline_upstream(self, name: str | None = None) -> dict[str, Any]:
        """The upstream payload RAGFlow's pipeline chunkers take (``output_format="json"``):
        one item per body section with ``text`` (a table as an HTML ``<table>``),
        ``layout_type``, ``doc_type_kwd`` (``"text"``, ``"table"`` or ``"image"``) and, with
        layout, ``position_tag``. Feed it to :class:`ragchunk.TokenChunker` or
        :class:`ragchunk.TitleChunker`.

        Args:
            name: the payload's ``name``; by default the file name, else ``"document"``.

        >>> up = Document([Section("title", "Guide", level=1)]).pipeline_upstream("g.docx")
        >>> up["json"]
        [{'text': 'Guide', 'layout_type': 'title', 'doc_type_kwd': 'text'}]
        >>> from ragchunk import TokenChunker
        >>> TokenChunker().invoke(up)["chunks"][0]["text"]
        'Guide'
        """
        items: list[dict[str, Any]] = []
        for i, s in self._body():
            kwd = "table" if s.kind == "table" else "image" if s.kind == "figure" else "text"
            text = _html_table(s.rows) if s.kind == "table" and s.rows is not None else s.text
            item: dict[str, Any] = {
                "text": text,
                "layout_type": self._layout_type(i),
                "doc_type_kwd": kwd,
            }
            if s.boxes:
                item["position_tag"] = "".join(b.position_tag() for b in s.boxes)
            items.append(item)
        if name is None:
            name = self.filename.replace("\\", "/").rsplit("/", 1)[-1] if self.filename else None
        return {"name": name or "document", "output_format": "json", "json": items}

    def _body(self) -> list[tuple[int, Section]]:
        return [
            (i, s)
            for i, s in enumerate(self.sections)
            if s.kind not in _FURNITURE and (s.text or (s.kind == "figure" and s.boxes))
        ]

    def _layout_type(self, i: int) -> str:
        kind = self.sections[i].kind
        if kind in ("title", "table", "figure"):
            return kind
        if kind == "caption":
            near = [self.sections[j].kind for j in (i + 1, i - 1) if 0 <= j < len(self.sections)]
            for k in near:
                if k in ("table", "figure"):
                    return f"{k} caption"
            return "figure caption" if "fig" in self.sections[i].text[:8].lower() else "text"
        return "text"


def _no_renderer(page: int, bbox: tuple[float, float, float, float] | None, scale: float) -> Any:
    raise ValueError("this document was not parsed from a file that can be rendered")


def _box_at(sec: Section, offset: int, markdown: bool) -> Box | None:
    if not sec.boxes:
        return None
    starts = sec.metadata.get("box_offsets")
    if markdown or not starts or len(starts) != len(sec.boxes):
        return sec.boxes[0]
    return sec.boxes[max(0, bisect.bisect_right(list(starts), offset) - 1)]
