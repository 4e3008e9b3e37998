"""chunk_paper: abstract whole, captions with their figure or table, body through naive_merge."""

from __future__ import annotations

import doctest
import re

import pytest
import ragchunk
from ragchunk import papers
from ragchunk.ragflow.papers import PAPER_DELIMITER, PaperSection, chunk_paper
from ragchunk.ragflow.tables import chunk_table

# A three-page, two-column paper laid out on US Letter (612 x 792 pt), as a layout parser
# (DeepDOC, MinerU...) reports it: typed sections in reading order with their boxes. The text
# is written for this test. Pages in `positions` are 1-based page numbers (RAGFlow parser JSON).
ABSTRACT = (
    "Retrieval-augmented generation depends on how documents are cut into chunks. Cutting "
    "by a fixed number of characters separates a claim from its evidence, while cutting by "
    "paragraphs produces chunks of very uneven size. We describe a layout-aware chunker that "
    "keeps the abstract, every table and every figure caption intact and merges body "
    "paragraphs up to a token budget. On three question-answering benchmarks built from "
    "scientific articles it improves recall at five by 4.1 points over fixed-size chunking "
    "and by 2.3 points over paragraph chunking, at the same index size. We also show that "
    "keeping captions next to the figure text matters more than the exact budget."
)
TABLE_HTML = (
    "<table><caption>Table 1: Recall@5 by chunking method</caption>"
    "<thead><tr><th rowspan='2'>Method</th><th colspan='3'>Benchmark</th></tr>"
    "<tr><th>SciQA</th><th>PaperQA</th><th>ArxivQA</th></tr></thead>"
    "<tbody>"
    "<tr><td>Fixed 512 chars</td><td>61.2</td><td>55.0</td><td>58.7</td></tr>"
    "<tr><td>Paragraphs</td><td>63.4</td><td>56.9</td><td>60.1</td></tr>"
    "<tr><td>Layout-aware (ours)</td><td>65.9</td><td>59.8</td><td>62.4</td></tr>"
    "</tbody></table>"
)
PAPER: list[dict[str, object]] = [
    {"kind": "abstract", "text": ABSTRACT, "positions": [[1, 72.0, 540.0, 210.0, 330.0]]},
    {"kind": "title", "text": "1 Introduction", "positions": [[1, 72.0, 300.0, 350.0, 362.0]]},
    {
        "kind": "text",
        "text": (
            "Large language models answer questions about private documents by reading "
            "passages retrieved from an index. The passages are chunks of the original "
            "documents, and their boundaries decide what the model can see together."
        ),
        "positions": [[1, 72.0, 300.0, 366.0, 452.0]],
    },
    {
        "kind": "text",
        "text": (
            "Scientific articles are a hard case: the abstract summarises everything, "
            "tables carry the results, and figures are explained by captions that a plain "
            "text extractor places far from the figure itself."
        ),
        "positions": [[1, 312.0, 540.0, 350.0, 430.0]],
    },
    {"kind": "title", "text": "2 Method", "positions": [[2, 72.0, 300.0, 72.0, 84.0]]},
    {
        "kind": "text",
        "text": (
            "The chunker receives the sections found by the layout model. Body paragraphs "
            "are split at sentence delimiters and merged greedily until the token budget is "
            "reached; headings start a new chunk so that no chunk spans two sections."
        ),
        "positions": [[2, 72.0, 300.0, 88.0, 180.0]],
    },
    {
        "kind": "figure",
        "text": "encoder -> retriever -> reader",
        "caption": "Figure 1: The retrieval pipeline; chunks flow from the index to the reader.",
        "positions": [[2, 312.0, 540.0, 72.0, 260.0]],
    },
    {
        "kind": "text",
        "text": (
            "Figure 1 shows where chunking sits in the pipeline. Tables are converted to one "
            "sentence per cell so that each number keeps its row and column names!"
        ),
        "positions": [[2, 72.0, 300.0, 190.0, 250.0]],
    },
    {"kind": "title", "text": "3 Results", "positions": [[3, 72.0, 300.0, 72.0, 84.0]]},
    {"kind": "table", "text": TABLE_HTML, "positions": [[3, 72.0, 540.0, 90.0, 200.0]]},
    {
        "kind": "text",
        "text": (
            "Our method is best on all three benchmarks. Is the budget important? Less than "
            "the caption placement: halving it costs under one point."
        ),
        "positions": [[3, 72.0, 300.0, 210.0, 270.0]],
    },
]


