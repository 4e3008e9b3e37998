"""``ingest_ray()``: the semantics of :func:`~ragchunk.ingest.ingest` on Ray Data.

The files (or the rows of a Ray dataset) are read, hashed, parsed, chunked and embedded in a
pool of Ray actors; the driver streams their output, writes it to the store and commits the
manifest, batch by batch, with the write protocol of :func:`~ragchunk.ingest.ingest`. So the
guarantees are the same: unchanged sources are skipped (their hash is compared inside the
actors, against the manifest the driver sends them, and nothing of theirs is parsed, chunked
or embedded), chunk ids and rows equal a local run's, and a driver killed at any moment
leaves a store that the next run (local or on Ray) turns into exactly the clean-run store.

What runs where:

* **actors** (:class:`IngestBatches`, ``concurrency`` of them, one CPU each): read a file's
  bytes (on the worker: the paths must be readable there, e.g. a shared file system), hash
  them, parse them with the ``readers``, chunk, embed (through ``ragchunk.embeddings`` and the
  :class:`~ragchunk.embeddings.EmbeddingCache` beside the manifest, which SQLite lets several
  processes share);
* **the driver**: lists the sources, holds the store's lock, recovers what a killed run left,
  writes the rows to the store (LanceDB takes one writer per commit; Parquet writes one file
  per batch) and commits the manifest.

Each actor call returns one Arrow table: the chunk rows of its sources followed by one
*status row* per source (``chunk_index`` -1, the source's content hash, its state and its
chunk count), so the driver knows when a source is complete whatever order Ray delivers the
blocks in.

Needs ``ray[data]`` (``pip install 'ragchunk[ray]'``).

>>> import ragchunk
>>> from ragchunk.ingest.pipeline import config_hash
>>> chunker = ragchunk.RecursiveSplitter(3)
>>> fn = IngestBatches(chunker, config_hash(chunker))
>>> import pyarrow as pa
>>> out = fn(pa.table({"source_id": ["a"], "text": ["One. Two. Three."]}))
>>> out["chunk_index"].to_pylist(), out["_state"].to_pylist(), out["_count"].to_pylist()
([0, 1, 2, -1], [None, None, None, 'new'], [None, None, None, 3])
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.optional import load, pyarrow
from .pipeline import KEPT_MARK, IngestReport, _session
from .rows import _Item, _items_rows, _with_vectors, config_hash
from .sources import Reader, SourceFile, content_hash, default_include, iter_inputs
from .stores import Store, row_schema
from .workers import (
    DEFAULT_FILE_MEMORY,
    DEFAULT_FILE_TIMEOUT,
    Supervisor,
    Task,
    check_limits,
    picklable,
)

__all__ = ["IngestBatches", "ingest_ray"]

# a status row's own columns; _computed and _asked (the batch's embeddings computed and
# asked for) are set on the first status row of each batch
_STATUS_FIELDS = (
    ("_hash", "string"),
    ("_state", "string"),
    ("_count", "int64"),
    ("_computed", "int64"),
    ("_asked", "int64"),
)


def _out_schema(dim: int | None) -> Any:
    from ..core.optional import pyarrow as _pyarrow

    pa = _pyarrow()
    schema = row_schema(dim)
    for name, kind in _STATUS_FIELDS:
        schema = schema.append(pa.field(name, getattr(pa, kind)()))
    return schema


class IngestBatches:
    """``batch -> rows``, for ``Dataset.map_batches(..., batch_format="pyarrow")``: a batch
    of sources (``source_id`` and ``text``, or ``source_id`` and ``path``) becomes their
    store rows and one status row per source (see the module docstring).

    Args:
        chunker: the chunker.
        config: the run's configuration hash (:func:`~ragchunk.ingest.config_hash`).
        known: ``{source_id: (content_hash, config_hash)}`` of the manifest (or an object
            reference to it); a source whose pair is ``(its hash, config)`` is unchanged.
        embedder: anything :func:`ragchunk.embeddings.as_embedder` takes, or None.
        embedding_cache: the path of an :class:`~ragchunk.embeddings.EmbeddingCache`, or None.
        readers: ``{".ext": reader}`` for files (see :func:`~ragchunk.ingest.ingest`).
        dim: the embedder's vector size, when there is one (every batch has one schema).

    >>> import ragchunk
    >>> IngestBatches(ragchunk.RecursiveSplitter(8), "c").config
    'c'
    """

    def __init__(
        self,
        chunker: Any,
        config: str,
        known: Any = None,
        embedder: Any = None,
        embedding_cache: str | None = None,
        readers: Mapping[str, Reader] | None = None,
        dim: int | None = None,
        file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
        file_memory: int | str | None = DEFAULT_FILE_MEMORY,
    ) -> None:
        self.file_timeout, self.file_memory = check_limits(file_timeout, file_memory)
        self._supervisor: Supervisor | None = None
        self.chunker = chunker
        self.config = config
        if known is not None and not isinstance(known, dict):
            ray = load("ray", "ragchunk.ingest on Ray")

            known = ray.get(known)
        self.known: dict[str, tuple[str, str]] = known or {}
        self.readers = readers
        self.dim = dim
        self.embedder = None
        if embedder is not None:
            from ..embeddings import as_embedder

            self.embedder = as_embedder(embedder, cache=embedding_cache)
        self.schema = _out_schema(dim)

    def __call__(self, batch: Any) -> Any:
        """The rows of one batch (a ``pyarrow.Table``)."""
        from ..core.optional import pyarrow as _pyarrow

        pa = _pyarrow()
        sids = batch["source_id"].to_pylist()
        has_path = "path" in batch.column_names
        values = batch["path" if has_path else "text"].to_pylist()
        status: list[tuple[str, str, str, str]] = []  # source, hash, state, message
        items: list[_Item] = []
        tasks: list[Task] = []
        for sid, value in zip(sids, values, strict=True):
            if has_path:
                try:
                    with open(value, "rb") as fh:
                        data = fh.read()
                except OSError as exc:
                    status.append((sid, "", "failed", f"{value}: {exc}"))
                    continue
            elif isinstance(value, str):
                data = value.encode("utf-8", "surrogatepass")
            else:
                status.append((sid, "", "failed", f"{sid}: the text is {value!r}, not a str"))
                continue
            digest = content_hash(data)
            previous = self.known.get(sid)
            if previous == (digest, self.config):
                status.append((sid, digest, "unchanged", ""))
                continue
            state = "new" if previous is None else "changed"
            if has_path:  # parsed and chunked in the actor's supervised worker
                tasks.append(Task(len(status), sid, value, data, (digest, previous is None)))
                status.append((sid, digest, state, ""))
                continue
            items.append(_Item(sid, digest, value, {}, len(data), previous is None))
            status.append((sid, digest, state, ""))
        if tasks:
            for out in self.supervisor().map(tasks):
                digest, new = out.task.payload
                if out.error is not None:
                    status[out.task.seq] = (out.task.source_id, digest, "failed", out.error)
                    continue
                it = _Item(out.task.source_id, digest, None, {}, len(out.task.data), new, out.rows)
                items.append(it)
            order = {s[0]: i for i, s in enumerate(status)}
            items.sort(key=lambda it: order[it.source_id])
        before = self._stats()
        rows = self._rows(items, status)
        after = self._stats()
        counts: dict[str, int] = {}
        for sid in rows["source_id"].to_pylist():
            counts[sid] = counts.get(sid, 0) + 1
        n = rows.num_rows
        for name, kind in _STATUS_FIELDS:
            rows = rows.append_column(name, pa.nulls(n, getattr(pa, kind)()))
        tail = self._status_rows(status, counts, after[0] - before[0], after[1] - before[1])
        return pa.concat_tables([rows.cast(self.schema), tail])

    def supervisor(self) -> Supervisor:
        """The actor's worker process (started on the first file): each file is parsed and
        chunked there under ``file_timeout`` and ``file_memory``."""
        if self._supervisor is None:
            self._supervisor = Supervisor(
                1,
                self.chunker,
                self.readers,
                self.config,
                file_timeout=self.file_timeout,
                file_memory=self.file_memory,
                inline=not picklable((self.chunker, self.readers)),
            )
        return self._supervisor

    def _stats(self) -> tuple[int, int]:
        if self.embedder is None:
            return 0, 0
        return self.embedder.stats.embedded, self.embedder.stats.requested

    def _rows(self, items: list[_Item], status: list[tuple[str, str, str, str]]) -> Any:
        """Chunk and embed ``items``; a batch that fails is retried source by source, and a
        source that fails becomes a failed status."""
        from ..core.optional import pyarrow as _pyarrow

        pa = _pyarrow()
        try:
            rows = _items_rows(self.chunker, items, self.config, 1)
            if self.embedder is not None:
                vectors = self.embedder.embed(rows["text"].to_pylist())
                rows = _with_vectors(rows, vectors)
            return rows
        except (TypeError, ValueError, UnicodeError) as exc:
            if len(items) > 1:
                return pa.concat_tables([self._rows([it], status) for it in items])
            sid = items[0].source_id
            status[:] = [
                (s, h, "failed", str(exc)) if s == sid else (s, h, st, m) for s, h, st, m in status
            ]
            return row_schema(self.dim).empty_table()

    def _status_rows(
        self,
        status: list[tuple[str, str, str, str]],
        counts: dict[str, int],
        computed: int,
        asked: int,
    ) -> Any:
        from ..core.optional import pyarrow as _pyarrow

        pa = _pyarrow()
        n = len(status)
        cols: dict[str, Any] = {
            "id": [""] * n,
            "source_id": [s for s, _, _, _ in status],
            "chunk_index": [-1] * n,
            "text": [""] * n,
            "token_count": [0] * n,
            "config_hash": [self.config] * n,
            "metadata": [m for _, _, _, m in status],
            "_hash": [h for _, h, _, _ in status],
            "_state": [st for _, _, st, _ in status],
            "_count": [counts.get(s, 0) for s, _, _, _ in status],
            "_computed": [computed] + [0] * (n - 1),
            "_asked": [asked] + [0] * (n - 1),
        }
        arrays = [
            pa.array(cols[f.name], type=f.type) if f.name in cols else pa.nulls(n, f.type)
            for f in self.schema
        ]
        return pa.Table.from_arrays(arrays, schema=self.schema)


def ingest_ray(
    sources: Any,
    store: str | Store,
    chunker: Any,
    *,
    embedder: Any = None,
    cleanup: str | None = "incremental",
    manifest: str | os.PathLike[str] | None = None,
    include: str | None = None,
    readers: Mapping[str, Reader] | None = None,
    embedding_cache: str | os.PathLike[str] | None = "auto",
    base: str | os.PathLike[str] | None = None,
    concurrency: int | None = None,
    batch_size: int = 64,
    commit_size: int = 256,
    text_column: str = "text",
    id_column: str = "source_id",
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
    file_memory: int | str | None = DEFAULT_FILE_MEMORY,
) -> IngestReport:
    """:func:`~ragchunk.ingest.ingest` on Ray Data (a running cluster, or a local one that
    ``ray.data`` starts).

    Args:
        sources: files, folders and globs (as :func:`~ragchunk.ingest.ingest` takes them),
            or a ``ray.data.Dataset`` with one source per row: its ``id_column`` (the source
            id) and ``text_column``.
        store, chunker, embedder, cleanup, manifest, include, readers, base: as for
            :func:`~ragchunk.ingest.ingest`.
        embedding_cache: ``"auto"`` (an :class:`~ragchunk.embeddings.EmbeddingCache` beside
            the manifest, shared by the actors), a path, or None.
        concurrency: actors (default: one less than the cluster's CPUs, at least one; see
            :mod:`ragchunk.integrations.ray`).
        batch_size: sources per actor call.
        commit_size: sources written and committed together by the driver.
        text_column, id_column: the columns of a dataset source.
        file_timeout, file_memory: the per-file limits of
            :func:`~ragchunk.ingest.ingest`, enforced in each actor: the actor parses and
            chunks its files in one supervised worker process of its own (see
            :mod:`ragchunk.ingest.workers`), so a file over a limit, or one that crashes the
            worker, is a reported failure and the actor goes on. (Embedding runs in the
            actor, outside the limits.)

    Returns:
        An :class:`~ragchunk.ingest.IngestReport` (``seconds``: ``"read"`` holds the time
        the driver waited for the actors' rows).

    Raises:
        IngestLockedError: another run is writing the store.
        TypeError, ValueError: a bad argument (the message names it).

    >>> import ray, ragchunk  # doctest: +SKIP
    >>> ingest_ray(["docs/"], "lancedb:./index", ragchunk.MarkdownSplitter(512))  # doctest: +SKIP
    """
    ray = load("ray", "ragchunk.ingest on Ray")
    ActorPoolStrategy = load("ray.data", "ragchunk.ingest on Ray").ActorPoolStrategy

    from ..embeddings import as_embedder
    from ..integrations.ray import default_concurrency

    check_limits(file_timeout, file_memory)
    for name, value in (("batch_size", batch_size), ("commit_size", commit_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    is_dataset = isinstance(sources, ray.data.Dataset)
    if is_dataset:
        missing = [c for c in (id_column, text_column) if c not in sources.columns()]
        if missing:
            raise ValueError(
                f"sources: the dataset has no column {missing[0]!r} "
                f"(columns: {sources.columns()}); pass id_column= / text_column="
            )
    model = None if embedder is None else as_embedder(embedder).model
    with _session(store, chunker, None, cleanup, 1, manifest, None) as run:
        run.config = config_hash(chunker, model)
        report = run.report
        known = run.manifest.sources()
        if cleanup is None:  # as ingest(): the kept mark does not make a source changed
            known = {s: (h, c.removesuffix(KEPT_MARK)) for s, (h, c) in known.items()}
        seen: set[str] = set()
        if is_dataset:
            ds = sources.select_columns([id_column, text_column])
            ds = ds.rename_columns({id_column: "source_id", text_column: "text"})
        else:
            listed = []
            base_dir = None if base is None else os.fspath(base)
            if include is None:
                include = default_include()
            for item in iter_inputs(sources, include):
                if isinstance(item, str):
                    run.fail(item.split(":", 1)[0], item)
                    continue
                if not isinstance(item, SourceFile):
                    raise TypeError("sources: ingest_ray takes paths or a Ray dataset")
                item.base = base_dir
                sid = item.source_id
                if sid not in seen:
                    seen.add(sid)
                    listed.append({"source_id": sid, "path": os.path.abspath(item.path)})
            if not listed:
                _finish(run, known, seen)
                return report
            ds = ray.data.from_items(listed)
        cache: str | None = None
        if embedder is not None and embedding_cache is not None:
            cache = os.fspath(embedding_cache)
            if cache == "auto":
                from .pipeline import EMBEDDING_CACHE_NAME

                where = os.path.dirname(os.path.abspath(run.manifest_path))
                cache = os.path.join(where, EMBEDDING_CACHE_NAME)
        dim = None
        if embedder is not None:
            dim = int(as_embedder(embedder).embed(["dimension probe"]).shape[1])
        out = ds.map_batches(
            IngestBatches,
            fn_constructor_kwargs={
                "chunker": chunker,
                "config": run.config,
                "known": ray.put(known),
                "embedder": embedder,
                "embedding_cache": cache,
                "readers": readers,
                "dim": dim,
                "file_timeout": file_timeout,
                "file_memory": file_memory,
            },
            batch_format="pyarrow",
            batch_size=batch_size,
            compute=ActorPoolStrategy(size=concurrency or default_concurrency()),
            num_cpus=1,
        )
        _drive(run, out, commit_size, seen)
        _finish(run, known, seen)
    return report


def _drive(run: Any, out: Any, commit_size: int, seen: set[str]) -> None:
    """Stream the actors' rows; write and commit each ``commit_size`` complete sources."""
    pa = pyarrow("ragchunk.ingest on Ray")
    pc = load("pyarrow.compute", "ragchunk.ingest on Ray")

    report: IngestReport = run.report
    parts: dict[str, list[Any]] = {}
    got: dict[str, int] = {}
    waiting: dict[str, tuple[str, str, int]] = {}  # source: (hash, state, chunk count)
    ready: list[tuple[_Item, Any]] = []
    rows_schema = None
    t = time.perf_counter()
    for batch in out.iter_batches(batch_format="pyarrow", batch_size=None):
        run.timed("read", t)
        is_status = pc.equal(batch["chunk_index"], -1)
        chunks = batch.filter(pc.invert(is_status)).drop_columns([n for n, _ in _STATUS_FIELDS])
        rows_schema = chunks.schema
        if chunks.num_rows:
            sids = chunks["source_id"].to_pylist()
            start = 0
            for i in range(1, len(sids) + 1):  # runs of one source
                if i == len(sids) or sids[i] != sids[start]:
                    sid = sids[start]
                    parts.setdefault(sid, []).append(chunks.slice(start, i - start))
                    got[sid] = got.get(sid, 0) + i - start
                    start = i
        for row in batch.filter(is_status).to_pylist():
            report.embeddings_computed += row["_computed"]
            report.embeddings_reused += row["_asked"] - row["_computed"]
            sid = row["source_id"]
            seen.add(sid)
            state = row["_state"]
            if state == "unchanged":
                report.unchanged += 1
            elif state == "failed":
                run.fail(sid, row["metadata"])
            else:
                waiting[sid] = (row["_hash"], state, row["_count"])
        for sid in [s for s, (_, _, n) in waiting.items() if got.get(s, 0) == n]:
            digest, state, _ = waiting.pop(sid)
            pieces = parts.pop(sid, [])
            got.pop(sid, None)
            rows = pa.concat_tables(pieces) if pieces else rows_schema.empty_table()
            ready.append((_Item(sid, digest, "", {}, 0, state == "new"), rows))
        if len(ready) >= commit_size:
            run.store_rows(ready)
            ready = []
        t = time.perf_counter()
    if waiting:  # pragma: no cover - Ray lost rows it reported done
        raise RuntimeError(f"ingest_ray: incomplete rows for sources {sorted(waiting)[:5]}")
    run.store_rows(ready)


def _finish(run: Any, known: dict[str, tuple[str, str]], seen: Iterable[str]) -> None:
    if run.cleanup == "full":
        present = set(seen)
        failed = {s for s, _ in run.report.failures}
        run.remove(sorted(s for s in known if s not in present and s not in failed))
