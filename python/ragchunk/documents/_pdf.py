"""PDF: not parsed yet (the layout analysis is not part of this release)."""

from __future__ import annotations

from collections.abc import Sequence

from ._model import Document
from ._safety import DocumentError

__all__ = ["parse_pdf"]


def parse_pdf(
    data: bytes, filename: str | None, pages: Sequence[int] | None, password: str | None
) -> Document:
    """Refuse a PDF with a clear message."""
    raise DocumentError(
        filename,
        "PDF support needs the documents extra's PDF parser, which this version does not "
        "have yet; parse the PDF elsewhere and build a Document from its sections",
    )
