"""What ``ingest`` reads: files, folders and globs (walked as ``ragchunk chunk`` walks them),
or :class:`Source` objects made in memory; and the readers that turn a file's bytes into
text.

A file's source id is its path as walked (``docs/guide/a.md`` for ``docs/``). Its content hash
is the sha256 of its bytes, computed before any parsing, so an unchanged file is never parsed
again. A reader is any callable ``(path, data) -> str | Source``, or a
:class:`ragchunk.documents.Document`, whose chunks then carry their pages, boxes and headings:
:func:`read_document` is the default for PDF, DOCX and XLSX files when the ``documents``
extra is installed, :func:`read_text` (UTF-8) for every other file; pass
``readers={".pdf": my_pdf_reader}`` to ``ingest`` to read a type otherwise (a reader that
raises makes the file a reported failure).

>>> doc = Source("notes/1", "Some text.")
>>> doc.content_hash == content_hash("Some text.".encode())
True
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

__all__ = [
    "Reader",
    "Source",
    "SourceFile",
    "content_hash",
    "iter_inputs",
    "parse_file",
    "read_document",
    "read_text",
]

Reader = Callable[[str, bytes], Union[str, "Source", Any]]

#: The extensions :func:`read_document` reads by default (with the ``documents`` extra).
DOCUMENT_EXTENSIONS = (".pdf", ".docx", ".xlsx", ".xlsm")
#: Images read by OCR (each frame a page) when named or matched by an include pattern; a
#: folder walk's default patterns leave them out.
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".tif", ".tiff")


def content_hash(data: bytes) -> str:
    """The sha256 of ``data``, in hex.

    >>> content_hash(b"")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(data).hexdigest()


@dataclass
class Source:
    """A source given in memory: ``source_id``, ``text``, and ``metadata`` (a JSON-able
    dict copied into every chunk's ``metadata``). Its content hash covers text and metadata.

    >>> Source("a", "x", {"lang": "en"}).metadata
    {'lang': 'en'}
    """

    source_id: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.source_id, str) or not self.source_id:
            raise ValueError(f"Source.source_id must be a non-empty str, got {self.source_id!r}")
        if not isinstance(self.text, str):
            raise TypeError(f"Source.text must be a str, got {type(self.text).__name__}")
        if not isinstance(self.metadata, dict):
            raise TypeError(f"Source.metadata must be a dict, got {type(self.metadata).__name__}")

    @property
    def content_hash(self) -> str:
        """The sha256 of the text (UTF-8) and, when there is any, the metadata."""
        import json

        data = self.text.encode("utf-8", "surrogatepass")
        if self.metadata:
            meta = json.dumps(self.metadata, sort_keys=True, ensure_ascii=False, default=str)
            data += b"\0" + meta.encode("utf-8", "surrogatepass")
        return content_hash(data)


@dataclass
class SourceFile:
    """A file to ingest: its source id (the path as walked) and size in bytes."""

    path: str
    size: int
    base: str | None = None

    @property
    def source_id(self) -> str:
        """The path, normalised (``./a.md`` and ``a.md`` are one source), relative to
        ``base`` when there is one (with ``/`` between folders on every system).

        >>> SourceFile("./docs//a.md", 3).source_id
        'docs/a.md'
        >>> SourceFile("/data/docs/guide/a.md", 3, base="/data/docs").source_id
        'guide/a.md'
        """
        path = os.path.normpath(self.path)
        if self.base is not None:
            full, base = os.path.abspath(path), os.path.abspath(self.base)
            if full.startswith(base + os.sep):  # the common case, without relpath's walk
                path = full[len(base) + 1 :]
            else:
                path = os.path.relpath(full, base)
        return path.replace(os.sep, "/")


def read_text(path: str, data: bytes) -> str:
    """The default reader: ``data`` decoded as UTF-8 (a BOM dropped).

    >>> read_text("a.txt", "héllo".encode())
    'héllo'
    """
    return data.decode("utf-8-sig")


