"""The ``ingest`` command: ``ragchunk ingest SRC... --into STORE``.

Chunks (and with ``--embed``, embeds) files, folders and globs into a store named by its URL
(``lancedb:DIR``, ``parquet:DIR``, ``chroma:DIR``, ``chroma+http://HOST:PORT``), rewriting
only what changed since the last run, and prints the run's report. Exit status 1 when a file
failed (it is reported and its previous chunks are kept), 2 for a usage error or when another
run holds the store.

>>> import argparse
>>> p = argparse.ArgumentParser(); add_arguments(p)
>>> a = p.parse_args(["docs/", "--into", "lancedb:./index", "--cleanup", "full"])
>>> a.paths, a.into, a.cleanup, a.chunker
(['docs/'], 'lancedb:./index', 'full', 'recursive')
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
from typing import Any

from ..chunkers import build_chunker, parse_options
from ..ingest.workers import DEFAULT_FILE_MEMORY, DEFAULT_FILE_TIMEOUT, check_limits, parse_memory
from ..io.files import DEFAULT_INCLUDE
from ._common import add_chunker

__all__ = ["add_arguments", "load_embedder", "run"]


def load_embedder(spec: str) -> Any:
    """The embedder ``--embed`` names: ``wordllama`` or ``wordllama:DIM`` (the model shipped
    with the wordllama wheel), ``openai:MODEL@URL`` (an OpenAI-compatible server), or
    ``MODULE:NAME`` (an embedder object, a ``texts -> vectors`` function, or a class built
    with no arguments).

    >>> load_embedder("math:nosuch")
    Traceback (most recent call last):
    ...
    ValueError: --embed: module math has no attribute 'nosuch'
    """
    kind, _, rest = spec.partition(":")
    if kind == "wordllama":
        from ..embeddings import load_wordllama

        return load_wordllama(int(rest)) if rest else load_wordllama()
    if kind == "openai":
        model, sep, url = rest.partition("@")
        if not (model and sep and url):
            raise ValueError(f"--embed openai:MODEL@URL, got {spec!r}")
        from ..embeddings import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(url, model)
    if not rest:
        raise ValueError(
            f"--embed must be wordllama[:DIM], openai:MODEL@URL or MODULE:NAME, got {spec!r}"
        )
    try:
        module = importlib.import_module(kind)
    except ImportError as exc:
        raise ValueError(f"--embed: cannot import {kind}: {exc}") from None
    obj = getattr(module, rest, None)
    if obj is None:
        raise ValueError(f"--embed: module {kind} has no attribute {rest!r}")
    return obj() if inspect.isclass(obj) else obj


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""

    p.add_argument("paths", nargs="+", metavar="SRC", help="files, folders, globs")
    p.add_argument(
        "--into",
        required=True,
        metavar="STORE",
        help="lancedb:DIR, parquet:DIR, chroma:DIR or chroma+http://HOST:PORT",
    )
    add_chunker(p)
    p.add_argument(
        "--embed", metavar="EMBEDDER", help="wordllama[:DIM], openai:MODEL@URL or MODULE:NAME"
    )
    p.add_argument(
        "--cleanup",
        choices=["none", "incremental", "full"],
        default="incremental",
        help="full: also delete the chunks of sources no longer given (incremental)",
    )
    p.add_argument(
        "--base", help="source ids are file paths relative to this folder (default: as given)"
    )
    p.add_argument("--manifest", help="the manifest's SQLite file (default: in the store)")
    p.add_argument(
        "--include",
        default=None,
        help=f"file patterns read from folders (default: {DEFAULT_INCLUDE}, and *.pdf, "
        "*.docx, *.xlsx, *.xlsm with the documents extra)",
    )
    p.add_argument(
        "--rehash",
        action="store_true",
        help="read and hash every file, even those whose size and mtime are unchanged",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes parsing and chunking files (one per core)",
    )
    p.add_argument(
        "--file-timeout",
        type=_seconds,
        default=DEFAULT_FILE_TIMEOUT,
        metavar="SECONDS",
        help=f"the time one file may take; a file over it fails ({DEFAULT_FILE_TIMEOUT:g})",
    )
    p.add_argument(
        "--file-memory",
        type=_memory,
        default=DEFAULT_FILE_MEMORY,
        metavar="SIZE",
        help="the memory one file may take in its worker, e.g. 512M, 2G (2G)",
    )
    p.add_argument(
        "--retry-failed",
        action="store_true",
        help="try again the files that failed before, even when they are unchanged",
    )
    p.add_argument("--report", metavar="FILE", help="write the run's report to FILE as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no report")


#: The stores whose URL names a folder.
_FOLDER_STORES = ("lancedb", "parquet", "chroma")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    try:
        check_limits(value, None)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _memory(text: str) -> int:
    try:
        return parse_memory(text, "--file-memory")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    """Run the command; the exit status."""
    from ..ingest import IngestLockedError, ingest

    scheme, sep, where = args.into.partition(":")
    folder = os.path.expanduser(where.partition("?")[0])
    if sep and scheme in _FOLDER_STORES and os.path.exists(folder) and not os.path.isdir(folder):
        print(
            f"ragchunk: error: --into {args.into}: {folder} is a file; a {scheme} store is a "
            "folder (name a new or existing folder)",
            file=sys.stderr,
        )
        return 2
    chunker = build_chunker(args.chunker, parse_options(args.option), args.chunk_size)
    embedder = load_embedder(args.embed) if args.embed else None
    try:
        report = ingest(
            args.paths,
            args.into,
            chunker,
            embedder=embedder,
            cleanup=None if args.cleanup == "none" else args.cleanup,
            workers=args.workers,
            progress=not args.quiet,
            manifest=args.manifest,
            include=args.include,
            base=args.base,
            rehash=args.rehash,
            file_timeout=args.file_timeout,
            file_memory=args.file_memory,
            retry_failed=args.retry_failed,
        )
    except IngestLockedError as exc:
        print(f"ragchunk: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the store's folder cannot be made or written
        print(
            f"ragchunk: error: --into {args.into}: {exc.filename or ''}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    for source, message in report.failures:
        print(
            f"ragchunk: error: {message if source in message else f'{source}: {message}'}",
            file=sys.stderr,
        )
    if args.report:
        report.write_json(args.report)
    if not args.quiet:
        print(report.summary(), file=sys.stderr)
        for _, reason in report.skipped_failures:
            print(f"ragchunk: skipped (failed before): {reason}", file=sys.stderr)
    return 0 if report.ok else 1
