"""``ragchunk chunk PATH...``: chunk files, directories (every file matching ``--include``,
recursively), glob patterns and ``-`` (standard input) with any ragchunk chunker, and write
one record per chunk (:meth:`ragchunk.Chunk.to_record`, with its ``source``) as JSON Lines,
Parquet or plain text.

A progress bar (bytes and documents, rate, ETA) is drawn on standard error when it is a
terminal; ``--quiet`` turns it off. A file that cannot be read or chunked is reported and
skipped (``--fail-fast`` stops instead; the exit status is 1 either way). Chunkers that
release the GIL run on threads, the others (:func:`ragchunk.core.dispatch.holds_gil`) in
worker processes.

>>> import argparse
>>> p = argparse.ArgumentParser(); add_arguments(p)
>>> a = p.parse_args(["docs/", "--chunker", "markdown", "-o", "chunk_overlap=8"])
>>> a.paths, a.chunker, a.option, a.format
(['docs/'], 'markdown', ['chunk_overlap=8'], 'jsonl')
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Callable
from typing import IO, Any

from ..chunkers import build_chunker, parse_options
from ..core.dispatch import holds_gil
from ..core.optional import load
from ..core.progress import Progress
from ..documents import Document
from ..io.files import DEFAULT_INCLUDE, InputFile, iter_sources
from ._common import add_chunker, add_inputs, display_name, read, read_document

__all__ = ["add_arguments", "holds_gil", "run"]

_BINARY_DOCUMENTS = (".pdf", ".docx", ".xlsx", ".xlsm")  # read only with --documents
_BATCH_BYTES = 4 << 20
_BATCH_DOCS = 256


def add_arguments(chunk: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    add_inputs(chunk)
    add_chunker(chunk, example="-o chunk_overlap=64 -o length=chars")
    chunk.add_argument("--format", choices=["jsonl", "parquet", "text"], default="jsonl")
    chunk.add_argument("--out", help="output file (default: standard output)")
    chunk.add_argument(
        "--workers", type=int, default=None, help="threads or processes (one per core)"
    )
    chunk.add_argument(
        "--parallel",
        choices=["auto", "threads", "processes"],
        default="auto",
        help="threads when the chunker releases the GIL, else processes (auto)",
    )
    chunk.add_argument(
        "--documents",
        action="store_true",
        help="parse files (PDF, DOCX, XLSX, HTML, Markdown...) with ragchunk.documents, in "
        "processes: chunks carry pages, boxes and headings; folders also give *.pdf, *.docx...",
    )
    chunk.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


# ---------------------------------------------------------------------------------------------
# output


class _Writer:
    def __init__(self, fmt: str, out: IO[str] | None, path: str | None) -> None:
        self.fmt = fmt
        self.out = out
        self.path = path
        self._parquet: Any = None

    def write(self, source: str, chunks: list[dict[str, Any]]) -> None:
        out = self.out
        assert out is not None
        if self.fmt == "jsonl":
            for c in chunks:
                out.write(json.dumps({"source": source, **c}, ensure_ascii=False) + "\n")
        else:
            for c in chunks:
                out.write(f"--- {source} [{c['chunk_index']}] ---\n{c['text']}\n")

    def write_table(self, table: Any) -> None:
        pq = load("pyarrow.parquet", "--format parquet")
        if self._parquet is None:
            assert self.path is not None
            self._parquet = pq.ParquetWriter(self.path, table.schema)
        self._parquet.write_table(table)

    def close(self, schema: Any) -> None:
        if self.fmt == "parquet":
            if self._parquet is None:
                load("pyarrow.parquet", "--format parquet").write_table(
                    schema.empty_table(), self.path
                )
            else:
                self._parquet.close()
        elif self.out is not None:
            self.out.flush()


def _chunk_dicts(chunker: Any, texts: list[str], workers: int | None) -> list[list[dict[str, Any]]]:
    import ragchunk

    if isinstance(chunker, ragchunk.SplitterComponent):
        return [
            [
                {
                    "chunk_index": k,
                    "text": c["content"],
                    "start": None,
                    "end": None,
                    "token_count": c["token_count"],
                    "metadata": {"positions": c["positions"], "img_ids": c["img_ids"]},
                }
                for k, c in enumerate(chunker.invoke(t))
            ]
            for t in texts
        ]
    return [
        [c.to_record(k) for k, c in enumerate(chunks)]
        for chunks in chunker.split_batch(texts, workers)
    ]


def _parallelism(args: argparse.Namespace, chunker: Any) -> str:
    """``"threads"`` or ``"processes"``, as ``--parallel`` and the chunker decide."""
    if args.parallel != "auto":
        return str(args.parallel)
    if args.workers == 1:
        return "threads"
    return "processes" if holds_gil(chunker) else "threads"


def _chunk_part(
    chunker: Any, parquet: bool, names: list[str], texts: list[str]
) -> list[list[dict[str, Any]]] | Any:
    """One process's share of a batch: chunk dicts, or an Arrow table for Parquet."""
    if parquet:
        from ..core.optional import pyarrow
        from ..io.arrow import chunk_table

        docs = pyarrow().table({"source": names, "text": texts})
        return chunk_table(docs, chunker, id_columns=["source"], workers=1)
    return _chunk_dicts(chunker, texts, 1)


