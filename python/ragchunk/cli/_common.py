"""What the subcommands share: the input arguments, reading a source, the failure type."""

from __future__ import annotations

import argparse
from typing import IO, Any

from ..io.files import DEFAULT_INCLUDE, Source


def add_inputs(p: argparse.ArgumentParser) -> None:
    """``PATH...``, ``--include`` and ``--fail-fast``: the inputs of ``chunk`` and ``count``."""
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, directories, globs, - (stdin)")
    p.add_argument(
        "--include",
        default=DEFAULT_INCLUDE,
        help=f"file patterns read from directories (default: {DEFAULT_INCLUDE})",
    )
    p.add_argument("--fail-fast", action="store_true", help="stop at the first failing file")


def read(source: Source, stdin: IO[str], binary: bool = False) -> Any:
    """The text of ``source`` (UTF-8), or its bytes for ``ragchunk.documents.parse``."""
    if binary:
        if source.path == "-":
            return stdin.buffer.read()  # type: ignore[attr-defined]
        with open(source.path, "rb") as fh:
            return fh.read()
    if source.path == "-":
        return stdin.read()
    with open(source.path, encoding="utf-8") as fh:
        return fh.read()


def display_name(path: str) -> str:
    """How a source is named in the output: its path, ``<stdin>`` for ``-``."""
    return path if path != "-" else "<stdin>"
