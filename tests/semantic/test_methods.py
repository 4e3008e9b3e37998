"""ClusterSemanticChunker, the local-minima method, TopicChunker, and the plot."""

from __future__ import annotations

import numpy as np
import pytest
from invariants import check_chunks, ordinary_count
from ragchunk.semantic import ClusterSemanticChunker, SemanticChunker, TopicChunker

from .fakes import corpus_sample, hashed_counts
from .test_semantic_chunker import covers_everything

COUNT = ordinary_count()


def _topics(texts: list[str]) -> np.ndarray:
    return np.array(
        [[t.lower().count("cat") + 0.01, t.lower().count("stock") + 0.01] for t in texts]
    )


TWO_TOPICS = " ".join(["Cats purr softly."] * 4 + ["Stocks fell sharply."] * 4)


def test_cluster_groups_by_topic_and_holds_the_maximum() -> None:
    c = ClusterSemanticChunker(_topics, chunk_size=40, piece_size=6)
    chunks = c.split(TWO_TOPICS)
    covers_everything(TWO_TOPICS, chunks)
    assert [("Cats" in ch.text, "Stocks" in ch.text) for ch in chunks] == [
        (True, False),
        (False, True),
    ]


@pytest.mark.parametrize("size", [30, 80])
def test_cluster_on_corpus(size: int) -> None:
    docs = corpus_sample(limit=5000, every=60)
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found")
    c = ClusterSemanticChunker(hashed_counts, chunk_size=size, piece_size=min(size, 25))
    for _, text in docs:
        chunks = c.split(text)
        covers_everything(text, chunks)
        check_chunks(text, chunks, budget=size, count=COUNT)


def test_local_minima_method() -> None:
    s = SemanticChunker(_topics, "local_minima", buffer_size=0, chunk_size=200)
    a = s.analyze(TWO_TOPICS)
    assert [c.text.split()[0] for c in a.chunks] == ["Cats", "Stocks"]
    assert a.method == "local_minima"


def test_topic_chunker() -> None:
    text = "Cats purr. Cats meow. Cats nap. Stocks fell. Stocks rose. Stocks dipped."
    chunks = TopicChunker(n_topics=2).split(text)
    covers_everything(text, chunks)
    assert [c.text for c in chunks] == [
        "Cats purr. Cats meow. Cats nap. ",
        "Stocks fell. Stocks rose. Stocks dipped.",
    ]
    assert chunks[0].metadata["keywords"][0] == "cats"
    assert chunks[1].metadata["keywords"][0] == "stocks"
    assert chunks[0].metadata["topic"] != chunks[1].metadata["topic"]


def test_topic_chunker_budget_on_corpus() -> None:
    docs = corpus_sample(limit=4000, every=90)
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found")
    t = TopicChunker(chunk_size=100, iterations=5)
    for _, text in docs:
        chunks = t.split(text)
        covers_everything(text, chunks)
        check_chunks(text, chunks, budget=100, count=COUNT)
        assert TopicChunker(chunk_size=100, iterations=5).split(text) == chunks  # deterministic


@pytest.mark.single_backend
@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_plot_renders(tmp_path: object, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    a = SemanticChunker(_topics, buffer_size=0, breakpoint_threshold_amount=50).analyze(TWO_TOPICS)
    path = f"{tmp_path}/distances.{suffix}"
    fig = a.plot(path)
    from pathlib import Path

    data = Path(path).read_bytes()
    assert data.startswith(b"\x89PNG") if suffix == "png" else b"<svg" in data
    ax = fig.axes[0]
    assert len(ax.lines) >= 2 + len(a.breakpoints)  # curve, threshold, a line per breakpoint
    assert list(ax.lines[0].get_ydata()) == a.distances
