"""Search a store that ``ingest`` built: the chunks that answer a query, with their
citations (file, pages, boxes, heading path).

:func:`search` ranks a store's chunks by BM25 (``mode="bm25"``), by the cosine similarity of
their vectors to the query's (``mode="vector"``, needs the ``embedder`` the store was built
with), or by both fused by reciprocal rank (``mode="hybrid"``, the default; without an
embedder or vectors it is BM25 alone):

* LanceDB stores use LanceDB's own indexes: its full-text index on ``text`` (built on the
  first search when the store has none) and its vector search;
* Parquet and Chroma stores (and any other store) are ranked by
  :class:`ragchunk.eval.BM25` over the stored texts and by the stored vectors (numpy); the
  index of a Parquet store is built once and kept while the store's files are unchanged.

>>> import tempfile, ragchunk
>>> from ragchunk.ingest import Source, ingest
>>> where = "parquet:" + tempfile.mkdtemp()
>>> docs = [Source("a.md", "Cats purr."), Source("b.md", "Dogs bark."), Source("c.md", "Fish.")]
>>> _ = ingest(docs, where, ragchunk.RecursiveSplitter(64))
>>> [(h.source_id, h.text, h.citation()) for h in search(where, "which dogs bark?", k=1)]
[('b.md', 'Dogs bark.', 'b.md')]
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .stores import LanceDBStore, ParquetStore, Store, open_store, store_identity

__all__ = ["SEARCH_MODES", "Hit", "search"]

#: ``mode=`` values of :func:`search`.
SEARCH_MODES = ("hybrid", "bm25", "vector")
# reciprocal-rank fusion: score = sum of 1 / (_RRF_C + rank) over the ranked lists
_RRF_C = 60.0
_COLUMNS: tuple[str, ...] = ("id", "source_id", "chunk_index", "text", "start", "end")
_COLUMNS += ("token_count", "heading_path", "pages", "boxes", "metadata")


@dataclass(frozen=True)
class Hit:
    """One chunk that answers a query: its ``source_id`` (the file), ``text``, ``start`` and
    ``end`` (code-point offsets into the source's text), ``heading_path``, ``pages`` and
    ``boxes`` (``(x0, top, x1, bottom)`` in points; None where the source has none), the
    chunk ``id``, ``chunk_index`` and ``token_count``, and the ``score`` (higher is better:
    the BM25 score, the cosine similarity, or the fused reciprocal-rank score).

    >>> Hit("a.pdf", "x", 0, 1, ["Intro"], [2, 3], [[1.0, 2.0, 3.0, 4.0]], 1.5).citation()
    'a.pdf, pages 2-3, Intro'
    """

    source_id: str
    text: str
    start: int | None
    end: int | None
    heading_path: list[str] | None
    pages: list[int] | None
    boxes: list[list[float]] | None
    score: float
    id: str = ""
    chunk_index: int = 0
    token_count: int = 0

    def citation(self) -> str:
        """``file, page(s), heading path``: where the chunk is."""
        parts = [self.source_id]
        if self.pages:
            lo, hi = min(self.pages), max(self.pages)
            parts.append(f"page {lo}" if lo == hi else f"pages {lo}-{hi}")
        if self.heading_path:
            parts.append(" > ".join(self.heading_path))
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The hit as JSON-able data, with its ``citation``.

        >>> Hit("a.md", "x", 0, 1, None, None, None, 1.0).to_dict()["citation"]
        'a.md'
        """
        out = asdict(self)
        out["citation"] = self.citation()
        return out


def search(
    store: str | Store,
    query: str,
    *,
    k: int = 10,
    mode: str = "hybrid",
    filter: Mapping[str, Any] | None = None,
    embedder: Any = None,
) -> list[Hit]:
    """The ``k`` best chunks of ``store`` for ``query``, best first.

    Args:
        store: a store URL (``lancedb:DIR``, ``parquet:DIR``, ``chroma:DIR``...) or a store.
        query: the question or words to look for (not empty).
        k: the number of hits.
        mode: one of :data:`SEARCH_MODES`.
        filter: ``{column: value}`` (or ``{column: [values]}``): only chunks whose column
            equals the value (one of the values), e.g. ``{"source_id": "guide.pdf"}``.
        embedder: the embedder the store's vectors were made with (anything
            :func:`ragchunk.embeddings.as_embedder` takes); needed for ``mode="vector"``.

    Raises:
        ValueError, TypeError: a bad argument (the message names it).

    >>> search("parquet:/nonexistent-folder", "")
    Traceback (most recent call last):
    ...
    ValueError: query must be a non-empty str, got ''
    """
    from ..eval.retrievers import check_k

    if not isinstance(query, str) or not query.strip():
        raise ValueError(f"query must be a non-empty str, got {query!r}")
    check_k(k)
    if mode not in SEARCH_MODES:
        raise ValueError(f"mode must be one of {SEARCH_MODES}, got {mode!r}")
    where = _check_filter(filter)
    if mode == "vector" and embedder is None:
        raise ValueError("embedder: mode='vector' needs the embedder the store was built with")
    st = open_store(store)
    try:
        vector = None
        if embedder is not None and mode != "bm25":
            from ..embeddings import as_embedder

            vector = [float(x) for x in as_embedder(embedder).embed([query])[0]]
        if isinstance(st, LanceDBStore):
            return _lancedb(st, query, k, mode, where, vector)
        return _generic(st, query, k, mode, where, vector)
    finally:
        if st is not store:
            st.close()


def _check_filter(filter: object) -> dict[str, list[Any]]:
    if filter is None:
        return {}
    if not isinstance(filter, Mapping):
        raise TypeError(f"filter must be a dict {{column: value}}, got {type(filter).__name__}")
    out: dict[str, list[Any]] = {}
    for column, value in filter.items():
        if column not in ("id", "source_id", "chunk_index", "text", "start", "end"):
            raise ValueError(
                f"filter: {column!r} is not a column to filter on (id, source_id, "
                "chunk_index, text, start, end)"
            )
        if isinstance(value, (list, tuple, set, frozenset)):
            out[column] = list(value)
        else:
            out[column] = [value]
    return out


def _hit(row: Mapping[str, Any], score: float) -> Hit:
    return Hit(
        source_id=row["source_id"],
        text=row["text"],
        start=row.get("start"),
        end=row.get("end"),
        heading_path=row.get("heading_path"),
        pages=row.get("pages"),
        boxes=row.get("boxes"),
        score=float(score),
        id=row.get("id") or "",
        chunk_index=int(row.get("chunk_index") or 0),
        token_count=int(row.get("token_count") or 0),
    )


def _fuse(lists: Sequence[Sequence[Any]], k: int) -> list[tuple[Any, float]]:
    """Reciprocal-rank fusion of ranked lists of keys (ties: the first list's order)."""
    scores: dict[Any, float] = {}
    for ranked in lists:
        for rank, key in enumerate(ranked, 1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (_RRF_C + rank)
    order = {key: i for i, key in enumerate(key for ranked in lists for key in ranked)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))[:k]


# ---------------------------------------------------------------------------------------------
# any store: ragchunk's BM25 and numpy over the stored rows


class _Index:
    """A store's rows, their BM25 index and (with numpy) their normalised vectors."""

    def __init__(self, table: Any) -> None:
        from ..eval import BM25

        self.rows = table.select([c for c in _COLUMNS if c in table.column_names]).to_pylist()
        self.texts = [r["text"] for r in self.rows]
        self.bm25 = BM25().index(self.texts) if self.texts else None
        self.table = table
        self._vectors: Any = None

    def vectors(self) -> Any:
        if self._vectors is None and "vector" in self.table.column_names:
            from ..core.optional import np

            m = np.asarray(self.table["vector"].to_pylist(), dtype=np.float32)
            norms = np.linalg.norm(m, axis=1, keepdims=True)
            self._vectors = m / np.where(norms == 0, 1, norms)
        return self._vectors

    def mask(self, where: dict[str, list[Any]]) -> set[int] | None:
        if not where:
            return None
        return {
            i
            for i, r in enumerate(self.rows)
            if all(r.get(col) in values for col, values in where.items())
        }


_CACHE: dict[str, tuple[Any, _Index]] = {}


def _signature(st: Store) -> Any:
    if isinstance(st, ParquetStore):
        out = []
        for name in st.files():
            stat = os.stat(os.path.join(st.path, name))
            out.append((name, stat.st_size, stat.st_mtime_ns))
        return tuple(out)
    return None  # unknown: read again every time


def _index(st: Store) -> _Index:
    key = store_identity(st)
    sig = _signature(st)
    cached = _CACHE.get(key)
    if cached is not None and sig is not None and cached[0] == sig:
        return cached[1]
    index = _Index(st.read())
    if sig is not None:
        if len(_CACHE) >= 4:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = (sig, index)
    return index


def _generic(
    st: Store,
    query: str,
    k: int,
    mode: str,
    where: dict[str, list[Any]],
    vector: list[float] | None,
) -> list[Hit]:
    index = _index(st)
    if not index.rows:
        return []
    allowed = index.mask(where)
    depth = len(index.rows) if allowed is not None else max(k, 50 if mode == "hybrid" else k)
    lists: list[list[tuple[int, float]]] = []
    if mode in ("bm25", "hybrid") and index.bm25 is not None:
        from ..eval import tokenize

        got = index.bm25.search([query], min(depth, len(index.rows)))[0]
        words = set(tokenize(query))
        # a hit shares a word with the query (BM25's idf is not positive for a word in most
        # chunks of a small store, so the score alone cannot tell)
        lists.append(
            [
                (i, s)
                for i, s in got
                if (allowed is None or i in allowed) and words & set(tokenize(index.texts[i]))
            ]
        )
    vectors = index.vectors() if vector is not None else None
    if mode in ("vector", "hybrid") and vectors is not None and vector is not None:
        from ..core.optional import np

        q = np.asarray(vector, dtype=np.float32)
        q = q / (np.linalg.norm(q) or 1.0)
        sims = vectors @ q
        order = np.argsort(-sims, kind="stable")
        ranked = [(int(i), float(sims[i])) for i in order if allowed is None or int(i) in allowed]
        lists.append(ranked[:depth])
    if not lists:
        return []
    if len(lists) == 1:
        best = lists[0][:k]
    else:
        best = _fuse([[i for i, _ in ranked] for ranked in lists], k)
    return [_hit(index.rows[i], s) for i, s in best]


# ---------------------------------------------------------------------------------------------
# LanceDB: its full-text index and its vector search


def _sql(where: dict[str, list[Any]]) -> str | None:
    parts = []
    for column, values in where.items():
        items = []
        for v in values:
            if isinstance(v, str):
                items.append("'" + v.replace("'", "''") + "'")
            elif isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"filter[{column!r}] values must be str or numbers, got {v!r}")
            else:
                items.append(repr(v))
        name = f"`{column}`"
        parts.append(f"{name} IN ({', '.join(items)})")
    return " AND ".join(parts) or None


