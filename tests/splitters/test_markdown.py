"""MarkdownSplitter: structure, invariants on the corpus, bad input, backends agree."""

from __future__ import annotations

import doctest
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from invariants import check_chunks, sample_texts
from ragchunk._pure.splitters import markdown as pure
from ragchunk.core import dispatch
from ragchunk.core.chunk import Chunk
from ragchunk.splitters import html, json, markdown, title_tree
from ragchunk.splitters._common import section_chunks
from ragchunk.splitters.markdown import MarkdownSplitter
from testdata import corpus_documents


def _sample(per_dir: int = 2) -> list[tuple[str, str]]:
    """A few documents from every corpus folder (English and Chinese), smallest first so the
    pure-Python half stays quick; the differential test below covers more."""
    by_dir: dict[str, list[tuple[str, str]]] = {}
    for name, text in corpus_documents():
        by_dir.setdefault(name.split("/")[0], []).append((name, text))
    out = []
    for docs in by_dir.values():
        docs.sort(key=lambda d: (len(d[1]) > 60_000, d[0]))
        out.extend(docs[:per_dir])
    return out


CORPUS = _sample()


def _check_invariants(text: str, chunks: list[Chunk], size: int, count: object) -> None:
    assert callable(count)
    # Documented overflow: one character alone.
    check_chunks(text, chunks, budget=size, count=count, overflow_ok=lambda c: c.end - c.start == 1)
    for c in chunks:
        assert isinstance(c.metadata["headers"], list)


@pytest.fixture(scope="module")
def cl100k_count() -> object:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    return lambda t: len(enc.encode_ordinary(t))


# --------------------------------------------------------------------------------- behaviour


def test_headers_path_and_blocks_whole() -> None:
    md = (
        "# Guide\n\nIntro text.\n\n## Install\n\n```sh\npip install x\n\npip install y\n```\n\n"
        "### Linux\n\n- one\n- two\n\n  more two\n\n## Use\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
        "\n# Other\n\nEnd."
    )
    chunks = MarkdownSplitter(chunk_size=40, length="chars").split(md)
    got = [(c.metadata["headers"], c.text) for c in chunks]
    assert got == [
        (["Guide"], "# Guide\n\nIntro text."),
        (["Guide", "Install"], "## Install"),
        (["Guide", "Install"], "```sh\npip install x\n\npip install y\n```"),
        (["Guide", "Install", "Linux"], "### Linux\n\n- one\n- two\n\n  more two"),
        (["Guide", "Use"], "## Use\n\n| a | b |\n|---|---|\n| 1 | 2 |"),
        (["Other"], "# Other\n\nEnd."),
    ]


def test_deeper_headings_stay_in_the_text_and_reset_paths() -> None:
    md = "## B first\n\nx\n\n#### deep\n\ny\n\n# A\n\nz"
    chunks = MarkdownSplitter(chunk_size=100, length="chars", merge_sections=False).split(md)
    assert [(c.metadata["headers"], c.text) for c in chunks] == [
        (["B first"], "## B first\n\nx\n\n#### deep\n\ny"),
        (["A"], "# A\n\nz"),
    ]


_NESTED = (
    "# Guide\n\nIntro.\n\n## Install\n\nRun pip.\n\n## Use\n\nImport it.\n\n"
    "## Deep\n\nd\n\n### Part\n\n" + "word " * 12 + "\n\n## Last\n\nBye.\n\n# Other\n\nEnd."
)


