"""LangChain's structure splitters' drop-ins against LangChain itself, the oracle:
``MarkdownHeaderTextSplitter``, ``HTMLHeaderTextSplitter`` and ``RecursiveJsonSplitter`` give
the same documents, metadata, chunks and errors on the whole corpus, on generated markup and
JSON, and on the edge cases below."""

from __future__ import annotations

import copy
import functools
import json
import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from testdata import corpus_documents

lc = pytest.importorskip("langchain_text_splitters")

from ragchunk.integrations import langchain as rc  # noqa: E402

DOCS = [text for _, text in corpus_documents()]


def outcome(call: Callable[..., Any], *args: Any) -> Any:
    """The documents (content, metadata) or chunks of ``call(*args)``, or what it raised."""
    try:
        result = call(*args)
    except Exception as exc:
        return ("raised", type(exc), str(exc))
    return [(d.page_content, d.metadata) if hasattr(d, "page_content") else d for d in result]


# ---------------------------------------------------------------------------------------------
# Markdown

MD_CONFIGS = [
    {"headers_to_split_on": [("#", "H1"), ("##", "H2"), ("###", "H3")]},
    {"headers_to_split_on": [("#", "H1"), ("##", "H2")], "strip_headers": False},
    {"headers_to_split_on": [("#", "H1"), ("###", "H3")], "return_each_line": True},
    {
        "headers_to_split_on": [("#", "H1"), ("**", "B"), ("***", "C")],
        "custom_header_patterns": {"**": 1, "***": 2},
        "strip_headers": False,
    },
    {
        "headers_to_split_on": [("#", "H1"), ("**", "B")],
        "custom_header_patterns": {"**": 2},
        "return_each_line": True,
        "strip_headers": False,
    },
]
MD_PIECES = [
    "# ", "## ", "### ", "#", "#####", "**", "***", "```", "~~~", "```py", "text", " ", "\t",
    "\n", "\n\n", "\ufeff", "\x00", "\u200b", "\u2028", "a **b**", "**x**", "***y***", "é",
]  # fmt: skip


def random_markdown(seed: int, n: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(MD_PIECES) for _ in range(rnd.randint(1, 60))) for _ in range(n)]


MD_EDGES = [
    "",
    "\n",
    "\ufeff# Title\ntext",
    "# A\n```\ncode\n\n",  # an unclosed fence ending in an empty line
    "## A\n# B\n### C\nx",
    "#NoSpace\n# \n#\nbody",
    "```\n# not a header\n```\n# header\nafter",
    "~~~\n## inside\n~~~~\n## outside",
    "**Bold**\n***Both***\n** **\n****\n**a**b**",
    "   # indented\n\ttab\r\nwindows\r\n",
]


@pytest.mark.single_backend
@pytest.mark.parametrize("config", range(len(MD_CONFIGS)))
def test_markdown_headers_match_langchain(config: int) -> None:
    kwargs = MD_CONFIGS[config]
    theirs = lc.MarkdownHeaderTextSplitter(**kwargs)
    ours = rc.MarkdownHeaderTextSplitter(**kwargs)
    # The corpus on two configurations (LangChain takes seconds on it), generated text on all.
    texts = (DOCS if config < 2 else DOCS[::8]) + MD_EDGES + random_markdown(config, 600)
    for text in texts:
        assert outcome(ours.split_text, text) == outcome(theirs.split_text, text), text[:200]


def test_markdown_headers_edge_outputs() -> None:
    s = rc.MarkdownHeaderTextSplitter([("#", "H1"), ("##", "H2")])
    docs = s.split_text("\ufeff# Title\nx\n## Sub\ny\n# Next\nz")
    assert [(d.page_content, d.metadata) for d in docs] == [
        ("x", {"H1": "Title"}),
        ("y", {"H1": "Title", "H2": "Sub"}),
        ("z", {"H1": "Next"}),
    ]
    # Every document has its own metadata dict, as LangChain's.
    docs = rc.MarkdownHeaderTextSplitter([("#", "H1")], return_each_line=True).split_text(
        "# T\na\n\nb"
    )
    assert docs[0].metadata == docs[1].metadata and docs[0].metadata is not docs[1].metadata
    # LangChain's IndexError on an empty last line of a header chunk, kept.
    s = rc.MarkdownHeaderTextSplitter([("#", "H1"), ("##", "H2")], strip_headers=False)
    text = "# A\n```\n\n"
    assert outcome(lambda: s.split_text(text)) == outcome(
        lambda: lc.MarkdownHeaderTextSplitter(
            [("#", "H1"), ("##", "H2")], strip_headers=False
        ).split_text(text)
    )


