"""See the chunks: a self-contained HTML inspector and a terminal view.

:func:`render` writes one HTML page (inline CSS and JavaScript, nothing fetched, works from
``file://``) with the document and every chunk coloured over it, up to four chunkers side by
side scrolling together, each with its chunk count, a size histogram and the chunks over its
size budget flagged; a semantic chunker's distance curve, threshold and cuts, linked to the
text; and, given evaluation questions, their reference spans and each chunker's top-k
retrieved chunks; and, given a parsed :class:`ragchunk.documents.Document`, its pages (PDF)
with the section and chunk boxes drawn over them, linked to the text. :class:`View` is the
same page as an object that shows itself in a notebook.
:func:`print_chunks` prints the chunks in the terminal. ``ragchunk view FILE`` runs either
from the command line.

``import ragchunk`` does not import this package; the colours of :func:`print_chunks` need
``rich`` (the ``viz`` extra).

>>> from ragchunk import RecursiveSplitter
>>> from ragchunk.viz import render
>>> page = render("First part. Second part.", [RecursiveSplitter(4), RecursiveSplitter(8)])
>>> page.count('<section class="col"')
2
"""

from __future__ import annotations

from ._model import Column
from ._pages import MAX_PAGES
from .html import PALETTE, View, render
from .terminal import print_chunks

__all__ = ["MAX_PAGES", "PALETTE", "Column", "View", "print_chunks", "render"]
