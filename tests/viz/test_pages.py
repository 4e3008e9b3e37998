"""The viewer on parsed documents: a PDF's pages as inline images with its section and chunk
boxes drawn over them and linked to the text (checked in the data and in headless Chromium),
DOCX without a pages panel, ``ragchunk view`` on a PDF and a DOCX, and the viewer's doctests."""

from __future__ import annotations

import base64
import doctest
import io
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from ragchunk import RecursiveSplitter
from ragchunk.cli import main
from ragchunk.viz import View, render
from viewer_support import Page, assert_not_blank, screenshot

pytest.importorskip("pypdfium2", reason="the documents extra is not installed")
pytest.importorskip("docx", reason="the documents extra is not installed")
PIL = pytest.importorskip("PIL.Image", reason="Pillow is not installed")

sys.path.append(str(Path(__file__).resolve().parents[1] / "documents"))
from docfiles import sample_docx, simple_pdf  # noqa: E402
from ragchunk.documents import Document, parse  # noqa: E402

HOSTILE = "<script>alert(1)</script>"
HOSTILE_IMG = "<img src=x onerror=alert(2)><svg onload=alert(3)>"


def paper(hostile: bool = False) -> bytes:
    """Three pages: titles, paragraphs of two and three lines, list items, running
    headers; with ``hostile``, markup in a title and a paragraph."""
    pages = []
    for n in range(1, 4):
        title = f"Part {n}: {HOSTILE}" if hostile and n == 2 else f"Part {n}: boxes and pages"
        lines: list[tuple[str, float, float, float, str]] = [
            ("F1", 9, 72, 30, "Field notes"),
            ("F2", 18, 72, 80, title),
            ("F1", 10, 72, 120, f"Paragraph one of part {n} opens the part and it runs on"),
            ("F1", 10, 72, 133, "over two lines of the page, with a few more words."),
            ("F2", 14, 72, 180, f"Section {n}.1"),
            ("F1", 10, 72, 210, f"The second paragraph of part {n} is longer than the"),
            ("F1", 10, 72, 223, "first one: it holds three lines of plain words that a"),
            ("F1", 10, 72, 236, "small chunk size has to cut in two or three pieces."),
            ("F1", 10, 72, 280, f"- item one of part {n}"),
            ("F1", 10, 72, 294, f"- item two of part {n}"),
        ]
        if hostile and n == 1:
            lines.append(("F1", 10, 72, 340, f"Markup {HOSTILE_IMG} stays text."))
        pages.append(lines)
    return simple_pdf(pages)


def page_data(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="ragchunk-data">(.*?)</script>', page, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def png_size(uri: str) -> tuple[int, int]:
    assert uri.startswith("data:image/png;base64,")
    img = PIL.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))
    return img.size


def test_a_pdf_gets_its_pages_and_boxes() -> None:
    doc = parse(paper(), filename="paper.pdf")
    chunker = RecursiveSplitter(24)
    view = View(doc, [chunker, RecursiveSplitter(200)], page_width=300)
    assert view.document is doc and view.source == doc.text
    data = page_data(view.html())
    pages = data["pages"]
    assert [p[0] for p in pages["pages"]] == [1, 2, 3]
    for number, width, height, uri in pages["pages"]:
        w, h = png_size(uri)
        assert w == 300 and abs(h - 300 * height / width) <= 1, (number, w, h)
    # every section box, on its page, with the text it holds
    want = [(b.page, s.kind) for s in doc.sections for b in s.boxes]
    assert [(b[0], b[6]) for b in pages["boxes"]] == want
    body = [b for b in pages["boxes"] if b[7] is not None]
    assert body and all(b[6] not in ("header", "footer") for b in body)
    for b in body:
        assert doc.text[b[7] : b[8]] in doc.sections[b[5]].text
    headers = [b for b in pages["boxes"] if b[6] == "header"]
    assert len(headers) == 3 and all(b[7] is None for b in headers)
    # the chunks' boxes are their sections' boxes, and each chunk overlaps the box's text
    chunks = view.columns[0].chunks
    assert chunks == [c for c in chunks if c.metadata["bboxes"]]
    pairs = pages["columns"][0]
    assert {k for k, _ in pairs} == set(range(len(chunks)))
    for k, b in pairs:
        box = pages["boxes"][b]
        c = chunks[k]
        assert box[5] in c.metadata["sections"]
        assert c.start < box[8] and c.end > box[7]
    # the wide column holds whole sections: several per chunk
    assert len(pages["columns"][1]) == len(body)


def test_only_the_first_max_pages_are_images() -> None:
    doc = parse(paper(), filename="paper.pdf")
    data = page_data(render(doc, RecursiveSplitter(64), max_pages=1, page_width=200))
    images = [p[3] for p in data["pages"]["pages"]]
    assert images[0] is not None and images[1:] == [None, None]
    assert data["pages"]["max_pages"] == 1
    # the later pages still carry their boxes
    assert {b[0] for b in data["pages"]["boxes"]} == {1, 2, 3}


