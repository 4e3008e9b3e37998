"""PDF layout: tables from ruling lines, figures, columns, on hand-written PDFs."""

from __future__ import annotations

import pytest

pytest.importorskip("pypdfium2")

from docfiles import simple_pdf
from ragchunk.documents import parse


def _grid(x: list[float], y: list[float], skip: set[tuple[int, int]] = frozenset()):
    """Rules of a grid: horizontal ones at ``y``, vertical ones at ``x``; ``skip`` holds
    (vertical rule, row) pairs left out, for cells that span columns."""
    out = [("line", x[0], top, x[-1], top) for top in y]
    for i, left in enumerate(x):
        for r in range(len(y) - 1):
            if (i, r) not in skip:
                out.append(("line", left, y[r], left, y[r + 1]))
    return out


def _tables(doc):
    return [s for s in doc.sections if s.kind == "table"]


def test_grid_table_cells_rows_and_box() -> None:
    x = [72.0, 200.0, 330.0, 460.0]
    y = [120.0, 140.0, 160.0, 180.0]
    cells = [["Name", "Default", "Meaning"], ["depth", "3", "how deep"], ["width", "80", "cols"]]
    text = [
        ("F1", 10, x[k] + 4, y[r] + 5, cell)
        for r, row in enumerate(cells)
        for k, cell in enumerate(row)
    ]
    page = [("F1", 10, 72, 80, "Options are read once at start-up."), *text]
    page.append(("F1", 10, 72, 200, "After the table."))
    doc = parse(simple_pdf([page], drawings=[_grid(x, y)]))
    (table,) = _tables(doc)
    assert table.rows == cells
    assert table.text == "Name | Default | Meaning\ndepth | 3 | how deep\nwidth | 80 | cols"
    x0, top, x1, bottom = table.bbox
    assert abs(x0 - 72) < 1 and abs(top - 120) < 1 and abs(x1 - 460) < 1 and abs(bottom - 180) < 1
    kinds = [s.kind for s in doc.sections]
    assert kinds == ["text", "table", "text"]
    # The cells are not read again as body lines.
    assert doc.text.count("how deep") == 1


def test_a_grid_cell_without_a_rule_between_spans_columns() -> None:
    x = [72.0, 200.0, 330.0]
    y = [100.0, 120.0, 140.0]
    page = [
        ("F1", 10, 76, 105, "Options for the whole run"),
        ("F1", 10, 76, 125, "depth"),
        ("F1", 10, 204, 125, "3"),
    ]
    doc = parse(simple_pdf([page], drawings=[_grid(x, y, skip={(1, 0)})]))
    (table,) = _tables(doc)
    assert table.rows == [["Options for the whole run"], ["depth", "3"]]


def test_rule_only_table_with_a_wrapped_cell() -> None:
    # Top rule, a rule under the header row, a bottom rule; no vertical rules. The second
    # column's first cell wraps onto two lines (closer together than rows are).
    rules = [("line", 72, 100, 400, 100), ("line", 72, 118, 400, 118), ("line", 72, 175, 400, 175)]
    page = [
        ("F2", 9, 76, 105, "Key"),
        ("F2", 9, 200, 105, "Meaning"),
        ("F1", 9, 76, 124, "retries"),
        ("F1", 9, 200, 124, "How often a failed call"),
        ("F1", 9, 200, 135, "is tried again"),
        ("F1", 9, 76, 150, "timeout"),
        ("F1", 9, 200, 150, "Seconds to wait"),
        ("F1", 9, 76, 165, "proxy"),
        ("F1", 9, 200, 165, "Where calls go"),
    ]
    doc = parse(simple_pdf([page], drawings=[rules]))
    (table,) = _tables(doc)
    assert table.rows == [
        ["Key", "Meaning"],
        ["retries", "How often a failed call is tried again"],
        ["timeout", "Seconds to wait"],
        ["proxy", "Where calls go"],
    ]


