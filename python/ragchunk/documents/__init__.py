"""Documents in: files parsed into structured sections, ready for every ragchunk chunker.

:func:`parse` reads DOCX (python-docx), XLSX (openpyxl) and CSV, HTML and Markdown (the block
parsers of :class:`ragchunk.HTMLSplitter` and :class:`ragchunk.MarkdownSplitter`), plain text,
source code, JSON and JSON Lines, and PDF (PDFium's text layer through pypdfium2, a simple
layout pass: see ``ragchunk.documents._pdf``) into a :class:`Document`: :class:`Section`
objects in reading order, each with a kind (title, text, list, table, code, figure, caption,
header, footer), a heading level, and, for paged formats, its page and boxes.
:func:`text_document` holds a text file read as it is (one section, for the chunkers that
read its structure themselves). :func:`chunk_document` runs any chunker over a document and
gives chunks that carry their pages, boxes and heading path;
:meth:`Document.ragflow_sections` and :meth:`Document.pipeline_upstream` feed RAGFlow's merge
and pipeline components. Install the parsers with ``pip install 'ragchunk[documents]'``.

Hostile files are refused within fixed limits (:data:`LIMITS`); corrupt, truncated or
encrypted files raise :class:`DocumentError` naming the file.

>>> from ragchunk.documents import parse, chunk_document
>>> from ragchunk import MarkdownSplitter
>>> doc = parse(b"# Guide\\n\\nIntro.\\n\\n## Install\\n\\nRun it.\\n", filename="guide.md")
>>> [c.metadata["headings"] for c in chunk_document(doc, MarkdownSplitter(chunk_size=8))]
[['Guide'], ['Guide', 'Install']]
"""

from __future__ import annotations

from ._batch import DOCUMENT_INCLUDE, chunk_file, chunk_files, parsers_available
from ._chunk import chunk_document, heading_paths
from ._model import KINDS, Box, Document, Location, Page, Section, Span
from ._parse import FORMATS, detect_format, parse
from ._safety import LIMITS, DocumentError
from ._sheets import row_sentences
from ._text import is_text_document, text_document

__all__ = [
    "DOCUMENT_INCLUDE",
    "FORMATS",
    "KINDS",
    "LIMITS",
    "Box",
    "Document",
    "DocumentError",
    "Location",
    "Page",
    "Section",
    "Span",
    "chunk_document",
    "chunk_file",
    "chunk_files",
    "detect_format",
    "heading_paths",
    "is_text_document",
    "parse",
    "parsers_available",
    "row_sentences",
    "text_document",
]