def test_small_sections_merge_under_their_parent() -> None:
    chunks = MarkdownSplitter(40, length="chars", merge_sections=True).split(_NESTED)
    got = [(c.metadata["headers"], c.metadata.get("sections"), c.text) for c in chunks]
    assert got == [
        # The parent's intro with its first children, while they fit.
        (
            ["Guide"],
            [["Guide"], ["Guide", "Install"]],
            "# Guide\n\nIntro.\n\n## Install\n\nRun pip.",
        ),
        # "## Use" alone: "## Deep" is cut (its "### Part" is over budget), a barrier.
        (["Guide", "Use"], None, "## Use\n\nImport it."),
        (["Guide", "Deep"], None, "## Deep\n\nd"),
        (["Guide", "Deep", "Part"], None, "### Part"),
        (["Guide", "Deep", "Part"], None, "word " * 7 + "word"),
        (["Guide", "Deep", "Part"], None, "word word word word"),
        # "# Other" is a higher-level boundary: never merged with "## Last".
        (["Guide", "Last"], None, "## Last\n\nBye."),
        (["Other"], None, "# Other\n\nEnd."),
    ]
    for c in chunks:
        assert c.text == _NESTED[c.start : c.end] and c.token_count <= 40
    # Unmerged, each section starts its own chunk (the former behaviour).
    plain = MarkdownSplitter(40, length="chars", merge_sections=False).split(_NESTED)
    assert [c.metadata["headers"] for c in plain][:3] == [
        ["Guide"],
        ["Guide", "Install"],
        ["Guide", "Use"],
    ]
    assert all("sections" not in c.metadata for c in plain)
    # Everything fits: one chunk under the common path of the whole document (none).
    (one,) = MarkdownSplitter(500, length="chars", merge_sections=True).split(_NESTED)
    assert one.text == _NESTED and one.metadata["headers"] == []
    assert one.metadata["sections"][0] == ["Guide"] and one.metadata["sections"][-1] == ["Other"]


def test_siblings_merge_and_strip_headers_keeps_their_headings() -> None:
    md = "# Guide\n\n## A\n\naa\n\n## B\n\nbb\n\n## C\n\n" + "x" * 30
    chunks = MarkdownSplitter(30, length="chars", merge_sections=True, strip_headers=True).split(md)
    got = [(c.metadata["headers"], c.text) for c in chunks]
    # "# Guide" is the merged chunk's own path: stripped. "## A" and "## B" are not in its
    # path, so they stay in the text.
    assert got == [
        (["Guide"], "## A\n\naa\n\n## B\n\nbb"),
        (["Guide", "C"], "x" * 30),
    ]
    assert chunks[0].metadata["sections"] == [["Guide"], ["Guide", "A"], ["Guide", "B"]]
    assert chunks[0].start == md.index("## A")


def test_overlap_stays_within_a_cut_section_when_merging() -> None:
    md = "# T\n\n" + "\n\n".join(f"Paragraph number {i}." for i in range(6)) + "\n\n# U\n\nu"
    merged = MarkdownSplitter(50, chunk_overlap=21, length="chars", merge_sections=True)
    plain = MarkdownSplitter(50, chunk_overlap=21, length="chars", merge_sections=False)
    # "# T" is cut into overlapping chunks exactly as before; nothing else to merge with.
    assert merged.split(md) == plain.split(md)
    assert merged.split(md)[1].start < merged.split(md)[0].end


def test_setext_front_matter_and_strip_headers() -> None:
    md = "---\ntitle: x\n---\nTitle\n=====\n\nBody one.\n\nSub *part*\n---\n\nBody two."
    splitter = MarkdownSplitter(64, length="chars", strip_headers=True, merge_sections=False)
    chunks = splitter.split(md)
    assert [(c.metadata["headers"], c.text) for c in chunks] == [
        ([], "---\ntitle: x\n---"),
        (["Title"], "Body one."),
        (["Title", "Sub *part*"], "Body two."),
    ]


def test_unclosed_fence_runs_to_the_end() -> None:
    md = "# T\n\n```\ncode\n# not a heading\n"
    chunks = MarkdownSplitter(100, length="chars").split(md)
    assert [c.text for c in chunks] == ["# T\n\n```\ncode\n# not a heading"]
    assert chunks[0].metadata["headers"] == ["T"]


def test_big_table_is_cut_at_rows_with_header_repeated() -> None:
    head = "| name | value |\n|------|-------|\n"
    rows = "".join(f"| row{i} | {i * 7} |\n" for i in range(30))
    md = "# T\n\n" + head + rows
    chunks = MarkdownSplitter(80, length="chars", strip_headers=True).split(md)
    assert len(chunks) > 3
    assert "added_prefix" not in chunks[0].metadata
    assert chunks[0].text.startswith(head)
    for c in chunks[1:]:
        assert c.metadata["added_prefix"] == head
        assert c.text.startswith(head)
        assert c.text[len(head) :] == md[c.start : c.end]
        assert md[c.start : c.end].startswith("| row")
        assert c.token_count <= 80
    body_rows = [r for c in chunks for r in md[c.start : c.end].splitlines() if "row" in r]
    assert body_rows == rows.splitlines()


