"""chunk_document and the RAGFlow adapters: chunks that cite their sections, pages and boxes.

These run on both backends (the chunkers dispatch to the Rust core or the fallback).
"""

from __future__ import annotations

import pytest
import ragchunk
from docfiles import sample_docx
from ragchunk import (
    MarkdownSplitter,
    RecursiveSplitter,
    TitleChunker,
    TokenChunker,
    TokenWindowSplitter,
    naive_merge_with_positions,
)
from ragchunk.documents import Document, Section, chunk_document, parse


def paged() -> Document:
    """A hand-built two-page document with boxes, as a PDF parser would give it."""
    return Document(
        [
            Section("header", "ACME report", boxes=[(1, 72, 20, 300, 30)]),
            Section("title", "Results", level=1, boxes=[(1, 72, 60, 300, 80)]),
            Section(
                "text",
                "The first half of a paragraph. The second half of it.",
                boxes=[(1, 72, 700, 520, 760), (2, 72, 60, 520, 90)],
                metadata={"box_offsets": [0, 31]},
            ),
            Section("title", "Costs", level=2, boxes=[(2, 72, 100, 300, 120)]),
            Section(
                "table",
                "item | cost\nbolt | 3",
                rows=[["item", "cost"], ["bolt", "3"]],
                boxes=[(2, 72, 130, 400, 180)],
            ),
            Section("figure", "", boxes=[(2, 72, 200, 400, 400)]),
            Section("caption", "Figure 1: Costs over time", boxes=[(2, 72, 405, 400, 420)]),
            Section("footer", "Page 2", boxes=[(2, 280, 800, 320, 810)]),
        ],
        format="pdf",
        filename="/tmp/report.pdf",
    )


def check_spans(doc: Document, markdown: bool) -> None:
    view = doc.markdown() if markdown else doc.text
    spans = doc.spans(markdown=markdown)
    for s in spans:
        sec = doc.sections[s.section_index]
        if not markdown:
            assert view[s.start : s.end] == sec.text
        for offset in (s.start, s.end - 1):
            loc = doc.locate(offset, markdown=markdown)
            assert loc is not None and loc.section is sec
    covered = {i for s in spans for i in range(s.start, s.end)}
    for i, ch in enumerate(view):
        if i not in covered:
            assert ch == "\n" and doc.locate(i, markdown=markdown) is None


def test_every_character_maps_back_to_its_section() -> None:
    for doc in (paged(), parse(sample_docx(), format="docx")):
        check_spans(doc, markdown=False)
        check_spans(doc, markdown=True)


def test_locate_picks_the_box_of_a_split_paragraph() -> None:
    doc = paged()
    start = doc.spans()[1].start
    assert doc.locate(start + 5).box.page == 1  # type: ignore[union-attr]
    assert doc.locate(start + 40).box.page == 2  # type: ignore[union-attr]
    with pytest.raises(TypeError, match="offset"):
        doc.locate("3")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "chunker",
    [
        RecursiveSplitter(chunk_size=12),
        TokenWindowSplitter(chunk_size=8, chunk_overlap=2),
        MarkdownSplitter(chunk_size=20),
    ],
    ids=["recursive", "window", "markdown"],
)
def test_chunks_carry_pages_boxes_and_headings(chunker: ragchunk.Splitter) -> None:
    doc = paged()
    markdown = isinstance(chunker, MarkdownSplitter)
    view = doc.markdown() if markdown else doc.text
    chunks = chunk_document(doc, chunker)
    assert chunks
    assert "ACME" not in view and "Page 2" not in view
    spans = doc.spans(markdown=markdown)
    for c in chunks:
        assert c.text == view[c.start : c.end] or markdown
        hit = [s.section_index for s in spans if s.start < c.end and s.end > c.start]
        assert c.metadata["sections"] == hit
        secs = [doc.sections[i] for i in hit]
        assert set(c.metadata["pages"]) <= {b.page for s in secs for b in s.boxes}
        assert c.metadata["pages"] == sorted({b["page"] for b in c.metadata["bboxes"]})
        for b in c.metadata["bboxes"]:
            assert any(
                list(box.bbox) == b["bbox"] and box.page == b["page"]
                for s in secs
                for box in s.boxes
            )
    costs = [c for c in chunks if "bolt" in c.text]
    assert costs and costs[0].metadata["headings"] == ["Results", "Costs"]
    assert costs[0].metadata["pages"] == [2]


