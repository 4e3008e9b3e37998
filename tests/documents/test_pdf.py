"""PDF through PDFium's text layer (the simple path): lines, paragraphs, pages and boxes."""

from __future__ import annotations

import io
import sys

import pytest
from docfiles import report_pdf, simple_pdf
from ragchunk import RecursiveSplitter, naive_merge_with_positions
from ragchunk.documents import Document, DocumentError, chunk_document, parse

pytestmark = pytest.mark.single_backend


@pytest.fixture(scope="module")
def doc() -> Document:
    return parse(report_pdf(), filename="report.pdf")


def test_sections(doc: Document) -> None:
    body = [(s.kind, s.level, s.text) for s in doc.sections if s.kind not in ("header", "footer")]
    assert body == [
        ("title", 1, "Results"),
        (
            "text",
            None,
            "Sales grew in every region this quarter, led by the north, where two new stores "
            "opened.",
        ),
        ("title", 2, "Details"),
        ("list", None, "- Stores: twelve in total"),
        ("list", None, "- Staff: ninety people"),
        ("caption", None, "Figure 1: Sales by region"),
        ("code", None, "total = sum(sales)"),
        ("text", None, "The outlook for next quarter is steady, with costs expected to stay flat."),
    ]


def test_running_headers_and_footers_stay_out_of_the_body(doc: Document) -> None:
    furniture = [(s.kind, s.page, s.text) for s in doc.sections if s.kind in ("header", "footer")]
    assert furniture == [
        ("header", 1, "Quarterly report"),
        ("footer", 1, "Page 1"),
        ("header", 2, "Quarterly report"),
        ("footer", 2, "Page 2"),
    ]
    assert "Quarterly" not in doc.text and "Page 1" not in doc.text


def test_pages_and_boxes(doc: Document) -> None:
    assert [(p.number, p.width, p.height, p.needs_ocr) for p in doc.pages] == [
        (1, 595.0, 842.0, False),
        (2, 595.0, 842.0, False),
    ]
    assert doc.metadata["title"] == "Hand made" and doc.metadata["page_count"] == 2
    title = doc.sections[1]
    assert title.page == 1
    x0, top, x1, bottom = title.bbox  # type: ignore[misc]
    # Drawn at x=72 with its baseline 20 pt under top=80: the box holds the glyphs.
    assert 71 <= x0 < 76 and 80 <= top < 90 and 120 < x1 < 160 and 95 < bottom <= 101
    for s in doc.sections:
        for b in s.boxes:
            page = doc.pages[b.page - 1]
            assert 0 <= b.x0 < b.x1 <= page.width and 0 <= b.top < b.bottom <= page.height


def test_a_paragraph_across_a_page_break_keeps_a_box_per_page(doc: Document) -> None:
    (last,) = [s for s in doc.sections if s.text.startswith("The outlook")]
    assert [b.page for b in last.boxes] == [1, 2]
    start = next(sp.start for sp in doc.spans() if doc.sections[sp.section_index] is last)
    assert doc.locate(start + 3).box.page == 1  # type: ignore[union-attr]
    assert doc.locate(start + len(last.text) - 3).box.page == 2  # type: ignore[union-attr]
    chunks = chunk_document(doc, RecursiveSplitter(chunk_size=6))
    flat = [c for c in chunks if "flat" in c.text]
    assert flat[0].metadata["pages"] == [2]
    results = [c for c in chunks if "Sales grew" in c.text]
    assert results[0].metadata["pages"] == [1] and results[0].metadata["headings"] == ["Results"]


def test_ragflow_sections_carry_position_tags(doc: Document) -> None:
    pairs = doc.ragflow_sections()
    assert pairs[0][0] == "Results" and pairs[0][1].startswith("@@1\t")
    merged = naive_merge_with_positions(pairs, chunk_token_num=256)
    assert {p for _, pos in merged for entry in pos for p in entry[0]} == {0, 1}


def test_pages_subset(doc: Document) -> None:
    two = parse(report_pdf(), pages=[2])
    assert [p.number for p in two.pages] == [2]
    assert {s.page for s in two.sections} == {2}
    with pytest.raises(ValueError, match=r"pages\[0\] is 3, but the PDF has 2 pages"):
        parse(report_pdf(), pages=[3])


def test_page_image(doc: Document) -> None:
    full = doc.page_image(1, scale=1.0)
    assert full.size == (595, 842)
    region = doc.page_image(1, doc.sections[1].bbox, scale=2.0)
    x0, top, x1, bottom = doc.sections[1].bbox  # type: ignore[misc]
    assert (
        abs(region.size[0] - 2 * (x1 - x0)) <= 2 and abs(region.size[1] - 2 * (bottom - top)) <= 2
    )
    # The title's region is not blank: some pixel is dark.
    assert region.convert("L").getextrema()[0] < 100
    with pytest.raises(ValueError, match="page must be one of"):
        doc.page_image(3)
    with pytest.raises(ValueError, match="x0 < x1"):
        doc.page_image(1, (10, 10, 5, 20))
    with pytest.raises(ValueError, match="scale"):
        doc.page_image(1, scale=0)


def test_a_page_without_text_needs_ocr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)  # no OCR engine
    with pytest.warns(UserWarning, match=r"without a text layer \(2\)"):
        doc = parse(simple_pdf([[("F1", 10, 72, 72, "Only page one has text.")], []]))
    assert [p.needs_ocr for p in doc.pages] == [False, True]
    assert doc.metadata["needs_ocr"] == [2]


