"""BM25 index + every query of the shipped evaluation set: ragchunk against bm25s and rank_bm25,
and the time of a 12-configuration BM25 sweep.

    .venv/bin/python benches/bench_eval.py [--rounds 7] [--chunk-size 200] [--k 10]
        [--corpus-mb N] [--no-sweep]

The chunks are the shipped Chroma corpora cut by ``RecursiveSplitter(chunk_size)``, or with
``--corpus-mb N`` the first N MB of ``../shared/corpus`` (in path order) cut the same way; the
queries are the 132 questions of the shipped set either way (top ``k``).

Two tables, both timing index + all queries:

* **from texts**: every contender starts from the chunk and question texts and tokenizes
  inside its timing. ragchunk tokenizes in Rust; rank_bm25 and bm25s are given ragchunk's
  pure-Python tokenizer (one compiled regular expression, a lowercase and a stop-word set: the
  same tokens, so the rankings can be equal) - the fastest plain-Python tokenizer at hand, not
  a slowed-down one. bm25s also runs with its own tokenizer (``bm25s.tokenize``, English stop
  words; other tokens, so other rankings).
* **from tokens**: the tokens are made once, outside the timing, and every contender indexes
  and queries token lists (ragchunk through ``index_tokens`` / ``search_tokens``).

Rounds interleave the contenders; a round runs each one often enough to take about 50 ms.
Times are medians over rounds, and each ratio is the median of the per-round ratios. Rankings
are compared with rank_bm25's (ties in chunk order).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import load_corpus, offline_tiktoken

offline_tiktoken()

import numpy as np  # noqa: E402
from ragchunk import RecursiveSplitter, TokenWindowSplitter  # noqa: E402
from ragchunk._pure.eval.tokenize import tokenize as pure_tokenize  # noqa: E402
from ragchunk.core import dispatch  # noqa: E402
from ragchunk.eval import BM25, evaluate, load_chroma  # noqa: E402
from ragchunk.eval.sweep import chunk_corpora  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
_CANDIDATES = [
    ROOT.parent / "shared" / "eval" / "chroma",
    ROOT.parent.parent / "shared" / "eval" / "chroma",
]

Ranking = list[list[int]]


def measure(
    contenders: list[tuple[str, Callable[[], Ranking]]], rounds: int, budget: float = 0.05
) -> tuple[dict[str, list[float]], dict[str, Ranking]]:
    """Per contender: the time of one call in each round, and its last ranking."""
    reps: dict[str, int] = {}
    rankings: dict[str, Ranking] = {}
    for name, fn in contenders:  # warm-up, then how many warm calls fill the budget
        fn()  # a first call can pay one-time costs (a full garbage collection, imports)
        t0 = time.perf_counter()
        rankings[name] = fn()
        reps[name] = max(1, int(budget / max(time.perf_counter() - t0, 1e-6)))
    times: dict[str, list[float]] = {name: [] for name, _ in contenders}
    for _ in range(rounds):
        for name, fn in contenders:
            t0 = time.perf_counter()
            for _ in range(reps[name]):
                rankings[name] = fn()
            times[name].append((time.perf_counter() - t0) / reps[name])
    return times, rankings


def report(
    title: str,
    contenders: list[tuple[str, Callable[[], Ranking]]],
    rounds: int,
    oracle: str,
) -> None:
    times, rankings = measure(contenders, rounds)
    base_name = contenders[0][0]
    base = times[base_name]
    ref = rankings[oracle]
    print(f"\n{title}\n")
    print("| contender | ms | time / ragchunk Rust | queries with rank_bm25's top-k |")
    print("|---|---:|---:|---:|")
    for name, _ in contenders:
        med = statistics.median(times[name])
        ratio = statistics.median(t / b for t, b in zip(times[name], base, strict=True))
        same = sum(a == b for a, b in zip(rankings[name], ref, strict=True))
        print(f"| {name} | {1000 * med:.2f} | {ratio:.1f}x | {same}/{len(ref)} |")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--dataset", default=str(next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0]))
    )
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--chunk-size", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument(
        "--corpus-mb",
        type=float,
        default=None,
        help="index the first N MB of ../shared/corpus instead of the Chroma corpora",
    )
    ap.add_argument("--no-sweep", action="store_true", help="skip the 12-configuration sweep")
    args = ap.parse_args()
    import bm25s
    import rank_bm25

    ds = load_chroma(args.dataset)
    splitter = RecursiveSplitter(chunk_size=args.chunk_size, chunk_overlap=0)
    if args.corpus_mb is None:
        label = f"the shipped Chroma corpora ({len(ds.corpora)} documents)"
        texts = [c.text for _, c in chunk_corpora(ds, splitter)]
    else:
        _, docs = load_corpus(int(args.corpus_mb * 1e6))
        label = f"the first {args.corpus_mb:g} MB of ../shared/corpus ({len(docs)} documents)"
        texts = [c.text for d in docs for c in splitter.split(d)]
    queries = [q.text for q in ds.questions]
    k = args.k

    def tokens(items: list[str]) -> list[list[str]]:
        return [pure_tokenize(t, "english") for t in items]

    text_tokens, query_tokens = tokens(texts), tokens(queries)

    def top(s: np.ndarray) -> list[int]:
        return [int(i) for i in np.lexsort((np.arange(len(s)), -s))[:k]]

    def ragchunk_rust() -> Ranking:
        index = BM25().index(texts)
        return [[i for i, _ in h] for h in index.search(queries, k)]

    def ragchunk_python() -> Ranking:
        dispatch.set_backend("python")
        try:
            return ragchunk_rust()
        finally:
            dispatch.set_backend("rust")

    def rank_bm25_okapi(docs: list[list[str]], qs: list[list[str]]) -> Ranking:
        model = rank_bm25.BM25Okapi(docs)
        return [top(model.get_scores(q)) for q in qs]

    def bm25s_robertson(docs: list[list[str]], qs: list[list[str]]) -> Ranking:
        model = bm25s.BM25(method="robertson")
        model.index(docs, show_progress=False)
        res, _ = model.retrieve(qs, k=min(k, len(docs)), show_progress=False, n_threads=1)
        return [[int(i) for i in row] for row in res]

    def bm25s_own_tokenizer() -> Ranking:
        model = bm25s.BM25(method="robertson")
        corpus = bm25s.tokenize(texts, stopwords="en", show_progress=False)
        model.index(corpus, show_progress=False)
        qs = bm25s.tokenize(queries, stopwords="en", show_progress=False)
        res, _ = model.retrieve(qs, k=min(k, len(texts)), show_progress=False, n_threads=1)
        return [[int(i) for i in row] for row in res]

    def ragchunk_tokens() -> Ranking:
        index = BM25().index_tokens(text_tokens)
        return [[i for i, _ in h] for h in index.search_tokens(query_tokens, k)]

    rb = "rank_bm25 0.2.2 BM25Okapi"
    bs = f"bm25s {bm25s.__version__} (method='robertson')"
    n_tokens = sum(map(len, text_tokens))
    print(
        f"{len(texts)} chunks of {label} (RecursiveSplitter {args.chunk_size}, "
        f"{sum(map(len, texts)) / 1e6:.2f} M characters, {n_tokens} tokens), "
        f"{len(queries)} queries, top {k}, median of {args.rounds} rounds, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    report(
        "From texts (tokenizing timed):",
        [
            ("ragchunk BM25 (Rust tokenizer)", ragchunk_rust),
            ("ragchunk BM25 (pure-Python fallback)", ragchunk_python),
            (
                f"{bs}, ragchunk's Python tokenizer",
                lambda: bm25s_robertson(*map(tokens, (texts, queries))),
            ),
            (f"{bs}, bm25s.tokenize", bm25s_own_tokenizer),
            (
                f"{rb}, ragchunk's Python tokenizer",
                lambda: rank_bm25_okapi(*map(tokens, (texts, queries))),
            ),
        ],
        args.rounds,
        f"{rb}, ragchunk's Python tokenizer",
    )
    report(
        "From tokens (tokens made once, untimed):",
        [
            ("ragchunk BM25 (Rust, index_tokens)", ragchunk_tokens),
            (bs, lambda: bm25s_robertson(text_tokens, query_tokens)),
            (rb, lambda: rank_bm25_okapi(text_tokens, query_tokens)),
        ],
        args.rounds,
        rb,
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.no_sweep:
        return 0

    chunkers = [
        cls(chunk_size=size, chunk_overlap=int(size * ov))
        for cls in (RecursiveSplitter, TokenWindowSplitter)
        for size in (200, 400, 800)
        for ov in (0, 0.25)
    ]
    sweep = []
    for _ in range(3):
        t0 = time.perf_counter()
        result = evaluate(ds, chunkers, BM25(), k=[1, 3, 5, 10], progress=False)
        sweep.append(time.perf_counter() - t0)
    print(
        f"\n12-configuration sweep (recursive and token windows x 200/400/800 x overlap 0/25%), "
        f"k = 1, 3, 5, 10, {len(result.rows)} rows: median {statistics.median(sweep):.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
