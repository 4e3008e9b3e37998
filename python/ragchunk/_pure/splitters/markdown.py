"""Pure-Python twin of ``rust/splitters/markdown.rs``: the same block scanner.

Every rule here mirrors the Rust code line for line (see that file's module docs for why a
hand-written scanner is used in both backends rather than two different CommonMark parsers).
Offsets are code points; all structural decisions are made on ASCII characters, so they agree
with the Rust byte-level decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .packer import (
    Block,
    MdChunkRaw,
    _blank,
    _indent,
    _lines,
    _list_item,
    _list_marker,
    pack_blocks,
)

__all__ = ["Block", "MdChunkRaw", "scan_blocks", "split_markdown"]


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
    # A leading byte-order mark is not part of the first line's syntax (it stays in the span).
    lines[0] = lines[0].removeprefix("\ufeff")
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


def split_markdown(
    text: str,
    chunk_size: int,
    overlap: int,
    split_levels: Sequence[int],
    strip_headers: bool,
    count: Callable[[str], int],
    merge_sections: bool = False,
) -> tuple[list[MdChunkRaw], list[list[str]], list[list[list[str]]]]:
    """Chunks as ``(start, end, size, section, prefix)``, the sections' heading paths and
    the paths of the sections merged into each (see :func:`.packer.pack_blocks`)."""
    if not text:
        return [], [], []
    return pack_blocks(
        text,
        scan_blocks(text),
        chunk_size,
        overlap,
        split_levels,
        strip_headers,
        2,
        count,
        merge_sections,
    )
