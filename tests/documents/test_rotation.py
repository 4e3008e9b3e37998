"""Rotated PDF pages: ``/Rotate`` and text drawn turned are read in the text's own direction,
and boxes are in the page as displayed; on hand-written PDFs."""

from __future__ import annotations

import pytest

pytest.importorskip("pypdfium2")

from docfiles import pdf_file
from ragchunk.documents import parse

W, H = 400.0, 600.0
LEFT = [f"Left column line {i} of the page." for i in range(6)]
RIGHT = [f"Right column line {i} here." for i in range(6)]


def _pdf(rotate: int, ops: list[str]) -> bytes:
    """One ``W`` x ``H`` page with ``/Rotate rotate``, drawing ``ops`` in Helvetica ``F1``."""
    stream = "\n".join(ops).encode("latin-1")
    objects = [
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        (
            f"<< /Type /Page /Parent 4 0 R /MediaBox [0 0 {W} {H}] /Rotate {rotate} "
            "/Contents 2 0 R /Resources << /Font << /F1 1 0 R >> >> >>"
        ).encode(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Catalog /Pages 4 0 R >>",
    ]
    return pdf_file(objects, 5)


def _upright_columns() -> list[str]:
    """Two columns of upright text, lines 14 pt apart from 100 pt below the top."""
    ops = []
    for i, (a, b) in enumerate(zip(LEFT, RIGHT, strict=True)):
        y = H - 100 - 14 * i
        ops.append(f"BT /F1 10 Tf 40 {y} Td ({a}) Tj ET")
        ops.append(f"BT /F1 10 Tf 220 {y} Td ({b}) Tj ET")
    return ops


def _body(doc) -> str:
    return " ".join(s.text for s in doc.sections if s.kind not in ("header", "footer"))


@pytest.mark.parametrize("rotate", [90, 270])
def test_rotate_reads_the_text_and_boxes_the_page_as_displayed(rotate: int) -> None:
    doc = parse(_pdf(rotate, _upright_columns()))
    (page,) = doc.pages
    assert (page.width, page.height) == (H, W)
    # The text reads as on the unrotated page: the left column, then the right one.
    assert _body(doc) == " ".join(LEFT + RIGHT)
    for sec in doc.sections:
        for b in sec.boxes:
            assert 0 <= b.x0 < b.x1 <= page.width and 0 <= b.top < b.bottom <= page.height
            # The lines run down (90) or up (270) the displayed page: tall, narrow boxes.
            assert b.bottom - b.top > b.x1 - b.x0
    # The left column's x (40 pt) is its distance from the displayed top (90) or bottom (270).
    first = doc.sections[0].boxes[0]
    if rotate == 90:
        assert first.top == pytest.approx(40, abs=1.5)
        assert first.x0 > page.width / 2  # the top of the page is now on the right
    else:
        assert first.bottom == pytest.approx(W - 40, abs=1.5)
        assert first.x1 < page.width / 2


def test_text_drawn_turned_reads_in_its_own_direction() -> None:
    # Text turned a quarter counterclockwise on the page, which /Rotate 90 sets upright: lines
    # run up the page, each further right than the last.
    lines = [f"Turned line {i} reads upright." for i in range(5)]
    ops = [f"BT /F1 10 Tf 0 1 -1 0 {100 + 14 * i} 80 Tm ({t}) Tj ET" for i, t in enumerate(lines)]
    doc = parse(_pdf(90, ops))
    assert _body(doc) == " ".join(lines)
    (page,) = doc.pages
    (box,) = [b for s in doc.sections for b in s.boxes]
    # Upright as displayed: a wide box, its left edge 80 pt from the displayed left.
    assert box.x1 - box.x0 > box.bottom - box.top > 0
    assert box.x0 == pytest.approx(80, abs=1.5)
    assert 0 <= box.top < box.bottom <= page.height


def test_unrotated_page_is_unchanged() -> None:
    doc = parse(_pdf(0, _upright_columns()))
    assert _body(doc) == " ".join(LEFT + RIGHT)
    assert doc.sections[0].boxes[0].x0 == pytest.approx(40, abs=1.5)
