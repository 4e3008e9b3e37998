"""The numeric steps of the embedding-aware chunkers, each sent to a backend through
``dispatch.run``: the Rust core (``rust/semantic/``, GIL released) or the numpy fallback
(``ragchunk._pure.semantic``), which give the same values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._pure.semantic import distance as _distance
from .._pure.semantic import pool as _pool
from .._pure.semantic import stats as _stats
from ..core import dispatch
from ..core.optional import np


def distances(emb: Any) -> list[float]:
    """``1 - cos`` between consecutive rows of a float32 matrix."""
    emb = np.ascontiguousarray(emb, dtype=np.float32)
    return dispatch.run(
        lambda core: core.semantic_distances(emb),
        lambda: _distance.consecutive_cosine(emb),
    )


def similarity_matrix(emb: Any) -> Any:
    """The cosine similarity matrix (float64)."""
    rows, dim = emb.shape

    def rust(core: Any) -> Any:
        flat = core.semantic_similarity_matrix(emb.tobytes(), rows, dim)
        return np.asarray(flat, dtype=np.float64).reshape(rows, rows)

    return dispatch.run(rust, lambda: _distance.cosine_matrix(emb))


def percentile(values: Sequence[float], q: float) -> float:
    """``np.percentile(values, q)``."""
    vals = [float(v) for v in values]
    return dispatch.run(
        lambda core: float(core.semantic_percentiles(vals, [float(q)])[0]),
        lambda: _stats.percentile(vals, q),
    )


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """``(np.mean, np.std)``."""
    vals = [float(v) for v in values]

    def rust(core: Any) -> tuple[float, float]:
        _, m, s = core.semantic_stats(vals, 50.0)
        return float(m), float(s)

    return dispatch.run(rust, lambda: (_stats.mean(vals), _stats.std(vals)))


def gradient(values: Sequence[float]) -> list[float]:
    """``np.gradient(values, range(len(values)))``."""
    vals = [float(v) for v in values]
    return dispatch.run(
        lambda core: list(core.semantic_gradient(vals)), lambda: _stats.gradient(vals)
    )


def mean_pool(
    emb: Any, tokens: Sequence[tuple[int, int]], chunks: Sequence[tuple[int, int]]
) -> Any:
    """Mean token vector per chunk span (tokens sorted by start, none zero-width)."""
    rows, dim = emb.shape
    toks = [(int(s), int(e)) for s, e in tokens]
    spans = [(int(s), int(e)) for s, e in chunks]

    def rust(core: Any) -> Any:
        flat = core.semantic_mean_pool(emb.tobytes(), rows, dim, toks, spans)
        return np.asarray(flat, dtype=np.float32).reshape(len(spans), dim)

    return dispatch.run(rust, lambda: _pool.mean_pool(emb, toks, spans))
