"""The compiled PDF page reader (``_core.pdf_page_content``) against its Python twin
(``_pure.documents.pdfium.page_content``).

Both call the same PDFium functions of the library ``pypdfium2`` loaded; the compiled one
through the addresses ``function_table`` gives it. Their values must be equal, float for float.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pdfium = pytest.importorskip("pypdfium2")
import pypdfium2.raw as raw  # noqa: E402
from docfiles import pdf_file  # noqa: E402
from ragchunk._pure.documents import pdfium as _pdfium  # noqa: E402

pytestmark = pytest.mark.single_backend

GOLDEN = Path(__file__).resolve().parents[2].parent / "shared" / "golden" / "documents"
GOLDEN_PDFS = sorted(GOLDEN.glob("pdf-*.pdf")) if GOLDEN.is_dir() else []


def address(handle: Any) -> int:
    value = ctypes.cast(handle, ctypes.c_void_p).value
    assert value
    return value


def both(core: ModuleType, page: Any) -> tuple[Any, Any]:
    """Both readers' content of one ``pypdfium2`` page, checked equal (floats bit for bit)."""
    textpage = page.get_textpage()
    try:
        height = page.get_height()
        python = _pdfium.page_content(raw, page.raw, textpage.raw, height)
        rust = core.pdf_page_content(
            _pdfium.function_table(raw), address(page.raw), address(textpage.raw), height
        )
    finally:
        textpage.close()
    assert rust == python
    # `==` holds for 0.0 against -0.0: compare the float bits as well (NaN would fail `==`).
    assert bits(rust[0]) == bits(python[0]) and bits(rust[1]) == bits(python[1])
    return python


def bits(rows: list[Any]) -> list[list[Any]]:
    """The rows with every float spelled exactly (``float.hex``)."""
    return [[v.hex() if isinstance(v, float) else v for v in row] for row in rows]


@pytest.mark.skipif(not GOLDEN_PDFS, reason=f"no golden PDFs under {GOLDEN}")
@pytest.mark.parametrize("path", GOLDEN_PDFS, ids=lambda p: p.name)
def test_golden_pdfs(core: ModuleType, path: Path) -> None:
    pdf = pdfium.PdfDocument(path)
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            both(core, page)
            page.close()
    finally:
        pdf.close()


def test_golden_pdfs_have_content(core: ModuleType) -> None:
    """The golden comparison is not vacuous: the set holds characters and graphics."""
    if not GOLDEN_PDFS:
        pytest.skip(f"no golden PDFs under {GOLDEN}")
    chars = graphics = 0
    for path in GOLDEN_PDFS:
        pdf = pdfium.PdfDocument(path)
        for index in range(len(pdf)):
            c, g = both(core, pdf[index])
            chars += len(c)
            graphics += len(g)
        pdf.close()
    assert chars > 1000 and graphics > 10


def _rect_page(pdf: Any, width: float, height: float) -> Any:
    """A page of ``pdf`` holding one filled (not stroked) rectangle, x 10..40, y 20..60."""
    page = pdf.new_page(width, height)
    rect = raw.FPDFPageObj_CreateNewRect(10, 20, 30, 40)
    assert raw.FPDFPath_SetDrawMode(rect, raw.FPDF_FILLMODE_ALTERNATE, False)
    raw.FPDFPage_InsertObject(page.raw, rect)
    assert raw.FPDFPage_GenerateContent(page.raw)
    return page


def test_form_xobject_bounds_on_the_page(core: ModuleType) -> None:
    pdf = pdfium.PdfDocument.new()
    try:
        source = _rect_page(pdf, 200, 100)
        assert both(core, source)[1] == [
            (_pdfium.PATH, 10.0, 100 - 60.0, 40.0, 100 - 20.0, _pdfium.FILL | _pdfium.STRAIGHT)
        ]
        page = pdf.new_page(600, 800)
        form = pdf.page_as_xobject(0, pdf).as_pageobject()
        # Scale by (2, 3), then shift by (100, 200).
        form.transform(pdfium.PdfMatrix().scale(2, 3).translate(100, 200))
        page.insert_obj(form)
        page.gen_content()
        chars, graphics = both(core, page)
        # The rectangle's form-space bounds through the form's matrix: x 120..180, y 260..380.
        assert chars == []
        assert graphics == [
            (_pdfium.PATH, 120.0, 800 - 380.0, 180.0, 800 - 260.0, _pdfium.FILL | _pdfium.STRAIGHT)
        ]
    finally:
        pdf.close()


def _hand_made(contents: bytes, resources: bytes, extra: list[bytes]) -> bytes:
    """A one-page PDF (300 x 400 pt): the page's content stream and resources, and objects
    5, 6, ... (``extra``)."""

    def stream(head: bytes, body: bytes) -> bytes:
        return b"<< " + head + b" /Length %d >>\nstream\n" % len(body) + body + b"\nendstream"

    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Resources "
        + resources
        + b" /Contents 4 0 R >>",
        stream(b"", contents),
        *(stream(*o.split(b"\x00", 1)) if b"\x00" in o else o for o in extra),
    ]
    return pdf_file(objects, 1)


