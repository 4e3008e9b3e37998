"""Fixed character windows (twin of ``rust/splitters/character.rs``).

Functions return ``(start, end, size, joined)`` tuples: code-point offsets into the text, the
chunk's size in the splitter's unit, and the chunk text only when it is not ``text[start:end]``.
"""

from __future__ import annotations

__all__ = ["split"]

ChunkTuple = tuple[int, int, int, "str | None"]


def split(text: str, chunk_size: int, chunk_overlap: int, drop_last: bool) -> list[ChunkTuple]:
    """Windows of ``chunk_size`` code points stepping by ``chunk_size - chunk_overlap``."""
    n = len(text)
    step = chunk_size - chunk_overlap
    out: list[ChunkTuple] = []
    if n == 0 or chunk_size <= 0 or step <= 0:
        return out
    i = 0
    while True:
        end = min(i + chunk_size, n)
        if end - i < chunk_size and drop_last:
            break
        out.append((i, end, end - i, None))
        if end == n:
            break
        i += step
    return out
