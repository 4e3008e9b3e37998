"""PDF coordinates of pipeline items, read and normalised as RAGFlow's pipeline does.

RAGFlow's components keep an internal list ``[[page, left, right, top, bottom], ...]`` per
chunk and turn it into the indexed fields ``position_int`` / ``page_num_int`` / ``top_int`` at
the end. These helpers reproduce every step, the quirks included (see ``docs/ragflow-pipeline.md``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...core import dispatch

Box = list[Any]

_TAG = re.compile(r"@@[0-9-]+\t[0-9.\t]+##")


def _tag_positions(tag: str) -> list[Box]:
    """``RAGFlowPdfParser.extract_positions`` then ``[pages[-1], *rest]``, with Python's own
    exceptions (tuple unpacking, ``float``, ``int``) for malformed tags."""
    out: list[Box] = []
    for match in _TAG.finditer(tag):
        fields = match.group().strip("#").strip("@").split("\t")
        if len(fields) < 5:
            raise ValueError(f"not enough values to unpack (expected 5, got {len(fields)})")
        if len(fields) > 5:
            raise ValueError("too many values to unpack (expected 5)")
        pages, left, right, top, bottom = fields
        coords = [float(left), float(right), float(top), float(bottom)]
        page_list = [int(p) - 1 for p in pages.split("-")]
        out.append([page_list[-1], *coords])
    return out


def _raw_positions(item: Mapping[str, Any]) -> list[Any]:
    # RAGFlow deep-copies these lists; the entries are only read here, never mutated.
    positions = item.get("_pdf_positions")
    if isinstance(positions, list):
        return positions
    positions = item.get("positions")
    if isinstance(positions, list):
        return positions
    tag = item.get("position_tag")
    if isinstance(tag, str) and tag:
        return _tag_positions(tag)
    position_int = item.get("position_int")
    if isinstance(position_int, list):
        return [list(p) for p in position_int if isinstance(p, (list, tuple)) and len(p) >= 5]
    get = item.get
    page, x0, x1, top, bottom = (
        get("page_number"),
        get("x0"),
        get("x1"),
        get("top"),
        get("bottom"),
    )
    if page is None or x0 is None or x1 is None or top is None or bottom is None:
        return []
    return [[item["page_number"], item["x0"], item["x1"], item["top"], item["bottom"]]]


def extract_pdf_positions(item: object) -> list[Box]:
    """The normalised boxes of one item (RAGFlow's ``extract_pdf_positions``)."""
    if type(item) is not dict and not isinstance(item, Mapping):
        return []
    positions = _raw_positions(item)
    ref = item.get("page_number")
    ref_page = int(ref) if isinstance(ref, (int, float)) else None
    if ref_page is not None and ref_page <= 0:
        ref_page += 1
    out: list[Box] = []
    for pos in positions:
        if not isinstance(pos, (list, tuple)) or len(pos) < 5:
            continue
        page = pos[0][-1] if isinstance(pos[0], list) else pos[0]
        try:
            page = int(page)
            if ref_page is not None and page == ref_page - 1:
                page = ref_page
            elif page <= 0:
                page += 1
            out.append([page, float(pos[1]), float(pos[2]), float(pos[3]), float(pos[4])])
        except (TypeError, ValueError):
            continue
    return out


def renormalise(positions: list[Box]) -> list[Box]:
    """One more pass of the normalisation over already-normalised boxes (no ``page_number``)."""
    return extract_pdf_positions({"_pdf_positions": positions})


def merge_pdf_positions(groups: list[list[Box]]) -> list[Box]:
    """Deduplicated (``tuple(box[:5])``) union sorted by ``(page, top, left)``; each group is
    normalised once more first, as RAGFlow re-reads every record."""
    merged: list[Box] = []
    seen: set[tuple[Any, ...]] = set()
    for group in groups:
        for pos in renormalise(group):
            key = tuple(pos[:5])
            if key in seen:
                continue
            seen.add(key)
            merged.append(list(pos[:5]))
    merged.sort(key=lambda p: (p[0], p[3], p[1]))
    return merged


def position_fields(positions: list[Box]) -> dict[str, list[Any]]:
    """``position_int`` / ``page_num_int`` / ``top_int`` of the boxes; ``int()`` of ``inf``
    raises ``OverflowError`` and a ``nan`` box is skipped, as in RAGFlow."""
    position_int: list[tuple[int, int, int, int, int]] = []
    pages: list[int] = []
    tops: list[int] = []
    for pos in positions:
        try:
            box = (int(pos[0]), int(pos[1]), int(pos[2]), int(pos[3]), int(pos[4]))
        except (TypeError, ValueError):
            continue
        position_int.append(box)
        pages.append(box[0])
        tops.append(box[3])
    return {"position_int": position_int, "page_num_int": pages, "top_int": tops}


def _fields_pure(positions: list[Box], normalise: bool) -> dict[str, list[Any]] | None:
    boxes = renormalise(positions) if normalise else positions
    return position_fields(boxes) if boxes else None


def finalize(
    doc: dict[str, Any], positions: list[Box], *, normalise: bool = True
) -> dict[str, Any]:
    """Add the indexed position fields to ``doc`` (RAGFlow's ``finalize_pdf_chunk``, which
    normalises the boxes once more; ``normalise=False`` skips that pass)."""
    if not positions:
        return doc
    fields = position_fields_of(positions, normalise)
    if fields is not None:
        doc.update(fields)
    return doc


def position_fields_of(positions: list[Box], normalise: bool) -> dict[str, list[Any]] | None:
    """The indexed position fields :func:`finalize` adds for non-empty ``positions``, or
    ``None`` when no box survives."""

    def rust(core: Any) -> dict[str, list[Any]] | None:
        try:
            out = core.flow_finalize_boxes(positions, normalise)
        except (OverflowError, TypeError, ValueError):
            out = None
        if out is None:  # an infinite or huge value: Python's own int() and its errors
            return _fields_pure(positions, normalise)
        position_int, pages, tops = out
        return {"position_int": position_int, "page_num_int": pages, "top_int": tops}

    return dispatch.run_exact(rust, lambda: _fields_pure(positions, normalise))
