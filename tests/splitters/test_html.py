"""HTMLSplitter: layout, sections, tables, malformed input, no lost text, backends agree.

The corpus is Markdown; it is rendered to HTML here with markdown-it-py (a test-only
dependency) so the splitter runs on real English and Chinese documents.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_chunks, sample_texts
from ragchunk import HTMLSplitter
from ragchunk._pure.splitters import html as pure_html
from ragchunk.core import dispatch
from ragchunk.core.chunk import Chunk
from testdata import corpus_documents

_HTML_WS = re.compile(r"[ \t\n\r\f]+")
# The packer's whitespace (rust/splitters/markdown.rs `is_ws`): a cut between words may drop
# it, as in every splitter of the library.
_PACK_WS = re.compile("[ \t\n\r\x0b\x0c\xa0\u3000]+")


def _render(md: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(md)


def _sample(per_dir: int = 2) -> list[tuple[str, str]]:
    """A few documents from every corpus folder (English and Chinese), rendered to HTML,
    smallest first so the pure-Python half stays quick."""
    by_dir: dict[str, list[tuple[str, str]]] = {}
    for name, text in corpus_documents():
        by_dir.setdefault(name.split("/")[0], []).append((name, text))
    out = []
    for docs in by_dir.values():
        docs.sort(key=lambda d: (len(d[1]) > 60_000, d[0]))
        out.extend((name, _render(md)) for name, md in docs[:per_dir])
    return out


CORPUS = _sample()


def _text_content(html: str) -> str:
    """The document's text per html5lib, independently of the layout: every text node
    outside script/style/template/noscript, concatenated."""
    import html5lib

    root = html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=False)
    out: list[str] = []
    stack: list[tuple[bool, Any]] = [(True, root)]
    while stack:
        is_node, x = stack.pop()
        if not is_node:
            out.append(x)
            continue
        tag = x.tag
        if isinstance(tag, str) and tag.rpartition("}")[2] in pure_html.DROPPED:
            if x.tail:
                stack.append((False, x.tail))
            continue
        if x.tail and x is not root:
            stack.append((False, x.tail))
        for child in reversed(list(x)):
            stack.append((True, child))
        if isinstance(tag, str) and x.text:
            stack.append((False, x.text))
    return "".join(out)


def _squeeze(s: str, ws: re.Pattern[str] = _HTML_WS) -> str:
    return ws.sub("", s)


def _check(html: str, splitter: HTMLSplitter, chunks: list[Chunk], count: Any) -> None:
    """The offsets contract, exact counts, the budget, and no lost text."""
    text = splitter.extract_text(html)
    # Documented overflow: one character alone.
    check_chunks(
        text,
        chunks,
        budget=splitter.chunk_size,
        count=count,
        overflow_ok=lambda c: c.end - c.start == 1,
        lossless=splitter.chunk_overlap == 0 and not splitter.strip_headers,
    )
    last = -1
    for c in chunks:
        assert c.start > last
        last = c.start
        assert isinstance(c.metadata["headers"], list)
    if splitter.chunk_overlap == 0 and not splitter.strip_headers:
        body = "".join(text[c.start : c.end] for c in chunks)
        assert _squeeze(body, _PACK_WS) == _squeeze(text, _PACK_WS)
        assert _squeeze(text) == _squeeze(_text_content(html))


@pytest.fixture(scope="module")
def cl100k_count() -> Any:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    return lambda t: len(enc.encode_ordinary(t))


def _pairs(chunks: list[Chunk]) -> list[tuple[list[str], str]]:
    return [(c.metadata["headers"], c.text) for c in chunks]


# --------------------------------------------------------------------------------- behaviour


def test_layout_sections_and_blocks() -> None:
    html = (
        "<!doctype html><html><head><title>Doc</title><style>p{color:red}</style>"
        "<script>var x = '<p>no</p>';</script></head><body>"
        "<h1>Guide</h1><p>Intro   <b>bold</b>\n text.<!-- hidden --></p>"
        "<h2>Install</h2><pre>\npip install x\n  indented\n</pre>"
        "<h3>Lists</h3><ul><li>one</li><li>two <i>it</i></li></ul><h1>Other</h1>End.<br>Next."
        "<noscript>enable js</noscript><template><p>tpl</p></template></body></html>"
    )
    s = HTMLSplitter(40, length="chars")
    assert s.extract_text(html) == (
        "Doc\n\nGuide\n\nIntro bold text.\n\nInstall\n\npip install x\n  indented\n\n"
        "Lists\n\none\n\ntwo it\n\nOther\n\nEnd.\nNext."
    )
    assert _pairs(s.split(html)) == [
        ([], "Doc"),
        (["Guide"], "Guide\n\nIntro bold text."),
        (["Guide", "Install"], "Install\n\npip install x\n  indented"),
        (["Guide", "Install", "Lists"], "Lists\n\none\n\ntwo it"),
        (["Other"], "Other\n\nEnd.\nNext."),
    ]
    stripped = HTMLSplitter(60, length="chars", strip_headers=True, headers_to_split_on=["h1"])
    assert _pairs(stripped.split(html)) == [
        ([], "Doc"),
        (["Guide"], "Intro bold text.\n\nInstall\n\npip install x\n  indented\n\nLists"),
        (["Guide"], "one\n\ntwo it"),
        (["Other"], "End.\nNext."),
    ]


def test_small_sections_merge_under_their_parent() -> None:
    html = (
        "<h1>Guide</h1><p>Intro.</p><h2>Install</h2><p>Run pip.</p><h2>Use</h2><p>Import.</p>"
        "<h1>Other</h1><p>End.</p>"
    )
    s = HTMLSplitter(40, length="chars", merge_sections=True)
    chunks = s.split(html)
    assert [(c.metadata["headers"], c.metadata.get("sections"), c.text) for c in chunks] == [
        (
            ["Guide"],
            [["Guide"], ["Guide", "Install"]],
            "Guide\n\nIntro.\n\nInstall\n\nRun pip.",
        ),
        (["Guide", "Use"], None, "Use\n\nImport."),
        (["Other"], None, "Other\n\nEnd."),
    ]
    _check(html, s, chunks, len)
    plain = HTMLSplitter(40, length="chars", merge_sections=False).split(html)
    assert len(plain) == 4 and all("sections" not in c.metadata for c in plain)


def test_small_table_whole_and_cells_tab_separated() -> None:
    html = (
        "<p>Before</p><table><caption>Prices</caption><thead><tr><td>item</td><td>cost</td>"
        "</tr></thead><tbody><tr><td>tea <b>green</b></td><td>3</td></tr>"
        "<tr><td></td><td>4</td></tr><tr><td></td><td></td></tr></tbody></table><p>After</p>"
    )
    chunks = HTMLSplitter(200, length="chars").split(html)
    assert [c.text for c in chunks] == [
        "Before\n\nPrices\n\nitem\tcost\ntea green\t3\n\t4\n\nAfter"
    ]


def test_big_table_cut_at_rows_with_header_repeated() -> None:
    rows = "".join(f"<tr><td>row{i}</td><td>{i * 7}</td></tr>" for i in range(30))
    html = f"<h1>T</h1><table><tr><th>name</th><th>value</th></tr>{rows}</table>"
    s = HTMLSplitter(60, length="chars", strip_headers=True)
    chunks = s.split(html)
    text = s.extract_text(html)
    head = "name\tvalue\n"
    assert len(chunks) > 3
    assert "added_prefix" not in chunks[0].metadata
    assert chunks[0].text.startswith(head)
    for c in chunks[1:]:
        assert c.metadata["added_prefix"] == head
        assert c.text == head + text[c.start : c.end]
        assert text[c.start : c.end].startswith("row")
        assert c.token_count <= 60
        assert c.metadata["headers"] == ["T"]
    body = [r for c in chunks for r in text[c.start : c.end].splitlines() if "row" in r]
    assert body == [f"row{i}\t{i * 7}" for i in range(30)]


def test_table_without_header_row_repeats_nothing() -> None:
    rows = "".join(f"<tr><td>row{i}</td><td>{i}</td></tr>" for i in range(30))
    chunks = HTMLSplitter(40, length="chars").split(f"<table>{rows}</table>")
    assert len(chunks) > 3
    assert all("added_prefix" not in c.metadata for c in chunks)
    assert all(c.text.startswith("row") for c in chunks)


def test_malformed_html_is_recovered_best_effort() -> None:
    # Unclosed <p> and <li>, misnested </b>, a stray </div>, text directly in a table (foster
    # parented before it, here into the open <li>, as browsers do), an unclosed <table> and
    # <b> at the end.
    html = (
        "<h1>Title</h1><p>para one<p>para <b>two</i> still</b> bold<ul><li>a<li>b</div>"
        "<table>stray<tr><td>c1<td>c2</table><h2>Sub</h2><b>never closed<table><tr><td>x"
    )
    s = HTMLSplitter(500, length="chars", merge_sections=False)
    assert s.extract_text(html) == (
        "Title\n\npara one\n\npara two still bold\n\na\n\nbstray\n\nc1\tc2\n\nSub\n\n"
        "never closed\n\nx"
    )
    chunks = s.split(html)
    assert _pairs(chunks) == [
        (["Title"], "Title\n\npara one\n\npara two still bold\n\na\n\nbstray\n\nc1\tc2"),
        (["Title", "Sub"], "Sub\n\nnever closed\n\nx"),
    ]
    _check(html, s, chunks, len)
    # An unclosed heading swallows the rest of the document, as in a browser: the text is
    # all there, as one heading block.
    unclosed = "<h2>Title<p>body one<p>body two"
    assert s.extract_text(unclosed) == "Title body one body two"
    assert _pairs(s.split(unclosed)) == [(["Title body one body two"], "Title body one body two")]


def test_long_paragraph_cut_at_sentences() -> None:
    html = "<p>" + "这是第一句。这是第二句！" * 10 + " Short one. " + "word " * 30 + "</p>"
    chunks = HTMLSplitter(20, length="chars").split(html)
    assert chunks[0].text == "这是第一句。这是第二句！这是第一句。"
    assert all(c.token_count <= 20 for c in chunks)
    _check(html, HTMLSplitter(20, length="chars"), chunks, len)


def test_overlap_repeats_trailing_blocks() -> None:
    html = "".join(f"<p>Paragraph number {i}.</p>" for i in range(8))
    chunks = HTMLSplitter(50, chunk_overlap=21, length="chars").split(html)
    assert chunks[0].text == "Paragraph number 0.\n\nParagraph number 1."
    assert chunks[1].text.startswith("Paragraph number 1.")
    for a, b in itertools.pairwise(chunks):
        assert b.start < a.end < b.end


def test_tokens_and_custom_tokenizer(cl100k_count: Any) -> None:
    html = "<h1>Title</h1>" + "<p>Some words here.</p>" * 50
    chunks = HTMLSplitter(32).split(html)
    assert all(c.token_count <= 32 for c in chunks)
    assert all(c.token_count == cl100k_count(c.text) for c in chunks)
    words = HTMLSplitter(10, tokenizer=lambda t: len(t.split())).split(html)
    assert all(c.token_count <= 10 for c in words)
    assert words[0].text == "Title" + "\n\nSome words here." * 3


def test_split_text_and_batch() -> None:
    docs = [d for _, d in CORPUS[:4]] + ["", "<h1>only</h1>", "<script>x</script>"]
    splitter = HTMLSplitter(128)
    expected = [splitter.split(d) for d in docs]
    assert expected[-3] == [] and expected[-1] == []
    assert splitter.split_batch(docs) == expected
    assert splitter.split_batch(docs, workers=2) == expected
    assert splitter.split_text(docs[-2]) == ["only"]
    chars = HTMLSplitter(300, length="chars")
    assert chars.split_batch(docs, workers=1) == [chars.split(d) for d in docs]
    custom = HTMLSplitter(50, tokenizer=len)
    assert custom.split_batch(docs[-2:]) == [custom.split(d) for d in docs[-2:]]


def test_pathological_inputs_do_not_crash() -> None:
    s = HTMLSplitter(50, length="chars")
    for html in [
        "<div>" * 3000 + "deep",
        "<table>" * 300 + "t",
        "<li>" * 2000,
        "x" * 3000,
        "<" * 2000,
        "&amp;" * 1000,
        "<pre>" + "\n" * 3000 + "</pre>",
        "<td>" * 500 + "cell",
        "<h1>" * 100 + "nested headings",
    ]:
        _check(html, s, s.split(html), len)


# ----------------------------------------------------------------------------------- corpus


@pytest.mark.parametrize("name,html", CORPUS, ids=[n for n, _ in CORPUS])
def test_corpus_invariants(name: str, html: str, cl100k_count: Any) -> None:
    for size in (64, 512):
        for merge in (False, True):
            s = HTMLSplitter(size, merge_sections=merge)
            chunks = s.split(html)
            assert chunks
            _check(html, s, chunks, cl100k_count)
    headed = [c for c in HTMLSplitter(512).split(html) if c.metadata["headers"]]
    assert headed  # the rendered documents have headings


@pytest.mark.parametrize("name,html", CORPUS[::2], ids=[n for n, _ in CORPUS[::2]])
def test_corpus_tables_that_fit_are_never_cut(name: str, html: str) -> None:
    s = HTMLSplitter(400, length="chars")
    chunks = s.split(html)
    layout = pure_html.layout_html(html)
    for blk in layout.blocks:
        if blk.kind == "table" and blk.end - blk.start <= 400:
            assert any(c.start <= blk.start and blk.end <= c.end for c in chunks), blk


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs,exc,word",
    [
        ({"chunk_size": 0}, ValueError, "chunk_size"),
        ({"chunk_size": "10"}, TypeError, "chunk_size"),
        ({"chunk_size": 10, "chunk_overlap": 10}, ValueError, "chunk_overlap"),
        ({"chunk_size": 10, "headers_to_split_on": "h1"}, TypeError, "headers_to_split_on"),
        ({"chunk_size": 10, "headers_to_split_on": ["h7"]}, ValueError, "headers_to_split_on"),
        ({"chunk_size": 10, "headers_to_split_on": ["#"]}, ValueError, "headers_to_split_on"),
        ({"chunk_size": 10, "headers_to_split_on": [1]}, TypeError, "headers_to_split_on"),
        ({"chunk_size": 10, "strip_headers": 1}, TypeError, "strip_headers"),
        ({"chunk_size": 10, "merge_sections": "yes"}, TypeError, "merge_sections"),
        ({"chunk_size": 10, "length": "words"}, ValueError, "length"),
        ({"chunk_size": 10, "tokenizer": "gpt2"}, ValueError, "tokenizer"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], exc: type[Exception], word: str) -> None:
    with pytest.raises(exc, match=word):
        HTMLSplitter(**kwargs)


def test_bad_text() -> None:
    s = HTMLSplitter(10)
    with pytest.raises(TypeError, match="html"):
        s.split(b"<p>bytes</p>")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="html contains a lone surrogate at index 5"):
        s.split("<p>ab\ud800c")
    with pytest.raises(TypeError, match="html"):
        s.extract_text(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        s.split_batch(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="workers"):
        s.split_batch(["ok"], workers=0)


# ------------------------------------------------------------- messy HTML: properties, twins

_PIECES = st.sampled_from(
    [
        "<p>",
        "</p>",
        "<div>",
        "</div>",
        "<h1>",
        "</h1>",
        "<h2>",
        "<h3>",
        "</h3>",
        "<h5>",
        "<ul>",
        "<li>",
        "</li>",
        "</ul>",
        "<table>",
        "</table>",
        "<thead>",
        "<tr>",
        "</tr>",
        "<td>",
        "</td>",
        "<th>",
        "<caption>",
        "<br>",
        "<pre>",
        "</pre>",
        "<script>x < y</script>",
        "<style>p{}</style>",
        "<b>",
        "</b>",
        "<i>",
        "</span>",
        "<!-- c -->",
        "&amp;",
        "&lt;",
        "&nbsp;",
        "<blockquote>",
        " ",
        "\n",
        "\t",
        "Sentence one. Two!",
        "中文句子。第二句！",
    ]
)
_WORDS = st.text(
    st.characters(exclude_categories=("Cs", "Cc"), exclude_characters="<&"), max_size=12
)
_HTML = st.lists(st.one_of(_PIECES, _WORDS), max_size=40).map("".join)


@given(html=_HTML, size=st.integers(1, 80), merge=st.booleans())
@settings(max_examples=60)
def test_messy_html_loses_no_text(html: str, size: int, merge: bool) -> None:
    s = HTMLSplitter(size, length="chars", merge_sections=merge)
    _check(html, s, s.split(html), len)


@pytest.mark.single_backend
@given(
    html=_HTML,
    size=st.integers(1, 120),
    overlap=st.integers(0, 30),
    strip=st.booleans(),
    levels=st.sets(st.integers(1, 6)),
    merge=st.booleans(),
)
def test_backends_agree_chars(
    html: str, size: int, overlap: int, strip: bool, levels: set[int], merge: bool
) -> None:
    core = dispatch._import_core()
    lv = sorted(levels)
    overlap = min(overlap, size - 1)
    got = core.HTMLSplitter(size, overlap, lv, strip, "chars", merge_sections=merge).split(html)
    want = pure_html.split_html(html, size, overlap, lv, strip, len, merge)
    assert (got[0], list(got[1]), list(got[2]), list(got[3])) == want
    assert core.html_text(html) == want[0]


@pytest.mark.single_backend
@given(html=_HTML, size=st.integers(1, 60), merge=st.booleans())
def test_backends_agree_tokens(html: str, size: int, merge: bool, cl100k_count: Any) -> None:
    core = dispatch._import_core()
    got = core.HTMLSplitter(
        size, 0, [1, 2, 3], False, "tokens", "cl100k_base", merge_sections=merge
    ).split(html)
    want = pure_html.split_html(html, size, 0, [1, 2, 3], False, cl100k_count, merge)
    assert (got[0], list(got[1]), list(got[2]), list(got[3])) == want


@pytest.mark.single_backend
@pytest.mark.parametrize("name,html", CORPUS, ids=[n for n, _ in CORPUS])
@pytest.mark.parametrize("merge", [False, True])
def test_backends_agree_on_corpus(name: str, html: str, merge: bool) -> None:
    splitter = HTMLSplitter(256, chunk_overlap=32, merge_sections=merge)
    dispatch.set_backend("rust")
    rust = splitter.split(html)
    dispatch.set_backend("python")
    assert splitter.split(html) == rust


@pytest.mark.parametrize("size", [8, 64])
def test_invariants(size: int) -> None:
    import html as html_lib

    splitter = HTMLSplitter(chunk_size=size)
    for text in sample_texts():
        page = "".join(
            f"<h2>{html_lib.escape(p[:30])}</h2><p>{html_lib.escape(p)}</p>"
            for p in text.split("\n\n")
        )
        layout = splitter.extract_text(page)  # offsets index the page's text layout
        check_chunks(
            layout,
            splitter.split(page),
            budget=size,
            overflow_ok=lambda c: c.end - c.start == 1,
        )
