"""The pure-Python backend of late chunking (``rust/semantic/late.rs``), with numpy: the same
checks in the same order, the same errors, the same values (f64 sums in token order, tokens
ordered by start with ties in input order)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.optional import np


def late_pool(
    vectors: Any,
    offsets: Any,
    chunks: Sequence[tuple[int, int]],
    text_len: int,
    normalize: bool,
    out: Any,
) -> None:
    """Writes into ``out`` (``(len(chunks), dim)`` float32) the mean of the rows of
    ``vectors`` whose ``offsets`` (``(n, 2)`` int64) overlap each chunk span."""
    rows = vectors.shape[0]
    if offsets.shape[0] != rows:
        raise ValueError(f"token_embedder returned {rows} vectors for {offsets.shape[0]} offsets")
    for i, (cs, ce) in enumerate(chunks):
        if not 0 <= cs <= ce <= text_len:
            raise ValueError(f"chunks[{i}] span ({cs}, {ce}) is outside the text")
    starts, ends = offsets[:, 0], offsets[:, 1]
    bad = ~((starts >= 0) & (starts <= ends) & (ends <= text_len))
    if bad.any():
        i = int(np.argmax(bad))
        span = (int(starts[i]), int(ends[i]))
        raise ValueError(f"token_embedder's offsets[{i}] = {span} is outside the text")
    kept = np.flatnonzero(ends > starts)
    kept = kept[np.argsort(starts[kept], kind="stable")]
    ks, ke = starts[kept], ends[kept]
    for k, (cs, ce) in enumerate(chunks):
        idx = kept[(ks < ce) & (ke > cs)]
        if idx.size == 0:
            raise ValueError(f"chunks[{k}] span ({cs}, {ce}) holds no token")
        # a reduction over axis 0 adds the rows one after another, in token order, as the
        # Rust core accumulates
        acc = np.add.reduce(vectors[idx].astype(np.float64), axis=0)
        if not np.isfinite(acc).all():
            finite = np.isfinite(vectors[idx]).all(axis=1)
            row = int(idx[int(np.argmin(finite))])
            raise ValueError(f"token_embedder's vectors holds NaN or infinite values (row {row})")
        n = float(idx.size)
        scale = 1.0 / n
        if normalize:
            scale /= float(np.sqrt(np.sum((acc / n) ** 2)))
        out[k] = (acc * scale).astype(np.float32)


def char_offsets(text: str, byte_offsets: Any, out: Any) -> None:
    """UTF-8 byte offsets (an ``(n, 2)`` int64 array) as code-point offsets, written into
    ``out`` (see :func:`ragchunk.late.char_offsets`)."""
    starts = np.zeros(len(text) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(ch.encode("utf-8", "surrogatepass")) for ch in text])
    # a start inside a character maps to that character, an end inside one to its end
    lo = np.searchsorted(starts, byte_offsets[:, 0], side="left")
    inside = (lo >= len(starts)) | (starts[np.minimum(lo, len(starts) - 1)] != byte_offsets[:, 0])
    out[:, 0] = lo - inside
    out[:, 1] = np.searchsorted(starts, byte_offsets[:, 1], side="left")