def _document_part(
    chunker: Any, parquet: bool, names: list[str], datas: list[bytes]
) -> list[list[dict[str, Any]]] | Any:
    """One process's share of ``--documents``: the records of each parsed file, or for
    Parquet their Arrow table (a ``source`` column of ``names``, then the chunk columns)."""
    from ..documents import chunk_files

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        records = chunk_files(chunker, names, datas)
    for warning in caught:  # pages left unread (no OCR engine, a failed OCR): one line each
        print(f"ragchunk: warning: {warning.message}", file=sys.stderr)
    if not parquet:
        return records
    from ..core.optional import pyarrow
    from ..io.arrow import records_table

    return records_table(pyarrow().table({"source": names}), records)


class _Processes:
    """A pool of worker processes (started by spawning, never by forking a process whose
    native thread pool may be running) that chunk one batch's documents in parts."""

    def __init__(self, workers: int | None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers or os.cpu_count() or 1
        self.pool = ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn")
        )

    def run(
        self, chunker: Any, parquet: bool, names: list[str], texts: list[Any], part: Any = None
    ) -> list[Any]:
        """The parts' results in document order (contiguous parts, one per worker)."""
        size = max(1, -(-len(texts) // self.workers))
        futures = [
            self.pool.submit(
                part or _chunk_part, chunker, parquet, names[i : i + size], texts[i : i + size]
            )
            for i in range(0, len(texts), size)
        ]
        return [f.result() for f in futures]

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)


def run(args: argparse.Namespace) -> int:
    """Chunk the inputs and write the records; the exit status."""
    chunker = build_chunker(args.chunker, parse_options(args.option), args.chunk_size)
    mode = _parallelism(args, chunker)
    part: Callable[..., Any] | None = None
    if args.documents:  # files parsed by ragchunk.documents, in processes: parsing is Python
        from ..documents import DOCUMENT_INCLUDE, parsers_available

        if not parsers_available():
            raise ValueError("--documents needs the parsers: pip install 'ragchunk[documents]'")
        if args.include == DEFAULT_INCLUDE:
            args.include += "," + DOCUMENT_INCLUDE
        part = _document_part
        if args.parallel == "auto":
            mode = "threads" if args.workers == 1 else "processes"
    if not args.quiet and sys.stderr.isatty():  # said where the progress bar is drawn
        workers = args.workers or os.cpu_count() or 1
        print(f"ragchunk: chunking on {workers} {mode}", file=sys.stderr)
    processes = _Processes(args.workers) if mode == "processes" else None
    if args.format == "parquet":
        if not args.out:
            raise ValueError("--format parquet needs --out FILE")
        from ..core.optional import pyarrow
        from ..io.arrow import chunk_table, output_schema

        pa = pyarrow()
        schema = output_schema([pa.field("source", pa.string())])
    out: IO[str] | None = None
    if args.format != "parquet":
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    writer = _Writer(args.format, out, args.out)

    sources: list[InputFile] = []
    failures = 0

    def fail(message: str) -> None:
        nonlocal failures
        failures += 1
        print(f"ragchunk: error: {message}", file=sys.stderr)
        if args.fail_fast:
            raise _FailFast

    try:
        for item in iter_sources(args.paths, args.include):
            if isinstance(item, str):
                fail(item)
            else:
                sources.append(item)
        progress = Progress(
            sys.stderr, sum(s.size for s in sources), len(sources), enabled=not args.quiet
        )

        def flush(batch: list[tuple[InputFile, Any]]) -> None:
            if not batch:
                return
            names = [display_name(s.path) for s, _ in batch]
            # a text file's one section is its text: the batch splits the texts themselves
            texts = [t.text if isinstance(t, Document) else t for _, t in batch]
            try:
                if processes is not None or part is not None:
                    parquet = args.format == "parquet"
                    parts = (
                        processes.run(chunker, parquet, names, texts, part)
                        if processes is not None
                        else [part(chunker, parquet, names, texts)]  # type: ignore[misc]
                    )
                    if parquet:
                        for table in parts:
                            writer.write_table(table)
                    else:
                        dicts = [d for one in parts for d in one]
                        for name, chunks in zip(names, dicts, strict=True):
                            writer.write(name, chunks)
                elif args.format == "parquet":
                    docs = pa.table({"source": names, "text": texts})
                    writer.write_table(
                        chunk_table(docs, chunker, id_columns=["source"], workers=args.workers)
                    )
                else:
                    for name, chunks in zip(
                        names, _chunk_dicts(chunker, texts, args.workers), strict=True
                    ):
                        writer.write(name, chunks)
                progress.update(sum(s.size for s, _ in batch), len(batch))
            except (TypeError, ValueError) as exc:
                if len(batch) == 1:
                    progress.update(batch[0][0].size, 1, errors=1)
                    fail(_failure(names[0], exc))
                else:  # find the document that fails: one at a time
                    for one in batch:
                        flush([one])

        batch: list[tuple[InputFile, Any]] = []
        batch_bytes = 0
        for source in sources:
            if part is None and os.path.splitext(source.path)[1].lower() in _BINARY_DOCUMENTS:
                progress.update(source.size, 1, errors=1)
                fail(f"{source.path}: a binary document; pass --documents to parse it")
                continue
            try:
                data: bytes | Document = (
                    read(source, sys.stdin, binary=True)
                    if part is not None
                    else read_document(source, sys.stdin)
                )
            except (OSError, UnicodeDecodeError) as exc:
                progress.update(source.size, 1, errors=1)
                fail(f"{source.path}: {exc}")
                continue
            if source.path == "-":
                source.size = len(
                    data if isinstance(data, bytes) else data.text.encode("utf-8", "surrogatepass")
                )
            batch.append((source, data))
            batch_bytes += source.size
            if len(batch) >= _BATCH_DOCS or batch_bytes >= _BATCH_BYTES:
                flush(batch)
                batch, batch_bytes = [], 0
        flush(batch)
        progress.close()
        writer.close(schema if args.format == "parquet" else None)
    except _FailFast:
        return 1
    finally:
        if processes is not None:
            processes.close()
        if out is not None and out is not sys.stdout:
            out.close()
    return 1 if failures else 0


class _FailFast(Exception):
    pass


def _failure(name: str, exc: Exception) -> str:
    """The one line that reports ``name``'s failure (a document error names the file
    itself: it is named once)."""
    from ..documents import DocumentError

    if isinstance(exc, DocumentError):
        where = name if exc.page is None else f"{name}, page {exc.page}"
        return f"{where}: {exc.reason}"
    return f"{name}: {exc}"
