"""The compiled PDF layout (``_core.pdf_page_items``, ``_core.pdf_layout_items``) against
``_pure.documents.layout.page_items``: the same items in the same order, the same strings,
floats bit for bit.

Every page of the shared golden PDFs goes through both (the compiled one reading the page
through PDFium itself), and a few hundred seeded synthetic pages (lines with generated spaces
and breaks, ligatures and presentation forms, captions, rule grids, stroked boxes, rule-only
tables, images and drawings, two columns) go through ``pdf_layout_items``.
"""

from __future__ import annotations

import ctypes
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from ragchunk._pure.documents.layout import page_items
from ragchunk._pure.documents.pdfium import (
    BOLD,
    BREAK,
    FILL,
    GENERATED,
    IMAGE,
    MONO,
    PATH,
    SHADING,
    STRAIGHT,
    STROKE,
    Char,
    Graphic,
)

pytestmark = pytest.mark.single_backend

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT.parent / "shared" / "golden" / "documents"
GOLDEN_PDFS = sorted(GOLDEN.glob("pdf-*.pdf")) if GOLDEN.is_dir() else []


def exact(rust: list[Any], python: list[Any]) -> None:
    """Equal items, and floats equal bit for bit (``==`` holds for 0.0 against -0.0)."""
    assert rust == python

    def bits(items: list[Any]) -> list[list[Any]]:
        return [[v.hex() if isinstance(v, float) else v for v in it] for it in items]

    assert bits(rust) == bits(python)


# --------------------------------------------------------------------------- golden PDFs


def address(handle: Any) -> int:
    value = ctypes.cast(handle, ctypes.c_void_p).value
    assert value
    return value


@pytest.mark.skipif(not GOLDEN_PDFS, reason=f"no golden PDFs under {GOLDEN}")
@pytest.mark.parametrize("path", GOLDEN_PDFS, ids=lambda p: p.name)
def test_golden_pdfs(core: ModuleType, path: Path) -> None:
    pdfium = pytest.importorskip("pypdfium2")
    import pypdfium2.raw as raw  # type: ignore[import-untyped]
    from ragchunk._pure.documents.pdfium import function_table, page_content

    functions = function_table(raw)
    pdf = pdfium.PdfDocument(path)
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            try:
                width, height = page.get_size()
                python = page_items(*page_content(raw, page.raw, textpage.raw, height), width)
                rust = core.pdf_page_items(
                    functions, address(page.raw), address(textpage.raw), width, height
                )
            finally:
                textpage.close()
                page.close()
            exact(rust, python)
    finally:
        pdf.close()


def test_bad_arguments(core: ModuleType) -> None:
    with pytest.raises(ValueError, match="functions"):
        core.pdf_page_items([1, 2], 1, 1, 600.0, 800.0)
    pytest.importorskip("pypdfium2")
    import pypdfium2.raw as raw
    from ragchunk._pure.documents.pdfium import function_table

    with pytest.raises(ValueError, match="page"):
        core.pdf_page_items(function_table(raw), 0, 1, 600.0, 800.0)
    with pytest.raises(ValueError, match="textpage"):
        core.pdf_page_items(function_table(raw), 1, 0, 600.0, 800.0)


# --------------------------------------------------------------------------- synthetic pages

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789.,_-()"
_ODD = [
    "\ufb01",  # fi ligature
    "\ufb03",
    "\ufffe",  # PDFium's line-end hyphen
    "\ufefb",  # Arabic lam-alef
    "\ufe8d",
    "\ufeff",
    "\xb2",  # superscript two: a digit to isdigit
    "\u2460",
    "\u0663",
    "图",
    "表",
    "\u3000",
    "\xa0",
    "\t",
    "\x1c",
    "\u200b",
    "İ",
]
_WORDS = ["Figure", "fig.", "Table", "TABLE", "table", "图", "表", "Σ", "note"]


def _gen_space() -> Char:
    return (" ", 0.0, 0.0, 0.0, 0.0, 0.0, GENERATED)


