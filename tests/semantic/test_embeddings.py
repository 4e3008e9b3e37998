"""The embedder protocol: adapters, de-duplication, batching, the cache, the window guard,
validation, the OpenAI-compatible embedder against the local test server, and WordLlama
loaded offline."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from ragchunk.core.http import HTTPClient
from ragchunk.embeddings import (
    EmbeddingCache,
    OpenAICompatibleEmbedder,
    as_embedder,
    check_embeddings,
    load_wordllama,
)

from .fakes import hashed_counts, langchain_embeddings

pytestmark = pytest.mark.single_backend


class Encoder:  # sentence-transformers / model2vec style
    def encode(self, texts: list[str]) -> np.ndarray:
        return hashed_counts(texts)


class LlamaIndexStyle:
    model_name = "li-model"

    def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
        return hashed_counts(texts).tolist()


@pytest.mark.parametrize(
    "obj",
    [hashed_counts, Encoder(), langchain_embeddings(), LlamaIndexStyle()],
    ids=["callable", "encode", "langchain", "llamaindex"],
)
def test_adapters_give_the_same_vectors(obj: object) -> None:
    texts = ["one cat", "two dogs", "one cat"]
    out = as_embedder(obj).embed(texts)
    assert out.dtype == np.float32 and out.shape == (3, 32)
    np.testing.assert_array_equal(out, hashed_counts(texts))


def test_llamaindex_base_embedding() -> None:
    core = pytest.importorskip("llama_index.core.embeddings")

    class Fake(core.BaseEmbedding):
        def _get_text_embedding(self, text: str) -> list[float]:
            return hashed_counts([text])[0].tolist()

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._get_text_embedding(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_text_embedding(query)

    e = as_embedder(Fake(model_name="fake"))
    np.testing.assert_array_equal(e.embed(["a b", "c"]), hashed_counts(["a b", "c"]))
    assert e.kind == "llamaindex"


def test_dedup_and_batching_count_calls() -> None:
    sizes: list[int] = []

    def fn(texts: list[str]) -> np.ndarray:
        sizes.append(len(texts))
        return hashed_counts(texts)

    e = as_embedder(fn, batch_size=3)
    texts = ["a", "b", "a", "c", "d", "b", "e"]
    np.testing.assert_array_equal(e.embed(texts), hashed_counts(texts))
    assert sizes == [3, 2]
    assert (e.stats.requested, e.stats.unique, e.stats.embedded, e.stats.calls) == (7, 5, 5, 2)


def test_batches_go_shortest_first_and_rows_come_back_in_order() -> None:
    calls: list[list[str]] = []

    def fn(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return hashed_counts(texts)

    texts = ["cccc", "a", "dd dd dd", "bb", "a", "cccc", "eeeee"]
    e = as_embedder(fn, batch_size=2)
    np.testing.assert_array_equal(e.embed(texts), hashed_counts(texts))
    assert calls == [["a", "bb"], ["cccc", "eeeee"], ["dd dd dd"]]
    assert e.embed([]).shape == (0, 0)
    with pytest.raises(TypeError, match=r"texts\[2\] must be a str"):
        e.embed(["a", "b", 3])  # type: ignore[list-item]


def test_vectors_of_different_widths_are_refused(tmp_path: object) -> None:
    widths = iter([2, 3])

    def fn(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), next(widths)), dtype=np.float32)

    with pytest.raises(ValueError, match=r"different lengths: \[2, 3\]"):
        as_embedder(fn, batch_size=1).embed(["a", "bb"])
    path = f"{tmp_path}/vectors.sqlite"
    as_embedder(lambda t: np.ones((len(t), 2)), cache=path, model="m").embed(["a"])
    wide = as_embedder(lambda t: np.ones((len(t), 4)), cache=path, model="m")
    with pytest.raises(ValueError, match=r"different lengths: \[2, 4\]"):
        wide.embed(["a", "b"])


def test_persistent_cache(tmp_path: object) -> None:
    path = f"{tmp_path}/cache/vectors.sqlite"
    calls: list[list[str]] = []

    def fn(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return hashed_counts(texts)

    first = as_embedder(fn, cache=path, model="m").embed(["x y", "z"])
    again = as_embedder(fn, cache=path, model="m")
    np.testing.assert_array_equal(
        again.embed(["z", "x y", "new"]), hashed_counts(["z", "x y", "new"])
    )
    assert calls == [["z", "x y"], ["new"]]  # shortest first
    assert again.stats.cache_hits == 2
    np.testing.assert_array_equal(first, hashed_counts(["x y", "z"]))
    # another model name does not share vectors
    as_embedder(fn, cache=path, model="other").embed(["z"])
    assert calls[-1] == ["z"]


class _Float(float):
    pass


@pytest.mark.parametrize(
    "value",
    [
        [[0.1, -2.5, 1e-40], [3.0, 0.3333333333333333, -0.0]],
        [[_Float(0.5), 1.0], [2.0, 3.0]],  # a float subclass
        [[1, 2.0], [3.0, 4.0]],  # an int
        [[np.float64(0.25), 1.0], [2.0, 3.0]],
    ],
)
def test_lists_of_floats_convert_as_numpy_does(value: list[list[float]]) -> None:
    got = check_embeddings(value, 2)
    assert got.dtype == np.float32 and got.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(got, np.asarray(value, dtype=np.float32))


@pytest.mark.parametrize(
    ("value", "err", "match"),
    [
        ([[1.0, float("nan")], [1.0, 2.0]], ValueError, "NaN or infinite values \\(row 0\\)"),
        ([[1.0, 2.0], [1e300, 2.0]], ValueError, "NaN or infinite values \\(row 1\\)"),
        ([[1.0, 2.0], [1.0]], TypeError, "2-D array of floats"),
        ([[1.0, 2.0]], ValueError, "1 rows for 2 texts"),
    ],
)
def test_bad_lists_of_floats_are_named(value: object, err: type, match: str) -> None:
    with pytest.raises(err, match=match), np.errstate(over="ignore"):
        check_embeddings(value, 2)


def test_cache_concurrent_writers(tmp_path: object) -> None:
    cache = EmbeddingCache(f"{tmp_path}/c.sqlite")
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            texts = [f"t{k}-{i}" for i in range(50)]
            cache.put("m", texts, hashed_counts(texts))
            assert len(cache.get("m", texts)) == 50
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(cache) == 300


def test_window_guard_refuses_long_texts() -> None:
    e = as_embedder(hashed_counts, max_tokens=3)
    e.embed(["one two"])
    with pytest.raises(ValueError, match=r"texts\[1\] has 5 tokens.*max_tokens \(3\)"):
        e.embed(["ok", "one two three four five"])


@pytest.mark.parametrize(
    ("value", "rows", "err", "match"),
    [
        (np.ones((2, 3), dtype=np.int32), 2, TypeError, "floats"),
        (np.ones((2, 3)), 3, ValueError, "2 rows for 3"),
        (np.ones(3), 3, ValueError, "2-D"),
        ([[1.0], [1.0, 2.0]], 2, TypeError, "ragged|floats"),
        (np.array([[1.0, np.inf]]), 1, ValueError, "infinite"),
    ],
)
def test_check_embeddings(value: object, rows: int, err: type, match: str) -> None:
    with pytest.raises(err, match=match):
        check_embeddings(value, rows, "embeddings")


def test_raising_embedder_is_named() -> None:
    def boom(texts: list[str]) -> np.ndarray:
        raise RuntimeError("model offline")

    with pytest.raises(ValueError, match=r"embedder raised RuntimeError.*model offline"):
        as_embedder(boom).embed(["a"])


def test_openai_compatible_embedder(openai_server: object) -> None:
    from openai_server import hash_embedding, rate_limited, server_error

    server = openai_server
    client = HTTPClient(server.base_url, api_key_env=None, sleep=lambda s: None, max_concurrency=2)
    e = OpenAICompatibleEmbedder(
        server.base_url,
        "test-embedder",
        batch_size=4,
        batch_tokens=12,
        max_tokens=12,
        client=client,
        max_concurrency=2,
    )
    texts = [f"word{i} and more words here" for i in range(10)]
    server.enqueue(rate_limited(retry_after="0"), server_error(503))
    out = as_embedder(e).embed(texts + texts[:3])
    assert out.shape == (13, 16)
    np.testing.assert_allclose(out[:10], np.array([hash_embedding(t) for t in texts]), rtol=1e-6)
    requests = server.embedding_requests
    sent = [r.json["input"] for r in requests if r.json and "input" in r.json]
    assert all(len(batch) <= 4 for batch in sent)
    assert sorted(t for batch in set(map(tuple, sent)) for t in batch) == sorted(texts)
    assert client.stats.retries >= 2
    assert server.peak_concurrency <= 2
    with pytest.raises(ValueError, match="max_tokens"):
        e.embed(["one two three four five six seven eight nine ten eleven twelve thirteen"])


def test_wordllama_offline() -> None:
    pytest.importorskip("wordllama")
    e = load_wordllama()
    vecs = e.embed(
        ["The cat sat on the mat.", "A cat was sitting on a mat.", "Stock markets fell."]
    )
    assert vecs.shape == (3, 256) and vecs.dtype == np.float32
    unit = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    assert unit[0] @ unit[1] > unit[0] @ unit[2]


def test_embed_in_order_makes_one_call_as_given_and_checks_its_input() -> None:
    calls: list[list[str]] = []

    def fn(texts: list[str]) -> list[list[float]]:
        calls.append(list(texts))
        return [[float(len(t)), 1.0] for t in texts]

    e = as_embedder(fn, batch_size=1)
    out = e.embed_in_order(["bb", "a", "bb"])
    assert calls == [["bb", "a", "bb"]]  # no de-duplication, sorting or batching
    assert out.dtype == np.float32 and out.tolist() == [[2.0, 1.0], [1.0, 1.0], [2.0, 1.0]]
    assert e.embed_in_order([]).shape == (0, 0) and len(calls) == 1
    with pytest.raises(TypeError, match="texts must be a list of str, got str"):
        e.embed_in_order("abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str, got int"):
        e.embed_in_order(["a", 3])  # type: ignore[list-item]
    limited = as_embedder(fn, max_tokens=2, tokenizer="cl100k_base")
    with pytest.raises(ValueError, match=r"texts\[0\] has \d+ tokens"):
        limited.embed_in_order(["one two three four"])
