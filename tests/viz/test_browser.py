"""The inspector in a real browser (headless Chromium): chunk elements hold their source
slices, chunks and gaps read as the whole document, details on click, columns scrolling
together, the semantic curve linked to the text, the evaluation overlay, hostile documents,
a 10 MB document, and a non-blank screenshot of each view."""

from __future__ import annotations

import re
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import ragchunk
from ragchunk import Chunk, MarkdownSplitter, RecursiveSplitter
from ragchunk.eval import Question, Reference
from ragchunk.semantic import SemanticChunker
from ragchunk.viz import View, render
from viewer_support import Page, assert_not_blank, screenshot

pytestmark = pytest.mark.single_backend

GUIDE = (
    "# Chunking guide\n\nPick a chunk size before anything else. 😀 Emoji count as two "
    "UTF-16 units, one code point.\n\n## Tables\n\n| size | use |\n|---|---|\n"
    + "".join(f"| {n} | a row about size {n} and its use |\n" for n in range(24))
    + "\n## Overlap\n\nOverlap repeats the end of a chunk at the start of the next one, so that "
    "a sentence cut in two still reads whole in one chunk.\n"
)

# Every chunk of a column, by index: its element's text; and the column's text read as shown
# (chunks without their hidden leads, and the gaps), in document order.
CHUNK_TEXTS = """(ci) => {
  const doc = document.querySelector(`.doc[data-col="${ci}"]`);
  const out = {};
  doc.querySelectorAll(".chunk").forEach((n) => { out[n.dataset.k] = n.textContent; });
  return out;
}"""
READING = """(ci) => {
  const doc = document.querySelector(`.doc[data-col="${ci}"]`);
  let s = "";
  doc.querySelectorAll(".block > .chunk, .block > .gap").forEach((n) => {
    const lead = n.querySelector(":scope > .lead");
    s += n.textContent.slice(lead ? lead.textContent.length : 0);
  });
  return s;
}"""


def write(tmp_path: Path, page_html: str, name: str = "view.html") -> Path:
    path = tmp_path / name
    path.write_text(page_html, encoding="utf-8")
    return path


def two_columns() -> list[Any]:
    return [MarkdownSplitter(48), RecursiveSplitter(40, chunk_overlap=20)]


def test_every_chunk_element_is_its_source_slice_and_the_columns_read_as_the_document(
    page: Page, tmp_path: Path
) -> None:
    chunkers = two_columns()
    page.open(write(tmp_path, render(GUIDE, chunkers)))
    for ci, chunker in enumerate(chunkers):
        chunks = chunker.split(GUIDE)
        shown = page.js(CHUNK_TEXTS, ci)
        assert sorted(map(int, shown)) == list(range(len(chunks)))
        for k, c in enumerate(chunks):
            assert shown[str(k)] == GUIDE[c.start : c.end], (ci, k)
        assert page.js(READING, ci) == GUIDE
    # the test is about something: a chunk whose own text is not its slice (a repeated table
    # header), overlapping chunks, and gaps between chunks
    md = chunkers[0].split(GUIDE)
    assert any(c.text != GUIDE[c.start : c.end] for c in md)
    rec = chunkers[1].split(GUIDE)
    assert any(b.start < a.end for a, b in pairwise(rec))
    assert page.js("document.querySelectorAll('.gap').length") > 0
    # shared text is drawn once, striped; the later chunk's copy is not displayed
    assert page.js("document.querySelectorAll('.seg.shared').length") > 0
    leads = page.js(
        "[...document.querySelectorAll('.lead')].map((n) => getComputedStyle(n).display)"
    )
    assert leads and set(leads) == {"none"}
    # neighbours never share a colour
    colours = page.js(
        """[...document.querySelectorAll('.doc[data-col="1"] .chunk')]
             .map((n) => n.style.getPropertyValue('--c'))"""
    )
    assert all(a != b for a, b in pairwise(colours))
    assert page.errors == [] and page.dialogs == []
    assert_not_blank(screenshot(page, "side-by-side", docs=True))


