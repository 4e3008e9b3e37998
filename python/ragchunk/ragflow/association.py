"""Which images belong to which chunk, decided by where both sit on the page.

A PDF parser such as RAGFlow's DeepDOC gives every text box and every figure a position:
the page(s) it is on and its box ``left, right, top, bottom`` in PDF points. Chunks made from
``(text, pos)`` sections carry the positions of the text they hold
(:func:`ragchunk.naive_merge_with_positions`), so a figure can be attached to the chunks whose
text lies on it, around it or beside it: :func:`associate_images`.

Positions everywhere in this module have the shape :func:`ragchunk.extract_positions` returns:
``([page indexes], left, right, top, bottom)`` with **0-based** page indexes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from .positions import Position

__all__ = ["associate_images", "boxes_overlap"]

T = TypeVar("T")


# ---------------------------------------------------------------------------------------------
# Position helpers shared by the pipeline, paper and association modules
# ---------------------------------------------------------------------------------------------


def _coordinate(value: object, where: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: {field} must be a number, got {type(value).__name__}")
    as_float = float(value)
    if not math.isfinite(as_float):
        raise ValueError(f"{where}: {field} must be finite, got {value!r}")
    return as_float


def _page_list(value: object, where: str) -> list[int]:
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(
            f"{where}: pages must be a non-empty list of 0-based page indexes, got {value!r}"
        )
    pages: list[int] = []
    for page in value:
        if isinstance(page, bool) or not isinstance(page, int):
            raise TypeError(f"{where}: page indexes must be int, got {type(page).__name__}")
        if page < 0:
            raise ValueError(f"{where}: page indexes must be >= 0, got {page}")
        pages.append(page)
    return pages


def _position(value: object, where: str, *, page_numbers: bool = False) -> Position:
    """Validate one position and return it as a ``Position`` tuple.

    The first field is a list of 0-based page indexes (:func:`ragchunk.extract_positions`'
    shape). With ``page_numbers=True`` it may also be an ``int``: a **1-based** page number,
    as RAGFlow's parser writes in its JSON ``"positions"`` (``[[page, left, right, top,
    bottom], ...]``); the type tells the two conventions apart.
    """
    if not isinstance(value, (list, tuple)) or len(value) != 5:
        raise TypeError(
            f"{where} must be a ([pages], left, right, top, bottom) sequence of 5 items, "
            f"got {value!r}"
        )
    first, left, right, top, bottom = value
    if page_numbers and isinstance(first, int) and not isinstance(first, bool):
        if first < 1:
            raise ValueError(f"{where}: a page number must be >= 1 (1-based), got {first}")
        pages = [first - 1]
    else:
        pages = _page_list(first, where)
    box = [
        _coordinate(v, where, name)
        for v, name in zip(
            (left, right, top, bottom), ("left", "right", "top", "bottom"), strict=True
        )
    ]
    if box[0] > box[1]:
        raise ValueError(f"{where}: left ({box[0]}) is greater than right ({box[1]})")
    if box[2] > box[3]:
        raise ValueError(f"{where}: top ({box[2]}) is greater than bottom ({box[3]})")
    return (pages, box[0], box[1], box[2], box[3])


def _fmt(x: float, where: str) -> str:
    # A RAGFlow tag holds only digits, dots, tabs and dashes: no sign, no exponent.
    if x < 0:
        raise ValueError(f"{where}: coordinates in a position tag must be >= 0, got {x}")
    text = repr(float(x))
    return text if "e" not in text else f"{x:.6f}"


def _position_tag(pos: Position, where: str) -> str:
    """The RAGFlow tag ``@@page\\tleft\\tright\\ttop\\tbottom##`` for ``pos`` (pages 1-based)."""
    pages, left, right, top, bottom = pos
    coords = "\t".join(_fmt(v, where) for v in (left, right, top, bottom))
    return f"@@{'-'.join(str(p + 1) for p in pages)}\t{coords}##"


# ---------------------------------------------------------------------------------------------
# Overlap
# ---------------------------------------------------------------------------------------------


def _overlaps(a: Position, b: Position, tolerance: float) -> bool:
    if not set(a[0]) & set(b[0]):
        return False
    gap_x = max(a[1], b[1]) - min(a[2], b[2])
    gap_y = max(a[3], b[3]) - min(a[4], b[4])
    return gap_x <= tolerance and gap_y <= tolerance


def _tolerance(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"tolerance must be a number, got {type(value).__name__}")
    t = float(value)
    if not math.isfinite(t) or t < 0:
        raise ValueError(f"tolerance must be a finite number >= 0, got {value!r}")
    return t


def boxes_overlap(a: Position, b: Position, tolerance: float = 0.0) -> bool:
    """Whether two positions overlap, as :func:`associate_images` decides it.

    Two positions overlap when they share a page index and their boxes, taken as closed
    rectangles grown by ``tolerance`` points on every side, intersect: the horizontal gap
    ``max(left) - min(right)`` and the vertical gap ``max(top) - min(bottom)`` are both at
    most ``tolerance``. Boxes that only touch (gap 0) overlap; so does a box inside another.

    >>> boxes_overlap(([0], 0, 100, 0, 50), ([0], 50, 150, 40, 90))
    True
    >>> boxes_overlap(([0], 0, 100, 0, 50), ([1], 0, 100, 0, 50))
    False
    >>> boxes_overlap(([0], 0, 100, 0, 50), ([0], 0, 100, 56, 90), tolerance=6)
    True
    """
    tol = _tolerance(tolerance)
    return _overlaps(_position(a, "a"), _position(b, "b"), tol)


