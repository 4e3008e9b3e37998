"""Pages without a text layer when no OCR engine is installed and no callable is given:
reported, never silently empty."""

from __future__ import annotations

import sys
import warnings

import pytest
from docfiles import simple_pdf
from ragchunk.documents import parse

_SCAN = simple_pdf(
    [[("F1", 10, 72, 72, "Page one has text.")], [], []],
    drawings=[[], [("image", 0, 0, 595, 842)], [("image", 0, 0, 595, 842)]],
)


@pytest.fixture
def no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the ``ocr`` extra were not installed."""
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)


@pytest.mark.usefixtures("no_engine")
def test_a_scan_without_ocr_warns_and_lists_its_pages() -> None:
    with pytest.warns(UserWarning, match=r"scan\.pdf: 2 page\(s\) without a text layer \(2, 3\)"):
        doc = parse(_SCAN, filename="scan.pdf")
    assert doc.metadata["needs_ocr"] == [2, 3]
    assert [s.text for s in doc.sections if s.kind == "text"] == ["Page one has text."]


@pytest.mark.usefixtures("no_engine")
def test_ocr_false_lists_the_pages_without_the_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = parse(_SCAN, filename="scan.pdf", ocr=False)
    assert doc.metadata["needs_ocr"] == [2, 3]
    with pytest.raises(TypeError, match="ocr must be a callable, False or None, got True"):
        parse(_SCAN, ocr=True)