def _visible(text: str, drop: str = PAPER_DELIMITER) -> str:
    """Text without whitespace and delimiter characters: what must survive chunking."""
    return "".join(ch for ch in text if not ch.isspace() and ch not in drop)


def _pos(page: int, left: float, right: float, top: float, bottom: float) -> tuple:
    return ([page - 1], left, right, top, bottom)


# ---------------------------------------------------------------------------------------------
# The realistic paper
# ---------------------------------------------------------------------------------------------


def test_paper_chunks_kinds_and_order() -> None:
    chunks = chunk_paper(PAPER, chunk_token_num=64)
    table_pieces = len(chunk_table(TABLE_HTML, 64))
    assert table_pieces == 3  # every row is over 64 tokens with the header: one row each
    assert [c["kind"] for c in chunks] == [
        "abstract",
        "text",  # 1 Introduction + both paragraphs (OVER_CAP overflows by one paragraph)
        "text",  # 2 Method + its paragraph; the figure closes the group
        "figure",
        "text",  # the paragraph after the figure
        *["table"] * table_pieces,
        "text",  # "3 Results" waited for the text after its table
    ]
    assert chunks[0]["content"] == ABSTRACT
    assert chunks[0]["positions"] == [_pos(1, 72.0, 540.0, 210.0, 330.0)]
    assert chunks[-1]["content"].startswith("3 Results\nOur method is best")
    assert chunks[-1]["positions"] == [
        _pos(3, 72.0, 300.0, 72.0, 84.0),
        _pos(3, 72.0, 300.0, 210.0, 270.0),
    ]


def test_abstract_stays_whole_over_budget() -> None:
    chunks = chunk_paper(PAPER, chunk_token_num=32)
    abstract = [c for c in chunks if c["kind"] == "abstract"]
    assert len(abstract) == 1
    assert abstract[0]["content"] == ABSTRACT
    assert abstract[0]["token_count"] == ragchunk.count_tokens(ABSTRACT) > 32


def test_caption_stays_with_figure() -> None:
    figure = next(c for c in chunk_paper(PAPER, chunk_token_num=64) if c["kind"] == "figure")
    assert figure["content"] == (
        "Figure 1: The retrieval pipeline; chunks flow from the index to the reader.\n"
        "encoder -> retriever -> reader"
    )
    assert figure["positions"] == [_pos(2, 312.0, 540.0, 72.0, 260.0)]


def test_html_table_becomes_sentences_with_caption() -> None:
    table = [c for c in chunk_paper(PAPER, chunk_token_num=512) if c["kind"] == "table"]
    assert len(table) == 1
    lines = table[0]["content"].split("\n")
    assert lines[:2] == [
        "Table 1: Recall@5 by chunking method",
        "Columns: Method | Benchmark / SciQA | Benchmark / PaperQA | Benchmark / ArxivQA",
    ]
    assert "Row 3, Method: Layout-aware (ours)" in lines
    assert "Row 3, Benchmark / ArxivQA: 62.4" in lines
    assert len(lines) == 2 + 3 * 4


def test_large_table_split_between_rows_caption_repeated() -> None:
    pieces = [c for c in chunk_paper(PAPER, chunk_token_num=160) if c["kind"] == "table"]
    assert len(pieces) == 2  # rows 1-2, then row 3
    assert pieces == [
        {
            "content": text,
            "kind": "table",
            "positions": [_pos(3, 72.0, 540.0, 90.0, 200.0)],
            "token_count": ragchunk.count_tokens(text),
        }
        for text in chunk_table(TABLE_HTML, 160)
    ]
    for piece in pieces:
        assert piece["content"].startswith("Table 1: Recall@5 by chunking method\nColumns: ")
        assert piece["token_count"] <= 160
    assert "Row 2, Method: Paragraphs" in pieces[0]["content"]
    assert "Row 3, Method: Layout-aware (ours)" in pieces[1]["content"]


def test_table_kept_as_html_when_asked() -> None:
    table = [
        c
        for c in chunk_paper(PAPER, chunk_token_num=32, tables_as_text=False)
        if c["kind"] == "table"
    ]
    assert [c["content"] for c in table] == [TABLE_HTML]


