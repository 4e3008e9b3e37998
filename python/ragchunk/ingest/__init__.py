"""Ingestion into real stores: files, folders or documents to LanceDB, Chroma or a Parquet
dataset, incremental by content and crash-safe.

:func:`ingest` reads the sources, skips those whose content and chunker configuration are
those of the last run (no parsing, no embedding, no write), chunks and embeds the others and
writes them to the store, replacing their previous chunks; with ``cleanup="full"``, sources
that are gone lose their chunks.

The guarantees:

* **Same chunks every time.** A chunk's id is a hash of its source id, the configuration
  hash (chunker, ragchunk version, embedder model), its offsets, its text and the rest of its
  row, so a rewrite is an idempotent upsert and two runs over the same sources give the same
  ids and rows.
* **Crash-safe.** For each batch the manifest (SQLite, beside the store) first records the
  new and old chunk ids of the sources being rewritten (``pending``), then the new rows are
  upserted, then one transaction makes the new version current and marks the old chunks
  garbage, then the garbage is deleted. A run that starts finds what a killed run left: it
  deletes the pending sources' new chunks and the garbage before anything else. Whatever
  moment the process died at, the next run ends in the store one clean run would have made:
  no duplicate ids, no missing chunks, no chunks of old or deleted versions.
* **Beyond one machine.** :func:`ingest_ray` reads, parses, chunks and embeds in Ray
  actors and writes and commits on the driver, with the same ids, rows and protocol.
* **No file can stall or sink a run.** Files are parsed and chunked in supervised worker
  processes, each file under a time and a memory limit (:mod:`ragchunk.ingest.workers`); a
  file over a limit, or one that crashes its worker, is reported and remembered, and the run
  goes on.
* **Searchable.** :func:`search` returns the chunks that answer a query with their
  citations (file, pages, boxes, heading path).
* **One writer.** A second run on the same store is refused with
  :class:`IngestLockedError` while the first holds the lock (released by the kernel when its
  process ends, however it ends).

>>> import tempfile, ragchunk
>>> store = "lancedb:" + tempfile.mkdtemp()
>>> report = ingest([Source("a", "Hello world. Bye.")], store, ragchunk.RecursiveSplitter(3))
>>> report.added, report.chunks_written
(1, 2)
>>> sorted(open_store(store).read()["text"].to_pylist())
['Bye.', 'Hello world.']
"""

from __future__ import annotations

from .manifest import IngestLockedError, Manifest, StoreLock
from .pipeline import CLEANUP_MODES, IngestReport, ingest
from .ray import IngestBatches, ingest_ray
from .rows import chunk_id, config_hash
from .search import SEARCH_MODES, Hit, search
from .sources import Reader, Source, content_hash, read_text
from .stores import (
    ChromaStore,
    LanceDBStore,
    ParquetStore,
    Store,
    open_store,
    row_schema,
    sorted_rows,
)

__all__ = [
    "CLEANUP_MODES",
    "SEARCH_MODES",
    "ChromaStore",
    "Hit",
    "IngestBatches",
    "IngestLockedError",
    "IngestReport",
    "LanceDBStore",
    "Manifest",
    "ParquetStore",
    "Reader",
    "Source",
    "Store",
    "StoreLock",
    "chunk_id",
    "config_hash",
    "content_hash",
    "ingest",
    "ingest_ray",
    "open_store",
    "read_text",
    "row_schema",
    "search",
    "sorted_rows",
]
