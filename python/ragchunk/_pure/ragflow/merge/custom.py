"""RAGFlow's custom mode: every segment its own chunk (twin of ``rust/ragflow/merge/custom.rs``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..delimiters import (
    split_keeping_delimiters,
)
from .options import Counter, Section


def _custom_chunks(
    sections: Sequence[Section], delimiters: list[str], keep_empty: bool, count: Counter
) -> tuple[list[str], list[list[int]]]:
    """Custom mode: every segment between delimiters is its own chunk ``"\\n" + segment``.

    ``chunk_token_num`` and the overlap play no part. The section's pos is
    appended when the chunk has at least 8 tokens and does not contain it yet.
    """
    chunks: list[str] = []
    sources: list[list[int]] = []
    for index, (text, pos) in enumerate(sections):
        for piece, is_delimiter in split_keeping_delimiters(text, delimiters):
            if is_delimiter or (not piece and not keep_empty):
                continue
            chunk = "\n" + piece
            if pos and pos not in chunk and count(chunk) >= 8:
                chunk += pos
            chunks.append(chunk)
            sources.append([index])
    return chunks, sources
