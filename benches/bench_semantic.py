"""Semantic chunking against LangChain's SemanticChunker: the chunking itself with the same
precomputed embeddings, and end to end with the WordLlama model shipped in its wheel.

    .venv/bin/python benches/bench_semantic.py [--docs 24] [--size 20000] [--rounds 3]

* **precomputed**: every text either chunker will embed is embedded before the clock starts;
  both then get a lookup table (LangChain an ``Embeddings`` returning lists, ragchunk a
  callable returning an array), so the time is the chunking alone.
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _corpus import CORPUS, offline_tiktoken  # noqa: E402

offline_tiktoken()

import numpy as np  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402
from langchain_experimental.text_splitter import SemanticChunker as LCSemantic  # noqa: E402
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


class Recorder:
    """Collects the texts a chunker asks to embed (zero vectors of the right shape)."""

    def __init__(self) -> None:
        self.texts: set[str] = set()

    def __call__(self, texts: list[str]) -> Any:
        self.texts.update(texts)
        return np.ones((len(texts), 4), dtype=np.float32)


def median_time(fn: Any, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=24)
    ap.add_argument("--size", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    docs = documents(args.docs, args.size)
    total_mb = sum(len(d.encode()) for d in docs) / 1e6
    model = load_wordllama()
    print(f"{len(docs)} corpus documents, {total_mb:.2f} MB; backend", end=" ")
    import ragchunk

    print(ragchunk.backend)

    # -- precomputed embeddings -----------------------------------------------------------------
    rec_lc, rec_rc = Recorder(), Recorder()
    for d in docs:
        LCSemantic(LCEmbeddings(lambda t: rec_lc(t).tolist())).split_text(d)
        SemanticChunker(rec_rc, chunk_size=512).split(d)
    table = {
        t: v
        for t, v in zip(
            sorted(rec_lc.texts | rec_rc.texts),
            model.embed(sorted(rec_lc.texts | rec_rc.texts)),
            strict=True,
        )
    }
    lc_table = {t: v.astype(np.float64).tolist() for t, v in table.items()}

    def lc_lookup(texts: list[str]) -> list[list[float]]:
        return [lc_table[t] for t in texts]

    def rc_lookup(texts: list[str]) -> Any:
        return np.stack([table[t] for t in texts])

    lc = LCSemantic(LCEmbeddings(lc_lookup))
    rc = SemanticChunker(rc_lookup, chunk_size=512)
    rc_compat = SemanticChunker(rc_lookup, langchain_compat=True)
    assert [rc_compat.split_text(d) for d in docs] == [lc.split_text(d) for d in docs]
    rows = []
    t_lc = median_time(lambda: [lc.split_text(d) for d in docs], args.rounds)
    t_rc = median_time(lambda: [rc.split(d) for d in docs], args.rounds)
    t_cp = median_time(lambda: [rc_compat.split_text(d) for d in docs], args.rounds)
    rows.append(("LangChain `SemanticChunker`", t_lc))
    rows.append(("ragchunk `SemanticChunker` (own mode, chunk_size=512)", t_rc))
    rows.append(("ragchunk `SemanticChunker(langchain_compat=True)`", t_cp))
    print("\n| precomputed embeddings | seconds (median) | LangChain / this |")
    print("|---|---:|---:|")
    for name, t in rows:
        print(f"| {name} | {t:.3f} | {t_lc / t:.1f}x |")

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
