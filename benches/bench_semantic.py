"""Semantic chunking against LangChain's and Chonkie's SemanticChunker: the chunking itself
with the same precomputed embeddings, and end to end with the WordLlama model shipped in its
wheel.

    .venv/bin/python benches/bench_semantic.py [--docs 24] [--size 20000] [--rounds 5]

* **precomputed**: a warm-up run embeds (with WordLlama) every text any chunker asks for;
  the timed runs then look each text up in that vector table, so the time is the chunking
  alone. LangChain and ragchunk's LangChain mode get the same LangChain ``Embeddings``
  returning lists of floats, as LangChain embedders do; ragchunk's own mode a callable
  returning a float32 array; Chonkie a ``BaseEmbeddings`` returning arrays. Rounds are
  interleaved in one process and each ratio is the median of the per-round ratios.
* **end to end**: the same WordLlama model (``load_wordllama``: the wheel's own files,
  offline) behind both; the embedding share is the time spent inside the model's calls.
* **calls saved**: texts asked for vs texts the model embedded, with de-duplication and
  then with a warm persistent cache.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _corpus import CORPUS, offline_tiktoken  # noqa: E402
from _embedders import chonkie_embeddings  # noqa: E402

offline_tiktoken()

import numpy as np  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402

with warnings.catch_warnings():  # its notice that the package is being sunset
    warnings.simplefilter("ignore", DeprecationWarning)
    from langchain_experimental.text_splitter import SemanticChunker as LCSemantic
from ragchunk.embeddings import as_embedder, load_wordllama  # noqa: E402
from ragchunk.semantic import SemanticChunker  # noqa: E402


def documents(n: int, size: int) -> list[str]:
    files = sorted(CORPUS.rglob("*.md"))
    picked = files[:: max(1, len(files) // n)][:n]
    return [p.read_text(encoding="utf-8")[:size] for p in picked]


class Timed:
    """Wraps a texts -> vectors function, adding up the time spent inside it."""

    def __init__(self, fn: Any) -> None:
        self.fn, self.seconds, self.texts = fn, 0.0, 0

    def __call__(self, texts: list[str]) -> Any:
        t0 = time.perf_counter()
        out = self.fn(texts)
        self.seconds += time.perf_counter() - t0
        self.texts += len(texts)
        return out


class LCEmbeddings(Embeddings):
    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.fn(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.fn([text])[0]


def median_time(fn: Any, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def interleaved(runs: dict[str, Any], rounds: int) -> dict[str, list[float]]:
    """Seconds per round of each run, the runs taking turns within every round."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, fn in runs.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return times