#: A 300-page PDF's page: measured 0.8 MB and 1.1 s on a 2-core machine (30 page images).
LONG_PDF_BYTES = 6_000_000
LONG_PDF_SECONDS = 20.0


def test_a_300_page_pdf_stays_small() -> None:
    pages = [
        [("F1", 10, 72, 100 + 40 * i, f"Paragraph {i} of page {n}.") for i in range(3)]
        for n in range(1, 301)
    ]
    doc = parse(simple_pdf(pages), filename="long.pdf")
    assert len(doc.pages) == 300
    t0 = time.perf_counter()
    html = render(doc, RecursiveSplitter(64))
    seconds = time.perf_counter() - t0
    data = page_data(html)
    assert [p[3] is not None for p in data["pages"]["pages"]] == [True] * 30 + [False] * 270
    assert len(data["pages"]["boxes"]) == 900
    assert len(html) < LONG_PDF_BYTES, len(html)
    assert seconds < LONG_PDF_SECONDS, seconds


def test_docx_has_no_pages_panel() -> None:
    doc = parse(sample_docx(), filename="guide.docx")
    html = render(doc, RecursiveSplitter(32))
    assert page_data(html)["pages"] is None
    assert 'id="pages"' not in html
    assert page_data(html)["text"] == doc.text


def test_bad_page_options_are_named() -> None:
    doc = parse(paper(), filename="paper.pdf")
    with pytest.raises(ValueError, match="max_pages must be an int >= 0, got -1"):
        render(doc, RecursiveSplitter(64), max_pages=-1)
    with pytest.raises(ValueError, match="page_width must be an int from 16 to 4000"):
        render(doc, RecursiveSplitter(64), page_width=0)
    with pytest.raises(ValueError, match="page_width"):
        render("text", RecursiveSplitter(64), page_width=True)  # type: ignore[arg-type]
    # a document built by hand has pages but no file to render them from
    hand = Document(doc.sections, doc.pages)
    with pytest.raises(ValueError, match="not parsed from a file that can be rendered"):
        render(hand, RecursiveSplitter(64))
    blank = page_data(render(hand, RecursiveSplitter(64), max_pages=0))["pages"]
    assert blank["pages"][0][3] is None


