"""Late chunking's pooling (``rust/semantic/pool.rs``): the mean of the vectors of the tokens
whose character range overlaps each chunk's span; zero-width tokens skipped; NaN rows for
chunks without tokens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def mean_pool(m: Any, tokens: Sequence[tuple[int, int]], chunks: Sequence[tuple[int, int]]) -> Any:
    """``(len(chunks), dim)`` float32 means."""
    x = np.asarray(m, dtype=np.float64)
    out = np.full((len(chunks), x.shape[1]), np.nan, dtype=np.float32)
    starts = np.array([t[0] for t in tokens], dtype=np.int64)
    ends = np.array([t[1] for t in tokens], dtype=np.int64)
    for k, (cs, ce) in enumerate(chunks):
        mask = (ends > starts) & (starts < ce) & (ends > cs)
        if mask.any():
            rows = x[mask]
            acc = np.zeros(x.shape[1])
            for r in rows:  # in token order, as the Rust core accumulates
                acc += r
            out[k] = (acc / rows.shape[0]).astype(np.float32)
    return out
