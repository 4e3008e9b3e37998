"""Late chunking: one vector per chunk, mean-pooled from the token embeddings of the whole
document (embedded once, in context), so that each chunk's vector knows its surroundings.

Needs numpy (the ``semantic`` extra). A *token embedder* is anything with
``embed_tokens(text) -> (vectors (n, dim), offsets [(start, end), ...])``, the offsets being
code-point ranges of ``text`` (a Hugging Face fast tokenizer's ``offset_mapping``, after
:func:`char_offsets` for byte offsets), or a plain callable doing the same, or a
:class:`TokenEmbeddings` of precomputed arrays.

>>> import numpy as np
>>> from ragchunk import Chunk
>>> vectors = np.array([[1.0, 0.0], [3.0, 0.0], [0.0, 5.0]], dtype=np.float32)
>>> te = TokenEmbeddings(vectors, [(0, 2), (3, 5), (6, 8)])
>>> chunks = [Chunk("ab cd ", 0, 6, 2), Chunk("ef", 6, 8, 1)]
>>> late_chunk("ab cd ef", chunks, te).tolist()
[[2.0, 0.0], [0.0, 5.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core import dispatch
from ..core.chunk import Chunk
from ..core.optional import np
from ..embeddings.base import check_embeddings
from . import _pure

__all__ = ["TokenEmbeddings", "char_offsets", "late_chunk", "macro_windows"]


@dataclass
class TokenEmbeddings:
    """Precomputed token vectors with their code-point offsets, as a token embedder: it
    returns them for the text it was computed on (``text``, when given, is checked).

    >>> te = TokenEmbeddings([[1.0]], [(0, 1)])
    >>> te.embed_tokens("a")[1]
    [(0, 1)]
    """

    vectors: Any
    offsets: Sequence[tuple[int, int]]
    text: str | None = None

    def embed_tokens(self, text: str) -> tuple[Any, Any]:
        """The stored vectors and offsets, as given (not copied)."""
        if self.text is not None and text != self.text:
            raise ValueError("text is not the text these token embeddings were computed on")
        return self.vectors, self.offsets


def char_offsets(text: str, byte_offsets: Any) -> Any:
    """UTF-8 byte offsets of ``text`` as code-point offsets (for tokenizers that report
    bytes); a byte offset inside a character maps to that character's start (its end to
    the end of the character).

    ``byte_offsets`` are ``(start, end)`` pairs: a sequence of pairs or an ``(n, 2)``
    integer array. The result is an ``(n, 2)`` int64 numpy array, the form
    :func:`late_chunk` and :class:`TokenEmbeddings` take without converting anything
    (``.tolist()`` gives lists of pairs).

    >>> char_offsets("é🦀x", [(0, 2), (2, 6), (6, 7)]).tolist()
    [[0, 1], [1, 2], [2, 3]]
    >>> char_offsets("ab", []).shape
    (0, 2)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    pairs = _offset_array(byte_offsets)
    out = np.empty_like(pairs)
    dispatch.run(
        lambda core: core.late_char_offsets(text, pairs, out),
        lambda: _pure.char_offsets(text, pairs, out),
    )
    return out


def _offset_array(byte_offsets: Any) -> Any:
    """``byte_offsets`` as a C-contiguous int64 ``(n, 2)`` array (not copied when it is one)."""
    try:
        arr = np.asarray(byte_offsets)
        if arr.dtype == object or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
            raise TypeError(f"dtype {arr.dtype}")
        arr = np.ascontiguousarray(arr, dtype=np.int64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"byte_offsets must be (start, end) pairs of ints: {exc}") from None
    if arr.size == 0:
        arr = arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"byte_offsets must have shape (n, 2), got {arr.shape}")
    return arr


