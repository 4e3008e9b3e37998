"""The columns of a page of three or more, found from its gutters (the twin of
``rust/documents/layout/columns.rs``).

A gutter is an x-range at least a line's height wide, inside the lines' extent, that at most a
tenth of the lines cross (a heading across the columns may); the columns lie between the
gutters. A page is read by them when it has three to six, most of its lines keep to one, and
each holds at least four lines' height of text, tables or figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["LABELS", "columns", "gutters"]

# The column names items carry (``"span"``: across a gutter).
LABELS = ("column 1", "column 2", "column 3", "column 4", "column 5", "column 6")


def gutters(lines: Sequence[Any], gap: float) -> list[tuple[float, float]]:
    """The gutters ``(x0, x1)`` between line items (see the module): a sweep over their
    left and right edges, left to right (a right edge first where one meets a left edge).

    >>> row = [("line", "", x, 0.0, x + 90.0, 10.0) for x in (0.0, 100.0, 200.0)]
    >>> gutters(row * 4, 5.0)
    [(90.0, 100.0), (190.0, 200.0)]
    """
    if not lines:
        return []
    limit = len(lines) // 10
    events = sorted([(it[2], 1) for it in lines] + [(it[4], -1) for it in lines])
    lo, hi = events[0][0], events[-1][0]
    out: list[tuple[float, float]] = []
    count = 0
    start: float | None = None
    for x, d in events:
        before = count
        count += d
        if before > limit >= count:
            start = x
        elif before <= limit < count and start is not None:
            if x - start >= gap and lo < start and x < hi:
                out.append((start, x))
            start = None
    return out


def columns(items: Sequence[Any], gap: float, least: float) -> list[int] | None:
    """Each item's column (0 the leftmost, -1 across a gutter) on a page of three to six
    columns (see the module; ``gap``: a line's height, ``least``: a column's least height of
    items), else None."""
    lines = [it for it in items if it[0] == "line"]
    found = gutters(lines, gap)
    if not 2 <= len(found) <= len(LABELS) - 1:
        return None
    edges = [(-math.inf, found[0][0])]
    edges += [(found[k - 1][1], found[k][0]) for k in range(1, len(found))]
    edges.append((found[-1][1], math.inf))
    ks = []
    for it in items:
        k = -1
        for j, (lo, hi) in enumerate(edges):
            if it[2] >= lo - 1 and it[4] <= hi + 1:
                k = j
                break
        ks.append(k)
    tall = [0.0] * len(edges)
    inside = 0
    for it, k in zip(items, ks, strict=True):
        if k >= 0:
            tall[k] += it[5] - it[3]
            inside += it[0] == "line"
    if inside < 0.5 * len(lines) or min(tall) < least:
        return None
    return ks
