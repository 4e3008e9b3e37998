"""PDF: PDFium's characters and graphics (``pypdfium2``) through a model-free layout analysis.

Each page, one at a time, is read by the PDFium reader (characters with boxes, font sizes and
bold/fixed-pitch bits; paths and images) and laid out by the layout analysis (lines, tables
from ruling lines, figures, two-column reading order), on the Rust backend in one compiled
call per page (``_core.pdf_page_items``), else in Python with the same result. Then, over
the whole document:

* lines in the top or bottom 9% of a page whose text (digits aside) repeats at about the
  same height on at least half of the pages, that look like a page number, or that are set
  smaller than the body text, are ``header``/``footer`` sections, kept out of the body;
* lines of one column closer than about a line height, in the same font size, join into a
  paragraph, which runs on into the next column or page unless its last line ends a
  sentence (a line ending in a hyphen joins without a space, the hyphen dropped where it
  broke a word, see ``_hyphens``); a line starting with a bullet
  or a number ("• ", "3. ") starts a list item;
* lines in a font larger than the body's most common size are titles (a size some bold line
  has, a quarter larger, or a little larger in short lines that hold few of the characters),
  the largest size level 1, and a numbered title (``1.2``) one level below the titles of
  the numbering above it (``1``); a title runs on only at its own line spacing; lines that start
  in a fixed-pitch font are code;
* a line starting "Figure N:", "Table N:", "图 N：" starts a caption;
* a page with no text line or table has ``has_text_layer=False`` (``Page.needs_ocr``) and
  goes to the ``ocr`` callable when one is given (the default engine of :mod:`._ocr` when
  the ``ocr`` extra is installed); its OCR lines are laid out like a text layer's
  characters (lines, columns, reading order; titles by line height) and the sections made
  of them carry ``metadata["ocr"] = True``. A page whose OCR raises or times out is left
  out, its number and the reason in ``metadata["ocr_failed"]``.

Boxes are ``(x0, top, x1, bottom)`` in points from the top-left corner of the page as
displayed (after its ``/Rotate``), one per page and column a paragraph spans. A page is laid
out in the frame where most of its characters read upright (a page turned by ``/Rotate``, or
text drawn turned on the page, reads in its own direction), and its boxes turned back.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .._pure.documents.layout import page_items
from .._pure.documents.pdfium import (
    BOLD,
    MONO,
    function_table,
    page_content,
    text_quarter,
    turn,
    turn_box,
)
from ..core import dispatch
from ._hyphens import ENDS, Hyphens
from ._model import Box, Document, Page, Section
from ._ocr import layout_chars, run_ocr
from ._safety import DocumentError

__all__ = ["parse_pdf"]

_BULLET = re.compile(r"^\s*([•●▪◦‣∙·\-–*]|\(?\d{1,3}[.)]|[a-zA-Z][.)])\s+\S")
_PAGE_NO = re.compile(
    r"^\s*(page\s*\d+(\s*(of|/)\s*\d+)?|-\s*\d+\s*-|\d+\s*(/|of)\s*\d+|\d+)\s*$", re.I
)
# "Figure 3:", "Fig. 3.", "Table 2:", "图 1：", "図 1：", "그림 1:", "표 1:", "Рисунок 1:",
# "Рис. 1 —", "Таблица 2:".
_CAPTION = re.compile(
    r"^\s*(fig(ure)?\.?|table|图|表|図|그림|표|рис(унок|\.)?|табл(ица|\.)?)\s*\d+\s*[:.：\-–—]",
    re.I,
)
# A section number opening a title: "2 ", "2.1 ", "2.1.3. " (at most three digits a part).
_NUMBERED = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,3})*)\.?\s+\S")
_FURNITURE_BAND = 0.09
# Pages read before the PDF is opened afresh (see parse_pdf).
_REOPEN = 64
# Pages handed to an OCR callable are rendered at 2x (144 dpi).
_OCR_SCALE = 2.0


@dataclass(slots=True)
class _Line:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    mono: bool
    bold: bool
    page: int
    column: str = "span"
    kind: str = "line"
    rows: list[list[str]] | None = None
    ocr: bool = False


def _import() -> Any:
    try:
        import pypdfium2  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("parsing PDF needs pypdfium2: pip install 'ragchunk[documents]'") from exc
    return pypdfium2


# How a page's layout frame (where its text reads upright) is turned into the page as
# displayed: clockwise quarter turns, and the layout frame's width and height.
_Frame = tuple[int, float, float]


def _page_lines(
    pdfium: Any, page: Any, number: int, width: float, height: float
) -> tuple[list[_Line], _Frame]:
    """The page's lines, tables and figures in reading order, as :class:`_Line` items, in
    the frame where most of its text reads upright; and how that frame turns into the page
    as displayed (``width`` x ``height``, after ``/Rotate``)."""
    shown = page.get_rotation() // 90 % 4
    own_w, own_h = (height, width) if shown % 2 else (width, height)
    textpage = page.get_textpage()
    raw = pdfium.raw
    try:
        quarter = dispatch.run_exact(
            lambda core: core.pdf_text_quarter(_functions(raw), _address(textpage.raw)),
            lambda: text_quarter(raw, textpage.raw),
        )
        read_w, read_h = (own_h, own_w) if quarter % 2 else (own_w, own_h)
        items = dispatch.run_exact(
            lambda core: core.pdf_page_items(
                _functions(raw), _address(page.raw), _address(textpage.raw), own_w, own_h,
                quarter,
            ),
            lambda: page_items(
                *turn(*page_content(raw, page.raw, textpage.raw, own_h), quarter, own_w, own_h),
                read_w,
            ),
        )  # fmt: skip
    finally:
        textpage.close()
    frame = ((shown - quarter) % 4, read_w, read_h)
    return _as_lines(items, number), frame


def _as_lines(items: Iterable[Any], number: int, ocr: bool = False) -> list[_Line]:
    return [
        _Line(
            text=text,
            x0=x0,
            top=top,
            x1=x1,
            bottom=bottom,
            size=size,
            mono=bool(flags & MONO),
            bold=bool(flags & BOLD),
            page=number,
            column=column,
            kind=kind,
            rows=rows,
            ocr=ocr,
        )
        for kind, text, x0, top, x1, bottom, size, flags, column, rows in items
        # A line of control characters only has no text left.
        if text or kind != "line"
    ]


def _displayed(sections: list[Section], frames: dict[int, _Frame]) -> list[Section]:
    """The sections with their boxes turned from each page's layout frame into the page as
    displayed."""
    out = []
    for sec in sections:
        if all(frames.get(b.page, (0,))[0] == 0 for b in sec.boxes):
            out.append(sec)
            continue
        boxes = []
        for b in sec.boxes:
            q, w, h = frames.get(b.page, (0, 0.0, 0.0))
            boxes.append(Box(b.page, *turn_box(b.x0, b.top, b.x1, b.bottom, q, w, h)))
        out.append(dataclasses.replace(sec, boxes=tuple(boxes)))
    return out


def _address(handle: Any) -> int:
    return ctypes.cast(handle, ctypes.c_void_p).value or 0


@functools.cache
def _functions_of(raw: Any) -> tuple[int, ...]:
    return tuple(function_table(raw))


def _functions(raw: Any) -> list[int]:
    return list(_functions_of(raw))


def _furniture(pages: list[list[_Line]], heights: list[float]) -> set[int]:
    def key(ln: _Line) -> tuple[str, int]:
        # The text (numbers aside) and where it stands: a heading that repeats the running
        # header's words further down the page is not the header.
        return re.sub(r"\d+", "#", " ".join(ln.text.split()).lower()), round(ln.top / 6)

    counts: Counter[tuple[str, int]] = Counter()
    for lines, h in zip(pages, heights, strict=True):
        counts.update({key(ln) for ln in lines if ln.kind == "line" and _in_band(ln, h)})
    repeated = {k for k, n in counts.items() if len(pages) > 1 and n >= max(2, len(pages) / 2)}
    # Without repetition to go by (one page, or a header on some pages only), a line at the
    # edge set smaller than the body text is furniture too.
    body = _body_size(ln for lines in pages for ln in lines)
    return {
        id(ln)
        for lines, h in zip(pages, heights, strict=True)
        for ln in lines
        if ln.kind == "line"
        and _in_band(ln, h)
        and (
            key(ln) in repeated
            or _PAGE_NO.match(ln.text)
            or (not ln.mono and ln.size < 0.95 * body)
        )
    }


def _size_counts(lines: Iterable[_Line]) -> Counter[float]:
    """How many characters of text lines (code aside) are set in each font size."""
    return Counter(
        ln.size
        for ln in lines
        if not ln.mono and ln.kind == "line"
        for _ in range(max(1, len(ln.text)))
    )


def _body_size(lines: Iterable[_Line]) -> float:
    """The most common font size of text lines, by characters (code aside); 0.0 without any."""
    sizes = _size_counts(lines)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _in_band(ln: _Line, height: float) -> bool:
    return ln.bottom < height * _FURNITURE_BAND or ln.top > height * (1 - _FURNITURE_BAND)


def _sections(pages: list[list[_Line]], heights: list[float]) -> list[Section]:
    furniture = _furniture(pages, heights)
    body = [ln for lines in pages for ln in lines if id(ln) not in furniture]
    # The body size: the most common size by characters, code (fixed pitch) aside.
    sizes = _size_counts(body)
    base = sizes.most_common(1)[0][0] if sizes else 0.0
    # Heading sizes: larger than the body and set in bold somewhere, or clearly larger, or a
    # little larger in short lines that hold few of the characters (fonts without a bold
    # face, such as most CJK fonts, mark headings by size alone).
    total = sum(sizes.values()) or 1
    lengths: dict[float, list[int]] = {}
    for ln in body:
        if ln.kind == "line" and not ln.mono:
            lengths.setdefault(ln.size, []).append(len(ln.text))
    big = sorted(
        {
            ln.size
            for ln in body
            if ln.kind == "line"
            and ln.size > base * 1.05
            and (
                ln.bold
                or ln.size >= base * 1.25
                or (
                    sizes[ln.size] < 0.05 * total
                    and sorted(lengths[ln.size])[len(lengths[ln.size]) // 2] <= 40
                )
            )
        },
        reverse=True,
    )
    level = {s: min(i + 1, 6) for i, s in enumerate(big)}
    hyphens = Hyphens(ln.text for ln in body if ln.kind == "line" and not ln.mono)
    out: list[Section] = []
    para: list[_Line] = []
    kind = "text"

    def flush() -> None:
        if not para:
            return
        text = ""
        offsets: list[int] = []
        boxes: list[Box] = []
        indents = _code_indents(para) if kind == "code" else None
        for i, ln in enumerate(para):
            if boxes and ln.page == boxes[-1].page and ln.column == para[i - 1].column:
                b = boxes[-1]
                boxes[-1] = Box(
                    b.page, min(b.x0, ln.x0), min(b.top, ln.top), max(b.x1, ln.x1),
                    max(b.bottom, ln.bottom),
                )  # fmt: skip
            else:
                offsets.append(len(text) + (1 if text else 0))
                boxes.append(Box(ln.page, ln.x0, ln.top, ln.x1, ln.bottom))
            line = ln.text if indents is None else " " * indents[i] + ln.text
            if not text:
                text = line
            elif kind == "code":
                text += "\n" + line
            elif text.endswith(ENDS):
                text = hyphens.join(text, ln.text)
            else:
                text += " " + ln.text
        meta: dict[str, Any] = {"box_offsets": offsets} if len(boxes) > 1 else {}
        if any(ln.ocr for ln in para):
            meta["ocr"] = True
        lvl = level.get(para[0].size) if kind == "title" else None
        out.append(Section(kind, text, level=lvl, boxes=tuple(boxes), metadata=meta))
        para.clear()
        out.extend(pending)
        pending.clear()

    # A paragraph may run on across a page break: the furniture met meanwhile follows it.
    pending: list[Section] = []

    def furniture_of(lines: list[_Line], height: float, where: str) -> None:
        for ln in lines:
            if id(ln) in furniture and (ln.top < height / 2) == (where == "header"):
                box = Box(ln.page, ln.x0, ln.top, ln.x1, ln.bottom)
                (pending if para else out).append(Section(where, ln.text, boxes=(box,)))

    for lines, height in zip(pages, heights, strict=True):
        furniture_of(lines, height, "header")
        for ln in lines:
            if id(ln) in furniture:
                continue
            if ln.kind != "line":
                flush()
                box = Box(ln.page, ln.x0, ln.top, ln.x1, ln.bottom)
                kind = ln.kind
                meta = {"ocr": True} if ln.ocr else {}
                out.append(Section(ln.kind, ln.text, boxes=(box,), rows=ln.rows, metadata=meta))
                out.extend(pending)
                pending.clear()
                continue
            if _CAPTION.match(ln.text):
                flush()
                kind = "caption"
                para.append(ln)
                continue
            this = "title" if ln.size in level else "code" if ln.mono else "text"
            if this == "text" and _BULLET.match(ln.text):
                flush()
                kind = "list"
                para.append(ln)
                continue
            if para:
                prev = para[-1]
                gap = ln.top - prev.bottom
                hanging = kind == "list" and this == "text" and ln.x0 > para[0].x0 + 2
                same = (
                    (this == kind or hanging or (kind == "caption" and this == "text"))
                    and abs(ln.size - prev.size) < 0.6
                    and (
                        # Code runs on across blank lines and lines set on one baseline
                        # in pieces, and across a column or page break whatever its last
                        # line ends with.
                        (
                            prev.top - 2 < ln.top < prev.top + prev.size * 2.5
                            if ln.page == prev.page and ln.column == prev.column
                            else True
                        )
                        if this == "code" == kind
                        # A title runs on only at its own line spacing: the next title is
                        # further down.
                        else (
                            -2 < gap < prev.size * (0.5 if this == "title" else 1.0)
                            if ln.page == prev.page and ln.column == prev.column
                            else not prev.text.endswith(
                                (".", "!", "?", "。", "！", "？", ":", "：")
                            )
                        )
                    )
                )
                if not same or (this == "title" and kind == "title" and ln.page != prev.page):
                    flush()
            if not para:
                kind = this
            para.append(ln)
        furniture_of(lines, height, "footer")
    flush()
    out.extend(pending)
    return _numbered_levels(out)


def _numbered_levels(sections: list[Section]) -> list[Section]:
    """Heading levels from the titles' own numbering where the document numbers them: a
    title numbered ``1.2`` is one level below the ``1`` titles (whose level the font sizes
    gave), ``1.2.3`` two, whatever their sizes (sections and subsections are often set in one
    size, or at the body size in bold); unnumbered titles keep their levels."""
    numbered = [
        (i, m.group(1).count(".") + 1)
        for i, sec in enumerate(sections)
        if sec.kind == "title" and sec.level is not None and (m := _NUMBERED.match(sec.text))
    ]
    depths = {d for _, d in numbered}
    if len(numbered) < 2 or len(depths) < 2:
        return sections
    tops = Counter(sections[i].level for i, d in numbered if d == min(depths))
    base = tops.most_common(1)[0][0] or 1
    out = list(sections)
    for i, d in numbered:
        out[i] = dataclasses.replace(out[i], level=min(6, base + d - min(depths)))
    return out


def _code_indents(lines: list[_Line]) -> list[int]:
    """Each code line's indentation in characters, from its left edge: in a fixed-pitch font
    every character is one advance wide (the lines' own width over their length), and the
    leftmost line of the same column (on any page of the block) is at indentation 0."""
    widths = sorted((ln.x1 - ln.x0) / len(ln.text) for ln in lines if len(ln.text) >= 4)
    if not widths:
        return [0] * len(lines)
    advance = widths[len(widths) // 2]
    if advance <= 0:
        return [0] * len(lines)
    left: dict[str, float] = {}
    for ln in lines:
        left[ln.column] = min(left.get(ln.column, ln.x0), ln.x0)
    return [max(0, round((ln.x0 - left[ln.column]) / advance)) for ln in lines]


def parse_pdf(
    data: bytes,
    filename: str | None,
    pages: Sequence[int] | None,
    password: str | None,
    ocr: Callable[[Any, Page], Any] | None = None,
    ocr_timeout: float | None = None,
) -> Document:
    """Parse a PDF: PDFium's characters and graphics through the layout analysis (see the
    module docs); pages without a text layer through ``ocr`` when it is given, each within
    ``ocr_timeout`` seconds."""
    pdfium = _import()
    try:
        pdf = pdfium.PdfDocument(data, password=password)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            if password is None:
                raise DocumentError(filename, "the PDF is encrypted: pass password=") from exc
            raise DocumentError(filename, "password is not the PDF's password") from exc
        raise DocumentError(filename, f"not a readable PDF file ({exc})") from exc
    try:
        count = len(pdf)
        wanted = list(pages) if pages is not None else list(range(1, count + 1))
        for i, p in enumerate(wanted):
            if p > count:
                raise ValueError(f"pages[{i}] is {p}, but the PDF has {count} pages")
        page_list: list[Page] = []
        frames: dict[int, _Frame] = {}
        lines: list[list[_Line]] = []
        heights: list[float] = []
        failed: dict[int, str] = {}
        for done, number in enumerate(wanted):
            if done and done % _REOPEN == 0:
                # PDFium keeps every object it has parsed until the document is closed:
                # reopened now and then, a long PDF is read in constant memory.
                pdf.close()
                pdf = pdfium.PdfDocument(data, password=password)
            try:
                page = pdf[number - 1]
                width, height = page.get_size()
                found, frames[number] = _page_lines(pdfium, page, number, width, height)
                info = Page(
                    number,
                    width,
                    height,
                    has_text_layer=any(ln.kind in ("line", "table") for ln in found),
                )
                if ocr is not None and info.needs_ocr:
                    # The scan itself (an image over most of the page) is not a figure.
                    area = width * height
                    found = [
                        ln for ln in found if (ln.x1 - ln.x0) * (ln.bottom - ln.top) < 0.8 * area
                    ]
                    # OCR reads the page as displayed: its lines go into the layout frame.
                    read, reason = _ocr_lines(ocr, page, info, ocr_timeout)
                    if reason is None:
                        q = -frames[number][0]
                        found = [_turned(ln, q, width, height) for ln in read] + found
                    else:
                        failed[number] = reason
                page.close()
            except pdfium.PdfiumError as exc:
                raise DocumentError(filename, f"unreadable page ({exc})", page=number) from exc
            page_list.append(info)
            lines.append(found)
            heights.append(frames[number][2])
        meta_raw = pdf.get_metadata_dict()
    finally:
        pdf.close()
    sections = _displayed(_sections(lines, heights), frames)
    meta = {
        "title": meta_raw.get("Title") or None,
        "author": meta_raw.get("Author") or None,
        "page_count": count,
        "needs_ocr": [
            p.number for p in page_list if p.needs_ocr and (ocr is None or p.number in failed)
        ],
    }
    if ocr is not None:
        meta["ocr_pages"] = [p.number for p in page_list if p.needs_ocr and p.number not in failed]
        meta["ocr_failed"] = failed
    doc = Document(sections, page_list, meta, format="pdf", filename=filename)
    doc._renderer = functools.partial(_render, data, password, filename)
    return doc


def _turned(ln: _Line, quarter: int, width: float, height: float) -> _Line:
    """A line of a ``width`` x ``height`` frame in that frame turned by ``quarter`` clockwise
    quarter turns."""
    x0, top, x1, bottom = turn_box(ln.x0, ln.top, ln.x1, ln.bottom, quarter % 4, width, height)
    return dataclasses.replace(ln, x0=x0, top=top, x1=x1, bottom=bottom)


def _ocr_lines(
    ocr: Callable[[Any, Page], Any], page: Any, info: Page, timeout: float | None
) -> tuple[list[_Line], str | None]:
    """What ``ocr(image, page)`` read on a page without a text layer, laid out; or the
    reason it read nothing (the engine raised or ran past ``timeout``)."""
    try:
        image = page.render(scale=_OCR_SCALE).to_pil()
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "ocr needs Pillow to render pages: pip install 'ragchunk[images]'"
        ) from exc
    return ocr_image_lines(ocr, image, info, timeout)


def ocr_image_lines(
    ocr: Callable[[Any, Page], Any], image: Any, info: Page, timeout: float | None
) -> tuple[list[_Line], str | None]:
    """``ocr(image, info)``'s lines through the layout analysis, as ``_Line`` items of page
    ``info.number``; ``([], reason)`` when the engine raised or timed out."""
    got, reason = run_ocr(ocr, image, info, timeout)
    if reason is not None:
        return [], reason
    whole = (0.0, 0.0, info.width, info.height)
    if isinstance(got, str):
        got = [(got, whole)] if got.strip() else []
    if not isinstance(got, list):
        raise TypeError(
            f"ocr must return a str or a list of (text, (x0, top, x1, bottom)), "
            f"got {type(got).__name__}"
        )
    lines = []
    for i, item in enumerate(got):
        try:
            text, (x0, top, x1, bottom) = item
            box = (float(x0), float(top), float(x1), float(bottom))
        except (TypeError, ValueError):
            raise TypeError(
                f"ocr returned {item!r} at index {i}: expected (text, (x0, top, x1, bottom))"
            ) from None
        if not isinstance(text, str):
            raise TypeError(f"ocr returned a {type(text).__name__} text at index {i}")
        if text.strip():
            lines.append((" ".join(text.split()), box))
    chars = layout_chars(lines)
    items = dispatch.run_exact(
        lambda core: core.pdf_layout_items(chars, [], info.width),
        lambda: page_items(chars, [], info.width),
    )
    return _as_lines(items, info.number, ocr=True), None


def _render(
    data: bytes,
    password: str | None,
    filename: str | None,
    number: int,
    bbox: tuple[float, float, float, float] | None,
    scale: float,
) -> Any:
    pdfium = _import()
    pdf = pdfium.PdfDocument(data, password=password)
    try:
        page = pdf[number - 1]
        width, height = page.get_size()
        crop = (0.0, 0.0, 0.0, 0.0)
        if bbox is not None:
            x0, top, x1, bottom = bbox
            x0, x1 = max(0.0, x0), min(width, x1)
            top, bottom = max(0.0, top), min(height, bottom)
            if not (x0 < x1 and top < bottom):
                raise ValueError(f"bbox {bbox!r} is outside page {number}")
            crop = (x0, height - bottom, width - x1, top)
        try:
            return page.render(scale=scale, crop=crop).to_pil()
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("page_image needs Pillow: pip install 'ragchunk[images]'") from exc
    except pdfium.PdfiumError as exc:
        raise DocumentError(filename, f"cannot render ({exc})", page=number) from exc
    finally:
        pdf.close()
