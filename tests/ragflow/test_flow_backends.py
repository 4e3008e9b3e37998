"""The pipeline components' kernels and outputs agree between the Rust core and the
pure-Python fallback on random inputs; the beyond-RAGFlow options do what they document."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pytest
import ragchunk
from hypothesis import given, settings
from hypothesis import strategies as st
from ragchunk._pure.ragflow import flow as pure
from ragchunk.core import dispatch
from ragchunk.ragflow.pipeline import (
    TitleChunker,
    TokenChunker,
    title_chunker_batch,
    token_chunker,
    token_chunker_batch,
)

T = TypeVar("T")

ALPHABET = "ab xyz\n\r\t。；！？.#@`-中文字😀\u200d<|endoftext|>"
texts = st.text(alphabet=ALPHABET, max_size=80)
tokens = st.lists(st.text(alphabet="\n.#`a。 ", min_size=1, max_size=3), max_size=3)
TAG = "@@2\t1.0\t9.0\t3.0\t7.0##"


@contextmanager
def _backend(name: str) -> Iterator[None]:
    before = dispatch.name()
    dispatch.set_backend(name)
    try:
        yield
    finally:
        dispatch.set_backend(before)


def _both(f: Callable[[], T]) -> tuple[T, T]:
    with _backend("rust"):
        r = f()
    with _backend("python"):
        p = f()
    return r, p


def _outcome(f: Callable[[], Any]) -> Any:
    try:
        return ("ok", f())
    except Exception as e:
        return ("raises", type(e).__name__, str(e))


needs_core = pytest.mark.skipif(not hasattr(ragchunk, "_core"), reason="compiled core missing")


@pytest.mark.single_backend
@settings(max_examples=150, deadline=None)
@given(text=texts, toks=tokens)
def test_split_on_tokens_agrees(text: str, toks: list[str]) -> None:
    ordered = sorted(set(toks), key=len, reverse=True)
    r, p = _both(lambda: ragchunk.ragflow.pipeline._kernels.split_on_tokens(text, ordered))
    assert r == p
    for seg, a, b in p:
        assert seg and text[a:b] == seg


@pytest.mark.single_backend
@settings(max_examples=150, deadline=None)
@given(text=texts, need=st.integers(0, 30), from_end=st.booleans())
def test_take_sentences_agrees(text: str, need: int, from_end: bool) -> None:
    r, p = _both(lambda: ragchunk.ragflow.pipeline._kernels.take_sentences(text, need, from_end))
    assert r == p
    assert text.endswith(p) if from_end else text.startswith(p)


@pytest.mark.single_backend
@settings(max_examples=150, deadline=None)
@given(
    items=st.lists(st.tuples(texts.filter(str.strip), st.sampled_from(["", TAG])), max_size=8),
    size=st.integers(1, 40),
    percent=st.integers(0, 90),
)
def test_merge_run_agrees(items: list[tuple[str, str]], size: int, percent: int) -> None:
    raw = [t + tag for t, tag in items]
    counts = [pure.count(t) for t in raw]
    r, p = _both(lambda: ragchunk.ragflow.pipeline._kernels.merge_run(raw, counts, size, percent))
    assert r == p
    if percent == 0:
        assert "\n".join(t for t, _ in p) == "\n".join(raw)


@pytest.mark.single_backend
@settings(max_examples=100, deadline=None)
@given(text=texts, cap=st.integers(1, 12))
def test_cap_split_agrees(text: str, cap: int) -> None:
    r, p = _both(lambda: ragchunk.ragflow.pipeline._kernels.cap_split(text, cap))
    assert r == p
    assert "".join(p) == text


sentences = st.lists(
    st.tuples(
        st.text(alphabet="ab xyz中文字😀'\n\t1", min_size=1, max_size=30),
        st.sampled_from(["。", ". ", "！", "？", "\n", ";"]),
    ).map("".join),
    min_size=2,
    max_size=40,
).map("".join)


@pytest.mark.single_backend
@settings(max_examples=100, deadline=None)
@given(text=sentences, cap=st.integers(4, 80))
def test_cap_split_agrees_on_many_sentences(text: str, cap: int) -> None:
    """Long texts of many sentences: the Rust re-split counts candidates incrementally."""
    r, p = _both(lambda: ragchunk.ragflow.pipeline._kernels.cap_split(text, cap))
    assert r == p
    assert "".join(p) == text
    assert all(pure.count(piece) <= cap for piece in p if len(piece) > 1)


@pytest.mark.single_backend
@given(batch=st.lists(texts, max_size=8))
@settings(max_examples=60, deadline=None)
def test_count_many_is_count_of_each(batch: list[str]) -> None:
    kernels = ragchunk.ragflow.pipeline._kernels
    r, p = _both(lambda: kernels.count_many(batch))
    assert r == p == [kernels.count(t) for t in batch]


def test_children_get_position_lists_of_their_own() -> None:
    """Children of one chunk carry equal position fields, but not shared lists."""
    item = {"page_number": 1, "x0": 1, "x1": 9, "top": 2, "bottom": 4}
    upstream = {
        "name": "a.pdf",
        "output_format": "json",
        "json": [{"text": "One.\nTwo.\nThree.", **item}],
    }
    chunks = TokenChunker({"children_delimiters": ["\n"]}).invoke(upstream)["chunks"]
    assert [c["text"] for c in chunks] == ["One.", "Two.", "Three."]
    assert all(c["position_int"] == [(1, 1, 9, 2, 4)] for c in chunks)
    chunks[0]["position_int"].append((9, 9, 9, 9, 9))
    chunks[0]["page_num_int"].clear()
    assert chunks[1]["position_int"] == [(1, 1, 9, 2, 4)]
    assert chunks[2]["page_num_int"] == [1]


def _items(draw_texts: list[str], kinds: list[str]) -> list[dict[str, Any]]:
    out = []
    for i, (t, k) in enumerate(zip(draw_texts, kinds, strict=False)):
        item: dict[str, Any] = {"text": t, "doc_type_kwd": k}
        if i % 2:
            item["position_tag"] = TAG
        else:
            item.update(page_number=i, x0=1, x1=5.5, top=i, bottom=i + 2)
        if k == "image":
            item["img_id"] = f"img{i}"
        out.append(item)
    return out


@pytest.mark.single_backend
@settings(max_examples=120, deadline=None)
@given(
    body=st.lists(texts, max_size=6),
    kinds=st.lists(st.sampled_from(["text", "text", "table", "image"]), min_size=6, max_size=6),
    delimiters=st.sampled_from([["\n"], ["`。`"], ["`\n`", "`. `"], [], ["`#`"]]),
    children=st.sampled_from([[], ["\n"], ["。", "."]]),
    size=st.integers(1, 64),
    overlap=st.sampled_from([0, 0.1, 0.5, 0.9, 1]),
    context=st.sampled_from([0, 4, 32]),
    fmt=st.sampled_from(["json", "chunks", "text", "markdown"]),
)
def test_token_chunker_agrees(
    body: list[str],
    kinds: list[str],
    delimiters: list[str],
    children: list[str],
    size: int,
    overlap: float,
    context: int,
    fmt: str,
) -> None:
    params = {
        "chunk_token_size": size,
        "delimiters": delimiters,
        "children_delimiters": children,
        "overlapped_percent": overlap,
        "table_context_size": context,
        "image_context_size": context,
    }
    if fmt in ("json", "chunks"):
        upstream: dict[str, Any] = {"name": "a.pdf", "output_format": fmt, fmt: _items(body, kinds)}
    else:
        upstream = {"name": "a.md", "output_format": fmt, fmt: "\n".join(body)}
    r, p = _both(lambda: _outcome(lambda: token_chunker(params, upstream)))
    assert r == p


@pytest.mark.single_backend
@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(
        st.one_of(texts, st.sampled_from(["# A", "## B", "### C", "1. One", "1.1 Sub", "第一章"])),
        max_size=10,
    ),
    method=st.sampled_from(["hierarchy", "group"]),
    hierarchy=st.integers(1, 4),
    cap=st.sampled_from([0, 128]),
    heading=st.booleans(),
    root=st.booleans(),
)
def test_title_chunker_agrees(
    lines: list[str], method: str, hierarchy: int, cap: int, heading: bool, root: bool
) -> None:
    params = {
        "method": method,
        "levels": [["^#[^#]", "^##[^#]", "^###[^#]"], ["[0-9]{1,2}[\\. 、]", "第[一二三]+章"]],
        "hierarchy": hierarchy,
        "chunk_token_cap": cap,
        "include_heading_content": heading,
        "root_chunk_as_heading": root,
    }
    upstream = {"name": "a.md", "output_format": "markdown", "markdown": "\n".join(lines * 20)}
    r, p = _both(lambda: _outcome(lambda: TitleChunker(params).invoke(upstream)))
    assert r == p


def test_batch_matches_single_calls() -> None:
    ups = [
        {"name": f"{i}.txt", "output_format": "text", "text": "One. Two.\nThree " * i}
        for i in range(6)
    ]
    params = {"chunk_token_size": 8}
    assert token_chunker_batch(params, ups, workers=3) == [token_chunker(params, u) for u in ups]
    tparams = {"method": "group", "levels": [["^#"]]}
    md = [{"name": "a.md", "output_format": "markdown", "markdown": "# A\nx\n# B\ny"}] * 3
    assert title_chunker_batch(tparams, md, workers=2) == [
        TitleChunker(tparams).invoke(u) for u in md
    ]
    with pytest.raises(ValueError, match="workers"):
        token_chunker_batch(params, ups, workers=0)


def test_params_errors_name_the_parameter() -> None:
    with pytest.raises(ValueError, match="Chunk token size"):
        TokenChunker({"chunk_token_size": 0})
    with pytest.raises(ValueError, match="Overlapped percentage"):
        TokenChunker({"overlapped_percent": 10})
    with pytest.raises(AttributeError, match="method"):
        TitleChunker({"levels": [["^#"]]})
    with pytest.raises(TypeError, match="params"):
        TokenChunker(["chunk_token_size"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_tokens"):
        TokenChunker({}, max_tokens=0)


LONG = "第一句很长。" * 40 + "Second sentence here. " * 30


def test_max_tokens_is_a_hard_cap() -> None:
    up = {"name": "a.txt", "output_format": "text", "text": LONG}
    exact = TokenChunker({"chunk_token_size": 512}).invoke(up)["chunks"]
    capped = TokenChunker({"chunk_token_size": 512}, max_tokens=40).invoke(up)["chunks"]
    assert len(exact) == 1 and ragchunk.num_tokens_from_string(exact[0]["text"]) > 40
    assert len(capped) > 1
    assert all(ragchunk.num_tokens_from_string(c["text"]) <= 40 for c in capped)
    assert "".join(c["text"] for c in capped) == exact[0]["text"]
    items = [{"text": LONG, "page_number": 1, "x0": 0, "x1": 1, "top": 2, "bottom": 3}]
    json_up = {"name": "a.pdf", "output_format": "json", "json": items}
    capped_json = TokenChunker({}, max_tokens=40).invoke(json_up)["chunks"]
    assert all(ragchunk.num_tokens_from_string(c["text"]) <= 40 for c in capped_json)
    assert "position_int" in capped_json[0] and "position_int" not in capped_json[1]


def test_offsets_point_into_the_upstream_text() -> None:
    text = "Alpha beta.\n\n  Gamma delta.\r\nEpsilon. Zeta eta theta."
    up = {"name": "a.txt", "output_format": "text", "text": text}
    split = TokenChunker({"delimiters": ["`\n`"]}, offsets=True).invoke(up)["chunks"]
    assert [text[c["start"] : c["end"]] for c in split] == [c["text"] for c in split]
    merged = TokenChunker({"chunk_token_size": 4}, offsets=True).invoke(up)["chunks"]
    assert len(merged) > 1
    for c in merged:
        span = text[c["start"] : c["end"]]
        assert all(piece.strip() in span for piece in c["text"].split("\n"))
    kids = TokenChunker({"children_delimiters": ["."]}, offsets=True).invoke(up)["chunks"]
    assert kids and all(text[c["start"] : c["end"]] == c["text"].strip() for c in kids)
    capped = TokenChunker({"delimiters": ["`\n`"]}, offsets=True, max_tokens=2).invoke(up)
    assert all(text[c["start"] : c["end"]] == c["text"] for c in capped["chunks"])
    assert "start" not in TokenChunker({"chunk_token_size": 4}).invoke(up)["chunks"][0]


def test_single_page_normalisation() -> None:
    item = {"text": "x", "_pdf_positions": [[-2, 1, 2, 3, 4]]}
    up = {"name": "a.pdf", "output_format": "json", "json": [item]}
    exact = TokenChunker({}).invoke(up)["chunks"][0]
    single = TokenChunker({}, single_page_normalisation=True).invoke(up)["chunks"][0]
    assert exact["page_num_int"] == [0]
    assert single["page_num_int"] == [-1]
    t_exact = TitleChunker({"method": "group", "levels": [["^#"]]}).invoke(up)["chunks"][0]
    t_single = TitleChunker(
        {"method": "group", "levels": [["^#"]]}, single_page_normalisation=True
    ).invoke(up)["chunks"][0]
    assert t_exact["page_num_int"] == [1]
    assert t_single["page_num_int"] == [0]


@pytest.mark.single_backend
@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(st.text(alphabet="#第一章1. 2Aab(（)）", max_size=8), max_size=12),
    family=st.lists(
        st.sampled_from(
            ["^#[^#]", "", "第[一二]+章", "[0-9]{1,2}[\\. 、]", "(a)\\1", "(?i)A", "a"]
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_family_hits_match_pattern_by_pattern(lines: list[str], family: list[str]) -> None:
    import re

    from ragchunk.ragflow.pipeline.title_chunker import _family_hits

    def one_by_one() -> int:
        return sum(1 for s in lines if any(re.match(p, s) for p in family))

    assert _outcome(lambda: _family_hits(family, lines)) == _outcome(one_by_one)


@pytest.mark.parametrize("tokens", [[], ["`|`"]])
def test_json_children_drop_a_piece_that_is_only_a_position_tag(tokens: list[str]) -> None:
    """A JSON chunk that starts with a position tag followed by a children delimiter gives no
    empty child (RAGFlow drops a piece that is blank once its tags are removed)."""
    tag = "@@1\t10.0\t20.0\t30.0\t40.0##"
    item = {"page_number": 1, "x0": 1, "x1": 9, "top": 2, "bottom": 4}
    upstream = {
        "name": "a.pdf",
        "output_format": "json",
        "json": [
            {"text": f"{tag}。Real text。{tag} 。More", **item},
            {"text": "Second item。", **item},
        ],
    }
    params: dict[str, Any] = {"chunk_token_size": 128, "children_delimiters": ["。"]}
    if tokens:
        params["delimiters"] = tokens
    chunks = ragchunk.TokenChunker(params).invoke(upstream)["chunks"]
    texts = [c["text"] for c in chunks]
    assert all(t.strip() for t in texts), texts
    assert [t.strip() for t in texts] == ["Real text", "More", "Second item"] or [
        t.strip() for t in texts
    ] == ["Real text", "More\nSecond item"]
    assert all(c["mom"].startswith(tag) for c in chunks[:2])
