"""Retrievers: BM25 (Rust, or the identical pure-Python fallback), exact dense cosine search
with any embedder, and hybrids by reciprocal-rank fusion.

A retriever is configured once; :meth:`index` builds a searchable index over chunk texts, and
the index's ``search(queries, k)`` returns, per query, ``(chunk index, score)`` pairs, best
first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from .._pure.eval import bm25 as _pure_bm25
from .._pure.eval.tokenize import KINDS
from ..core import dispatch

__all__ = ["BM25", "Dense", "Hybrid", "Retriever", "SearchIndex", "tokenize"]

Hits = list[list[tuple[int, float]]]


class SearchIndex(Protocol):
    """What :meth:`Retriever.index` returns."""

    def search(self, queries: Sequence[str], k: int) -> Hits: ...


class Retriever(Protocol):
    """Anything with ``index(texts) -> SearchIndex``."""

    def index(self, texts: Sequence[str]) -> SearchIndex: ...


def check_k(k: object, name: str = "k") -> int:
    """``k`` as an int >= 1, or an error naming ``name``."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"{name} must be an int, got {type(k).__name__}")
    if k <= 0:
        raise ValueError(f"{name} must be >= 1, got {k}")
    return k


def _check_texts(texts: object, name: str) -> list[str]:
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise TypeError(f"{name} must be a list of str, got {type(texts).__name__}")
    out = list(texts)
    if set(map(type, out)) <= {str}:  # the common case, checked at C speed
        return out
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"{name}[{i}] must be a str, got {type(t).__name__}")
    return out