def test_a_chunk_of_half_a_split_paragraph_cites_only_its_page() -> None:
    doc = paged()
    chunks = chunk_document(doc, RecursiveSplitter(chunk_size=8, length="chars"))
    first_half = [c for c in chunks if "first" in c.text]
    second_half = [c for c in chunks if "second" in c.text]
    assert first_half[0].metadata["pages"] == [1]
    assert second_half[0].metadata["pages"] == [2]


def test_chunking_a_docx_keeps_every_body_character() -> None:
    doc = parse(sample_docx(), format="docx")
    chunks = chunk_document(doc, RecursiveSplitter(chunk_size=10))
    joined = "".join(c.text for c in chunks).replace("\n", "").replace(" ", "")
    assert joined == doc.text.replace("\n", "").replace(" ", "")
    usage = [c for c in chunks if "depth" in c.text]
    assert usage[0].metadata["headings"] == ["Install", "Usage"]
    assert all(c.metadata["pages"] == [] and c.metadata["bboxes"] == [] for c in chunks)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="doc must be"):
        chunk_document("text", RecursiveSplitter(chunk_size=8))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="chunker must be"):
        chunk_document(paged(), object())

    class Bad:
        def split(self, text: str) -> list[str]:
            return [text]

    with pytest.raises(TypeError, match="not a Chunk"):
        chunk_document(paged(), Bad())


def test_ragflow_sections_feed_naive_merge_with_positions() -> None:
    doc = paged()
    pairs = doc.ragflow_sections()
    assert pairs[0] == ("Results", "@@1\t72.0\t300.0\t60.0\t80.0##")
    assert pairs[1][1] == "@@1\t72.0\t520.0\t700.0\t760.0##@@2\t72.0\t520.0\t60.0\t90.0##"
    assert all("ACME" not in t and "Page 2" not in t for t, _ in pairs)
    merged = naive_merge_with_positions(pairs, chunk_token_num=16)
    pages = sorted({p for _, positions in merged for pos in positions for p in pos[0]})
    assert pages == [0, 1]  # RAGFlow's parsed positions are 0-based
    layout = doc.ragflow_sections(layout=True)
    assert [lt for _, lt in layout] == [
        "title",
        "text",
        "title",
        "table",
        "figure",
        "figure caption",
    ]
    assert layout[0][0] == "Results@@1\t72.0\t300.0\t60.0\t80.0##"


def test_docx_ragflow_sections_have_no_tags() -> None:
    doc = parse(sample_docx(), format="docx")
    assert all(tag == "" for _, tag in doc.ragflow_sections())


def test_pipeline_upstream_feeds_the_pipeline_chunkers() -> None:
    doc = paged()
    up = doc.pipeline_upstream()
    assert up["name"] == "report.pdf" and up["output_format"] == "json"
    items = up["json"]
    assert [i["doc_type_kwd"] for i in items] == ["text", "text", "text", "table", "image", "text"]
    assert (
        items[3]["text"]
        == "<table><tr><td>item</td><td>cost</td></tr><tr><td>bolt</td><td>3</td></tr></table>"
    )
    assert items[4]["layout_type"] == "figure"
    token = TokenChunker({"chunk_token_size": 64}).invoke(up)
    assert "_ERROR" not in token, token
    # Every chunk carries the boxes of its sections (RAGFlow's component turns the tags'
    # 1-based pages 1 and 2 into 0 and 1 and then lifts a page 0 to 1, so pages are not
    # compared here; the tops are exact).
    assert all(c.get("position_int") for c in token["chunks"])
    tops = {t for c in token["chunks"] for t in c["top_int"]}
    assert {60, 700, 100, 130, 405} <= tops
    title = TitleChunker({"method": "hierarchy", "hierarchy": 1, "levels": [["^Results"]]}).invoke(
        up
    )
    assert "_ERROR" not in title, title
    assert any("Results" in c["text"] for c in title["chunks"])


def test_pipeline_upstream_of_a_docx() -> None:
    up = parse(sample_docx(), filename="guide.docx").pipeline_upstream()
    assert up["name"] == "guide.docx"
    assert not any("position_tag" in i for i in up["json"])
    out = TokenChunker({"chunk_token_size": 32}).invoke(up)
    text = "".join(c["text"] for c in out["chunks"])
    assert "Field guide" in text and "how deep" in text and "running header" not in text
