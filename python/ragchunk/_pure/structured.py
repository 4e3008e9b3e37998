"""Pure-Python twin of ``rust/splitters/markdown.rs``: the same block scanner and packing.

Every rule here mirrors the Rust code line for line (see that file's module docs for why a
hand-written scanner is used in both backends rather than two different CommonMark parsers).
Offsets are code points; all structural decisions are made on ASCII characters, so they agree
with the Rust byte-level decisions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Block",
    "MdChunkRaw",
    "Resume",
    "dump_json",
    "pack_blocks",
    "scan_blocks",
    "split_json",
    "split_markdown",
]

_WS = frozenset(" \t\n\r\x0b\x0c\xa0\u3000")
_CJK_STOP = frozenset("。！？；")


@dataclass(frozen=True)
class Block:
    kind: str  # front_matter heading fence indented_code html table list quote break paragraph
    first: int
    last: int
    start: int
    end: int
    level: int = 0
    text: str = ""


# (start, end, size, section index, prefix (start, end) or None)
MdChunkRaw = tuple[int, int, int, int, "tuple[int, int] | None"]


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


def _strip(s: str) -> str:
    return s.strip(" \t")


def _run(s: str, c: str) -> int:
    n = 0
    for x in s:
        if x != c:
            break
        n += 1
    return n


def _atx(s: str) -> tuple[int, str] | None:
    ind, t = _indent(s)
    if ind >= 4:
        return None
    n = _run(t, "#")
    if not 1 <= n <= 6:
        return None
    after = t[n:]
    if after and after[0] not in " \t":
        return None
    text = _strip(after)
    if text.endswith("#"):
        k = len(text.rstrip("#"))
        if k == 0:
            text = ""
        elif text[k - 1] in " \t":
            text = _strip(text[:k])
    return n, text


def _fence_open(s: str) -> tuple[str, int] | None:
    ind, t = _indent(s)
    if ind >= 4 or not t or t[0] not in "`~":
        return None
    c = t[0]
    n = _run(t, c)
    if n < 3 or (c == "`" and "`" in t[n:]):
        return None
    return c, n


def _fence_close(s: str, c: str, n: int) -> bool:
    ind, t = _indent(s)
    m = _run(t, c)
    return ind < 4 and m >= n and _blank(t[m:])


def _thematic(s: str) -> bool:
    ind, t = _indent(s)
    if ind >= 4 or not t or t[0] not in "-*_":
        return False
    c = t[0]
    n = 0
    for x in t:
        if x == c:
            n += 1
        elif x != " " and x != "\t":
            return False
    return n >= 3


def _setext(s: str) -> int | None:
    ind, _ = _indent(s)
    t = _strip(s)
    if ind >= 4 or not t:
        return None
    if all(c == "=" for c in t):
        return 1
    if all(c == "-" for c in t):
        return 2
    return None


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


_HTML_RAW_TAGS = ("script", "pre", "style", "textarea")
# ASCII-only lowercasing (str.lower() also maps e.g. the Kelvin sign to "k"; Rust's
# eq_ignore_ascii_case does not).
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _html_open(s: str) -> int | None:
    ind, t = _indent(s)
    if ind >= 4 or t[:1] != "<":
        return None
    r = t[1:]
    for tag in _HTML_RAW_TAGS:
        n = len(tag)
        if r[:n].translate(_ASCII_LOWER) == tag and r[n : n + 1] in ("", " ", "\t", ">"):
            return 1
    if r.startswith("!--"):
        return 2
    if r.startswith("?"):
        return 3
    if r.startswith("![CDATA["):
        return 5
    if r[:1] == "!" and "a" <= r[1:2].translate(_ASCII_LOWER) <= "z":
        return 4
    return None


def _html_close(s: str, kind: int) -> bool:
    if kind == 1:
        low = s.translate(_ASCII_LOWER)
        return any(f"</{tag}>" in low for tag in _HTML_RAW_TAGS)
    return {2: "-->", 3: "?>", 4: ">"}.get(kind, "]]>") in s


def _quote(s: str) -> bool:
    ind, t = _indent(s)
    return ind < 4 and t[:1] == ">"


def _table_delim(s: str) -> bool:
    t = _strip(s)
    if "|" not in t and "-" not in t:
        return False
    has_pipe = "|" in t
    if t[:1] == "|":
        t = t[1:]
    if t[-1:] == "|":
        t = t[:-1]
    if not has_pipe:
        return False
    for cell in t.split("|"):
        c = _strip(cell)
        if c[:1] == ":":
            c = c[1:]
        if c[-1:] == ":":
            c = c[:-1]
        if not c or any(x != "-" for x in c):
            return False
    return True


def _table_start(lines: Sequence[str], i: int) -> bool:
    return i + 1 < len(lines) and "|" in lines[i] and _table_delim(lines[i + 1])


def scan_blocks(text: str) -> list[Block]:
    """The blocks of ``text``; rules documented on the Rust ``scan_blocks``."""
    spans = _lines(text)
    lines = [text[s:e] for s, e in spans]
    n = len(lines)
    blocks: list[Block] = []

    def push(kind: str, first: int, last: int, level: int = 0, title: str = "") -> None:
        blocks.append(Block(kind, first, last, spans[first][0], spans[last][1], level, title))

    i = 0
    if _strip(lines[0]) == "---" and lines[0].startswith("---"):
        for j in range(1, n):
            t = _strip(lines[j])
            if t in ("---", "...") and lines[j].startswith(t):
                push("front_matter", 0, j)
                i = j + 1
                break
    while i < n:
        s = lines[i]
        if _blank(s):
            i += 1
            continue
        if _indent(s)[0] >= 4:
            last = i
            j = i + 1
            while j < n and (_blank(lines[j]) or _indent(lines[j])[0] >= 4):
                if not _blank(lines[j]):
                    last = j
                j += 1
            push("indented_code", i, last)
            i = last + 1
            continue
        fo = _fence_open(s)
        if fo is not None:
            c, length = fo
            last = -1
            for k in range(i + 1, n):
                if _fence_close(lines[k], c, length):
                    last = k
                    break
            if last < 0:  # unclosed: runs to the last non-blank line of the document
                last = next(k for k in range(n - 1, i - 1, -1) if not _blank(lines[k]))
            push("fence", i, last)
            i = last + 1
            continue
        hk = _html_open(s)
        if hk is not None:
            last = -1
            for k in range(i, n):
                if _html_close(lines[k], hk):
                    last = k
                    break
            if last < 0:  # unclosed: runs to the last non-blank line of the document
                last = next(k for k in range(n - 1, i - 1, -1) if not _blank(lines[k]))
            push("html", i, last)
            i = last + 1
            continue
        h = _atx(s)
        if h is not None:
            push("heading", i, i, h[0], h[1])
            i += 1
            continue
        if _thematic(s):
            push("break", i, i)
            i += 1
            continue
        marker = _list_marker(s)
        if marker is not None:
            last = i
            j = i + 1
            while j < n:
                if _blank(lines[j]):
                    k = j
                    while k < n and _blank(lines[k]):
                        k += 1
                    if k < n and (_indent(lines[k])[0] >= 2 or _list_marker(lines[k]) == marker):
                        j = k
                        continue
                    break
                ln = lines[j]
                m = _list_marker(ln)
                if _indent(ln)[0] < 2 and (
                    _atx(ln) is not None
                    or _fence_open(ln) is not None
                    or _html_open(ln) is not None
                    or _thematic(ln)
                    or (m is not None and m != marker)
                ):
                    break
                last = j
                j += 1
            push("list", i, last)
            i = last + 1
            continue
        if _table_start(lines, i):
            j = i + 2
            while (
                j < n
                and not _blank(lines[j])
                and _atx(lines[j]) is None
                and _fence_open(lines[j]) is None
                and _html_open(lines[j]) is None
            ):
                j += 1
            push("table", i, j - 1)
            i = j
            continue
        if _quote(s):
            j = i + 1
            while j < n and not _blank(lines[j]):
                j += 1
            push("quote", i, j - 1)
            i = j
            continue
        j = i + 1
        heading: int | None = None
        while j < n:
            ln = lines[j]
            if _blank(ln):
                break
            lv = _setext(ln)
            if lv is not None:
                heading = lv
                break
            if (
                _atx(ln) is not None
                or _fence_open(ln) is not None
                or _html_open(ln) is not None
                or _thematic(ln)
                or _list_item(ln)
                or _quote(ln)
                or _table_start(lines, j)
            ):
                break
            j += 1
        if heading is not None:
            push("heading", i, j, heading, " ".join(_strip(lines[k]) for k in range(i, j)))
            i = j + 1
        else:
            push("paragraph", i, j - 1)
            i = j
    return blocks


# ------------------------------------------------------------------------------------------


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
                cut = c in _CJK_STOP or (c in ".!?" and (nxt is None or nxt in _WS))
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


def split_markdown(
    text: str,
    chunk_size: int,
    overlap: int,
    split_levels: Sequence[int],
    strip_headers: bool,
    count: Callable[[str], int],
) -> tuple[list[MdChunkRaw], list[list[str]]]:
    """Chunks as ``(start, end, size, section, prefix)`` and the sections' heading paths."""
    if not text:
        return [], []
    return pack_blocks(
        text, scan_blocks(text), chunk_size, overlap, split_levels, strip_headers, 2, count
    )


