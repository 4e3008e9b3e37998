"""Packing of a laid-out title tree (twin of ``rust/splitters/title_tree.rs``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .packer import pack_spans

__all__ = ["split_title_tree"]


def split_title_tree(
    text: str,
    parents: Sequence[int],
    items: Sequence[tuple[int, int, int]],
    budget: int,
    count: Callable[[str], int],
) -> list[tuple[int, int, int, int]]:
    """``(start, end, size, node)`` chunks of a laid-out title tree (see the Rust module)."""
    n = len(parents)
    for i in range(1, n):
        if not 0 <= parents[i] < i:
            raise ValueError(f"node {i}: parent must be an earlier node (pre-order)")
    last_end = 0
    for k, (node, s, e) in enumerate(items):
        if not (0 <= node < n and s < e <= len(text) and s >= last_end):
            raise ValueError(f"item {k}: unknown node or span outside the text / out of order")
        last_end = e
    if n == 0 or not items:
        return []
    budget = max(budget, 1)
    entries: list[list[tuple[bool, int, int]]] = [[] for _ in range(n)]  # (is_run, a, b|child)
    registered = [False] * n
    registered[0] = True
    a = 0
    while a < len(items):
        node = items[a][0]
        b = a + 1
        while b < len(items) and items[b][0] == node:
            b += 1
        entries[node].append((True, a, b))
        c = node
        while not registered[c]:
            registered[c] = True
            par = parents[c]
            entries[par].append((False, c, 0))
            c = par
        a = b
    # piece: [start, end, size, node, sealed]
    pieces: list[list[list[int]]] = [[] for _ in range(n)]
    for node in range(n - 1, -1, -1):
        if not entries[node]:
            continue
        seq: list[list[int]] = []
        for is_run, x, y in entries[node]:
            if is_run:
                units = [(s, e) for _, s, e in items[x:y]]
                for s, e, z in pack_spans(text, units, 1, budget, count):
                    seq.append([s, e, z, node, 0])
            else:
                first = len(seq)
                seq.extend(pieces[x])
                pieces[x] = []
                if first < len(seq):
                    seq[first][4] = 0
        merged: list[list[int]] = []
        grown = False
        for p in seq:
            if merged and (grown or not p[4]):
                acc = merged[-1]
                size = count(text[acc[0] : p[1]])
                if size <= budget:
                    acc[1] = p[1]
                    acc[2] = size
                    if acc[3] != p[3]:
                        acc[3] = node
                    grown = True
                    continue
            merged.append([p[0], p[1], p[2], p[3], 1 if merged else 0])
            grown = False
        pieces[node] = merged
    return [(p[0], p[1], p[2], p[3]) for p in pieces[0]]