def test_big_fence_is_cut_at_lines() -> None:
    code = "\n".join(f"let x{i} = {i};" for i in range(40))
    md = f"```rust\n{code}\n```"
    chunks = MarkdownSplitter(60, length="chars").split(md)
    assert len(chunks) > 1
    for c in chunks:
        assert c.token_count <= 60
        assert "\n" not in md[c.end : c.end + 1] or md[c.end] == "\n"  # ends at a line end
    assert "".join(c.text + "\n" for c in chunks) == md + "\n"


def test_long_paragraph_cut_at_sentences_then_words() -> None:
    para = "这是第一句。这是第二句！" * 10 + " Short one. " + "word " * 30
    chunks = MarkdownSplitter(20, length="chars").split(para)
    for c in chunks:
        assert c.token_count <= 20
        assert c.text == para[c.start : c.end]
    assert chunks[0].text == "这是第一句。这是第二句！这是第一句。"
    assert all(c.text.endswith(("。", "！", ".", "word")) for c in chunks)


def test_overlap_repeats_trailing_blocks() -> None:
    md = "\n\n".join(f"Paragraph number {i}." for i in range(8))
    chunks = MarkdownSplitter(50, chunk_overlap=21, length="chars").split(md)
    texts = [c.text for c in chunks]
    assert texts[0] == "Paragraph number 0.\n\nParagraph number 1."
    assert texts[1].startswith("Paragraph number 1.")
    for a, b in itertools.pairwise(chunks):
        assert b.start < a.end  # overlapping
        assert b.end > a.end  # progressing


def test_tokens_and_custom_tokenizer(cl100k_count: object) -> None:
    md = "# Title\n\n" + "Some words here. " * 50
    chunks = MarkdownSplitter(32).split(md)
    assert all(c.token_count <= 32 for c in chunks)
    assert all(c.token_count == cl100k_count(c.text) for c in chunks)  # type: ignore[operator]
    words = MarkdownSplitter(10, tokenizer=lambda t: len(t.split())).split(md)
    assert all(c.token_count <= 10 for c in words)
    assert words[0].text == "# Title"


def test_split_text_and_batch() -> None:
    docs = [d for _, d in CORPUS[:4]] + ["", "# only"]
    splitter = MarkdownSplitter(128)
    expected = [splitter.split(d) for d in docs]
    assert splitter.split_batch(docs) == expected
    assert splitter.split_batch(docs, workers=2) == expected
    assert splitter.split_text(docs[-1]) == ["# only"]
    chars = MarkdownSplitter(300, length="chars")
    assert chars.split_batch(docs, workers=1) == [chars.split(d) for d in docs]
    custom = MarkdownSplitter(50, tokenizer=len)
    assert custom.split_batch(docs[-2:]) == [custom.split(d) for d in docs[-2:]]


def test_pathological_inputs_do_not_crash() -> None:
    splitter = MarkdownSplitter(50, length="chars")
    for text in [
        ">" * 20000,
        "- " * 5000 + "\n" + "  - x\n" * 2000,
        "x" * 3000,
        "\n" * 5000,
        "|\n|-|\n" * 500,
        "#" * 10000,
        "```\n" * 1001,
        "\r\n".join(["# A", "", "b"] * 50),
    ]:
        chunks = splitter.split(text)
        _check_invariants(text, chunks, 50, len)


# ----------------------------------------------------------------------------------- corpus


@pytest.mark.parametrize("name,text", CORPUS, ids=[n for n, _ in CORPUS])
def test_corpus_invariants(name: str, text: str, cl100k_count: object) -> None:
    for size in (64, 512):
        for merge in (False, True):
            chunks = MarkdownSplitter(size, merge_sections=merge).split(text)
            assert chunks
            _check_invariants(text, chunks, size, cl100k_count)


