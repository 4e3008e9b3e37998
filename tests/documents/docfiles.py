"""Small DOCX, XLSX and zip files built at test time (python-docx, openpyxl, zipfile)."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

import docx
import openpyxl
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Inches


def png(width: int = 4, height: int = 3) -> bytes:
    """A tiny grey RGB PNG."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    raw = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def _numbered(paragraph: object, num_id: int = 1, level: int = 0) -> None:
    ppr = paragraph._p.get_or_add_pPr()  # type: ignore[attr-defined]
    num = OxmlElement("w:numPr")
    ilvl = OxmlElement("w:ilvl")
    ilvl.set(qn("w:val"), str(level))
    nid = OxmlElement("w:numId")
    nid.set(qn("w:val"), str(num_id))
    num.append(ilvl)
    num.append(nid)
    ppr.append(num)


def sample_docx() -> bytes:
    """A DOCX with every construct the parser reads, in a known order."""
    d = docx.Document()
    d.core_properties.title = "Field guide"
    d.core_properties.author = "A. Writer"
    section = d.sections[0]
    section.header.paragraphs[0].text = "Field guide (running header)"
    section.footer.paragraphs[0].text = "Confidential footer"
    chapter = d.styles.add_style("Chapter Heading", WD_STYLE_TYPE.PARAGRAPH)
    chapter.base_style = d.styles["Heading 2"]
    code = d.styles.add_style("Code", WD_STYLE_TYPE.PARAGRAPH)
    code.base_style = d.styles["Normal"]

    d.add_paragraph("Field guide", style="Title")
    d.add_paragraph("An opening paragraph.")
    d.add_heading("Install", level=1)
    d.add_paragraph("First bullet", style="List Bullet")
    d.add_paragraph("Second bullet", style="List Bullet")
    p = d.add_paragraph("Numbered by hand")
    _numbered(p, level=1)
    d.add_paragraph("pip install thing", style="Code")
    d.add_paragraph("thing --help", style="Code")
    mono = d.add_paragraph()
    mono.add_run("print('mono')").font.name = "Courier New"
    d.add_paragraph("Usage", style="Chapter Heading")
    d.add_paragraph("Table 1: Options", style="Caption")
    t = d.add_table(rows=4, cols=3)
    t.style = "Table Grid"
    t.cell(0, 0).merge(t.cell(0, 2)).text = "Options"
    for j, h in enumerate(["Name", "Default", "Meaning"]):
        t.cell(1, j).text = h
    t.cell(2, 0).text = "depth"
    t.cell(2, 1).merge(t.cell(3, 1)).text = "3"
    t.cell(2, 2).text = "how deep"
    t.cell(3, 0).text = "width"
    t.cell(3, 2).text = "how wide"
    d.add_picture(io.BytesIO(png()), width=Inches(1))
    d.add_paragraph("Figure 1: A grey square", style="Caption")
    d.add_heading("Deep detail", level=3)
    d.add_paragraph("Last words.")
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def sample_xlsx() -> bytes:
    """Two sheets: a default-named one and a named one, with numbers, blanks and a date."""
    import datetime as dt

    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Sheet1"
    ws.append(["name", "qty", "when"])
    ws.append(["bolt", 3, dt.date(2024, 5, 1)])
    ws.append(["nut", 2.0, None])
    ws.append([None, None, None])
    ws.append(["washer", None, None])
    other = book.create_sheet("prices")
    other.append(["item", "price"])
    other.append(["bolt", 0.25])
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


