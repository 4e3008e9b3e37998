"""``ingest()``: sources to a store, incremental by content, crash-safe (see
:mod:`ragchunk.ingest` for the guarantees and the write protocol)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.optional import load
from ..core.progress import Progress
from ._faults import Points
from .manifest import Manifest, StoreLock
from .sources import Document, Reader, SourceFile, default_include, iter_inputs, reader_for
from .stores import Store, open_store, row_schema

__all__ = ["CLEANUP_MODES", "IngestReport", "chunk_id", "config_hash", "ingest"]

#: ``cleanup=`` values: ``None`` (old chunks of a changed source are kept), ``"incremental"``
#: (a changed source's old chunks are replaced), ``"full"`` (also: sources missing from this
#: run lose their chunks).
CLEANUP_MODES = (None, "incremental", "full")
EMBEDDING_CACHE_NAME = "_ragchunk_embeddings.sqlite"
# Rows per store.upsert call. Each LanceDB write has a fixed cost of some 15-20 ms (5 MB of
# chunks: four merge_inserts of 1000 rows 120 ms, one of 3,300 rows 43 ms, pyarrow's Parquet
# writer 20 ms), so a batch is written in one call; the cap bounds a call's memory. Chroma
# splits a call into its server's maximum batch itself.
_WRITE_ROWS = 16384
# appended to the configuration hash of a source whose old chunks cleanup=None kept
KEPT_MARK = "+kept"
_STAGES = ("recover", "read", "parse", "chunk", "embed", "write", "delete")


@dataclass
class IngestReport:
    """What one :func:`ingest` run did.

    Files (sources) ``added``, ``changed``, ``unchanged``, ``deleted`` (``cleanup="full"``)
    and ``failed`` (with ``failures``: ``(source, message)``); ``chunks_written`` and
    ``chunks_deleted`` in the store; ``embeddings_computed`` by the model and
    ``embeddings_reused`` (cache hits and duplicates); ``seconds`` per stage; ``recovered``:
    sources whose interrupted rewrite a previous run left and this one rolled back.

    >>> r = IngestReport(added=2, chunks_written=10)
    >>> r.ok, r.added
    (True, 2)
    """

    added: int = 0
    changed: int = 0
    unchanged: int = 0
    deleted: int = 0
    failed: int = 0
    chunks_written: int = 0
    chunks_deleted: int = 0
    embeddings_computed: int = 0
    embeddings_reused: int = 0
    recovered: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(_STAGES, 0.0))
    failures: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No source failed."""
        return not self.failed

    def summary(self) -> str:
        """The report in three lines.

        >>> print(IngestReport(added=1, chunks_written=3).summary().splitlines()[0])
        files: 1 added, 0 changed, 0 unchanged, 0 deleted, 0 failed
        """
        times = ", ".join(f"{k} {v:.2f}" for k, v in self.seconds.items() if v >= 0.005)
        return (
            f"files: {self.added} added, {self.changed} changed, {self.unchanged} unchanged, "
            f"{self.deleted} deleted, {self.failed} failed\n"
            f"chunks: {self.chunks_written} written, {self.chunks_deleted} deleted; "
            f"embeddings: {self.embeddings_computed} computed, {self.embeddings_reused} reused\n"
            f"seconds: {times or '0'}"
        )


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
        "rows": 2,
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
    text: Any  # a str, or a parsed ragchunk.documents.Document
    metadata: dict[str, Any]
    size: int
    new: bool


def _pages_boxes(meta: dict[str, Any]) -> tuple[Any, Any]:
    pages = meta.pop("pages", None)
    boxes = meta.pop("boxes", None)
    positions = meta.pop("positions", None)
    if positions:  # RAGFlow's [page, left, right, top, bottom] per box
        pages = sorted({int(p[0]) for p in positions})
        boxes = [[float(x) for x in p[1:]] for p in positions]
    elif positions is not None and pages is None:
        pages, boxes = None, None
    if pages is not None:
        pages = [int(p) for p in pages]
    if boxes is not None:
        boxes = [[float(x) for x in b] for b in boxes]
    return pages, boxes