def _word(rng: random.Random) -> str:
    if rng.random() < 0.15:
        return rng.choice(_WORDS) + (str(rng.randint(1, 12)) if rng.random() < 0.7 else "")
    n = rng.randint(1, 9)
    return "".join(
        rng.choice(_ODD) if rng.random() < 0.06 else rng.choice(_LETTERS) for _ in range(n)
    )


def _coord(rng: random.Random, v: float) -> float:
    """A coordinate as PDFium gives them: an arbitrary double, or a round one (ties)."""
    r = rng.random()
    if r < 0.3:
        return round(v * 4) / 4
    if r < 0.4:
        return float(round(v))
    return v


def _text_line(
    rng: random.Random, out: list[Char], x: float, y: float, x_end: float, size: float
) -> None:
    """One line of words from ``x`` to at most ``x_end`` with its baseline near ``y``."""
    flags = rng.choice([0, 0, 0, BOLD, MONO, BOLD | MONO])
    first = True
    while x < x_end:
        word = _word(rng)
        if not first:
            r = rng.random()
            if r < 0.6:
                out.append(_gen_space())
            elif r < 0.7:
                out.append(("\r", 0.0, 0.0, 0.0, 0.0, 0.0, BREAK | GENERATED))
                out.append(("\n", 0.0, 0.0, 0.0, 0.0, 0.0, BREAK | GENERATED))
            elif r < 0.85:
                w = 0.25 * size
                out.append((" ", x, y - size, x + w, y, size, flags))
            x += rng.uniform(0.2, 0.5) * size
        first = False
        for ch in word:
            w = size * rng.uniform(0.3, 0.7)
            top = y - size * rng.uniform(0.6, 0.8)
            bottom = y + (size * 0.2 if ch in "_," else size * rng.uniform(-0.02, 0.05))
            if rng.random() < 0.03:
                top, bottom = top - size * 2, bottom - size * 2  # a superscript gone wild
            out.append(
                (
                    ch,
                    _coord(rng, x),
                    _coord(rng, top),
                    _coord(rng, x + w),
                    _coord(rng, bottom),
                    size,
                    flags,
                )
            )
            x += w + rng.uniform(-0.3, 0.5)
            if rng.random() < 0.01:
                x -= rng.uniform(2, 30)  # goes back
            if rng.random() < 0.01:
                x += rng.uniform(30, 60)  # jumps
        if rng.random() < 0.25:
            break
    if rng.random() < 0.5:
        out.append(("\r", 0.0, 0.0, 0.0, 0.0, 0.0, BREAK | GENERATED))
        out.append(("\n", 0.0, 0.0, 0.0, 0.0, 0.0, BREAK | GENERATED))


def _hrule(g: list[Graphic], y: float, x0: float, x1: float, rng: random.Random) -> None:
    t = rng.choice([0.5, 1.0, 0.75, 2.0])
    g.append((PATH, x0 - t / 2, y - t / 2, x1 + t / 2, y + t / 2, rng.choice([FILL, STROKE])))


def _vrule(g: list[Graphic], x: float, top: float, bottom: float, rng: random.Random) -> None:
    t = rng.choice([0.5, 1.0, 0.75])
    g.append((PATH, x - t / 2, top - t / 2, x + t / 2, bottom + t / 2, STROKE | STRAIGHT))


def _grid(
    rng: random.Random, chars: list[Char], g: list[Graphic], x0: float, y: float, width: float
) -> float:
    """A ruled grid table (some cells spanning, some rules missing) with text in its cells."""
    ncol, nrow = rng.randint(1, 5), rng.randint(1, 5)
    xs = [x0]
    for _ in range(ncol):
        xs.append(xs[-1] + rng.uniform(30, max(31.0, width / ncol)))
    ys = [y]
    for _ in range(nrow):
        ys.append(ys[-1] + rng.uniform(14, 40))
    for yy in ys:
        if rng.random() < 0.95:
            _hrule(g, yy, xs[0], xs[-1], rng)
    for k, xx in enumerate(xs):
        if k in (0, len(xs) - 1) or rng.random() < 0.8:
            if rng.random() < 0.8:
                _vrule(g, xx, ys[0], ys[-1], rng)
            else:  # a rule that spans only some rows
                _vrule(g, xx, ys[0], ys[rng.randint(1, len(ys) - 1)], rng)
    for r in range(nrow):
        for k in range(ncol):
            if rng.random() < 0.8:
                size = rng.choice([8.0, 9.0, 10.0, 9.5])
                lines = rng.randint(1, 2)
                for i in range(lines):
                    base = ys[r] + 3 + size * (i + 1) * 1.15
                    if base < ys[r + 1]:
                        _text_line(rng, chars, xs[k] + 2, base, xs[k + 1] - 2, size)
    return ys[-1]