def test_clicking_a_chunk_shows_its_details(page: Page, tmp_path: Path) -> None:
    chunks = MarkdownSplitter(48).split(GUIDE)
    k = next(i for i, c in enumerate(chunks) if "added_prefix" in c.metadata)
    c = chunks[k]
    page.open(write(tmp_path, render(GUIDE, MarkdownSplitter(48))))
    page.page.click(f'.doc[data-col="0"] .chunk[data-k="{k}"]')
    details = page.page.inner_text("#details")
    assert f"chunk {k} of {len(chunks)}" in details
    assert f"{c.start}–{c.end} ({c.end - c.start} characters)" in details
    assert f"{c.token_count} cl100k_base (budget 48)" in details
    assert "Chunking guide › Tables" in details
    assert page.page.inner_text("#details pre.own") == c.text
    assert page.js("document.querySelectorAll('.chunk.selected').length") == 1
    assert_not_blank(screenshot(page, "details", docs=True))


def test_chunks_over_the_budget_are_flagged(page: Page, tmp_path: Path) -> None:
    chunks = [Chunk(GUIDE[0:20], 0, 20, 5), Chunk(GUIDE[20:90], 20, 90, 30)]
    page.open(write(tmp_path, render(GUIDE, RecursiveSplitter(8))))
    over = RecursiveSplitter(8).split(GUIDE)
    flagged = page.js("[...document.querySelectorAll('.chunk.over')].map((n) => +n.dataset.k)")
    assert flagged == [k for k, c in enumerate(over) if c.token_count > 8]
    # a Chunk list has no budget: nothing is flagged
    page.open(write(tmp_path, render(GUIDE, {"mine": chunks}), "list.html"))
    assert page.js("document.querySelectorAll('.chunk.over').length") == 0
    assert page.page.inner_text(".colhead h2") == "mine"


def test_the_columns_scroll_together(page: Page, tmp_path: Path) -> None:
    text = GUIDE * 12
    page.open(write(tmp_path, render(text, two_columns())))
    docs = page.page.locator(".doc")
    height = page.js("document.querySelector('.doc').scrollHeight")
    for lead, follow in ((0, 1), (1, 0)):
        docs.nth(lead).evaluate("(d, h) => { d.scrollTop = h * 0.55; }", height)
        page.page.wait_for_timeout(300)
        offsets = [page.js(f"window.ragchunkView.topOffset({i})") for i in (lead, follow)]
        assert offsets[0] > len(text) * 0.3
        assert abs(offsets[0] - offsets[1]) < 200, offsets
        page.js(f"document.querySelectorAll('.doc')[{lead}].scrollTop = 0")
        page.page.wait_for_timeout(300)
        assert page.js(f"window.ragchunkView.topOffset({follow})") < 200


def topics(texts: list[str]) -> Any:
    """Sentences about cats, stocks or rain, as a three-axis embedding."""
    return np.array([[t.lower().count(w) + 0.05 for w in ("cat", "stock", "rain")] for t in texts])


SEMANTIC_TEXT = (
    "A cat sat on the mat. The cat purred. Every cat sleeps a lot. "
    "Stock prices fell today. The stock market closed lower. Stock traders sold. "
    "Rain fell all night. The rain flooded roads. More rain is due."
)


