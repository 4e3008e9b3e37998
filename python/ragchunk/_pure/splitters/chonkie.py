"""Chonkie's ``SentenceChunker`` packing and ``RecursiveChunker`` recursion (twin of
``rust/splitters/chonkie.rs``): the pieces Chonkie's delimiter split makes (byte ranges), each
counted, packed greedily into chunks of at most ``chunk_size`` tokens with Chonkie's
minimum-sentences rule and its sentence overlap, or split level by level while a piece is over
the size.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = [
    "delimiter_pieces",
    "pack_sentences",
    "pack_table_rows",
    "recursive_chunks",
    "sentence_chunks",
    "table_chunks",
    "table_pieces",
]

#: A recursive level: ``(patterns, include_next)`` for a delimiter split, None for tokens.
Level = tuple[Sequence[str], bool] | None


def pack_sentences(
    counts: Sequence[int], chunk_size: int, overlap: float, min_pieces: int
) -> list[tuple[int, int]]:
    """``[first, last)`` piece ranges: each run the longest from its first piece whose tokens
    stay within ``chunk_size`` (at least one piece, at least ``min_pieces`` where that many
    remain); the next run starts back over the last pieces that fit in ``overlap`` tokens,
    each counted one more (Chonkie's allowance for a space).

    >>> pack_sentences([3, 3, 3, 3], 6, 0, 1)
    [(0, 2), (2, 4)]
    >>> pack_sentences([2, 2, 2, 2], 6, 3, 1)
    [(0, 3), (2, 4)]
    """
    n = len(counts)
    out = []
    pos = 0
    while pos < n:
        total, end = 0, pos
        while end < n and total + counts[end] <= chunk_size:
            total += counts[end]
            end += 1
        end = max(end, pos + 1)
        if end - pos < min_pieces:
            end = pos + min_pieces if pos + min_pieces <= n else n
        out.append((pos, end))
        if overlap > 0 and end < n:
            tokens, back = 0, end - 1
            while back > pos and tokens < overlap:
                step = tokens + counts[back] + 1
                if step > overlap:
                    break
                tokens, back = step, back - 1
            pos = back + 1
        else:
            pos = end
    return out


def delimiter_pieces(
    data: bytes, patterns: Sequence[str], include_next: bool, min_bytes: int
) -> list[tuple[int, int]]:
    """The pieces of Chonkie's delimiter split of the UTF-8 ``data`` (byte ranges, tiling
    it): cut after (or, with ``include_next``, before) every leftmost-first match of
    ``patterns``, then runs of pieces merged while the run so far or the next piece is
    shorter than ``min_bytes``.

    >>> delimiter_pieces(b"Hi. Hello there. Bye", [". "], False, 5)
    [(0, 20)]
    """
    cuts = []
    if patterns:
        matcher = re.compile(b"|".join(re.escape(p.encode("utf-8")) for p in patterns))
        cuts = [m.start() if include_next else m.end() for m in matcher.finditer(data)]
    cuts.append(len(data))
    pieces: list[tuple[int, int]] = []
    start = 0
    run: tuple[int, int] | None = None
    for cut in cuts:
        if cut <= start:
            continue
        piece, start = (start, cut), cut
        if min_bytes == 0:
            pieces.append(piece)
        elif run is None:
            run = piece
        elif run[1] - run[0] < min_bytes or piece[1] - piece[0] < min_bytes:
            run = (run[0], piece[1])
        else:
            pieces.append(run)
            run = piece
    if run is not None:
        pieces.append(run)
    return pieces


def sentence_chunks(
    text: str,
    split: tuple[Sequence[str], bool, int],
    chunk_size: int,
    overlap: float,
    min_pieces: int,
    count: Callable[[str], int] | None,
) -> tuple[list[int], list[int], list[int]]:
    """Chonkie's sentence chunks of ``text``: its delimiter split (``split`` is
    :func:`delimiter_pieces`' ``patterns, include_next, min_bytes``), each piece counted by
    ``count`` (code points when None), packed by :func:`pack_sentences`; the chunks'
    code-point starts, ends and token counts.

    >>> sentence_chunks("Hé. Bé. Cé.", ([". "], False, 1), 8, 0, 1, None)
    ([0, 8], [8, 11], [8, 3])
    """
    data = text.encode("utf-8")
    strings = [data[s:e].decode("utf-8") for s, e in delimiter_pieces(data, *split)]
    edges = [0]
    for piece in strings:
        edges.append(edges[-1] + len(piece))
    counts = [len(p) for p in strings] if count is None else [count(p) for p in strings]
    starts, ends, sizes = [], [], []
    for a, b in pack_sentences(counts, chunk_size, overlap, min_pieces):
        s, e = edges[a], edges[b]
        starts.append(s)
        ends.append(e)
        sizes.append(e - s if count is None else count(text[s:e]))
    return starts, ends, sizes


def _up(data: bytes, b: int) -> int:
    """``b`` moved forward to the next UTF-8 character start (or the end)."""
    while b < len(data) and (data[b] & 0xC0) == 0x80:
        b += 1
    return b


def recursive_chunks(
    text: str,
    levels: Sequence[Level],
    chunk_size: int,
    min_bytes: int,
    count: Callable[[str], int],
    edges: Callable[[str], list[int]],
) -> tuple[list[int], list[int], list[int]]:
    r"""Chonkie's ``RecursiveChunker`` chunks of ``text``: code-point starts, ends and token
    counts. At each level a piece is split on its delimiters (:func:`delimiter_pieces`) and
    packed greedily, a chunk's count the sum of its pieces' counts; or, at a token level
    (None), cut into windows of ``chunk_size`` of the tokens ``edges`` gives (byte offsets; an
    edge inside a character moves to its end, an emptied window is dropped), each counted
    anew. A piece over ``chunk_size`` goes to the next level; past the last, it is one chunk.

    >>> recursive_chunks("aaaa\nbb\ncc\nddddddd", [(["\n"], False), None], 6, 1, len,
    ...                  lambda s: list(range(len(s) + 1)))
    ([0, 5, 11, 17], [5, 11, 17, 18], [5, 6, 6, 1])
    """
    spans: list[tuple[int, int]] = []
    sizes: list[int] = []

    def recurse(data: bytes, base: int, level: int) -> None:
        if not data:
            return
        if level >= len(levels):
            spans.append((base, base + len(data)))
            sizes.append(count(data.decode("utf-8")))
            return
        rule = levels[level]
        pieces: list[tuple[int, int, int]] = []
        if rule is not None:
            split = delimiter_pieces(data, rule[0], rule[1], min_bytes)
            counts = [count(data[s:e].decode("utf-8")) for s, e in split]
            at = 0
            while at < len(split):
                total, end = counts[at], at + 1
                while end < len(split) and total + counts[end] <= chunk_size:
                    total += counts[end]
                    end += 1
                pieces.append((split[at][0], split[end - 1][1], total))
                at = end
        else:
            cuts = edges(data.decode("utf-8"))
            start = 0
            while start + 1 < len(cuts):
                end = min(start + chunk_size, len(cuts) - 1)
                s, e = _up(data, cuts[start]), _up(data, cuts[end])
                if s < e:
                    pieces.append((s, e, count(data[s:e].decode("utf-8"))))
                start = end
        for s, e, n in pieces:
            if n > chunk_size:
                recurse(data[s:e], base + s, level + 1)
            else:
                spans.append((base + s, base + e))
                sizes.append(n)

    data = text.encode("utf-8")
    recurse(data, 0, 0)
    if text.isascii():
        return [s for s, _ in spans], [e for _, e in spans], sizes
    before = [0] * (len(data) + 1)  # before[b]: characters starting at a byte < b
    for b, byte in enumerate(data):
        before[b + 1] = before[b] + ((byte & 0xC0) != 0x80)
    return [before[s] for s, _ in spans], [before[e] for _, e in spans], sizes


def table_pieces(table: str) -> list[tuple[int, int]]:
    r"""Chonkie's ``TableChunker`` split of a stripped Markdown ``table``: its pieces, cut
    before every ``|`` that starts a line (the header line, the separator, then the rows).

    >>> table_pieces("| a |\n|---|\n| 1\nmore |")
    [(0, 6), (6, 12), (12, 22)]
    """
    pieces, start = [], 0
    at = table.find("\n|")
    while at != -1:
        pieces.append((start, at + 1))
        start = at + 1
        at = table.find("\n|", start)
    if start < len(table):
        pieces.append((start, len(table)))
    return pieces


def pack_table_rows(
    counts: Sequence[int], header_tokens: int, chunk_size: int
) -> list[tuple[int, int, int]]:
    """``[first, last)`` row ranges and each chunk's tokens (header plus rows, summed): a row
    starts a new chunk when the chunk has a row and would reach ``chunk_size`` with it.

    >>> pack_table_rows([3, 2, 9, 1], 4, 10)
    [(0, 2, 9), (2, 3, 13), (3, 4, 5)]
    """
    out, first, tokens = [], 0, header_tokens
    for i, n in enumerate(counts):
        if tokens + n >= chunk_size and i > first:
            out.append((first, i, tokens))
            first, tokens = i, header_tokens
        tokens += n
    if len(counts) > first:
        out.append((first, len(counts), tokens))
    return out


def table_chunks(
    table: str, chunk_size: int, count: Callable[[str], int] | None
) -> tuple[int, tuple[list[int], list[int], list[int]]]:
    r"""Chonkie's ``TableChunker`` chunks of a stripped Markdown ``table``: the header's end,
    then each chunk's rows (starts, ends) and token count; ``chunk_size`` rows a chunk when
    ``count`` is None, else packed by :func:`pack_table_rows`.

    >>> table_chunks("| a |\n|---|\n| 1 |\n| 2 |\n| 3 |", 2, None)
    (12, ([12, 24], [24, 29], [2, 1]))
    """
    pieces = table_pieces(table)
    header_end = pieces[1][1] if len(pieces) > 1 else (pieces[0][1] if pieces else 0)
    rows = pieces[2:]
    if count is None:
        groups = [
            (a, min(a + chunk_size, len(rows)), min(a + chunk_size, len(rows)) - a)
            for a in range(0, len(rows), chunk_size)
        ]
    else:
        counts = [count(table[s:e]) for s, e in rows]
        groups = pack_table_rows(counts, count(table[:header_end]), chunk_size)
    starts = [rows[a][0] for a, _, _ in groups]
    ends = [rows[b - 1][1] for _, b, _ in groups]
    return header_end, (starts, ends, [n for _, _, n in groups])
