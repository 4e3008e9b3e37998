"""SplitterComponent: the older pipeline splitter over text, Markdown, HTML and parser JSON."""

from __future__ import annotations

import dataclasses
import doctest

import pytest
import ragchunk
from ragchunk.ragflow import pipeline
from ragchunk.ragflow.pipeline import SplitterComponent

DELIMS = "\n。；！？"

MARKDOWN = """# Installing the agent

The agent runs on Linux and macOS. It needs Python 3.10 or later and about 200 MB of disk.

## Steps

1. Download the archive for your platform.
2. Unpack it into `/opt/agent` and run `./install.sh`.
3. Start the service with `systemctl start agent`.

## 常见问题

安装失败时，请先检查磁盘空间；然后查看日志文件。如果问题仍然存在，请联系支持团队！
日志位于 /var/log/agent 目录下。
"""

# The parser's JSON output for two pages of a PDF (RAGFlow's DeepDOC writes "positions" with
# 1-based page numbers and the same box as a "position_tag").
BOXES: list[dict[str, object]] = [
    {
        "text": "Quarterly report, third quarter. Revenue grew in every region.",
        "positions": [[1, 72.0, 540.0, 90.0, 130.0]],
        "layout_type": "text",
    },
    {
        "text": "Operating costs fell because the new plant opened in July.",
        "position_tag": "@@1\t72.0\t540.0\t140.0\t170.0##",
        "img_id": "bucket-page1-fig",
        "layout_type": "text",
    },
    {
        "text": "第三季度收入增长了百分之十二；利润率保持稳定。",
        "position": [1, 72.0, 540.0, 180.0, 210.0],
        "layout_type": "text",
    },
    {
        "text": "Outlook: demand remains strong into the next year.",
        "positions": [([1], 72.0, 540.0, 60.0, 95.5)],
        "img_id": "bucket-page2-chart",
        "layout_type": "text",
    },
]


def _visible(text: str, drop: str = DELIMS) -> str:
    return "".join(ch for ch in text if not ch.isspace() and ch not in drop)


def _expected_text(chunks: list[str]) -> list[str]:
    return [c.strip() for c in chunks if c.strip()]


# ---------------------------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------------------------


def test_defaults_are_ragflows() -> None:
    c = SplitterComponent()
    assert (c.chunk_token_size, c.delimiters, c.overlapped_percent) == (512, DELIMS, 0)
    assert c.strategy is ragchunk.MergeStrategy.OVER_CAP
    assert (c.tokenizer, c.compat) == ("cl100k_base", "v0.27")


def test_frozen() -> None:
    c = SplitterComponent()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.chunk_token_size = 10  # type: ignore[misc]


def test_from_preset() -> None:
    legal = SplitterComponent.from_preset("legal")
    assert (legal.chunk_token_size, legal.overlapped_percent) == (256, 20)
    qa = SplitterComponent.from_preset("QA", delimiters=["\n", "Q:"], tokenizer="o200k_base")
    assert (qa.chunk_token_size, qa.overlapped_percent) == (128, 0)
    assert (qa.delimiters, qa.tokenizer) == (("\n", "Q:"), "o200k_base")
    with pytest.raises(ValueError, match="valid presets are: book, legal, qa, technical"):
        SplitterComponent.from_preset("novel")


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        ({"chunk_token_size": 0}, ValueError, "chunk_token_size must be > 0"),
        ({"chunk_token_size": -1}, ValueError, "chunk_token_size must be > 0"),
        ({"chunk_token_size": "512"}, TypeError, "chunk_token_size must be an int"),
        ({"chunk_token_size": 1.5}, TypeError, "chunk_token_size must be an int"),
        ({"chunk_token_size": True}, TypeError, "chunk_token_size must be an int"),
        ({"delimiters": 5}, TypeError, "delimiters must be a str or a list"),
        ({"delimiters": ["\n", 3]}, TypeError, r"delimiters\[1\] must be a str"),
        ({"overlapped_percent": 150}, ValueError, "overlapped_percent must be between"),
        ({"overlapped_percent": "10"}, TypeError, "overlapped_percent must be a number"),
        ({"strategy": "greedy"}, ValueError, "strategy must be"),
        ({"tokenizer": "gpt2"}, ValueError, "tokenizer: unknown encoding"),
        ({"compat": "v0.10"}, ValueError, "compat must name"),
    ],
)
def test_constructor_errors(kwargs: dict, exc: type, message: str) -> None:
    with pytest.raises(exc, match=message):
        SplitterComponent(**kwargs)


# ---------------------------------------------------------------------------------------------
# Text, Markdown, HTML
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [16, 48, 512])
def test_markdown_matches_naive_merge(size: int) -> None:
    out = SplitterComponent(chunk_token_size=size).invoke(MARKDOWN)
    assert [c["content"] for c in out] == _expected_text(
        ragchunk.naive_merge(MARKDOWN, size, DELIMS)
    )
    for c in out:
        assert c["token_count"] == ragchunk.count_tokens(c["content"])
        assert c["positions"] == c["position_int"] == c["page_num_int"] == c["top_int"] == []
        assert (c["image"], c["img_ids"]) == (None, [])