def _lancedb(
    st: LanceDBStore,
    query: str,
    k: int,
    mode: str,
    where: dict[str, list[Any]],
    vector: list[float] | None,
) -> list[Hit]:
    tbl = st._open()
    if tbl is None or not tbl.count_rows():
        return []
    sql = _sql(where)
    depth = max(k, 50) if mode == "hybrid" else k
    lists: list[list[tuple[str, float, dict[str, Any]]]] = []
    columns = [c for c in _COLUMNS if c in tbl.schema.names]
    if mode in ("bm25", "hybrid"):
        _ensure_fts(tbl)
        q = tbl.search(query, query_type="fts").select([*columns, "_score"]).limit(depth)
        if sql:
            q = q.where(sql, prefilter=True)
        rows = q.to_arrow().to_pylist()
        lists.append([(r["id"], float(r.get("_score") or 0.0), r) for r in rows])
    if mode in ("vector", "hybrid") and vector is not None and "vector" in tbl.schema.names:
        q = tbl.search(vector, vector_column_name="vector").distance_type("cosine")
        q = q.select(columns).limit(depth)
        if sql:
            q = q.where(sql, prefilter=True)
        rows = q.to_arrow().to_pylist()
        lists.append([(r["id"], 1.0 - float(r["_distance"]), r) for r in rows])
    if not lists:
        return []
    if len(lists) == 1:
        return [_hit(r, s) for _, s, r in lists[0][:k]]
    by_id = {i: r for ranked in lists for i, _, r in ranked}
    fused = _fuse([[i for i, _, _ in ranked] for ranked in lists], k)
    return [_hit(by_id[i], s) for i, s in fused]


def _ensure_fts(tbl: Any) -> None:
    for index in tbl.list_indices():
        kind = str(getattr(index, "index_type", "")).upper()
        if "FTS" in kind and "text" in list(getattr(index, "columns", [])):
            return
    tbl.create_fts_index("text", replace=True)


def hits_json(hits: Sequence[Hit]) -> str:
    """The hits as a JSON array (one object a hit, see :meth:`Hit.to_dict`).

    >>> hits_json([Hit("a.md", "x", 0, 1, None, None, None, 1.0)])[:20]
    '[{"source_id": "a.md'
    """
    return json.dumps([h.to_dict() for h in hits], ensure_ascii=False)
