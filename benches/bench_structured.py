"""Structure-aware chunkers vs their peers, on a sample of ``../shared/corpus``.

Run from the repository root with a release build::

    .venv/bin/python benches/bench_structured.py [--every 8] [--size 512]

Every library gets the same documents and the same 512-token (cl100k_base) budget; the
table gives wall time, MB/s, chunk count and the ratio against ragchunk. Results are checked,
not just timed: ragchunk's chunks must be within budget (exact count), slice the source back
exactly and lose no non-whitespace character, and both backends must agree on a subset.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import CORPUS, best_time, offline_tiktoken, print_table, ragchunk_rows

offline_tiktoken()

from ragchunk import MarkdownSplitter, TitleTreeChunker  # noqa: E402


def _docs(every: int) -> list[str]:
    paths = sorted(CORPUS.rglob("*.md"))
    return [p.read_text(encoding="utf-8") for p in paths[::every]]


def _check(docs: list[str], results: list[list[Any]], size: int) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    for text, chunks in zip(docs, results, strict=True):
        covered = bytearray(len(text))
        for c in chunks:
            added = c.metadata.get("added_prefix", "")
            assert c.text == added + text[c.start : c.end]
            assert c.token_count == len(enc.encode_ordinary(c.text))
            assert c.token_count <= size or c.end - c.start == 1
            covered[c.start : c.end] = b"\x01" * (c.end - c.start)
        assert all(covered[i] or ch.isspace() for i, ch in enumerate(text)), "lost text"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=8, help="take every n-th corpus document")
    ap.add_argument("--size", type=int, default=512)
    args = ap.parse_args()
    docs = _docs(args.every)
    mb = sum(len(d.encode()) for d in docs) / 1e6
    size = args.size
    md = MarkdownSplitter(size)
    rows = ragchunk_rows("MarkdownSplitter", md, docs, lambda res: _check(docs, res, size))

    try:
        from semantic_text_splitter import MarkdownSplitter as SemMd

        sem = SemMd.from_tiktoken_model("gpt-3.5-turbo", size)
        t, out = best_time(lambda: [sem.chunks(d) for d in docs])
        rows.append(("semantic-text-splitter MarkdownSplitter", t, sum(map(len, out))))
    except ImportError as exc:
        print(f"(semantic-text-splitter unavailable: {exc})")
    try:
        from langchain_text_splitters import (
            MarkdownHeaderTextSplitter,
            RecursiveCharacterTextSplitter,
        )

        heads = MarkdownHeaderTextSplitter(
            [("#", "h1"), ("##", "h2"), ("###", "h3")], strip_headers=False
        )
        rec = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=size, chunk_overlap=0
        )

        def lc() -> list[Any]:
            return [rec.split_documents(heads.split_text(d)) for d in docs]

        t, out = best_time(lc)
        rows.append(
            ("LangChain MarkdownHeaderTextSplitter + Recursive (tiktoken)", t, sum(map(len, out)))
        )
    except ImportError as exc:
        print(f"(langchain-text-splitters unavailable: {exc})")

    tt = TitleTreeChunker(size)
    t, res_t = best_time(lambda: [tt.split(d) for d in docs])
    rows.append(("ragchunk TitleTreeChunker (Rust)", t, sum(map(len, res_t))))
    t, res_tb = best_time(lambda: tt.split_batch(docs))
    assert res_tb == res_t
    rows.append(("ragchunk TitleTreeChunker.split_batch (Rust, rayon)", t, sum(map(len, res_tb))))

    print(f"{len(docs)} documents, {mb:.1f} MB, budget {size} tokens (cl100k_base)\n")
    print_table(rows, mb, "ragchunk Rust")


if __name__ == "__main__":
    main()
