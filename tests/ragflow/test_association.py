"""associate_images: images attached to chunks by page and box overlap."""

from __future__ import annotations

import doctest

import pytest
import ragchunk
from ragchunk import association
from ragchunk.ragflow.association import associate_images, boxes_overlap
from ragchunk.ragflow.papers import chunk_paper
from ragchunk.ragflow.pipeline import SplitterComponent
from test_papers import PAPER

# ---------------------------------------------------------------------------------------------
# The overlap rule
# ---------------------------------------------------------------------------------------------

BOX = ([0], 100.0, 200.0, 100.0, 200.0)


@pytest.mark.parametrize(
    ("other", "tolerance", "expected"),
    [
        (([0], 150.0, 250.0, 150.0, 250.0), 0, True),  # partial overlap
        (([0], 120.0, 180.0, 120.0, 180.0), 0, True),  # inside
        (([0], 50.0, 300.0, 50.0, 300.0), 0, True),  # around
        (([0], 200.0, 300.0, 100.0, 200.0), 0, True),  # shares the right edge
        (([0], 100.0, 200.0, 200.0, 260.0), 0, True),  # starts where it ends (vertical)
        (([0], 100.0, 200.0, 201.0, 260.0), 0, False),  # one point below
        (([0], 100.0, 200.0, 201.0, 260.0), 1, True),  # ... within tolerance
        (([0], 100.0, 200.0, 212.0, 260.0), 10, False),  # ... beyond it
        (([0], 205.0, 300.0, 205.0, 300.0), 5, True),  # diagonal, both gaps within tolerance
        (([0], 205.0, 300.0, 100.0, 200.0), 4.9, False),
        (([1], 100.0, 200.0, 100.0, 200.0), 0, False),  # same box, other page
        (([1], 100.0, 200.0, 100.0, 200.0), 1000, False),  # tolerance never crosses pages
        (([3, 0], 100.0, 200.0, 100.0, 200.0), 0, True),  # multi-page span sharing page 0
    ],
)
def test_boxes_overlap(other: tuple, tolerance: float, expected: bool) -> None:
    assert boxes_overlap(BOX, other, tolerance) is expected
    assert boxes_overlap(other, BOX, tolerance) is expected  # symmetric


def test_degenerate_boxes() -> None:
    line = ([0], 100.0, 200.0, 150.0, 150.0)  # zero height
    assert boxes_overlap(BOX, line)
    assert not boxes_overlap(([0], 0.0, 0.0, 0.0, 0.0), BOX)


# ---------------------------------------------------------------------------------------------
# On a real paper's chunks
# ---------------------------------------------------------------------------------------------

# Figures and a photo laid out on the paper of test_papers (0-based page indexes).
FIG_PIPELINE = ([1], 312.0, 540.0, 72.0, 260.0)  # page 2, right column, beside the Method
FIG_LOGO = ([0], 72.0, 150.0, 20.0, 60.0)  # page 1 header, above everything
FIG_RESULTS = ([2], 72.0, 300.0, 275.0, 400.0)  # page 3, just below the last paragraph


def _body_chunks(budget: int) -> list[tuple[str, list]]:
    sections = []
    for s in PAPER:
        if s["kind"] in ("text", "title"):
            page, left, right, top, bottom = s["positions"][0]  # type: ignore[index]
            sections.append((str(s["text"]), f"@@{page}\t{left}\t{right}\t{top}\t{bottom}##"))
    return ragchunk.naive_merge_with_positions(sections, budget)


def test_associate_on_naive_merge_with_positions() -> None:
    chunks = _body_chunks(64)
    images = [("pipeline.png", FIG_PIPELINE), ("logo.png", FIG_LOGO), ("bar.png", FIG_RESULTS)]
    assert [text.split("\n")[1] for text, _ in chunks] == [
        "1 Introduction",
        "2 Method",
        "3 Results",
    ]
    # Nothing overlaps exactly: the figure sits beside the Method text, the chart below.
    assert associate_images(chunks, images) == [[], [], []]
    # A column gutter (12 pt) and a paragraph gap (5 pt) are bridged by a 12 pt tolerance.
    assert associate_images(chunks, images, tolerance=12) == [[], ["pipeline.png"], ["bar.png"]]
    # A huge tolerance still never crosses pages: the logo is on page 1 with the intro.
    assert associate_images(chunks, images, tolerance=10_000) == [
        ["logo.png"],
        ["pipeline.png"],
        ["bar.png"],
    ]


