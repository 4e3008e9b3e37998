"""One text file, three ways in: ``ragchunk chunk``, ``ragchunk view`` and ``ingest`` give
the chunks of its text document, which are the chunker's own over the file's text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import ragchunk
from ragchunk.cli import main
from ragchunk.documents import chunk_document, is_text_document, text_document

# a heading, CJK, an emoji (two UTF-16 units), leading spaces and a trailing blank line:
# nothing a reader may strip or re-join
TEXT = (
    "# Notes\n\n  Indented first line of the notes, with words enough to cut.\n\n"
    "第二段。它有中文，也有 😀 emoji.\n\nThe last paragraph ends the file.\n\n"
)
SIZE, OVERLAP = 12, 3


def _expected() -> list[tuple[str, int, int, int]]:
    chunker = ragchunk.RecursiveSplitter(SIZE, OVERLAP)
    doc = text_document(TEXT)
    assert is_text_document(doc) and doc.text == TEXT
    own = [(c.text, c.start, c.end, c.token_count) for c in chunker.split(TEXT)]
    via_document = [(c.text, c.start, c.end, c.token_count) for c in chunk_document(doc, chunker)]
    assert via_document == own and len(own) > 3
    assert all(TEXT[s:e] == t for t, s, e, _ in own)
    return own


# a UTF-8 byte-order mark is not text: every reader drops it, so offsets index the text after it
@pytest.mark.parametrize("bom", ["", "\ufeff"], ids=["plain", "bom"])
def test_chunk_view_and_ingest_agree_on_a_text_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bom: str
) -> None:
    pytest.importorskip("pyarrow")
    from ragchunk.ingest import ingest, open_store

    expected = _expected()
    path = tmp_path / "notes.txt"
    path.write_text(bom + TEXT, encoding="utf-8")
    options = ["--chunk-size", str(SIZE), "-o", f"chunk_overlap={OVERLAP}"]

    assert main(["chunk", str(path), "-q", *options]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["text"], r["start"], r["end"], r["token_count"]) for r in records] == expected
    assert {json.dumps(r["metadata"]) for r in records} == {"{}"}  # nothing added to cite
    assert [r["chunk_index"] for r in records] == list(range(len(expected)))

    page = tmp_path / "view.html"
    assert main(["view", str(path), "--out", str(page), *options]) == 0
    found = re.search(
        r'<script type="application/json" id="ragchunk-data">(.*?)</script>',
        page.read_text(encoding="utf-8"),
        re.S,
    )
    assert found is not None
    data = json.loads(found.group(1))
    assert data["text"] == TEXT and data["pages"] is None
    column = data["columns"][0]
    assert [(TEXT[s:e], s, e, n) for _, _, s, e, n in column["chunks"]] == expected
    assert column["own"] == {} and set(map(json.dumps, column["meta"])) == {"null"}

    store = f"parquet:{tmp_path / 'store'}"
    report = ingest(
        [str(path)], store, ragchunk.RecursiveSplitter(SIZE, OVERLAP), workers=1, progress=False
    )
    assert report.added == 1 and not report.failed
    st = open_store(store)
    try:
        rows = sorted(st.read().to_pylist(), key=lambda r: r["chunk_index"])
    finally:
        st.close()
    assert [(r["text"], r["start"], r["end"], r["token_count"]) for r in rows] == expected
    assert {(r["metadata"], r["pages"], r["boxes"], r["heading_path"]) for r in rows} == {
        ("{}", None, None, None)
    }
    capsys.readouterr()