def test_markdown_real_output() -> None:
    out = SplitterComponent(chunk_token_size=48).invoke(MARKDOWN)
    assert [(c["content"], c["token_count"]) for c in out] == [
        (
            "# Installing the agent\nThe agent runs on Linux and macOS. It needs Python 3.10 or "
            "later and about 200 MB of disk.\n## Steps\n1. Download the archive for your "
            "platform.\n2. Unpack it into `/opt/agent` and run `./install.sh`.",
            60,  # OVER_CAP: the chunk passes 48 by its last paragraph
        ),
        (
            "3. Start the service with `systemctl start agent`.\n## 常见问题\n"
            "安装失败时，请先检查磁盘空间\n然后查看日志文件\n如果问题仍然存在，请联系支持团队",
            56,
        ),
        ("日志位于 /var/log/agent 目录下", 13),
    ]


def test_no_text_lost_markdown() -> None:
    for size in (8, 32, 128):
        out = SplitterComponent(chunk_token_size=size).invoke(MARKDOWN)
        assert _visible("".join(c["content"] for c in out)) == _visible(MARKDOWN)


def test_overlap_strategy_tokenizer_compat_are_passed_through() -> None:
    kwargs = {"overlapped_percent": 20, "strategy": "under_cap", "tokenizer": "o200k_base"}
    out = SplitterComponent(chunk_token_size=24, **kwargs).invoke(MARKDOWN)
    assert [c["content"] for c in out] == _expected_text(
        ragchunk.naive_merge(MARKDOWN, 24, DELIMS, **kwargs)
    )
    assert out[0]["token_count"] == ragchunk.count_tokens(out[0]["content"], "o200k_base")
    old = SplitterComponent(chunk_token_size=24, compat="v0.22").invoke(MARKDOWN)
    assert [c["content"] for c in old] == _expected_text(
        ragchunk.naive_merge(MARKDOWN, 24, DELIMS, compat="v0.22")
    )


def test_word_counting_tokenizer() -> None:
    out = SplitterComponent(chunk_token_size=10, tokenizer=lambda s: len(s.split())).invoke(
        MARKDOWN
    )
    assert [c["token_count"] for c in out] == [len(c["content"].split()) for c in out]


def test_delimiter_list_like_the_component() -> None:
    # A list entry longer than one character is wrapped in backticks, as RAGFlow's component
    # does: naive_merge's custom mode, one chunk per segment.
    text = "Part one.\n---\nPart two, longer.\n---\nPart three."
    out = SplitterComponent(delimiters=["---"]).invoke(text)
    assert [c["content"] for c in out] == ["Part one.", "Part two, longer.", "Part three."]
    assert [c["content"] for c in out] == _expected_text(ragchunk.naive_merge(text, 512, "`---`"))


def test_html_sections_list() -> None:
    html = ["<h1>Title</h1>", "<p>First paragraph。Second sentence</p>", "   "]
    out = SplitterComponent().invoke(html)
    assert [c["content"] for c in out] == [
        "<h1>Title</h1>\n<p>First paragraph\nSecond sentence</p>"
    ]


def test_upstream_payload_dicts() -> None:
    chunker = SplitterComponent(chunk_token_size=48)
    by_text = chunker.invoke(MARKDOWN)
    assert chunker.invoke({"output_format": "markdown", "markdown": MARKDOWN}) == by_text
    assert chunker.invoke({"output_format": "text", "text": MARKDOWN}) == by_text
    assert chunker.invoke({"output_format": "html", "html": [MARKDOWN]}) == by_text
    assert chunker.invoke({"output_format": "json", "json": BOXES}) == chunker.invoke(BOXES)
    assert chunker.invoke({"output_format": "chunks", "chunks": BOXES}) == chunker.invoke(BOXES)
    assert chunker.invoke({"output_format": "markdown", "markdown": None}) == []


def test_empty_inputs() -> None:
    c = SplitterComponent()
    assert c.invoke("") == []
    assert c.invoke([]) == []
    assert c.invoke("\n\n  ") == []
    assert c.invoke([{"text": ""}, {"text": None}]) == []


# ---------------------------------------------------------------------------------------------
# JSON boxes
# ---------------------------------------------------------------------------------------------


