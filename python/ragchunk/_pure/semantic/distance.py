"""Cosine distances between consecutive rows, and the similarity matrix (``rust/semantic/
distance.rs``): float64 products summed pairwise along each row, as the Rust core does."""

from __future__ import annotations

from typing import Any

import numpy as np


def _norms(x: Any) -> Any:
    return np.sqrt(np.add.reduce(x * x, axis=1))


def consecutive_cosine(m: Any) -> list[float]:
    """``1 - cos(row i, row i + 1)``; a zero vector has similarity 0."""
    x = np.asarray(m, dtype=np.float64)
    if x.shape[0] < 2:
        return []
    norms = _norms(x)
    dots = np.add.reduce(x[:-1] * x[1:], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        sim = dots / (norms[:-1] * norms[1:])
    sim[~np.isfinite(sim)] = 0.0
    return [float(v) for v in 1.0 - sim]


def cosine_matrix(m: Any) -> Any:
    """The ``rows x rows`` cosine similarity matrix (float64)."""
    x = np.asarray(m, dtype=np.float64)
    norms = _norms(x)
    n = x.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        dots = np.add.reduce(x[i][None, :] * x[i:], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            sim = dots / (norms[i] * norms[i:])
        sim[~np.isfinite(sim)] = 0.0
        out[i, i:] = sim
        out[i:, i] = sim
    return out
