"""BM25 index + every query of the shipped evaluation set: ragchunk against bm25s and rank_bm25,
and the time of a 12-configuration BM25 sweep.

    .venv/bin/python benches/bench_eval.py [--rounds 7] [--chunk-size 200] [--k 10]

The corpora are cut by ``RecursiveSplitter(chunk_size)``; every contender indexes the same
chunks and answers the same questions (top ``k``), from the texts: ragchunk tokenizes in Rust,
the peers with ragchunk's pure-Python tokenizer (one regular expression; the same tokens, so
the rankings can be equal). Medians of interleaved rounds; rankings are compared with
ragchunk's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import offline_tiktoken

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


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--dataset", default=str(next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0]))
    )
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--chunk-size", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    import bm25s
    import rank_bm25

    ds = load_chroma(args.dataset)
    texts = [
        c.text
        for _, c in chunk_corpora(
            ds, RecursiveSplitter(chunk_size=args.chunk_size, chunk_overlap=0)
        )
    ]
    queries = [q.text for q in ds.questions]
    k = args.k

    def tokens(items: list[str]) -> list[list[str]]:
        return [pure_tokenize(t, "english") for t in items]

    def ragchunk_rust() -> list[list[int]]:
        index = BM25().index(texts)
        return [[i for i, _ in h] for h in index.search(queries, k)]

    def ragchunk_python() -> list[list[int]]:
        dispatch.set_backend("python")
        try:
            return ragchunk_rust()
        finally:
            dispatch.set_backend("rust")

    def rank_bm25_okapi() -> list[list[int]]:
        model = rank_bm25.BM25Okapi(tokens(texts))
        out = []
        for q in tokens(queries):
            s = model.get_scores(q)
            out.append([int(i) for i in np.lexsort((np.arange(len(s)), -s))[:k]])
        return out

    def bm25s_robertson() -> list[list[int]]:
        model = bm25s.BM25(method="robertson")
        model.index(tokens(texts), show_progress=False)
        res, _ = model.retrieve(tokens(queries), k=k, show_progress=False, n_threads=1)
        return [[int(i) for i in row] for row in res]

    contenders: list[tuple[str, Callable[[], list[list[int]]]]] = [
        ("ragchunk BM25 (Rust, tokenizing included)", ragchunk_rust),
        ("ragchunk BM25 (pure-Python fallback)", ragchunk_python),
        (f"bm25s {bm25s.__version__} (method='robertson')", bm25s_robertson),
        ("rank_bm25 0.2.2 BM25Okapi", rank_bm25_okapi),
    ]
    times: dict[str, list[float]] = {name: [] for name, _ in contenders}
    rankings: dict[str, list[list[int]]] = {}
    for _ in range(args.rounds):
        for name, fn in contenders:
            t0 = time.perf_counter()
            rankings[name] = fn()
            times[name].append(time.perf_counter() - t0)
    base_name = contenders[0][0]
    base = statistics.median(times[base_name])
    ours = rankings[base_name]
    print(
        f"{len(texts)} chunks (RecursiveSplitter {args.chunk_size}), {len(queries)} queries, "
        f"top {k}, "
        f"median of {args.rounds} rounds\n"
    )
    print("| contender | ms | time / ragchunk Rust | queries with the same top-k as ragchunk |")
    print("|---|---:|---:|---:|")
    for name, _ in contenders:
        med = statistics.median(times[name])
        same = sum(a == b for a, b in zip(rankings[name], ours, strict=True))
        print(f"| {name} | {1000 * med:.2f} | {med / base:.1f}x | {same}/{len(ours)} |")

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