def test_a_scanned_page_goes_through_the_ocr_callable() -> None:
    pytest.importorskip("PIL")
    data = simple_pdf(
        [[("F1", 10, 72, 72, "Page one has text.")], []],
        drawings=[[], [("image", 0, 0, 595, 842)]],
    )
    seen = []

    def ocr(image, page):
        seen.append((image.size, page.number))
        return [
            ("Scanned heading", (72, 60, 300, 80)),
            ("  ", (0, 0, 1, 1)),
            ("Body", (72, 90, 200, 100)),
        ]

    doc = parse(data, ocr=ocr)
    assert seen == [((1190, 1684), 2)]  # only the page without text, rendered at 2x
    scanned = [s for s in doc.sections if s.page == 2]
    assert [(s.kind, s.text, s.bbox, dict(s.metadata)) for s in scanned] == [
        # Laid out as a text layer is: a line twice the body's height is a title.
        ("title", "Scanned heading", (72.0, 60.0, 300.0, 80.0), {"ocr": True}),
        ("text", "Body", (72.0, 90.0, 200.0, 100.0), {"ocr": True}),
    ]
    assert doc.pages[1].needs_ocr  # the page still has no text layer of its own
    # A plain string is one section over the whole page.
    doc = parse(data, ocr=lambda image, page: "All of it")
    assert [(s.text, s.bbox) for s in doc.sections if s.page == 2] == [
        ("All of it", (0.0, 0.0, 595.0, 842.0))
    ]
    with pytest.raises(TypeError, match="ocr must be a callable"):
        parse(data, ocr="tesseract")
    with pytest.raises(TypeError, match="ocr must return"):
        parse(data, ocr=lambda image, page: 42)
    with pytest.raises(TypeError, match="at index 0"):
        parse(data, ocr=lambda image, page: [("text", (1, 2))])


def test_encrypted_pdf_names_password() -> None:
    pypdf = pytest.importorskip("pypdf")
    reader = pypdf.PdfReader(io.BytesIO(report_pdf()))
    writer = pypdf.PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.encrypt("s3cret", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    data = buf.getvalue()
    with pytest.raises(DocumentError, match=r"^locked\.pdf: the PDF is encrypted: pass password="):
        parse(data, filename="locked.pdf")
    with pytest.raises(DocumentError, match="password is not the PDF's password"):
        parse(data, filename="locked.pdf", password="wrong")
    opened = parse(data, filename="locked.pdf", password="s3cret")
    assert opened.sections[1].text == "Results"
    assert opened.page_image(1, scale=0.5).size == (298, 421)


@pytest.mark.parametrize("data", [b"%PDF-1.4\n", b"%PDF-1.4\n1 0 obj <<", b"%PDF" + bytes(300)])
def test_corrupt_pdf(data: bytes) -> None:
    with pytest.raises(DocumentError, match=r"^bad\.pdf: not a readable PDF file"):
        parse(data, filename="bad.pdf")


def test_truncated_and_bit_flipped_pdfs_parse_or_fail_clearly() -> None:
    import random

    data = report_pdf()
    rng = random.Random(5)
    for _ in range(60):
        b = bytearray(data[: rng.randrange(10, len(data) + 1)])
        for _ in range(rng.randint(0, 6)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        try:
            doc = parse(bytes(b), filename="fuzz.pdf")
        except DocumentError as e:
            assert str(e).startswith("fuzz.pdf")
            continue
        doc.markdown()


def test_pdf_oracle_targets() -> None:
    """The whole shared PDF oracle, scored by its own scorer, at the targets."""
    import importlib.util

    pytest.importorskip("pdfplumber")
    from testdata import SHARED, require_shared

    golden = require_shared(SHARED / "golden" / "documents")
    scorer = require_shared(SHARED / "eval" / "documents" / "docs_score.py")
    spec = importlib.util.spec_from_file_location("docs_score", scorer)
    assert spec is not None and spec.loader is not None
    ds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ds)
    truths = ds.load_truths(str(golden), "pdf")
    results = [
        ds.score_document(t, [s.to_dict() for s in parse(path).sections], path)
        for t, path in truths
    ]
    agg = ds.aggregate(results)
    assert agg["text_f1"] >= 0.99 and agg["leak"] <= 0.01, agg
    assert agg["order"] >= 0.98 and agg["bbox_valid"] >= 0.97, agg
    assert agg["heading_f1"] >= 0.95 and agg["heading_levels"] >= 0.9, agg
    assert agg["cell_f1"] >= 0.9 and agg["kind_acc"] >= 0.9, agg


def test_pieces_of_one_row_read_left_to_right() -> None:
    # Two pieces of one printed line whose tops differ by a fraction of a point (drawn right
    # piece first): one row, read left to right, not ordered by the fraction.
    page = [("F1", 11, 200, 100.0, "second half."), ("F1", 11, 72, 100.08, "The first half,")]
    doc = parse(simple_pdf([[*page, ("F1", 11, 72, 140, "Next line.")]]))
    text = doc.text
    assert text.index("The first half,") < text.index("second half.") < text.index("Next line.")


def test_small_glyphs_do_not_split_a_line() -> None:
    # An apostrophe or a full stop is a small box at the top or the bottom of the line: the
    # line goes on while a character shares height with the line so far.
    line = "It's the window. Don't split 'this' line, please."
    doc = parse(simple_pdf([[("F1", 11, 72, 100, line), ("F1", 11, 72, 140, "Next one.")]]))
    assert doc.sections[0].text == line.replace("'", "\u2019")