def test_the_semantic_curve_jumps_to_its_cuts(page: Page, tmp_path: Path) -> None:
    chunker = SemanticChunker(topics, breakpoint_threshold_amount=70, buffer_size=0)
    analysis = chunker.analyze(SEMANTIC_TEXT)
    assert len(analysis.breakpoints) == 2
    page.open(write(tmp_path, render(SEMANTIC_TEXT, [chunker, RecursiveSplitter(16)])))
    peaks = page.page.locator("svg.curve circle.peak")
    assert peaks.count() == 2
    assert page.page.locator("svg.curve .threshold").count() == 1
    peaks.nth(1).click()
    cut = analysis.units[analysis.breakpoints[1] + 1][0]
    k = next(i for i, c in enumerate(analysis.chunks) if c.start == cut)
    details = page.page.inner_text("#details")
    assert f"chunk {k} of 3" in details and "semantic cut" in details
    assert page.js("document.querySelector('.chunk.selected').dataset.k") == str(k)
    visible = page.js(
        """(() => { const d = document.querySelector('.doc'), n = d.querySelector('.selected');
            const a = d.getBoundingClientRect(), b = n.getBoundingClientRect();
            return b.top >= a.top - 1 && b.top < a.bottom; })()"""
    )
    assert visible
    assert_not_blank(screenshot(page, "semantic", docs=True))


OVERLAY_TEXT = (
    "The capital of Italy is a question many visitors ask about the capital of Italy. "
    "Tourists also ask about food and trains.\n\n"
    "Rome is the answer: the city on the Tiber river has been the seat of government "
    "since 1871.\n\nParis is in France and Berlin is in Germany."
)


def test_the_overlay_shows_references_and_retrieved_chunks(page: Page, tmp_path: Path) -> None:
    start = OVERLAY_TEXT.index("Rome is")
    end = OVERLAY_TEXT.index("1871.") + 5
    q = Question(
        "What is the capital of Italy?", "doc", (Reference(start, end, OVERLAY_TEXT[start:end]),)
    )
    small, whole = RecursiveSplitter(20), RecursiveSplitter(400)
    view = View(OVERLAY_TEXT, [small, whole], questions=[q], k=1)
    assert view.overlay is not None
    assert view.overlay.questions[0].recall[0] == 0.0  # the small chunks miss it
    assert view.overlay.questions[0].recall[1] == 1.0
    page.open(write(tmp_path, view.html()))
    assert page.js("document.querySelectorAll('.seg.ref').length") == 0
    page.page.select_option("#question", "0")
    for ci, found in ((0, False), (1, True)):
        col = f'.doc[data-col="{ci}"]'
        hits = page.js(
            f"[...document.querySelectorAll('{col} .chunk.hit')].map((n) => n.dataset.rank)"
        )
        assert hits == ["1"]
        refs = page.js(
            f"[...document.querySelectorAll('{col} .seg.ref')].map((n) => n.textContent).join('')"
        )
        assert refs == OVERLAY_TEXT[start:end]
        misses = page.js(f"document.querySelectorAll('{col} .seg.ref.miss').length")
        assert (misses == 0) == found
        stat = page.page.locator(".qstat").nth(ci)
        assert ("found" if found else "missed") in (stat.get_attribute("class") or "")
    assert page.js(READING, 0) == OVERLAY_TEXT
    assert_not_blank(screenshot(page, "overlay", docs=True))


HOSTILE = (
    "<script>window.__pwned = 1; alert(1)</script>\n"
    '<img src=x onerror="window.__pwned = 2; alert(2)">\n'
    "</script><script>alert(3)</script>\n"
    '"><svg onload=alert(4)>\u2028\u2029 <!-- comment --> &amp; &lt;b&gt;\n'
    "<style>body{display:none}</style><iframe src=javascript:alert(5)></iframe>\n"
)


def test_a_hostile_document_runs_nothing(page: Page, tmp_path: Path) -> None:
    chunks = [
        Chunk(HOSTILE[:60], 0, 60, 9, {"headers": ["<img src=x onerror=alert(6)>"]}),
        Chunk(HOSTILE[60:], 60, len(HOSTILE), 40, {"<b>key</b>": "</script><script>alert(7)"}),
    ]
    html = render(
        HOSTILE,
        {"<script>alert(8)</script>": chunks, "recursive": RecursiveSplitter(16)},
        title="</title><script>alert(9)</script>",
    )
    page.open(write(tmp_path, html))
    page.page.click('.doc[data-col="0"] .chunk[data-k="1"]')
    page.page.click('.doc[data-col="0"] .chunk[data-k="0"]')
    assert page.dialogs == []
    assert page.errors == []
    assert page.js("window.__pwned") is None
    assert (
        page.js("document.querySelectorAll('.doc img, .doc script, .doc svg, .doc iframe').length")
        == 0
    )
    assert page.js(READING, 0) == HOSTILE
    assert page.js(READING, 1) == HOSTILE
    assert "<img src=x onerror=alert(6)>" in page.page.inner_text("#details")
    assert page.page.title() == "</title><script>alert(9)</script>"
    assert_not_blank(screenshot(page, "hostile"))


