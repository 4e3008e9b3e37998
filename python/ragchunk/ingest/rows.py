"""A source's store rows: chunk ids, the configuration hash, and the rows of
:func:`~ragchunk.ingest.stores.row_schema` built once from the chunker's output.

Texts (a text file is a :func:`ragchunk.documents.text_document`, a source made in memory
its ``str``) go through :func:`ragchunk.chunk_table` and stay Arrow arrays; a parsed
:class:`ragchunk.documents.Document` is chunked by :func:`ragchunk.documents.chunk_document`
and its rows are built straight from the :class:`~ragchunk.Chunk` fields: the heading path,
the pages and the boxes, ``(x0, top, x1, bottom)`` as the documents give them.

>>> import ragchunk
>>> config_hash(ragchunk.RecursiveSplitter(8)) == config_hash(ragchunk.RecursiveSplitter(8))
True
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ..core.optional import load
from .stores import row_schema

__all__ = ["chunk_id", "config_hash"]


def config_hash(chunker: Any, embedder_model: str | None = None) -> str:
    """The hash of what decides a source's chunks and vectors: the chunker's class and
    configuration (its ``repr``), the ragchunk version, and the embedder's model name.

    >>> import ragchunk
    >>> config_hash(ragchunk.RecursiveSplitter(64)) == config_hash(ragchunk.RecursiveSplitter(64))
    True
    >>> config_hash(ragchunk.RecursiveSplitter(64)) == config_hash(ragchunk.RecursiveSplitter(65))
    False
    """
    from .. import __version__

    cls = type(chunker)
    desc = {
        "chunker": f"{cls.__module__}.{cls.__qualname__}",
        "config": repr(chunker),
        "ragchunk": __version__,
        "embedder": embedder_model,
        "rows": 3,
    }
    return hashlib.sha256(json.dumps(desc, sort_keys=True).encode()).hexdigest()[:32]


def _id_prefix(source_id: str, config: str) -> hashlib._Hash:
    sid = source_id.encode("utf-8", "surrogatepass")
    cfg = config.encode("utf-8", "surrogatepass")
    return hashlib.sha256(b"%d:%s%d:%s" % (len(sid), sid, len(cfg), cfg))


def _id_head(chunk_index: int, start: int | None, end: int | None, size: int) -> bytes:
    return f"{chunk_index}:{start}:{end}:{size}:".encode()


def chunk_id(
    source_id: str,
    config: str,
    chunk_index: int,
    start: int | None,
    end: int | None,
    text: str,
    rest: str = "",
) -> str:
    """A chunk's id: a hash of its source id, the configuration hash, its index and offsets,
    its text and (``rest``) the rest of its row; so one id names one row's content.

    The fields are length-prefixed (``rest`` comes last), so two different rows never hash
    the same bytes.

    >>> chunk_id("a.md", "c", 0, 0, 5, "Hello") == chunk_id("a.md", "c", 0, 0, 5, "Hello")
    True
    >>> chunk_id("a.md", "c", 0, 0, 5, "Hello") == chunk_id("a.md", "c", 0, 0, 5, "Hello!")
    False
    >>> len(chunk_id("a.md", "c", 0, 0, 5, "Hello"))
    32
    """
    h = _id_prefix(source_id, config)
    data = text.encode("utf-8", "surrogatepass")
    h.update(_id_head(chunk_index, start, end, len(data)))
    h.update(data)
    h.update(rest.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


@dataclass
class _Item:
    source_id: str
    content_hash: str
    text: Any  # a str, or a ragchunk.documents.Document (parsed, or a text_document)
    metadata: dict[str, Any]
    size: int
    new: bool
    rows: Any = None  # the store rows, when a worker made them


def _pages_boxes(meta: dict[str, Any]) -> tuple[Any, Any]:
    pages = meta.pop("pages", None)
    boxes = meta.pop("boxes", None)
    positions = meta.pop("positions", None)
    if positions:  # RAGFlow's [page, left, right, top, bottom] per box
        pages = sorted({int(p[0]) for p in positions})
        # (x0, top, x1, bottom), the order of every other box in a row
        boxes = [[float(p[1]), float(p[3]), float(p[2]), float(p[4])] for p in positions]
    elif positions is not None and pages is None:
        pages, boxes = None, None
    if pages is not None:
        pages = [int(p) for p in pages]
    if boxes is not None:
        boxes = [[float(x) for x in b] for b in boxes]
    return pages, boxes


# the rest of a row with no headings, pages, boxes or metadata (the common case)
_REST_EMPTY = json.dumps([None, None, None, "{}"])


def _text_rows(chunker: Any, items: list[_Item], config: str, workers: int | None) -> Any:
    """The store rows of ``items``, built column-wise from :func:`chunk_table`'s Arrow output.

    Performance: building each row as Python objects (a ``json.loads`` of its metadata and
    three ``json.dumps`` for its id) cost as much as the chunking itself (5 MB corpus, 3,300
    chunks: 80 ms beside the core's 200 ms). Here a row whose source and chunk carry no
    metadata (plain files) is never turned into Python objects: the id hashes the UTF-8 bytes
    of the Arrow text buffer behind a per-source prefix, and the other columns are Arrow
    arrays made once (nulls, a repeated ``"{}"``). Rows with metadata take the general path,
    which decodes each distinct metadata string once per source.
    """
    from ..core.optional import pyarrow as _pyarrow

    pa = _pyarrow()
    pc = load("pyarrow.compute", "ragchunk.ingest")

    table = _text_table(chunker, items, workers).combine_chunks()
    n = table.num_rows
    schema = row_schema()
    rows = table["row"].chunk(0) if n else pa.array([], type=pa.int64())
    texts = table["text"].chunk(0) if n else pa.array([], type=pa.large_string())
    meta_col = table["metadata"]
    plain = not any(it.metadata for it in items) and (
        n == 0 or bool(pc.all(pc.equal(meta_col, "{}")).as_py())
    )
    # Python ints: indexing Arrow arrays element by element costs more than the hashing
    row_ids = rows.to_pylist()
    index = table["chunk_index"].to_pylist()
    starts = table["start"].to_pylist()
    ends = table["end"].to_pylist()
    _, offs_buf, data_buf = texts.buffers()
    # the int64 offsets, read without numpy (the ``arrow`` extra does not need it)
    offsets = memoryview(offs_buf).cast("q")[texts.offset : texts.offset + n + 1].tolist()
    data = memoryview(data_buf) if data_buf is not None else memoryview(b"")
    prefixes = [_id_prefix(it.source_id, config) for it in items]
    ids: list[str] = []
    if plain:
        rest = _REST_EMPTY.encode()
        for row, k, start, end, lo, hi in zip(
            row_ids, index, starts, ends, offsets, offsets[1:], strict=False
        ):
            h = prefixes[row].copy()
            h.update(b"%d:%s:%s:%d:" % (k, str(start).encode(), str(end).encode(), hi - lo))
            h.update(data[lo:hi])
            h.update(rest)
            ids.append(h.hexdigest()[:32])
        nulls = {name: pa.nulls(n, schema.field(name).type) for name in _LISTS}
        metadata = pa.array(["{}"] * n, type=pa.string())
    else:
        lists: dict[str, list[Any]] = {name: [] for name in _LISTS}
        metas: list[str] = []
        decoded: dict[tuple[int, str], tuple[Any, Any, Any, str, bytes]] = {}
        for i, meta_json in enumerate(meta_col.to_pylist()):
            row = row_ids[i]
            key = (row, meta_json)
            parts = decoded.get(key)
            if parts is None:
                meta = dict(items[row].metadata)
                if meta_json != "{}":
                    meta.update(json.loads(meta_json))
                headings = meta.pop("headers", None)
                if headings is None:
                    headings = meta.pop("heading_path", None)
                pages, boxes = _pages_boxes(meta)
                meta_text = json.dumps(meta, sort_keys=True, ensure_ascii=False, default=str)
                rest_text = json.dumps([headings, pages, boxes, meta_text], ensure_ascii=False)
                parts = decoded[key] = (
                    headings,
                    pages,
                    boxes,
                    meta_text,
                    rest_text.encode("utf-8", "surrogatepass"),
                )
            lo, hi = offsets[i], offsets[i + 1]
            h = prefixes[row].copy()
            h.update(_id_head(index[i], starts[i], ends[i], hi - lo))
            h.update(data[lo:hi])
            h.update(parts[4])
            ids.append(h.hexdigest()[:32])
            for name, value in zip(_LISTS, parts[:3], strict=True):
                lists[name].append(value)
            metas.append(parts[3])
        nulls = {name: pa.array(lists[name], type=schema.field(name).type) for name in _LISTS}
        metadata = pa.array(metas, type=pa.string())
    source_ids = pa.array([it.source_id for it in items], type=pa.string()).take(rows)
    arrays = {
        "id": pa.array(ids, type=pa.string()),
        "source_id": source_ids,
        "chunk_index": table["chunk_index"],
        "text": texts.cast(pa.string()),
        "start": table["start"],
        "end": table["end"],
        "token_count": table["token_count"],
        **nulls,
        "config_hash": pa.array([config] * n, type=pa.string()),
        "metadata": metadata,
    }
    columns = [arrays[name] for name in schema.names]
    columns = [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in columns]
    return pa.Table.from_arrays(columns, schema=schema)


_LISTS = ("heading_path", "pages", "boxes")


def _text_table(chunker: Any, items: list[_Item], workers: int | None) -> Any:
    """:func:`chunk_table`'s rows of plain-text ``items`` (a ``row`` id column), in one
    batch."""
    from ..core.optional import pyarrow as _pyarrow
    from ..io.arrow import chunk_table

    pa = _pyarrow()
    docs = pa.Table.from_arrays(
        [
            pa.array(list(range(len(items))), type=pa.int64()),
            pa.array([_text_of(it) for it in items], type=pa.large_string()),
        ],
        names=["row", "text"],
    )
    return chunk_table(docs, chunker, id_columns=["row"], workers=workers)


def _document_rows(chunker: Any, item: _Item, config: str) -> Any:
    """The rows of one parsed document, built from its :class:`~ragchunk.Chunk` objects:
    the chunk's ``headings`` are the ``heading_path``, its ``pages`` and the boxes of its
    ``bboxes`` (``(x0, top, x1, bottom)``, unchanged) the ``pages`` and ``boxes``; the rest
    of its metadata (the ``bboxes`` with their pages among it) is the row's ``metadata``."""
    from ..core.optional import pyarrow as _pyarrow
    from ..documents import chunk_document

    if not callable(getattr(chunker, "split", None)):
        raise TypeError("chunker must be a Splitter to chunk parsed documents, not a component")
    pa = _pyarrow()
    prefix = _id_prefix(item.source_id, config)
    cols: dict[str, list[Any]] = {name: [] for name in _ROW_FIELDS}
    for k, c in enumerate(chunk_document(item.text, chunker)):
        meta = {**item.metadata, **c.metadata}
        headings = meta.pop("headings", None)
        pages = meta.pop("pages", None)
        boxes = [[float(x) for x in b["bbox"]] for b in meta.get("bboxes") or ()]
        meta_text = json.dumps(meta, sort_keys=True, ensure_ascii=False, default=str)
        rest = json.dumps([headings, pages, boxes, meta_text], ensure_ascii=False)
        data = c.text.encode("utf-8", "surrogatepass")
        h = prefix.copy()
        h.update(_id_head(k, c.start, c.end, len(data)))
        h.update(data)
        h.update(rest.encode("utf-8", "surrogatepass"))
        for name, value in (
            ("id", h.hexdigest()[:32]),
            ("chunk_index", k),
            ("text", c.text),
            ("start", c.start),
            ("end", c.end),
            ("token_count", c.token_count),
            ("heading_path", headings),
            ("pages", pages),
            ("boxes", boxes),
            ("metadata", meta_text),
        ):
            cols[name].append(value)
    n = len(cols["id"])
    schema = row_schema()
    cols["source_id"] = [item.source_id] * n
    cols["config_hash"] = [config] * n
    return pa.Table.from_arrays(
        [pa.array(cols[f.name], type=f.type) for f in schema], schema=schema
    )


_ROW_FIELDS = (
    "id",
    "chunk_index",
    "text",
    "start",
    "end",
    "token_count",
    "heading_path",
    "pages",
    "boxes",
    "metadata",
)


def _per_source(rows: Any, items: list[_Item]) -> list[Any]:
    """``rows`` (grouped by source, in the order of ``items``) cut into one table per item."""
    sources = rows["source_id"].to_pylist()
    out, start = [], 0
    for it in items:
        end = start
        while end < len(sources) and sources[end] == it.source_id:
            end += 1
        out.append(rows.slice(start, end - start))
        start = end
    return out


def _chunk_rows(chunker: Any, items: list[_Item], config: str, workers: int | None) -> Any:
    """The store rows of ``items``, in their order: plain texts chunked together in one
    :func:`~ragchunk.chunk_table` batch (see :func:`_text_rows`), each parsed document by
    :func:`_document_rows`."""
    from ..core.optional import pyarrow as _pyarrow

    texts = [it for it in items if _text_of(it) is not None]
    if len(texts) == len(items):
        return _text_rows(chunker, items, config, workers)
    done = iter(_per_source(_text_rows(chunker, texts, config, workers), texts) if texts else [])
    parts = [
        next(done) if _text_of(it) is not None else _document_rows(chunker, it, config)
        for it in items
    ]
    return _pyarrow().concat_tables(parts)


def _text_of(item: _Item) -> str | None:
    """The text of an item that is a text (a ``str`` or a text document), else None: its
    chunks cite nothing, so it is chunked in the batch as the text it is."""
    if isinstance(item.text, str):
        return item.text
    from ..documents import is_text_document

    return str(item.text.text) if is_text_document(item.text) else None


def _items_rows(chunker: Any, items: list[_Item], config: str, workers: int | None) -> Any:
    """The rows of ``items`` in their order: those a worker made (``rows``) as they are, the
    others chunked here by :func:`_chunk_rows` (in one batch)."""
    from ..core.optional import pyarrow as _pyarrow

    local = [it for it in items if it.rows is None]
    if len(local) == len(items):
        return _chunk_rows(chunker, items, config, workers)
    if not local:
        return _pyarrow().concat_tables([it.rows for it in items])
    done = iter(_per_source(_chunk_rows(chunker, local, config, workers), local))
    parts = [it.rows if it.rows is not None else next(done) for it in items]
    return _pyarrow().concat_tables(parts)


def _with_vectors(rows: Any, vectors: Any) -> Any:
    from ..core.optional import pyarrow as _pyarrow

    pa = _pyarrow()
    dim = int(vectors.shape[1]) if rows.num_rows else 1
    flat = pa.array(vectors.reshape(-1), type=pa.float32())
    column = pa.FixedSizeListArray.from_arrays(flat, dim)
    return rows.append_column(row_schema(dim).field("vector"), column)