def pack_blocks(
    text: str,
    blocks: Sequence[Block],
    chunk_size: int,
    overlap: int,
    split_levels: Sequence[int],
    strip_headers: bool,
    head_lines: int,
    count: Callable[[str], int],
) -> tuple[list[MdChunkRaw], list[list[str]]]:
    """Twin of the Rust ``pack_blocks``: sections, then packing of each section's blocks
    (``head_lines`` lines of a table block are its repeated header)."""
    levels = set(split_levels)
    packer = _Packer(text, max(chunk_size, 1), count, head_lines)
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
    paths: list[list[str]] = []
    for path, a, b in sections:
        sel = blocks[a:b]
        # Stripped only when the section has other content (else the heading would be lost).
        if strip_headers and len(sel) > 1 and sel[0].kind == "heading" and sel[0].level in levels:
            sel = sel[1:]
        if not sel and not path:
            continue
        packer.section = len(paths)
        paths.append(path)
        units = [(blk.start, blk.end) for blk in sel]
        packer.pack(units, 0, [blk.kind for blk in sel], None, overlap)
    used = sorted({c[3] for c in packer.out})
    remap = {old: new for new, old in enumerate(used)}
    chunks = [(s, e, z, remap[sec], p) for s, e, z, sec, p in packer.out]
    return chunks, [paths[i] for i in used]


