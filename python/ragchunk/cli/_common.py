"""What the subcommands share: the input and chunker arguments, reading a source, naming it."""

from __future__ import annotations

import argparse
from typing import IO, Any

from ..chunkers import CHUNKERS
from ..documents import Document, text_document
from ..io.files import DEFAULT_INCLUDE, InputFile


def add_inputs(p: argparse.ArgumentParser) -> None:
    """``PATH...``, ``--include`` and ``--fail-fast``: the inputs of ``chunk`` and ``count``."""
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, directories, globs, - (stdin)")
    p.add_argument(
        "--include",
        default=DEFAULT_INCLUDE,
        help=f"file patterns read from directories (default: {DEFAULT_INCLUDE})",
    )
    p.add_argument("--fail-fast", action="store_true", help="stop at the first failing file")


def add_chunker(
    p: argparse.ArgumentParser,
    *,
    chunker_help: str | None = None,
    sized: bool = True,
    example: str = "-o chunk_overlap=64",
) -> None:
    """``--chunker NAME`` (recursive by default), ``--chunk-size N`` (512; left out when not
    ``sized``, for a command whose sizes are a list) and ``-o KEY=VALUE`` (repeated): the
    chunker of ``chunk``, ``ingest`` and ``eval``, built by :func:`ragchunk.chunkers.build_chunker`.

    >>> p = argparse.ArgumentParser(); add_chunker(p)
    >>> a = p.parse_args(["--chunker", "markdown", "-o", "chunk_overlap=8", "-o", "x=1"])
    >>> a.chunker, a.chunk_size, a.option
    ('markdown', 512, ['chunk_overlap=8', 'x=1'])
    """
    p.add_argument(
        "--chunker",
        default="recursive",
        help=chunker_help or f"one of {', '.join(CHUNKERS)} (recursive)",
    )
    if sized:
        p.add_argument("--chunk-size", type=int, default=512, help="chunk size (512)")
    p.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"another argument of the chunker, e.g. {example}",
    )


def add_embedder(
    p: argparse.ArgumentParser, flag: str, purpose: str, *, default: str | None = None
) -> None:
    """``flag`` naming an embedder, ``'wordllama[:DIM]'`` (the model shipped in the
    wordllama wheel) or an OpenAI-compatible base URL (its model named by
    ``--embed-model``), for ``purpose``.

    >>> p = argparse.ArgumentParser(); add_embedder(p, "--judge-embedder", "judging")
    >>> p.parse_args(["--judge-embedder", "wordllama:64"]).judge_embedder
    'wordllama:64'
    """
    where = f"; default: {default}" if default else ""
    p.add_argument(
        flag,
        default=default,
        help=f"{purpose}: 'wordllama[:DIM]' (the model shipped in the wordllama wheel) or an "
        f"OpenAI-compatible base URL (with --embed-model){where}",
    )


def read(source: InputFile, stdin: IO[str], binary: bool = False) -> Any:
    """The text of ``source`` (UTF-8, a leading byte-order mark dropped, as ingest's reader and
    ``ragchunk.documents.parse`` drop it), or its bytes for ``ragchunk.documents.parse``."""
    if binary:
        if source.path == "-":
            return stdin.buffer.read()  # type: ignore[attr-defined]
        with open(source.path, "rb") as fh:
            return fh.read()
    if source.path == "-":
        return stdin.read().removeprefix("\ufeff")
    with open(source.path, encoding="utf-8-sig") as fh:
        return fh.read()


def read_document(source: InputFile, stdin: IO[str]) -> Document:
    """A text file (or standard input) read as UTF-8, as the one-section
    :func:`ragchunk.documents.text_document` its chunks are cut from."""
    return text_document(read(source, stdin), filename=display_name(source.path))


def display_name(path: str) -> str:
    """How a source is named in the output: its path, ``<stdin>`` for ``-``."""
    return path if path != "-" else "<stdin>"
