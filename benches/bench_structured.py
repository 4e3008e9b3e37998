"""Structure-aware chunkers vs their peers, on a sample of ``../shared/corpus``.

Run from the repository root with a release build::

    .venv/bin/python benches/bench_structured.py [--every 8] [--size 512]
    .venv/bin/python benches/bench_structured.py --fill [--every 1] [--size 512]

Every library gets the same documents and the same 512-token (cl100k_base) budget; the
table gives wall time, MB/s, chunk count and the ratio against ragchunk. Results are checked,
not just timed: ragchunk's chunks must be within budget (exact count), slice the source back
exactly and lose no non-whitespace character, and both backends must agree on a subset.

``--fill`` compares ``merge_sections=False`` and ``True`` instead: chunks, tokens per chunk
and time of ``MarkdownSplitter`` on the corpus (every ``--every``-th document) and of
``HTMLSplitter`` on every 8th document rendered to HTML, then ragchunk's own retrieval
evaluation (:mod:`ragchunk.eval`) of ``MarkdownSplitter`` both ways on the Chroma evaluation
set, with BM25 and with WordLlama embeddings.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import CORPUS, best_time, offline_tiktoken, print_table, ragchunk_rows

offline_tiktoken()

from ragchunk import HTMLSplitter, MarkdownSplitter, TitleTreeChunker  # noqa: E402


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


def _chunk_stats(label: str, splitter: Any, docs: list[str], check: bool) -> str:
    import statistics

    t, res = best_time(lambda: [splitter.split(d) for d in docs])
    if check:
        _check(docs, res, splitter.chunk_size)
    sizes = [c.token_count for chunks in res for c in chunks]
    merged = sum("sections" in c.metadata for chunks in res for c in chunks)
    small = sum(n < splitter.chunk_size // 4 for n in sizes)
    return (
        f"| {label} | {len(sizes)} | {statistics.mean(sizes):.1f} | "
        f"{statistics.median(sizes):.0f} | {100 * small / len(sizes):.1f}% | {merged} | {t:.2f} |"
    )


def _eval_rows(size: int, k: int) -> list[str]:
    from ragchunk.embeddings import load_wordllama
    from ragchunk.eval import BM25, Dense, evaluate, load_chroma

    dataset = load_chroma(CORPUS.parent / "eval" / "chroma")
    rows = []
    for name, retriever in (("BM25", BM25()), ("WordLlama", Dense(load_wordllama()))):
        for merge in (False, True):
            splitter = MarkdownSplitter(size, merge_sections=merge)
            row = evaluate(dataset, [splitter], retriever=retriever, k=[k], progress=False).rows[0]
            m = row.metrics
            rows.append(
                f"| {name} | {merge} | {row.stats['n_chunks']} | {row.stats['mean_tokens']:.1f} | "
                f"{100 * m['recall_mean']:.1f} | {100 * m['precision_mean']:.2f} | "
                f"{100 * m['iou_mean']:.2f} |"
            )
    return rows


def fill(every: int, size: int) -> None:
    import os

    docs = _docs(every)
    mb = sum(len(d.encode()) for d in docs) / 1e6
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"{len(docs)} documents, {mb:.1f} MB, budget {size} tokens (cl100k_base)\n")
    print("| splitter | merge_sections | chunks | mean tokens | median tokens |", end="")
    print(f" chunks under {size // 4} tokens | merged chunks | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for merge in (False, True):
        md = MarkdownSplitter(size, merge_sections=merge)
        print(_chunk_stats(f"MarkdownSplitter | {merge}", md, docs, True))
    from markdown_it import MarkdownIt

    render = MarkdownIt("commonmark").enable("table").render
    pages = [render(d) for d in _docs(8)]
    for merge in (False, True):
        html = HTMLSplitter(size, merge_sections=merge)
        print(_chunk_stats(f"HTMLSplitter (every 8th, as HTML) | {merge}", html, pages, False))
    k = 5
    print(f"\nChroma evaluation set, MarkdownSplitter({size}), k = {k}, span metrics in percent\n")
    print("| retriever | merge_sections | chunks | mean tokens | recall | precision | IoU |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for row in _eval_rows(size, k):
        print(row)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=8, help="take every n-th corpus document")
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument(
        "--fill", action="store_true", help="merge_sections off and on: fill and retrieval"
    )
    args = ap.parse_args()
    if args.fill:
        fill(args.every, args.size)
        return
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
