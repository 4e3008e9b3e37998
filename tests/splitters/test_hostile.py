"""Hostile but valid input: deep nesting, absurd arguments, repeated and concurrent use.

Deep structures finish promptly with chunks (code, HTML, Markdown) or a ValueError naming
the argument and the limit (JSON); no RecursionError, OverflowError or panic escapes; RSS
stays flat over many calls; one chunker shared by threads gives the sequential results.
Scaling figures are benchmarks (``benches/bench_hostile.py``), never timed here.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
import ragchunk
from invariants import check_chunks
from ragchunk import (
    CharacterSplitter,
    CodeSplitter,
    HTMLSplitter,
    JSONSplitter,
    MarkdownSplitter,
    RagchunkError,
    RecursiveSplitter,
    SentenceSplitter,
    TitleTreeChunker,
    TokenWindowSplitter,
)
from ragchunk._pure.splitters import code as pure_code
from ragchunk._pure.splitters import html as pure_html
from ragchunk.core import dispatch
from ragchunk.splitters import json as json_splitter

one_char = {"overflow_ok": lambda c: c.end - c.start == 1}


def both(fn: Callable[[], Any]) -> tuple[Any, Any]:
    """``fn()`` on the Rust backend, then on the fallback."""
    before = dispatch.name()
    try:
        dispatch.set_backend("rust")
        rust = fn()
        dispatch.set_backend("python")
        return rust, fn()
    finally:
        dispatch.set_backend(before)


# --- code -----------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [200, 5000])
def test_code_deep_parens_cut_as_text(depth: int) -> None:
    src = "x = " + "(" * depth + "1" + ")" * depth + "\n"
    chunks = CodeSplitter("python", chunk_size=64, length="chars").split(src)
    check_chunks(src, chunks, budget=64, count=len, **one_char)
    assert len(chunks) <= len(src) // 32 + 2  # packed, not one atom per nested node


@pytest.mark.single_backend
def test_code_depth_limit_same_on_both_backends() -> None:
    assert pure_code.MAX_DEPTH == 64
    # Nesting just around the limit, with a definition inside: both walks stop at the same node.
    for depth in (30, 63, 64, 65, 300):
        src = "def f():\n    return " + "[" * depth + "g(1, 2)" + "]" * depth + "\n"
        rust, pure = both(lambda s=src: CodeSplitter("py", chunk_size=20, length="chars").split(s))
        assert rust == pure, depth
    js = "f(" * 400 + "() => { return 1; }" + ")" * 400
    rust, pure = both(lambda: CodeSplitter("javascript", chunk_size=50).split(js))
    assert rust == pure


# --- HTML -----------------------------------------------------------------------------


def test_html_deep_divs_laid_out_as_text() -> None:
    depth = 20_000
    html = "<div>" * depth + "deep <b>text</b>" + "</div>" * depth + "<p>after</p>"
    s = HTMLSplitter(chunk_size=256)
    chunks = s.split(html)
    assert [c.text for c in chunks] == ["deep text\n\nafter"]
    assert s.extract_text(html) == "deep text\n\nafter"


def test_html_deep_structure_keeps_text_and_blocks_below_the_limit() -> None:
    inner = "".join(f"<div>{i}" for i in range(700)) + "</div>" * 700
    text = HTMLSplitter(chunk_size=10_000, length="chars").extract_text(inner)
    # Blocks up to the limit stay blocks; deeper ones are the text of the deepest block.
    parts = text.split("\n\n")
    assert parts[: pure_html.MAX_DEPTH - 1] == [str(i) for i in range(pure_html.MAX_DEPTH - 1)]
    assert parts[-1].split() == [str(i) for i in range(pure_html.MAX_DEPTH - 1, 700)]


@pytest.mark.single_backend
def test_bound_depth() -> None:
    bound = pure_html.bound_depth
    ordinary = "<ul>" + "<li><p>a<b>b</b>" * 2000 + "</ul><script>" + "<div>" * 900 + "</script>"
    assert bound(ordinary) is ordinary
    deep = "<section>" * 600 + "x" + "</section>" * 600
    out = bound(deep)
    assert out == "<section>" * 512 + " " * 88 + "x" + " " * 88 + "</section>" * 512
    assert bound(out) == out  # idempotent
    # Stray end tags do not hide depth: the span end tag does not close the div.
    tricky = "<span><div></span>" * 400
    assert bound(tricky).count("<div>") + bound(tricky).count("<span>") == 512
    assert bound(bound(tricky)) == bound(tricky)
    # Self-closing foreign elements nest nothing.
    svg = "<svg>" + "<path d='M0 0'/>" * 2000 + "</svg>"
    assert bound(svg) is svg


@pytest.mark.parametrize(
    "prefix",
    [
        "<!-->",  # an abrupt empty comment
        "<!--->",
        "<!-- x --!>",  # ended by --!>
        "<![CDATA[ x ]]>",  # a bogus comment in HTML content, ended by its first '>'
        "<svg><style>",  # no raw text in SVG or MathML: what follows is markup
        "<math><title>",
        "<script><!--</script>",  # a comment opener inside raw text ends with the raw text
        "<?php x ?>",
        "<!DOCTYPE html>",
    ],
)
def test_markup_before_deep_nesting_does_not_hide_it(prefix: str) -> None:
    # The nesting bound keeps the parse linear only if nothing hides the tags after it.
    html = prefix + "<div>" * 3000 + "x" + "</div>" * 3000
    out = pure_html.bound_depth(html)
    assert out.count("<div>") <= 512
    assert "x" in HTMLSplitter(64).extract_text(html)


# --- Markdown -------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["> ", "- ", "  * ", "1. "])
def test_markdown_deep_nesting(shape: str) -> None:
    text = "".join(shape * d + f"item {d}\n" for d in range(0, 3000, 7)) + shape * 5000 + "x\n"
    chunks = MarkdownSplitter(chunk_size=200, length="chars").split(text)
    check_chunks(text, chunks, budget=200, count=len, **one_char)


# --- JSON -----------------------------------------------------------------------------


def test_json_deep_brackets_value_error() -> None:
    s = JSONSplitter(max_chunk_size=256)
    with pytest.raises(ValueError, match=r"^text: .*nested more than 256 levels.*MAX_DEPTH"):
        s.split("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match=r"^text: .*nested more than 256"):
        s.split("[" * 257 + "]" * 257)
    assert len(s.split("[" * 256 + "1" + "]" * 256)) == 1
    deep: Any = 1
    for _ in range(300):
        deep = {"k": deep}
    with pytest.raises(ValueError, match=r"^data: .*nested more than 256"):
        s.split_json(deep)
    assert json_splitter.MAX_DEPTH == 256


def test_json_deep_but_allowed_is_cut() -> None:
    data: Any = list(range(50))
    for i in range(250):
        data = {f"k{i}": data, "v": i}
    chunks = JSONSplitter(chunk_size=400, length="chars").split(json.dumps(data))
    assert chunks and all(json.loads(c.text) for c in chunks)
    assert chunks[-1].end == sum(c.end - c.start for c in chunks)


def test_json_huge_integer() -> None:
    with pytest.raises(ValueError, match=r"^text: .*digits"):
        JSONSplitter().split("1" * 5000)
    with pytest.raises(ValueError, match=r"^data\['a'\]: .*digits"):
        JSONSplitter().split_json({"a": 10**5000})


# --- arguments ------------------------------------------------------------------------

SPLITTERS: list[Callable[[], Any]] = [
    lambda: CharacterSplitter(10),
    lambda: RecursiveSplitter(chunk_size=10),
    lambda: SentenceSplitter(chunk_size=10),
    lambda: TokenWindowSplitter(chunk_size=10),
    lambda: MarkdownSplitter(chunk_size=10),
    lambda: HTMLSplitter(chunk_size=10),
    lambda: CodeSplitter("python", chunk_size=10),
    lambda: JSONSplitter(chunk_size=10),
    lambda: TitleTreeChunker(chunk_size=10),
]


@pytest.mark.parametrize("make", SPLITTERS)
@pytest.mark.parametrize("workers", [-1, 0, 1025, 2**64, 10**30])
def test_workers_out_of_range(make: Callable[[], Any], workers: int) -> None:
    with pytest.raises(ValueError, match="workers must be >= 1 and <= 1024"):
        make().split_batch(["[1]"], workers=workers)


@pytest.mark.parametrize("workers", [-1, 2**64])
def test_workers_out_of_range_in_batch_helpers(workers: int) -> None:
    with pytest.raises(ValueError, match="workers"):
        ragchunk.count_tokens_batch(["a"], workers=workers)
    with pytest.raises(ValueError, match="workers"):
        ragchunk.naive_merge_batch([["a"]], workers=workers)


@pytest.mark.single_backend
@pytest.mark.parametrize("make", SPLITTERS)
@pytest.mark.parametrize("size", [2**63, 2**64, 10**30])
def test_huge_chunk_size_same_outcome_on_both_backends(make: Callable[[], Any], size: int) -> None:
    splitter = type(make())
    args = ("python",) if splitter is CodeSplitter else ()
    text = "[1, 2]" if splitter is JSONSplitter else "one. two. three."

    def outcome() -> Any:
        try:
            return [c.text for c in splitter(*args, chunk_size=size).split(text)]
        except ValueError as exc:
            assert "chunk_size" in str(exc)
            return "ValueError"

    rust, pure = both(outcome)
    assert rust == pure


def test_internal_limits_become_ragchunk_error() -> None:
    def recurse() -> None:
        recurse()

    with pytest.raises(RagchunkError, match="internal limit reached: RecursionError"):
        dispatch.run(None, recurse)

    def overflow(_core: Any) -> None:
        raise OverflowError("int too big to convert")

    with pytest.raises(RagchunkError, match="OverflowError"):
        dispatch.run(overflow, lambda: overflow(None))


# --- resources ------------------------------------------------------------------------

DOCS: dict[str, tuple[Callable[[], Any], str]] = {
    "character": (lambda: CharacterSplitter(40, 5), "Some text here. " * 20),
    "recursive": (lambda: RecursiveSplitter(chunk_size=20), "para one\n\npara two. more " * 10),
    "sentence": (lambda: SentenceSplitter(chunk_size=20), "One. Two! Three? 四。" * 10),
    "window": (lambda: TokenWindowSplitter(chunk_size=16, chunk_overlap=4), "tok " * 100),
    "markdown": (lambda: MarkdownSplitter(chunk_size=30), "# T\n\ntext\n\n- a\n- b\n" * 5),
    "html": (lambda: HTMLSplitter(chunk_size=30), "<h1>T</h1><p>text <b>b</b></p>" * 5),
    "code": (lambda: CodeSplitter("python", chunk_size=30), "def f(x):\n    return x\n" * 5),
    "json": (lambda: JSONSplitter(chunk_size=30), json.dumps({"a": list(range(30))})),
    "title_tree": (lambda: TitleTreeChunker(chunk_size=30), "# A\n\ntext\n\n## B\n\nmore\n" * 3),
}


def _rss_kib() -> int:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * 4


@pytest.mark.parametrize("kind", sorted(DOCS))
def test_rss_flat_over_repeated_calls(kind: str, backend: str) -> None:
    make, doc = DOCS[kind]
    splitter = make()
    # The fallback is slower per call; 10,000 calls on the Rust core, 2,000 on the fallback.
    calls = 10_000 if backend == "rust" else 2_000
    expected = splitter.split(doc)
    for _ in range(calls // 10):  # warm-up: memos, allocator arenas, tokenizer caches
        splitter.split(doc)
    before = _rss_kib()
    for _ in range(calls):
        splitter.split(doc)
    grown = _rss_kib() - before
    assert splitter.split(doc) == expected
    assert grown < 4096, f"RSS grew by {grown} KiB over {calls} calls"


@pytest.mark.parametrize("kind", sorted(DOCS))
def test_shared_chunker_from_eight_threads(kind: str) -> None:
    make, doc = DOCS[kind]
    splitter = make()
    if kind == "json":
        docs = [json.dumps({"a": list(range(n)), "b": "x" * n}) for n in range(5, 45, 5)]
    else:
        docs = [doc[: len(doc) - i] for i in range(0, 40, 5)]
    expected = [splitter.split(d) for d in docs]
    results: list[list[Any]] = [[] for _ in range(8)]
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(k: int) -> None:
        try:
            start.wait()
            for _ in range(5):
                results[k].append([splitter.split(d) for d in docs])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for per_thread in results:
        assert per_thread == [expected] * 5