def test_ragchunk_view_parses_pdf_and_docx(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(paper())
    out = tmp_path / "pdf.html"
    args = ["view", str(pdf), "--out", str(out), "--chunk-size", "32", "--max-pages", "2"]
    assert main(args) == 0
    data = page_data(out.read_text(encoding="utf-8"))
    assert data["text"] == parse(paper()).text
    assert [p[3] is not None for p in data["pages"]["pages"]] == [True, True, False]
    docx_path = tmp_path / "guide.docx"
    docx_path.write_bytes(sample_docx())
    out = tmp_path / "docx.html"
    assert main(["view", str(docx_path), "--out", str(out)]) == 0
    data = page_data(out.read_text(encoding="utf-8"))
    assert "Field guide" in data["text"] and data["pages"] is None
    assert "wrote" in capsys.readouterr().err


def test_the_viewer_doctests() -> None:
    from ragchunk import viz
    from ragchunk.cli import view as cli
    from ragchunk.viz import _model, _pages, html, terminal

    results = [
        doctest.testmod(m, optionflags=doctest.ELLIPSIS)
        for m in (viz, _model, _pages, cli, html, terminal)
    ]
    assert sum(r.failed for r in results) == 0
    assert sum(r.attempted for r in results) > 20


# -- in the browser ----------------------------------------------------------------------------

BOXES = """() => [...document.querySelectorAll('#pages .cbox, #pages .sbox')].map((n) => {
  const img = n.parentNode.querySelector('img.pageimg').getBoundingClientRect();
  const r = n.getBoundingClientRect();
  return {cls: n.className, k: n.dataset.k, b: +n.dataset.b,
          inside: r.left >= img.left - 0.5 && r.right <= img.right + 0.5 &&
                  r.top >= img.top - 0.5 && r.bottom <= img.bottom + 0.5 &&
                  r.width > 0 && r.height > 0};
})"""


def open_doc(page: Page, tmp_path: Path, html: str, name: str = "doc.html") -> None:
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    page.open(path)
    page.js("window.ragchunkView.drawPages()")


@pytest.mark.single_backend
def test_pages_in_the_browser_link_boxes_and_chunks(page: Page, tmp_path: Path) -> None:
    doc = parse(paper(), filename="paper.pdf")
    view = View(doc, [RecursiveSplitter(24), RecursiveSplitter(200)])
    data = page_data(view.html())["pages"]
    open_doc(page, tmp_path, view.html())
    # one image per page, each loaded
    images = page.js(
        "[...document.querySelectorAll('#pages .sheet')].map((s) => "
        "[+s.dataset.page, s.querySelectorAll('img.pageimg').length, "
        "(s.querySelector('img') || {}).naturalWidth])"
    )
    assert images == [[1, 1, 800], [2, 1, 800], [3, 1, 800]]
    boxes = page.js(BOXES)
    assert len([b for b in boxes if "sbox" in b["cls"]]) == len(data["boxes"])
    assert len([b for b in boxes if "cbox" in b["cls"]]) == len(data["columns"][0])
    assert all(b["inside"] for b in boxes), [b for b in boxes if not b["inside"]]
    # chunk boxes are coloured like their chunk in the text column
    colours = page.js(
        """[...document.querySelectorAll('#pages .cbox')].map((n) => [n.style.backgroundColor,
             getComputedStyle(document.querySelector(
               `.doc[data-col="0"] .chunk[data-k="${n.dataset.k}"]`)).backgroundColor])"""
    )
    assert colours and all(a == b for a, b in colours)
    # clicking a box selects a chunk holding the box's text (the whole section when the
    # section is in one chunk)
    chunks = view.columns[0].chunks
    held: dict[int, list[int]] = {}
    for k, b in data["columns"][0]:
        held.setdefault(b, []).append(k)
    whole = 0
    for k, b in data["columns"][0]:
        box = data["boxes"][b]
        page.page.click(f'#pages .cbox[data-k="{k}"][data-b="{b}"]')
        selected = page.js("document.querySelector('.doc .chunk.selected').dataset.k")
        assert selected == str(k)
        text = chunks[k].text
        if held[b] == [k]:
            assert doc.sections[box[5]].text in text
            whole += 1
        else:
            assert doc.text[max(box[7], chunks[k].start) : min(box[8], chunks[k].end)] in text
        assert f"chunk {k} of {len(chunks)}" in page.page.inner_text("#details")
        lit = page.js(
            "[...document.querySelectorAll('#pages .cbox.selected')].map((n) => n.dataset.k)"
        )
        assert set(lit) == {str(k)}
    assert whole >= 3 and whole < len(data["columns"][0])
    # selecting a chunk in the text lights its boxes, on its page
    k = next(k for k, b in data["columns"][0] if data["boxes"][b][0] == 3)
    page.page.click(f'.doc[data-col="0"] .chunk[data-k="{k}"]')
    lit = page.js(
        "[...document.querySelectorAll('#pages .cbox.selected')]"
        ".map((n) => [n.dataset.k, n.closest('.sheet').dataset.page])"
    )
    want = [[str(k), str(data["boxes"][b][0])] for kk, b in data["columns"][0] if kk == k]
    assert sorted(lit) == sorted(want) and [str(k), "3"] in lit
    # a chunk of the other column switches the boxes to that column
    page.page.click('.doc[data-col="1"] .chunk[data-k="0"]')
    assert page.js("document.getElementById('boxcol').value") == "1"
    assert page.js("document.querySelectorAll('#pages .cbox').length") == len(data["columns"][1])
    # clicking a section box without chunks (a running header) explains it
    page.page.click("#pages .sbox.kind-header >> nth=0", force=True)
    assert "header" in page.page.inner_text("#details")
    assert page.errors == [] and page.dialogs == []
    page.page.click('.doc[data-col="0"] .chunk[data-k="2"]')
    assert_not_blank(screenshot(page, "pages", docs=True))


@pytest.mark.single_backend
def test_pages_past_max_pages_show_boxes_without_images(page: Page, tmp_path: Path) -> None:
    doc = parse(paper(), filename="paper.pdf")
    open_doc(page, tmp_path, render(doc, RecursiveSplitter(64), max_pages=1))
    sheets = page.js(
        "[...document.querySelectorAll('#pages .sheet')].map((s) => "
        "[s.querySelectorAll('img').length, s.querySelectorAll('.sbox').length, "
        "!!s.querySelector('.unrendered'), s.getBoundingClientRect().width > 100])"
    )
    assert [s[0] for s in sheets] == [1, 0, 0]
    assert all(s[1] > 0 and s[3] for s in sheets)
    assert [s[2] for s in sheets] == [False, True, True]
    assert "3 pages, the first 1 as images" in page.page.inner_text("#pages .pageshead")


@pytest.mark.single_backend
def test_hostile_pdf_text_stays_inert(page: Page, tmp_path: Path) -> None:
    doc = parse(paper(hostile=True), filename="hostile.pdf")
    assert HOSTILE in doc.text and HOSTILE_IMG in doc.text
    view = View(doc, RecursiveSplitter(24), title=HOSTILE)
    open_doc(page, tmp_path, view.html())
    for n in page.page.locator("#pages .cbox").all():
        n.click()
    assert page.dialogs == [] and page.errors == []
    assert page.js("document.querySelectorAll('#pages img').length") == 3
    injected = "img:not(.pageimg), .doc svg, #pages svg, #pages script, iframe, [onerror], [onload]"
    assert page.js(f"document.querySelectorAll('{injected}').length") == 0
    titles = page.js("[...document.querySelectorAll('#pages .cbox')].map((n) => n.title)")
    assert any(HOSTILE in t for t in titles) and any("onerror" in t for t in titles)
    assert page.page.title() == HOSTILE
