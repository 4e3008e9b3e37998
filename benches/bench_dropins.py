"""The Chonkie drop-ins and LangChain's ``SemanticChunker`` drop-in against the classes they
replace, side by side.

    .venv/bin/python benches/bench_dropins.py [--limit-mb 6] [--rounds 5] [--case TEXT]

Each case builds the original class and ragchunk's drop-in with the same arguments, checks that
they agree on every document (``../shared/corpus``; for token windows: the same windows, each
chunk's text the same wherever the original's decoding is whole), then times both in
interleaved rounds after one untimed warm-up round and prints medians in MB/s and the
original's time as a multiple of the drop-in's (higher = the drop-in faster). The semantic
case gives both the same precomputed vectors: an ``Embeddings`` that looks each window up in a
table filled before timing, so the embedding model costs nothing on either side.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _corpus
from _corpus import load_corpus, offline_tiktoken

if not _corpus.CORPUS.is_dir() and os.environ.get("RAGCHUNK_SHARED"):  # a worktree elsewhere
    _corpus.CORPUS = Path(os.environ["RAGCHUNK_SHARED"]) / "corpus"

offline_tiktoken()


class Precomputed:
    """LangChain ``Embeddings`` returning vectors computed before timing (a dict lookup)."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.table[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.table[text]


def _vector(text: str) -> list[float]:
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=32).digest()
    return [float(b) for b in digest]


def semantic_pair(docs: list[str]) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from langchain_experimental.text_splitter import SemanticChunker as Original
        from ragchunk.integrations.langchain import SemanticChunker as DropIn

    table: dict[str, list[float]] = {}

    class Filling:
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            for t in texts:
                if t not in table:
                    table[t] = _vector(t)
            return [table[t] for t in texts]

    filler = Original(Filling())
    for d in docs:  # every window either side will ask for
        filler.split_text(d)
    vectors = Precomputed(table)
    return Original(vectors), DropIn(vectors)


def token_pair(tokenizer: str, size: int, overlap: int) -> tuple[Any, Any]:
    import chonkie
    import tiktoken
    from ragchunk.integrations.chonkie import TokenChunker

    tok: Any = tokenizer if tokenizer == "character" else tiktoken.get_encoding(tokenizer)
    return (
        chonkie.TokenChunker(tokenizer=tok, chunk_size=size, chunk_overlap=overlap),
        TokenChunker(tokenizer=tok, chunk_size=size, chunk_overlap=overlap),
    )


def sentence_pair(tokenizer: str, **kwargs: Any) -> tuple[Any, Any]:
    import chonkie
    import tiktoken
    from ragchunk.integrations.chonkie import SentenceChunker

    tok: Any = tokenizer if tokenizer == "character" else tiktoken.get_encoding(tokenizer)
    return (
        chonkie.SentenceChunker(tokenizer=tok, **kwargs),
        SentenceChunker(tokenizer=tok, **kwargs),
    )


def recursive_pair(tokenizer: str, **kwargs: Any) -> tuple[Any, Any]:
    import chonkie
    import tiktoken
    from ragchunk.integrations.chonkie import RecursiveChunker

    tok: Any = tokenizer if tokenizer == "character" else tiktoken.get_encoding(tokenizer)
    return (
        chonkie.RecursiveChunker(tokenizer=tok, **kwargs),
        RecursiveChunker(tokenizer=tok, **kwargs),
    )


def table_pair(tokenizer: str, **kwargs: Any) -> tuple[Any, Any]:
    import chonkie
    import tiktoken
    from ragchunk.integrations.chonkie import TableChunker

    tok: Any = tokenizer if tokenizer in ("row", "character") else tiktoken.get_encoding(tokenizer)
    return (
        chonkie.TableChunker(tokenizer=tok, **kwargs),
        TableChunker(tokenizer=tok, **kwargs),
    )


def markdown_tables(docs: list[str]) -> list[str]:
    """The Markdown tables of the whole corpus (the first documents hold too few to time):
    runs of three or more lines starting with ``|``."""
    out = []
    for text in load_corpus()[1]:
        run: list[str] = []
        for line in [*text.split("\n"), ""]:
            if line.startswith("|"):
                run.append(line)
                continue
            if len(run) >= 3:
                out.append("\n".join(run))
            run = []
    return out


