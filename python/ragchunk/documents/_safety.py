"""The errors of document parsing and the fixed limits that refuse hostile files.

DOCX and XLSX files are zip packages of XML parts. Before python-docx or openpyxl opens one,
:func:`check_package` reads the zip's central directory and refuses a package whose declared
sizes pass :data:`LIMITS` (a zip bomb: a few kilobytes that inflate to gigabytes), then streams
every XML part looking for a document type declaration: OOXML parts never carry one, and
entity definitions are how "billion laughs" and external-entity attacks work, so any
``<!DOCTYPE`` or ``<!ENTITY`` is refused, the way ``defusedxml`` forbids them. Reading a member
never yields more than its declared size (:mod:`zipfile` stops there and checks the CRC), so
the declared sizes bound the work.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from ..core.errors import RagchunkError

__all__ = ["LIMITS", "DocumentError", "check_package", "wrap_errors"]

#: The fixed limits (bytes, counts) past which a package is refused.
LIMITS: dict[str, int] = {
    # total uncompressed size of all members
    "max_uncompressed": 512 * 1024 * 1024,
    # uncompressed size of one member
    "max_member": 256 * 1024 * 1024,
    # members in one package
    "max_members": 10_000,
    # uncompressed/compressed ratio of a member larger than 1 MiB (XML rarely passes 30)
    "max_ratio": 200,
}

_RATIO_FLOOR = 1024 * 1024
_READ = 1 << 20
_DTD = (b"<!DOCTYPE", b"<!ENTITY", "<!DOCTYPE".encode("utf-16-le"), "<!ENTITY".encode("utf-16-le"))
_DTD_KEEP = max(len(p) for p in _DTD)


class DocumentError(RagchunkError, ValueError):
    """A file that cannot be parsed: corrupt, truncated, encrypted without ``password``,
    refused by :data:`LIMITS`, or in a format that is not supported.

    The message names the file (and page, where there is one); ``filename`` and ``page``
    hold them, ``reason`` the message without them (for a caller that names the file
    itself). It is a :class:`ragchunk.RagchunkError` and a :class:`ValueError`.

    >>> e = DocumentError("report.docx", "not a DOCX file")
    >>> str(e), e.reason, isinstance(e, ValueError)
    ('report.docx: not a DOCX file', 'not a DOCX file', True)
    """

    def __init__(self, filename: str | None, message: str, *, page: int | None = None) -> None:
        self.filename = filename
        self.page = page
        self.reason = message
        where = filename or "<document>"
        if page is not None:
            where += f", page {page}"
        super().__init__(f"{where}: {message}")


def check_package(data: bytes, filename: str | None, what: str) -> None:
    """Refuse a zip package (DOCX, XLSX) that passes :data:`LIMITS` or holds an XML part
    with a document type declaration.

    Raises:
        DocumentError: naming the file and the limit.

    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("word/document.xml", "<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>")
    >>> try:
    ...     check_package(buf.getvalue(), "bad.docx", "DOCX")
    ... except DocumentError as e:
    ...     print(str(e)[:58])
    bad.docx: refused: the DOCX part 'word/document.xml' decla
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            _check_sizes(infos, filename, what)
            for info in infos:
                name = info.filename.lower()
                if name.endswith((".xml", ".rels")) or name == "[content_types].xml":
                    if _has_dtd(z, info):
                        raise DocumentError(
                            filename,
                            f"refused: the {what} part {info.filename!r} declares a DTD or "
                            "entities (OOXML parts never do)",
                        )
    except DocumentError:
        raise
    except Exception as exc:  # zipfile, zlib, bz2 and lzma errors on a damaged member
        raise DocumentError(
            filename, f"not a readable {what} file (corrupt or truncated zip: {exc})"
        ) from exc


def _check_sizes(infos: list[zipfile.ZipInfo], filename: str | None, what: str) -> None:
    if len(infos) > LIMITS["max_members"]:
        raise DocumentError(
            filename,
            f"refused: the {what} package has {len(infos)} members (limit {LIMITS['max_members']})",
        )
    total = 0
    for info in infos:
        size = info.file_size
        if size > LIMITS["max_member"]:
            raise DocumentError(
                filename,
                f"refused: the {what} part {info.filename!r} inflates to {size} bytes "
                f"(limit {LIMITS['max_member']}); a zip bomb?",
            )
        if size > _RATIO_FLOOR and size > LIMITS["max_ratio"] * max(info.compress_size, 1):
            raise DocumentError(
                filename,
                f"refused: the {what} part {info.filename!r} inflates {size} bytes from "
                f"{info.compress_size} (ratio limit {LIMITS['max_ratio']}); a zip bomb?",
            )
        total += size
        if total > LIMITS["max_uncompressed"]:
            raise DocumentError(
                filename,
                f"refused: the {what} package inflates to more than "
                f"{LIMITS['max_uncompressed']} bytes; a zip bomb?",
            )


def _has_dtd(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    tail = b""
    with z.open(info) as f:
        while True:
            block = f.read(_READ)
            if not block:
                return False
            window = tail + block
            if any(p in window for p in _DTD):
                return True
            tail = window[-_DTD_KEEP:]


def wrap_errors(filename: str | None, what: str, exc: BaseException) -> DocumentError:
    """A :class:`DocumentError` for an exception a dependency raised on a bad file."""
    detail: Any = exc
    return DocumentError(filename, f"not a readable {what} file ({type(exc).__name__}: {detail})")
