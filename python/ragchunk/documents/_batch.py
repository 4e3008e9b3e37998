"""Files in bulk: parse and chunk file bytes into plain chunk records, the shape that
``ragchunk chunk --documents``, :func:`ragchunk.io.arrow.chunk_table` (a binary column) and
``ragchunk.ingest`` write.

A record is ``{"chunk_index", "text", "start", "end", "token_count", "metadata"}`` with the
chunk's metadata holding ``pages``, ``bboxes``, ``headings`` and ``sections`` (see
:func:`~ragchunk.documents.chunk_document`); everything in it is JSON-able and picklable, so
worker processes can return it.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from ._chunk import chunk_document
from ._parse import parse

__all__ = ["DOCUMENT_INCLUDE", "available", "chunk_file", "chunk_files", "parsers_available"]

#: The binary document formats that are only read through :func:`~ragchunk.documents.parse`:
#: the patterns ``ragchunk chunk --documents`` and ``ingest`` add to their folder walk.
DOCUMENT_INCLUDE = "*.pdf,*.docx,*.xlsx,*.xlsm,*.csv,*.tsv"

_PARSERS = ("docx", "openpyxl", "pypdfium2")


def available() -> bool:
    """Whether the parsers of the ``documents`` extra (python-docx, openpyxl, pypdfium2) are
    installed.

    >>> isinstance(available(), bool)
    True
    """
    return all(importlib.util.find_spec(name) is not None for name in _PARSERS)


def parsers_available() -> bool:
    """Whether the parsers of the ``documents`` extra are installed: what
    ``ragchunk chunk --documents`` and ``ingest`` check before they read PDF, DOCX or XLSX.

    >>> parsers_available() == available()
    True
    """
    return available()


def chunk_file(data: bytes, filename: str | None, chunker: Any) -> list[dict[str, Any]]:
    """Parse ``data`` (the format from ``filename``'s extension, else from the bytes) and
    chunk it with ``chunker``: one record per chunk (see the module docstring).

    Raises:
        TypeError: ``chunker`` has no ``split`` method (a RAGFlow ``SplitterComponent``
            chunks text, not parsed documents).
        ragchunk.documents.DocumentError: the file cannot be parsed (the message names it).

    >>> from ragchunk import RecursiveSplitter
    >>> rows = chunk_file(b"# A\\n\\nOne.\\n\\n## B\\n\\nTwo.\\n", "a.md", RecursiveSplitter(4))
    >>> [(r["text"], r["metadata"]["headings"]) for r in rows]
    [('A\\n\\nOne.', ['A']), ('B', ['A', 'B']), ('Two.', ['A', 'B'])]
    """
    if not callable(getattr(chunker, "split", None)):
        raise TypeError(
            f"chunker must be a ragchunk splitter with a split(text) method to chunk parsed "
            f"documents, got {type(chunker).__name__}"
        )
    doc = parse(data, filename=filename)
    return [c.to_record(k) for k, c in enumerate(chunk_document(doc, chunker))]


def chunk_files(chunker: Any, names: list[str], datas: list[bytes]) -> list[list[dict[str, Any]]]:
    """The records of each file (:func:`chunk_file` over ``datas``, ``names`` their file
    names): one worker's share of ``ragchunk chunk --documents``.

    >>> from ragchunk import CharacterSplitter
    >>> [r["text"] for r in chunk_files(CharacterSplitter(8), ["a.txt"], [b"Hello."])[0]]
    ['Hello.']
    """
    return [chunk_file(data, name, chunker) for name, data in zip(names, datas, strict=True)]
