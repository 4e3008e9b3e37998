"""PDF text by rule: line-end hyphens joined or kept, soft hyphens, control characters,
ligatures and presentation forms; on hand-written PDFs and on characters given to the layout."""

from __future__ import annotations

from types import ModuleType

import pytest

pytest.importorskip("pypdfium2")

from docfiles import simple_pdf
from ragchunk._pure.documents.layout import page_items
from ragchunk._pure.documents.pdfium import GENERATED
from ragchunk.documents import parse
from ragchunk.documents._hyphens import Hyphens


def _body(doc) -> str:
    return " ".join(s.text for s in doc.sections if s.kind == "text")


def test_line_end_hyphens_through_parse() -> None:
    # PDFium reports these line-end hyphens as U+0002 (as it does pdfTeX's).
    lines = [
        "The case-insensitive names are read by the",
        "fol-",
        "lowing rule, and names are case-",
        "insensitive everywhere. The Meter-",
        "Provider and page 10-",
        "12 keep their hyphens.",
    ]
    page = [("F1", 10, 72, 80 + 12 * i, text) for i, text in enumerate(lines)]
    text = _body(parse(simple_pdf([page])))
    assert "by the following rule" in text
    assert "are case-insensitive everywhere" in text
    assert "Meter-Provider" in text and "10-12" in text
    assert "\x02" not in text and "\ufffe" not in text


def test_hyphen_rules() -> None:
    h = Hyphens(["a well-known fact", "the word wellknown"])
    # The document's own spelling decides: the compound written inside a line keeps its
    # hyphen, the whole word written inside a line joins it.
    assert h.join("is well-", "known") == "is well-known"
    assert Hyphens(["the wellknown word"]).join("is well-", "known") == "is wellknown"
    # Two halves that are both words of the document stay a compound; other halves join.
    h = Hyphens(["the syntax is highlighted"])
    assert h.join("syntax-", "highlighted code") == "syntax-highlighted code"
    assert h.join("gen-", "erate") == "generate"
    # A capital or a digit after the break: a compound or a code, never joined.
    assert h.join("Meter-", "Provider") == "Meter-Provider"
    assert h.join("pages 10-", "12") == "pages 10-12"
    # U+2010 ending a line is the engine's own break; and a document that marks its breaks
    # so keeps its ASCII hyphens (they were typed).
    marked = Hyphens(["instru\u2010", "menting and"])
    assert marked.join("instru\u2010", "menting") == "instrumenting"
    assert marked.join("non-", "technical") == "non-technical"
    # Cyrillic: a compound's hyphen repeated on the next line is kept once; a word broken
    # before a lowercase letter is joined.
    h = Hyphens(["из-за того"])
    assert h.join("из-", "-за") == "из-за"
    assert h.join("перено-", "сится") == "переносится"


def _chars(text: str, top: float, x: float = 72.0) -> list:
    out = []
    for ch in text:
        out.append((ch, x, top, x + 5.0, top + 10.0, 10.0, 0))
        x += 5.0
    return out


def test_layout_text_rules_on_both_backends(core: ModuleType) -> None:
    chars = [
        *_chars("speci\xadfic \ufb03ce \u2460\x07bell\ufe35 auto\xad", 100.0),
        *_chars("in\u2010", 112.0),
        *_chars("one\x02", 124.0),
    ]
    chars.insert(3, (" ", 0.0, 0.0, 0.0, 0.0, 0.0, GENERATED))
    python = page_items(chars, [], 600.0)
    rust = core.pdf_layout_items(chars, [], 600.0)
    assert rust == python
    texts = [it[1] for it in python]
    # A soft hyphen inside a line is left out, one ending a line stays as the hyphen drawn
    # there (U+2010); ligatures and presentation forms by NFKC (the circled digit is neither
    # and stays); control characters never reach the text; U+0002 is a hyphen.
    assert texts == ["spe cific ffice \u2460bell( auto\u2010", "in\u2010", "one-"]


def test_soft_hyphen_break_joins_the_word_in_a_table_cell(core: ModuleType) -> None:
    # A grid of two cells; the first holds a word broken at a soft hyphen over two lines.
    rules = [(2, 60.0, 89.0, 300.0, 91.0, 1), (2, 60.0, 139.0, 300.0, 141.0, 1)]
    rules += [(2, x - 1.0, 90.0, x + 1.0, 140.0, 1) for x in (60.0, 180.0, 300.0)]
    chars = [*_chars("instru\xad", 100.0), *_chars("ments", 112.0)]
    chars += _chars("short", 100.0, 202.0)
    python = page_items(chars, rules, 600.0)
    assert core.pdf_layout_items(chars, rules, 600.0) == python
    (table,) = [it for it in python if it[0] == "table"]
    assert table[9] == [["instruments", "short"]]