def chonkie_factory() -> Any:
    """``embed -> Chonkie SemanticChunker`` over that texts -> vectors function (cl100k_base
    token counts, chunk_size 512, Chonkie's other defaults), or None without Chonkie."""
    try:
        import tiktoken
        from chonkie import SemanticChunker as ChonkieSemantic
    except ImportError:
        return None
    enc = tiktoken.get_encoding("cl100k_base")

    return lambda embed: ChonkieSemantic(
        embedding_model=chonkie_embeddings(embed, enc), chunk_size=512
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=24)
    ap.add_argument("--size", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    docs = documents(args.docs, args.size)
    total_mb = sum(len(d.encode()) for d in docs) / 1e6
    model = load_wordllama()
    print(f"{len(docs)} corpus documents, {total_mb:.2f} MB; backend", end=" ")
    import ragchunk

    print(ragchunk.backend)

    # -- precomputed embeddings -----------------------------------------------------------------
    vectors: dict[str, Any] = {}

    def warm(texts: list[str]) -> Any:
        missing = [t for t in dict.fromkeys(texts) if t not in vectors]
        if missing:
            vectors.update(zip(missing, model.embed(missing), strict=True))
        return np.stack([vectors[t] for t in texts])

    chonkie_make = chonkie_factory()
    for d in docs:
        LCSemantic(LCEmbeddings(lambda t: warm(t).tolist())).split_text(d)
        SemanticChunker(warm, chunk_size=512).split(d)
        if chonkie_make is not None:
            chonkie_make(warm).chunk(d)
    keys = list(vectors)
    matrix = np.stack([vectors[k] for k in keys])
    row_of = {k: i for i, k in enumerate(keys)}
    lc_table = {k: v.astype(np.float64).tolist() for k, v in vectors.items()}

    def lc_lookup(texts: list[str]) -> list[list[float]]:
        return [lc_table[t] for t in texts]

    def rc_lookup(texts: list[str]) -> Any:
        return matrix[[row_of[t] for t in texts]]

    lc_embeddings = LCEmbeddings(lc_lookup)
    lc = LCSemantic(lc_embeddings)
    rc = SemanticChunker(rc_lookup, chunk_size=512)
    rc_compat = SemanticChunker(lc_embeddings, langchain_compat=True)
    assert [rc_compat.split_text(d) for d in docs] == [lc.split_text(d) for d in docs]
    runs: dict[str, Any] = {
        "LangChain `SemanticChunker`": lambda: [lc.split_text(d) for d in docs],
        "ragchunk `SemanticChunker(langchain_compat=True)`": lambda: [
            rc_compat.split_text(d) for d in docs
        ],
        "ragchunk `SemanticChunker` (own mode, chunk_size=512)": lambda: [
            rc.split(d) for d in docs
        ],
    }
    counts = {
        "LangChain `SemanticChunker`": sum(len(lc.split_text(d)) for d in docs),
        "ragchunk `SemanticChunker(langchain_compat=True)`": sum(
            len(rc_compat.split_text(d)) for d in docs
        ),
        "ragchunk `SemanticChunker` (own mode, chunk_size=512)": sum(
            len(rc.split(d)) for d in docs
        ),
    }
    if chonkie_make is not None:
        ck = chonkie_make(rc_lookup)
        runs["Chonkie `SemanticChunker` (chunk_size=512)"] = lambda: [ck.chunk(d) for d in docs]
        counts["Chonkie `SemanticChunker` (chunk_size=512)"] = sum(len(ck.chunk(d)) for d in docs)
    times = interleaved(runs, args.rounds)
    base = times["LangChain `SemanticChunker`"]
    print("\n| precomputed embeddings | chunks | ms (median) | LangChain / this | Chonkie / this |")
    print("|---|---:|---:|---:|---:|")
    chonkie = times.get("Chonkie `SemanticChunker` (chunk_size=512)")
    for name, ts in times.items():
        lc_ratio = statistics.median(b / t for b, t in zip(base, ts, strict=True))
        ck_ratio = (
            f"{statistics.median(c / t for c, t in zip(chonkie, ts, strict=True)):.1f}x"
            if chonkie is not None
            else "-"
        )
        print(
            f"| {name} | {counts[name]} | {statistics.median(ts) * 1e3:.1f} "
            f"| {lc_ratio:.1f}x | {ck_ratio} |"
        )
    if chonkie is None:
        print("(Chonkie is not installed: its row is left out)")

    # -- end to end with WordLlama ------------------------------------------------------------
    e_lc = Timed(lambda t: model.embed(t).astype(np.float64).tolist())
    e_rc = Timed(model.embed)
    e_cp = Timed(model.embed)
    lc2 = LCSemantic(LCEmbeddings(e_lc))
    rc2 = SemanticChunker(e_rc, chunk_size=512)
    cp2 = SemanticChunker(e_cp, langchain_compat=True)
    t_lc2 = median_time(lambda: [lc2.split_text(d) for d in docs], args.rounds)
    t_rc2 = median_time(lambda: [rc2.split(d) for d in docs], args.rounds)
    t_cp2 = median_time(lambda: [cp2.split_text(d) for d in docs], args.rounds)
    print("\n| WordLlama end to end | seconds (median) | embedding share | LangChain / this |")
    print("|---|---:|---:|---:|")
    for name, t, e in (
        ("LangChain `SemanticChunker`", t_lc2, e_lc),
        ("ragchunk `SemanticChunker` (own mode)", t_rc2, e_rc),
        ("ragchunk `SemanticChunker(langchain_compat=True)`", t_cp2, e_cp),
    ):
        share = e.seconds / args.rounds / t
        print(f"| {name} | {t:.3f} | {100 * share:.0f}% | {t_lc2 / t:.1f}x |")

    # -- calls saved ----------------------------------------------------------------------------
    with tempfile.TemporaryDirectory() as tmp:
        counted = as_embedder(model, cache=f"{tmp}/cache.sqlite")
        s = SemanticChunker(counted, chunk_size=512)
        for d in docs + docs[: len(docs) // 4]:  # a quarter of the documents seen twice
            s.split(d)
        st = counted.stats
        print("\n| embedder texts | requested | unique after de-dup | cache hits | embedded |")
        print("|---|---:|---:|---:|---:|")
        print(
            f"| first pass (+25% repeats) | {st.requested} | {st.unique} | {st.cache_hits} "
            f"| {st.embedded} |"
        )
        warm = as_embedder(model, cache=f"{tmp}/cache.sqlite")
        s2 = SemanticChunker(warm, chunk_size=512)
        t_warm = median_time(lambda: [s2.split(d) for d in docs], 1)
        w = warm.stats
        print(
            f"| warm cache, all documents again ({t_warm:.3f} s) | {w.requested} | "
            f"{w.unique} | {w.cache_hits} | {w.embedded} |"
        )


if __name__ == "__main__":
    main()
