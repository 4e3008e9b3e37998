"""``ingest()``: sources to a store, incremental by content, crash-safe (see
:mod:`ragchunk.ingest` for the guarantees and the write protocol)."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.checks import check_path
from ._faults import Points
from .manifest import Manifest, StoreLock
from .progress import IngestProgress
from .rows import _Item, _items_rows, _per_source, _with_vectors, chunk_id, config_hash
from .sources import Reader, Source, SourceFile, default_include, iter_inputs
from .stores import Store, open_store, store_identity
from .workers import (
    DEFAULT_FILE_MEMORY,
    DEFAULT_FILE_TIMEOUT,
    Supervisor,
    Task,
    check_limits,
    picklable,
)

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
    and ``failed`` (with ``failures``: ``(source, message)``, the message naming the limit
    when a file passed ``file_timeout`` or ``file_memory``); ``skipped``: files that failed
    in an earlier run and were not tried again (their bytes and the configuration are
    unchanged; ``skipped_failures`` holds their recorded reasons); ``chunks_written`` and
    ``chunks_deleted`` in the store; ``embeddings_computed`` by the model and
    ``embeddings_reused`` (cache hits and duplicates); ``pages`` parsed; ``seconds`` per
    stage (``parse`` is the wall time spent waiting for the workers) and ``cpu_seconds``, the
    workers' CPU time; ``workers`` started (a worker stopped by a limit or a crash is
    replaced); ``recovered``: sources whose interrupted rewrite a previous run left and this
    one rolled back; ``unread``: ``(source, page numbers)`` of the files written without some
    pages, scanned pages with no OCR engine installed or whose OCR failed (the rest of each
    such file is written).

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
    skipped: int = 0
    pages: int = 0
    workers: int = 0
    cpu_seconds: float = 0.0
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(_STAGES, 0.0))
    failures: list[tuple[str, str]] = field(default_factory=list)
    skipped_failures: list[tuple[str, str]] = field(default_factory=list)
    unread: list[tuple[str, list[int]]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No source failed."""
        return not self.failed

    def summary(self) -> str:
        """The report in three lines, and a fourth naming the pages left unread if any.

        >>> print(IngestReport(added=1, chunks_written=3).summary().splitlines()[0])
        files: 1 added, 0 changed, 0 unchanged, 0 deleted, 0 failed
        """
        times = ", ".join(f"{k} {v:.2f}" for k, v in self.seconds.items() if v >= 0.005)
        skipped = f", {self.skipped} skipped (failed before)" if self.skipped else ""
        return (
            f"files: {self.added} added, {self.changed} changed, {self.unchanged} unchanged, "
            f"{self.deleted} deleted, {self.failed} failed{skipped}\n"
            f"chunks: {self.chunks_written} written, {self.chunks_deleted} deleted; "
            f"embeddings: {self.embeddings_computed} computed, {self.embeddings_reused} reused\n"
            f"seconds: {times or '0'}" + (f"\n{self._unread_line()}" if self.unread else "")
        )

    def _unread_line(self) -> str:
        files = "; ".join(
            f"{s} page{'s' if len(p) > 1 else ''} "
            + ", ".join(map(str, p[:10]))
            + (", ..." if len(p) > 10 else "")
            for s, p in self.unread[:5]
        )
        more = f"; and {len(self.unread) - 5} more files" if len(self.unread) > 5 else ""
        return (
            f"pages not read (no text layer, and no OCR engine or its OCR failed; "
            f"pip install 'ragchunk[ocr]'): {files}{more}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-able data; each failure a ``{"source", "reason"}`` object.

        >>> IngestReport(failed=1, failures=[("a.pdf", "a.pdf: file_timeout")]).to_dict()[
        ...     "failures"]
        [{'source': 'a.pdf', 'reason': 'a.pdf: file_timeout'}]
        """
        out = dataclasses.asdict(self)
        for key in ("failures", "skipped_failures"):
            out[key] = [{"source": s, "reason": r} for s, r in getattr(self, key)]
        out["unread"] = [{"source": s, "pages": p} for s, p in self.unread]
        return out

    def write_json(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dict` to ``path`` as JSON."""
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_dict(), fh, indent=2, ensure_ascii=False)
            fh.write("\n")


