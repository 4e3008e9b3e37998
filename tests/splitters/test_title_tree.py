"""TitleTreeChunker: the worked example, tree sources, corpus invariants, bad input,
backends agree."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from invariants import check_chunks, ordinary_count, sample_texts
from ragchunk._pure.splitters import title_tree as pure
from ragchunk.core import dispatch
from ragchunk.core.chunk import Chunk
from ragchunk.splitters.html import HTMLSplitter
from ragchunk.splitters.title_tree import TitleTreeChunker, _layout_tree
from testdata import corpus_documents

# A Chinese document as a title tree: the worked example of title-tree chunking.
EXAMPLE = Path(__file__).parent / "data" / "title_tree_example.json"


def _example_tree() -> dict[str, Any]:
    tree: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return tree


def _check(source: str, chunks: list[Chunk], budget: int, count: Any) -> None:
    check_chunks(
        source, chunks, budget=budget, count=count, overflow_ok=lambda c: c.end - c.start == 1
    )
    prev_end = 0
    for c in chunks:
        assert c.start >= prev_end  # in order, no overlap
        prev_end = c.end
        assert c.metadata["title_path"] == " > ".join(c.metadata["titles"])


# ------------------------------------------------------------------- the worked example


def test_worked_example_300_chars() -> None:
    tree = _example_tree()
    chunker = TitleTreeChunker(300, length="chars")
    chunks = chunker.split_tree(tree)
    source = TitleTreeChunker.render(tree)
    _check(source, chunks, 300, len)
    got = [(c.metadata["title_path"], c.end - c.start) for c in chunks]
    deep = "一级标题 > 二级标题1 > 三级标题2"
    assert got == [
        # Step 3: the two short paragraphs of 三级标题1 merge with their parents' titles
        ("一级标题", 48),
        # Step 2: 三级标题2's two long paragraphs, cut at sentence ends only
        (deep, 277),
        (deep, 229),
        (deep, 266),
        (deep, 295),
        (deep, 188),
        # 三级标题3 fits whole and merges up under 二级标题2
        ("一级标题 > 二级标题2", 223),
    ]
    assert chunks[0].text.startswith("一级标题\n\n二级标题1\n\n三级标题1\n\n这是一个段落")
    # Never mid-sentence: every chunk ends a sentence (all paragraphs here end with 。).
    assert all(c.text.endswith("。") for c in chunks)


def test_fixed_window_baseline_cuts_mid_sentence() -> None:
    """The worked example's fixed-window Java baseline (re-implemented) cuts every 300
    characters regardless of sentences and joins segments with a space; ours never cuts a
    sentence."""
    tree = _example_tree()
    units: list[tuple[str, str]] = []
    stack: list[tuple[dict[str, Any], str]] = [(tree, "")]
    while stack:  # splitIntoChunksHelper, in document order
        node, parent = stack.pop()
        full = node["title"] if not parent else parent + " > " + node["title"]
        for child in reversed(node["content"]):
            if isinstance(child, str):
                units.append((full, child))
            else:
                stack.append((child, full))
    segments = [(t, c[i : i + 300]) for t, c in units for i in range(0, len(c), 300)]
    assert any(not seg.endswith("。") for _, seg in segments)
    ours = TitleTreeChunker(300, length="chars").split_tree(tree)
    assert all(c.text.endswith("。") for c in ours)


# ----------------------------------------------------------------------------- tree sources


def test_markdown_source() -> None:
    md = "Preface.\n\n# A\n\nIntro A.\n\n## A1\n\nText A1.\n\n## A2\n\nText A2.\n\n# B\n\nText B."
    chunker = TitleTreeChunker(30, length="chars")
    got = [(c.metadata["title_path"], c.text) for c in chunker.split(md)]
    assert got == [
        ("", "Preface."),
        # A's intro and its first child fit together (greedy, document order) ...
        ("A", "# A\n\nIntro A.\n\n## A1\n\nText A1."),
        # ... and the rest merges further up, under the root (no common title)
        ("", "## A2\n\nText A2.\n\n# B\n\nText B."),
    ]
    big = TitleTreeChunker(1000, length="chars").split(md)
    assert [c.text for c in big] == [md]


def test_numbered_source_chinese_and_english() -> None:
    law = (
        "总则说明。\n第一章 总则\n第一条 为了规范管理，制定本办法。\n第二条 本办法适用于全体。\n"
        "第二章 管理\n第一节 职责\n第三条 部门负责执行。\n"
    )
    chunker = TitleTreeChunker(40, length="chars", title_source="numbered")
    got = [(c.metadata["title_path"], c.text) for c in chunker.split(law)]
    assert got == [
        ("", "总则说明。"),
        (
            "第一章 总则",
            "第一章 总则\n第一条 为了规范管理，制定本办法。\n第二条 本办法适用于全体。",
        ),
        ("第二章 管理", "第二章 管理\n第一节 职责\n第三条 部门负责执行。"),
    ]
    small = TitleTreeChunker(10, length="chars", title_source="numbered").split(law)
    paths = {c.metadata["title_path"] for c in small}
    # 第一条 ... lines end with 。: sentences, not titles (RAGFlow's not-a-title rule)
    assert paths == {"", "第一章 总则", "第二章 管理", "第二章 管理 > 第一节 职责"}
    en = "Chapter 1 Basics\nSome text.\n1.1 Setup\nInstall it.\n1.2 Use\nRun it.\nPart II Next\nGo."
    got_en = TitleTreeChunker(24, length="chars", title_source="numbered").split(en)
    assert [(c.metadata["title_path"], c.text) for c in got_en] == [
        ("Chapter 1 Basics", "Chapter 1 Basics"),
        ("Chapter 1 Basics", "Some text."),
        ("Chapter 1 Basics > 1.1 Setup", "1.1 Setup\nInstall it."),
        ("Chapter 1 Basics > 1.2 Use", "1.2 Use\nRun it."),
        ("Part II Next", "Part II Next\nGo."),
    ]


def test_auto_picks_markdown_or_numbered() -> None:
    auto = TitleTreeChunker(10, length="chars")
    assert auto.split("# T\n\nbody")[0].metadata["titles"] == ["T"]
    assert auto.split("第一章 总则\n正文")[0].metadata["titles"] == ["第一章 总则"]


def test_tokens_default(tiktoken_cl100k: Any) -> None:
    tree = _example_tree()
    chunks = TitleTreeChunker(64).split_tree(tree)
    count = lambda t: len(tiktoken_cl100k.encode_ordinary(t))  # noqa: E731
    _check(TitleTreeChunker.render(tree), chunks, 64, count)


def test_list_of_nodes_and_empty_titles() -> None:
    forest = [{"title": "A", "content": ["a."]}, {"title": "", "content": ["b.", "  "]}]
    chunks = TitleTreeChunker(100, length="chars").split_tree(forest)
    assert [c.text for c in chunks] == ["A\n\na.\n\nb."]
    assert chunks[0].metadata["titles"] == []
    assert TitleTreeChunker(100).split_tree({"title": "", "content": []}) == []


def test_absurd_depth_and_cycles() -> None:
    depth = 3000
    tree: dict[str, Any] = {"title": "leaf", "content": ["deep text."]}
    for i in range(depth):
        tree = {"title": f"t{i}", "content": [tree]}
    chunks = TitleTreeChunker(200, length="chars").split_tree(tree)
    _check(TitleTreeChunker.render(tree), chunks, 200, len)
    cyc: dict[str, Any] = {"title": "x", "content": []}
    cyc["content"].append({"title": "y", "content": [cyc]})
    with pytest.raises(ValueError, match=r'cycle.*|tree\["content"\]\[0\]\["content"\]\[0\]'):
        TitleTreeChunker(10).split_tree(cyc)
    shared = {"title": "s", "content": ["shared."]}
    twice = TitleTreeChunker(100, length="chars").split_tree(
        {"title": "r", "content": [shared, shared]}
    )
    assert twice[0].text.count("shared.") == 2  # a DAG is not a cycle


@pytest.mark.parametrize(
    "tree,exc,where",
    [
        ("text", TypeError, "tree must be a dict"),
        ({"content": []}, ValueError, 'needs a "title"'),
        ({"title": 3}, TypeError, r'tree\["title"\]'),
        ({"title": "a", "content": "x"}, TypeError, r'tree\["content"\] must be a list'),
        ({"title": "a", "content": ["ok", 5]}, TypeError, r'tree\["content"\]\[1\] must be'),
        (
            {"title": "a", "content": [{"title": "b", "content": [{"title": None}]}]},
            TypeError,
            r'tree\["content"\]\[0\]\["content"\]\[0\]\["title"\]',
        ),
        ({"title": "a\ud800"}, ValueError, "surrogate"),
    ],
)
def test_bad_trees(tree: object, exc: type[Exception], where: str) -> None:
    with pytest.raises(exc, match=where):
        TitleTreeChunker(10).split_tree(tree)


@pytest.mark.parametrize(
    "kwargs,exc,word",
    [
        ({"max_chunk_size": 0}, ValueError, "max_chunk_size"),
        ({"max_chunk_size": 1.5}, TypeError, "max_chunk_size"),
        ({"max_chunk_size": 10, "length": "bytes"}, ValueError, "length"),
        ({"max_chunk_size": 10, "title_source": "xml"}, ValueError, "title_source"),
        ({"max_chunk_size": 10, "tokenizer": object()}, TypeError, "tokenizer"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], exc: type[Exception], word: str) -> None:
    with pytest.raises(exc, match=word):
        TitleTreeChunker(**kwargs)


def test_bad_text() -> None:
    with pytest.raises(TypeError, match="text"):
        TitleTreeChunker(10).split(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[0\]"):
        TitleTreeChunker(10).split_batch([b"x"])  # type: ignore[list-item]
    html = TitleTreeChunker(10, title_source="html")
    with pytest.raises(TypeError, match="text"):
        html.split(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lone surrogate"):
        html.split("<p>a\ud800</p>")
    assert html.split("") == [] and html.split("<p></p>") == []


# ------------------------------------------------------------------------------------ corpus


def test_html_source() -> None:
    """The same document as test_markdown_source, as HTML: the same title paths, over the
    text HTMLSplitter lays out (offsets index that text)."""
    html = (
        "<p>Preface.</p><h1>A</h1><p>Intro A.</p><h2>A1</h2><p>Text A1.</p>"
        "<h2>A2</h2><p>Text A2.</p><h1>B</h1><ul><li>Text B.</li></ul>"
    )
    chunker = TitleTreeChunker(30, length="chars", title_source="html")
    text = HTMLSplitter(30).extract_text(html)
    chunks = chunker.split(html)
    got = [(c.metadata["title_path"], c.text) for c in chunks]
    assert got == [
        ("", "Preface."),
        ("A", "A\n\nIntro A.\n\nA1\n\nText A1."),
        ("", "A2\n\nText A2.\n\nB\n\nText B."),
    ]
    _check(text, chunks, 30, len)
    small = TitleTreeChunker(12, length="chars", title_source="html").split(html)
    assert [c.metadata["title_path"] for c in small] == ["", "A", "A > A1", "A > A2", "B"]


CORPUS = [d for i, d in enumerate(corpus_documents()) if i % 40 == 0]


@pytest.mark.parametrize("name,text", CORPUS[:6], ids=[n for n, _ in CORPUS[:6]])
def test_corpus_as_html(name: str, text: str, tiktoken_cl100k: Any) -> None:
    """Corpus documents rendered to HTML (markdown-it-py, a test dependency): every title
    path is a path of real headings, and no text of the layout is lost."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(text)
    count = lambda t: len(tiktoken_cl100k.encode_ordinary(t))  # noqa: E731
    chunks = TitleTreeChunker(256, title_source="html").split(html)
    assert chunks
    _check(HTMLSplitter(256).extract_text(html), chunks, 256, count)
    headings = {
        " ".join(unescape(re.sub(r"<[^>]+>", "", h)).split())
        for h in re.findall(r"<h[1-6]>(.*?)</h[1-6]>", html, re.S)
    }
    for c in chunks:
        assert set(c.metadata["titles"]) <= headings, c.metadata["titles"]