# the rest of a row with no headings, pages, boxes or metadata (the common case)
_REST_EMPTY = json.dumps([None, None, None, "{}"])


def _chunk_rows(chunker: Any, items: list[_Item], config: str, workers: int | None) -> Any:
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
    from ..core.optional import np

    pc = load("pyarrow.compute", "ragchunk.ingest")

    table = _chunk_items(chunker, items, workers).combine_chunks()
    n = table.num_rows
    schema = row_schema()
    rows = table["row"].chunk(0) if n else pa.array([], type=pa.int64())
    texts = table["text"].chunk(0) if n else pa.array([], type=pa.large_string())
    meta_col = table["metadata"]
    plain = not any(it.metadata for it in items) and (
        n == 0 or bool(pc.all(pc.equal(meta_col, "{}")).as_py())
    )
    # Python ints: indexing numpy arrays element by element costs more than the hashing
    row_ids = rows.to_numpy(zero_copy_only=False).tolist()
    index = table["chunk_index"].to_numpy().tolist()
    starts = table["start"].to_pylist()
    ends = table["end"].to_pylist()
    _, offs_buf, data_buf = texts.buffers()
    offsets = np.frombuffer(offs_buf, dtype=np.int64)[texts.offset : texts.offset + n + 1].tolist()
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


def _chunk_items(chunker: Any, items: list[_Item], workers: int | None) -> Any:
    """:func:`chunk_table`'s rows of ``items`` (a ``row`` id column): the texts in one
    batch, each parsed document by :func:`ragchunk.documents.chunk_document`, its chunks'
    ``headings`` as ``heading_path`` and its boxes in RAGFlow's ``[x0, x1, top, bottom]``
    order (the ``bboxes``, with their pages, stay in the metadata)."""
    from ..core.optional import pyarrow as _pyarrow
    from ..io.arrow import chunk_table, records_table

    pa = _pyarrow()
    texts = [i for i, it in enumerate(items) if isinstance(it.text, str)]
    docs = pa.table(
        {
            "row": pa.array(texts, type=pa.int64()),
            "text": pa.array([items[i].text for i in texts], type=pa.large_string()),
        }
    )
    table = chunk_table(docs, chunker, id_columns=["row"], workers=workers)
    if len(texts) == len(items):
        return table
    from ..documents import chunk_document

    if not callable(getattr(chunker, "split", None)):
        raise TypeError("chunker must be a Splitter to chunk parsed documents, not a component")
    parts = [table]
    for i, it in enumerate(items):
        if isinstance(it.text, str):
            continue
        records = []
        for k, c in enumerate(chunk_document(it.text, chunker)):
            meta = dict(c.metadata)
            meta["heading_path"] = meta.pop("headings")
            meta["boxes"] = [
                [b["bbox"][0], b["bbox"][2], b["bbox"][1], b["bbox"][3]] for b in meta["bboxes"]
            ]
            rec = {"chunk_index": k, "text": c.text, "start": c.start, "end": c.end}
            records.append({**rec, "token_count": c.token_count, "metadata": meta})
        parts.append(records_table(pa.table({"row": pa.array([i], type=pa.int64())}), [records]))
    out = pa.concat_tables([p.cast(table.schema) for p in parts])
    return out.take(
        pa.compute.sort_indices(out, [("row", "ascending"), ("chunk_index", "ascending")])
    )


def _with_vectors(rows: Any, vectors: Any) -> Any:
    from ..core.optional import pyarrow as _pyarrow

    pa = _pyarrow()
    dim = int(vectors.shape[1]) if rows.num_rows else 1
    flat = pa.array(vectors.reshape(-1), type=pa.float32())
    column = pa.FixedSizeListArray.from_arrays(flat, dim)
    return rows.append_column(row_schema(dim).field("vector"), column)


