"""The terminal view: the document printed once with every chunk coloured (``rich``), or,
when the output is not a terminal, with plain markers at the chunk boundaries."""

from __future__ import annotations

import sys
from typing import IO, Any

from ..core.optional import load
from ._model import Column, build_columns

__all__ = ["print_chunks"]

#: Background colours of the chunks, in turn (consecutive chunks never share one).
#: The 16 standard colours only, so that a terminal with few colours keeps them apart.
COLOURS = (
    "black on bright_yellow",
    "black on bright_green",
    "black on bright_cyan",
    "black on bright_magenta",
    "white on blue",
)


def _events(col: Column) -> list[tuple[int, int, int]]:
    """``(offset, kind, chunk)``: kind 0 ends a chunk, 1 starts one; in document order, ends
    before starts at one offset, starts in chunk order."""
    out = []
    for k, c in enumerate(col.chunks):
        out.append((c.start, 1, k))
        out.append((c.end, 0, k))
    out.sort(key=lambda e: (e[0], e[1], e[2] if e[1] else -e[2]))
    return out


def _plain(source: str, col: Column) -> str:
    parts, at = [], 0
    for off, kind, k in _events(col):
        parts.append(source[at:off])
        parts.append(f"[{k}>" if kind else f"<{k}]")
        at = off
    parts.append(source[at:])
    return "".join(parts)


def _styled(source: str, col: Column) -> Any:
    Text = load("rich.text", "coloured chunks").Text

    text = Text(no_wrap=False, end="")
    open_: list[int] = []
    at = 0
    over = set(col.over_budget())
    rank = {}
    for r, k in enumerate(sorted(range(len(col.chunks)), key=lambda k: col.chunks[k].start)):
        rank[k] = r

    def style() -> str:
        if not open_:
            return "dim"
        k = open_[-1]
        base = COLOURS[rank[k] % len(COLOURS)]
        if len(open_) > 1:
            base += " underline"
        return base + (" reverse" if k in over else "")

    for off, kind, k in _events(col):
        if off > at:
            text.append(source[at:off], style())
        at = off
        if kind:
            open_.append(k)
            text.append(f"{k}\u25b8", "bold black on grey70")
        else:
            open_.remove(k)
    text.append(source[at:], style())
    return text


def print_chunks(
    source: str,
    chunkers: object,
    *,
    file: IO[str] | None = None,
    color: bool | None = None,
) -> None:
    """Print ``source`` once per chunker (see :func:`ragchunk.viz.render` for what
    ``chunkers`` may be), every chunk in its own background colour with its index at its
    start, overlapping text underlined, chunks over the size budget reversed.

    ``color`` None colours when ``file`` (default standard output) is a terminal; without
    colour, each chunk is marked ``[k>`` where it starts and ``<k]`` where it ends, so that
    the text between the markers is exactly the source. Colour needs ``rich`` (the ``viz``
    extra).

    >>> from ragchunk import RecursiveSplitter
    >>> print_chunks("aa bb cc", RecursiveSplitter(5, length="chars"), color=False)
    == RecursiveSplitter(chunk_size=5): 2 chunks, 0 over budget 5 ==
    [0>aa bb<0] [1>cc<1]
    """
    out = sys.stdout if file is None else file
    if color is None:
        isatty = getattr(out, "isatty", None)
        color = bool(isatty is not None and isatty())
    columns = build_columns(source, chunkers)
    console = None
    if color:
        console = load("rich.console", "coloured chunks").Console(
            file=out, force_terminal=True, highlight=False, soft_wrap=True
        )
    for col in columns:
        over = col.over_budget()
        budget = f", {len(over)} over budget {col.budget}" if col.budget is not None else ""
        head = f"== {col.name}: {len(col.chunks)} chunks{budget} =="
        if console is None:
            out.write(f"{head}\n{_plain(source, col)}\n")
        else:
            console.print(head, style="bold", markup=False)
            console.print(_styled(source, col), markup=False)
    out.flush()
