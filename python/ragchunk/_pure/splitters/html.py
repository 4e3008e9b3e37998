"""Pure-Python twin of ``rust/splitters/html.rs``: the same layout of the parsed tree.

The tree comes from html5lib (a WHATWG parser, like html5ever in the Rust core, scripting
disabled in both), so both backends lay out the same tree. Every rule below mirrors the Rust
module; see its docs for the layout. html5lib's ``etree`` keeps text in ``.text`` (before the
first child) and ``.tail`` (after an element), so the walks visit tails as separate steps.

Known divergences (html5lib 1.1 implements the 2020 parsing rules, html5ever 0.40 later ones),
found by fuzzing the two backends and left out of the differential tests: content inside
``<select>`` (html5ever follows the newer "customizable select" rules), an unclosed
``<template>`` (html5ever keeps everything after it as template content, which is dropped),
``<frameset>`` documents, some end tags inside ``<svg>``/``<math>`` (``</p>``, ``</br>``), and
numeric references above U+10FFFF. Everywhere else both backends give identical chunks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ...core import rules
from ...core.markup import BLOCK, MAX_DEPTH, bound_depth
from .packer import Block, MdChunkRaw, pack_blocks

__all__ = ["BLOCK", "DROPPED", "MAX_DEPTH", "bound_depth", "layout_html", "split_html"]

DROPPED = frozenset(("noscript", "script", "style", "template"))
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
#: HTML whitespace (what the layout collapses; the data file's ``chars.whitespace.html``), and
#: the runs of it and of everything else.
_HTML_WS = "".join(sorted(rules.char_set("chars.whitespace.html")))
_WS_CLASS = "".join(re.escape(c) for c in _HTML_WS)
_WS_RUN = re.compile(f"[{_WS_CLASS}]+|[^{_WS_CLASS}]+")

# Walk steps: ("node", element) visits an element, ("text", str) a text, ("end", None)
# closes a block.
_Step = tuple[str, Any]


def _name(el: Any) -> tuple[bool, str] | None:
    """``(is_html, local_name)`` of an element; ``None`` for comments and the like."""
    tag = el.tag
    if not isinstance(tag, str):
        return None
    if tag.startswith("{"):
        return False, tag.rpartition("}")[2]
    return True, tag


def _children_steps(el: Any) -> list[_Step]:
    """Steps for ``el``'s content in document order (``.text``, then each child and its
    tail)."""
    steps: list[_Step] = []
    if el.text:
        steps.append(("text", el.text))
    for child in el:
        steps.append(("node", child))
        if child.tail:
            steps.append(("text", child.tail))
    return steps


class _Collapser:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pending = False
        self.line_start = True  # buffer empty or ends with "\n"

    def text(self, t: str) -> None:
        for m in _WS_RUN.finditer(t):
            w = m.group()
            if w[0] in _HTML_WS:
                self.pending = True
            else:
                if self.pending and not self.line_start:
                    self.parts.append(" ")
                self.pending = False
                self.parts.append(w)
                self.line_start = False

    def space(self) -> None:
        self.pending = True

    def line_break(self) -> None:
        self.parts.append("\n")
        self.pending = False
        self.line_start = True

    def take(self) -> str:
        t = "".join(self.parts).strip(" \n")
        self.parts = []
        self.pending = False
        self.line_start = True
        return t


def _boundary(local: str) -> bool:
    return local in BLOCK or local in _HEADINGS or local == "pre"


def _inline_text(el: Any) -> str:
    col = _Collapser()
    stack = _children_steps(el)[::-1]
    while stack:
        kind, x = stack.pop()
        if kind == "end":
            col.space()
            continue
        if kind == "text":
            col.text(x)
            continue
        name = _name(x)
        if name is None or name[1] in DROPPED:
            continue
        html, local = name
        if html and (local == "br" or _boundary(local)):
            col.space()
            stack.append(("end", None))
        stack.extend(_children_steps(x)[::-1])
    return col.take()


def _raw_text(el: Any) -> str:
    out: list[str] = []
    stack = _children_steps(el)[::-1]
    while stack:
        kind, x = stack.pop()
        if kind == "text":
            out.append(x)
            continue
        name = _name(x)
        if name is None or name[1] in DROPPED:
            continue
        if name[0] and name[1] == "br":
            out.append("\n")
        stack.extend(_children_steps(x)[::-1])
    return "".join(out).lstrip("\n").rstrip(_HTML_WS)


class Layout:
    """The laid-out text and its blocks (code-point spans)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.blocks: list[Block] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def push(self, kind: str, body: str, level: int = 0, title: str = "") -> None:
        if not body:
            return
        if self.parts:
            self.parts.append("\n\n")
            self.pos += 2
        start = self.pos
        self.parts.append(body)
        self.pos += len(body)
        self.blocks.append(Block(kind, 0, 0, start, self.pos, level, title))