def _embedder(embedder: Any, cache: Any, manifest_path: str) -> Any:
    from ..embeddings import EmbeddingCache, ManagedEmbedder, as_embedder

    if embedder is None:
        return None
    if cache == "auto":
        if isinstance(embedder, ManagedEmbedder) and embedder.cache is not None:
            return embedder
        if manifest_path == ":memory:":
            return as_embedder(embedder)
        path = os.path.join(os.path.dirname(os.path.abspath(manifest_path)), EMBEDDING_CACHE_NAME)
        return as_embedder(embedder, cache=EmbeddingCache(path))
    if cache is None:
        return as_embedder(embedder)
    return as_embedder(embedder, cache=cache)


class _Run:
    """One run's state: the store, the manifest, the points, the report."""

    def __init__(
        self,
        store: Store,
        manifest: Manifest,
        chunker: Any,
        embedder: Any,
        cleanup: str | None,
        workers: int | None,
        report: IngestReport,
    ) -> None:
        self.store = store
        self.manifest = manifest
        self.chunker = chunker
        self.embedder = embedder
        self.cleanup = cleanup
        self.workers = workers
        self.report = report
        self.points = Points.from_environ()
        self.manifest_path = ":memory:"
        self.config = config_hash(chunker, None if embedder is None else embedder.model)

    def timed(self, stage: str, start: float) -> None:
        self.report.seconds[stage] += time.perf_counter() - start

    def recover(self) -> None:
        """Roll back the rewrites a killed run left pending, then delete its garbage."""
        t = time.perf_counter()
        pending = self.manifest.pending()
        if pending:
            drop = [i for _, new, old in pending for i in sorted(set(new) - set(old))]
            self.store.delete(drop)
            self.points.hit("recover")
            self.manifest.abandon(s for s, _, _ in pending)
            self.report.recovered = len(pending)
        self.collect()
        self.timed("recover", t)

    def collect(self) -> None:
        garbage = self.manifest.garbage()
        if garbage:
            t = time.perf_counter()
            self.store.delete(garbage)
            self.points.hit("delete")
            self.manifest.collected(garbage)
            self.report.chunks_deleted += len(garbage)
            self.timed("delete", t)

    def chunk(self, items: list[_Item]) -> list[tuple[_Item, Any]]:
        """``(item, rows)`` for the items that chunk (and embed); the others are failures."""
        try:
            return [(items[0], self._rows(items))] if len(items) == 1 else self._split(items)
        except (TypeError, ValueError, UnicodeError) as exc:
            if len(items) > 1:
                return [pair for it in items for pair in self.chunk([it])]
            self.fail(items[0].source_id, str(exc))
            return []

    def _split(self, items: list[_Item]) -> list[tuple[_Item, Any]]:
        rows = self._rows(items)
        sources = rows["source_id"].to_pylist()
        out, start = [], 0
        for it in items:
            end = start
            while end < len(sources) and sources[end] == it.source_id:
                end += 1
            out.append((it, rows.slice(start, end - start)))
            start = end
        return out

    def _rows(self, items: list[_Item]) -> Any:
        t = time.perf_counter()
        rows = _chunk_rows(self.chunker, items, self.config, self.workers)
        self.points.hit("chunk")
        self.timed("chunk", t)
        if self.embedder is not None:
            t = time.perf_counter()
            before = self.embedder.stats.requested, self.embedder.stats.embedded
            vectors = self.embedder.embed(rows["text"].to_pylist())
            asked = self.embedder.stats.requested - before[0]
            computed = self.embedder.stats.embedded - before[1]
            self.report.embeddings_computed += computed
            self.report.embeddings_reused += asked - computed
            rows = _with_vectors(rows, vectors)
            self.points.hit("embed")
            self.timed("embed", t)
        return rows

    def fail(self, source_id: str, message: str) -> None:
        self.report.failed += 1
        self.report.failures.append((source_id, message))

    def write(self, items: list[_Item]) -> None:
        """Chunk, embed and write a batch of new or changed sources (the write protocol)."""
        self.store_rows(self.chunk(items))

    def store_rows(self, done: list[tuple[_Item, Any]]) -> None:
        """Write chunked sources, ``(item, rows)``, by the write protocol: pending, upsert,
        commit, delete the garbage."""
        from ..core.optional import pyarrow as _pyarrow

        if not done:
            return
        pa = _pyarrow()
        t = time.perf_counter()
        plan = []
        for it, rows in done:
            old = self.manifest.get(it.source_id)
            old_ids = [] if old is None else old[2]
            new_ids = rows["id"].to_pylist()
            plan.append((it, new_ids, old_ids))
        self.manifest.begin_many((it.source_id, new, old) for it, new, old in plan)
        self.points.hit("begin")
        table = pa.concat_tables([rows for _, rows in done])
        for start in range(0, table.num_rows, _WRITE_ROWS):
            self.store.upsert(table.slice(start, _WRITE_ROWS))
            self.points.hit("upsert")
        commits = []
        for it, new_ids, old_ids in plan:
            ids, config = new_ids, self.config
            kept = [i for i in old_ids if i not in set(new_ids)]
            if self.cleanup is None and kept:
                # keep the old chunks, and know them; the mark makes the next run that
                # cleans up rewrite this source
                ids, config = new_ids + kept, config + KEPT_MARK
            commits.append((it.source_id, it.content_hash, config, ids))
            self.report.chunks_written += len(set(new_ids) - set(old_ids))
            if it.new:
                self.report.added += 1
            else:
                self.report.changed += 1
        self.manifest.commit(commits)
        self.points.hit("commit")
        self.timed("write", t)
        self.collect()

    def remove(self, source_ids: list[str]) -> None:
        """Delete the chunks of sources no longer present (``cleanup="full"``)."""
        if not source_ids:
            return
        self.manifest.remove(source_ids)
        self.points.hit("remove")
        self.report.deleted += len(source_ids)
        self.collect()


