"""Token windows cut only at character boundaries (twin of ``rust/splitters/token_window.rs``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["hf_edges", "split", "split_edges"]

ChunkTuple = tuple[int, int, int, "str | None"]


def split(
    text: str,
    chunk_size: int,
    chunk_overlap: int,
    encode: Callable[[str], list[int]],
    token_bytes: Callable[[int], bytes],
) -> list[ChunkTuple]:
    """Token windows cut only at character boundaries (see ``rust/splitters/token_window.rs``)."""
    edges = [0]
    for t in encode(text):
        edges.append(edges[-1] + len(token_bytes(t)))
    return split_edges(text, edges, chunk_size, chunk_overlap)


def hf_edges(text: str, offsets: Sequence[tuple[int, int]]) -> list[int]:
    """Token edges (byte offsets) from a Hugging Face encoding's code-point ``offsets``, as the
    Rust core takes them: the first edge is 0, each later one the token's start, never before
    the previous edge (added special tokens have ``(0, 0)``; byte-level tokens inside one
    character share its offsets), and the text's end closes the list.

    >>> hf_edges("hé llo", [(0, 2), (3, 6)])
    [0, 4, 7]
    """
    byte_at = [0]
    for ch in text:
        byte_at.append(byte_at[-1] + len(ch.encode("utf-8", "surrogatepass")))
    edges: list[int] = []
    last = 0
    for k, (start, _) in enumerate(offsets):
        at = 0 if k == 0 else min(max(byte_at[min(start, len(text))], last), byte_at[-1])
        edges.append(at)
        last = at
    edges.append(byte_at[-1])
    return edges


def split_edges(
    text: str, edges: list[int], chunk_size: int, chunk_overlap: int
) -> list[ChunkTuple]:
    """Windows over token ``edges`` (byte offsets, the first 0 and the last the text's end)."""
    n = len(edges) - 1
    out: list[ChunkTuple] = []
    if n <= 0 or chunk_size <= 0 or chunk_overlap >= chunk_size:
        return out
    # The code-point offset of every character boundary.
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
