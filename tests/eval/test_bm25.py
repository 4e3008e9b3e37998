"""BM25 equals rank_bm25's BM25Okapi on the same tokens, on both backends."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ragchunk import RecursiveSplitter
from ragchunk.eval import BM25, Dataset, tokenize
from ragchunk.eval.sweep import chunk_corpora

rank_bm25 = pytest.importorskip("rank_bm25")


def _oracle_top(scores: list[float], k: int) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]


def test_scores_equal_rank_bm25_on_the_shipped_dataset(chroma: Dataset) -> None:
    chunks = chunk_corpora(chroma, RecursiveSplitter(chunk_size=200, chunk_overlap=0))
    docs = [tokenize(c.text) for _, c in chunks]
    oracle = rank_bm25.BM25Okapi(docs)
    index = BM25().index([c.text for _, c in chunks])
    queries = [q.text for q in chroma.questions]
    hits = index.search(queries, 10)
    for q, h in zip(queries, hits, strict=True):
        expected = [float(x) for x in oracle.get_scores(tokenize(q))]
        assert index.scores(tokenize(q)) == expected  # bit for bit
        assert [i for i, _ in h] == _oracle_top(expected, 10)
        assert [s for _, s in h] == [expected[i] for i, _ in h]


words = st.sampled_from(["a", "b", "c", "d", "e", "f", "g"])


@given(
    docs=st.lists(st.lists(words, max_size=8), min_size=1, max_size=12),
    query=st.lists(words, max_size=5),
    k1=st.sampled_from([0.5, 0.9, 1.5, 2.0]),
    b=st.sampled_from([0.0, 0.5, 0.75, 1.0]),
    epsilon=st.sampled_from([0.0, 0.25, 1.0]),
)
def test_random_corpora_equal_rank_bm25(
    docs: list[list[str]], query: list[str], k1: float, b: float, epsilon: float
) -> None:
    if sum(map(len, docs)) == 0:
        return  # rank_bm25 divides by a zero average length
    oracle = rank_bm25.BM25Okapi(docs, k1=k1, b=b, epsilon=epsilon)
    index = BM25(k1=k1, b=b, epsilon=epsilon).index_tokens(docs)
    with np.errstate(invalid="ignore"):
        expected = [float(x) for x in oracle.get_scores(query)]
    # rank_bm25 computes 0 / 0 (NaN) for an empty document when b = 1; that document holds no
    # query token, and ragchunk scores it 0.
    expected = [0.0 if math.isnan(x) else x for x in expected]
    assert index.scores(query) == expected
    for word in "abcdefg":
        if word in oracle.idf:
            assert index._impl().idf(word) == oracle.idf[word]


def test_tokenizers() -> None:
    assert tokenize("The U.S. economy, in 2024!") == ["u", "s", "economy", "2024"]
    assert tokenize("Ärger über Öl") == ["ärger", "über", "öl"]
    assert tokenize("北京大学の学生 students", "cjk") == [
        "北",
        "京",
        "大",
        "学",
        "の",
        "学",
        "生",
        "students",
    ]
    assert tokenize("The cat", "whitespace") == ["The", "cat"]
    assert tokenize("a—b“c”d。e，f") == ["b", "c", "d", "e", "f"]


@given(st.text(max_size=60))
def test_tokenizers_agree_across_backends(text: str) -> None:
    from ragchunk._pure.eval.tokenize import tokenize as pure

    for kind in ("english", "cjk", "whitespace"):
        try:
            got = tokenize(text, kind)
        except UnicodeEncodeError:  # pragma: no cover - lone surrogates fall back
            continue
        assert got == pure(text, kind)


# Word-like pieces: short and long ASCII words in any case (some of them stop words), digits,
# accented and CJK letters, and ASCII and Unicode separators; long texts cross the 64-byte
# blocks the Rust tokenizer scans by.
pieces = st.sampled_from(
    [
        "The",
        "of",
        "WHICH",
        "a",
        "x",
        "Chroma",
        "12345678",
        "abcdefgh",
        "ABCDEFGHIJK",
        "q9",
        "embeddings",
        "café",
        "Ärger",
        "東京",
        "ΣΑΣ",
        " ",
        "  ",
        "\n",
        ".",
        "'",
        "-",
        "—",
        "，",
        "\xa0",
    ]
)
texts = st.lists(pieces, max_size=80).map("".join)


@given(texts)
def test_word_like_text_tokenizes_alike_on_both_backends(text: str) -> None:
    from ragchunk._pure.eval.tokenize import tokenize as pure

    for kind in ("english", "cjk", "whitespace"):
        assert tokenize(text, kind) == pure(text, kind)


@given(docs=st.lists(texts, min_size=1, max_size=8), queries=st.lists(texts, max_size=4))
def test_searching_texts_equals_searching_their_tokens(docs: list[str], queries: list[str]) -> None:
    by_text = BM25().index(docs).search(queries, 3)
    by_tokens = BM25().index_tokens([tokenize(d) for d in docs])
    assert by_text == by_tokens.search_tokens([tokenize(q) for q in queries], 3)


def test_callable_tokenizer_and_bad_arguments() -> None:
    index = BM25(tokenizer=str.split).index(["x y", "y z", "q"])
    assert [i for i, _ in index.search(["z"], 1)[0]] == [1]
    with pytest.raises(ValueError, match="tokenizer must be one of"):
        BM25(tokenizer="klingon")
    with pytest.raises(ValueError, match="b must be between 0 and 1"):
        BM25(b=2)
    with pytest.raises(ValueError, match="k must be >= 1, got 0"):
        BM25().index(["a"]).search(["a"], 0)
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str"):
        BM25().index(["a", 3])  # type: ignore[list-item]


def test_ties_rank_in_chunk_order_and_k_caps() -> None:
    index = BM25().index(["apple", "pear", "apple", "plum", "fig"])
    hits = index.search(["apple"], 10)[0]
    assert [i for i, _ in hits] == [0, 2, 1, 3, 4]
    assert hits[0][1] == hits[1][1] > 0


def test_stop_words_are_the_same_on_both_backends() -> None:
    from ragchunk._pure.eval.tokenize import STOP_WORDS

    text = " ".join(sorted(STOP_WORDS))
    assert tokenize(text) == []
    assert tokenize(text.upper() + " Kept") == ["kept"]
    assert len(tokenize(text, "cjk")) == len(STOP_WORDS)


def test_mixed_scripts_rank_as_rank_bm25_on_the_fallback_tokens() -> None:
    from ragchunk._pure.eval.tokenize import tokenize as pure

    texts = [
        "ΣΟΦΙΑ and the Kelvin sign \u212am in Straße",
        "東京タワーは Tall; 東京 is THE capital",
        "Ärger über Öl, ÄRGER again and again",
        "plain ascii words with UPPER and lower case",
        "a8b7c6d5e4f3g2h1 ABCDEFGHIJKLMNOP abcdefghijklmnop",
        "",
    ]
    queries = ["σοφια", "東京 tall", "ärger öl", "upper CASE", "abcdefghijklmnop km", "the"]
    for kind in ("english", "cjk", "whitespace"):
        docs = [pure(t, kind) for t in texts]
        oracle = rank_bm25.BM25Okapi(docs)
        hits = BM25(tokenizer=kind).index(texts).search(queries, 3)
        for q, h in zip(queries, hits, strict=True):
            expected = [float(x) for x in oracle.get_scores(pure(q, kind))]
            assert [i for i, _ in h] == _oracle_top(expected, 3), (kind, q)
            assert [s for _, s in h] == [expected[i] for i, _ in h]