def ingest(
    sources: Iterable[str | os.PathLike[str] | Document] | str | os.PathLike[str] | Document,
    store: str | Store,
    chunker: Any,
    *,
    embedder: Any = None,
    cleanup: str | None = "incremental",
    workers: int | None = None,
    progress: bool | None = None,
    manifest: str | os.PathLike[str] | None = None,
    include: str | None = None,
    readers: Mapping[str, Reader] | None = None,
    embedding_cache: Any = "auto",
    batch_size: int = 256,
    base: str | os.PathLike[str] | None = None,
    rehash: bool = False,
) -> IngestReport:
    """Chunk (and embed) ``sources`` into ``store``, rewriting only what changed.

    Args:
        sources: files, folders (every file matching ``include``, recursively), globs, and
            :class:`~ragchunk.ingest.Document` objects; one or a list.
        store: a store URL (``lancedb:DIR``, ``parquet:DIR``, ``chroma:DIR``,
            ``chroma+http://HOST:PORT``) or a :class:`~ragchunk.ingest.Store` object.
        chunker: any ragchunk chunker (a ``Splitter`` or a ``SplitterComponent``).
        embedder: anything :func:`ragchunk.embeddings.as_embedder` takes; rows then carry a
            ``vector``.
        cleanup: one of :data:`CLEANUP_MODES`.
        workers: threads for chunking a batch (default: one per core).
        progress: draw a progress bar on standard error (when it is a terminal).
        manifest: the manifest's SQLite file (default: the store's, beside its data).
        include: file patterns read from folders (default:
            :func:`~ragchunk.ingest.sources.default_include`: text files, and PDF, DOCX and
            XLSX files when the ``documents`` extra is installed).
        readers: ``{".ext": reader}``: how files of a type become text or a parsed
            :class:`ragchunk.documents.Document` (default: UTF-8 text, and
            :func:`~ragchunk.ingest.sources.read_document` for PDF, DOCX and XLSX files when
            the ``documents`` extra is installed; their chunks store pages, boxes and
            headings).
        embedding_cache: ``"auto"`` (an :class:`~ragchunk.embeddings.EmbeddingCache` beside
            the manifest), ``None``, a path or a cache.
        batch_size: sources chunked, embedded and committed together.
        base: a file's source id is its path relative to ``base`` (default: the path as
            walked, ``docs/a.md`` for ``docs/``), so a folder can move and keep its ids.
        rehash: read and hash every file. By default a file whose size and modification
            time (nanoseconds) are those recorded when an earlier run hashed it reuses that
            hash without being read, as ``rsync`` and ``git`` do; files modified within two
            seconds of being hashed are always hashed again.

    Returns:
        An :class:`IngestReport`.

    Raises:
        IngestLockedError: another run is writing the store.
        TypeError, ValueError: a bad argument (the message names it).

    >>> import os, tempfile, ragchunk
    >>> from ragchunk.ingest import Document
    >>> where = "parquet:" + tempfile.mkdtemp()
    >>> docs = [Document("a", "One. Two. Three."), Document("b", "Five.")]
    >>> ingest(docs, where, ragchunk.RecursiveSplitter(3)).chunks_written
    5
    >>> ingest(docs, where, ragchunk.RecursiveSplitter(3)).unchanged
    2
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
    with _session(store, chunker, embedder, cleanup, workers, manifest, embedding_cache) as run:
        base_dir = None if base is None else os.fspath(base)
        include = default_include() if include is None else include
        _walk(run, sources, include, readers, batch_size, bool(progress), base_dir, rehash)
    return run.report


@contextlib.contextmanager
def _session(
    store: str | Store,
    chunker: Any,
    embedder: Any,
    cleanup: str | None,
    workers: int | None,
    manifest: str | os.PathLike[str] | None,
    embedding_cache: Any,
) -> Iterator[_Run]:
    """A run with its store open, its lock held and a killed run's leftovers recovered;
    the store's ``finish`` is called when the body succeeds."""
    from ..core.chunk import Splitter, check_workers
    from ..ragflow.pipeline import SplitterComponent

    if not isinstance(chunker, (Splitter, SplitterComponent)):
        raise TypeError(
            "chunker must be a ragchunk chunker (a Splitter or a SplitterComponent), got "
            f"{type(chunker).__name__}"
        )
    if cleanup not in CLEANUP_MODES:
        raise ValueError(f"cleanup must be None, 'incremental' or 'full', got {cleanup!r}")
    check_workers(workers)
    st = open_store(store)
    try:
        path = os.fspath(manifest) if manifest is not None else st.default_manifest()
        if path is None:
            raise ValueError(f"manifest: {st.url} keeps no manifest of its own; pass manifest=PATH")
        lock = StoreLock(path + ".lock")
        lock.acquire()
        try:
            man = Manifest(path)
            try:
                managed = _embedder(embedder, embedding_cache, path)
                run = _Run(st, man, chunker, managed, cleanup, workers, IngestReport())
                run.manifest_path = path
                run.recover()
                yield run
                finish = getattr(st, "finish", None)
                if callable(finish):
                    finish()
            finally:
                man.close()
        finally:
            lock.release()
    finally:
        st.close()


