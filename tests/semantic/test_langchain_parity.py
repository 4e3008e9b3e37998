"""LangChain parity: ``SemanticChunker(langchain_compat=True)`` gives
``langchain_experimental.text_splitter.SemanticChunker``'s chunks, chunk for chunk, given the
same embeddings (hashed word counts, exact in float32), on the corpus and on edge cases, for
every threshold type, buffer size, ``number_of_chunks`` and ``min_chunk_size``."""

from __future__ import annotations

import pytest
from ragchunk.semantic import SemanticChunker

from .fakes import corpus_sample, hashed_counts, langchain_embeddings

lc = pytest.importorskip("langchain_experimental.text_splitter")

TYPES = ["percentile", "standard_deviation", "interquartile", "gradient"]

EDGE = [
    "",
    "One sentence only",
    "Two sentences. Here they are.",
    "Same. Same. Same. Same.",
    "A cat sat! The cat slept? Stocks fell.  Stocks rose.\n\nThe market closed. Cats again.",
    "  Leading space. Trailing space.  ",
    "Ünïcödé wörds. 中文句子。 More English! 🦀 crabs? Yes.",
]


def ours(kind: str, **kw: object) -> SemanticChunker:
    return SemanticChunker(
        lambda texts: hashed_counts(texts),
        breakpoint_threshold_type=kind,
        langchain_compat=True,
        **kw,
    )


def theirs(kind: str, **kw: object) -> object:
    return lc.SemanticChunker(langchain_embeddings(), breakpoint_threshold_type=kind, **kw)


@pytest.mark.parametrize("kind", TYPES)
def test_corpus_parity(kind: str) -> None:
    docs = corpus_sample(limit=12000, every=6)
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found; parity not checked")
    a, b = ours(kind), theirs(kind)
    for name, text in docs:
        assert a.split_text(text) == b.split_text(text), name


@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize(
    "kw",
    [
        {"buffer_size": 0},
        {"buffer_size": 2},
        {"number_of_chunks": 3},
        {"number_of_chunks": 1},
        {"min_chunk_size": 300},
        {"breakpoint_threshold_amount": 60},
    ],
)
def test_options_parity(kind: str, kw: dict[str, object]) -> None:
    docs = corpus_sample(limit=6000, every=40) or (("edge", EDGE[4] * 5),)
    if kind == "gradient" and "breakpoint_threshold_amount" in kw:
        kw = {"breakpoint_threshold_amount": 30}
    a, b = ours(kind, **kw), theirs(kind, **kw)
    for name, text in docs:
        assert a.split_text(text) == b.split_text(text), name


@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize("text", EDGE)
def test_edge_parity(kind: str, text: str) -> None:
    assert ours(kind).split_text(text) == theirs(kind).split_text(text)


def test_chunks_carry_source_extents() -> None:
    text = EDGE[4]
    chunks = ours("percentile", breakpoint_threshold_amount=40).split(text)
    assert [c.text for c in chunks] == theirs(
        "percentile", breakpoint_threshold_amount=40
    ).split_text(text)
    for c in chunks:
        assert c.metadata["rejoined"] is True
        # the chunk's words are the source span's words (LangChain joins with one space)
        assert c.text.split() == text[c.start : c.end].split()


def test_compat_refuses_a_maximum() -> None:
    with pytest.raises(ValueError, match="chunk_size"):
        SemanticChunker(hashed_counts, langchain_compat=True, chunk_size=100)
    with pytest.raises(ValueError, match="breakpoint_threshold_type"):
        SemanticChunker(hashed_counts, "local_minima", langchain_compat=True)


class _Stateful:
    """A LangChain ``Embeddings`` whose vectors depend on the call, as a mock with per-call
    state or a hosted API's batching can: each text's vector mixes in its position within
    the call, and every call is recorded."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        rows = hashed_counts(texts).tolist()
        for i, row in enumerate(rows):
            row[0] += float(i % 3)  # small integers: exact in float32 and float64 alike
        return rows

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


@pytest.mark.parametrize("kind", TYPES)
def test_embedder_called_as_langchain_calls_it(kind: str) -> None:
    text = "Same. Same. A cat sat. The cat slept. Same. Stocks fell. Stocks rose. Same."
    mine, yours = _Stateful(), _Stateful()
    a = SemanticChunker(mine, breakpoint_threshold_type=kind, langchain_compat=True)
    b = lc.SemanticChunker(yours, breakpoint_threshold_type=kind)
    assert a.split_text(text) == b.split_text(text)
    assert mine.calls == yours.calls
    assert len(mine.calls) == 1