def test_two_rules_around_a_paragraph_are_not_a_table() -> None:
    rules = [("line", 72, 100, 400, 100), ("line", 72, 150, 400, 150)]
    page = [
        ("F1", 10, 72, 110, "A boxed note that reads as one paragraph of text"),
        ("F1", 10, 72, 123, "over several lines, with no columns in it at all"),
        ("F1", 10, 72, 136, "and a last line."),
    ]
    doc = parse(simple_pdf([page], drawings=[rules]))
    assert not _tables(doc)
    assert "boxed note" in doc.text


def test_figures_images_and_drawings_with_captions() -> None:
    drawing = [
        ("rect", 100, 100, 300, 220),
        ("fill", 120, 160, 140, 215),
        ("fill", 160, 130, 180, 215),
        ("line", 110, 210, 290, 120),
    ]
    page = [
        ("F1", 10, 100, 230, "Figure 1: Requests per second"),
        ("F1", 10, 72, 260, "Some text between the figures."),
        ("F1", 10, 100, 420, "Figure 2: A photograph"),
    ]
    doc = parse(simple_pdf([page], drawings=[[*drawing, ("image", 100, 300, 250, 410)]]))
    kinds = [(s.kind, s.text) for s in doc.sections]
    assert kinds == [
        ("figure", ""),
        ("caption", "Figure 1: Requests per second"),
        ("text", "Some text between the figures."),
        ("figure", ""),
        ("caption", "Figure 2: A photograph"),
    ]
    first = doc.sections[0].bbox
    assert first is not None and abs(first[0] - 100) < 1.5 and abs(first[3] - 220) < 1.5


def test_a_shaded_code_block_is_not_a_figure() -> None:
    page = [
        ("F1", 10, 72, 80, "Run it:"),
        ("F3", 10, 80, 105, "make build"),
        ("F3", 10, 80, 118, "make test"),
    ]
    doc = parse(simple_pdf([page], drawings=[[("fill", 72, 100, 400, 132)]]))
    assert [s.kind for s in doc.sections] == ["text", "code"]
    assert doc.sections[1].text == "make build\nmake test"


def test_two_columns_read_left_column_first() -> None:
    left = [("F1", 10, 72, 100 + 14 * i, f"Left line {i} of the first column.") for i in range(8)]
    right = [("F1", 10, 320, 100 + 14 * i, f"Right line {i} of column two.") for i in range(8)]
    # Drawn right column first: the order in the file is not the reading order.
    doc = parse(simple_pdf([[*right, ("F2", 18, 72, 60, "Two columns"), *left]]))
    text = doc.text
    assert text.index("Two columns") < text.index("Left line 0") < text.index("Left line 7")
    assert text.index("Left line 7") < text.index("Right line 0") < text.index("Right line 7")


def test_short_lines_of_one_column_with_a_right_aligned_header_stay_one_column() -> None:
    pages = []
    for n in range(2):
        lines = [("F1", 8, 480, 30, "Field notes")]
        lines += [("F1", 10, 72, 100 + 14 * i, f"Short {n}.{i}") for i in range(10)]
        lines.append(("F1", 8, 280, 815, f"Page {n + 1}"))
        pages.append(lines)
    doc = parse(simple_pdf(pages))
    body = [s.text for s in doc.sections if s.kind not in ("header", "footer")]
    flat = " ".join(body)
    assert flat.index("Short 0.0") < flat.index("Short 0.9") < flat.index("Short 1.0")
    assert [s.kind for s in doc.sections].count("header") == 2