def parse_file(
    path: str, data: bytes, readers: Mapping[str, Reader] | None
) -> tuple[Any, dict[str, Any]] | str:
    """``(text, metadata)`` of a file's bytes by its reader, or the error message (a ``str``)
    when the reader fails; ``text`` is a :class:`ragchunk.documents.Document` when the
    reader parsed one (it is chunked with :func:`ragchunk.documents.chunk_document`).

    >>> parse_file("a.md", b"Hi", None)
    ('Hi', {})
    >>> parse_file("a.md", b"\\xff", None)[:30]
    "a.md: UnicodeDecodeError: 'utf"
    """
    try:
        parsed = reader_for(path, readers)(path, data)
    except Exception as exc:  # any reader's error: the file is reported, not written
        return f"{path}: {type(exc).__name__}: {exc}"
    if isinstance(parsed, Document):
        return parsed.text, dict(parsed.metadata)
    if isinstance(parsed, str):
        return parsed, {}
    if _is_parsed_document(parsed):
        return parsed, {}
    return f"{path}: the reader returned {type(parsed).__name__}"


def _is_parsed_document(obj: object) -> bool:
    # without importing ragchunk.documents for plain text files
    documents = sys.modules.get("ragchunk.documents")
    return documents is not None and isinstance(obj, documents.Document)


