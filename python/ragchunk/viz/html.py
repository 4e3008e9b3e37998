"""The HTML inspector: one self-contained page (inline CSS and JavaScript, no network) that
shows the chunks of one or more chunkers over the document.

The document text and the chunks travel as JSON in a ``<script type="application/json">``
block, with every ``<``, ``>`` and ``&`` escaped, and the page's script puts text into the DOM
only as text nodes, so a document containing markup shows it and runs nothing. The script
renders each column in windows of about 64k characters as they scroll into view, so a 10 MB
document builds a few thousand elements, not one per character.
"""

from __future__ import annotations

import html
import importlib.resources
import json
import os
import re
from typing import Any

from ..documents import Document
from ._model import Column, Overlay, Utf16, build_columns, build_overlay
from ._pages import MAX_PAGES, PAGE_WIDTH, check_pages, locate_columns, pages_data

__all__ = ["PALETTE", "View", "render"]

#: Chunk colours, in turn: consecutive chunks never share one.
PALETTE = ("#ffd6a5", "#caffbf", "#9bf6ff", "#bdb2ff", "#ffc6ff", "#fdffb6")

_SURROGATE = re.compile("[\ud800-\udfff]")
_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028"}
_SCRIPT_UNSAFE["\u2029"] = "\\u2029"


def _script_json(data: object) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element and encodable as UTF-8
    (lone surrogates escaped, as JavaScript strings hold them)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=repr)
    text = re.sub("[<>&\u2028\u2029]", lambda m: _SCRIPT_UNSAFE[m.group()], text)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _asset(name: str) -> str:
    return importlib.resources.files("ragchunk.viz").joinpath(name).read_text(encoding="utf-8")


def _histogram(col: Column) -> str:
    """An inline SVG of the chunk sizes: 16 bins, the bins over the budget in red."""
    sizes = [c.token_count for c in col.chunks]
    if not sizes:
        return '<svg class="hist" viewBox="0 0 160 40" role="img"><title>no chunks</title></svg>'
    top = max(max(sizes), col.budget or 0, 1)
    bins = 16
    width = top / bins
    counts = [0] * bins
    for n in sizes:
        counts[min(bins - 1, int(n / width))] += 1
    peak = max(counts)
    unit = col.unit or "units"
    bars = []
    for b, n in enumerate(counts):
        lo, hi = b * width, (b + 1) * width
        h = 36 * n / peak
        over = col.budget is not None and hi > col.budget
        cls = "bar over" if over else "bar"
        bars.append(
            f'<rect class="{cls}" x="{b * 10}" y="{38 - h:.1f}" width="9" height="{h:.1f}">'
            f"<title>{n} chunks of {lo:.0f}-{hi:.0f} {html.escape(unit)}</title></rect>"
        )
    if col.budget is not None:
        x = 160 * col.budget / top
        bars.append(f'<line class="budget" x1="{x:.1f}" x2="{x:.1f}" y1="0" y2="40"/>')
    label = html.escape(f"chunk sizes, 0 to {top} {unit}")
    return (
        f'<svg class="hist" viewBox="0 0 160 40" role="img" aria-label="{label}">'
        f"<title>{label}</title>{''.join(bars)}</svg>"
    )


def _curve(col: Column, to16: Utf16) -> tuple[str, dict[str, Any] | None]:
    """An inline SVG of a semantic chunker's distances, threshold and cuts, and what the
    script needs to jump from a point of the curve to its cut."""
    a = col.analysis
    if a is None or not a.distances:
        return "", None
    values = [float(v) for v in a.distances]
    compared = a.breakpoint_array if a.breakpoint_array not in (None, values) else None
    series = values + [float(v) for v in (compared or [])]
    t = a.threshold if a.threshold is not None and a.threshold == a.threshold else None
    lo = float(min([*series, *([t] if t is not None else [])]))
    hi = float(max([*series, *([t] if t is not None else [])]))
    span = (hi - lo) or 1.0
    n = len(values)
    w, h = 600.0, 80.0

    def x(i: int) -> float:
        return w * (i + 0.5) / n

    def y(v: float) -> float:
        return 4 + (h - 8) * (1 - (v - lo) / span)

    def line(vals: list[float], cls: str) -> str:
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(vals))
        return f'<polyline class="{cls}" points="{pts}"/>'

    parts = [line(values, "dist")]
    if compared:
        parts.append(line([float(v) for v in compared], "compared"))
    if t is not None:
        parts.append(
            f'<line class="threshold" x1="0" x2="{w:.0f}" y1="{y(t):.1f}" y2="{y(t):.1f}">'
            f"<title>threshold {t:.4f}</title></line>"
        )
    cut_at = [to16(a.units[i + 1][0]) for i in range(n)]
    reasons = {c.start: c.metadata.get("cut") for c in col.chunks}
    starts = {c.start: k for k, c in enumerate(col.chunks)}
    for b in a.breakpoints:
        if not 0 <= b < n:
            continue
        off = a.units[b + 1][0]
        k = starts.get(off)
        before = col.chunks[k - 1].metadata.get("cut") if k else None
        reason = str(before or reasons.get(off) or "cut")
        v = compared[b] if compared and b < len(compared) else values[b]
        parts.append(
            f'<circle class="peak cut-{html.escape(reason)}" cx="{x(b):.1f}" '
            f'cy="{y(float(v)):.1f}" r="3.5" data-i="{b}">'
            f"<title>cut after sentence {b} ({html.escape(reason)}), "
            f"distance {values[b]:.4f}</title></circle>"
        )
    label = html.escape(f"{a.method or 'semantic'} distances, {n} points")
    svg = (
        f'<svg class="curve" viewBox="0 0 {w:.0f} {h:.0f}" preserveAspectRatio="none" '
        f'role="img" aria-label="{label}">{"".join(parts)}</svg>'
    )
    return svg, {"cuts": cut_at, "n": n, "threshold": t}


