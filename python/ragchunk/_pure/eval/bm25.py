"""Okapi BM25 scored exactly as ``rank_bm25``'s ``BM25Okapi`` (``rust/eval/bm25.rs``): the same
floating-point operations in the same order."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .tokenize import tokenize

__all__ = ["Bm25Index", "top_k"]


def top_k(scores: Sequence[float], k: int) -> list[tuple[int, float]]:
    """The best ``k`` of ``scores``, best first, ties in index order."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
    return [(i, scores[i]) for i in order]


class Bm25Index:
    """A BM25 index over documents (tokenized by a named tokenizer, or given as tokens)."""

    def __init__(
        self, docs: Sequence[str], tokenizer: str, k1: float, b: float, epsilon: float
    ) -> None:
        self._kind: str | None = tokenizer
        self._build([tokenize(d, tokenizer) for d in docs], k1, b, epsilon)

    @classmethod
    def from_tokens(
        cls, docs: Sequence[Sequence[str]], k1: float, b: float, epsilon: float
    ) -> Bm25Index:
        self = cls.__new__(cls)
        self._kind = None
        self._build(docs, k1, b, epsilon)
        return self

    def _build(self, docs: Sequence[Sequence[str]], k1: float, b: float, epsilon: float) -> None:
        self.k1, self.b = k1, b
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._doc_len = [len(d) for d in docs]
        for d, doc in enumerate(docs):
            counts: dict[str, int] = {}
            for tok in doc:
                counts[tok] = counts.get(tok, 0) + 1
            for tok, tf in counts.items():
                self._postings.setdefault(tok, []).append((d, tf))
        n = len(docs)
        self._avgdl = sum(self._doc_len) / n if n else 0.0
        idf = {
            t: math.log(n - len(p) + 0.5) - math.log(len(p) + 0.5)
            for t, p in self._postings.items()
        }
        if idf:
            total = 0.0
            for v in idf.values():
                total += v
            eps = epsilon * (total / len(idf))
            for t, v in idf.items():
                if v < 0:
                    idf[t] = eps
        self._idf = idf

    def __len__(self) -> int:
        return len(self._doc_len)

    def idf(self, token: str) -> float:
        return self._idf.get(token, 0.0)

    def scores(self, query: Sequence[str]) -> list[float]:
        score = [0.0] * len(self._doc_len)
        if self._avgdl == 0.0:
            return score
        k1, b, avgdl = self.k1, self.b, self._avgdl
        for q in query:
            postings = self._postings.get(q)
            if postings is None:
                continue
            idf = self._idf[q]
            for d, tf in postings:
                norm = k1 * (1.0 - b + b * self._doc_len[d] / avgdl)
                score[d] += idf * (tf * (k1 + 1.0) / (tf + norm))
        return score

    def search_tokens(
        self, queries: Sequence[Sequence[str]], k: int
    ) -> list[list[tuple[int, float]]]:
        return [top_k(self.scores(q), k) for q in queries]

    def search(self, queries: Sequence[str], k: int) -> list[list[tuple[int, float]]]:
        if self._kind is None:
            raise ValueError("this index was built from tokens: query it with search_tokens")
        return [top_k(self.scores(tokenize(q, self._kind)), k) for q in queries]


def bm25_tokenize(text: str, tokenizer: str) -> list[str]:
    """The tokens of ``text`` by the named tokenizer."""
    return tokenize(text, tokenizer)
