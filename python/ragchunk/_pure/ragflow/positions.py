"""RAGFlow PDF position tags: ``@@<pages>\\t<left>\\t<right>\\t<top>\\t<bottom>##``.

RAGFlow's PDF parser appends such a tag to every text box, and the chunkers carry
the tags along inside chunk text. These are the two static helpers of
``deepdoc.parser.pdf_parser.RAGFlowPdfParser`` that read them back.
"""

from __future__ import annotations

import re

__all__ = ["Position", "extract_positions", "remove_tag"]

Position = tuple[list[int], float, float, float, float]
"""``(page indexes, left, right, top, bottom)``; page indexes are 0-based."""

# Lazy on purpose: a tag ends at the *first* "##" after at least one tag character.
# The character class is loose (tabs, digits, dots and dashes in any order), so
# malformed tags such as "@@1\t2\t3##" are removed too.
_TAG_FOR_REMOVAL = re.compile(r"@@[\t0-9.-]+?##")

# Stricter: a page field of digits and dashes, a tab, then digits, dots and tabs.
_TAG_FOR_EXTRACTION = re.compile(r"@@[0-9-]+\t[0-9.\t]+##")


def remove_tag(txt: str) -> str:
    """Remove every position tag from ``txt`` (RAGFlow's ``RAGFlowPdfParser.remove_tag``).

    >>> remove_tag("a@@1\\t2.0\\t3.0\\t4.0\\t5.0##b")
    'ab'
    """
    return _TAG_FOR_REMOVAL.sub("", txt)


def extract_positions(txt: str) -> list[Position]:
    """Parse every position tag in ``txt`` (RAGFlow's ``RAGFlowPdfParser.extract_positions``).

    Each tag must have exactly five tab-separated fields. Pages are the
    dash-separated numbers of the first field minus one (``"3-4"`` gives
    ``[2, 3]``); the four coordinates are floats.

    Raises:
        ValueError: a matched tag is malformed: not five fields, an empty or
            multi-dot coordinate, or an empty page number (as in ``"@@1--2\\t..."``).
            RAGFlow raises the same ``ValueError`` (from tuple unpacking, ``float``
            or ``int``).

    >>> extract_positions("x@@3-4\\t1\\t2.5\\t3\\t4##")
    [([2, 3], 1.0, 2.5, 3.0, 4.0)]
    """
    positions: list[Position] = []
    for match in _TAG_FOR_EXTRACTION.finditer(txt):
        # The match starts with "@@" and ends with "##"; the body cannot contain
        # either character, so slicing equals RAGFlow's strip("#").strip("@").
        fields = match.group()[2:-2].split("\t")
        if len(fields) != 5:
            raise ValueError(
                f"position tag {match.group()!r} has {len(fields)} tab-separated fields, expected 5"
            )
        pages, left, right, top, bottom = fields
        # Coordinates are converted before the pages, as RAGFlow does; either
        # failure is a ValueError, so the order only shows in the message.
        coordinates = (float(left), float(right), float(top), float(bottom))
        page_indexes = [int(page) - 1 for page in pages.split("-")]
        positions.append((page_indexes, *coordinates))
    return positions