# ------------------------------------------------------------------------------------------
# title tree (twin of rust/splitters/title_tree.rs)


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


# ------------------------------------------------------------------------------------------
# JSON (used by both backends: see ``ragchunk.structured.JSONSplitter``)

JsonPath = list[str | int]
JsonChunkRaw = tuple[str, int, int, int, list[JsonPath]]


# One encoder (json.dumps would build a new one per call with these separators).
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
_quote_str = json.encoder.encode_basestring  # what _JSON uses for every str


def dump_json(obj: object) -> str:
    """The one serialization of chunk JSON (both backends)."""
    return _JSON.encode(obj)


_NOTHING = object()  # a value no JSON data can be (the empty dump memo)


def _dump_value(value: object) -> str:
    return _quote_str(value) if isinstance(value, str) else _JSON.encode(value)


def _splittable(value: object) -> bool:
    return isinstance(value, (dict, list, tuple)) and len(value) > 0


def _children(value: object) -> list[tuple[str | int, object]]:
    if isinstance(value, dict):
        return list(value.items())
    assert isinstance(value, (list, tuple))
    return list(enumerate(value))


def _leaf_count(value: object) -> int:
    if not _splittable(value):
        return 1
    return sum(_leaf_count(v) for _, v in _children(value))


# (text, start, tail, stop_above) -> (tokens of text[start:], next resume point, tokens up to
# it): the Rust core's count_ordinary_resume for one encoding (rust/tokenizer/resume.rs).
# Past stop_above (if not None) the count is only known to be above it.
Resume = Callable[[str, int, int, "int | None"], tuple[int, int, int]]