def macro_windows(n_tokens: int, window: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """The macro windows over ``n_tokens`` tokens: ``(start, end, keep_start, keep_end)``
    token ranges. Windows of ``window`` tokens start every ``window - overlap`` tokens;
    each token takes its vector from the window in which it is farthest from an edge: a
    window keeps the tokens from the middle of its overlap with the previous window to the
    middle of its overlap with the next (the first keeps from 0, the last to the end).

    >>> macro_windows(10, 6, 2)
    [(0, 6, 0, 5), (4, 10, 5, 10)]
    """
    if window < 1 or not 0 <= overlap < window:
        raise ValueError(f"need window >= 1 and 0 <= overlap < window, got {window}, {overlap}")
    if n_tokens <= window:
        return [(0, n_tokens, 0, n_tokens)]
    step = window - overlap
    starts = [*range(0, n_tokens - window, step), n_tokens - window]
    starts = sorted(set(starts))
    out: list[tuple[int, int, int, int]] = []
    for k, s in enumerate(starts):
        e = s + window
        keep_s = 0 if k == 0 else (s + out[-1][1]) // 2
        if k > 0:
            prev = out[-1]
            out[-1] = (prev[0], prev[1], prev[2], keep_s)
        out.append((s, e, keep_s, n_tokens))
    return out


TokenEmbedder = Callable[[str], tuple[Any, Sequence[tuple[int, int]]]]


def _call_embedder(token_embedder: Any, text: str) -> tuple[Any, Any]:
    """The embedder's ``(vectors, offsets)``, unconverted."""
    fn = getattr(token_embedder, "embed_tokens", None)
    if fn is None:
        if not callable(token_embedder):
            raise TypeError(
                "token_embedder must have embed_tokens(text) or be callable, got "
                f"{type(token_embedder).__name__}"
            )
        fn = token_embedder
    try:
        result = fn(text)
    except (TypeError, ValueError):
        raise
    except Exception as exc:
        raise ValueError(f"token_embedder raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(result, tuple) or len(result) != 2:
        raise TypeError("token_embedder must return (vectors, offsets)")
    return result


def _embed_tokens(token_embedder: Any, text: str) -> tuple[Any, list[tuple[int, int]]]:
    """Vectors (checked float32) and offsets (a list, each inside ``text``)."""
    vectors, offsets = _call_embedder(token_embedder, text)
    offsets = [(int(s), int(e)) for s, e in offsets]
    vectors = check_embeddings(vectors, len(offsets), "token_embedder's vectors")
    for i, (s, e) in enumerate(offsets):
        if not 0 <= s <= e <= len(text):
            raise ValueError(f"token_embedder's offsets[{i}] = {(s, e)} is outside the text")
    return vectors, offsets


def _as_arrays(vectors: Any, offsets: Any) -> tuple[Any, Any]:
    """``(vectors, offsets)`` as a C-contiguous float32 ``(n, dim)`` and int64 ``(n, 2)``
    array, without copying arrays that already are; offsets inside the text and finite
    vectors are checked by the pooling, on the tokens it reads."""
    try:
        offs = np.asarray(offsets, dtype=np.int64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"token_embedder's offsets must be (start, end) pairs: {exc}") from None
    if offs.size == 0:
        offs = offs.reshape(0, 2)
    if offs.ndim != 2 or offs.shape[1] != 2:
        raise ValueError(f"token_embedder's offsets must have shape (n, 2), got {offs.shape}")
    try:
        arr = np.asarray(vectors)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"token_embedder's vectors must be a 2-D array of floats: {exc}") from None
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(f"token_embedder's vectors must hold floats, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"token_embedder's vectors must be 2-D (rows, dim), got shape {arr.shape}")
    if arr.shape[0] != offs.shape[0]:
        raise ValueError(
            f"token_embedder's vectors has {arr.shape[0]} rows for {offs.shape[0]} offsets"
        )
    if arr.shape[1] == 0:
        raise ValueError("token_embedder's vectors has zero-length vectors")
    return np.ascontiguousarray(arr, dtype=np.float32), np.ascontiguousarray(offs)


def late_chunk(
    text: str,
    chunks: Sequence[Chunk | tuple[int, int]],
    token_embedder: Any,
    *,
    window: int | None = None,
    overlap: int = 0,
    normalize: bool = False,
) -> Any:
    """One vector per chunk: the mean of the token vectors whose character range overlaps the
    chunk's ``[start, end)`` span (``(len(chunks), dim)`` float32).

    ``chunks`` are :class:`~ragchunk.Chunk` objects of ``text`` (from any ragchunk chunker)
    or ``(start, end)`` pairs. Special tokens: a token with an empty range (CLS, SEP and
    padding report ``(0, 0)`` in Hugging Face's ``offset_mapping``) belongs to no chunk and
    is left out of every mean; their influence stays inside the other tokens' contextual
    vectors. A token straddling two chunks counts in both. A chunk no token overlaps is a
    ``ValueError``.

    Long documents (``window`` set): the token embedder must also have ``tokenize(text) ->
    offsets`` (the document's tokens, without embedding them). The text is embedded in macro
    windows of ``window`` tokens that overlap by ``overlap`` tokens, each window embedded as
    the source substring from its first to its last token; a token in two windows takes its
    vector from the window in which it is farther from the edge (the overlap is split at its
    middle; :func:`macro_windows`). Jina's reference keeps the earlier window's vectors for
    the whole overlap; the middle rule gives every token at least ``overlap // 2`` tokens of
    context on both sides.

    >>> import numpy as np
    >>> class Echo:  # one vector per character: (position in its window, 1)
    ...     def tokenize(self, text):
    ...         return [(i, i + 1) for i in range(len(text))]
    ...     def embed_tokens(self, text):
    ...         return np.array([[i, 1.0] for i in range(len(text))]), self.tokenize(text)
    >>> late_chunk("abcdefgh", [(0, 8)], Echo(), window=6, overlap=2).tolist()
    [[2.5, 1.0]]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    spans: list[tuple[int, int]] = []
    for i, c in enumerate(chunks):
        if isinstance(c, Chunk):
            s, e = c.start, c.end
        elif isinstance(c, tuple) and len(c) == 2:
            s, e = int(c[0]), int(c[1])
        else:
            raise TypeError(f"chunks[{i}] must be a Chunk or a (start, end) pair")
        if not 0 <= s <= e <= len(text):
            raise ValueError(f"chunks[{i}] span {(s, e)} is outside the text")
        spans.append((s, e))
    if window is None:
        vectors, offsets = _call_embedder(token_embedder, text)
    else:
        vectors, offsets = _windowed(token_embedder, text, window, overlap)
    vecs, offs = _as_arrays(vectors, offsets)
    out = np.empty((len(spans), vecs.shape[1]), dtype=np.float32)
    n = len(text)
    dispatch.run(
        lambda core: core.late_pool(vecs, offs, spans, n, normalize, out),
        lambda: _pure.late_pool(vecs, offs, spans, n, normalize, out),
    )
    return out


def _windowed(
    token_embedder: Any, text: str, window: int, overlap: int
) -> tuple[Any, list[tuple[int, int]]]:
    """Token vectors of a long text from overlapping macro windows."""
    tokenize = getattr(token_embedder, "tokenize", None)
    if tokenize is None:
        raise TypeError("window= needs a token embedder with tokenize(text) -> offsets")
    offsets = [(int(s), int(e)) for s, e in tokenize(text)]
    real = [o for o in offsets if o[1] > o[0]]
    out_vecs: list[Any] = []
    out_offs: list[tuple[int, int]] = []
    for s, e, ks, ke in macro_windows(len(real), window, overlap):
        lo, hi = real[s][0], real[e - 1][1]
        vecs, offs = _embed_tokens(token_embedder, text[lo:hi])
        # map the window's tokens back to document offsets; keep the tokens this window owns
        mapped = [(a + lo, b + lo) for a, b in offs]
        own = {real[t] for t in range(ks, ke)}
        for v, o in zip(vecs, mapped, strict=True):
            if o[1] > o[0] and o in own:
                out_vecs.append(v)
                out_offs.append(o)
    if not out_vecs:
        return np.zeros((0, 1), np.float32), []
    return np.stack(out_vecs), out_offs