def _collapsed(t: str) -> str:
    col = _Collapser()
    col.text(t)
    return col.take()


def _table(el: Any, layout: Layout) -> None:
    captions: list[str] = []
    rows: list[tuple[str, bool]] = []
    stack: list[tuple[_Step, bool]] = [(s, False) for s in _children_steps(el)[::-1]]
    while stack:
        (kind, x), in_head = stack.pop()
        if kind == "text":
            t = _collapsed(x)
            if t:
                rows.append((t, False))
            continue
        name = _name(x)
        if name is None or name[1] in DROPPED:
            continue
        html, local = name
        if html and local == "caption":
            captions.append(_inline_text(x))
        elif html and local == "tr":
            cells: list[str] = []
            all_th = True
            for ckind, c in _children_steps(x):
                if ckind == "text":
                    t = _collapsed(c)
                    if t:
                        all_th = False
                        cells.append(t)
                    continue
                cname = _name(c)
                if cname is None or cname[1] in DROPPED:
                    continue
                all_th = all_th and cname[0] and cname[1] == "th"
                cells.append(_inline_text(c))
            if any(cells):
                rows.append(("\t".join(cells), in_head or all_th))
        else:
            head = in_head or (html and local == "thead")
            stack.extend((s, head) for s in _children_steps(x)[::-1])
    for c in captions:
        layout.push("paragraph", c)
    header = bool(rows) and rows[0][1]
    kind = "table" if header and len(rows) >= 2 else "paragraph"
    layout.push(kind, "\n".join(r[0] for r in rows))


def layout_dom(root: Any) -> Layout:
    """Lays out an html5lib ``etree`` tree (the root ``html`` element)."""
    layout = Layout()
    para = _Collapser()

    def flush() -> None:
        layout.push("paragraph", para.take())

    stack: list[_Step] = [("node", root)]
    while stack:
        kind, x = stack.pop()
        if kind == "end":
            flush()
            continue
        if kind == "text":
            para.text(x)
            continue
        name = _name(x)
        if name is None or name[1] in DROPPED:
            continue
        html, local = name
        if html:
            level = _HEADINGS.get(local)
            if level is not None:
                flush()
                t = _inline_text(x)
                layout.push("heading", t, level, t)
                continue
            if local == "pre":
                flush()
                layout.push("paragraph", _raw_text(x))
                continue
            if local == "table":
                flush()
                _table(x, layout)
                continue
            if local == "br":
                para.line_break()
                continue
        if html and local in BLOCK:
            flush()
            stack.append(("end", None))
        stack.extend(_children_steps(x)[::-1])
    flush()
    return layout


def _parse(html: str) -> Any:
    try:
        import html5lib  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "HTMLSplitter on the pure-Python backend needs html5lib: "
            "pip install 'ragchunk[fallback]'"
        ) from exc
    return html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=False)


def layout_html(html: str) -> Layout:
    """Parses ``html`` (WHATWG rules, scripting disabled) and lays it out; start tags nesting
    past :data:`MAX_DEPTH` are removed first (:func:`bound_depth`), as the core removes them."""
    return layout_dom(_parse(bound_depth(html)))


def split_html(
    html: str,
    chunk_size: int,
    overlap: int,
    split_levels: Sequence[int],
    strip_headers: bool,
    count: Callable[[str], int],
    merge_sections: bool = False,
) -> tuple[str, list[MdChunkRaw], list[list[str]], list[list[list[str]]]]:
    """The laid-out text, chunks ``(start, end, size, section, prefix)``, sections and the
    paths of the sections merged into each."""
    layout = layout_html(html)
    text = layout.text
    if not layout.blocks:
        return text, [], [], []
    chunks, sections, merged = pack_blocks(
        text,
        layout.blocks,
        chunk_size,
        overlap,
        split_levels,
        strip_headers,
        1,
        count,
        merge_sections,
    )
    return text, chunks, sections, merged