def _column_data(col: Column, to16: Utf16, semantic: dict[str, Any] | None, source: str) -> Any:
    chunks = [[to16(c.start), to16(c.end), c.start, c.end, c.token_count] for c in col.chunks]
    meta = [dict(c.metadata) or None for c in col.chunks]
    own = {str(k): c.text for k, c in enumerate(col.chunks) if c.text != source[c.start : c.end]}
    return {
        "name": col.name,
        "budget": col.budget,
        "unit": col.unit,
        "chunks": chunks,
        "meta": meta,
        "own": own,
        "semantic": semantic,
    }


def _overlay_data(overlay: Overlay | None, to16: Utf16) -> Any:
    if overlay is None:
        return None
    return {
        "k": overlay.k,
        "retriever": overlay.retriever,
        "questions": [
            {
                "id": q.id,
                "text": q.text,
                "refs": [[to16(s), to16(e)] for s, e in q.references],
                "retrieved": q.retrieved,
                "recall": q.recall,
            }
            for q in overlay.questions
        ],
    }


class View:
    """The inspector of ``source`` cut by ``chunkers`` (see :func:`render`); shows itself in
    a notebook (``_repr_html_``, the page in a sandboxed frame) and saves itself to a file.
    Given a parsed :class:`~ragchunk.documents.Document`, :attr:`document` is it and
    :attr:`source` its text.

    >>> from ragchunk import RecursiveSplitter
    >>> v = View("One. Two.", RecursiveSplitter(chunk_size=5, length="chars"))
    >>> [c.text for c in v.columns[0].chunks]
    ['One.', 'Two.']
    >>> v.html().startswith("<!DOCTYPE html>")
    True
    """

    def __init__(
        self,
        source: str | Document,
        chunkers: object,
        *,
        title: str | None = None,
        questions: object = None,
        k: int = 5,
        retriever: Any = None,
        max_pages: int = MAX_PAGES,
        page_width: int = PAGE_WIDTH,
    ) -> None:
        self.max_pages, self.page_width = check_pages(max_pages, page_width)
        self.document = source if isinstance(source, Document) else None
        text = source.text if isinstance(source, Document) else source
        self.columns = build_columns(text, chunkers)
        if self.document is not None:
            locate_columns(self.document, self.columns)
        self.source = text
        if title is not None and not isinstance(title, str):
            raise TypeError(f"title must be a str or None, got {type(title).__name__}")
        self.title = title or "ragchunk: " + " vs ".join(c.name for c in self.columns)
        self.overlay = (
            None
            if questions is None
            else build_overlay(text, self.columns, questions, k, retriever)
        )

    def html(self) -> str:
        """The complete page."""
        to16 = Utf16(self.source)
        heads, data_cols = [], []
        for i, col in enumerate(self.columns):
            curve, semantic = _curve(col, to16)
            data_cols.append(_column_data(col, to16, semantic, self.source))
            over = col.over_budget()
            budget = (
                f"budget {col.budget} {html.escape(col.unit or 'units')}, "
                f'<span class="overcount{" some" if over else ""}">{len(over)} over</span>'
                if col.budget is not None
                else "no size budget"
            )
            heads.append(
                f'<section class="col" data-col="{i}"><header class="colhead">'
                f'<h2 class="name">{html.escape(col.name)}</h2>'
                f'<div class="stats"><span class="count">{len(col.chunks)}</span> chunks, '
                f"{budget}</div>{_histogram(col)}"
                f"{f'<div class=semantic>{curve}</div>' if curve else ''}"
                f'<div class="qstat"></div></header>'
                f'<div class="doc" tabindex="0" aria-label="chunks of {html.escape(col.name)}">'
                "</div></section>"
            )
        data = {
            "title": self.title,
            "text": self.source,
            "palette": list(PALETTE),
            "columns": data_cols,
            "overlay": _overlay_data(self.overlay, to16),
            "pages": None,
        }
        main = f'<main class="cols">{"".join(heads)}</main>'
        if self.document is not None:
            data["pages"] = pages_data(
                self.document,
                self.columns,
                to16,
                max_pages=self.max_pages,
                page_width=self.page_width,
            )
        if data["pages"] is not None:
            main = (
                '<div class="work"><aside id="pages" aria-label="pages">'
                '<header class="pageshead"><span class="pagecount"></span>'
                '<label class="boxcol">boxes of <select id="boxcol"></select></label>'
                f'</header><div class="sheets" tabindex="0"></div></aside>{main}</div>'
            )
        picker = ""
        if self.overlay is not None:
            picker = (
                '<label class="picker">question <select id="question">'
                '<option value="">none</option></select></label>'
            )
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
            f"<title>{html.escape(self.title)}</title><style>{_asset('viewer.css')}</style>"
            f'</head><body data-columns="{len(self.columns)}">'
            f'<header class="top"><h1>{html.escape(self.title)}</h1>{picker}'
            '<span class="hint">hover or click a chunk for its details</span></header>'
            f"{main}"
            '<aside id="details" aria-live="polite"><p class="empty">No chunk selected.</p>'
            "</aside>"
            "<noscript>The chunks are drawn by the page's script: enable JavaScript.</noscript>"
            f'<script type="application/json" id="ragchunk-data">{_script_json(data)}</script>'
            f"<script>{_asset('viewer.js')}</script></body></html>\n"
        )

    def _repr_html_(self) -> str:
        page = html.escape(self.html(), quote=True)
        return (
            f'<iframe srcdoc="{page}" sandbox="allow-scripts" '
            'style="width:100%;height:640px;border:1px solid #ccc"></iframe>'
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the page to ``path`` (UTF-8)."""
        with open(os.fspath(path), "w", encoding="utf-8") as fh:
            fh.write(self.html())


def render(
    source: str | Document,
    chunkers: object,
    *,
    title: str | None = None,
    questions: object = None,
    k: int = 5,
    retriever: Any = None,
    max_pages: int = MAX_PAGES,
    page_width: int = PAGE_WIDTH,
) -> str:
    """A complete, self-contained HTML page showing how ``chunkers`` cut ``source``.

    Args:
        source: the document: its text, or a :class:`ragchunk.documents.Document` (from
            :func:`ragchunk.documents.parse`), whose :attr:`~ragchunk.documents.Document.text`
            the chunkers cut; each chunk then carries its pages and boxes, and a document with
            pages (PDF) gets a pages panel: every page with its section and chunk boxes drawn
            over it, linked to the text.
        chunkers: a chunker (anything with ``split(text)``; semantic chunkers' ``analyze``
            adds the distance curve), a list of ``Chunk``, a list of up to four of either
            (shown side by side), or a mapping of column name to either.
        title: the page title (default: the chunkers' names).
        questions: an evaluation :class:`~ragchunk.eval.Dataset` (its questions about
            ``source``) or a list of :class:`~ragchunk.eval.Question` whose references slice
            ``source``: the page then shows, per question, the reference spans and each
            chunker's top ``k`` retrieved chunks.
        k: how many chunks are retrieved per question.
        retriever: what retrieves them (default :class:`~ragchunk.eval.BM25`).
        max_pages: how many pages of a paged document are embedded as images (the first
            ones); the later pages are blank sheets that still show their boxes.
        page_width: the width, in pixels, each page image is rendered at.

    Raises:
        TypeError: a chunker, chunk list or question of the wrong type (named).
        ValueError: no chunker or more than four, a chunk or reference outside ``source``,
            ``max_pages`` below 0 or ``page_width`` outside 16 to 4000.

    >>> from ragchunk import RecursiveSplitter
    >>> page = render("<script>alert(1)</script> text", RecursiveSplitter(chunk_size=4))
    >>> "<script>alert" in page, "\\\\u003cscript\\\\u003ealert" in page
    (False, True)
    """
    return View(
        source,
        chunkers,
        title=title,
        questions=questions,
        k=k,
        retriever=retriever,
        max_pages=max_pages,
        page_width=page_width,
    ).html()