def rezip(data: bytes, replace: dict[str, bytes]) -> bytes:
    """A copy of a zip package with some members' contents replaced (or added)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = replace.get(info.filename, src.read(info))
            dst.writestr(info.filename, body, compress_type=zipfile.ZIP_DEFLATED)
        for name in replace.keys() - set(src.namelist()):
            dst.writestr(name, replace[name], compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


BILLION_LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    + b"".join(
        f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'.encode()
        for i in range(1, 10)
    )
    + b']>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    b"<w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"
)


def simple_pdf(
    pages: list[list[tuple[str, float, float, float, str]]],
    size=(595.0, 842.0),
    drawings: list[list[tuple[str, float, float, float, float]]] | None = None,
) -> bytes:
    """A PDF written by hand: per page, ``(font, size, x, top, text)`` lines in the base-14
    fonts ``F1`` Helvetica, ``F2`` Helvetica-Bold, ``F3`` Courier (``top`` from the page's top),
    and ``drawings``, per page, ``(op, x0, top, x1, bottom)`` shapes drawn before the text:
    ``"line"`` (a 1 pt stroked line from ``(x0, top)`` to ``(x1, bottom)``), ``"rect"`` (a
    stroked rectangle), ``"fill"`` (a grey filled rectangle), ``"image"`` (a 2x2 grey image)."""
    width, height = size
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    fonts = {
        name: add(f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} >>".encode())
        for name, base in (("F1", "Helvetica"), ("F2", "Helvetica-Bold"), ("F3", "Courier"))
    }
    resources = " ".join(f"/{k} {v} 0 R" for k, v in fonts.items())
    pages_id = len(objects) + 1 + 2 * len(pages)
    image = add(
        b"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Length 4 >>\nstream\n\x80\x40\x40\x80\nendstream"
    )
    pages_id += 1
    kids = []
    for number, lines in enumerate(pages):
        ops = []
        for op, x0, top, x1, bottom in (drawings or [[]] * len(pages))[number]:
            y0, y1 = height - top, height - bottom
            if op == "line":
                ops.append(f"1 w {x0} {y0} m {x1} {y1} l S")
            elif op == "rect":
                ops.append(f"1 w {x0} {y1} {x1 - x0} {y0 - y1} re S")
            elif op == "fill":
                ops.append(f"0.9 g {x0} {y1} {x1 - x0} {y0 - y1} re f 0 g")
            elif op == "image":
                ops.append(f"q {x1 - x0} 0 0 {y0 - y1} {x0} {y1} cm /Im1 Do Q")
        for font, pt, x, top, text in lines:
            esc = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"BT /{font} {pt} Tf {x} {height - top - pt} Td ({esc}) Tj ET")
        stream = "\n".join(ops).encode("latin-1")
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(
            add(
                f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {width} {height}] "
                f"/Contents {content} 0 R /Resources << /Font << {resources} >> "
                f"/XObject << /Im1 {image} 0 R >> >> >>".encode()
            )
        )
    refs = " ".join(f"{k} 0 R" for k in kids)
    assert add(f"<< /Type /Pages /Kids [{refs}] /Count {len(kids)} >>".encode()) == pages_id
    catalog = add(f"<< /Type /Catalog /Pages {pages_id} 0 R >>".encode())
    info = add(b"<< /Title (Hand made) /Author (Tests) >>")
    return pdf_file(objects, catalog, info)


def pdf_file(objects: list[bytes], root: int, info: int | None = None) -> bytes:
    """A PDF file of ``objects`` (numbered from 1), its cross-reference table and a trailer
    naming the catalog ``root`` (and the ``info`` dictionary)."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    extra = b" /Info %d 0 R" % info if info is not None else b""
    out += b"trailer\n<< /Size %d /Root %d 0 R%s >>\n" % (len(objects) + 1, root, extra)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def report_pdf() -> bytes:
    """Two pages: a running header and a page-number footer, a bold title, body paragraphs,
    a bullet list, a caption and a code line; the first body paragraph runs onto page 2."""
    body = "F1"
    page1 = [
        (body, 9, 72, 30, "Quarterly report"),
        ("F2", 20, 72, 80, "Results"),
        (body, 10, 72, 120, "Sales grew in every region this quarter, led by"),
        (body, 10, 72, 133, "the north, where two new stores opened."),
        ("F2", 14, 72, 170, "Details"),
        (body, 10, 72, 200, "- Stores: twelve in total"),
        (body, 10, 72, 214, "- Staff: ninety people"),
        (body, 10, 72, 250, "Figure 1: Sales by region"),
        ("F3", 10, 72, 280, "total = sum(sales)"),
        (body, 10, 72, 780, "The outlook for next quarter is steady, with"),
        (body, 9, 280, 815, "Page 1"),
    ]
    page2 = [
        (body, 9, 72, 30, "Quarterly report"),
        (body, 10, 72, 60, "costs expected to stay flat."),
        (body, 9, 280, 815, "Page 2"),
    ]
    return simple_pdf([page1, page2])
