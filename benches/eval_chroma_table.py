"""Chroma's chunking-evaluation configurations on the shipped corpora, with BM25 and WordLlama.

    .venv/bin/python benches/eval_chroma_table.py [--dataset DIR] [--k 5]
        [--retriever bm25|wordllama|both]

Prints one Markdown table per retriever (span metrics in percent, mean ± standard deviation
over questions), the rows of ``docs/evaluation.md``. The WordLlama model ships inside the
``wordllama`` package and is loaded from its files, never downloaded.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import offline_tiktoken

offline_tiktoken()

from ragchunk import RecursiveSplitter, TokenWindowSplitter  # noqa: E402
from ragchunk.embeddings import load_wordllama  # noqa: E402
from ragchunk.eval import BM25, Dense, evaluate, load_chroma  # noqa: E402
from ragchunk.semantic import ClusterSemanticChunker  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
_CANDIDATES = [
    ROOT.parent / "shared" / "eval" / "chroma",
    ROOT.parent.parent / "shared" / "eval" / "chroma",
]


def _windows(size: int, overlap: int, embedder: Any) -> Any:
    return TokenWindowSplitter(chunk_size=size, chunk_overlap=overlap)


def _recursive(size: int, overlap: int, embedder: Any) -> Any:
    return RecursiveSplitter(chunk_size=size, chunk_overlap=overlap)


def _cluster(size: int, overlap: int, embedder: Any) -> Any:
    # Chroma's ClusterSemanticChunker: 50-token pieces, grouped by the retrieval embedder.
    return ClusterSemanticChunker(embedder, chunk_size=size, piece_size=50)


CONFIGS = [
    ("Token window", _windows, 800, 400),
    ("Token window", _windows, 400, 200),
    ("Token window", _windows, 400, 0),
    ("Token window", _windows, 200, 0),
    ("Recursive", _recursive, 800, 400),
    ("Recursive", _recursive, 400, 200),
    ("Recursive", _recursive, 400, 0),
    ("Recursive", _recursive, 200, 0),
    ("Cluster semantic (WordLlama)", _cluster, 400, 0),
    ("Cluster semantic (WordLlama)", _cluster, 200, 0),
]


def pm(row: dict[str, float], name: str) -> str:
    return f"{100 * row[name + '_mean']:.1f} ± {100 * row[name + '_std']:.1f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--dataset", default=str(next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0]))
    )
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--retriever", default="both", choices=("bm25", "wordllama", "both"))
    args = ap.parse_args()
    dataset = load_chroma(args.dataset)
    model = load_wordllama()
    chunkers = [make(size, ov, model) for _, make, size, ov in CONFIGS]
    retrievers = []
    if args.retriever in ("bm25", "both"):
        retrievers.append(("BM25", BM25()))
    if args.retriever in ("wordllama", "both"):
        retrievers.append(("WordLlama l2_supercat_256 (dense, cosine)", Dense(model)))
    print(f"{len(dataset.questions)} questions over {len(dataset.corpora)} corpora, k = {args.k}\n")
    for title, retriever in retrievers:
        t0 = time.perf_counter()
        result = evaluate(dataset, chunkers, retriever, k=[args.k])
        seconds = time.perf_counter() - t0
        print(f"{title} ({seconds:.1f} s)\n")
        print(
            "| chunker | size | overlap | mean tokens | recall | precision | precision Ω | IoU "
            f"| NDCG@{args.k} |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for (label, _, size, ov), row in zip(CONFIGS, result.rows, strict=True):
            m = row.metrics
            print(
                f"| {label} | {size} | {ov} | {row.stats['mean_tokens']:.0f} | {pm(m, 'recall')} | "
                f"{pm(m, 'precision')} | {pm(m, 'precision_omega')} | {pm(m, 'iou')} | "
                f"{100 * m[f'ndcg@{args.k}']:.1f} |"
            )
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