#: (case, build(docs) -> (original, drop-in), method timed)
CASES: list[tuple[str, Callable[[list[str]], tuple[Any, Any]], str]] = [
    (
        "Chonkie TokenChunker, character, 2048/0",
        lambda d: token_pair("character", 2048, 0),
        "chunk",
    ),
    (
        "Chonkie TokenChunker, character, 512/64",
        lambda d: token_pair("character", 512, 64),
        "chunk",
    ),
    (
        "Chonkie TokenChunker, cl100k_base, 512/0",
        lambda d: token_pair("cl100k_base", 512, 0),
        "chunk",
    ),
    (
        "Chonkie TokenChunker, o200k_base, 512/64",
        lambda d: token_pair("o200k_base", 512, 64),
        "chunk",
    ),
    ("Chonkie SentenceChunker, character, 2048/0", lambda d: sentence_pair("character"), "chunk"),
    (
        "Chonkie SentenceChunker, character, 512/64",
        lambda d: sentence_pair("character", chunk_size=512, chunk_overlap=64),
        "chunk",
    ),
    (
        "Chonkie SentenceChunker, cl100k_base, 512/0",
        lambda d: sentence_pair("cl100k_base", chunk_size=512),
        "chunk",
    ),
    ("Chonkie RecursiveChunker, character, 2048", lambda d: recursive_pair("character"), "chunk"),
    (
        "Chonkie RecursiveChunker, character, 512",
        lambda d: recursive_pair("character", chunk_size=512),
        "chunk",
    ),
    (
        "Chonkie RecursiveChunker, cl100k_base, 512",
        lambda d: recursive_pair("cl100k_base", chunk_size=512),
        "chunk",
    ),
    ("Chonkie TableChunker, row, 3", lambda d: table_pair("row"), "chunk"),
    (
        "Chonkie TableChunker, cl100k_base, 128",
        lambda d: table_pair("cl100k_base", chunk_size=128),
        "chunk",
    ),
    ("LangChain SemanticChunker, percentile (precomputed vectors)", semantic_pair, "split_text"),
]

#: Cases timed on other inputs than the documents themselves: case -> inputs(documents).
INPUTS: dict[str, Callable[[list[str]], list[str]]] = {
    name: markdown_tables for name, _, _ in CASES if name.startswith("Chonkie TableChunker")
}


def _texts(out: Any) -> list[str]:
    return [c if isinstance(c, str) else c.text for c in out]


def agree(original: Any, dropin: Any, method: str, docs: list[str]) -> None:
    for d in docs:
        a, b = _texts(getattr(original, method)(d)), _texts(getattr(dropin, method)(d))
        assert len(a) == len(b), "different chunk counts"
        for x, y in zip(a, b, strict=True):
            assert x == y or ("\ufffd" in x and "\ufffd" not in d), (x[:80], y[:80])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--limit-mb", type=float, default=6.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--case", default="", help="run the cases whose name contains this")
    args = ap.parse_args()
    label, docs = load_corpus(int(args.limit_mb * 1e6))
    print(f"{label}; {args.rounds} interleaved rounds; load: {os.getloadavg()}")
    print("| case | original MB/s | drop-in MB/s | speed-up (min-max) |")
    print("| --- | ---: | ---: | ---: |")
    for name, build, method in CASES:
        if args.case not in name:
            continue
        inputs = INPUTS[name](docs) if name in INPUTS else docs
        original, dropin = build(inputs)
        agree(original, dropin, method, inputs)
        size = sum(len(d.encode("utf-8")) for d in inputs) / 1e6
        times: dict[str, list[float]] = {"o": [], "d": []}
        for r in range(args.rounds + 1):
            for key, chunker in (("o", original), ("d", dropin)):
                run = getattr(chunker, method)
                t = time.perf_counter()
                for d in inputs:
                    run(d)
                if r:  # round 0 warms up
                    times[key].append(time.perf_counter() - t)
        ratios = [o / d for o, d in zip(times["o"], times["d"], strict=True)]
        o, d = statistics.median(times["o"]), statistics.median(times["d"])
        print(
            f"| {name} | {size / o:.2f} | {size / d:.2f} | **{o / d:.1f}x** "
            f"({min(ratios):.1f}-{max(ratios):.1f}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
