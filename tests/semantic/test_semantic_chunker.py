"""SemanticChunker in ragchunk's own mode: exact spans covering the whole text, hard maximum,
min size, metadata, diagnostics, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from invariants import check_chunks, ordinary_count
from ragchunk.embeddings import as_embedder
from ragchunk.semantic import BREAKPOINT_DEFAULTS, SemanticChunker

from .fakes import corpus_sample, hashed_counts

COUNT = ordinary_count()
KINDS = list(BREAKPOINT_DEFAULTS)


def covers_everything(text: str, chunks: list) -> None:
    """Every character of ``text`` lies in exactly one chunk: chunks tile the text."""
    at = 0
    for c in chunks:
        assert c.start == at, (c.start, at)
        assert c.text == text[c.start : c.end]
        at = c.end
    assert at == len(text)


@pytest.mark.parametrize("kind", KINDS)
def test_corpus_spans_budget_and_counts(kind: str) -> None:
    docs = corpus_sample(limit=8000, every=25)
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found")
    s = SemanticChunker(hashed_counts, kind, chunk_size=120, min_chunk_size=10)
    for name, text in docs:
        chunks = s.split(text)
        covers_everything(text, chunks)
        check_chunks(text, chunks, budget=120, count=COUNT)
        assert all(c.token_count <= 120 for c in chunks), name


_TEXT = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "Cats purr. ",
                "Stocks fell! ",
                "中文句子。",
                "🦀 crab? ",
                "\n\n",
                "  ",
                "x" * 50 + ". ",
            ]
        ),
        st.text(alphabet=st.characters(codec="utf-8"), max_size=30),
    ),
    max_size=25,
).map("".join)


@given(text=_TEXT, size=st.integers(1, 40), kind=st.sampled_from(KINDS), buffer=st.integers(0, 2))
def test_no_text_lost_on_random_text(text: str, size: int, kind: str, buffer: int) -> None:
    s = SemanticChunker(hashed_counts, kind, buffer_size=buffer, chunk_size=size)
    chunks = s.split(text)
    covers_everything(text, chunks)
    for c in chunks:
        assert c.token_count == COUNT(c.text)
        # the one documented overflow: one unit that fits alone, not with its whitespace
        units = c.metadata["sentences"]
        if units is None:  # a text of only whitespace: one chunk
            assert len(chunks) == 1 and not text.strip()
            continue
        single = units[0] == units[1]
        # (or a single character worth more than chunk_size, as for every sentence cutter)
        core = c.text.strip()
        assert c.token_count <= size or (single and (COUNT(core) <= size or len(core) == 1))


def test_cuts_at_the_topic_change_and_reports_distances() -> None:
    text = "Cats purr. Cats nap. Cats meow. Stocks fell. Stocks rose. Stocks dipped."

    def topic(texts: list[str]) -> np.ndarray:
        return np.array([[t.count("Cats") + 0.1, t.count("Stocks") + 0.1] for t in texts])

    s = SemanticChunker(topic, breakpoint_threshold_amount=50, buffer_size=0)
    a = s.analyze(text)
    assert [c.text for c in a.chunks] == [
        "Cats purr. Cats nap. Cats meow. ",
        "Stocks fell. Stocks rose. Stocks dipped.",
    ]
    assert len(a.distances) == 5 and a.breakpoints == [2]
    assert a.chunks[0].metadata["distance_after"] == pytest.approx(a.distances[2])
    assert a.chunks[0].metadata["cut"] == "threshold" and a.chunks[1].metadata["cut"] == "end"
    assert a.threshold == pytest.approx(float(np.percentile(a.distances, 50)))


def test_hard_maximum_cuts_at_the_largest_internal_distance() -> None:
    text = "Aa one. Aa two. Bb one. Bb two. Cc one. Cc two."

    def fn(texts: list[str]) -> np.ndarray:
        return (
            np.array([[t.count("Aa"), t.count("Bb"), t.count("Cc")] for t in texts], dtype=float)
            + 0.01
        )

    # a threshold nothing passes, so only the maximum cuts
    s = SemanticChunker(fn, "percentile", 100, buffer_size=0, chunk_size=10)
    chunks = s.split(text)
    assert all(c.token_count <= 10 for c in chunks)
    assert [c.text.split(".")[0][:2] for c in chunks] == ["Aa", "Bb", "Cc"]
    assert {c.metadata["cut"] for c in chunks[:-1]} == {"max_size"}


def test_min_chunk_size_merges_small_groups() -> None:
    text = "Aa. Bb one two three four. Bb five six seven eight."

    def fn(texts: list[str]) -> np.ndarray:
        return np.array([[t.count("Aa"), t.count("Bb")] for t in texts], dtype=float) + 0.01

    plain = SemanticChunker(fn, "percentile", 0, buffer_size=0).split(text)
    merged = SemanticChunker(fn, "percentile", 0, buffer_size=0, min_chunk_size=5).split(text)
    assert [c.text for c in plain] == ["Aa. ", text[4:]]
    assert plain[0].token_count < 5
    assert [c.text for c in merged] == [text]


def test_window_guard_splits_long_sentences_before_embedding() -> None:
    seen: list[str] = []

    def fn(texts: list[str]) -> np.ndarray:
        seen.extend(texts)
        return hashed_counts(texts)

    e = as_embedder(fn, max_tokens=8)
    text = "This sentence is far longer than the tiny window of eight tokens allows. Short one."
    chunks = SemanticChunker(e).split(text)
    covers_everything(text, chunks)
    assert seen and all(COUNT(t) <= 8 for t in seen)


def test_identical_sentences_zero_distances() -> None:
    text = "Same. Same. Same. Same."
    a = SemanticChunker(hashed_counts).analyze(text)
    assert a.distances == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)
    assert [c.text for c in a.chunks] == [text]


@pytest.mark.parametrize("text", ["", "   ", "One.", "One. Two."])
@pytest.mark.parametrize("kind", KINDS)
def test_tiny_inputs(text: str, kind: str) -> None:
    chunks = SemanticChunker(hashed_counts, kind).split(text)
    if text:
        covers_everything(text, chunks)
    else:
        assert chunks == []


def test_split_batch_matches_split() -> None:
    texts = ["Cats purr. Stocks fell.", "", "中文句子。更多中文。English here."]
    s = SemanticChunker(hashed_counts, chunk_size=20)
    assert s.split_batch(texts) == [s.split(t) for t in texts]


@pytest.mark.parametrize(
    ("kw", "err", "match"),
    [
        ({"breakpoint_threshold_type": "median"}, ValueError, "breakpoint_threshold_type"),
        ({"breakpoint_threshold_amount": 150}, ValueError, "breakpoint_threshold_amount"),
        ({"breakpoint_threshold_amount": float("nan")}, ValueError, "breakpoint_threshold_amount"),
        ({"breakpoint_threshold_amount": "95"}, TypeError, "breakpoint_threshold_amount"),
        ({"buffer_size": -1}, ValueError, "buffer_size"),
        ({"number_of_chunks": 0}, ValueError, "number_of_chunks"),
        ({"min_chunk_size": 1.5}, TypeError, "min_chunk_size"),
        ({"chunk_size": 0}, ValueError, "chunk_size"),
    ],
)
def test_bad_arguments(kw: dict, err: type, match: str) -> None:
    with pytest.raises(err, match=match):
        SemanticChunker(hashed_counts, **kw)


@pytest.mark.parametrize(
    ("fn", "err", "match"),
    [
        (lambda texts: np.zeros((len(texts), 3), dtype=np.int64), TypeError, "floats"),
        (lambda texts: np.ones((max(0, len(texts) - 1), 3)), ValueError, "rows"),
        (lambda texts: np.ones(len(texts)), ValueError, "2-D"),
        (lambda texts: np.full((len(texts), 2), np.nan), ValueError, "NaN"),
        (lambda texts: np.full((len(texts), 2), np.inf), ValueError, "infinite"),
        (lambda texts: [["a", "b"]] * len(texts), TypeError, "floats"),
        (lambda texts: 1 / 0, ValueError, "ZeroDivisionError"),
    ],
)
def test_bad_embedders(fn: object, err: type, match: str) -> None:
    with pytest.raises(err, match=match):
        SemanticChunker(fn).split("One cat. Two dogs. Three birds.")


def test_text_must_be_str() -> None:
    with pytest.raises(TypeError, match="text"):
        SemanticChunker(hashed_counts).split(b"bytes")  # type: ignore[arg-type]