def _ruleonly(
    rng: random.Random, chars: list[Char], g: list[Graphic], x0: float, y: float, width: float
) -> float:
    """Horizontal rules of one extent around text in columns (a booktabs table)."""
    ncol = rng.randint(1, 4)
    x1 = x0 + width
    edges = sorted(rng.uniform(x0, x1) for _ in range(ncol - 1))
    cols = [x0, *edges, x1]
    rules = [y]
    yy = y
    size = rng.choice([9.0, 10.0, 8.5])
    nrows = rng.randint(1, 6)
    for r in range(nrows):
        for _ in range(rng.randint(1, 2)):
            yy += size * rng.choice([1.2, 1.2, 1.4, 2.0])
            for k in range(len(cols) - 1):
                if rng.random() < 0.85:
                    _text_line(rng, chars, cols[k] + 1, yy, cols[k + 1] - 6, size)
        if r == 0 or rng.random() < 0.2:
            yy += 4
            rules.append(yy)
    yy += 4
    rules.append(yy)
    if rng.random() < 0.3:  # a caption between the rules
        yy += size * 1.5
        _text_line(rng, chars, x0, yy, x1, size)
        yy += 4
        rules.append(yy)
    for ry in rules:
        _hrule(g, ry, x0 + rng.uniform(-1, 1), x1 + rng.uniform(-1, 1), rng)
    return yy


def _figure(
    rng: random.Random, chars: list[Char], g: list[Graphic], x0: float, y: float, width: float
) -> float:
    """An image, a drawing of touching paths, a shaded box behind text, or a shading."""
    kind = rng.random()
    h = rng.uniform(10, 120)
    w = rng.uniform(10, width)
    if kind < 0.3:
        g.append((IMAGE, x0, y, x0 + w, y + h, 0))
    elif kind < 0.6:
        for _ in range(rng.randint(1, 12)):
            a = rng.uniform(x0, x0 + w)
            b = rng.uniform(y, y + h)
            g.append(
                (PATH, a, b, a + rng.uniform(1, 40), b + rng.uniform(1, 40), rng.choice([1, 3, 5]))
            )
    elif kind < 0.8:
        g.append((PATH, x0, y, x0 + w, y + h, FILL | STRAIGHT))
        yy = y + 12
        while yy < y + h:
            _text_line(rng, chars, x0 + 4, yy, x0 + w, 10.0)
            yy += 12
    else:
        g.append((SHADING, x0, y, x0 + w, y + h, 0))
    if rng.random() < 0.4:
        _text_line(rng, chars, x0, y + h + 12, x0 + w, 9.0)
        return y + h + 16
    return y + h