def tokenize(text: str, tokenizer: str = "english") -> list[str]:
    """The tokens BM25 indexes ``text`` by.

    ``english`` lowercases, splits at punctuation and whitespace and drops common English stop
    words; ``cjk`` also makes every Han ideograph and kana character a token; ``whitespace``
    only splits.

    >>> tokenize("The quick brown fox's den.")
    ['quick', 'brown', 'fox', 's', 'den']
    >>> tokenize("東京は大きい", "cjk")
    ['東', '京', 'は', '大', 'き', 'い']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    _check_tokenizer(tokenizer)
    return dispatch.run(
        lambda core: list(core.bm25_tokenize(text, tokenizer)),
        lambda: _pure_bm25.bm25_tokenize(text, tokenizer),
    )


def _check_tokenizer(tokenizer: object) -> None:
    if not (callable(tokenizer) or tokenizer in KINDS):
        raise ValueError(
            f"tokenizer must be one of {KINDS} or a callable str -> list[str], got {tokenizer!r}"
        )


class BM25:
    """Okapi BM25 with ``rank_bm25``'s ``BM25Okapi`` scoring, equal to the last bit on the same
    tokens.

    ``score(D, q) = sum over query tokens t of idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b *
    |D| / avgdl))`` with ``idf(t) = ln(N - df + 0.5) - ln(df + 0.5)``; a negative idf is replaced
    by ``epsilon`` times the mean idf of the vocabulary. Equal scores rank in chunk order.

    Args:
        k1, b, epsilon: the BM25 parameters (``rank_bm25``'s defaults).
        tokenizer: ``"english"``, ``"cjk"``, ``"whitespace"`` (see :func:`tokenize`) or a
            callable ``str -> list[str]``.

    >>> index = BM25().index(["the cat sat", "a dog barked", "cats and dogs"])
    >>> [i for i, _ in index.search(["dog"], k=2)[0]]
    [1, 0]
    """

    name = "bm25"

    def __init__(
        self,
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        tokenizer: str | Callable[[str], list[str]] = "english",
    ) -> None:
        for n, v in (("k1", k1), ("b", b), ("epsilon", epsilon)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"{n} must be a number, got {type(v).__name__}")
        if not k1 >= 0 or k1 == float("inf"):
            raise ValueError(f"k1 must be a finite number >= 0, got {k1}")
        if not 0 <= b <= 1:
            raise ValueError(f"b must be between 0 and 1, got {b}")
        _check_tokenizer(tokenizer)
        self.k1, self.b, self.epsilon, self.tokenizer = (
            float(k1),
            float(b),
            float(epsilon),
            tokenizer,
        )

    def __repr__(self) -> str:
        return (
            f"BM25(k1={self.k1}, b={self.b}, epsilon={self.epsilon}, tokenizer={self.tokenizer!r})"
        )

    def index(self, texts: Sequence[str]) -> BM25Index:
        """Index ``texts`` (the chunk texts)."""
        return BM25Index(self, _check_texts(texts, "texts"))

    def index_tokens(self, docs: Sequence[Sequence[str]]) -> BM25Index:
        """Index documents given as token lists (query with :meth:`BM25Index.search_tokens`).

        >>> BM25().index_tokens([["a", "b"], ["b", "c"], ["d"]]).scores(["a"])[1]
        0.0
        """
        return BM25Index(self, None, [list(d) for d in docs])


class BM25Index:
    """A built BM25 index (see :class:`BM25`)."""

    def __init__(
        self, cfg: BM25, texts: list[str] | None, tokens: list[list[str]] | None = None
    ) -> None:
        self._cfg = cfg
        tok = cfg.tokenizer
        self._callable = callable(tok)
        if texts is not None and callable(tok):
            tokens = [list(tok(t)) for t in texts]
            texts = None
        self._texts, self._tokens = texts, tokens
        self._built: dict[str, Any] = {}

    def _impl(self) -> Any:
        backend = dispatch.name()
        if backend not in self._built:
            cfg = self._cfg
            args = (cfg.k1, cfg.b, cfg.epsilon)

            def rust(core: Any) -> Any:
                if self._texts is not None:
                    return core.Bm25Index(self._texts, cfg.tokenizer, *args)
                return core.Bm25Index.from_tokens(self._tokens, *args)

            def pure() -> Any:
                if self._texts is not None:
                    return _pure_bm25.Bm25Index(self._texts, str(cfg.tokenizer), *args)
                return _pure_bm25.Bm25Index.from_tokens(self._tokens or [], *args)

            self._built[backend] = dispatch.run(rust, pure)
        return self._built[backend]

    def __len__(self) -> int:
        return len(self._impl())

    def scores(self, query: Sequence[str]) -> list[float]:
        """Every chunk's score for a tokenized query (``rank_bm25``'s ``get_scores``)."""
        return list(self._impl().scores(list(query)))

    def search_tokens(self, queries: Sequence[Sequence[str]], k: int) -> Hits:
        """The best ``k`` chunks of every tokenized query."""
        check_k(k)
        hits: Hits = self._impl().search_tokens([list(q) for q in queries], k)
        return hits

    def search(self, queries: Sequence[str], k: int) -> Hits:
        """The best ``k`` chunks of every query: ``(chunk index, score)``, best first."""
        check_k(k)
        queries = _check_texts(queries, "queries")
        if self._texts is None:
            tok = self._cfg.tokenizer
            if not callable(tok):
                return self.search_tokens([tokenize(q, str(tok)) for q in queries], k)
            return self.search_tokens([list(tok(q)) for q in queries], k)
        hits: Hits = self._impl().search(queries, k)  # new lists, on both backends
        return hits


def _embed_fn(obj: Any) -> Callable[[list[str]], Any]:
    """The embedding function of anything :func:`ragchunk.embeddings.as_embedder` accepts."""
    from ..embeddings import as_embedder

    return as_embedder(obj).embed


def _matrix(out: Any, n: int, what: str, dim: int | None = None) -> Any:
    from ..core.optional import np

    try:
        m = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"embedder returned {type(out).__name__} for {what}, not a numeric array"
        ) from None
    if m.ndim != 2 or m.shape[0] != n:
        raise ValueError(f"embedder returned shape {m.shape} for {n} {what}; expected ({n}, d)")
    if dim is not None and m.shape[1] != dim:
        raise ValueError(
            f"embedder returned dimension {m.shape[1]} for {what} but {dim} for the chunks"
        )
    if not np.isfinite(m).all():
        raise ValueError(f"embedder returned non-finite values for {what}")
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1.0, norms)


class Dense:
    """Exact cosine top-k over the embeddings of any embedder (needs numpy).

    Args:
        embedder: an object with ``.embed(list[str]) -> array (n, d)`` or ``.encode``, or a
            plain callable doing the same.
        batch_size: texts per embedder call.

    >>> import numpy as np
    >>> vocab = ["cat", "dog", "fish"]
    >>> embed = lambda texts: np.array([[t.count(w) for w in vocab] for t in texts], float)
    >>> Dense(embed).index(["cat cat", "dog", "fish dog"]).search(["dog"], k=1)[0][0][0]
    1
    """

    name = "dense"

    def __init__(self, embedder: Any, batch_size: int = 256) -> None:
        self._fn = _embed_fn(embedder)
        self.embedder = embedder
        self.batch_size = check_k(batch_size, "batch_size")

    def __repr__(self) -> str:
        return f"Dense({type(self.embedder).__name__})"

    def embed(self, texts: Sequence[str], what: str = "texts", dim: int | None = None) -> Any:
        from ..core.optional import np

        texts = list(texts)
        parts = [
            _matrix(
                self._fn(texts[i : i + self.batch_size]),
                len(texts[i : i + self.batch_size]),
                what,
                dim,
            )
            for i in range(0, len(texts), self.batch_size)
        ]
        if not parts:
            return np.zeros((0, dim or 0))
        return np.vstack(parts)

    def index(self, texts: Sequence[str]) -> DenseIndex:
        """Embed ``texts`` (the chunk texts)."""
        return DenseIndex(self, self.embed(_check_texts(texts, "texts"), "texts"))


class DenseIndex:
    """A built dense index (see :class:`Dense`)."""

    def __init__(self, cfg: Dense, matrix: Any) -> None:
        self._cfg, self.matrix = cfg, matrix

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    def search(self, queries: Sequence[str], k: int) -> Hits:
        """The best ``k`` chunks of every query by cosine similarity, ties in chunk order."""
        from ..core.optional import np

        check_k(k)
        queries = _check_texts(queries, "queries")
        if not queries or len(self) == 0:
            return [[] for _ in queries]
        q = self._cfg.embed(queries, "queries", int(self.matrix.shape[1]))
        sims = q @ self.matrix.T
        out: Hits = []
        idx = np.arange(sims.shape[1])
        for row in sims:
            order = np.lexsort((idx, -row))[:k]
            out.append([(int(i), float(row[i])) for i in order])
        return out


class Hybrid:
    """Reciprocal-rank fusion of several retrievers: ``score = sum 1 / (c + rank)`` over the
    ranked lists (ranks from 1, each list ``depth`` long); equal scores in chunk order.

    >>> idx = Hybrid([BM25(), BM25(k1=1.2)]).index(["red apple", "green pear", "red pear", "fig"])
    >>> idx.search(["green pear"], k=1)[0][0][0]
    1
    """

    name = "hybrid"

    def __init__(self, retrievers: Sequence[Retriever], c: float = 60.0, depth: int = 100) -> None:
        if (
            isinstance(retrievers, (str, bytes))
            or not isinstance(retrievers, Sequence)
            or not retrievers
        ):
            raise ValueError("retrievers must be a non-empty list of retrievers")
        for i, r in enumerate(retrievers):
            if not callable(getattr(r, "index", None)):
                raise TypeError(f"retrievers[{i}] has no index(texts) method")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or c < 0:
            raise ValueError(f"c must be a number >= 0, got {c!r}")
        self.retrievers, self.c, self.depth = list(retrievers), float(c), check_k(depth, "depth")

    def __repr__(self) -> str:
        return f"Hybrid({self.retrievers!r}, c={self.c}, depth={self.depth})"

    def index(self, texts: Sequence[str]) -> HybridIndex:
        texts = _check_texts(texts, "texts")
        return HybridIndex(self, [r.index(texts) for r in self.retrievers])


class HybridIndex:
    """A built hybrid index (see :class:`Hybrid`)."""

    def __init__(self, cfg: Hybrid, parts: list[SearchIndex]) -> None:
        self._cfg, self._parts = cfg, parts

    def search(self, queries: Sequence[str], k: int) -> Hits:
        check_k(k)
        queries = _check_texts(queries, "queries")
        depth = max(self._cfg.depth, k)
        lists = [p.search(queries, depth) for p in self._parts]
        out: Hits = []
        for qi in range(len(queries)):
            fused: dict[int, float] = {}
            for hits in lists:
                for rank, (doc, _) in enumerate(hits[qi], 1):
                    fused[doc] = fused.get(doc, 0.0) + 1.0 / (self._cfg.c + rank)
            out.append(sorted(fused.items(), key=lambda x: (-x[1], x[0]))[:k])
        return out