def big_document(size: int = 10_000_000) -> str:
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    paras, n, i = [], 0, 0
    while n < size:
        body = " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(20 + i % 100)) + "."
        para = f"## Part {i}\n\n{body}" if i % 20 == 0 else body
        paras.append(para)
        n += len(para) + 2
        i += 1
    return "\n\n".join(paras)


#: The most a 10 MB document may take to render (in Python) and to load (in the browser):
#: measured 0.5 s and 0.5 s on a 2-core machine, with room for a busy one.
BIG_RENDER_SECONDS = 10.0
BIG_LOAD_SECONDS = 10.0


def test_a_10_mb_document_stays_responsive(page: Page, tmp_path: Path) -> None:
    text = big_document()
    assert len(text) >= 10_000_000
    chunker = RecursiveSplitter(512)
    t0 = time.perf_counter()
    html = render(text, chunker)
    rendered = time.perf_counter() - t0
    assert rendered < BIG_RENDER_SECONDS
    path = write(tmp_path, html)
    t0 = time.perf_counter()
    page.open(path, timeout=BIG_LOAD_SECONDS * 1000)
    loaded = time.perf_counter() - t0
    assert loaded < BIG_LOAD_SECONDS, loaded
    chunks = chunker.split(text)
    # a few hundred elements, not one per chunk, let alone per character
    assert page.js("document.getElementsByTagName('*').length") < 5000
    # jump to the last chunk: its window renders, with its exact text, quickly
    t0 = time.perf_counter()
    last = chunks[-1]
    page.js(f"window.ragchunkView.jump(0, {last.start})")
    assert time.perf_counter() - t0 < 2.0
    shown = page.js(f"document.querySelector('.chunk[data-k=\"{len(chunks) - 1}\"]').textContent")
    assert shown == text[last.start : last.end]
    # scrolling renders the windows it reaches
    page.js("document.querySelector('.doc').scrollTop = 0")
    page.page.wait_for_timeout(200)
    assert page.js("document.querySelector('.chunk[data-k=\"0\"]').textContent") == chunks[0].text
    assert page.errors == []


def test_the_terminal_view_matches_the_page(page: Page, tmp_path: Path) -> None:
    import io

    from ragchunk.viz._model import build_columns
    from ragchunk.viz.terminal import _styled
    from rich.console import Console

    col = build_columns(GUIDE, RecursiveSplitter(40, chunk_overlap=20))[0]
    console = Console(file=io.StringIO(), record=True, width=100, force_terminal=True)
    console.print(_styled(GUIDE, col), soft_wrap=True)
    path = write(tmp_path, console.export_html(inline_styles=True), "terminal.html")
    page.page.goto(path.as_uri())
    body = page.page.inner_text("pre")
    assert re.sub(r"\d+▸", "", body).rstrip("\n") == GUIDE.rstrip("\n")
    assert_not_blank(screenshot(page, "terminal", docs=True))


def test_the_notebook_frame_runs_the_page(page: Page, tmp_path: Path) -> None:
    frame_html = View(GUIDE, two_columns())._repr_html_()
    page.page.set_content(f"<!DOCTYPE html><body>{frame_html}</body>")
    frame = page.page.frame_locator("iframe")
    frame.locator("body[data-ready='1']").wait_for(state="attached")
    assert frame.locator(".doc").count() == 2
    assert ragchunk.backend in ("rust", "python")
