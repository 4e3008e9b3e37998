"""The packer Markdown, HTML and code share (twin of ``rust/splitters/packer.rs``).

Units (blocks, lines, sentences, words, characters) are packed greedily up to the budget; a
unit too large for it is cut into the next finer level. The line helpers here are the
Markdown scanner's too (:mod:`.markdown`). Offsets are code points; all structural
decisions are made on ASCII characters, so they agree with the Rust byte-level decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...core import rules
from ...core.chunk import MdChunkRaw

__all__ = ["Block", "MdChunkRaw", "pack_blocks", "pack_spans"]


@dataclass(frozen=True)
class Block:
    """One block of a document as the packer takes it (Markdown's scanner and the HTML
    layout make them)."""

    kind: str  # front_matter heading fence indented_code html table list quote break paragraph
    first: int
    last: int
    start: int
    end: int
    level: int = 0
    text: str = ""


#: The packer's whitespace, its terminators that always end a sentence, and those that end one
#: before whitespace or the end: the data file's sets, which the Rust packer reads too.
_WS = rules.char_set("chars.whitespace.packer")
_CJK_STOP = rules.char_set("chars.terminators.packer_cjk")
_ASCII_STOP = rules.char_set("chars.terminators.ascii")


def _lines(text: str) -> list[tuple[int, int]]:
    out = []
    start = 0
    n = len(text)
    while True:
        nl = text.find("\n", start)
        end = n if nl < 0 else nl
        e = end
        if e > start and text[e - 1] == "\r":
            e -= 1
        out.append((start, e))
        if nl < 0:
            break
        start = nl + 1
    return out


def _blank(s: str) -> bool:
    return all(c == " " or c == "\t" for c in s)


def _indent(s: str) -> tuple[int, str]:
    cols = 0
    i = 0
    while i < len(s):
        c = s[i]
        if c == " ":
            cols += 1
        elif c == "\t":
            cols += 4
        else:
            break
        i += 1
    return cols, s[i:]


def _isdigit(c: str) -> bool:
    return "0" <= c <= "9"


def _list_marker(s: str) -> str | None:
    ind, t = _indent(s)
    if ind >= 4 or not t:
        return None

    def sep_ok(rest: str) -> bool:
        return not rest or rest[0] in " \t"

    if t[0] in "-+*":
        return t[0] if sep_ok(t[1:]) else None
    d = 0
    for c in t:
        if not _isdigit(c):
            break
        d += 1
    if 1 <= d <= 9 and d < len(t) and t[d] in ".)" and sep_ok(t[d + 1 :]):
        return t[d]
    return None


def _list_item(s: str) -> bool:
    return _list_marker(s) is not None


def _trim_end_ws(text: str, s: int, e: int) -> int:
    while e > s and text[e - 1] in _WS:
        e -= 1
    return e


def _sub_units(text: str, s: int, e: int, level: int) -> list[tuple[int, int]]:
    piece = text[s:e]
    out: list[tuple[int, int]] = []
    if level == 1:
        for a, b in _lines(piece):
            if not _blank(piece[a:b]):
                out.append((s + a, s + b))
    elif level in (2, 3):
        start = 0
        n = len(piece)
        i = 0
        while i < n:
            c = piece[i]
            nxt = piece[i + 1] if i + 1 < n else None
            if level == 2:
                cut = c in _CJK_STOP or (c in _ASCII_STOP and (nxt is None or nxt in _WS))
            else:
                cut = c in _WS and nxt is not None and nxt not in _WS
            if cut:
                end = i + 1
                while end < n and piece[end] in _WS:
                    end += 1
                t = _trim_end_ws(piece, start, end)
                if t > start:
                    out.append((s + start, s + t))
                start = end
                i = end
            else:
                i += 1
        t = _trim_end_ws(piece, start, n)
        if t > start:
            out.append((s + start, s + t))
    else:
        out = [(k, k + 1) for k in range(s, e)]
    return out


def _list_items(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """Twin of the Rust ``list_items``: the items of the list block ``(s, e)``."""
    lines = _lines(text[s:e])
    piece = text[s:e]
    base = _indent(piece[lines[0][0] : lines[0][1]])[0]
    out: list[tuple[int, int]] = []
    for j, (a, b) in enumerate(lines):
        ln = piece[a:b]
        if j == 0 or (_list_item(ln) and _indent(ln)[0] <= base):
            out.append((s + a, s + b))
        elif not _blank(ln) and out:
            out[-1] = (out[-1][0], s + b)
    return out


class _Packer:
    def __init__(
        self, text: str, budget: int, count: Callable[[str], int], head_lines: int = 2
    ) -> None:
        self.text = text
        self.budget = budget
        self.count = count
        self.section = 0
        self.out: list[MdChunkRaw] = []
        # Lines of a table block repeated as its header: 2 in Markdown, 1 in HTML.
        self.head_lines = head_lines

    def size(self, prefix: tuple[int, int] | None, s: int, e: int) -> int:
        if prefix is None:
            return self.count(self.text[s:e])
        a, b = prefix
        return self.count(self.text[a:b] + "\n" + self.text[s:e])

    def longest_fit(
        self,
        units: Sequence[tuple[int, int]],
        i: int,
        minimum: int,
        prefix: tuple[int, int] | None,
        sums: Sequence[int] | None,
    ) -> tuple[int, int] | None:
        n = len(units) - i
        start = units[i][0]
        est = minimum
        if sums is not None:
            lo, hi = minimum, n
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if sums[i + mid] - sums[i] <= self.budget:
                    lo = mid
                else:
                    hi = mid - 1
            est = lo
        good, good_size = 0, 0
        bad: int | None = None
        if est > minimum:
            sz = self.size(prefix, start, units[i + est - 1][1])
            if sz <= self.budget:
                good, good_size = est, sz
            else:
                bad = est
        if good == 0:
            sz = self.size(prefix, start, units[i + minimum - 1][1])
            if sz > self.budget:
                return None
            good, good_size = minimum, sz
        if bad is None:
            step = 1
            while good < n:
                k = min(good + step, n)
                sz = self.size(prefix, start, units[i + k - 1][1])
                if sz <= self.budget:
                    good, good_size = k, sz
                    step *= 2
                else:
                    bad = k
                    break
        if bad is not None:
            while bad - good > 1:
                mid = (good + bad) // 2
                sz = self.size(prefix, start, units[i + mid - 1][1])
                if sz <= self.budget:
                    good, good_size = mid, sz
                else:
                    bad = mid
        return good, good_size

    def pack(
        self,
        units: Sequence[tuple[int, int]],
        level: int,
        kinds: Sequence[str] | None,
        prefix: tuple[int, int] | None,
        overlap: int,
    ) -> None:
        sums: list[int] | None = None
        if level < 4:  # separate unit counts (not per character: too many calls)
            sums = [0]
            for s, e in units:
                sums.append(sums[-1] + self.count(self.text[s:e]))
        i = 0
        carried = 0
        while i < len(units):
            pre = prefix if i > 0 else None
            fit = self.longest_fit(units, i, carried + 1, pre, sums)
            if fit is None:
                if carried > 0:
                    i += 1
                    carried -= 1
                    continue
                self.split_unit(units, i, level, kinds, pre)
                i += 1
                continue
            k, size = fit
            s, e = units[i][0], units[i + k - 1][1]
            self.out.append((s, e, size, self.section, pre))
            end = i + k
            carried = 0
            if overlap > 0 and level == 0 and end < len(units):
                j = end - 1
                while j > i and self.size(None, units[j][0], units[end - 1][1]) <= overlap:
                    j -= 1
                    carried += 1
            i = end - carried

    def split_unit(
        self,
        units: Sequence[tuple[int, int]],
        i: int,
        level: int,
        kinds: Sequence[str] | None,
        pre: tuple[int, int] | None,
    ) -> None:
        s, e = units[i]
        if level >= 4:
            self.out.append((s, e, self.size(pre, s, e), self.section, pre))
            return
        kind = kinds[i] if kinds is not None else None
        if kind == "list":
            # Cut between items first (level 1, marked), then an item between its lines.
            if level == 0:
                items = _list_items(self.text, s, e)
                if len(items) > 1:
                    self.pack(items, 1, ["list"] * len(items), None, 0)
                    return
            self.pack(_sub_units(self.text, s, e, 1), 1, None, None, 0)
            return
        is_table = level == 0 and kind == "table"
        sub = _sub_units(self.text, s, e, level + 1)
        hl = max(self.head_lines, 1)
        if is_table and len(sub) > hl:
            head = (sub[0][0], sub[hl - 1][1])
            rows = [head, *sub[hl:]]
            p = head if self.size(None, head[0], head[1]) * 2 <= self.budget else None
            self.pack(rows, 1, None, p, 0)
            return
        self.pack(sub, level + 1, None, None, 0)


def pack_spans(
    text: str,
    units: Sequence[tuple[int, int]],
    level: int,
    budget: int,
    count: Callable[[str], int],
) -> list[tuple[int, int, int]]:
    """Twin of the Rust ``pack_spans``: ``(start, end, size)`` of the packed spans."""
    packer = _Packer(text, max(budget, 1), count)
    packer.pack(units, level, None, None, 0)
    return [(s, e, z) for s, e, z, _, _ in packer.out]


class _Planner:
    """Twin of the Rust ``Planner``: which runs of sections become one chunk."""

    def __init__(
        self,
        text: str,
        blocks: Sequence[Block],
        sections: Sequence[tuple[list[str], int, int]],
        budget: int,
        levels: set[int],
        strip_headers: bool,
        count: Callable[[str], int],
    ) -> None:
        self.text = text
        self.blocks = blocks
        self.sections = sections
        self.budget = budget
        self.levels = levels
        self.strip_headers = strip_headers
        self.count = count

    def block_range(self, lo: int, hi: int) -> tuple[int, int]:
        a, b = self.sections[lo][1], self.sections[hi - 1][2]
        if (
            self.strip_headers
            and b - a > 1
            and _common_len(self.sections[lo:hi]) == len(self.sections[lo][0])
            and self.blocks[a].kind == "heading"
            and self.blocks[a].level in self.levels
        ):
            return a + 1, b
        return a, b

    def fit(self, lo: int, hi: int) -> int | None:
        a, b = self.block_range(lo, hi)
        if a == b:
            return 0
        n = self.count(self.text[self.blocks[a].start : self.blocks[b - 1].end])
        return n if n <= self.budget else None

    def plan(self, k: int, hi: int) -> tuple[bool, list[tuple[int, int, int]]]:
        """``(whole, groups)`` of section ``k`` and its subtree ``k + 1..hi``."""
        items: list[tuple[bool, list[tuple[int, int, int]]]] = []
        _, a, b = self.sections[k]
        if b > a:
            size = self.fit(k, k + 1)
            items.append(
                (True, [(k, k + 1, size)]) if size is not None else (False, [(k, k + 1, 0)])
            )
        j = k + 1
        while j < hi:
            d = len(self.sections[j][0])
            e = j + 1
            while e < hi and len(self.sections[e][0]) > d:
                e += 1
            items.append(self.plan(j, e))
            j = e
        groups: list[tuple[int, int, int]] = []
        run: tuple[int, int, int] | None = None
        merged_all = True
        for whole, pieces in items:
            if whole:
                lo, end, size = pieces[0]
                if run is None:
                    run = (lo, end, size)
                else:
                    fits = self.fit(run[0], end)
                    if fits is not None:
                        run = (run[0], end, fits)
                    else:
                        groups.append(run)
                        merged_all = False
                        run = (lo, end, size)
            else:
                if run is not None:
                    groups.append(run)
                    run = None
                groups.extend(pieces)
                merged_all = False
        if run is not None:
            groups.append(run)
        return merged_all and bool(items) and len(groups) == 1, groups


def _common_len(sections: Sequence[tuple[list[str], int, int]]) -> int:
    """Twin of the Rust ``common_len``: the first section's path length when every other
    section is below it, else its parent's (by depth, not by comparing titles)."""
    d = len(sections[0][0])
    if any(len(p) <= d for p, _, _ in sections[1:]):
        return max(d - 1, 0)
    return d