@pytest.mark.parametrize("name,text", CORPUS, ids=[n for n, _ in CORPUS])
def test_corpus_merged_chunks_are_runs_of_whole_sections(name: str, text: str) -> None:
    plain = MarkdownSplitter(512, merge_sections=False).split(text)
    merged = MarkdownSplitter(512, merge_sections=True).split(text)
    assert len(merged) <= len(plain)
    by_start = {c.start: i for i, c in enumerate(plain)}
    for c in merged:
        i = by_start[c.start]
        if "sections" not in c.metadata:
            assert c == plain[i]  # a chunk that merged nothing is unchanged
            continue
        run = [plain[i]]
        while run[-1].end < c.end:
            run.append(plain[len(run) + i])
        assert run[-1].end == c.end and len(run) >= 2
        assert c.metadata["sections"] == [p.metadata["headers"] for p in run]
        assert all(
            p.metadata["headers"][: len(c.metadata["headers"])] == c.metadata["headers"]
            for p in run
        )
        assert c.token_count <= 512


def test_corpus_merging_fills_chunks() -> None:
    plain = [MarkdownSplitter(512, merge_sections=False).split(t) for _, t in CORPUS]
    merged = [MarkdownSplitter(512, merge_sections=True).split(t) for _, t in CORPUS]
    fewer = sum(len(m) < len(p) for m, p in zip(merged, plain, strict=True))
    assert fewer >= len(CORPUS) // 2, (fewer, len(CORPUS))
    assert sum(map(len, merged)) < 0.8 * sum(map(len, plain))


@pytest.mark.parametrize("name,text", CORPUS[::2], ids=[n for n, _ in CORPUS[::2]])
def test_corpus_blocks_that_fit_are_never_cut(name: str, text: str) -> None:
    size = 400
    splitter = MarkdownSplitter(size, length="chars")
    chunks = splitter.split(text)
    for blk in pure.scan_blocks(text):
        kept = ("fence", "table", "list", "html", "front_matter")
        if blk.kind in kept and blk.end - blk.start <= size:
            assert any(c.start <= blk.start and blk.end <= c.end for c in chunks), blk


@pytest.mark.parametrize("name,text", CORPUS, ids=[n for n, _ in CORPUS])
def test_corpus_strip_headers_keeps_headings_in_metadata(name: str, text: str) -> None:
    chunks = MarkdownSplitter(256, strip_headers=True, merge_sections=False).split(text)
    titles = {t for c in chunks for t in c.metadata["headers"]}
    for blk in pure.scan_blocks(text):
        if blk.kind == "heading" and blk.level <= 3:
            inside = [c for c in chunks if c.start <= blk.start < c.end]
            # Stripped (its text in metadata), or kept alone because its section is empty.
            assert not inside or inside[0].text == text[blk.start : blk.end]
            assert blk.text in titles or not blk.text


@pytest.mark.parametrize("name,text", CORPUS, ids=[n for n, _ in CORPUS])
def test_corpus_strip_headers_with_merging_loses_no_heading(name: str, text: str) -> None:
    chunks = MarkdownSplitter(256, strip_headers=True, merge_sections=True).split(text)
    stripped = kept = 0
    for blk in pure.scan_blocks(text):
        if blk.kind == "heading" and blk.level <= 3:
            if any(c.start <= blk.start < c.end for c in chunks):
                kept += 1  # in the text, at a line start: a merged section's heading
                continue
            # Left out: it is the last heading of the path of the chunk that follows it.
            after = next(c for c in chunks if c.start >= blk.end)
            assert after.metadata["headers"][-1:] == ([blk.text] if blk.text else []), blk
            stripped += 1
    assert stripped + kept > 0


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs,exc,word",
    [
        ({"chunk_size": 0}, ValueError, "chunk_size"),
        ({"chunk_size": "10"}, TypeError, "chunk_size"),
        ({"chunk_size": True}, TypeError, "chunk_size"),
        ({"chunk_size": 10, "chunk_overlap": 10}, ValueError, "chunk_overlap"),
        ({"chunk_size": 10, "chunk_overlap": -1}, ValueError, "chunk_overlap"),
        ({"chunk_size": 10, "headers_to_split_on": "#"}, TypeError, "headers_to_split_on"),
        ({"chunk_size": 10, "headers_to_split_on": ["#x"]}, ValueError, "headers_to_split_on"),
        ({"chunk_size": 10, "headers_to_split_on": ["#" * 7]}, ValueError, "headers_to_split_on"),
        ({"chunk_size": 10, "headers_to_split_on": [1]}, TypeError, "headers_to_split_on"),
        ({"chunk_size": 10, "strip_headers": 1}, TypeError, "strip_headers"),
        ({"chunk_size": 10, "merge_sections": 1}, TypeError, "merge_sections"),
        ({"chunk_size": 10, "merge_sections": None}, TypeError, "merge_sections"),
        ({"chunk_size": 10, "length": "words"}, ValueError, "length"),
        ({"chunk_size": 10, "tokenizer": "gpt2"}, ValueError, "tokenizer"),
        ({"chunk_size": 10, "tokenizer": 3}, TypeError, "tokenizer"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], exc: type[Exception], word: str) -> None:
    with pytest.raises(exc, match=word):
        MarkdownSplitter(**kwargs)  # type: ignore[arg-type]