def test_markdown_subclass_hooks_run_langchains_code() -> None:
    class Upper(rc.MarkdownHeaderTextSplitter):
        def aggregate_lines_to_chunks(self, lines: Any) -> Any:
            docs = super().aggregate_lines_to_chunks(lines)
            for d in docs:
                d.page_content = d.page_content.upper()
            return docs

    assert [d.page_content for d in Upper([("#", "H")]).split_text("# t\nabc")] == ["ABC"]
    assert isinstance(Upper([("#", "H")]), lc.MarkdownHeaderTextSplitter)


# ---------------------------------------------------------------------------------------------
# HTML

HTML_TAGS = [
    "h1", "h2", "h3", "h4", "p", "div", "span", "br", "img", "hr", "b", "script", "style",
    "ul", "li", "body", "html", "table", "td", "tr", "pre", "textarea", "title", "head",
]  # fmt: skip
HTML_BITS = [
    "<!-- c -->", "<!DOCTYPE html>", "<![CDATA[x]]>", "<?pi x?>", "&amp;", "&nbsp;", "&#65;",
    "&#x41;", "&bogus;", "&amp", "&#150;", "&#0;", "&#xD800;", "&#99999999;", "<!x>",
    '<p class="a" id=b>', "<P>", "</P>", "<br/>", "<h2 >", "&#1;", "&#x7F;", "&#X41;",
    "&#128;", "&#129;", "&#xFDD0;", "&notit;", "&not", "&AMP;", "<!ELEMENT x>",
]  # fmt: skip
HTML_TEXT = ["text", " ", "\n", "a b", "  c  ", "é", "<", ">", "&", "\t", "\u3000"]


def random_html(seed: int, n: int) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rnd.randint(1, 50)):
            r, tag = rnd.random(), rnd.choice(HTML_TAGS)
            if r < 0.3:
                parts.append(f"<{tag}>")
            elif r < 0.5:
                parts.append(f"</{tag}>")
            elif r < 0.55:
                parts.append(f"<{tag}/>")
            elif r < 0.62:
                parts.append(rnd.choice(HTML_BITS))
            else:
                parts.append(rnd.choice(HTML_TEXT))
        out.append("".join(parts))
    return out


@functools.cache
def _rendered() -> tuple[str, ...]:
    import markdown

    return tuple(markdown.markdown(d, extensions=["tables", "fenced_code"]) for d in DOCS)


def corpus_html() -> list[str]:
    """The corpus rendered to HTML by Python-Markdown."""
    pytest.importorskip("markdown")
    return list(_rendered())


HTML_EDGES = [
    "",
    "plain text, no tags",
    "<h1>A</h1>top<body><h2>B</h2><p>x</p></body><p>after</p>",
    "<div><h1>Deep</h1></div><p>out of scope</p>",
    "<h1>a<br>b</br>c</h1><p>x<hr></hr>y</p>",
    "<h3>Three</h3><h1>One</h1><h2>Two</h2><p>p</p>",
    "<h1></h1><p>   </p><h2> </h2>",
    "<script>var a = '<h1>no</h1>';</script><style>p{}</style><h1>yes</h1>",
]


@pytest.mark.single_backend
@pytest.mark.parametrize("each", [False, True])
@pytest.mark.parametrize(
    "headers", [[("h1", "H1"), ("h2", "H2"), ("h3", "H3")], [("h2", "Sub"), ("h1", "Top")]]
)
def test_html_headers_match_langchain(each: bool, headers: list[tuple[str, str]]) -> None:
    pytest.importorskip("bs4")
    theirs = lc.HTMLHeaderTextSplitter(headers, return_each_element=each)
    ours = rc.HTMLHeaderTextSplitter(headers, return_each_element=each)
    # BeautifulSoup takes tens of seconds on the whole corpus: all of it once, a part otherwise.
    pages = corpus_html()
    pages = pages if (each, len(headers)) == (False, 3) else pages[::10]
    texts = pages + HTML_EDGES + random_html(len(headers) + each, 500)
    for text in texts:
        assert outcome(ours.split_text, text) == outcome(theirs.split_text, text), text[:300]