@pytest.mark.parametrize("name,text", CORPUS, ids=[n for n, _ in CORPUS])
def test_corpus_invariants(name: str, text: str, tiktoken_cl100k: Any) -> None:
    count = lambda t: len(tiktoken_cl100k.encode_ordinary(t))  # noqa: E731
    for source in ("auto", "numbered"):
        chunks = TitleTreeChunker(256, title_source=source).split(text)
        assert chunks
        _check(text, chunks, 256, count)


def test_split_batch_matches_split() -> None:
    docs = [t for _, t in CORPUS[:4]] + ["", "第一章 总则\n正文。"]
    for chunker in (TitleTreeChunker(128), TitleTreeChunker(400, length="chars")):
        expected = [chunker.split(d) for d in docs]
        assert chunker.split_batch(docs) == expected
        assert chunker.split_batch(docs, workers=2) == expected
    custom = TitleTreeChunker(20, tokenizer=lambda t: len(t.split()))
    assert custom.split_batch(docs[-2:]) == [custom.split(d) for d in docs[-2:]]


# ---------------------------------------------------------------------------- backends agree

_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
_SENTENCES = st.lists(
    st.sampled_from(["Short.", "句子。", "A longer sentence here! ", "词"]), max_size=12
).map("".join)
_TREES = st.recursive(
    st.fixed_dictionaries(
        {"title": _TEXT, "content": st.lists(st.one_of(_TEXT, _SENTENCES), max_size=4)}
    ),
    lambda kids: st.fixed_dictionaries(
        {"title": _TEXT, "content": st.lists(st.one_of(_SENTENCES, kids), max_size=4)}
    ),
    max_leaves=12,
)


