"""Fuzzing harness over ragchunk's public entry points, with invariants as the oracle.

One input is a byte string, decoded the same way by every driver (atheris, the seeded run
in the test suite, the regression replay):

* byte 0 picks the entry point (:data:`ENTRIES`), byte 1 the budget, byte 2 the options
  (length unit, overlap, a language for the code splitter), byte 3 a *shape* that may blow
  the text up (repeated, or nested thousands of levels deep, the worst cases for parsers);
* the rest is the text, decoded from UTF-8 with ``surrogateescape`` (so invalid bytes become
  lone surrogates, which the chunkers must handle or refuse cleanly).

For each input the entry point runs on both backends and :func:`check` asserts:

* no crash: the only exceptions are ``ValueError`` (a documented refusal: invalid JSON, a
  lone surrogate in parsed text, a documented depth limit), raised by both backends alike;
* offsets slice the source, chunks in order, no non-whitespace text lost, budgets held
  (:func:`invariants.check_chunks`), JSON chunks valid JSON partitioning the leaves;
* both backends return the same chunks.

Run ``python fuzz/harness.py`` (atheris, coverage-guided, corpus in ``fuzz/corpus``) or
``scripts/fuzz.sh``; ``tests/fuzz/test_fuzz.py`` replays the corpus and a seeded sample.

``python fuzz/harness.py --documents`` fuzzes the file parsers instead
(:func:`check_document`, the ``documents`` extra): byte 0 picks the format
(:data:`DOCUMENT_FORMATS`), the rest is the file. A file either parses into a document whose
views (text, Markdown, RAGFlow's sections and upstream, chunks with pages and boxes) hold
together, or is refused with a ``DocumentError`` naming the file; any other exception is a
bug. Start it from files of each format (``fuzz/harness.py --documents DIR``, a directory of
seed files whose first byte is the format's index).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))

if __name__ == "__main__":  # coverage feedback from ragchunk's Python code
    import atheris  # type: ignore[import-not-found]

    _instrumented: Any = atheris.instrument_imports(include=["ragchunk"])
else:
    _instrumented = contextlib.nullcontext()

with _instrumented:
    import ragchunk
    from invariants import check_chunks
    from ragchunk import (
        CharacterSplitter,
        CodeSplitter,
        HTMLSplitter,
        JSONSplitter,
        MarkdownSplitter,
        RecursiveSplitter,
        SentenceSplitter,
        TitleTreeChunker,
        TokenWindowSplitter,
    )
    from ragchunk.core import dispatch

CORPUS = HERE / "corpus"
LANGS = ("python", "rust", "javascript", "c", "go")
#: Opening and closing text per nested shape (byte 3, values 2..).
NESTS = (
    ("(", ")"),
    ("[", "]"),
    ("{", "}"),
    ("<div>", "</div>"),
    ("<span><div>", "</span>"),
    ("> ", ""),
    ("- ", ""),
    ('{"a": ', "}"),
    ("<b><table><tr><td>", ""),
    ("<svg><g>", "</g></svg>"),
)

Opts = dict[str, Any]


def _slice_check(budget: int, opts: Opts, one_char_overflow: bool = True) -> Callable[..., None]:
    def check(text: str, chunks: list[ragchunk.Chunk]) -> None:
        chars = opts["length"] == "chars"
        check_chunks(
            text,
            chunks,
            budget=budget if chars else None,
            count=len if chars else None,
            overflow_ok=(lambda c: c.end - c.start <= 2) if one_char_overflow else None,
        )

    return check


def _run_char(text: str, budget: int, opts: Opts) -> Any:
    s = CharacterSplitter(budget, min(opts["overlap"], budget - 1))
    chunks = s.split(text)
    check_chunks(text, chunks, budget=budget, count=len)
    return chunks


def _run_recursive(text: str, budget: int, opts: Opts) -> Any:
    s = RecursiveSplitter(chunk_size=budget, chunk_overlap=min(opts["overlap"], budget - 1))
    chunks = s.split(text)
    # LangChain semantics: a piece that cannot be split further may exceed the budget.
    check_chunks(text, chunks, lossless=True)
    return chunks


def _run_sentence(text: str, budget: int, opts: Opts) -> Any:
    s = SentenceSplitter(chunk_size=budget, length="chars")
    chunks = s.split(text)
    check_chunks(text, chunks, budget=budget, overflow_ok=lambda c: len(c.text) == 1)
    return chunks


def _run_window(text: str, budget: int, opts: Opts) -> Any:
    s = TokenWindowSplitter(chunk_size=budget, chunk_overlap=min(opts["overlap"], budget - 1))
    chunks = s.split(text)
    check_chunks(text, chunks, budget=budget, overflow_ok=lambda c: len(c.text) <= 2)
    return chunks


def _run_markdown(text: str, budget: int, opts: Opts) -> Any:
    s = MarkdownSplitter(
        chunk_size=budget, length=opts["length"], merge_sections=opts["merge_sections"]
    )
    chunks = s.split(text)
    _slice_check(budget, opts)(text, chunks)
    return chunks


def _run_html(text: str, budget: int, opts: Opts) -> Any:
    s = HTMLSplitter(
        chunk_size=budget, length=opts["length"], merge_sections=opts["merge_sections"]
    )
    chunks = s.split(text)
    _slice_check(budget, opts)(s.extract_text(text), chunks)
    return chunks


def _run_code(text: str, budget: int, opts: Opts) -> Any:
    s = CodeSplitter(opts["lang"], chunk_size=budget, length=opts["length"])
    chunks = s.split(text)
    _slice_check(budget, opts)(text, chunks)
    return chunks


def _run_json(text: str, budget: int, opts: Opts) -> Any:
    chunks = JSONSplitter(chunk_size=budget, length="chars").split(text)
    at = 0
    for c in chunks:
        json.loads(c.text)
        assert c.start == at and c.end > c.start, "JSON chunks must partition the leaves"
        at = c.end
    return chunks


def _run_title_tree(text: str, budget: int, opts: Opts) -> Any:
    return TitleTreeChunker(chunk_size=budget, length="chars").split(text)


def _run_naive_merge(text: str, budget: int, opts: Opts) -> Any:
    return ragchunk.naive_merge(text, chunk_token_num=budget, delimiter="\n。；！？")


def _run_count(text: str, budget: int, opts: Opts) -> Any:
    return ragchunk.count_tokens(text)


#: Every public chunking entry point the harness drives.
ENTRIES: tuple[tuple[str, Callable[[str, int, Opts], Any]], ...] = (
    ("CharacterSplitter", _run_char),
    ("RecursiveSplitter", _run_recursive),
    ("SentenceSplitter", _run_sentence),
    ("TokenWindowSplitter", _run_window),
    ("MarkdownSplitter", _run_markdown),
    ("HTMLSplitter", _run_html),
    ("CodeSplitter", _run_code),
    ("JSONSplitter", _run_json),
    ("TitleTreeChunker", _run_title_tree),
    ("naive_merge", _run_naive_merge),
    ("count_tokens", _run_count),
)


def decode(data: bytes) -> tuple[str, Callable[[str, int, Opts], Any], str, int, Opts]:
    """The entry point's name and function, the text, the budget and the options."""
    head = data[:4].ljust(4, b"\0")
    name, fn = ENTRIES[head[0] % len(ENTRIES)]
    budget = 1 + head[1] % 64
    opts: Opts = {
        "length": "tokens" if head[2] & 1 else "chars",
        "overlap": (head[2] >> 1) % 8,
        "lang": LANGS[(head[2] >> 4) % len(LANGS)],
        # bit 6 of the budget byte (the budget uses the low 6): one chunk per section
        "merge_sections": not head[1] & 64,
    }
    text = data[4:].decode("utf-8", "surrogateescape")
    shape = head[3]
    if shape == 1:
        text = text * (1 + min(len(data), 255))
    elif shape >= 2:
        opening, closing = NESTS[(shape - 2) % len(NESTS)]
        depth = 50 + 40 * ((shape - 2) // len(NESTS))  # up to ~1,000 levels
        text = opening * depth + text + closing * depth
    return name, fn, text, budget, opts


def _outcome(fn: Callable[[str, int, Opts], Any], text: str, budget: int, opts: Opts) -> Any:
    """``("ok", result)`` or ``("error", class name)``; anything but ValueError propagates."""
    try:
        return "ok", fn(text, budget, opts)
    except ValueError as exc:
        return "error", type(exc).__name__


#: Markup where html5lib (the fallback's parser) follows older WHATWG rules than html5ever:
#: documented divergences (``ragchunk._pure.splitters.html``); there only the invariants
#: are checked on each backend, not that the backends agree.
_HTML_DIVERGENT = ("select", "template", "frameset", "svg", "math", "&#")


def _may_diverge(name: str, text: str) -> bool:
    if name not in ("HTMLSplitter", "TitleTreeChunker"):
        return False
    low = text.lower()
    return any(tag in low for tag in _HTML_DIVERGENT)


def check(data: bytes) -> None:
    """Run one input on both backends and assert the invariants (see the module docs)."""
    name, fn, text, budget, opts = decode(data)
    before = dispatch.name()
    results = []
    try:
        for backend in ("rust", "python"):
            dispatch.set_backend(backend)
            results.append(_outcome(fn, text, budget, opts))
    finally:
        dispatch.set_backend(before)
    if _may_diverge(name, text):
        assert results[0][0] == results[1][0], f"{name}: only one backend refused the input"
    else:
        assert results[0] == results[1], f"{name}: the backends disagree"


#: The formats :func:`check_document` hands to ``ragchunk.documents.parse``, by byte 0.
DOCUMENT_FORMATS = ("pdf", "docx", "xlsx", "csv", "html", "markdown", "json", "jsonl", "text")


def check_document(data: bytes) -> None:
    """Parse one fuzzed file (byte 0 the format, the rest the file) and check what comes out."""
    from ragchunk.documents import Document, DocumentError, chunk_document, parse

    fmt = DOCUMENT_FORMATS[data[0] % len(DOCUMENT_FORMATS)] if data else "text"
    name = f"fuzzed.{fmt}"
    try:
        doc = parse(data[1:], format=fmt, filename=name, ocr=False)
    except DocumentError as exc:
        assert str(exc).startswith(name), f"the error does not name the file: {exc}"
        return
    assert isinstance(doc, Document)
    for section in doc.sections:
        assert section.text or section.kind == "figure", "an empty section"
        assert section.page is None or 1 <= section.page <= len(doc.pages)
    if fmt == "pdf":
        # The PDF layout runs in Rust or in Python: both backends read the same document.
        before = dispatch.name()
        try:
            dispatch.set_backend("python" if before == "rust" else "rust")
        except ImportError:  # no compiled core to compare with
            pass
        else:
            try:
                again = parse(data[1:], format=fmt, filename=name, ocr=False)
            finally:
                dispatch.set_backend(before)
            assert [s.to_dict() for s in again.sections] == [s.to_dict() for s in doc.sections], (
                "the backends read the PDF differently"
            )
    doc.markdown()
    doc.ragflow_sections()
    doc.pipeline_upstream()
    chunks = chunk_document(doc, RecursiveSplitter(64, length="chars"), markdown=False)
    check_chunks(doc.text, chunks, budget=64, count=len)
    for c in chunks:
        assert set(c.metadata["pages"]) <= set(range(1, len(doc.pages) + 1))


def main() -> None:
    import atheris

    args = sys.argv[:]
    documents = "--documents" in args
    if documents:
        args.remove("--documents")

    def one(data: bytes) -> None:
        (check_document if documents else check)(data)

    if not any(not a.startswith("-") for a in args[1:]):
        args.append(str(CORPUS))
    atheris.Setup(args, one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