def split_json(
    data: object,
    budget: int,
    min_size: int,
    count: Callable[[str], int],
    resume: Resume | None = None,
) -> list[JsonChunkRaw]:
    """Greedy depth-first packing of a parsed JSON value into ``(text, first_leaf, end_leaf,
    size, paths)`` chunks. Each entry (a key's value at its full path) joins the open chunk if
    the serialized chunk stays within ``budget``; otherwise a non-empty container is recursed
    into (still filling the open chunk while it is below ``min_size``, else in a fresh one)
    and a scalar or empty container starts a fresh chunk, alone even if over budget.

    The open chunk's text is kept as a string and edited in place of re-serializing the
    chunk object for every entry: entries arrive depth first, so the open objects form one
    spine (the keys of the last entry's parents) and the text ends with their closing braces,
    innermost first. A new entry goes just before the closing brace of the deepest spine
    object on its path; the result is exactly ``dump_json`` of the chunk object (tested).

    So only the last ``len(path)`` characters (closing braces) of the open chunk's text ever
    change: with ``resume`` (the exact counter's resumable form), each candidate is counted
    from a boundary near its edit instead of from the start; sizes are identical."""
    budget = max(budget, 1)
    if not _splittable(data):
        text = dump_json(data)
        return [(text, 0, 1, count(text), [[]])]
    out: list[JsonChunkRaw] = []
    st: dict[str, Any] = {
        "text": "",
        "spine": [],
        "size": 0,
        "first": 0,
        "leaves": 0,
        "memo": (_NOTHING, ""),
        "base": 0,  # resume point in the open chunk's text (UTF-8 bytes) ...
        "base_count": 0,  # ... and the tokens before it
    }
    paths: list[JsonPath] = []

    def close() -> None:
        if paths:
            first = st["first"]
            out.append((st["text"], first, first + st["leaves"], st["size"], paths[:]))
            st["first"] = first + st["leaves"]
        paths.clear()
        st["text"] = ""
        st["spine"] = []
        st["size"] = 0
        st["leaves"] = 0
        st["base"] = 0
        st["base_count"] = 0

    chars = count is len  # sizes in code points: a candidate's size is plain arithmetic

    def try_add(path: JsonPath, value: object, force: bool) -> bool:
        keys = [str(k) for k in path]
        text: str = st["text"]
        spine: list[str] = st["spine"] if text else []
        e = 0  # the deepest open object on the path: the root (0) or spine[e - 1]
        while e < len(spine) and e < len(keys) - 1 and spine[e] == keys[e]:
            e += 1
        parts = [_quote_str(keys[e]), ": "]
        for k in keys[e + 1 :]:
            parts += ["{", _quote_str(k), ": "]
        memo = st["memo"]
        if memo[0] is not value:  # place() may try the same value twice: dump it once
            memo = st["memo"] = (value, _dump_value(value))
        parts += [memo[1], "}" * (len(keys) - 1 - e)]
        if chars and not force and len(text) + 2 + sum(map(len, parts)) > budget:
            return False  # the candidate's length, known without building it
        body = "".join(parts)
        if text:
            ins = len(text) - 1 - e
            new = f"{text[:ins]}, {body}{text[ins:]}"
        else:
            new = f"{{{body}}}"
        if resume is None:
            size = count(new)
        else:
            tail = len(keys)  # later entries go before one of these closing braces
            # Unless forced (then the exact size is reported), stop once it cannot fit.
            stop = None if force else max(0, budget - st["base_count"])
            n, stable, to_stable = resume(new, st["base"], tail, stop)
            size = st["base_count"] + n
        if size > budget and not force:
            return False
        if resume is not None:
            st["base"] = stable
            st["base_count"] += to_stable
        paths.append(list(path))
        st["text"] = new
        st["spine"] = keys[:-1]
        st["size"] = size
        st["leaves"] += _leaf_count(value)
        return True

    def place(path: JsonPath, value: object) -> None:
        if paths:
            if try_add(path, value, False):
                return
            if _splittable(value) and st["size"] < min_size:
                visit(path, value)
                return
            close()
        if try_add(path, value, not _splittable(value)):
            return
        visit(path, value)

    def visit(path: JsonPath, value: object) -> None:
        for key, child in _children(value):
            place([*path, key], child)

    visit([], data)
    close()
    return out
