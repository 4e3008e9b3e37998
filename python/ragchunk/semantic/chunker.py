"""SemanticChunker: cuts where the meaning changes between neighbouring sentences."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..core import dispatch
from ..core.checks import check_text
from ..core.chunk import Chunk
from . import _numeric
from ._base import EmbeddingChunker, SemanticAnalysis
from .smoothing import local_minima

__all__ = ["BREAKPOINT_DEFAULTS", "SemanticChunker"]

#: Default ``breakpoint_threshold_amount`` of each threshold type.
BREAKPOINT_DEFAULTS: dict[str, float] = {
    "percentile": 95.0,
    "standard_deviation": 3.0,
    "interquartile": 1.5,
    "gradient": 95.0,
    "local_minima": 50.0,
}
_LANGCHAIN_TYPES = ("percentile", "standard_deviation", "interquartile", "gradient")
_LANGCHAIN_SENTENCES = r"(?<=[.?!])\s+"
_SENTENCES = re.compile(_LANGCHAIN_SENTENCES)


def _lc_sentences(
    text: str, buffer: int, spans_wanted: bool
) -> tuple[list[str], list[tuple[int, int]], list[str]]:
    """LangChain's sentences of ``text``, their spans (when ``spans_wanted``) and the window
    of each: the sentences before, each followed by a space, the sentence, then the
    sentences after, each after a space; that is one space-joined slice."""
    sentences = _SENTENCES.split(text)
    spans: list[tuple[int, int]] = []
    if spans_wanted:
        at = 0
        for m in _SENTENCES.finditer(text):
            spans.append((at, m.start()))
            at = m.end()
        spans.append((at, len(text)))
    n = len(sentences)
    combined = [" ".join(sentences[max(0, i - buffer) : i + buffer + 1]) for i in range(n)]
    return sentences, spans, combined


def _check_amount(kind: str, amount: float) -> float:
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        raise TypeError(
            f"breakpoint_threshold_amount must be a number, got {type(amount).__name__}"
        )
    value = float(amount)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"breakpoint_threshold_amount must be finite, got {amount!r}")
    if kind in ("percentile", "gradient", "local_minima") and not 0 <= value <= 100:
        raise ValueError(
            f"breakpoint_threshold_amount must be within [0, 100] for {kind!r}, got {amount!r}"
        )
    return value


def threshold(kind: str, amount: float, distances: Sequence[float]) -> tuple[float, list[float]]:
    """``(threshold, array compared with it)`` as LangChain computes them: ``percentile``
    (the ``amount``-th percentile), ``standard_deviation`` (mean + amount * std),
    ``interquartile`` (mean + amount * IQR) on the distances; ``gradient`` (the
    ``amount``-th percentile of the gradient, compared with the gradient).

    >>> threshold("percentile", 50, [0.1, 0.2, 0.9])
    (0.2, [0.1, 0.2, 0.9])
    """
    dist = list(distances)
    if kind == "percentile":
        return _numeric.percentile(dist, amount), dist
    if kind == "standard_deviation":
        m, s = _numeric.mean_std(dist)
        return m + amount * s, dist
    if kind == "interquartile":
        q1, q3 = _numeric.percentile(dist, 25.0), _numeric.percentile(dist, 75.0)
        m, _ = _numeric.mean_std(dist)
        return m + amount * (q3 - q1), dist
    if kind == "gradient":
        grad = _numeric.gradient(dist)
        return _numeric.percentile(grad, amount), grad
    raise ValueError(f"unknown breakpoint_threshold_type {kind!r}")


def threshold_for_chunks(number_of_chunks: int, distances: Sequence[float]) -> float:
    """LangChain's threshold for about ``number_of_chunks`` chunks: the percentile found by
    linear interpolation from (len(distances) -> 0) to (1 -> 100), clamped."""
    x1, y1 = float(len(distances)), 0.0
    x2, y2 = 1.0, 100.0
    x = max(min(float(number_of_chunks), x1), x2)
    y = y2 if x2 == x1 else y1 + ((y2 - y1) / (x2 - x1)) * (x - x1)
    y = min(max(y, 0.0), 100.0)
    return _numeric.percentile(list(distances), y)


class SemanticChunker(EmbeddingChunker):
    """Chunks cut where the embedding distance between neighbouring sentences peaks.

    Each sentence is embedded together with ``buffer_size`` sentences on each side; the
    distance between consecutive windows is ``1 - cosine``; a cut follows every sentence whose
    distance (or, for ``"gradient"``, the gradient of the distances) is strictly above the
    threshold: ``"percentile"`` (the ``amount``-th percentile, default 95),
    ``"standard_deviation"`` (mean + amount * std, default 3), ``"interquartile"`` (mean +
    amount * IQR, default 1.5), ``"gradient"`` (the amount-th percentile of the gradient,
    default 95), or ``"local_minima"`` (ragchunk's: local minima of the smoothed similarity
    curve below its ``amount``-th percentile, default 50; see
    :func:`ragchunk.semantic.local_minima`). ``number_of_chunks`` replaces the threshold with
    the percentile that gives about that many chunks (LangChain's interpolation).

    **ragchunk's mode** (default): chunks are exact source spans that together cover the
    whole text (the whitespace between sentences belongs to the chunk before it), sizes are
    tokens of ``tokenizer``; groups under ``min_chunk_size`` tokens join the neighbour across
    the smaller distance (unless that would pass ``chunk_size``); ``chunk_size`` is a hard
    maximum: a longer group is cut at its largest internal distance, recursively, and a
    sentence longer than ``chunk_size`` is cut into clauses, words or characters first (the
    one overflow: with a ``chunk_size`` of a few tokens, a unit that fits alone may not fit
    together with the whitespace around it, which its chunk still holds).
    Metadata: ``sentences`` (first, last unit), ``distance_before``, ``distance_after`` and
    ``cut`` (``"threshold"``, ``"max_size"`` or ``"end"``).

    **LangChain's mode** (``langchain_compat=True``): exactly
    ``langchain_experimental.text_splitter.SemanticChunker``'s chunks given the same
    embeddings: sentences from the regex ``(?<=[.?!])\\s+``, windows and chunks joined with
    single spaces (so ``metadata["rejoined"]`` is set and the text is not a source slice;
    ``start``/``end`` span its sentences), ``min_chunk_size`` in characters with LangChain's
    rule (a too-short group is carried into the next one), no maximum (``chunk_size`` must be
    None). The embedder is called as LangChain calls it: once per text, with every window in
    order (no de-duplication, sorting or cache), so an embedder whose vectors depend on the
    call gives LangChain's vectors too.

    Args:
        embedder: anything :func:`ragchunk.embeddings.as_embedder` accepts.

    >>> import numpy as np
    >>> def topic(texts):  # two topics: cats and stocks
    ...     return np.array([[t.count("cat") + 0.1, t.lower().count("stock") + 0.1] for t in texts])
    >>> s = SemanticChunker(topic, breakpoint_threshold_type="percentile",
    ...                     breakpoint_threshold_amount=50, buffer_size=0)
    >>> s.split_text("A cat sat. The cat slept. Stock prices fell. The stock rose.")
    ['A cat sat. The cat slept. ', 'Stock prices fell. The stock rose.']
    """

    def __init__(
        self,
        embedder: Any,
        breakpoint_threshold_type: str = "percentile",
        breakpoint_threshold_amount: float | None = None,
        buffer_size: int = 1,
        number_of_chunks: int | None = None,
        min_chunk_size: int | None = None,
        chunk_size: int | None = None,
        langchain_compat: bool = False,
        tokenizer: Any = "cl100k_base",
    ) -> None:
        if not isinstance(breakpoint_threshold_type, str):
            raise TypeError("breakpoint_threshold_type must be a str")
        kinds = _LANGCHAIN_TYPES if langchain_compat else tuple(BREAKPOINT_DEFAULTS)
        if breakpoint_threshold_type not in kinds:
            raise ValueError(
                f"breakpoint_threshold_type must be one of {kinds}, "
                f"got {breakpoint_threshold_type!r}"
            )
        self.breakpoint_threshold_type = breakpoint_threshold_type
        amount = breakpoint_threshold_amount
        if amount is None:
            amount = BREAKPOINT_DEFAULTS[breakpoint_threshold_type]
        self.breakpoint_threshold_amount = _check_amount(breakpoint_threshold_type, amount)
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, int):
            raise TypeError(f"buffer_size must be an int, got {type(buffer_size).__name__}")
        if buffer_size < 0:
            raise ValueError(f"buffer_size must be >= 0, got {buffer_size}")
        self.buffer_size = buffer_size
        for name, value in (
            ("number_of_chunks", number_of_chunks),
            ("min_chunk_size", min_chunk_size),
        ):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"{name} must be an int or None, got {type(value).__name__}")
            if value is not None and value < 1:
                raise ValueError(f"{name} must be >= 1, got {value}")
        self.number_of_chunks = number_of_chunks
        self.min_chunk_size = min_chunk_size
        if not isinstance(langchain_compat, bool):
            raise TypeError("langchain_compat must be a bool")
        if langchain_compat and chunk_size is not None:
            raise ValueError(
                "chunk_size must be None with langchain_compat=True (LangChain has no maximum)"
            )
        self.langchain_compat = langchain_compat
        self._setup(embedder, chunk_size, tokenizer)

    def __repr__(self) -> str:
        return (
            f"SemanticChunker(breakpoint_threshold_type={self.breakpoint_threshold_type!r}, "
            f"breakpoint_threshold_amount={self.breakpoint_threshold_amount}, "
            f"buffer_size={self.buffer_size}, number_of_chunks={self.number_of_chunks}, "
            f"min_chunk_size={self.min_chunk_size}, chunk_size={self.chunk_size}, "
            f"langchain_compat={self.langchain_compat}, tokenizer={self.tokenizer!r})"
        )

    def _method(self) -> str:
        return self.breakpoint_threshold_type

    # -- breakpoints -----------------------------------------------------------------------------

    def _breakpoints(self, distances: list[float]) -> tuple[float, list[float], list[int]]:
        kind = self.breakpoint_threshold_type
        if kind == "local_minima":
            cuts, smoothed, limit = local_minima(
                [1.0 - d for d in distances], self.breakpoint_threshold_amount
            )
            return limit, [1.0 - v for v in smoothed], cuts
        if self.number_of_chunks is not None:
            limit, array = threshold_for_chunks(self.number_of_chunks, distances), distances
        else:
            limit, array = threshold(kind, self.breakpoint_threshold_amount, distances)
        return limit, array, [i for i, x in enumerate(array) if x > limit]

    def _embed_distances(self, windows: list[str]) -> list[float]:
        assert self.embedder is not None
        emb = self.embedder.embed(windows)
        return _numeric.distances(emb)

    # -- ragchunk's mode -------------------------------------------------------------------------

    def _cuts(self, text: str, units: list[tuple[int, int]]) -> SemanticAnalysis:
        n = len(units)
        if n == 1:
            chunks = self._chunks(text, units, [(0, 0)], [], {})
            return SemanticAnalysis(units, [], None, [], [], chunks, self._method())
        distances = self._embed_distances(self.windows(text, units, self.buffer_size))
        limit: float | None
        array: list[float]
        cuts: list[int]
        if self.breakpoint_threshold_type == "gradient" and n == 2:
            limit, array, cuts = None, [], []  # no gradient of one distance
        else:
            limit, array, cuts = self._breakpoints(distances)
        groups, start = [], 0
        for c in cuts:
            groups.append((start, c))
            start = c + 1
        if start < n:
            groups.append((start, n - 1))
        if self.min_chunk_size is not None:
            groups = self._merge_small(text, units, distances, groups)
        reasons: dict[int, str] = {}
        groups = self._enforce_max(text, units, distances, groups, reasons)
        chunks = self._chunks(text, units, groups, distances, reasons)
        breaks = [g[1] for g in groups[:-1]]
        return SemanticAnalysis(units, distances, limit, breaks, array, chunks, self._method())

    def _merge_small(
        self,
        text: str,
        units: list[tuple[int, int]],
        distances: list[float],
        groups: list[tuple[int, int]],
    ) -> list[tuple[int, int]]:
        """Groups under ``min_chunk_size`` tokens joined with the neighbour across the
        smaller distance, unless the join passes ``chunk_size``."""
        assert self.min_chunk_size is not None

        def size(first: int, last: int) -> int:
            s = units[first][0]
            e = units[last + 1][0] if last + 1 < len(units) else len(text)
            return self._count([text[s:e]])[0]

        groups = list(groups)
        i = 0
        while i < len(groups) and len(groups) > 1:
            first, last = groups[i]
            if size(first, last) >= self.min_chunk_size:
                i += 1
                continue
            options = []
            if i > 0:
                options.append((distances[first - 1], i - 1))
            if i + 1 < len(groups):
                options.append((distances[last], i + 1))
            merged = False
            for _, j in sorted(options):
                a, b = (groups[j][0], last) if j < i else (first, groups[j][1])
                if self.chunk_size is None or size(a, b) <= self.chunk_size:
                    lo = min(i, j)
                    groups[lo : lo + 2] = [(a, b)]
                    i = lo
                    merged = True
                    break
            if not merged:
                i += 1
        return groups

    # -- LangChain's mode ------------------------------------------------------------------------

    def _langchain(
        self, text: str, spans_wanted: bool = True
    ) -> tuple[list[str], list[tuple[int, int]], SemanticAnalysis | None]:
        """LangChain's texts, their source extents and the diagnostics (extents and
        diagnostics only when ``spans_wanted``: ``split_text`` needs neither)."""
        sentences, spans, combined = dispatch.run(
            lambda core: core.semantic_lc_sentences(text, self.buffer_size, spans_wanted),
            lambda: _lc_sentences(text, self.buffer_size, spans_wanted),
        )
        n = len(sentences)
        if n == 1 or (self.breakpoint_threshold_type == "gradient" and n == 2):
            analysis = SemanticAnalysis(spans, [], method=self._method()) if spans_wanted else None
            return sentences, spans, analysis
        # One call with the windows in order, as LangChain makes it: an embedder whose vectors
        # depend on the call (per-call state, a hosted API's batching) gives the same vectors.
        assert self.embedder is not None
        distances = _numeric.distances(self.embedder.embed_in_order(combined))
        limit, array, cuts = self._breakpoints(distances)
        texts: list[str] = []
        extents: list[tuple[int, int]] = []
        breaks: list[int] = []
        start = 0
        minimum = self.min_chunk_size
        for index in cuts:
            joined = " ".join(sentences[start : index + 1])
            if minimum is not None and len(joined) < minimum:
                continue
            texts.append(joined)
            breaks.append(index)
            start = index + 1
        if start < n:
            texts.append(" ".join(sentences[start:]))
        if not spans_wanted:
            return texts, extents, None
        first = 0
        for index in breaks:
            extents.append((spans[first][0], spans[index][1]))
            first = index + 1
        if first < n:
            extents.append((spans[first][0], spans[-1][1]))
        analysis = SemanticAnalysis(spans, distances, limit, breaks, array, method=self._method())
        return texts, extents, analysis

    def analyze(self, text: str) -> SemanticAnalysis:
        """The chunks of ``text`` and the diagnostics behind them (distances, threshold,
        breakpoints)."""
        if not self.langchain_compat:
            return super().analyze(text)
        text = check_text(text)
        texts, extents, analysis = self._langchain(text)
        assert analysis is not None
        counts = self._count(texts)
        analysis.chunks = [
            Chunk(t, s, max(e, s), n, {"rejoined": True})
            for t, (s, e), n in zip(texts, extents, counts, strict=True)
        ]
        return analysis

    def split_text(self, text: str) -> list[str]:
        """Just the chunk strings (in LangChain's mode, exactly LangChain's ``split_text``)."""
        if self.langchain_compat:
            return self._langchain(check_text(text), spans_wanted=False)[0]
        return super().split_text(text)
