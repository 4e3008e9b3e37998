""":func:`parse`: read the source, decide its format, run that format's parser."""

from __future__ import annotations

import io
import os
import warnings
import zipfile
from collections.abc import Callable, Sequence
from typing import Any

from ..core.checks import check_path
from ._model import Document, Page, Section
from ._ocr import default_ocr
from ._safety import DocumentError, check_package, wrap_errors

__all__ = ["FORMATS", "detect_format", "parse"]

#: The formats :func:`parse` reads, and the file extensions that name them.
FORMATS: dict[str, tuple[str, ...]] = {
    "pdf": (".pdf",),
    "docx": (".docx",),
    "xlsx": (".xlsx", ".xlsm"),
    "csv": (".csv", ".tsv"),
    "html": (".html", ".htm", ".xhtml"),
    "markdown": (".md", ".markdown", ".mdx"),
    "text": (".txt", ".text", ".log", ".rst"),
    "code": (),  # the extensions of _CODE
    "json": (".json",),
    "jsonl": (".jsonl", ".ndjson"),
    "image": (".png", ".jpg", ".jpeg", ".tif", ".tiff"),
}

#: Source-file extensions and the language each names (``metadata["language"]``).
_CODE = {
    ".py": "python",
    ".rs": "rust",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".rb": "ruby",
    ".php": "php",
    ".sh": "bash",
    ".kt": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".cs": "csharp",
    ".sql": "sql",
    ".lua": "lua",
    ".r": "r",
}

_BY_EXT = {ext: fmt for fmt, exts in FORMATS.items() for ext in exts}
_BY_EXT.update(dict.fromkeys(_CODE, "code"))
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# PNG, JPEG, and little- and big-endian TIFF.
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*")
_PAGED = frozenset(("pdf", "image"))


def _read(source: object, filename: str | None) -> tuple[bytes, str | None]:
    if isinstance(source, (str, os.PathLike)):
        path = check_path(source, "source")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"source: no such file {path!r}")
        with open(path, "rb") as f:
            return f.read(), filename or str(path)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), filename
    read = getattr(source, "read", None)
    if callable(read):
        data = read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(
                f"source must be a binary file object (open(..., 'rb')); its read() gave "
                f"{type(data).__name__}"
            )
        return bytes(data), filename or _name_of(source)
    raise TypeError(
        f"source must be a path, bytes or a binary file object, got {type(source).__name__}"
    )


def _name_of(f: object) -> str | None:
    name = getattr(f, "name", None)
    return name if isinstance(name, str) else None


def detect_format(data: bytes, filename: str | None = None) -> str:
    """The format of a file: from its extension when it has a known one, else from its
    first bytes (PDF and zip signatures, the zip's parts, HTML and JSON openings), else
    ``"text"``.

    >>> detect_format(b"%PDF-1.7 ...")
    'pdf'
    >>> detect_format(b"print('hi')", "hello.py")
    'code'
    >>> detect_format(b'{"a": 1}')
    'json'
    """
    if filename:
        ext = os.path.splitext(filename)[1].lower()
        if ext in _BY_EXT:
            return _BY_EXT[ext]
    head = data[:1024]
    if head.lstrip(b"\x00\t\n\r ").startswith(b"%PDF") or b"%PDF-" in head:
        return "pdf"
    if head.startswith(_IMAGE_MAGIC):
        return "image"
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                names = set(z.namelist())
        except zipfile.BadZipFile:
            return "zip"
        if "word/document.xml" in names:
            return "docx"
        if "xl/workbook.xml" in names:
            return "xlsx"
        return "zip"
    if head.startswith(_OLE):
        return "ole"
    text = head.decode("utf-8", "ignore").lstrip("\ufeff \t\r\n").lower()
    if text.startswith(("<!doctype html", "<html", "<head", "<body")):
        return "html"
    if text.startswith(("{", "[")):
        lines = [ln for ln in data.decode("utf-8", "ignore").splitlines() if ln.strip()]
        if len(lines) > 1 and all(ln.lstrip().startswith("{") for ln in lines[:5]):
            import json

            try:
                json.loads(data)
            except ValueError:
                return "jsonl"
        return "json"
    return "text"