def read_document(path: str, data: bytes) -> Any:
    """The reader of PDF, DOCX and XLSX files and images: ``data`` parsed by
    :func:`ragchunk.documents.parse` (needs the ``documents`` extra; images and scanned
    pages need the ``ocr`` extra). Pages left unread are not warned about here: they stay in
    the document's ``metadata["needs_ocr"]``, which the ingest report lists.

    >>> read_document("notes.md", b"# Notes\\n\\nHi.").sections[0].text
    'Notes'
    """
    from ..documents import parse

    with warnings.catch_warnings():
        # parse's warnings are about unread pages (no OCR engine, or a page's OCR failed):
        # IngestReport.unread carries them, once per file, instead of a worker's stderr
        warnings.simplefilter("ignore", UserWarning)
        return parse(data, filename=os.path.basename(path))


def reader_for(path: str, readers: Mapping[str, Reader] | None) -> Reader:
    """The reader of ``path``: ``readers``' entry for its extension (``".pdf"``, in any
    case), else :func:`read_document` for :data:`DOCUMENT_EXTENSIONS` and
    :data:`IMAGE_EXTENSIONS` when the
    ``documents`` extra is installed, else :func:`read_text`.

    >>> reader_for("a.PDF", {".pdf": len}) is len
    True
    >>> reader_for("a.md", None) is read_text
    True
    """
    ext = os.path.splitext(path)[1].lower()
    if readers:
        for key, reader in readers.items():
            if key.lower() == ext:
                return reader
    if (ext in DOCUMENT_EXTENSIONS or ext in IMAGE_EXTENSIONS) and documents_available():
        return read_document
    return read_text


def documents_available() -> bool:
    """Whether the ``documents`` extra's parsers are installed.

    >>> isinstance(documents_available(), bool)
    True
    """
    from ..documents import parsers_available

    return parsers_available()


def default_include() -> str:
    """The file patterns ``ingest`` reads from folders: ``ragchunk chunk``'s, and PDF, DOCX
    and XLSX files when the ``documents`` extra is installed.

    >>> default_include().startswith("*.md")
    True
    """
    from ..io.files import DEFAULT_INCLUDE

    if not documents_available():
        return DEFAULT_INCLUDE
    return DEFAULT_INCLUDE + "," + ",".join("*" + ext for ext in DOCUMENT_EXTENSIONS)


def iter_inputs(
    sources: Iterable[str | os.PathLike[str] | Source] | str | os.PathLike[str] | Source,
    include: str,
) -> Iterator[SourceFile | Source | str]:
    """Every file and document of ``sources`` in order; a path that matches nothing comes
    as its error message (a ``str``).

    >>> list(iter_inputs([Source("a", "x")], "*.md"))
    [Source(source_id='a', text='x', metadata={})]
    """
    from ..io.files import iter_sources

    if isinstance(sources, (str, os.PathLike, Source)):
        sources = [sources]
    for item in sources:
        if isinstance(item, Source):
            yield item
        elif isinstance(item, (str, os.PathLike)):
            path = os.path.expanduser(os.fspath(item))
            if path == "-":
                raise ValueError("sources: standard input ('-') cannot be ingested (no id)")
            for found in iter_sources([path], include):
                yield found if isinstance(found, str) else _file(found)
        else:
            raise TypeError(
                f"sources must hold paths, globs or Source objects, got {type(item).__name__}"
            )


def _file(found: Any) -> SourceFile:
    return SourceFile(found.path, found.size)


def parse_file(
    path: str, data: bytes, readers: Mapping[str, Reader] | None
) -> tuple[Any, dict[str, Any]] | str:
    """``(document, metadata)`` of a file's bytes by its reader, or the error message (a
    ``str``) when the reader fails. Every file becomes a :class:`ragchunk.documents.Document`:
    a parsed one as its reader gave it (chunked with
    :func:`ragchunk.documents.chunk_document`), a text as
    :func:`ragchunk.documents.text_document` (its one section chunked as the text it is).

    >>> doc, meta = parse_file("a.md", b"Hi", None)
    >>> doc.text, meta
    ('Hi', {})
    >>> parse_file("a.md", b"\\xff", None)[:30]
    "a.md: UnicodeDecodeError: 'utf"
    """
    from ..documents import Document, text_document

    try:
        parsed = reader_for(path, readers)(path, data)
    except Exception as exc:  # any reader's error: the file is reported, not written
        return f"{path}: {type(exc).__name__}: {exc}"
    if isinstance(parsed, Source):
        return text_document(parsed.text, filename=path), dict(parsed.metadata)
    if isinstance(parsed, str):
        return text_document(parsed, filename=path), {}
    if isinstance(parsed, Document):
        return parsed, {}
    return f"{path}: the reader returned {type(parsed).__name__}"