def test_nested_forms_with_their_own_matrices(core: ModuleType) -> None:
    # Page: `cm` shifts by (50, 60), then form 5 (its /Matrix scales by 2) draws a 10 x 10
    # square at its origin, then, shifted by (5, 5), form 6 (its /Matrix shifts by (3, 0)) with
    # a square from (1, 1) to (3, 3) and a diagonal stroke.
    data = _hand_made(
        b"q 1 0 0 1 50 60 cm /F1 Do Q",
        b"<< /XObject << /F1 5 0 R >> >>",
        [
            b"/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Matrix [2 0 0 2 0 0]"
            b" /Resources << /XObject << /F2 6 0 R >> >>\x00"
            b"0 0 10 10 re f q 1 0 0 1 5 5 cm /F2 Do Q",
            b"/Type /XObject /Subtype /Form /BBox [0 0 50 50] /Matrix [1 0 0 1 3 0]\x00"
            b"1 1 2 2 re f 0 w 0 0 m 4 4 l S",
        ],
    )
    pdf = pdfium.PdfDocument(data)
    try:
        _, graphics = both(core, pdf[0])
    finally:
        pdf.close()
    square = (_pdfium.PATH, 50.0, 400 - 80.0, 70.0, 400 - 60.0, _pdfium.FILL | _pdfium.STRAIGHT)
    # (1, 1)-(3, 3) -> /Matrix (4, 1)-(6, 3) -> cm (9, 6)-(11, 8) -> form 5 (18, 12)-(22, 16)
    # -> page (68, 72)-(72, 76).
    inner = (_pdfium.PATH, 68.0, 400 - 76.0, 72.0, 400 - 72.0, _pdfium.FILL | _pdfium.STRAIGHT)
    # (0, 0)-(4, 4), the same way: (66, 70)-(74, 78), which PDFium widens by half a line
    # width (at least half a point in the form's space for a zero width); stroked, not straight.
    line = graphics[2]
    assert graphics[:2] == [square, inner]
    assert line[0] == _pdfium.PATH and line[5] == _pdfium.STROKE
    assert line[1:5] == pytest.approx((66.0, 400 - 78.0, 74.0, 400 - 70.0), abs=1.0)


def test_forms_deeper_than_the_limit_are_not_read(core: ModuleType) -> None:
    # Form 5 draws a square and then itself. PDFium nests such a form dozens of levels deep
    # before it stops; the readers read the squares of the first _MAX_DEPTH levels only.
    data = _hand_made(
        b"/F Do",
        b"<< /XObject << /F 5 0 R >> >>",
        [
            b"/Type /XObject /Subtype /Form /BBox [0 0 100 100]"
            b" /Resources << /XObject << /F 5 0 R >> >>\x00"
            b"0 0 10 10 re f /F Do"
        ],
    )
    pdf = pdfium.PdfDocument(data)
    try:
        _, graphics = both(core, pdf[0])
    finally:
        pdf.close()
    square = (_pdfium.PATH, 0.0, 400 - 10.0, 10.0, 400.0, _pdfium.FILL | _pdfium.STRAIGHT)
    assert graphics == [square] * _pdfium._MAX_DEPTH


def test_code_points_that_are_not_characters(core: ModuleType) -> None:
    # A ToUnicode map sends A to a lone surrogate, B to U+0000 and C to U+0043.
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T def"
        b" 1 begincodespacerange <00> <FF> endcodespacerange"
        b" 3 beginbfchar <41> <D800> <42> <0000> <43> <0043> endbfchar"
        b" endcmap CMapName currentdict /CMap defineresource pop end end"
    )
    data = _hand_made(
        b"BT /F1 12 Tf 72 300 Td (ABC) Tj ET",
        b"<< /Font << /F1 5 0 R >> >>",
        [
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /ToUnicode 6 0 R >>",
            b"\x00" + cmap,
        ],
    )
    pdf = pdfium.PdfDocument(data)
    try:
        chars, _ = both(core, pdf[0])
    finally:
        pdf.close()
    text = "".join(c[0] for c in chars)
    assert text == "\ufffd C"
    assert all(c[6] == _pdfium.BOLD and c[5] == 12.0 for c in chars)


def test_bad_arguments(core: ModuleType) -> None:
    table = _pdfium.function_table(raw)
    pdf = pdfium.PdfDocument.new()
    try:
        page = pdf.new_page(100, 100)
        textpage = page.get_textpage()
        p, t = address(page.raw), address(textpage.raw)
        with pytest.raises(ValueError, match="functions"):
            core.pdf_page_content(table[:-1], p, t, 100.0)
        with pytest.raises(ValueError, match=r"functions.*FPDFText_GetUnicode"):
            core.pdf_page_content([table[0], 0, *table[2:]], p, t, 100.0)
        with pytest.raises(ValueError, match="page"):
            core.pdf_page_content(table, 0, t, 100.0)
        with pytest.raises(ValueError, match="textpage"):
            core.pdf_page_content(table, p, 0, 100.0)
        assert core.pdf_page_content(table, p, t, 100.0) == ([], [])
        textpage.close()
    finally:
        pdf.close()
