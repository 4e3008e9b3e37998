"""The LangChain drop-ins against the LangChain classes they replace: pytest-benchmark suite,
and a side-by-side comparison.

    .venv/bin/python -m pytest benches/bench_langchain.py --benchmark-only   # timings
    .venv/bin/python benches/bench_langchain.py [--limit-mb 4] [--rounds 3] [--case NAME]

Each case builds LangChain's class and ``ragchunk.integrations.langchain``'s of the same name
with the same arguments, asserts that they give the same output on every document
(``../shared/corpus``), then times both in interleaved rounds after one untimed warm-up round
(lazy vocabularies, tiktoken's cache) and prints MB/s medians and LangChain's time as a
multiple of the drop-in's (higher = the drop-in faster).
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import load_corpus, offline_tiktoken

offline_tiktoken()
# LangChain's CharacterTextSplitter logs a warning for every oversized chunk.
logging.getLogger("langchain_text_splitters").setLevel(logging.ERROR)


def words(text: str) -> int:
    """A custom length function: the drop-in calls it from Rust."""
    return len(text.split())


#: (case, class name, how it is built, arguments, what is timed)
CASES: list[tuple[str, str, str, dict[str, Any], str]] = [
    (
        "RecursiveCharacterTextSplitter, len, 1000/200",
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 1000, "chunk_overlap": 200},
        "split_text",
    ),
    (
        "RecursiveCharacterTextSplitter.from_tiktoken_encoder, cl100k_base, 512/50",
        "RecursiveCharacterTextSplitter",
        "tiktoken",
        {"encoding_name": "cl100k_base", "chunk_size": 512, "chunk_overlap": 50},
        "split_text",
    ),
    (
        "RecursiveCharacterTextSplitter.from_language(MARKDOWN), len, 1000/100",
        "RecursiveCharacterTextSplitter",
        "markdown",
        {"chunk_size": 1000, "chunk_overlap": 100},
        "split_text",
    ),
    (
        "RecursiveCharacterTextSplitter, custom length_function (words), 200/20",
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 200, "chunk_overlap": 20, "length_function": words},
        "split_text",
    ),
    (
        "CharacterTextSplitter, len, 1000/200",
        "CharacterTextSplitter",
        "init",
        {"chunk_size": 1000, "chunk_overlap": 200},
        "split_text",
    ),
    (
        'CharacterTextSplitter.from_tiktoken_encoder, separator="\\n", cl100k_base, 256/32',
        "CharacterTextSplitter",
        "tiktoken",
        {"encoding_name": "cl100k_base", "separator": "\n", "chunk_size": 256, "chunk_overlap": 32},
        "split_text",
    ),
    (
        "TokenTextSplitter, cl100k_base, 512/50",
        "TokenTextSplitter",
        "init",
        {"encoding_name": "cl100k_base", "chunk_size": 512, "chunk_overlap": 50},
        "split_text",
    ),
    (
        "split_documents, from_tiktoken_encoder, cl100k_base, 512/50, add_start_index",
        "RecursiveCharacterTextSplitter",
        "tiktoken",
        {
            "encoding_name": "cl100k_base",
            "chunk_size": 512,
            "chunk_overlap": 50,
            "add_start_index": True,
        },
        "split_documents",
    ),
    (
        "MarkdownHeaderTextSplitter, #/##/###",
        "MarkdownHeaderTextSplitter",
        "init",
        {"headers_to_split_on": [("#", "H1"), ("##", "H2"), ("###", "H3")]},
        "documents",
    ),
    (
        "MarkdownHeaderTextSplitter, #/##, strip_headers=False, custom **",
        "MarkdownHeaderTextSplitter",
        "init",
        {
            "headers_to_split_on": [("#", "H1"), ("##", "H2"), ("**", "B")],
            "strip_headers": False,
            "custom_header_patterns": {"**": 3},
        },
        "documents",
    ),
    (
        "HTMLHeaderTextSplitter, h1/h2/h3 (the corpus rendered by Python-Markdown)",
        "HTMLHeaderTextSplitter",
        "init",
        {"headers_to_split_on": [("h1", "H1"), ("h2", "H2"), ("h3", "H3")]},
        "html",
    ),
    (
        "HTMLSectionSplitter, h1/h2/h3 (the corpus rendered by Python-Markdown)",
        "HTMLSectionSplitter",
        "init",
        {"headers_to_split_on": [("h1", "H1"), ("h2", "H2"), ("h3", "H3")]},
        "html",
    ),
    (
        "RecursiveJsonSplitter, 300, convert_lists (one JSON object per document)",
        "RecursiveJsonSplitter",
        "init",
        {"max_chunk_size": 300},
        "json",
    ),
]


def build(module: Any, name: str, how: str, kwargs: dict[str, Any]) -> Any:
    cls = getattr(module, name)
    if how == "tiktoken":
        return cls.from_tiktoken_encoder(**kwargs)
    if how == "markdown":
        return cls.from_language(module.Language.MARKDOWN, **kwargs)
    return cls(**kwargs)


Run = Callable[[], Any]


def as_html(docs: list[str]) -> list[str]:
    """The documents rendered to HTML by Python-Markdown (rendered once per list)."""
    key = id(docs)
    if key not in _HTML:
        import markdown

        _HTML[key] = [markdown.markdown(d, extensions=["tables", "fenced_code"]) for d in docs]
    return _HTML[key]


_HTML: dict[int, list[str]] = {}


def as_json(docs: list[str]) -> list[dict[str, Any]]:
    """One JSON object per document: its title and its paragraphs, each with its lines."""
    return [
        {
            "title": d.split("\n", 1)[0],
            "paragraphs": [{"lines": p.split("\n"), "size": len(p)} for p in d.split("\n\n")],
        }
        for d in docs
    ]


def runner(splitter: Any, what: str, docs: list[str]) -> Run:
    """A call over every document, returning what can be compared across the two sides."""
    if what == "split_text":
        return lambda: [splitter.split_text(d) for d in docs]
    if what in ("documents", "html"):
        texts = as_html(docs) if what == "html" else docs
        return lambda: [
            [(x.page_content, x.metadata) for x in splitter.split_text(t)] for t in texts
        ]
    if what == "json":
        objects = as_json(docs)
        return lambda: [splitter.split_text(o, convert_lists=True) for o in objects]
    from langchain_core.documents import Document

    sources = [Document(page_content=d, metadata={"i": i}) for i, d in enumerate(docs)]
    return lambda: [(x.page_content, x.metadata) for x in splitter.split_documents(sources)]


def pair(case: tuple[str, str, str, dict[str, Any], str], docs: list[str]) -> tuple[Run, Run]:
    """(LangChain's run, the drop-in's run) of ``case`` over ``docs``."""
    import langchain_text_splitters as lc
    from ragchunk.integrations import langchain as dropins

    _, name, how, kwargs, what = case
    return (
        runner(build(lc, name, how, kwargs), what, docs),
        runner(build(dropins, name, how, kwargs), what, docs),
    )


@pytest.fixture(scope="module")
def sample() -> list[str]:
    pytest.importorskip("langchain_text_splitters")
    _, docs = load_corpus(limit_bytes=400_000)
    return docs


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bench_dropin(benchmark: Any, sample: list[str], case: Any) -> None:
    theirs, ours = pair(case, sample)
    got = benchmark(ours)
    assert got == theirs()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit-mb", type=float, default=None, help="default: the whole corpus")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--case", default="", help="only the cases whose name contains this")
    args = ap.parse_args()
    limit = None if args.limit_mb is None else int(args.limit_mb * 1e6)
    label, docs = load_corpus(limit_bytes=limit)
    mb = sum(len(d.encode()) for d in docs) / 1e6
    print(f"corpus: {label}; {mb:.1f} MB; {args.rounds} interleaved rounds, median")
    print("| case | LangChain MB/s | drop-in MB/s | LangChain time / drop-in's | output |")
    print("|---|---:|---:|---:|---:|")
    for case in CASES:
        if args.case not in case[0]:
            continue
        theirs, ours = pair(case, docs)
        want = theirs()  # warm-up round, untimed, and the outputs compared
        assert ours() == want, case[0]
        times: dict[str, list[float]] = {"langchain": [], "dropin": []}
        for _ in range(args.rounds):
            for side, run in (("langchain", theirs), ("dropin", ours)):
                t0 = time.perf_counter()
                run()
                times[side].append(time.perf_counter() - t0)
        t_lc, t_ours = statistics.median(times["langchain"]), statistics.median(times["dropin"])
        n = len(want) if case[4] == "split_documents" else sum(map(len, want))
        unit = "documents" if case[4] == "split_documents" else "chunks"
        print(
            f"| {case[0]} | {mb / t_lc:.1f} | {mb / t_ours:.1f} | {t_lc / t_ours:.1f}x | "
            f"{n} {unit} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
