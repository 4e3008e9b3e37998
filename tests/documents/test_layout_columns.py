"""PDF reading order on pages of three columns, with a heading across them, on a
hand-written PDF."""

from __future__ import annotations

import pytest

pytest.importorskip("pypdfium2")

from docfiles import simple_pdf
from ragchunk.documents import parse

COLUMNS = [[f"Column {c} line {i} goes on here" for i in range(8)] for c in "ABC"]


def test_three_columns_read_column_by_column_below_a_spanning_heading() -> None:
    page = [("F2", 18, 40, 50, "A heading set across all three of the columns")]
    for k, col in enumerate(COLUMNS):
        # 170 pt apart: the columns' lines share their heights, 10 pt text in 150 pt.
        page += [("F1", 8, 40 + 180 * k, 100 + 12 * i, text) for i, text in enumerate(col)]
    page.append(("F2", 18, 40, 220, "Another heading across the columns"))
    page += [("F1", 8, 40 + 180 * k, 260, f"After {k}") for k in range(3)]
    doc = parse(simple_pdf([page], size=(595.0, 842.0)))
    # Each column read in turn (a paragraph runs on into the next column), then the
    # second heading, then the band below it, column by column.
    text = " ".join(s.text for s in doc.sections)
    want = [
        "A heading set across all three of the columns",
        *(line for col in COLUMNS for line in col),
        "Another heading across the columns",
        "After 0 After 1 After 2",
    ]
    assert text == " ".join(want)
    titles = [s.text for s in doc.sections if s.kind == "title"]
    assert titles == [want[0], "Another heading across the columns"]
    # One box per column the paragraph runs through, each inside its column.
    (para,) = [s for s in doc.sections if s.text.startswith("Column A")]
    assert len(para.boxes) == 3
    for box, col in zip(para.boxes, range(3), strict=True):
        assert 40 + 180 * col - 1 <= box.x0 and box.x1 <= 40 + 180 * col + 160
