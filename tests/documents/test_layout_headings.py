"""PDF heading levels from the titles' numbering, on a hand-written PDF."""

from __future__ import annotations

import pytest

pytest.importorskip("pypdfium2")

from docfiles import simple_pdf
from ragchunk.documents import parse

BODY = "Body text of the section, set in the body size, long enough to be the body."


def test_numbered_titles_get_levels_from_their_numbering() -> None:
    # Sections and subsections in one size: the numbering tells their levels.
    lines = [("F2", 20, 72, 60, "Report")]
    top = 100.0
    for title in ("1 Scope", "1.1 Goals", "1.1.1 Limits", "2 Method", "2.1 Data"):
        lines.append(("F2", 13, 72, top, title))
        lines.append(("F1", 10, 72, top + 22, BODY))
        lines.append(("F1", 10, 72, top + 34, BODY))
        top += 70
    doc = parse(simple_pdf([lines]))
    titles = [(s.text, s.level) for s in doc.sections if s.kind == "title"]
    assert titles == [
        ("Report", 1),
        ("1 Scope", 2),
        ("1.1 Goals", 3),
        ("1.1.1 Limits", 4),
        ("2 Method", 2),
        ("2.1 Data", 3),
    ]


def test_unnumbered_titles_keep_levels_from_sizes() -> None:
    lines = [
        ("F2", 20, 72, 60, "Report"),
        ("F2", 14, 72, 100, "Scope"),
        ("F1", 10, 72, 122, BODY),
        ("F1", 10, 72, 134, BODY),
        ("F2", 14, 72, 170, "2024 in numbers"),
        ("F1", 10, 72, 192, BODY),
    ]
    doc = parse(simple_pdf([lines]))
    titles = [(s.text, s.level) for s in doc.sections if s.kind == "title"]
    assert titles == [("Report", 1), ("Scope", 2), ("2024 in numbers", 2)]
