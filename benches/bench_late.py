"""Late chunking against Chonkie's ``LateChunker`` with the same token embeddings.

    .venv/bin/python benches/bench_late.py [--docs 12] [--tokens 8192] [--dim 768] [--rounds 7]
    .venv/bin/python benches/bench_late.py --profile      # cProfile of the ragchunk side

Both sides chunk each document with a recursive chunker of 512 cl100k_base tokens and then
mean-pool the document's token embeddings per chunk:

* **ragchunk**: ``RecursiveSplitter(chunk_size=512)`` then ``late_chunk(text, chunks,
  TokenEmbeddings(vectors, offsets))``.
* **Chonkie**: ``LateChunker(chunk_size=512).chunk(text)``, its model a stand-in whose
  ``embed_as_tokens(text)`` returns the same precomputed array and whose tokenizer is the
  same tiktoken encoding.

The token embeddings are a deterministic ``(n_tokens, dim)`` float32 array per document
(seeded random values), computed before the clock starts, with each token's code-point
offsets (from tiktoken's ``decode_with_offsets``) as an int64 ``(n_tokens, 2)`` array, as a
Hugging Face fast tokenizer's ``offset_mapping`` comes. So the time is the chunking and the
pooling alone, never a model. Rounds are interleaved (ragchunk, Chonkie, ragchunk, ...) in
one process; the figure is the median over rounds of the per-round ratio.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _corpus import CORPUS, generated_corpus, offline_tiktoken  # noqa: E402

offline_tiktoken()

import numpy as np  # noqa: E402
import tiktoken  # noqa: E402
from ragchunk import RecursiveSplitter  # noqa: E402
from ragchunk.late import TokenEmbeddings, late_chunk  # noqa: E402

CHUNK_SIZE = 512


def documents(n: int, max_tokens: int, enc: Any) -> list[str]:
    """``n`` documents of the corpus (evenly picked), each cut to ``max_tokens`` tokens."""
    if CORPUS.is_dir():
        files = sorted(CORPUS.rglob("*.md"))
        big = [p for p in files if p.stat().st_size > 4 * max_tokens]
        picked = [p.read_text(encoding="utf-8") for p in big[:: max(1, len(big) // n)][:n]]
    else:
        picked = generated_corpus()[:n]
    out = []
    for text in picked:
        ids = enc.encode(text, disallowed_special=())[:max_tokens]
        out.append(enc.decode(ids))
    return out


def token_embeddings(text: str, enc: Any, dim: int, seed: int) -> tuple[Any, Any]:
    """Seeded ``(n_tokens, dim)`` float32 vectors and int64 code-point offsets."""
    ids = enc.encode(text, disallowed_special=())
    decoded, starts = enc.decode_with_offsets(ids)
    if decoded != text:
        raise SystemExit("tiktoken did not round-trip a document")
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.append(starts[1:], len(text))
    offsets = np.ascontiguousarray(np.stack([starts, np.maximum(ends, starts)], axis=1))
    vectors = np.random.default_rng(seed).standard_normal((len(ids), dim), dtype=np.float32)
    return vectors, offsets


def chonkie_chunker(enc: Any, table: dict[str, Any]) -> Any:
    from chonkie import LateChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    class Precomputed(SentenceTransformerEmbeddings):
        """The model stand-in: the precomputed token embeddings of each document."""

        def __init__(self) -> None:  # no model to load
            pass

        def embed_as_tokens(self, text: str) -> Any:
            return table[text]

        def embed(self, text: str) -> Any:
            raise AssertionError("Chonkie fell back to embedding each chunk")

        def get_tokenizer(self) -> Any:
            return enc

        def count_tokens(self, text: str) -> int:
            return len(enc.encode(text, disallowed_special=()))

    return LateChunker(embedding_model=Precomputed(), chunk_size=CHUNK_SIZE)


def run_ragchunk(splitter: Any, docs: list[str], embs: list[tuple[Any, Any]]) -> list[Any]:
    out = []
    for text, (vectors, offsets) in zip(docs, embs, strict=True):
        chunks = splitter.split(text)
        out.append((chunks, late_chunk(text, chunks, TokenEmbeddings(vectors, offsets))))
    return out


def run_chonkie(chunker: Any, docs: list[str]) -> list[Any]:
    # Chonkie's recursive chunker memoises token counts per split text in a class-wide
    # ``lru_cache``; repeated rounds over the same documents would be served from it, which
    # no corpus of distinct documents is. Each round starts it empty.
    cached = getattr(type(chunker), "_estimate_token_count", None)
    if hasattr(cached, "cache_clear"):
        cached.cache_clear()
    return [chunker.chunk(text) for text in docs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=12)
    parser.add_argument("--tokens", type=int, default=8192, help="tokens per document")
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="cProfile the ragchunk side")
    args = parser.parse_args()

    enc = tiktoken.get_encoding("cl100k_base")
    docs = documents(args.docs, args.tokens, enc)
    embs = [token_embeddings(t, enc, args.dim, seed) for seed, t in enumerate(docs)]
    n_tokens = sum(v.shape[0] for v, _ in embs)
    splitter = RecursiveSplitter(chunk_size=CHUNK_SIZE, tokenizer="cl100k_base")
    print(
        f"{len(docs)} documents, {n_tokens} tokens, dim {args.dim}, "
        f"{n_tokens * args.dim * 4 / 1e6:.0f} MB of token vectors; load {os.getloadavg()[0]:.2f}"
    )

    if args.profile:
        run_ragchunk(splitter, docs, embs)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.rounds):
            run_ragchunk(splitter, docs, embs)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(14)
        return

    table = {t: v for t, (v, _) in zip(docs, embs, strict=True)}
    chunker = chonkie_chunker(enc, table)
    ours, theirs = run_ragchunk(splitter, docs, embs), run_chonkie(chunker, docs)
    n_ours = sum(len(c) for c, _ in ours)
    n_theirs = sum(len(c) for c in theirs)
    print(f"chunks: ragchunk {n_ours}, Chonkie {n_theirs}")

    t_ours, t_theirs, ratios = [], [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        run_ragchunk(splitter, docs, embs)
        t1 = time.perf_counter()
        run_chonkie(chunker, docs)
        t2 = time.perf_counter()
        t_ours.append(t1 - t0)
        t_theirs.append(t2 - t1)
        ratios.append((t2 - t1) / (t1 - t0))
    print(f"ragchunk  median {statistics.median(t_ours) * 1e3:8.1f} ms")
    print(f"Chonkie   median {statistics.median(t_theirs) * 1e3:8.1f} ms")
    print(
        f"ratio (Chonkie / ragchunk, per round): median {statistics.median(ratios):.2f}x, "
        f"min {min(ratios):.2f}x, max {max(ratios):.2f}x; load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