def _random_page(rng):
    """Characters on random lines (some generated spaces and breaks), random rules, boxes
    and images: what a page can look like to the layout, well formed or not."""
    from ragchunk._pure.documents import pdfium as P

    chars = []
    for _ in range(rng.randint(0, 40)):
        x, top = rng.uniform(0, 560), rng.choice([rng.uniform(0, 800), 100.0, 112.0, 124.0])
        size = rng.choice([8.0, 10.0, 10.0, 14.0])
        for _ in range(rng.randint(1, 30)):
            if rng.random() < 0.1:
                chars.append((" ", 0.0, 0.0, 0.0, 0.0, 0.0, P.GENERATED))
                continue
            if rng.random() < 0.03:
                chars.append(("\n", 0.0, 0.0, 0.0, 0.0, 0.0, P.BREAK | P.GENERATED))
            w = size * rng.uniform(0.3, 0.7)
            ch = rng.choice("abcdefghijklmnopqrstuvwxyzABC0123456789._-|")
            flags = rng.choice([0, 0, P.BOLD, P.MONO])
            chars.append((ch, x, top, x + w, top + size * 0.8, size, flags))
            x += w + rng.choice([0.5, 0.5, 3.0, 12.0, 50.0, -200.0])
    graphics = []
    for _ in range(rng.randint(0, 25)):
        x0, top = rng.uniform(0, 560), rng.uniform(0, 800)
        kind = rng.choice([P.PATH, P.PATH, P.PATH, P.IMAGE, P.SHADING])
        shape = rng.random()
        if shape < 0.4:
            x1, bottom = x0 + rng.uniform(5, 400), top + rng.uniform(0.1, 2)
        elif shape < 0.8:
            x1, bottom = x0 + rng.uniform(0.1, 2), top + rng.uniform(5, 300)
        else:
            x1, bottom = x0 + rng.uniform(1, 200), top + rng.uniform(1, 200)
        flags = rng.choice([P.STROKE | P.STRAIGHT, P.FILL, P.FILL | P.STRAIGHT, 0])
        graphics.append((kind, x0, top, x1, bottom, flags))
    return chars, graphics


def test_random_pages_keep_every_character() -> None:
    """Whatever the page, every drawn character comes out once: in a line or a table cell."""
    import random
    from collections import Counter

    from ragchunk._pure.documents.layout import page_items

    rng = random.Random(11)
    for _ in range(300):
        chars, graphics = _random_page(rng)
        items = page_items(chars, graphics, 595.0)
        want = Counter(c[0] for c in chars if not c[6] & 1 and not c[0].isspace())
        got = Counter()
        for kind, text, *_rest, rows in items:
            if kind == "table":
                got.update(ch for row in rows for cell in row for ch in cell if not ch.isspace())
            else:
                got.update(ch for ch in text if not ch.isspace())
        assert got == want
        assert all(it[0] in ("line", "table", "figure") for it in items)


def test_coordinates_that_are_not_finite_keep_their_text() -> None:
    from ragchunk._pure.documents.layout import page_items

    nan, inf = float("nan"), float("inf")
    chars = [("a", nan, 1, 2, 3, 10, 0), ("b", 1, inf, 2, 3, 10, 0), ("c", 10, 10, 15, 20, 10, 0)]
    graphics = [(2, nan, 0, 5, 1, 6), (2, 0, 0, inf, 1, 6)]
    items = page_items(chars, graphics, 600.0)
    assert "".join(it[1] for it in items).replace(" ", "") == "abc"


@pytest.mark.parametrize(
    ("line", "caption"),
    [
        ("Figure 3: Requests", True),
        ("Fig. 3. Requests", True),
        ("Table 2: Options", True),
        ("图 1：概览", True),
        ("図 1：概要", True),
        ("그림 1: 개요", True),
        ("표 2: 옵션", True),
        ("Рисунок 1: Схема", True),
        ("Рис. 1 — Схема", True),
        ("Таблица 2: Параметры", True),
        ("Figures 3 and 4 show", False),
        ("Table of contents", False),
    ],
)
def test_caption_words_in_several_scripts(line: str, caption: bool) -> None:
    from ragchunk.documents._pdf import _CAPTION

    assert bool(_CAPTION.match(line)) is caption


def test_a_one_page_document_keeps_its_small_running_header_out_of_the_body() -> None:
    # One page: nothing repeats, but the header at the top edge is set smaller than the body.
    page = [
        ("F1", 8, 420, 30, "Field notes"),
        ("F2", 18, 72, 80, "Field notes"),
        *[("F1", 10, 72, 120 + 13 * i, f"Body line {i} of the only page.") for i in range(5)],
        ("F1", 8, 280, 815, "Page 1"),
    ]
    doc = parse(simple_pdf([page]))
    kinds = [(s.kind, s.text) for s in doc.sections]
    assert kinds[0] == ("header", "Field notes") and kinds[1] == ("title", "Field notes")
    assert kinds[-1] == ("footer", "Page 1")
    assert doc.text.count("Field notes") == 1