def _decode(data: bytes, filename: str | None) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    for enc in ("gb18030", "cp1252"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def parse(
    source: str | os.PathLike[str] | bytes | Any,
    *,
    filename: str | None = None,
    format: str | None = None,
    pages: Sequence[int] | None = None,
    password: str | None = None,
    rows_as_sentences: bool = False,
    ocr: Callable[[Any, Page], Any] | bool | None = None,
    ocr_timeout: float | None = 600.0,
) -> Document:
    """Parse a file into a :class:`~ragchunk.documents.Document`.

    Args:
        source: a path, the file's bytes, or a binary file object.
        filename: the name to report in errors and ``Document.filename`` (a path's own name
            by default); its extension also picks the format.
        format: one of :data:`FORMATS` (``"docx"``, ``"xlsx"``, ``"csv"``, ``"html"``,
            ``"markdown"``, ``"text"``, ``"code"``, ``"json"``, ``"jsonl"``, ``"pdf"``,
            ``"image"``: PNG, JPEG, TIFF, each frame a page); by
            default from the extension, else from the file's first bytes.
        pages: 1-based page numbers to parse (PDF, and the frames of an image).
        password: the password of an encrypted file (ignored by formats that are never
            encrypted).
        rows_as_sentences: XLSX/CSV: one text section per row in RAGFlow's
            ``"header：value; ..."`` form instead of one table section per sheet.
        ocr: how pages without a text layer (scans) and images are read. ``None`` (the
            default): by the OCR engine of the ``ocr`` extra (``pip install
            'ragchunk[ocr]'``: RapidOCR, PP-OCR models that ship in its wheel) when it is
            installed. A callable is called as ``ocr(image, page)`` for each such page,
            with the page rendered at 2x (a Pillow image, 144 dpi; an image file's frame
            as it is, downscaled when huge) and its :class:`~ragchunk.documents.Page`; it
            returns the page's text (a ``str``) or a list of ``(text, (x0, top, x1,
            bottom))`` lines with boxes in the page's points. The lines are laid out as a
            text layer is (lines, columns, reading order, titles by line height, running
            headers and footers), and the sections made of them carry
            ``metadata["ocr"] = True``; ``Document.metadata["ocr_pages"]`` lists the pages
            read. A page whose OCR raises or takes longer than ``ocr_timeout`` is left
            out with a ``UserWarning`` naming it, its number and the reason in
            ``metadata["ocr_failed"]``. Pages not read (no engine installed,
            ``ocr=False``, or failed) are listed in ``Document.metadata["needs_ocr"]``,
            and ``parse`` warns of them (a ``UserWarning`` naming the file and the pages)
            unless ``ocr=False``.
        ocr_timeout: seconds one page's OCR may take (``None``: no limit); a page past it
            is reported as failed and the engine's call is left to finish in its thread.

    Raises:
        TypeError, ValueError: a bad argument (the message names it).
        FileNotFoundError: ``source`` is a path that does not exist.
        ragchunk.documents.DocumentError: the file is corrupt, truncated, encrypted without
            ``password``, refused by the size limits, or in an unsupported format.
        ImportError: the format's parser is not installed (``pip install
            'ragchunk[documents]'``).

    >>> doc = parse(b"# Notes\\n\\n- milk\\n- eggs\\n", filename="notes.md")
    >>> [(s.kind, s.text) for s in doc.sections]
    [('title', 'Notes'), ('list', 'milk'), ('list', 'eggs')]
    >>> parse(b"a,b\\n1,2\\n", format="csv").sections[0].rows
    [['a', 'b'], ['1', '2']]
    """
    if filename is not None and not isinstance(filename, str):
        raise TypeError(f"filename must be a str or None, got {type(filename).__name__}")
    if password is not None and not isinstance(password, str):
        raise TypeError(f"password must be a str or None, got {type(password).__name__}")
    if ocr is True or (ocr is not None and ocr is not False and not callable(ocr)):
        raise TypeError(f"ocr must be a callable, False or None, got {ocr!r:.40}")
    if ocr_timeout is not None and (
        isinstance(ocr_timeout, bool)
        or not isinstance(ocr_timeout, (int, float))
        or not ocr_timeout > 0
    ):
        raise ValueError(f"ocr_timeout must be a positive number or None, got {ocr_timeout!r}")
    if not isinstance(rows_as_sentences, bool):
        raise TypeError(f"rows_as_sentences must be a bool, got {type(rows_as_sentences).__name__}")
    data, name = _read(source, filename)
    if format is None:
        fmt = detect_format(data, name)
    elif not isinstance(format, str):
        raise TypeError(f"format must be a str or None, got {type(format).__name__}")
    elif format.lower() not in FORMATS:
        raise ValueError(f"format must be one of {sorted(FORMATS)}, got {format!r}")
    else:
        fmt = format.lower()
    page_list = _check_pages(pages)
    if page_list is not None and fmt not in _PAGED:
        raise ValueError(f"pages applies to paged formats (PDF, images) only; this file is {fmt}")
    if fmt == "ole" or (fmt in ("docx", "xlsx") and data.startswith(_OLE)):
        _refuse_ole(data, name, password)
    if fmt == "zip":
        raise DocumentError(name, "a zip archive that is neither a DOCX nor an XLSX package")
    if fmt in ("pdf", "image"):
        engine = ocr if callable(ocr) else default_ocr() if ocr is None else None
        if fmt == "pdf":
            from ._pdf import parse_pdf

            doc = parse_pdf(data, name, page_list, password, engine, ocr_timeout)
        else:
            from ._image import parse_image

            doc = parse_image(data, name, page_list, engine, ocr_timeout)
        for number, reason in doc.metadata.get("ocr_failed", {}).items():
            warnings.warn(
                f"{name or 'the document'}, page {number}: OCR failed ({reason}); the "
                "page is left out",
                UserWarning,
                stacklevel=2,
            )
        unread = [
            p for p in doc.metadata["needs_ocr"] if p not in doc.metadata.get("ocr_failed", {})
        ]
        if ocr is None and unread:
            _warn_needs_ocr(name, unread)
        return doc
    sections, meta = _run(fmt, data, name, rows_as_sentences)
    return Document(sections, metadata=meta, format=fmt, filename=name)


def _warn_needs_ocr(name: str | None, pages: list[int]) -> None:
    shown = ", ".join(map(str, pages[:10])) + (", ..." if len(pages) > 10 else "")
    warnings.warn(
        f"{name or 'the document'}: {len(pages)} page(s) without a text layer ({shown}) "
        "were not read: install the OCR engine (pip install 'ragchunk[ocr]') or pass "
        "ocr=callable to read scans, or ocr=False to silence this",
        UserWarning,
        stacklevel=3,
    )


def _check_pages(pages: object) -> list[int] | None:
    if pages is None:
        return None
    if isinstance(pages, (str, bytes)) or not isinstance(pages, Sequence):
        raise TypeError(f"pages must be a sequence of int or None, got {type(pages).__name__}")
    out = []
    for i, p in enumerate(pages):
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"pages[{i}] must be an int, got {type(p).__name__}")
        if p < 1:
            raise ValueError(f"pages[{i}] must be >= 1 (pages are 1-based), got {p}")
        out.append(p)
    return out