def test_json_boxes_positions_and_images() -> None:
    out = SplitterComponent().invoke(BOXES)
    assert len(out) == 1
    chunk = out[0]
    assert chunk["content"] == (
        "Quarterly report, third quarter. Revenue grew in every region.\n"
        "Operating costs fell because the new plant opened in July.\n"
        "第三季度收入增长了百分之十二\n利润率保持稳定\n"
        "Outlook: demand remains strong into the next year."
    )
    assert chunk["positions"] == [
        ([0], 72.0, 540.0, 90.0, 130.0),
        ([0], 72.0, 540.0, 140.0, 170.0),
        ([0], 72.0, 540.0, 180.0, 210.0),
        ([1], 72.0, 540.0, 60.0, 95.5),
    ]
    assert chunk["position_int"] == [
        (1, 72, 540, 90, 130),
        (1, 72, 540, 140, 170),
        (1, 72, 540, 180, 210),
        (2, 72, 540, 60, 95),
    ]
    assert chunk["page_num_int"] == [1, 1, 1, 2]
    assert chunk["top_int"] == [90, 140, 180, 60]
    assert chunk["img_ids"] == ["bucket-page1-fig", "bucket-page2-chart"]
    assert chunk["image"] is None
    assert chunk["token_count"] == ragchunk.count_tokens(chunk["content"])


def test_json_matches_naive_merge_with_positions() -> None:
    tags = [
        "@@1\t72.0\t540.0\t90.0\t130.0##",
        "@@1\t72.0\t540.0\t140.0\t170.0##",
        "@@1\t72.0\t540.0\t180.0\t210.0##",
        "@@2\t72.0\t540.0\t60.0\t95.5##",
    ]
    sections = [(str(b["text"]), t) for b, t in zip(BOXES, tags, strict=True)]
    for size in (8, 20, 64):
        out = SplitterComponent(chunk_token_size=size).invoke(BOXES)
        expected = [
            (text.strip(), pos)
            for text, pos in ragchunk.naive_merge_with_positions(sections, size, DELIMS)
            if text.strip()
        ]
        assert [(c["content"], c["positions"]) for c in out] == expected


def test_json_images_follow_their_paragraphs() -> None:
    figure, chart = object(), object()
    boxes = [
        {"text": "Paragraph with the figure. " * 6, "image": figure, "img_id": "f1"},
        {"text": "Paragraph with the chart. " * 6, "image": chart, "img_id": "c1"},
        {"text": "A paragraph without picture. " * 6},
    ]
    out = SplitterComponent(chunk_token_size=30).invoke(boxes)
    assert len(out) == 3
    assert [c["image"] for c in out] == [figure, chart, None]
    assert [c["img_ids"] for c in out] == [["f1"], ["c1"], []]


def test_json_content_with_weight_and_no_lost_text() -> None:
    boxes = [{"content_with_weight": "Body text from a previous chunker step."}, *BOXES]
    for size in (4, 16, 128):
        out = SplitterComponent(chunk_token_size=size).invoke(boxes)
        source = "".join(str(b.get("text") or b.get("content_with_weight")) for b in boxes)
        assert _visible("".join(c["content"] for c in out)) == _visible(source)


@pytest.mark.parametrize(
    ("content", "exc", "message"),
    [
        (42, TypeError, "content must be a str, a list of str"),
        (b"bytes", TypeError, "content must be a str"),
        ([1, 2], TypeError, r"content\[0\] must be a str"),
        (["a", {"text": "b"}], TypeError, r"content\[1\] must be a str"),
        ([{"text": 3}], TypeError, r'content\[0\]\["text"\] must be a str'),
        ([{"text": "a", "img_id": 7}], TypeError, r'content\[0\]\["img_id"\] must be a str'),
        ([{"text": "a", "position_tag": 1}], TypeError, r'\["position_tag"\] must be a str'),
        ([{"text": "a", "positions": "p1"}], TypeError, r'\["positions"\] must be a list'),
        (
            [{"text": "a"}, {"text": "b", "positions": [[1, 2, 3]]}],
            TypeError,
            r'content\[1\]\["positions"\]\[0\] must be a \(\[pages\], left, right, top, bottom\)',
        ),
        (
            [{"text": "a", "positions": [[0, 1.0, 2.0, 3.0, 4.0]]}],
            ValueError,
            r"page number must be >= 1",
        ),
        (
            [{"text": "a", "position": [1, 9.0, 2.0, 3.0, 4.0]}],
            ValueError,
            r'content\[0\]\["position"\]: left \(9.0\) is greater than right',
        ),
        (
            [{"text": "a", "position": [1, -1.0, 2.0, 3.0, 4.0]}],
            ValueError,
            r"coordinates in a position tag must be >= 0",
        ),
        ({"output_format": "pdf"}, ValueError, "output_format 'markdown'"),
        ({"output_format": "json", "json": "x"}, TypeError, r'content\["json"\] must be a list'),
        ({"output_format": "html", "html": 3}, TypeError, r'content\["html"\] must be a str'),
    ],
)
def test_invoke_errors(content: object, exc: type, message: str) -> None:
    with pytest.raises(exc, match=message):
        SplitterComponent().invoke(content)


def test_docstring_examples() -> None:
    result = doctest.testmod(pipeline, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, result