def test_bad_text() -> None:
    splitter = MarkdownSplitter(10)
    with pytest.raises(TypeError, match="text"):
        splitter.split(b"# bytes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="text contains a lone surrogate at index 2"):
        splitter.split("ab\ud800c")
    with pytest.raises(TypeError, match="texts"):
        splitter.split_batch("not a list")
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        splitter.split_batch(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="workers"):
        splitter.split_batch(["ok"], workers=0)
    with pytest.raises(TypeError, match="tokenizer"):
        MarkdownSplitter(10, tokenizer=lambda t: "x").split("abc")


# ---------------------------------------------------------------------------- backends agree

_LINES = st.sampled_from(
    [
        "",
        "# H1",
        "## H2 ##",
        "### H3",
        "#### H4",
        "Title",
        "===",
        "---",
        "```py",
        "```",
        "~~~",
        "    indented code",
        "- item",
        "1. item",
        "  continued",
        "> quote",
        "| a | b |",
        "|---|:-:|",
        "| 1 | 2 |",
        "***",
        "Plain sentence one. Two!",
        "中文句子。第二句！",
        "\t tab line",
        "x\r",
        "* star item",
        "3) paren item",
        "<!-- comment",
        "-->",
        "<style>",
        "</STYLE>",
        "<pre class=x>",
        "<?php",
        "?>",
        "<!DOCTYPE html>",
        "<![CDATA[",
        "]]>",
        "<div>",
    ]
)
_DOCS = st.lists(
    st.one_of(_LINES, st.text(st.characters(exclude_categories=("Cs",)), max_size=30)),
    max_size=40,
).map("\n".join)


@pytest.mark.single_backend
@given(
    text=_DOCS,
    size=st.integers(1, 120),
    overlap=st.integers(0, 30),
    strip=st.booleans(),
    levels=st.sets(st.integers(1, 6)),
    merge=st.booleans(),
)
def test_backends_agree_chars(
    text: str, size: int, overlap: int, strip: bool, levels: set[int], merge: bool
) -> None:
    core = dispatch._import_core()
    lv = sorted(levels)
    overlap = min(overlap, size - 1)
    got = core.MarkdownSplitter(size, overlap, lv, strip, "chars", merge_sections=merge).split(text)
    want = pure.split_markdown(text, size, overlap, lv, strip, len, merge)
    assert tuple(map(list, got)) == want
    if not strip:
        _check_invariants(text, section_chunks(text, *want), size, len)


@pytest.mark.single_backend
@given(text=_DOCS, size=st.integers(1, 60), merge=st.booleans())
def test_backends_agree_tokens(text: str, size: int, merge: bool, cl100k_count: object) -> None:
    core = dispatch._import_core()
    got = core.MarkdownSplitter(
        size, 0, [1, 2, 3], False, "tokens", "cl100k_base", merge_sections=merge
    ).split(text)
    want = pure.split_markdown(text, size, 0, [1, 2, 3], False, cl100k_count, merge)  # type: ignore[arg-type]
    assert tuple(map(list, got)) == want


@pytest.mark.single_backend
@pytest.mark.parametrize("name,text", CORPUS, ids=[n for n, _ in CORPUS])
@pytest.mark.parametrize("merge", [False, True])
def test_backends_agree_on_corpus(name: str, text: str, merge: bool) -> None:
    splitter = MarkdownSplitter(256, chunk_overlap=32, merge_sections=merge)
    dispatch.set_backend("rust")
    rust = splitter.split(text)
    dispatch.set_backend("python")
    assert splitter.split(text) == rust


def _heading_paths(text: str, levels: set[int]) -> list[tuple[int, list[str]]]:
    """Start and heading path of every heading of a split level, as the packer sees them."""
    stack: list[tuple[int, str]] = []
    out = []
    for blk in pure.scan_blocks(text):
        if blk.kind == "heading" and blk.level in levels:
            while stack and stack[-1][0] >= blk.level:
                stack.pop()
            stack.append((blk.level, blk.text))
            out.append((blk.start, [t for _, t in stack]))
    return out


# Heading-heavy documents, where sections are small and often merge (same titles included).
_TREES = st.lists(
    st.sampled_from(["# H1", "## H2", "### H3", "#### H4", "## B", "text", "more words", ""]),
    max_size=30,
).map("\n".join)


@given(
    text=st.one_of(_TREES, _DOCS),
    size=st.integers(1, 120),
    strip=st.booleans(),
    levels=st.sets(st.integers(1, 4), min_size=1),
)
def test_merging_never_crosses_a_higher_heading(
    text: str, size: int, strip: bool, levels: set[int]
) -> None:
    lv = tuple("#" * n for n in sorted(levels))
    splitter = MarkdownSplitter(
        size, length="chars", headers_to_split_on=lv, strip_headers=strip, merge_sections=True
    )
    chunks = splitter.split(text)
    headings = _heading_paths(text, levels)
    for c in chunks:
        assert c.token_count <= size or c.end - c.start == 1
        head = c.metadata["headers"]
        inner = [p for at, p in headings if c.start < at < c.end]
        if "sections" not in c.metadata:
            assert not inner  # one section: no section heading inside
            continue
        members = c.metadata["sections"]
        assert len(members) >= 2
        d = len(members[0])
        # The first section is the shallowest; the path is its own when all the others are
        # below it, else its parent's (siblings): never above that parent.
        assert all(len(m) >= d for m in members)
        siblings = any(len(m) == d for m in members[1:])
        assert head == (members[0][: d - 1] if siblings else members[0])
        n = len(head)
        assert all(m[:n] == head for m in members)
        for p in inner:  # every heading inside is one of its sections, below its path
            assert p in members and len(p) > n and p[:n] == head


def _pure_blocks(text: str) -> list[tuple[int, int, int, str]]:
    """What ``_core.markdown_blocks`` gives, from the fallback's scanner."""
    return [
        (b.start, b.end, b.level, b.text) if b.kind == "heading" else (b.start, b.end, 0, "")
        for b in pure.scan_blocks(text)
    ]


@pytest.mark.single_backend
@given(text=_DOCS)
def test_backends_agree_on_blocks(text: str) -> None:
    core = dispatch._import_core()
    assert core.markdown_blocks(text) == _pure_blocks(text)


@pytest.mark.single_backend
def test_backends_agree_on_corpus_blocks() -> None:
    core = dispatch._import_core()
    for name, text in corpus_documents():
        assert core.markdown_blocks(text) == _pure_blocks(text), name


@pytest.mark.single_backend
def test_docstrings() -> None:
    results = [
        doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        for module in (html, json, markdown, title_tree)
    ]
    result = doctest.TestResults(sum(r.failed for r in results), sum(r.attempted for r in results))
    assert result.failed == 0
    assert result.attempted > 0


@pytest.mark.parametrize("size", [8, 64])
@pytest.mark.parametrize("length", ["tokens", "chars"])
def test_invariants(size: int, length: str) -> None:
    splitter = MarkdownSplitter(chunk_size=size, chunk_overlap=size // 4, length=length)
    for text in sample_texts():
        # A repeated table header (added_prefix) counts in the chunk's size; a single
        # character over budget is a chunk of its own.
        check_chunks(
            text, splitter.split(text), budget=size, overflow_ok=lambda c: c.end - c.start == 1
        )


def test_a_leading_byte_order_mark_does_not_hide_the_first_heading() -> None:
    md = "\ufeff# Guide\n\nIntro.\n\n## Install\n\nRun it."
    chunks = MarkdownSplitter(64, length="chars", merge_sections=False).split(md)
    assert [c.metadata["headers"] for c in chunks] == [["Guide"], ["Guide", "Install"]]
    assert chunks[0].text == "\ufeff# Guide\n\nIntro." and chunks[0].start == 0
    fenced = MarkdownSplitter(64, length="chars", merge_sections=False).split(
        "\ufeff```\n# not a heading\n```\n"
    )
    assert [c.metadata["headers"] for c in fenced] == [[]]