# A file modified less than this before the run started is hashed again on the next run
# even when its size and modification time are unchanged: a write within the file system's
# timestamp granularity could otherwise hide behind an equal mtime (git's "racy" files).
_RACY_NS = 2_000_000_000


def _walk(
    run: _Run,
    sources: Any,
    include: str,
    readers: Mapping[str, Reader] | None,
    batch_size: int,
    progress: bool,
    base: str | None,
    rehash: bool,
) -> None:
    report = run.report
    inputs: list[tuple[str, SourceFile | Document]] = []
    seen: set[str] = set()
    for item in iter_inputs(sources, include):
        if isinstance(item, str):
            run.fail(item.split(":", 1)[0], item)
            continue
        if base is not None and isinstance(item, SourceFile):
            item.base = base
        sid = item.source_id  # a path computation: once per file
        if sid not in seen:
            seen.add(sid)
            inputs.append((sid, item))
    known = run.manifest.sources()
    started_ns = time.time_ns()
    cached = {} if rehash else run.manifest.files()
    hashed: list[tuple[str, int, int, str]] = []
    bar = Progress(
        sys.stderr,
        sum(it.size if isinstance(it, SourceFile) else len(it.text) for _, it in inputs),
        len(inputs),
        enabled=progress,
    )
    batch: list[_Item] = []
    for sid, item in inputs:
        t = time.perf_counter()
        data: bytes | None = b""
        if isinstance(item, SourceFile):
            try:
                stat = os.stat(item.path)
                entry = cached.get(sid)
                if entry is not None and entry[:2] == (stat.st_size, stat.st_mtime_ns):
                    digest, size, data = entry[2], stat.st_size, None
                else:
                    with open(item.path, "rb") as fh:
                        data = fh.read()
                    digest, size = hashlib.sha256(data).hexdigest(), len(data)
                    if stat.st_size == size and stat.st_mtime_ns < started_ns - _RACY_NS:
                        hashed.append((sid, size, stat.st_mtime_ns, digest))
            except OSError as exc:
                run.fail(sid, f"{item.path}: {exc}")
                bar.update(item.size, 1, errors=1)
                continue
        else:
            digest, size = item.content_hash, len(item.text)
        run.points.hit("read")
        run.timed("read", t)
        previous = known.get(sid)
        if previous is not None and run.cleanup is None:
            previous = (previous[0], previous[1].removesuffix(KEPT_MARK))
        if previous == (digest, run.config):
            report.unchanged += 1
            bar.update(size, 1)
            continue
        t = time.perf_counter()
        if isinstance(item, SourceFile):
            if data is None:  # the hash came from the cache, and the source changed
                try:
                    with open(item.path, "rb") as fh:
                        data = fh.read()
                except OSError as exc:
                    run.fail(sid, f"{item.path}: {exc}")
                    bar.update(size, 1, errors=1)
                    continue
                digest = hashlib.sha256(data).hexdigest()  # what is parsed is what is recorded
            parsed = parse_file(item.path, data, readers)
            if isinstance(parsed, str):
                run.fail(sid, parsed)
                bar.update(size, 1, errors=1)
                continue
            text, meta = parsed
        else:
            text, meta = item.text, dict(item.metadata)
        run.points.hit("parse")
        run.timed("parse", t)
        batch.append(_Item(sid, digest, text, meta, size, previous is None))
        bar.update(size, 1)
        if len(batch) >= batch_size:
            run.write(batch)
            batch = []
    if batch:
        run.write(batch)
    if hashed:
        run.manifest.record_files(hashed)
    if run.cleanup == "full":
        failed = {s for s, _ in report.failures}
        run.remove(sorted(s for s in known if s not in seen and s not in failed))
    bar.close()
