"""The numeric core on both backends equals numpy: percentile (linear), mean, std, gradient;
consecutive cosine distances; the similarity matrix; pooling."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ragchunk.semantic import _numeric

FLOATS = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@given(values=st.lists(FLOATS, min_size=1, max_size=300), q=st.floats(0, 100))
def test_statistics_equal_numpy(values: list[float], q: float) -> None:
    a = np.array(values)
    assert _numeric.percentile(values, q) == np.percentile(a, q)
    assert _numeric.mean_std(values) == (np.mean(a), np.std(a))
    if len(values) >= 2:
        assert _numeric.gradient(values) == list(np.gradient(a, range(len(a))))


@given(
    rows=st.integers(0, 20),
    dim=st.integers(1, 40),
    seed=st.integers(0, 2**31),
)
def test_distances_and_matrix(rows: int, dim: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    emb = rng.standard_normal((rows, dim)).astype(np.float32)
    if rows > 2:
        emb[1] = 0.0  # a zero vector: similarity 0
    d = _numeric.distances(emb)
    x = emb.astype(np.float64)
    expected = []
    for i in range(rows - 1):
        n = np.linalg.norm(x[i]) * np.linalg.norm(x[i + 1])
        expected.append(1.0 - (x[i] @ x[i + 1] / n if n else 0.0))
    np.testing.assert_allclose(d, expected, atol=1e-12)
    if rows:
        m = _numeric.similarity_matrix(emb)
        assert m.shape == (rows, rows)
        np.testing.assert_allclose(m, m.T)


def test_backends_agree_bit_for_bit(backend: str) -> None:
    from ragchunk.core import dispatch

    rng = np.random.default_rng(7)
    emb = rng.standard_normal((50, 33)).astype(np.float32)
    here = (_numeric.distances(emb), _numeric.similarity_matrix(emb).tolist())
    other = "python" if backend == "rust" else "rust"
    dispatch.set_backend(other)
    try:
        there = (_numeric.distances(emb), _numeric.similarity_matrix(emb).tolist())
    finally:
        dispatch.set_backend(backend)
    assert here == there


def test_mean_pool_hand_checked() -> None:
    vecs = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], dtype=np.float32)
    tokens = [(0, 2), (2, 4), (4, 6), (6, 9)]
    out = _numeric.mean_pool(vecs, tokens, [(0, 4), (3, 9), (9, 9)])
    assert out[0].tolist() == [2.0, 3.0]
    assert out[1].tolist() == [5.0, 6.0]  # tokens 1, 2, 3 overlap [3, 9)
    assert np.isnan(out[2]).all()


@pytest.mark.single_backend
def test_rust_rejects_bad_shapes(core: object) -> None:
    with pytest.raises(ValueError, match="embeddings must hold <f4"):
        core.semantic_distances(np.zeros((2, 2), dtype=np.float64))
    with pytest.raises(ValueError, match="embeddings must have 2 dimensions"):
        core.semantic_distances(np.zeros(4, dtype=np.float32))
    with pytest.raises(ValueError, match="embeddings must be C-contiguous"):
        core.semantic_distances(np.zeros((4, 3), dtype=np.float32)[:, :2])
    with pytest.raises(TypeError, match="embeddings must be a numpy array"):
        core.semantic_distances(b"\0" * 16)
    assert core.semantic_distances(np.array([[1, 0], [0, 1], [0, 1]], dtype=np.float32)) == [
        1.0,
        0.0,
    ]
    with pytest.raises(ValueError, match="offsets"):
        core.semantic_mean_pool(b"\0" * 16, 2, 2, [(0, 1)], [(0, 1)])