def synthetic_page(seed: int) -> tuple[list[Char], list[Graphic], float]:
    rng = random.Random(seed)
    width = rng.choice([612.0, 595.28, 420.0, 841.89])
    chars: list[Char] = []
    graphics: list[Graphic] = []
    two = rng.random() < 0.3
    columns = (
        [(40.0, width / 2 - 10), (width / 2 + 10, width - 40)] if two else [(40.0, width - 40)]
    )
    for x0, x1 in columns:
        y = rng.uniform(30, 80)
        for _ in range(rng.randint(0, 14)):
            what = rng.random()
            if what < 0.55:
                size = rng.choice([9.0, 10.0, 10.5, 11.0, 12.0, 14.0, 18.0, 9.96])
                y += size * rng.uniform(1.1, 1.6)
                _text_line(rng, chars, x0 + rng.uniform(0, 20), y, x1, size)
            elif what < 0.7:
                y = _grid(rng, chars, graphics, x0, y + 8, x1 - x0) + 4
            elif what < 0.85:
                y = _ruleonly(rng, chars, graphics, x0, y + 8, x1 - x0) + 4
            else:
                y = _figure(rng, chars, graphics, x0, y + 8, x1 - x0) + 4
    if rng.random() < 0.2:  # a stroked rectangle around some text
        graphics.append((PATH, 50.0, 100.0, 300.0, 160.0, STROKE | STRAIGHT))
    if rng.random() < 0.1:  # PDFium's order is not always reading order
        k = rng.randint(0, max(0, len(chars) - 1))
        chars = chars[k:] + chars[:k]
    if rng.random() < 0.1:
        rng.shuffle(graphics)
    if chars and rng.random() < 0.05:  # a broken file's coordinates
        k = rng.randrange(len(chars))
        bad = rng.choice([float("nan"), float("inf"), float("-inf")])
        ch, *vs, fl = chars[k]
        vs[rng.randrange(5)] = bad
        chars[k] = (ch, vs[0], vs[1], vs[2], vs[3], vs[4], fl)
    if graphics and rng.random() < 0.05:
        k = rng.randrange(len(graphics))
        kind, *gs, gf = graphics[k]
        gs[rng.randrange(4)] = rng.choice([float("nan"), float("inf")])
        graphics[k] = (kind, gs[0], gs[1], gs[2], gs[3], gf)
    return chars, graphics, width


@pytest.mark.parametrize("block", range(8))
def test_synthetic_pages(core: ModuleType, block: int) -> None:
    nonempty = tables = figures = 0
    for seed in range(block * 50, block * 50 + 50):
        chars, graphics, width = synthetic_page(seed)
        python = page_items(chars, graphics, width)
        rust = core.pdf_layout_items(chars, graphics, width)
        exact(rust, python)
        nonempty += bool(python)
        tables += sum(it[0] == "table" for it in python)
        figures += sum(it[0] == "figure" for it in python)
    # Not vacuous: the pages hold lines, tables and figures.
    assert nonempty > 40 and tables > 5 and figures > 5


def test_empty_and_degenerate_pages(core: ModuleType) -> None:
    cases: list[tuple[list[Char], list[Graphic], float]] = [
        ([], [], 612.0),
        ([_gen_space(), ("\r", 0.0, 0.0, 0.0, 0.0, 0.0, BREAK | GENERATED)], [], 612.0),
        ([(" ", 10.0, 10.0, 12.0, 20.0, 10.0, 0)], [(PATH, 0.0, 0.0, 0.0, 0.0, 0)], 612.0),
        # A malformed rule millions of points long, with text under it.
        (
            [("a", 10.0, 10.0, 15.0, 20.0, 10.0, 0), ("b", 40.0, 10.0, 45.0, 20.0, 10.0, 0)],
            [
                (PATH, -1e7, 5.0, 1e7, 6.0, STROKE),
                (PATH, -1e7, 25.0, 1e7, 26.0, STROKE),
                (PATH, -1e7, 45.0, 1e7, 46.0, STROKE),
            ],
            612.0,
        ),
        # Zero-size and inverted graphics.
        ([], [(IMAGE, 5.0, 5.0, 5.0, 5.0, 0), (PATH, 50.0, 50.0, 10.0, 10.0, 7)], 612.0),
        # Coordinates that are not finite (a broken file).
        (
            [
                ("a", 10.0, 10.0, 15.0, 20.0, 10.0, 0),
                ("b", float("nan"), 10.0, 20.0, 20.0, 10.0, BOLD),
                ("c", 20.0, 10.0, 25.0, float("inf"), 10.0, 0),
                ("d", 25.0, 10.0, 30.0, 20.0, float("-inf"), 0),
                ("e", 30.0, 10.0, 35.0, 20.0, 10.0, 0),
            ],
            [
                (PATH, float("nan"), 5.0, 300.0, 6.0, STROKE),
                (IMAGE, 100.0, 100.0, float("inf"), 200.0, 0),
                (IMAGE, 100.0, 100.0, 200.0, 200.0, 0),
            ],
            612.0,
        ),
    ]
    for chars, graphics, width in cases:
        exact(core.pdf_layout_items(chars, graphics, width), page_items(chars, graphics, width))