def _refuse_ole(data: bytes, name: str | None, password: str | None) -> None:
    encrypted = "EncryptionInfo".encode("utf-16-le") in data or b"EncryptedPackage" in data
    if not encrypted and "EncryptedPackage".encode("utf-16-le") not in data:
        raise DocumentError(
            name,
            "a legacy binary Office file (.doc/.xls) or another OLE container, which is not "
            "supported: save it as .docx or .xlsx",
        )
    if password is None:
        raise DocumentError(
            name, "the file is encrypted (an OLE-wrapped Office package): pass password="
        )
    raise DocumentError(
        name,
        "decrypting password-protected Office files is not supported: save the file without "
        "a password (password= was given but cannot be used for this format)",
    )


def _run(fmt: str, data: bytes, name: str | None, sentences: bool) -> tuple[list[Section], Any]:
    from . import _docx, _markup, _sheets

    what = fmt.upper() if fmt in ("docx", "xlsx", "csv", "html", "json", "jsonl") else fmt
    if fmt in ("docx", "xlsx"):
        check_package(data, name, what)
    try:
        if fmt == "docx":
            return _docx.parse_docx(data)
        if fmt == "xlsx":
            return _sheets.parse_xlsx(data, sentences)
        text = _decode(data, name)
        if fmt == "csv":
            return _sheets.parse_csv(text, sentences)
        if fmt == "html":
            return _markup.parse_html(text)
        if fmt == "markdown":
            return _markup.parse_markdown(text)
        if fmt == "json":
            return _markup.parse_json(text)
        if fmt == "jsonl":
            return _markup.parse_jsonl(text)
        if fmt == "code":
            ext = os.path.splitext(name or "")[1].lower()
            return _markup.parse_code(text, _CODE.get(ext))
        return _markup.parse_text(text)
    except (ImportError, DocumentError):
        raise
    except RecursionError as exc:
        raise DocumentError(name, f"not a readable {what} file (nested too deeply)") from exc
    except Exception as exc:  # a dependency's own error on a bad file
        raise wrap_errors(name, what, exc) from exc
