"""LangChain's recursive splitting with offsets (twin of ``rust/splitters/recursive.rs``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ...core import rules

__all__ = ["split", "strip_range"]

ChunkTuple = tuple[int, int, int, "str | None"]
Counter = Callable[[str], int]


#: What ``strip`` removes: Python's ``str.isspace`` as the data file's
#: ``chars.whitespace.langchain`` spells it out, the set the Rust core strips too.
STRIP = "".join(sorted(rules.char_set("chars.whitespace.langchain")))


def strip_range(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end].strip()`` as a range of ``text`` (:data:`STRIP` removed)."""
    seg = text[start:end]
    lead = len(seg) - len(seg.lstrip(STRIP))
    tail = len(seg.rstrip(STRIP))
    if tail <= lead:
        return start + lead, start + lead
    return start + lead, start + tail


class _Recursive:
    def __init__(
        self,
        text: str,
        chunk_size: int,
        chunk_overlap: int,
        separators: Sequence[tuple[str, re.Pattern[str]]],
        keep: str,
        strip: bool,
        count: Counter,
    ) -> None:
        self.text = text
        self.size = chunk_size
        self.overlap = chunk_overlap
        self.keep = keep
        self.strip = strip
        self.count = count
        self.out: list[tuple[int, int, str | None]] = []

    def split_range(
        self, start: int, end: int, separators: Sequence[tuple[str, re.Pattern[str]]]
    ) -> None:
        piece = self.text[start:end]
        chosen = len(separators) - 1
        rest: Sequence[tuple[str, re.Pattern[str]]] = ()
        for i, (sep_text, pattern) in enumerate(separators):
            if not sep_text:
                chosen = i
                break
            if pattern.search(piece):
                chosen = i
                rest = separators[i + 1 :]
                break
        sep_text, pattern = separators[chosen]
        ranges = self.pieces(start, end, sep_text, pattern)
        join_len = self.count(sep_text) if self.keep == "none" else 0
        good: list[tuple[int, int, int]] = []
        for s, e in ranges:
            n = self.count(self.text[s:e])
            if n < self.size:
                good.append((s, e, n))
            else:
                if good:
                    self.merge(good, sep_text, join_len)
                    good = []
                if not rest:
                    self.out.append((s, e, None))  # LangChain appends it unstripped
                else:
                    self.split_range(s, e, rest)
        if good:
            self.merge(good, sep_text, join_len)

    def pieces(
        self, start: int, end: int, sep_text: str, pattern: re.Pattern[str]
    ) -> list[tuple[int, int]]:
        if not sep_text:
            return [(i, i + 1) for i in range(start, end)]
        # On the slice, as LangChain's re.split does (so `\A` means the piece's start).
        found = [
            (m.start() + start, m.end() + start) for m in pattern.finditer(self.text[start:end])
        ]
        cuts: list[int]
        if self.keep == "none":
            out, prev = [], start
            for s, e in found:
                out.append((prev, s))
                prev = e
            out.append((prev, end))
        else:
            cuts = [s for s, _ in found] if self.keep == "start" else [e for _, e in found]
            out, prev = [], start
            for c in cuts:
                out.append((prev, c))
                prev = c
            out.append((prev, end))
        return [(s, e) for s, e in out if e > s]

    def merge(self, pieces: list[tuple[int, int, int]], sep_text: str, sep_len: int) -> None:
        first = 0
        nxt = 0
        total = 0
        for i, (_, _, n) in enumerate(pieces):
            n_cur = nxt - first
            if total + n + (sep_len if n_cur > 0 else 0) > self.size and n_cur > 0:
                self.emit(pieces[first:nxt], sep_text)
                while True:
                    n_cur = nxt - first
                    extra = sep_len if n_cur > 0 else 0
                    must = total > self.overlap or (total + n + extra > self.size and total > 0)
                    if not must or n_cur == 0:
                        break
                    total = max(0, total - (pieces[first][2] + (sep_len if n_cur > 1 else 0)))
                    first += 1
            nxt = i + 1
            total += n + (sep_len if nxt - first > 1 else 0)
        if nxt > first:
            self.emit(pieces[first:nxt], sep_text)

    def emit(self, pieces: list[tuple[int, int, int]], sep_text: str) -> None:
        start, end = pieces[0][0], pieces[-1][1]
        if self.strip:
            start, end = strip_range(self.text, start, end)
        joined: str | None = None
        if self.keep == "none" and len(pieces) > 1:
            j = sep_text.join(self.text[s:e] for s, e, _ in pieces)
            if self.strip:
                j = j.strip(STRIP)
            if not j:
                return
            if j != self.text[start:end]:
                joined = j
        elif start == end:
            return
        self.out.append((start, end, joined))


def split(
    text: str,
    chunk_size: int,
    chunk_overlap: int,
    separators: Sequence[tuple[str, re.Pattern[str]]],
    keep: str,
    strip: bool,
    count: Counter,
) -> list[ChunkTuple]:
    """LangChain's ``RecursiveCharacterTextSplitter.split_text`` on spans.

    ``separators`` are ``(text, compiled pattern)`` pairs (literals escaped); ``keep`` is
    ``"start"``, ``"end"`` or ``"none"``; ``count`` measures a string.
    """
    run = _Recursive(text, chunk_size, chunk_overlap, separators, keep, strip, count)
    if separators:
        run.split_range(0, len(text), separators)
    return [(s, e, count(j if j is not None else text[s:e]), j) for s, e, j in run.out]