@pytest.mark.single_backend
@given(tree=_TREES, budget=st.integers(1, 80))
def test_backends_agree_on_trees(tree: dict[str, Any], budget: int) -> None:
    core = dispatch._import_core()
    lay = _layout_tree(tree)
    got = core.TitleTreeChunker(budget, "auto", "chars").split_layout(
        lay.text, lay.parents, lay.items
    )
    want = pure.split_title_tree(lay.text, lay.parents, lay.items, budget, len)
    assert got == want


_LINES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "# A",
                "## B",
                "### C",
                "第一章 总则",
                "第二节 范围",
                "1.2 Setup",
                "Article 5 Rules",
                "一、概述",
                "（一）目的",
                "Text one. Two!",
                "中文句子。第二句！",
                "",
                "```",
                "| a |",
                "Chapter IVa",
                "Chapter XI. The end",
                "Section 2_b",
                "Section ２ wide",
                "Part ⅫA",
                "1.2.3.4.5 deep",
                "12.345 odd",
                "1.2.3.4. x",
                "1. Intro",
                "\x1c一、概述\x1f",
                "\u3000第三条 责任\u3000",
                "1.2 ends like a lead-in:",
                "9 " + "x" * 70,
            ]
        ),
        _TEXT,
    ),
    max_size=30,
).map("\n".join)


