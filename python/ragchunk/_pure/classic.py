"""Pure-Python twins of the classic splitters in ``rust/splitters`` (same results).

Every function returns ``(start, end, size, joined)`` tuples: code-point offsets into the text,
the chunk's size in the splitter's unit, and the chunk text only when it is not
``text[start:end]``. The algorithms are described beside their Rust versions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = [
    "character_split",
    "recursive_split",
    "sentence_split",
    "sentences",
    "token_window_split",
]

ChunkTuple = tuple[int, int, int, "str | None"]
Counter = Callable[[str], int]


def character_split(
    text: str, chunk_size: int, chunk_overlap: int, drop_last: bool
) -> list[ChunkTuple]:
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


def _strip_range(text: str, start: int, end: int) -> tuple[int, int]:
    seg = text[start:end]
    lead = len(seg) - len(seg.lstrip())
    tail = len(seg.rstrip())
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
            start, end = _strip_range(self.text, start, end)
        joined: str | None = None
        if self.keep == "none" and len(pieces) > 1:
            j = sep_text.join(self.text[s:e] for s, e, _ in pieces)
            if self.strip:
                j = j.strip()
            if not j:
                return
            if j != self.text[start:end]:
                joined = j
        elif start == end:
            return
        self.out.append((start, end, joined))


def recursive_split(
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


def token_window_split(
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


# ---- sentences (mirrors rust/splitters/sentence.rs rule for rule) ---------------------------

ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st vs no nos fig figs al approx dept est vol vols pp cf ca jan feb "
    "mar apr jun jul aug sep sept oct nov dec gen col capt lt sgt rev hon mt ave blvd univ eq eqs "
    "ch sec resp viz ed eds".split()
)
_CJK_TERMINATORS = frozenset("。｡！？；．︒﹒﹖﹗")
_LATIN_TERMINATORS = frozenset(".!?…‼⁇⁈⁉")
_TERMINATORS = _CJK_TERMINATORS | _LATIN_TERMINATORS
_CLOSERS = frozenset("\"'”’»›)]}」』）】〕〉》］｝〗")
_OPENERS = frozenset("\"'“‘«‹([{「『（【")
SENTENCE_SEPARATORS = ("; ", ": ", ", ", "，", "、", "：", " ", "")


def _no_break_before_dot(word: str) -> bool:
    word = word.lstrip("".join(_OPENERS))
    if not word:
        return False
    if len(word) == 1 and word.isupper():
        return True
    if not word.isascii():
        return False
    lower = word.lower()
    if lower in ABBREVIATIONS:
        return True
    return "." in lower and all(1 <= len(seg) <= 2 and seg.isalpha() for seg in lower.split("."))


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans (code points) of ``text``; see ``rust/splitters/sentence.rs``."""
    n = len(text)
    bounds: list[int] = []
    i = 0
    while i < n:
        c = text[i]
        if c == "\n":
            bounds.append(i)
            i += 1
            continue
        if c in _CJK_TERMINATORS:
            j = i + 1
            while j < n and text[j] in _TERMINATORS:
                j += 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            bounds.append(j)
            i = j
            continue
        if c in _LATIN_TERMINATORS:
            j = i + 1
            while j < n and text[j] in _TERMINATORS:
                j += 1
            single_dot = c == "." and j == i + 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            spaced = j == n or text[j].isspace()
            k = j
            while k < n and text[k].isspace() and text[k] != "\n":
                k += 1
            next_lower = k < n and text[k].islower()
            breaks = spaced and not next_lower
            if breaks and single_dot:
                w = i
                while w > 0 and not text[w - 1].isspace():
                    w -= 1
                breaks = not _no_break_before_dot(text[w:i])
            if breaks:
                bounds.append(j)
            i = max(j, i + 1)
            continue
        i += 1
    bounds.append(n)
    out = []
    prev = 0
    for b in bounds:
        if b <= prev:
            continue
        s, e = _strip_range(text, prev, b)
        if e > s:
            out.append((s, e))
        prev = b
    return out


def sentence_split(
    text: str, chunk_size: int, overlap_sentences: int, count: Counter
) -> list[ChunkTuple]:
    """Whole sentences packed up to ``chunk_size``; see ``rust/splitters/sentence.rs``."""
    seps = [(s, re.compile(re.escape(s))) for s in SENTENCE_SEPARATORS]
    units: list[tuple[int, int, int]] = []
    for s, e in sentences(text):
        piece = text[s:e]
        n = count(piece)
        if n <= chunk_size:
            units.append((s, e, n))
            continue
        for ps, pe, _, _ in recursive_split(piece, chunk_size, 0, seps, "end", True, count):
            units.append((s + ps, s + pe, count(piece[ps:pe])))
    out: list[ChunkTuple] = []
    first = 0
    while first < len(units):
        last = first + 1
        total = units[first][2]
        while last < len(units) and total + units[last][2] <= chunk_size:
            total += units[last][2]
            last += 1
        size = count(text[units[first][0] : units[last - 1][1]])
        while size > chunk_size and last > first + 1:
            last -= 1
            size = count(text[units[first][0] : units[last - 1][1]])
        out.append((units[first][0], units[last - 1][1], size, None))
        if last >= len(units):
            break
        nxt, kept = last, 0
        budget = max(0, chunk_size - units[last][2])
        while kept < overlap_sentences and nxt > first + 1 and units[nxt - 1][2] <= budget:
            budget -= units[nxt - 1][2]
            nxt -= 1
            kept += 1
        first = nxt
    return out