def _chunk_positions(chunk: object, where: str) -> list[Any]:
    if isinstance(chunk, Mapping):
        if "positions" not in chunk:
            raise TypeError(f"{where} is a mapping without a 'positions' key")
        positions = chunk["positions"]
    elif isinstance(chunk, (list, tuple)) and len(chunk) == 2 and isinstance(chunk[0], str):
        positions = chunk[1]
    else:
        raise TypeError(
            f"{where} must be a (text, positions) pair or a mapping with 'positions', "
            f"got {type(chunk).__name__}"
        )
    if not isinstance(positions, (list, tuple)):
        raise TypeError(f"{where} positions must be a list, got {type(positions).__name__}")
    return list(positions)


def associate_images(
    chunks_with_positions: Sequence[tuple[str, Sequence[Position]] | Mapping[str, Any]],
    images: Sequence[tuple[T, Position]],
    *,
    tolerance: float = 0.0,
) -> list[list[T]]:
    """For each chunk, the images whose page and box overlap one of the chunk's positions.

    Overlap is exactly :func:`boxes_overlap`: a chunk position and an image position share a
    page index, and their boxes (closed rectangles) intersect once each side is grown by
    ``tolerance`` points. With ``tolerance=0`` an image touching a paragraph's box counts, an
    image one point below it does not; a figure sitting between two paragraphs is usually
    caught with a tolerance of a line's height (about 10-15 points in a PDF).

    Args:
        chunks_with_positions: one entry per chunk, either a ``(text, positions)`` pair (what
            :func:`ragchunk.naive_merge_with_positions` returns) or a mapping with a
            ``"positions"`` key (what ``TokenChunker.invoke`` and ``chunk_paper`` return).
            Positions are ``([page indexes], left, right, top, bottom)``, pages 0-based.
        images: ``(image, position)`` pairs, the position in the same shape. The image can
            be any object (a PIL image, an id, a path); it is returned as given.
        tolerance: points (the unit of the coordinates) by which boxes may be apart and still
            overlap; ``>= 0``.

    Returns:
        A list as long as ``chunks_with_positions``; entry ``i`` holds the images overlapping
        chunk ``i``, in the order of ``images``, each at most once (an image listed under
        several positions, say a figure over two pages, is compared by identity, or by value
        for ``str``/``int`` ids). An image may belong to several chunks, or to none. A chunk
        without positions gets ``[]``.

    Raises:
        TypeError: a chunk or image entry of the wrong shape (the message gives its index).
        ValueError: a negative tolerance, a negative page index, or a box whose left is
            greater than its right (or top greater than bottom).

    >>> chunks = [("Intro", [([0], 50.0, 300.0, 80.0, 200.0)]),
    ...           ("Method", [([1], 50.0, 300.0, 80.0, 400.0)])]
    >>> figures = [("fig1.png", ([0], 60.0, 280.0, 190.0, 260.0)),
    ...            ("fig2.png", ([1], 60.0, 280.0, 420.0, 600.0))]
    >>> associate_images(chunks, figures)
    [['fig1.png'], []]
    >>> associate_images(chunks, figures, tolerance=25)
    [['fig1.png'], ['fig2.png']]
    """
    tol = _tolerance(tolerance)
    if isinstance(chunks_with_positions, (str, bytes)) or not isinstance(
        chunks_with_positions, Sequence
    ):
        raise TypeError(
            f"chunks_with_positions must be a list, got {type(chunks_with_positions).__name__}"
        )
    if isinstance(images, (str, bytes)) or not isinstance(images, Sequence):
        raise TypeError(
            f"images must be a list of (image, position) pairs, got {type(images).__name__}"
        )

    parsed_images: list[tuple[T, Position]] = []
    for i, item in enumerate(images):
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise TypeError(f"images[{i}] must be an (image, position) pair, got {item!r}")
        parsed_images.append((item[0], _position(item[1], f"images[{i}] position")))

    result: list[list[T]] = []
    for c, chunk in enumerate(chunks_with_positions):
        where = f"chunks_with_positions[{c}]"
        positions = [
            _position(p, f"{where} positions[{k}]")
            for k, p in enumerate(_chunk_positions(chunk, where))
        ]
        found: list[T] = []
        for image, image_pos in parsed_images:
            if any(_same(image, seen) for seen in found):
                continue
            if any(_overlaps(p, image_pos, tol) for p in positions):
                found.append(image)
        result.append(found)
    return result


def _same(a: object, b: object) -> bool:
    # One image may be listed several times (a figure over two boxes or two pages); it is
    # returned once. Identity for arbitrary objects (PIL images, arrays: no `==`), equality
    # for plain ids and paths.
    return a is b or (type(a) is type(b) and isinstance(a, (str, int)) and a == b)