@pytest.mark.single_backend
@given(
    text=_LINES,
    budget=st.integers(1, 60),
    source=st.sampled_from(["markdown", "numbered", "auto"]),
)
def test_backends_agree_on_text(text: str, budget: int, source: str, tiktoken_cl100k: Any) -> None:
    for length in ("chars", "tokens"):
        chunker = TitleTreeChunker(budget, length=length, title_source=source)
        dispatch.set_backend("rust")
        rust = chunker.split(text)
        dispatch.set_backend("python")
        assert chunker.split(text) == rust
    count = lambda t: len(tiktoken_cl100k.encode_ordinary(t))  # noqa: E731
    _check(text, rust, budget, count)


_HTML_PARTS = st.lists(
    st.sampled_from(
        [
            "<h1>A</h1>",
            "<h2>B &amp; c</h2>",
            "<h3></h3>",
            "<p>Text one. Two!</p>",
            "<ul>",
            "<li>item</li>",
            "</ul>",
            "<div>",
            "</div>",
            "<pre>x\n  y</pre>",
            "中文句子。",
            "<br>",
        ]
    )
    | _TEXT,
    max_size=20,
).map("".join)


@pytest.mark.single_backend
@given(html=_HTML_PARTS, budget=st.integers(1, 60))
def test_backends_agree_on_html(html: str, budget: int) -> None:
    chunker = TitleTreeChunker(budget, length="chars", title_source="html")
    dispatch.set_backend("rust")
    rust = chunker.split(html)
    dispatch.set_backend("python")
    assert chunker.split(html) == rust


@pytest.mark.single_backend
@pytest.mark.parametrize("name,text", CORPUS[:6], ids=[n for n, _ in CORPUS[:6]])
def test_backends_agree_on_corpus(name: str, text: str) -> None:
    chunker = TitleTreeChunker(200)
    dispatch.set_backend("rust")
    rust = chunker.split(text)
    dispatch.set_backend("python")
    assert chunker.split(text) == rust


@pytest.mark.parametrize("size", [8, 64])
def test_invariants(size: int) -> None:
    chunker = TitleTreeChunker(chunk_size=size)
    for text in sample_texts():
        check_chunks(
            text,
            chunker.split(text),
            budget=size,
            count=ordinary_count(),
            overflow_ok=lambda c: c.end - c.start == 1,
        )


def test_older_size_name() -> None:
    text = "# A\n\nOne.\n\n## B\n\nTwo."
    old = TitleTreeChunker(max_chunk_size=8, length="chars").split(text)
    assert old == TitleTreeChunker(chunk_size=8, length="chars").split(text)
    with pytest.raises(TypeError, match="not both"):
        TitleTreeChunker(chunk_size=8, max_chunk_size=8)
    with pytest.raises(TypeError, match="chunk_size is required"):
        TitleTreeChunker()
