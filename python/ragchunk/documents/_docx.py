"""DOCX: Word's body in reading order, through python-docx.

* A paragraph's kind comes from its style and the styles it is based on: ``Title`` and
  ``Heading N`` (or an outline level) make titles (``Title`` is level 1), ``Caption`` makes a
  caption, a ``List ...`` style or Word numbering (``w:numPr``) makes a list item, a code style
  (``Code``, ``HTML Preformatted``, ...) or text set entirely in a monospace font makes code;
  consecutive code paragraphs are one code section.
* Tables become ``rows`` of cell texts, a merged cell once (a horizontally merged cell is one
  cell of its row, a vertically merged one is kept in its first row and empty below).
* Pictures (``w:drawing``, ``w:pict``) become figure sections holding their alternative text.
* Headers and footers (of every section of the document, each distinct text once) are
  ``header`` sections first and ``footer`` sections last.
* Content controls (``w:sdt``) are read through; nothing in the body is dropped.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

from ..core.optional import load
from ._model import Section, table_text

__all__ = ["parse_docx"]

_HEADING = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
_CODE_STYLES = ("code", "html preformatted", "source code", "plain text", "macro text", "verbatim")
_MONO = (
    "courier",
    "consolas",
    "menlo",
    "monaco",
    "lucida console",
    "source code",
    "mono",
    "fira code",
    "inconsolata",
)
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _import() -> Any:
    return load("docx", "parsing DOCX")


def _chain(style: Any) -> list[Any]:
    out: list[Any] = []
    seen: set[int] = set()
    while style is not None and id(style) not in seen and len(out) < 32:
        seen.add(id(style))
        out.append(style)
        style = style.base_style
    return out


def _outline_level(elements: list[Any]) -> int | None:
    for el in elements:
        vals = el.xpath("./w:pPr/w:outlineLvl/@w:val")
        if vals:
            try:
                lvl = int(vals[0])
            except ValueError:
                continue
            return lvl + 1 if lvl < 9 else None
    return None


def _has_numbering(elements: list[Any]) -> bool:
    for el in elements:
        ids = el.xpath("./w:pPr/w:numPr/w:numId/@w:val")
        if ids:
            return bool(ids[0] != "0")
    return False


class _Classifier:
    """Paragraph kinds, with the style-chain facts cached per style."""

    def __init__(self) -> None:
        self._cache: dict[Any, tuple[str, int | None, str | None, bool]] = {}

    def style_facts(self, style: Any) -> tuple[str, int | None, str | None, bool]:
        """(kind from the style, heading level, the style's font, style numbering)."""
        key = style.style_id if style is not None else None
        if key in self._cache:
            return self._cache[key]
        chain = _chain(style)
        names = [(s.name or "").strip().lower() for s in chain]
        kind, level = "text", None
        for name in names:
            m = _HEADING.match(name)
            if m:
                kind, level = "title", max(1, int(m.group(1)))
                break
            if name == "title":
                kind, level = "title", 1
                break
            if name == "caption":
                kind = "caption"
                break
            if name.startswith("list") or name in ("bullet", "numbered"):
                kind = "list"
                break
            if any(c in name for c in _CODE_STYLES):
                kind = "code"
                break
        if kind == "text":
            outline = _outline_level([s.element for s in chain])
            if outline is not None:
                kind, level = "title", outline
        font = next((s.font.name for s in chain if s.font is not None and s.font.name), None)
        numbered = _has_numbering([s.element for s in chain])
        facts = (kind, level, font, numbered)
        self._cache[key] = facts
        return facts


def _is_mono(font: str | None) -> bool:
    return font is not None and any(m in font.lower() for m in _MONO)


def _all_mono(paragraph: Any, style_font: str | None) -> bool:
    seen = False
    for run in paragraph.runs:
        if not run.text.strip():
            continue
        font = run.font.name
        if font is None and run.style is not None:
            font = next((s.font.name for s in _chain(run.style) if s.font.name), None)
        if not _is_mono(font or style_font):
            return False
        seen = True
    return seen


def _body_items(parent: Any) -> Iterator[Any]:
    """The body's paragraphs and tables in order, through content controls."""
    for child in parent.iterchildren():
        tag = child.tag
        if tag in (_W + "p", _W + "tbl"):
            yield child
        elif tag == _W + "sdt":
            for content in child.iterchildren(_W + "sdtContent"):
                yield from _body_items(content)


def _table_rows(table: Any) -> list[list[str]]:
    rows: list[list[str]] = []
    above: list[Any] = []
    for row in table.rows:
        cells: list[str] = []
        tcs: list[Any] = []
        for col, cell in enumerate(row.cells):
            tc = cell._tc
            if tcs and tcs[-1] is tc:
                continue  # the rest of a horizontally merged cell
            tcs.append(tc)
            vertical = col < len(above) and above[col] is tc
            cells.append("" if vertical else cell.text.strip())
        above = [c._tc for c in row.cells]
        if any(cells):
            rows.append(cells)
    return rows


def _figure_alt(p_el: Any) -> list[str]:
    out = []
    for graphic in p_el.xpath(".//w:drawing | .//w:pict"):
        alts = [a for a in graphic.xpath(".//wp:docPr/@descr | .//wp:docPr/@title") if a]
        out.append(" ".join(alts).strip())
    return out


def parse_docx(data: bytes) -> tuple[list[Section], dict[str, Any]]:
    """The sections and metadata of a DOCX package (already checked by ``check_package``)."""
    docx = _import()
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = docx.Document(io.BytesIO(data))
    body = document.element.body
    classify = _Classifier()
    sections: list[Section] = []
    code: list[str] = []

    def flush_code() -> None:
        if code:
            sections.append(Section("code", "\n".join(code)))
            code.clear()

    for el in _body_items(body):
        if el.tag == _W + "tbl":
            flush_code()
            rows = _table_rows(Table(el, document))
            if rows:
                sections.append(Section("table", table_text(rows), rows=rows))
            continue
        p = Paragraph(el, document)
        text = p.text.strip("\n")
        kind, level, style_font, style_numbered = classify.style_facts(p.style)
        if kind == "text":
            if _has_numbering([el]) or style_numbered:
                kind = "list"
            elif text.strip() and _all_mono(p, style_font):
                kind = "code"
        if kind == "code" and text.strip():
            code.append(text)
        else:
            flush_code()
            if text.strip():
                if kind == "title":
                    sections.append(Section("title", " ".join(text.split()), level=level))
                else:
                    meta: dict[str, Any] = {}
                    if kind == "list":
                        ilvl = el.xpath("./w:pPr/w:numPr/w:ilvl/@w:val")
                        if ilvl and ilvl[0].isdigit():
                            meta["list_level"] = int(ilvl[0])
                    sections.append(Section(kind, text.strip(), metadata=meta))
        for alt in _figure_alt(el):
            flush_code()
            sections.append(Section("figure", alt))
    flush_code()

    headers: list[str] = []
    footers: list[str] = []
    for sec in document.sections:
        for attr, out in (
            ("header", headers),
            ("first_page_header", headers),
            ("even_page_header", headers),
            ("footer", footers),
            ("first_page_footer", footers),
            ("even_page_footer", footers),
        ):
            part = getattr(sec, attr)
            if part.is_linked_to_previous and sec is not document.sections[0]:
                continue
            text = "\n".join(p.text for p in part.paragraphs if p.text.strip())
            if text and text not in out:
                out.append(text)
    sections = (
        [Section("header", t) for t in headers] + sections + [Section("footer", t) for t in footers]
    )
    props = document.core_properties
    metadata: dict[str, Any] = {
        "title": props.title or None,
        "author": props.author or None,
        "subject": props.subject or None,
        "keywords": props.keywords or None,
        "created": props.created.isoformat() if props.created else None,
        "modified": props.modified.isoformat() if props.modified else None,
    }
    return sections, metadata
