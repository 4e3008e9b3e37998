"""Late chunking's pooling and offset conversion on both backends: equal to a brute-force
mean, equal to each other, the same errors; numpy arrays read as given."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ragchunk.core import dispatch
from ragchunk.late import TokenEmbeddings, char_offsets, late_chunk


def brute_force(vectors: np.ndarray, offsets: list[tuple[int, int]], spans: list[tuple[int, int]]):
    rows = []
    for cs, ce in spans:
        inside = [i for i, (s, e) in enumerate(offsets) if e > s and s < ce and e > cs]
        rows.append(vectors[inside].astype(np.float64).mean(axis=0))
    return np.array(rows)


def on_other_backend(backend: str, fn):
    other = "python" if backend == "rust" else "rust"
    dispatch.set_backend(other)
    try:
        return fn()
    finally:
        dispatch.set_backend(backend)


@st.composite
def documents(draw):
    n = draw(st.integers(1, 60))
    tokens = []
    for _ in range(draw(st.integers(1, 40))):
        s = draw(st.integers(0, n))
        e = draw(st.integers(s, min(n, s + draw(st.integers(0, 8)))))
        tokens.append((s, e))
    tokens.append((0, 0))  # a special token
    if draw(st.booleans()):
        tokens.sort()
    # chunks: spans each covering at least one non-empty token
    real = [t for t in tokens if t[1] > t[0]]
    spans = []
    for _ in range(draw(st.integers(1, 6))):
        if not real:
            break
        s, e = real[draw(st.integers(0, len(real) - 1))]
        a = draw(st.integers(max(0, s - 3), e - 1))
        b = draw(st.integers(max(a, s) + 1, min(n, e + 3)))
        spans.append((a, b))
    return n, tokens, spans


@settings(max_examples=150, deadline=None)
@given(doc=documents(), dim=st.integers(1, 9), seed=st.integers(0, 2**31))
def test_equals_brute_force_on_both_backends(doc, dim: int, seed: int) -> None:
    n, tokens, spans = doc
    if not spans:
        return
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((len(tokens), dim)).astype(np.float32)
    text = "x" * n
    te = TokenEmbeddings(vectors, tokens)
    here = late_chunk(text, spans, te)
    assert here.dtype == np.float32 and here.shape == (len(spans), dim)
    np.testing.assert_allclose(here, brute_force(vectors, tokens, spans), rtol=1e-5, atol=1e-6)
    backend = dispatch.name()
    there = on_other_backend(backend, lambda: late_chunk(text, spans, te))
    np.testing.assert_allclose(here, there, rtol=1e-6, atol=1e-7)
    unit = late_chunk(text, spans, te, normalize=True)
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), 1.0, rtol=1e-5)


def test_array_offsets_and_float64_vectors() -> None:
    text = "ab cd ef"
    vecs = np.array([[100, 100], [1, 0], [3, 0], [0, 5], [-100, -100]], dtype=np.float64)
    offs = np.array([[0, 0], [0, 2], [3, 5], [6, 8], [0, 0]], dtype=np.int32)
    out = late_chunk(text, [(0, 6), (6, 8)], TokenEmbeddings(vecs, offs))
    assert out.tolist() == [[2.0, 0.0], [0.0, 5.0]]
    # a non-contiguous view and a callable embedder returning arrays
    wide = np.zeros((5, 4), dtype=np.float32)
    wide[:, ::2] = vecs
    out = late_chunk(text, [(0, 8)], lambda t: (wide[:, ::2], offs.astype(np.int64)))
    np.testing.assert_allclose(out, [[4.0 / 3, 5.0 / 3]], rtol=1e-6)


def test_vectors_outside_every_chunk_are_not_read() -> None:
    vecs = np.array([[np.nan], [1.0], [3.0]], dtype=np.float32)
    out = late_chunk("abcd", [(0, 4)], TokenEmbeddings(vecs, [(0, 0), (0, 2), (2, 4)]))
    assert out.tolist() == [[2.0]]


@pytest.mark.parametrize(
    ("offsets", "spans", "vecs", "message"),
    [
        ([(0, 1), (1, 9)], [(0, 1)], None, r"offsets\[1\] = \(1, 9\) is outside the text"),
        ([(0, 1), (-1, 0)], [(0, 1)], None, r"offsets\[1\] = \(-1, 0\) is outside"),
        ([(0, 1), (2, 3)], [(0, 1), (1, 2)], None, r"chunks\[1\] span \(1, 2\) holds no token"),
        ([(0, 1), (1, 2)], [(0, 2)], [[1.0], [np.inf]], r"NaN or infinite values \(row 1\)"),
        ([(0, 1)], [(0, 1)], [[1.0], [2.0]], "2 rows for 1 offsets"),
        ([(0, 1, 2)], [(0, 1)], None, r"shape \(n, 2\)"),
    ],
)
def test_same_errors_on_both_backends(offsets, spans, vecs, message: str) -> None:
    vectors = np.ones((len(offsets), 1), np.float32) if vecs is None else np.array(vecs)
    te = TokenEmbeddings(vectors, offsets)
    with pytest.raises(ValueError, match=message):
        late_chunk("abc", spans, te)
    backend = dispatch.name()

    def other() -> None:
        with pytest.raises(ValueError, match=message):
            late_chunk("abc", spans, te)

    on_other_backend(backend, other)


def test_bad_vector_types() -> None:
    with pytest.raises(TypeError, match="hold floats"):
        late_chunk("ab", [(0, 2)], TokenEmbeddings(np.ones((1, 2), np.int64), [(0, 2)]))
    with pytest.raises(ValueError, match="2-D"):
        late_chunk("ab", [(0, 2)], TokenEmbeddings(np.ones(2, np.float32), [(0, 2)]))


@given(text=st.text(max_size=30), data=st.data())
def test_char_offsets_agree(text: str, data) -> None:
    size = len(text.encode("utf-8", "surrogatepass"))
    pairs = data.draw(st.lists(st.tuples(st.integers(0, size + 2), st.integers(0, size + 2))))
    here = char_offsets(text, pairs).tolist()
    other = on_other_backend(dispatch.name(), lambda: char_offsets(text, pairs))
    assert other.dtype == np.int64 and here == other.tolist()
    starts = [len(text[:i].encode("utf-8", "surrogatepass")) for i in range(len(text) + 1)]
    for (b, _), (c, _) in zip(pairs, here, strict=True):
        if b in starts:
            assert c == starts.index(b)


def test_core_checks_the_arrays() -> None:
    core = pytest.importorskip("ragchunk._core")
    vecs = np.ones((2, 3), np.float32)
    offs = np.array([[0, 1], [1, 2]], np.int64)
    out = np.empty((1, 3), np.float32)
    core.late_pool(vecs, offs, [(0, 2)], 2, False, out)
    assert out.tolist() == [[1.0, 1.0, 1.0]]
    with pytest.raises(ValueError, match="<f4"):
        core.late_pool(vecs.astype(np.float64), offs, [(0, 2)], 2, False, out)
    with pytest.raises(ValueError, match="C-contiguous"):
        core.late_pool(np.ones((2, 6), np.float32)[:, ::2], offs, [(0, 2)], 2, False, out)
    with pytest.raises(ValueError, match="writable"):
        core.late_pool(vecs, offs, [(0, 2)], 2, False, np.empty((2, 3), np.float32))
    frozen = np.empty((1, 3), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        core.late_pool(vecs, offs, [(0, 2)], 2, False, frozen)
    with pytest.raises(ValueError, match="share memory"):
        core.late_pool(vecs, offs, [(0, 2)], 2, False, vecs[:1])
    with pytest.raises(TypeError, match="numpy array"):
        core.late_pool([[1.0]], offs, [(0, 2)], 2, False, out)