def _embedder(embedder: Any, cache: Any, manifest_path: str) -> Any:
    if embedder is None:  # numpy and the embeddings module are imported only when needed
        return None
    from ..embeddings import EmbeddingCache, ManagedEmbedder, as_embedder

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
        self.failed_files: list[tuple[str, str, str, str]] = []
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
            self.fail(items[0].source_id, str(exc), items[0].content_hash)
            return []

    def _split(self, items: list[_Item]) -> list[tuple[_Item, Any]]:
        return list(zip(items, _per_source(self._rows(items), items), strict=True))

    def _rows(self, items: list[_Item]) -> Any:
        t = time.perf_counter()
        rows = _items_rows(self.chunker, items, self.config, self.workers)
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

    def fail(self, source_id: str, message: str, digest: str | None = None) -> None:
        """Report a failed source; with its content hash, the manifest remembers it."""
        self.report.failed += 1
        self.report.failures.append((source_id, message))
        if digest is not None:
            self.failed_files.append((source_id, digest, self.config, message))

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
    sources: Iterable[str | os.PathLike[str] | Source] | str | os.PathLike[str] | Source,
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
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
    file_memory: int | str | None = DEFAULT_FILE_MEMORY,
    retry_failed: bool = False,
    start_method: str | None = None,
) -> IngestReport:
    """Chunk (and embed) ``sources`` into ``store``, rewriting only what changed.

    Files are read and hashed here, then parsed and chunked in ``workers`` supervised
    processes (see :mod:`ragchunk.ingest.workers`), each file under ``file_timeout`` and
    ``file_memory``; embedding, the writes and the manifest commits happen here, in the
    order the files were given, so the store is the one a single worker would make. A file
    that fails (a reader error, a limit passed, a crashed worker) is reported and remembered:
    the next run skips it until its bytes or the configuration change (or ``retry_failed``).

    Args:
        sources: files, folders (every file matching ``include``, recursively), globs, and
            :class:`~ragchunk.ingest.Source` objects; one or a list.
        store: a store URL (``lancedb:DIR``, ``parquet:DIR``, ``chroma:DIR``,
            ``chroma+http://HOST:PORT``) or a :class:`~ragchunk.ingest.Store` object.
        chunker: any ragchunk chunker (a ``Splitter`` or a ``SplitterComponent``).
        embedder: anything :func:`ragchunk.embeddings.as_embedder` takes; rows then carry a
            ``vector``.
        cleanup: one of :data:`CLEANUP_MODES`.
        workers: worker processes parsing and chunking files, and threads chunking
            in-memory sources (default: one per core).
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
        file_timeout: seconds one file may take to parse and chunk (default 120; None: no
            limit).
        file_memory: memory one file may take in its worker beyond the worker's own, in
            bytes or as ``"512M"``, ``"2G"`` (default 2 GiB; None: no limit).
        retry_failed: try again the files that failed in earlier runs, even unchanged.
        start_method: how workers start, ``"forkserver"`` (the default where the system
            has it) or ``"spawn"``. Readers that cannot be pickled (a ``lambda``) run in
            this process, without the limits.

    Returns:
        An :class:`IngestReport`.

    Raises:
        IngestLockedError: another run is writing the store.
        TypeError, ValueError: a bad argument (the message names it).

    >>> import os, tempfile, ragchunk
    >>> from ragchunk.ingest import Source
    >>> where = "parquet:" + tempfile.mkdtemp()
    >>> docs = [Source("a", "One. Two. Three."), Source("b", "Five.")]
    >>> ingest(docs, where, ragchunk.RecursiveSplitter(3)).chunks_written
    5
    >>> ingest(docs, where, ragchunk.RecursiveSplitter(3)).unchanged
    2
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
    limits = check_limits(file_timeout, file_memory)
    with _session(store, chunker, embedder, cleanup, workers, manifest, embedding_cache) as run:
        base_dir = None if base is None else os.fspath(base)
        include = default_include() if include is None else include
        sup = Supervisor(
            workers or os.cpu_count() or 1,
            chunker,
            readers,
            run.config,
            file_timeout=limits[0],
            file_memory=limits[1],
            start_method=start_method,
            inline=not picklable((chunker, readers)),
        )
        with sup:
            _walk(
                run,
                sup,
                sources,
                include,
                batch_size,
                bool(progress),
                base_dir,
                rehash,
                bool(retry_failed),
            )
            run.report.workers = sup.started
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
        path = check_path(manifest, "manifest") if manifest is not None else st.default_manifest()
        if path is None:
            raise ValueError(f"manifest: {st.url} keeps no manifest of its own; pass manifest=PATH")
        lock = StoreLock(path + ".lock")
        lock.acquire()
        try:
            man = Manifest(path)
            try:
                if manifest is not None and path != st.default_manifest():
                    man.check_store(store_identity(st))
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


# A file modified less than this before the run started is hashed again on the next run
# even when its size and modification time are unchanged: a write within the file system's
# timestamp granularity could otherwise hide behind an equal mtime (git's "racy" files).
_RACY_NS = 2_000_000_000


def _walk(
    run: _Run,
    sup: Supervisor,
    sources: Any,
    include: str,
    batch_size: int,
    progress: bool,
    base: str | None,
    rehash: bool,
    retry_failed: bool,
) -> None:
    report = run.report
    inputs: list[tuple[str, SourceFile | Source]] = []
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
    failed_before = run.manifest.failed()
    cached = {} if rehash else run.manifest.files()
    hashed: list[tuple[str, int, int, str]] = []
    bar = IngestProgress(
        sys.stderr,
        sum(it.size if isinstance(it, SourceFile) else len(it.text) for _, it in inputs),
        len(inputs),
        enabled=progress,
    )
    tasks = _tasks(run, inputs, known, failed_before, cached, hashed, bar, retry_failed)
    batch: list[_Item] = []
    outcomes = sup.map(tasks)
    while True:
        t = time.perf_counter()
        out = next(outcomes, None)
        run.timed("parse", t)
        if out is None:
            break
        sid, task = out.task.source_id, out.task
        digest, size, new, text, meta = task.payload
        report.cpu_seconds += out.cpu
        if out.error is not None:
            run.fail(sid, out.error, digest)
            bar.update(size, failures=1)
            continue
        run.points.hit("parse")
        report.pages += out.pages
        if out.unread:
            report.unread.append((sid, list(out.unread)))
        chunks = 0 if out.rows is None else out.rows.num_rows
        batch.append(_Item(sid, digest, text, meta, size, new, out.rows))
        bar.update(size, chunks=chunks, pages=out.pages)
        if len(batch) >= batch_size:
            run.write(batch)
            batch = []
    if batch:
        run.write(batch)
    if hashed:
        run.manifest.record_files(hashed)
    if run.failed_files:
        run.manifest.record_failed(run.failed_files)
    gone = [s for s in failed_before if s not in seen]
    if run.cleanup == "full":
        failed = {s for s, _ in report.failures}
        run.remove(sorted(s for s in known if s not in seen and s not in failed))
        run.manifest.forget_failed(gone)
    bar.close()


def _tasks(
    run: _Run,
    inputs: list[tuple[str, SourceFile | Source]],
    known: dict[str, tuple[str, str]],
    failed_before: dict[str, tuple[str, str, str]],
    cached: dict[str, tuple[int, int, str]],
    hashed: list[tuple[str, int, int, str]],
    bar: IngestProgress,
    retry_failed: bool,
) -> Iterator[Task]:
    """The sources to parse, as worker tasks (read and hashed here; a source whose content
    and configuration are those committed, or those of a recorded failure, is skipped)."""
    report = run.report
    started_ns = time.time_ns()
    for seq, (sid, item) in enumerate(inputs):
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
                bar.update(item.size, failures=1)
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
            bar.update(size)
            continue
        before = failed_before.get(sid)
        if not retry_failed and before is not None and before[:2] == (digest, run.config):
            report.skipped += 1
            report.skipped_failures.append((sid, before[2]))
            bar.update(size)
            continue
        new = previous is None
        if isinstance(item, SourceFile):
            if data is None:  # the hash came from the cache, and the source changed
                try:
                    with open(item.path, "rb") as fh:
                        data = fh.read()
                except OSError as exc:
                    run.fail(sid, f"{item.path}: {exc}")
                    bar.update(size, failures=1)
                    continue
                digest = hashlib.sha256(data).hexdigest()  # what is parsed is what is recorded
            yield Task(seq, sid, item.path, data, (digest, size, new, None, {}))
        else:
            yield Task(seq, sid, None, b"", (digest, size, new, item.text, dict(item.metadata)))
