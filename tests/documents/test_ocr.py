"""Pages without a text layer when no OCR engine is installed and no callable is given:
reported, never silently empty."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

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


@pytest.mark.usefixtures("no_engine")
def test_ingest_and_chunk_report_the_pages_they_could_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    import ragchunk
    from ragchunk.cli import main
    from ragchunk.ingest import ingest

    path = tmp_path / "scan.pdf"
    path.write_bytes(_SCAN)
    # an unpicklable reader keeps the files in this process, where the engine is absent
    report = ingest(
        [str(path)],
        f"parquet:{tmp_path / 'store'}",
        ragchunk.RecursiveSplitter(50),
        readers={".txt": lambda _path, data: data.decode()},
        progress=False,
    )
    assert report.added == 1 and not report.failed  # the page with text is written
    assert report.unread == [(str(path), [2, 3])]
    assert "pages not read" in report.summary().splitlines()[-1]
    assert f"{path} pages 2, 3" in report.summary()
    assert report.to_dict()["unread"] == [{"source": str(path), "pages": [2, 3]}]

    assert main(["chunk", "--documents", "--workers", "1", "-q", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "Page one has text." in out
    assert "ragchunk: warning: " in err and "2 page(s) without a text layer (2, 3)" in err