def test_body_is_naive_merge_per_heading_group() -> None:
    chunks = chunk_paper(PAPER, chunk_token_num=64)
    body = [c for c in chunks if c["kind"] == "text"]

    def tagged(i: int) -> tuple[str, str]:
        page, left, right, top, bottom = PAPER[i]["positions"][0]  # type: ignore[index]
        return (str(PAPER[i]["text"]), f"@@{page}\t{left}\t{right}\t{top}\t{bottom}##")

    # Groups: the Introduction, the Method until the figure, after the figure, and the
    # Results heading with the paragraph after its table.
    groups = [[1, 2, 3], [4, 5], [7], [8, 10]]
    expected = []
    for group in groups:
        for text, positions in ragchunk.naive_merge_with_positions(
            [tagged(i) for i in group], 64, PAPER_DELIMITER
        ):
            expected.append((text.strip(), positions))
    assert [(c["content"], c["positions"]) for c in body] == expected
    assert body[0]["content"].startswith("1 Introduction\nLarge language models")
    assert _pos(1, 72.0, 300.0, 350.0, 362.0) in body[0]["positions"]


def test_break_at_titles_false_merges_across_headings() -> None:
    together = chunk_paper(PAPER, chunk_token_num=4096, break_at_titles=False)
    body = [c["content"] for c in together if c["kind"] == "text"]
    assert body[0].startswith("1 Introduction") and "2 Method" in body[0]
    # Abstract, figure and table still close the running group.
    assert len(body) == 3


def test_no_text_lost() -> None:
    # Compared as multisets: a heading waiting for its text moves after a table.
    for budget in (16, 64, 512):
        chunks = chunk_paper(PAPER, chunk_token_num=budget, tables_as_text=False)
        got = _visible("".join(c["content"] for c in chunks))
        want = _visible("".join(str(s.get("caption") or "") + str(s["text"]) for s in PAPER))
        assert sorted(got) == sorted(want), budget


def test_no_cell_lost_when_tables_as_text() -> None:
    content = "\n".join(c["content"] for c in chunk_paper(PAPER, chunk_token_num=48))
    for cell in re.findall(r"<t[dh][^>]*>([^<]+)<", TABLE_HTML):
        assert cell in content


def test_token_counts_are_exact() -> None:
    for chunk in chunk_paper(PAPER, chunk_token_num=64):
        assert chunk["token_count"] == ragchunk.count_tokens(chunk["content"])


def test_chinese_paper() -> None:
    sections = [
        PaperSection(
            "abstract",
            "本文研究检索增强生成中的文档切分。我们提出一种基于版面的切分方法。",
            "@@1\t70.0\t520.0\t150.0\t220.0##",
        ),
        PaperSection("title", "一、引言"),
        PaperSection(
            "text", "大语言模型需要从知识库中检索段落。段落的边界决定了模型能同时看到哪些内容！"
        ),
        PaperSection(
            "table", "方法 召回率\n固定长度 61.2\n版面切分 65.9", caption="表1：召回率对比"
        ),
        PaperSection("text", "实验表明，版面切分在所有数据集上都更好。"),
    ]
    chunks = chunk_paper(sections, chunk_token_num=20)
    assert chunks[0] == {
        "content": "本文研究检索增强生成中的文档切分。我们提出一种基于版面的切分方法。",
        "kind": "abstract",
        "positions": [([0], 70.0, 520.0, 150.0, 220.0)],
        "token_count": ragchunk.count_tokens(
            "本文研究检索增强生成中的文档切分。我们提出一种基于版面的切分方法。"
        ),
    }
    assert [c["kind"] for c in chunks][-2:] == ["table", "text"]
    table = chunks[-2]
    assert table["content"] == "表1：召回率对比\n方法 召回率\n固定长度 61.2\n版面切分 65.9"
    got = _visible("".join(c["content"] for c in chunks))
    want = _visible("".join((s.caption or "") + s.text for s in sections))
    assert got == want


def test_text_with_ragflow_tags_inside() -> None:
    # DeepDOC's paper sections carry their tag inside the text.
    sections = [
        {"type": "text", "text": "A paragraph from page two.@@2\t10.0\t200.0\t30.0\t60.0##"},
        {"type": "abstract", "text": "Summary text.@@1\t10.0\t200.0\t30.0\t60.0##"},
    ]
    chunks = chunk_paper(sections)
    assert chunks == [
        {
            "content": "A paragraph from page two.",
            "kind": "text",
            "positions": [([1], 10.0, 200.0, 30.0, 60.0)],
            "token_count": 6,
        },
        {
            "content": "Summary text.",
            "kind": "abstract",
            "positions": [([0], 10.0, 200.0, 30.0, 60.0)],
            "token_count": 3,
        },
    ]


