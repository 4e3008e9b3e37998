"""Token windows cut only at character boundaries (twin of ``rust/splitters/token_window.rs``)."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["split"]

ChunkTuple = tuple[int, int, int, "str | None"]


def split(
    text: str,
    chunk_size: int,
    chunk_overlap: int,
    encode: Callable[[str], list[int]],
    token_bytes: Callable[[int], bytes],
) -> list[ChunkTuple]:
    """Token windows cut only at character boundaries (see ``rust/splitters/token_window.rs``)."""
    ids = encode(text)
    n = len(ids)
    out: list[ChunkTuple] = []
    if n == 0 or chunk_size <= 0 or chunk_overlap >= chunk_size:
        return out
    # Byte offset of every token edge, and the code-point offset of every character boundary.
    edges = [0]
    for t in ids:
        edges.append(edges[-1] + len(token_bytes(t)))
    char_at: dict[int, int] = {}
    b = 0
    for ci, ch in enumerate(text):
        char_at[b] = ci
        b += len(ch.encode("utf-8", "surrogatepass"))
    char_at[b] = len(text)

    def ok(k: int) -> bool:
        return edges[k] in char_at

    def back(frm: int, floor: int) -> int | None:
        for k in range(frm, floor, -1):
            if ok(k):
                return k
        return None

    def forward(after: int) -> int:
        for k in range(after + 1, n + 1):
            if ok(k):
                return k
        return n

    step = chunk_size - chunk_overlap
    s = 0
    while True:
        want = min(s + chunk_size, n)
        e = back(want, s)
        if e is None:
            e = forward(want)
        end = char_at.get(edges[e], len(text))
        if not out or end > out[-1][1]:  # a window adding no text is skipped
            out.append((char_at.get(edges[s], 0), end, e - s, None))
        if e >= n:
            break
        target = min(s + step, n)
        nxt = back(target, s)
        s = nxt if nxt is not None else forward(s)
    return out
