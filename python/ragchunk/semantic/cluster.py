"""ClusterSemanticChunker: the segmentation that maximises within-chunk similarity."""

from __future__ import annotations

from typing import Any

from ..core.checks import check_int
from ..core.optional import np
from ..splitters.sentence import SentenceSplitter
from . import _numeric
from ._base import EmbeddingChunker, SemanticAnalysis, slices, unit_extents

__all__ = ["ClusterSemanticChunker"]


class ClusterSemanticChunker(EmbeddingChunker):
    """Chunks chosen by dynamic programming over the similarities of small pieces (the
    method of Chroma's chunking evaluation, written for exact spans and a strict maximum).

    The text is cut into pieces of whole sentences of at most ``piece_size`` tokens; each
    piece is embedded once; ``S`` is their cosine similarity matrix minus the mean of its
    off-diagonal entries, with a zero diagonal. **What it optimises**: among all ways of
    grouping consecutive pieces into chunks of at most ``chunk_size`` tokens (counted
    exactly on each chunk's text), the one with the largest total within-chunk similarity
    ``sum over chunks of sum(S[a..b, a..b])``. Subtracting the mean makes a pair of
    below-average similarity cost reward, so unrelated pieces are kept apart and related runs
    kept together; the maximum holds strictly (every candidate chunk is counted, not
    estimated from piece sizes). Chunks are exact spans covering the whole text.

    >>> import numpy as np
    >>> def topic(texts):
    ...     rows = [[t.count("cat"), t.lower().count("stock")] for t in texts]
    ...     return np.array(rows) + 0.01
    >>> c = ClusterSemanticChunker(topic, chunk_size=20, piece_size=8)
    >>> c.split_text("A cat sat. The cat slept. Stock prices fell. The stock rose.")
    ['A cat sat. The cat slept. ', 'Stock prices fell. The stock rose.']
    """

    def __init__(
        self,
        embedder: Any,
        chunk_size: int = 400,
        piece_size: int = 50,
        tokenizer: Any = "cl100k_base",
    ) -> None:
        self.piece_size = check_int("piece_size", piece_size, 1)
        check_int("chunk_size", chunk_size, 1)
        if piece_size > chunk_size:
            raise ValueError(f"piece_size ({piece_size}) must be <= chunk_size ({chunk_size})")
        self._setup(embedder, chunk_size, tokenizer)

    def __repr__(self) -> str:
        return (
            f"ClusterSemanticChunker(chunk_size={self.chunk_size}, "
            f"piece_size={self.piece_size}, tokenizer={self.tokenizer!r})"
        )

    def units(self, text: str) -> list[tuple[int, int]]:
        """Pieces: whole sentences packed up to ``piece_size`` tokens (a longer sentence
        cut), each within the embedder's window and, with its trailing whitespace, within
        ``chunk_size``."""
        sentences = super().units(text)
        if not sentences:
            return sentences
        packer = SentenceSplitter(chunk_size=self.piece_size, tokenizer=self.tokenizer)
        start, end = sentences[0][0], sentences[-1][1]
        pieces = [(start + c.start, start + c.end) for c in packer.split(text[start:end])]
        e = self.embedder
        if e is not None and e.max_tokens is not None:
            pieces = self._fit(text, pieces, e.max_tokens, e.tokenizer, e.count_tokens)
        return pieces or sentences

    def _cuts(self, text: str, units: list[tuple[int, int]]) -> SemanticAnalysis:
        n = len(units)
        assert self.embedder is not None
        emb = self.embedder.embed(slices(text, units))
        distances = _numeric.distances(emb)
        if n == 1:
            chunks = self._chunks(text, units, [(0, 0)], distances, {})
            return SemanticAnalysis(units, distances, None, [], None, chunks, "cluster")
        sim = _numeric.similarity_matrix(emb)
        upper = sim[np.triu_indices(n, k=1)]
        sim = sim - float(np.mean(upper))
        np.fill_diagonal(sim, 0.0)
        prefix = np.zeros((n + 1, n + 1))
        prefix[1:, 1:] = sim.cumsum(axis=0).cumsum(axis=1)

        def reward(a: int, b: int) -> float:  # pieces a..b inclusive
            return float(prefix[b + 1, b + 1] - prefix[a, b + 1] - prefix[b + 1, a] + prefix[a, a])

        assert self.chunk_size is not None
        limit = self.chunk_size
        piece_tokens = self._count_spans(text, unit_extents(text, units))
        best = [0.0] + [float("-inf")] * n
        back = [0] * (n + 1)
        for i in range(1, n + 1):
            # candidates: pieces j..i-1, widened while their summed sizes stay plausible
            js, spans, total = [], [], 0
            for j in range(i - 1, -1, -1):
                total += piece_tokens[j]
                if j < i - 1 and total > 2 * limit:
                    break
                s = 0 if j == 0 else units[j][0]
                e = units[i][0] if i < n else len(text)
                js.append(j)
                spans.append(text[s:e])
            counts = self._count(spans)
            for j, c in zip(js, counts, strict=True):
                if c > limit and j < i - 1:
                    continue
                value = best[j] + reward(j, i - 1)
                if value > best[i]:
                    best[i], back[i] = value, j
        groups: list[tuple[int, int]] = []
        i = n
        while i > 0:
            groups.append((back[i], i - 1))
            i = back[i]
        groups.reverse()
        reasons = {g[1]: "cluster" for g in groups[:-1]}
        chunks = self._chunks(text, units, groups, distances, reasons)
        breaks = [g[1] for g in groups[:-1]]
        return SemanticAnalysis(units, distances, None, breaks, None, chunks, "cluster")