def test_empty_inputs() -> None:
    assert chunk_paper([]) == []
    assert chunk_paper([{"kind": "figure", "text": ""}]) == []


def test_headings_wait_for_text_but_not_past_the_end() -> None:
    sections = [
        PaperSection("title", "4 Discussion"),
        PaperSection("title", "4.1 Limits"),
        PaperSection("figure", "plot", caption="Figure 2: Budget sweep."),
        PaperSection("text", "Small budgets hurt tables most."),
        PaperSection("title", "Acknowledgements"),
    ]
    assert [(c["kind"], c["content"]) for c in chunk_paper(sections)] == [
        ("figure", "Figure 2: Budget sweep.\nplot"),
        ("text", "4 Discussion\n4.1 Limits\nSmall budgets hurt tables most."),
        ("text", "Acknowledgements"),
    ]


def test_table_without_data_keeps_caption() -> None:
    html = "<table><caption>Table 9: empty</caption><tr><th>A</th></tr></table>"
    chunks = chunk_paper([PaperSection("table", html)])
    assert [c["content"] for c in chunks] == ["Table 9: empty"]


# ---------------------------------------------------------------------------------------------
# PaperSection and argument errors
# ---------------------------------------------------------------------------------------------


def test_paper_section_normalises_positions() -> None:
    by_number = PaperSection("text", "x", [(3, 1, 2, 3, 4)])
    by_index = PaperSection("text", "x", [([2], 1.0, 2.0, 3.0, 4.0)])
    by_tag = PaperSection("text", "x", "@@3\t1.0\t2.0\t3.0\t4.0##")
    assert by_number.positions == by_index.positions == by_tag.positions
    assert by_number.positions == (([2], 1.0, 2.0, 3.0, 4.0),)


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        ({"kind": "footnote", "text": "x"}, ValueError, "kind must be one of abstract"),
        ({"kind": 3, "text": "x"}, TypeError, "kind must be a str"),
        ({"kind": "text", "text": None}, TypeError, "text must be a str"),
        ({"kind": "text", "text": "x", "caption": "c"}, ValueError, "caption is only for"),
        ({"kind": "table", "text": "x", "caption": 5}, TypeError, "caption must be a str"),
        ({"kind": "text", "text": "x", "positions": 7}, TypeError, "positions must be"),
        ({"kind": "text", "text": "x", "positions": [(0, 1, 2, 3, 4)]}, ValueError, ">= 1"),
        ({"kind": "text", "text": "x", "positions": [(1, 5, 2, 3, 4)]}, ValueError, "left"),
        ({"kind": "text", "text": "x", "positions": [(1, 2, 3)]}, TypeError, "5 items"),
    ],
)
def test_paper_section_errors(kwargs: dict, exc: type, message: str) -> None:
    with pytest.raises(exc, match=message):
        PaperSection(**kwargs)


def test_chunk_paper_errors_name_the_argument() -> None:
    with pytest.raises(TypeError, match="sections must be a list"):
        chunk_paper("abstract")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"sections\[1\] must be a PaperSection or a dict"):
        chunk_paper([PaperSection("text", "a"), 42])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"sections\[0\] has no 'kind'"):
        chunk_paper([{"text": "a"}])
    with pytest.raises(ValueError, match=r"sections\[0\]: kind must be one of"):
        chunk_paper([{"kind": "poem", "text": "a"}])
    with pytest.raises(ValueError, match="chunk_token_num must be > 0"):
        chunk_paper(PAPER, chunk_token_num=0)
    with pytest.raises(ValueError, match="overlapped_percent"):
        chunk_paper(PAPER, overlapped_percent=101)
    with pytest.raises(TypeError, match="break_at_titles must be a bool"):
        chunk_paper(PAPER, break_at_titles="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tokenizer"):
        chunk_paper(PAPER, tokenizer="gpt2")
    two_tables = "<table><tr><td>a</td></tr></table><table><tr><td>b</td></tr></table>"
    with pytest.raises(ValueError, match=r"sections\[0\]: rows: the HTML holds 2"):
        chunk_paper([{"kind": "table", "text": two_tables}])


def test_tokenizer_passthrough() -> None:
    words = chunk_paper(PAPER, chunk_token_num=30, tokenizer=lambda s: len(s.split()))
    for chunk in words:
        assert chunk["token_count"] == len(chunk["content"].split())


def test_docstring_examples() -> None:
    result = doctest.testmod(papers, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, result
