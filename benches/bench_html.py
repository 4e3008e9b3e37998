"""HTMLSplitter vs LangChain's HTML splitters, on ``../shared/corpus`` rendered to HTML.

The corpus is Markdown; every n-th document is rendered with markdown-it-py (CommonMark +
tables, raw HTML passed through) before timing, so rendering is not timed. Run from the
repository root with a release build (``pip install beautifulsoup4 lxml`` for LangChain)::

    .venv/bin/python benches/bench_html.py [--every 8] [--size 512]

ragchunk's results are checked, not just timed: within budget (exact cl100k count), chunk
text equals the laid-out text at its offsets (plus the documented repeated table header), no
non-whitespace character lost, ``split_batch`` equal to ``split``, and both backends agree on
a subset. LangChain's ``HTMLHeaderTextSplitter`` has no size budget, so it is also timed
followed by a tiktoken ``RecursiveCharacterTextSplitter`` at the same budget (like the
Markdown comparison); ``HTMLSemanticPreservingSplitter`` budgets in characters
(``4 * size``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import CORPUS, best_time, offline_tiktoken, print_table, ragchunk_rows

offline_tiktoken()

from ragchunk import HTMLSplitter  # noqa: E402

_WS = re.compile("[ \t\n\r\x0b\x0c\xa0\u3000]+")


def _docs(every: int) -> list[str]:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    paths = sorted(CORPUS.rglob("*.md"))
    return [md.render(p.read_text(encoding="utf-8")) for p in paths[::every]]


def _check(splitter: HTMLSplitter, docs: list[str], results: list[list[Any]]) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    for html, chunks in zip(docs, results, strict=True):
        text = splitter.extract_text(html)
        for c in chunks:
            added = c.metadata.get("added_prefix", "")
            assert c.text == added + text[c.start : c.end]
            assert c.token_count == len(enc.encode_ordinary(c.text))
            assert c.token_count <= splitter.chunk_size or c.end - c.start == 1
        body = "".join(text[c.start : c.end] for c in chunks)
        assert _WS.sub("", body) == _WS.sub("", text), "lost text"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=8, help="take every n-th corpus document")
    ap.add_argument("--size", type=int, default=512)
    args = ap.parse_args()
    docs = _docs(args.every)
    mb = sum(len(d.encode()) for d in docs) / 1e6
    size = args.size
    sp = HTMLSplitter(size)
    rows = ragchunk_rows("HTMLSplitter", sp, docs, lambda res: _check(sp, docs, res))

    heads = [("h1", "h1"), ("h2", "h2"), ("h3", "h3")]
    try:
        from langchain_text_splitters import (
            HTMLHeaderTextSplitter,
            RecursiveCharacterTextSplitter,
        )

        hh = HTMLHeaderTextSplitter(heads)
        t, out = best_time(lambda: [hh.split_text(d) for d in docs])
        rows.append(("LangChain HTMLHeaderTextSplitter (no size budget)", t, sum(map(len, out))))
        rec = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=size, chunk_overlap=0
        )
        t, out = best_time(lambda: [rec.split_documents(hh.split_text(d)) for d in docs])
        rows.append(
            ("LangChain HTMLHeaderTextSplitter + Recursive (tiktoken)", t, sum(map(len, out)))
        )
    except ImportError as exc:
        print(f"(LangChain HTMLHeaderTextSplitter unavailable: {exc})")
    try:
        from langchain_text_splitters import HTMLSectionSplitter

        sec = HTMLSectionSplitter(heads)
        t, out = best_time(lambda: [sec.split_text(d) for d in docs])
        rows.append(("LangChain HTMLSectionSplitter (no size budget)", t, sum(map(len, out))))
    except Exception as exc:  # ImportError, or lxml/XSLT failures on some inputs
        print(f"(LangChain HTMLSectionSplitter failed: {type(exc).__name__}: {exc})")
    try:
        from langchain_text_splitters import HTMLSemanticPreservingSplitter

        sem = HTMLSemanticPreservingSplitter(heads, max_chunk_size=4 * size)
        t, out = best_time(lambda: [sem.split_text(d) for d in docs])
        rows.append(
            (f"LangChain HTMLSemanticPreservingSplitter ({4 * size} chars)", t, sum(map(len, out)))
        )
    except Exception as exc:
        print(f"(LangChain HTMLSemanticPreservingSplitter failed: {type(exc).__name__}: {exc})")

    print(f"{len(docs)} documents, {mb:.1f} MB of HTML, budget {size} tokens (cl100k_base)\n")
    print_table(rows, mb, "ragchunk Rust")


if __name__ == "__main__":
    main()