def test_html_headers_outputs_and_file_input(tmp_path: Any) -> None:
    s = rc.HTMLHeaderTextSplitter([("h1", "H1"), ("h2", "H2")])
    page = "<html><body><h1>Intro</h1><p>Hi &amp; welcome</p><div><h2>Deep</h2></div><p>x</p>"
    want = [
        ("Intro", {"H1": "Intro"}),
        ("Hi & welcome", {"H1": "Intro"}),
        ("Deep", {"H1": "Intro", "H2": "Deep"}),
        ("x", {"H1": "Intro"}),
    ]
    assert outcome(lambda: s.split_text(page)) == want
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    assert outcome(lambda: s.split_text_from_file(str(path))) == want
    assert isinstance(s, lc.HTMLHeaderTextSplitter)


SECTION_EDGES = [
    "<pre>  </pre>a<p> \n </p><textarea> </textarea><!--  --><!---->",
    "<h1>a<script>x</script><style>y</style><!--c--><![CDATA[d]]></h1>z",
    "<body>one</body><body><h2>two</h2>2</body>",
    '<p style="font-size: 30px">Big</p><p>text</p>',
]


@pytest.mark.single_backend
@pytest.mark.parametrize(
    "headers", [[("h1", "H1"), ("h2", "H2"), ("h3", "H3")], [("h2", "B"), ("h4", "D")]]
)
def test_html_sections_match_langchain(headers: list[tuple[str, str]]) -> None:
    pytest.importorskip("bs4")
    pytest.importorskip("lxml")
    theirs, ours = lc.HTMLSectionSplitter(headers), rc.HTMLSectionSplitter(headers)
    pages = corpus_html()
    texts = pages[:: 2 if len(headers) == 3 else 10] + HTML_EDGES + SECTION_EDGES
    texts += random_html(len(headers) + 11, 600)
    for text in texts:
        for method in ("split_html_by_headers", "split_text"):
            got = outcome(getattr(ours, method), text)
            assert got == outcome(getattr(theirs, method), text), (method, text[:300])


def test_html_sections_documents_match_langchain() -> None:
    pytest.importorskip("bs4")
    pytest.importorskip("lxml")
    from langchain_core.documents import Document

    pages = corpus_html()[:20] or [
        "<h1>One</h1>" + "<p>Words in a paragraph.</p>" * 40 + "<h2>Two</h2><p>More.</p>"
    ]
    docs = [Document(p, metadata={"Title": f"t{i}", "i": i}) for i, p in enumerate(pages)]
    kwargs = {"chunk_size": 300, "chunk_overlap": 30}
    headers = [("h1", "H1"), ("h2", "H2")]
    theirs = lc.HTMLSectionSplitter(headers, **kwargs).split_documents(docs)
    ours = rc.HTMLSectionSplitter(headers, **kwargs).split_documents(docs)
    assert outcome(lambda: ours) == outcome(lambda: theirs)
    assert len(ours) > len(docs)
    assert isinstance(rc.HTMLSectionSplitter(headers), lc.HTMLSectionSplitter)


# ---------------------------------------------------------------------------------------------
# JSON


def random_json(seed: int, n: int) -> list[Any]:
    rnd = random.Random(seed)
    keys = ["a", "b", "é", "x y", "k\n", 1, 2.5, True, None, "1"]
    leaves = [1, -2, 3.25, 1e16, 1e-7, "s", "日本語", "\U0001f600", None, True, False, math.nan]

    def value(depth: int) -> Any:
        r = rnd.random()
        if depth < 4 and r < 0.3:
            width = rnd.randint(0, 6)
            return {rnd.choice(keys + [f"k{i}" for i in range(9)]): value(depth + 1)
                    for _ in range(width)}  # fmt: skip
        if depth < 4 and r < 0.45:
            return [value(depth + 1) for _ in range(rnd.randint(0, 5))]
        leaf = rnd.choice(leaves)
        return leaf * rnd.randint(0, 8) if isinstance(leaf, str) else leaf

    return [value(0) for _ in range(n)]