def pack_blocks(
    text: str,
    blocks: Sequence[Block],
    chunk_size: int,
    overlap: int,
    split_levels: Sequence[int],
    strip_headers: bool,
    head_lines: int,
    count: Callable[[str], int],
    merge_sections: bool = False,
) -> tuple[list[MdChunkRaw], list[list[str]], list[list[list[str]]]]:
    """Twin of the Rust ``pack_blocks``: sections, then packing of each section's blocks
    (``head_lines`` lines of a table block are its repeated header); with
    ``merge_sections``, small adjacent sections of one parent share a chunk. Returns the
    chunks, each chunk section's heading path, and the paths of the sections merged into
    each (empty for a single section)."""
    levels = set(split_levels)
    budget = max(chunk_size, 1)
    packer = _Packer(text, budget, count, head_lines)
    stack: list[tuple[int, str]] = []
    sec_start = 0
    sections: list[tuple[list[str], int, int]] = []
    for bi, blk in enumerate(blocks):
        if blk.kind == "heading" and blk.level in levels:
            sections.append(([t for _, t in stack], sec_start, bi))
            while stack and stack[-1][0] >= blk.level:
                stack.pop()
            stack.append((blk.level, blk.text))
            sec_start = bi
    sections.append(([t for _, t in stack], sec_start, len(blocks)))
    planner = _Planner(text, blocks, sections, budget, levels, strip_headers, count)
    if merge_sections:
        groups = planner.plan(0, len(sections))[1]
    else:
        groups = [(k, k + 1, 0) for k in range(len(sections))]
    paths: list[list[str]] = []
    merged: list[list[list[str]]] = []
    for lo, hi, size in groups:
        a, b = planner.block_range(lo, hi)
        if a == b and not sections[lo][0]:
            continue
        packer.section = len(paths)
        if hi - lo > 1:
            group = sections[lo:hi]
            paths.append(sections[lo][0][: _common_len(group)])
            merged.append([list(p) for p, _, _ in group])
            packer.out.append((blocks[a].start, blocks[b - 1].end, size, packer.section, None))
            continue
        paths.append(sections[lo][0])
        merged.append([])
        sel = blocks[a:b]
        units = [(blk.start, blk.end) for blk in sel]
        packer.pack(units, 0, [blk.kind for blk in sel], None, overlap)
    used = sorted({c[3] for c in packer.out})
    remap = {old: new for new, old in enumerate(used)}
    chunks = [(s, e, z, remap[sec], p) for s, e, z, sec, p in packer.out]
    return chunks, [paths[i] for i in used], [merged[i] for i in used]