def test_associate_on_chunk_paper_and_splitter_dicts() -> None:
    paper_chunks = chunk_paper(PAPER, chunk_token_num=64)
    result = associate_images(paper_chunks, [("pipeline.png", FIG_PIPELINE)])
    by_kind = {c["kind"]: r for c, r in zip(paper_chunks, result, strict=True) if r}
    assert by_kind == {"figure": ["pipeline.png"]}  # the figure section is its own box

    boxes = [{"text": s["text"], "positions": s["positions"]} for s in PAPER if s["kind"] == "text"]
    pipeline_chunks = SplitterComponent(chunk_token_size=32).invoke(boxes)
    attached = associate_images(pipeline_chunks, [("bar.png", FIG_RESULTS)], tolerance=5)
    assert [bool(a) for a in attached] == [
        "Our method is best" in c["content"] for c in pipeline_chunks
    ]


def test_order_and_duplicates() -> None:
    chunks = [("both pages", [([0], 0.0, 600.0, 0.0, 800.0), ([1], 0.0, 600.0, 0.0, 800.0)])]
    wide = object()
    images = [
        ("b", ([1], 10.0, 20.0, 10.0, 20.0)),
        (wide, ([0], 10.0, 20.0, 10.0, 20.0)),
        ("a", ([0], 30.0, 40.0, 30.0, 40.0)),
        (wide, ([1], 10.0, 20.0, 10.0, 20.0)),  # the same figure continued on page 2
        ("b", ([1], 50.0, 60.0, 50.0, 60.0)),  # the same id listed twice
    ]
    assert associate_images(chunks, images) == [["b", wide, "a"]]


def test_chunk_without_positions_and_empty_inputs() -> None:
    assert associate_images([("no tags", [])], [("x", BOX)]) == [[]]
    assert associate_images([], [("x", BOX)]) == []
    assert associate_images([("t", [BOX])], []) == [[]]


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chunks", "images", "kwargs", "exc", "message"),
    [
        ([("t", [BOX])], [], {"tolerance": -1}, ValueError, "tolerance must be a finite"),
        ([("t", [BOX])], [], {"tolerance": float("nan")}, ValueError, "tolerance must be"),
        ([("t", [BOX])], [], {"tolerance": "1"}, TypeError, "tolerance must be a number"),
        ("text", [], {}, TypeError, "chunks_with_positions must be a list"),
        ([("t", [BOX])], "img", {}, TypeError, "images must be a list"),
        ([("t", [BOX])], ["img"], {}, TypeError, r"images\[0\] must be an \(image, position\)"),
        (
            [("t", [BOX])],
            [("img", (0, 1.0, 2.0, 3.0, 4.0))],
            {},
            TypeError,
            r"images\[0\] position: pages must be a non-empty list",
        ),
        (
            [("t", [BOX])],
            [("img", ([0], 1.0, 2.0, 3.0))],
            {},
            TypeError,
            r"images\[0\] position must be a \(\[pages\], left, right, top, bottom\)",
        ),
        (
            [("t", [BOX])],
            [("img", ([-1], 1.0, 2.0, 3.0, 4.0))],
            {},
            ValueError,
            "page indexes must be >= 0",
        ),
        (
            [("t", [BOX])],
            [("img", ([0], 1.0, 2.0, 9.0, 4.0))],
            {},
            ValueError,
            r"top \(9.0\) is greater than bottom",
        ),
        (
            [("t", [BOX])],
            [("img", ([0], "1", 2.0, 3.0, 4.0))],
            {},
            TypeError,
            "left must be a number",
        ),
        ([5], [], {}, TypeError, r"chunks_with_positions\[0\] must be a \(text, positions\)"),
        ([{"text": "t"}], [], {}, TypeError, r"chunks_with_positions\[0\] is a mapping without"),
        ([("t", "tags")], [], {}, TypeError, r"chunks_with_positions\[0\] positions must be"),
        (
            [("t", [BOX]), ("u", [([0], 5.0, 1.0, 0.0, 1.0)])],
            [],
            {},
            ValueError,
            r"chunks_with_positions\[1\] positions\[0\]: left \(5.0\) is greater",
        ),
    ],
)
def test_errors_name_the_argument(
    chunks: object, images: object, kwargs: dict, exc: type, message: str
) -> None:
    with pytest.raises(exc, match=message):
        associate_images(chunks, images, **kwargs)  # type: ignore[arg-type]


def test_boxes_overlap_errors() -> None:
    with pytest.raises(TypeError, match="a must be a"):
        boxes_overlap((0, 1, 2, 3), BOX)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tolerance"):
        boxes_overlap(BOX, BOX, -0.5)


def test_docstring_examples() -> None:
    result = doctest.testmod(association, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, result
