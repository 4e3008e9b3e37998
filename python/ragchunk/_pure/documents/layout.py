"""One PDF page's layout: characters and graphics in, lines, tables and figures out (the twin
of ``rust/documents/layout/``, item for item and float for float).

The input is what :mod:`.pdfium` reads of a page; the output is the page's items in reading
order, each ``(kind, text, x0, top, x1, bottom, size, flags, column, rows)``:

* ``"line"``: a line of text (``size``: its median font size; ``flags``: the :data:`BOLD` /
  :data:`MONO` bits of its first character);
* ``"table"``: a table found from its ruling lines, ``rows`` its cells row by row, ``text``
  the rows joined by ``"\\n"`` and the cells by ``" | "``;
* ``"figure"``: an image, or a drawing with no text on it (``text`` is empty).

``column`` is ``"left"``, ``"right"`` or ``"span"`` on a two-column page, else ``"span"``.
How it is done:

* **Rules**: path objects thinner than 3 pt and longer than 5 pt are horizontal or vertical
  rules; a stroked rectangle gives its four edges.
* **Grid tables**: rules that cross each other make a component; one with at least two
  horizontal and two vertical rules and at least two cells is a table whose rows and columns
  are between its rules (a cell a vertical rule does not cross spans the columns on both
  sides).
* **Rule-only tables**: horizontal rules of one extent (three or more, or two around text in
  columns; a caption or a paragraph without columns between two rules splits them) bound a
  table. Its columns end where the next column's text starts, after an x-range at least
  half a font size wide that no line sharing its row with another inks (cells read as
  left-aligned; a title row across the table is one cell). Its rows are the rules and the
  gaps between lines that no cell's text runs on across: within a column, lines closer than
  the table's least baseline pitch (+2 pt) are one cell.
* **Figures**: image objects, and groups of touching paths (not rules) with no character on
  them, at least 20 pt on each side.
* **Lines**: the characters left over, in PDFium's order, cut where a character's middle
  leaves the line's height (by more than 0.3 font sizes), drifts further than a character's
  height from the line's first character, goes backwards, or jumps further than 40 pt.
  PDFium's own line breaks count only where the geometry agrees (PDFium also breaks inside
  CJK lines); elsewhere they are a space if there is a gap.
* **Reading order**: top to bottom; a page of three to six columns is read by its gutters
  (:mod:`.columns`); else a page is two columns when at least half its lines keep
  to one side of the middle and each side holds at least four lines' height of text, tables
  or figures; then the left column is read first, between items that span the middle.
  Tables and figures are read where they start.
* **Broken input**: a character whose coordinates are not finite keeps its text at the
  page's corner; such a graphic is left out. Lookups by height use bisection and sweeps,
  so a page of a million characters is laid out in linear time or close to it.
* **Sums of floats** are :func:`sum_left`, not the built-in ``sum``, whose rounding changed
  in Python 3.12: the same floats on both backends and every Python.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import statistics
import unicodedata
from collections.abc import Sequence
from typing import Any

from .columns import LABELS, columns
from .pdfium import BOLD, BREAK, GENERATED, IMAGE, MONO, PATH, STRAIGHT, STROKE, Char, Graphic

__all__ = ["Item", "page_items", "sum_left"]

# (kind, text, x0, top, x1, bottom, size, flags, column, rows)
Item = tuple[str, str, float, float, float, float, float, int, str, Any]

_THIN = 3.0
_MIN_RULE = 5.0
_TOL = 2.0
_FIGURE_MIN = 20.0
_LINE_JUMP = 40.0
_CAPTION_STARTS = ("fig", "table", "图", "表", "図", "그림", "표", "рис", "табл")
# The most quarter-point bins a column search looks at (10,000 pt: a malformed rule
# millions of points long does not allocate millions of bins).
_MAX_BINS = 40_000


def sum_left(values: Sequence[float]) -> float:
    """The sum of ``values`` as ragchunk defines it on both backends: ``0.0``, then each value
    added left to right, with no compensation (the built-in ``sum`` of floats is compensated
    since Python 3.12, so its last bit depends on the interpreter).

    >>> sum_left([0.1, 0.2, 0.3]), sum_left([1e100, 1.0, -1e100]), sum_left([])
    (0.6000000000000001, 0.0, 0.0)
    """
    total = 0.0
    for v in values:
        total += v
    return total


def normal(ch: str) -> str:
    """A character as it goes into text: PDFium's reports of a hyphen ending a line (U+FFFE,
    and U+0002, which it gives for pdfTeX's and LibreOffice's hyphens) as ``-``; a soft hyphen
    (U+00AD) left out (:func:`_line_item` keeps one that ends a line, as U+2010); other control
    characters left out, or a space where Python counts them as whitespace; ligatures and
    presentation forms (U+FB00..U+FB4F, U+FE10..U+FEFF) by NFKC, and nothing else.

    >>> normal("\\ufb01"), normal("\\ufffe"), normal("\\x02"), normal("\\xad"), normal("a")
    ('fi', '-', '-', '', 'a')
    >>> normal("\\x07"), normal("\\t")
    ('', ' ')
    """
    if ch in "\ufffe\x02":
        return "-"
    if ch == "\xad":
        return ""
    if ch <= "\x1f" or "\x7f" <= ch <= "\x9f":
        return " " if ch.isspace() else ""
    if "\ufb00" <= ch <= "\ufb4f" or "\ufe10" <= ch <= "\ufeff":
        return unicodedata.normalize("NFKC", ch)
    return ch


# --------------------------------------------------------------------------- lines


def _lines(chars: Sequence[Char]) -> list[list[Char]]:
    """Characters (PDFium's order) cut into lines; generated spaces kept inside lines."""
    out: list[list[Char]] = []
    cur: list[Char] = []
    # The line's body so far: its top, its bottom, and the last character's x0, x1; and its
    # first character's top and bottom.
    top = bottom = last0 = last1 = top0 = bottom0 = 0.0
    started = False

    def flush() -> None:
        nonlocal started
        if any(not (c[6] & GENERATED) and not c[0].isspace() for c in cur):
            out.append(list(cur))
        cur.clear()
        started = False

    broken = False
    for c in chars:
        ch, x0, t, x1, b, size, flags = c
        if flags & BREAK:
            # PDFium also breaks lines inside a line (at some font changes), so a break only
            # counts where the geometry agrees; elsewhere it is a space if there is a gap.
            broken = True
            continue
        if flags & GENERATED:
            if cur:
                cur.append((" ", 0.0, 0.0, 0.0, 0.0, 0.0, GENERATED))
            continue
        if not ch.isspace():
            # A new line when the character shares no height with the line so far (not only
            # with the last character: a full stop is a small box at one end of the line's
            # height), goes back, or jumps far.
            # (An underscore or a comma is drawn a little below the line's other characters:
            # what counts is whether the character's middle is near the line's height.)
            # A line drifts no further than a character's height or size from where its first
            # character stands (text drawn as a staircase is many lines, not one tall one).
            mid = (t + b) / 2
            slack = 0.3 * size
            reach = max(size, bottom0 - top0)
            if started and (
                x0 < last0 - 1
                or mid > bottom + slack
                or mid < top - slack
                or mid > bottom0 + reach
                or mid < top0 - reach
                or x0 - last1 > _LINE_JUMP
            ):
                flush()
            elif started and broken and x0 - last1 > 0.2 * size:
                cur.append((" ", 0.0, 0.0, 0.0, 0.0, 0.0, GENERATED))
            if not started:
                top, bottom, started = t, b, True
                top0, bottom0 = t, b
            else:
                top, bottom = min(top, t), max(bottom, b)
            last0, last1 = x0, x1
            broken = False
        cur.append(c)
    flush()
    return out


def _line_item(cs: list[Char]) -> Item:
    body = [c for c in cs if not (c[6] & GENERATED) and not c[0].isspace()]
    # A soft hyphen at the end of the line is where the word was broken: it stays, as the
    # hyphen it was drawn as (U+2010), for the paragraph to join the word (see ``_pdf``).
    last = max(i for i, c in enumerate(cs) if not (c[6] & GENERATED) and not c[0].isspace())
    text = "".join(
        "\u2010" if i == last and c[0] == "\xad" else normal(c[0]) for i, c in enumerate(cs)
    ).strip()
    return (
        "line",
        " ".join(text.split()) if "  " in text else text,
        min(c[1] for c in body),
        min(c[2] for c in body),
        max(c[3] for c in body),
        max(c[4] for c in body),
        round(statistics.median(c[5] for c in body), 1),
        body[0][6] & (BOLD | MONO),
        "span",
        None,
    )


# --------------------------------------------------------------------------- rules


def _rules(
    graphics: Sequence[Graphic],
) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """Horizontal rules ``(y, x0, x1)`` and vertical rules ``(x, top, bottom)``."""
    hs: list[tuple[float, float, float]] = []
    vs: list[tuple[float, float, float]] = []
    for kind, x0, top, x1, bottom, flags in graphics:
        if kind != PATH:
            continue
        w, h = x1 - x0, bottom - top
        # A stroked line's bounds reach half its width past its ends: the rule is the line.
        if h <= _THIN and w >= _MIN_RULE:
            hs.append(((top + bottom) / 2, x0 + h / 2, x1 - h / 2))
        elif w <= _THIN and h >= _MIN_RULE:
            vs.append(((x0 + x1) / 2, top + w / 2, bottom - w / 2))
        elif flags & STRAIGHT and flags & STROKE and w > _THIN and h > _THIN:
            hs += [(top, x0, x1), (bottom, x0, x1)]
            vs += [(x0, top, bottom), (x1, top, bottom)]
    return hs, vs


def _cluster(values: list[float], tol: float = _TOL) -> list[float]:
    """Sorted values with those within ``tol`` of the previous kept merged (their mean)."""
    out: list[list[float]] = []
    for v in sorted(values):
        if out and v - out[-1][-1] <= tol:
            out[-1].append(v)
        else:
            out.append([v])
    return [sum_left(g) / len(g) for g in out]


# --------------------------------------------------------------------------- tables


class _Table:
    def __init__(self, box: tuple[float, float, float, float], xs: list[float], ys: list[float]):
        self.box = box
        self.xs = xs  # column edges, left to right
        self.ys = ys  # row edges, top to bottom (rule-only tables: refined from the text)
        self.vs: list[tuple[float, float, float]] = []  # vertical rules (grid tables)
        self.ruled_rows = True

    def holds(self, c: Char) -> bool:
        cx, cy = (c[1] + c[3]) / 2, (c[2] + c[4]) / 2
        x0, top, x1, bottom = self.box
        return x0 - 1 <= cx <= x1 + 1 and top - 1 <= cy <= bottom + 1


def _grid_tables(
    hs: list[tuple[float, float, float]], vs: list[tuple[float, float, float]]
) -> tuple[list[_Table], set[int]]:
    """Tables from rules that cross; the indexes of the horizontal rules they use."""
    n = len(hs)
    parent = list(range(n + len(vs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (y, hx0, hx1) in enumerate(hs):
        for j, (x, vt, vb) in enumerate(vs):
            if hx0 - _TOL <= x <= hx1 + _TOL and vt - _TOL <= y <= vb + _TOL:
                parent[find(i)] = find(n + j)
    groups: dict[int, list[int]] = {}
    for i in range(n + len(vs)):
        groups.setdefault(find(i), []).append(i)
    tables: list[_Table] = []
    used: set[int] = set()
    for members in groups.values():
        h = [hs[i] for i in members if i < n]
        v = [vs[i - n] for i in members if i >= n]
        ys = _cluster([r[0] for r in h])
        xs = _cluster([r[0] for r in v])
        if len(ys) < 2 or len(xs) < 2 or (len(ys) - 1) * (len(xs) - 1) < 2:
            continue
        box = (
            min(min(r[1] for r in h), xs[0]),
            min(min(r[1] for r in v), ys[0]),
            max(max(r[2] for r in h), xs[-1]),
            max(max(r[2] for r in v), ys[-1]),
        )
        t = _Table(box, xs, ys)
        t.vs = v
        tables.append(t)
        used.update(i for i in members if i < n)
    return tables, used


def _x_gaps(chars: list[Char], x0: float, x1: float) -> list[float]:
    """Column edges inside ``[x0, x1]``: where an x-range no text line inks, at least 0.5
    font sizes wide, ends. Cells are read as
    left-aligned: the edge is where the next column's text starts, so a long cell that
    reaches into the gap stays whole."""
    lines = _lines(chars)
    # A line alone at its height (a title row across the table, the last line of a long
    # cell) does not say where columns are: gaps come from the lines that share a row.
    alone = _alone(lines)
    shared = [ln for ln, a in zip(lines, alone, strict=True) if not a]
    lines = shared if len(shared) >= 2 else lines
    if not lines:
        return []
    sizes = sorted(c[5] for c in chars if not c[6] & GENERATED)
    least = 0.5 * sizes[len(sizes) // 2]
    lo = x0
    width = min(int((x1 - x0) * 4) + 2, _MAX_BINS)  # quarter-point bins
    # How many lines ink each bin: per line, its characters' bins merged into runs, each
    # run counted once (a difference array, so the work is linear in characters and bins).
    delta = [0] * (width + 1)
    for ln in lines:
        runs: list[list[int]] = []
        for c in ln:
            if c[6] & GENERATED or c[0].isspace():
                continue
            a, b = max(0, int((c[1] - lo) * 4)), min(width, int((c[3] - lo) * 4) + 1)
            if a >= b:
                continue
            if runs and a <= runs[-1][1] and b >= runs[-1][0]:
                runs[-1][0], runs[-1][1] = min(runs[-1][0], a), max(runs[-1][1], b)
            else:
                runs.append([a, b])
        runs.sort()
        end = -1
        for a, b in runs:
            a = max(a, end)
            if b > a:
                delta[a] += 1
                delta[b] -= 1
                end = b
    cover = [0] * width
    running = 0
    for k in range(width):
        running += delta[k]
        cover[k] = running
    limit = 0
    inked = [k for k, v in enumerate(cover) if v > limit]
    if not inked:
        return []
    edges: list[float] = []
    k, last = inked[0], inked[-1]
    while k <= last:
        if cover[k] <= limit:
            start = k
            while k <= last and cover[k] <= limit:
                k += 1
            if (k - start) / 4 >= least:
                edges.append(lo + k / 4 - 0.25)
        k += 1
    return edges


def _alone(lines: list[list[Char]]) -> list[bool]:
    """For each line, whether no other line shares more than half the smaller height with
    it. Lines sorted by top; each is compared with the lines whose tops are within the
    tallest line's height above its own top and above its bottom: only those can overlap it."""
    ext = []
    for ln in lines:
        body = [c for c in ln if not c[6] & GENERATED]
        ext.append((min(c[2] for c in body), max(c[4] for c in body)))
    order = sorted(range(len(lines)), key=lambda i: ext[i][0])
    tallest = max((b - t for t, b in ext), default=0.0)
    alone = [True] * len(lines)
    for n, i in enumerate(order):
        it, ib = ext[i]
        for m in range(n + 1, len(order)):
            jt, jb = ext[order[m]]
            if jt >= ib:
                break
            if min(ib, jb) - max(it, jt) > 0.5 * min(ib - it, jb - jt):
                alone[i] = False
                break
        if not alone[i]:
            continue
        for m in range(n - 1, -1, -1):
            jt, jb = ext[order[m]]
            if jt < it - tallest:
                break
            if min(ib, jb) - max(it, jt) > 0.5 * min(ib - it, jb - jt):
                alone[i] = False
                break
    return alone


class _ByY:
    """Characters indexed by the height of their middle, so a band of the page is found by
    bisection; the band's characters come back in their order on the page."""

    def __init__(self, chars: Sequence[Char]):
        self.chars = chars
        self.order = sorted(range(len(chars)), key=lambda i: (chars[i][2] + chars[i][4]) / 2)
        self.ys = [(chars[i][2] + chars[i][4]) / 2 for i in self.order]

    def strictly_between(self, x0: float, x1: float, lo: float, hi: float) -> list[Char]:
        """The characters with ``x0 <= middle x <= x1`` and ``lo < middle y < hi``."""
        a, b = bisect.bisect_right(self.ys, lo), bisect.bisect_left(self.ys, hi)
        picked = sorted(self.order[a : max(a, b)])
        return [c for c in (self.chars[i] for i in picked) if x0 <= (c[1] + c[3]) / 2 <= x1]

    def any_inside(self, x0: float, top: float, x1: float, bottom: float) -> bool:
        """Whether a character's middle is inside the box (edges included)."""
        a, b = bisect.bisect_left(self.ys, top), bisect.bisect_right(self.ys, bottom)
        return any(x0 <= (c[1] + c[3]) / 2 <= x1 for c in (self.chars[i] for i in self.order[a:b]))


def _ruleonly_tables(
    hs: list[tuple[float, float, float]], used: set[int], chars: Sequence[Char]
) -> list[_Table]:
    """Tables bounded by horizontal rules of one extent, with no vertical rules."""
    free = sorted(
        (r for i, r in enumerate(hs) if i not in used and r[2] - r[1] >= 40), key=lambda r: r[0]
    )
    groups: list[list[tuple[float, float, float]]] = []
    for r in free:
        for g in groups:
            if abs(g[0][1] - r[1]) <= 3 and abs(g[0][2] - r[2]) <= 3:
                g.append(r)
                break
        else:
            groups.append([r])
    tables: list[_Table] = []
    by_y = _ByY(chars)
    for g in groups:
        ys = _cluster([r[0] for r in g])
        x0, x1 = min(r[1] for r in g), max(r[2] for r in g)
        run: list[float] = []
        for y in [*ys, float("inf")]:
            if run and y != float("inf"):
                band = by_y.strictly_between(x0, x1, run[-1], y)
                lines = _lines(band)
                texts = ["".join(c[0] for c in ln).strip().lower() for ln in lines]
                broken = any(
                    t.startswith(_CAPTION_STARTS) and any(ch.isdigit() for ch in t[:12])
                    for t in texts
                )
                if not broken and len(lines) > 2 and not _x_gaps(band, x0, x1):
                    broken = True
                if broken:
                    _close(run, x0, x1, by_y, tables)
                    run = []
            run.append(y)
        _close(run[:-1] if run and run[-1] == float("inf") else run, x0, x1, by_y, tables)
    return tables


def _close(run: list[float], x0: float, x1: float, by_y: _ByY, out: list[_Table]) -> None:
    run = [y for y in run if y != float("inf")]
    if len(run) < 2:
        return
    inside = by_y.strictly_between(x0, x1, run[0], run[-1])
    gaps = _x_gaps(inside, x0, x1)
    if not gaps or (len(run) == 2 and len(_lines(inside)) < 2):
        return
    t = _Table((x0, run[0], x1, run[-1]), [x0, *gaps, x1], run)
    t.ruled_rows = False
    out.append(t)


def _row_edges(t: _Table, chars: list[Char]) -> list[float]:
    """A rule-only table's row edges: its rules, and the gaps between lines that no cell's
    text runs on across. In each column, consecutive lines closer than the table's least
    line pitch (+2 pt) are one cell; if every pitch is about the same, every line is a row."""
    cols: list[list[tuple[Item, float]]] = [[] for _ in range(len(t.xs) - 1)]
    for cs in _lines(chars):
        ln = _line_item(cs)
        k = max(0, min(len(cols) - 1, _index(t.xs, (ln[2] + min(ln[4], ln[2] + 10)) / 2)))
        cols[k].append((ln, _baseline(cs)))
    pitches: list[tuple[float, float, float]] = []  # (pitch, top of the gap, bottom of it)
    for col in cols:
        col.sort(key=lambda x: x[0][3])
        for (a, base_a), (b, base_b) in itertools.pairwise(col):
            pitches.append((base_b - base_a, a[5], b[3]))
    glued: list[tuple[float, float]] = []
    if pitches:
        least = min(p[0] for p in pitches)
        if max(p[0] for p in pitches) - least >= 2.0:
            glued = [(a, b) for p, a, b in pitches if p <= least + 2.0]
    bands: list[tuple[float, float]] = []  # (top, bottom) of each visual line, across columns
    for ln in sorted((x[0] for col in cols for x in col), key=lambda ln: ln[3]):
        top, bottom = ln[3], ln[5]
        if bands and top < bands[-1][1] - 0.5 * (bottom - top):
            bands[-1] = (min(bands[-1][0], top), max(bands[-1][1], bottom))
        else:
            bands.append((top, bottom))
    # Whether a gap's middle is inside a glued stretch: the stretches by start, and the
    # furthest end among those that start before it.
    glued.sort(key=lambda g: g[0])
    starts = [g0 - 0.5 for g0, _ in glued]
    reach = list(itertools.accumulate((g1 for _, g1 in glued), max))
    edges = sorted(t.ys)
    for upper, lower in itertools.pairwise(bands):
        mid = (upper[1] + lower[0]) / 2
        k = bisect.bisect_right(starts, mid)
        if k and mid <= reach[k - 1] + 0.5:
            continue
        # Not within 2 pt of an edge already there (the nearest one below or above).
        i = bisect.bisect_left(edges, mid)
        if (i and abs(mid - edges[i - 1]) < 2) or (i < len(edges) and abs(mid - edges[i]) < 2):
            continue
        edges.insert(i, mid)
    return edges


def _baseline(line: list[Char]) -> float:
    """Where a line stands: the most common bottom of its characters (half points), which is
    the baseline for most scripts; glyph boxes are tight, so tops and middles vary more."""
    counts: dict[float, int] = {}
    for c in line:
        if not c[6] & GENERATED and not c[0].isspace():
            key = round(c[4] * 2) / 2
            counts[key] = counts.get(key, 0) + 1
    return max(counts.items(), key=lambda kv: (kv[1], -kv[0]))[0] if counts else 0.0


def _cell_lines(chars: list[Char]) -> list[Item]:
    return [_line_item(ln) for ln in _lines(chars)]


def _fill(t: _Table, chars: list[Char]) -> Item:
    """The table's item: its characters put into cells."""
    ys = _row_edges(t, chars) if not t.ruled_rows else t.ys
    xs = t.xs
    ncol = len(xs) - 1
    cells: dict[tuple[int, int], list[Char]] = {}
    # In a table without vertical rules, a line alone at its height that crosses a column
    # edge (a title row) is one cell, in the column where it starts.
    forced: dict[int, int] = {}
    if not t.vs:
        lines = _lines(chars)
        for ln, lone in zip(lines, _alone(lines), strict=True):
            body = [c for c in ln if not c[6] & GENERATED]
            first = _index(xs, (body[0][1] + body[0][3]) / 2)
            if lone and _index(xs, (body[-1][1] + body[-1][3]) / 2) != first:
                forced.update((id(c), first) for c in body)
    last: list[Char] | None = None
    for c in chars:
        if c[6] & GENERATED:
            if last is not None:
                last.append(c)
            continue
        cx, cy = (c[1] + c[3]) / 2, (c[2] + c[4]) / 2
        r = max(0, min(len(ys) - 2, _index(ys, cy)))
        k = forced.get(id(c), max(0, min(ncol - 1, _index(xs, cx))))
        last = cells.setdefault((r, k), [])
        last.append(c)
    rows: list[list[str]] = []
    for r in range(len(ys) - 1):
        row: list[str] = []
        mid = (ys[r] + ys[r + 1]) / 2
        k = 0
        while k < ncol:
            got = list(cells.get((r, k), []))
            # A grid cell no vertical rule closes spans into the next column.
            while (
                t.vs
                and k + 1 < ncol
                and not any(
                    abs(v[0] - xs[k + 1]) <= _TOL and v[1] - _TOL <= mid <= v[2] + _TOL
                    for v in t.vs
                )
            ):
                k += 1
                got += cells.get((r, k), [])
            row.append(_cell_text(got))
            k += 1
        if any(row):
            rows.append(row)
    text = "\n".join(" | ".join(row) for row in rows)
    x0, top, x1, bottom = t.box
    sizes = [c[5] for c in chars if not c[6] & GENERATED]
    size = statistics.median(sizes) if sizes else 0.0
    return ("table", text, x0, top, x1, bottom, round(size, 1), 0, "span", rows)


def _index(edges: list[float], v: float) -> int:
    """The slot of ``v`` between sorted ``edges``: the last ``i < len(edges) - 1`` with
    ``edges[i] <= v`` (0 below the first edge)."""
    return max(0, bisect.bisect_right(edges, v, 1, max(1, len(edges) - 1)) - 1)


def _cell_text(chars: list[Char]) -> str:
    lines = sorted(_cell_lines(chars), key=lambda ln: (round(ln[3]), ln[2]))
    out = ""
    for ln in lines:
        # A word broken with the hyphen an engine draws at a break (U+2010) is joined whole.
        if out.endswith("\u2010"):
            out = out[:-1]
        elif out and not out.endswith("-"):
            out += " "
        out += ln[1]
    return out


# --------------------------------------------------------------------------- figures


def _figures(
    graphics: Sequence[Graphic], chars: Sequence[Char], tables: list[_Table]
) -> list[tuple[float, float, float, float]]:
    boxes: list[list[float]] = []
    inked = _ByY([c for c in chars if not c[6] & GENERATED])
    for kind, x0, top, x1, bottom, _flags in graphics:
        w, h = x1 - x0, bottom - top
        if kind == PATH and (w <= _THIN or h <= _THIN):
            continue  # a rule
        if kind not in (PATH, IMAGE):
            continue
        if any(
            t.box[0] - 2 <= x0
            and x1 <= t.box[2] + 2
            and t.box[1] - 2 <= top
            and bottom <= t.box[3] + 2
            for t in tables
        ):
            continue
        boxes.append([x0, top, x1, bottom, float(kind == IMAGE)])
    boxes = _merge_touching(boxes)
    out = []
    for x0, top, x1, bottom, image in boxes:
        if x1 - x0 < _FIGURE_MIN or bottom - top < _FIGURE_MIN:
            continue
        if not image and inked.any_inside(x0, top, x1, bottom):
            continue  # a background behind text (a code block, a shaded box)
        out.append((x0, top, x1, bottom))
    return out


def _root(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _merge_touching(boxes: list[list[float]]) -> list[list[float]]:
    """Boxes ``[x0, top, x1, bottom, image]`` that touch (within 2 pt) merged into their
    hull, until no two hulls touch; each hull in the place of its first box. A sweep over the
    boxes by x0 finds touching pairs; passes repeat while a hull grew into new neighbours."""
    while True:
        order = sorted(range(len(boxes)), key=lambda i: boxes[i][0])
        parent = list(range(len(boxes)))
        find = functools.partial(_root, parent)

        merged = False
        active: list[int] = []
        for i in order:
            a = boxes[i]
            active = [j for j in active if boxes[j][2] + 2 >= a[0]]
            for j in active:
                b = boxes[j]
                if a[1] - 2 <= b[3] and b[1] - 2 <= a[3] and find(i) != find(j):
                    parent[max(find(i), find(j))] = min(find(i), find(j))
                    merged = True
            active.append(i)
        if not merged:
            return boxes
        hulls: dict[int, list[float]] = {}
        for i, b in enumerate(boxes):
            h = hulls.setdefault(find(i), list(b))
            h[:] = [
                min(h[0], b[0]),
                min(h[1], b[1]),
                max(h[2], b[2]),
                max(h[3], b[3]),
                max(h[4], b[4]),
            ]
        boxes = [hulls[k] for k in sorted(hulls)]


# --------------------------------------------------------------------------- order


def _rows(items: list[Item]) -> list[Item]:
    """Items top to bottom, and left to right within a row: lines whose heights overlap by
    more than half the smaller one are one row. Tables and figures are rows of their own."""
    out: list[Item] = []
    row: list[Item] = []
    # The row's lowest top, highest bottom and least height so far.
    top = bottom = least = 0.0
    for it in sorted(items, key=lambda it: (it[3], it[2])):
        if row:
            block = it[0] != "line" or row[0][0] != "line"
            small = min(it[5] - it[3], least)
            if block or min(bottom, it[5]) - max(top, it[3]) <= 0.5 * small:
                out += sorted(row, key=lambda r: r[2])
                row = []
        if row:
            top, bottom, least = max(top, it[3]), min(bottom, it[5]), min(least, it[5] - it[3])
        else:
            top, bottom, least = it[3], it[5], it[5] - it[3]
        row.append(it)
    return out + sorted(row, key=lambda r: r[2])


def _order(items: list[Item], width: float) -> list[Item]:
    mid = width / 2

    def column(it: Item) -> str:
        return "left" if it[4] < mid + 4 else "right" if it[2] > mid - 4 else "span"

    cols = [column(it) for it in items]
    lines = [c for it, c in zip(items, cols, strict=True) if it[0] == "line"]
    # Two columns: most lines keep to one half, and each half holds at least four lines'
    # height of text, tables or figures (the short lines of a one-column page keep to the
    # left half; a right-aligned running header alone is not a column).
    heights = sorted(it[5] - it[3] for it in items if it[0] == "line")
    least = 4 * heights[len(heights) // 2] if heights else 0.0
    tall = {"left": 0.0, "right": 0.0, "span": 0.0}
    for it, c in zip(items, cols, strict=True):
        tall[c] += it[5] - it[3]
    two = (
        sum(c != "span" for c in lines) >= 0.5 * max(1, len(lines))
        and tall["right"] >= least
        and tall["left"] >= least
    )
    # Three columns or more, by the page's gutters (two by the middle, as below).
    ks = columns(items, heights[len(heights) // 2] if heights else 0.0, least)
    if ks is not None:
        return _by_columns(items, ks)
    ordered = _rows(
        [(*it[:8], c if two else "span", it[9]) for it, c in zip(items, cols, strict=True)]
    )
    if not two:
        return ordered
    out: list[Item] = []
    left: list[Item] = []
    right: list[Item] = []
    for it in ordered:
        if it[8] == "span":
            out += left + right + [it]
            left, right = [], []
        else:
            (left if it[8] == "left" else right).append(it)
    return out + left + right


def _by_columns(items: list[Item], ks: list[int]) -> list[Item]:
    """Items in reading order by their columns (:func:`.columns.columns`): the columns left to
    right, between the items that cross a gutter."""
    ordered = _rows(
        [(*it[:8], LABELS[k] if k >= 0 else "span", it[9]) for it, k in zip(items, ks, strict=True)]
    )
    out: list[Item] = []
    held: list[list[Item]] = [[] for _ in LABELS]
    for it in ordered:
        if it[8] == "span":
            out += [x for col in held for x in col] + [it]
            held = [[] for _ in LABELS]
        else:
            held[LABELS.index(it[8])].append(it)
    return out + [x for col in held for x in col]


# --------------------------------------------------------------------------- page


def page_items(chars: Sequence[Char], graphics: Sequence[Graphic], width: float) -> list[Item]:
    """A page's lines, tables and figures in reading order (see the module docs)."""
    # A broken file can give coordinates that are not finite: such a character keeps its
    # text at the page's corner, such a graphic is left out.
    chars = [
        c if all(math.isfinite(v) for v in c[1:6]) else (c[0], 0.0, 0.0, 0.0, 0.0, 0.0, c[6])
        for c in chars
    ]
    graphics = [g for g in graphics if all(math.isfinite(v) for v in g[1:5])]
    hs, vs = _rules(graphics)
    tables, used = _grid_tables(hs, vs)
    tables += _ruleonly_tables(
        hs, used, [c for c in chars if not c[6] & GENERATED and not any(t.holds(c) for t in tables)]
    )
    items: list[Item] = []
    rest: list[Char] = []
    inside: list[list[Char]] = [[] for _ in tables]
    # A generated character (a space or break PDFium inferred, without a box) goes where the
    # character before it went.
    into = rest
    for c in chars:
        if not c[6] & GENERATED:
            into = rest
            for i, t in enumerate(tables):
                if t.holds(c):
                    into = inside[i]
                    break
        into.append(c)
    for t, cs in zip(tables, inside, strict=True):
        items.append(_fill(t, cs))
    for x0, top, x1, bottom in _figures(graphics, rest, tables):
        items.append(("figure", "", x0, top, x1, bottom, 0.0, 0, "span", None))
    items += [_line_item(ln) for ln in _lines(rest)]
    return _order(items, width)