JSON_EDGES: list[Any] = [None, {}, [], {"a": {}}, {"a": []}, "text", 5, [1, 2], {"a": [{}]}]


@pytest.mark.single_backend
@pytest.mark.parametrize("max_chunk", [30, 120, 300, 2000])
@pytest.mark.parametrize("convert_lists", [False, True])
def test_json_matches_langchain(max_chunk: int, convert_lists: bool) -> None:
    theirs = lc.RecursiveJsonSplitter(max_chunk_size=max_chunk)
    ours = rc.RecursiveJsonSplitter(max_chunk_size=max_chunk)
    small = rc.RecursiveJsonSplitter(max_chunk_size=max_chunk, min_chunk_size=max_chunk // 3)
    small_theirs = lc.RecursiveJsonSplitter(max_chunk_size=max_chunk, min_chunk_size=max_chunk // 3)
    for data in JSON_EDGES + random_json(max_chunk + convert_lists, 400):
        for a, b in ((ours, theirs), (small, small_theirs)):
            for ascii_only in (True, False):
                args = (convert_lists, ascii_only)
                got = outcome(a.split_text, copy.deepcopy(data), *args)
                want = outcome(b.split_text, copy.deepcopy(data), *args)
                assert got == want, repr(data)[:300]


def test_json_documents_and_structure_match_langchain() -> None:
    data = {"doc": {str(i): {"title": f"t{i}", "tags": ["a", "b"] * i} for i in range(40)}}
    for cls in (rc, lc):
        assert issubclass(cls.RecursiveJsonSplitter, lc.RecursiveJsonSplitter)
    ours, theirs = rc.RecursiveJsonSplitter(300), lc.RecursiveJsonSplitter(300)
    assert ours.split_json(data) == theirs.split_json(data)
    assert outcome(lambda: ours.create_documents([data, data], metadatas=[{"s": 1}, {"s": 2}])) == (
        outcome(lambda: theirs.create_documents([data, data], metadatas=[{"s": 1}, {"s": 2}]))
    )
    chunks = ours.split_text(data)
    assert len(chunks) > 3  # (a leaf bigger than max_chunk_size stays whole, as in LangChain)
    assert json.loads(chunks[0])["doc"]["0"]["title"] == "t0"


@pytest.mark.parametrize(
    "data",
    [[1, 2], "text", 5, {"a": object()}, {("t",): 1}, {"a": {1j: 2}}],
    ids=["list", "str", "int", "unserialisable", "tuple-key", "complex-key"],
)
def test_json_errors_are_langchains(data: Any) -> None:
    ours, theirs = rc.RecursiveJsonSplitter(50), lc.RecursiveJsonSplitter(50)
    got, want = outcome(lambda: ours.split_json(data)), outcome(lambda: theirs.split_json(data))
    assert got == want and got[0] == "raised" and got[1] is TypeError, got


def test_json_circular_and_huge_values_fail_as_langchain() -> None:
    loop: dict[str, Any] = {"x": 1}
    loop["self"] = {"again": loop}
    huge = {"n": 10**5000}
    for data in (loop, huge, {"a": {"b": [1, {"c": loop}]}}):
        ours, theirs = rc.RecursiveJsonSplitter(50), lc.RecursiveJsonSplitter(50)
        got, want = outcome(ours.split_json, data), outcome(theirs.split_json, data)
        assert got == want and got[0] == "raised", got


def test_json_subclass_hooks_run_langchains_code() -> None:
    class Doubling(rc.RecursiveJsonSplitter):
        @staticmethod
        def _json_size(data: dict[str, Any]) -> int:
            return 2 * len(json.dumps(data))

    data = {"a": "x" * 20, "b": "y" * 20}
    hook = {"_json_size": staticmethod(Doubling._json_size)}
    theirs = type("T", (lc.RecursiveJsonSplitter,), hook)
    assert Doubling(60, 10).split_json(data) == theirs(60, 10).split_json(data)
    assert len(Doubling(60, 10).split_json(data)) == 2
