"""Search over a store of 100,000 chunks: :func:`ragchunk.ingest.search` on a Parquet store
(ragchunk's BM25) and a LanceDB store (its full-text index).

The corpus is generated (seeded): documents of sentences drawn from a fixed vocabulary,
chunked one sentence a chunk. Measured: the time to build the index (the first search), then
the median and 95th percentile time of ``--queries`` BM25 searches (``k=10``), each query a
sentence taken from a random chunk, and how often that chunk is the first hit.

    python benches/bench_search.py [--chunks 100000] [--queries 200] [--lancedb]

The test run executes :func:`test_bench_search_smoke` on 2,000 chunks.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

WORDS = (
    "river mountain lantern copper violin orchard glacier harbor meadow falcon thunder marble "
    "saddle canyon ember quartz willow beacon tundra pepper walnut cobalt prairie juniper "
    "mosaic nectar saffron timber velvet zephyr anchor bamboo cedar dune fjord garnet heron "
    "ivory jasmine kelp lagoon mango nickel olive pelican quiver raven sierra tulip umber "
    "report budget engine signal window garden bridge castle forest island letter market "
    "number ocean planet rocket school silver summer travel valley winter yellow zebra"
).split()
PER_DOC = 50


def sources(chunks: int, seed: int = 11) -> list[Any]:
    from ragchunk.ingest import Source

    rng = random.Random(seed)
    docs = []
    for d in range(chunks // PER_DOC):
        sentences = []
        for _ in range(PER_DOC):
            words = [rng.choice(WORDS) for _ in range(rng.randint(9, 15))]
            sentences.append(" ".join(words).capitalize() + ".")
        docs.append(Source(f"doc{d:05d}.md", "\n\n".join(sentences)))
    return docs


def measure(kind: str, chunks: int, queries: int) -> dict[str, Any]:
    import ragchunk
    from ragchunk.ingest import ingest, open_store, search

    work = Path(tempfile.mkdtemp(prefix="bench-search-"))
    try:
        url = f"{kind}:{work / 'store'}"
        t = time.perf_counter()
        ingest(sources(chunks), url, ragchunk.RecursiveSplitter(24), batch_size=512)
        ingest_s = time.perf_counter() - t
        st = open_store(url)
        rows = st.read().select(["id", "text"]).to_pylist()
        st.close()
        t = time.perf_counter()
        search(url, "copper violin", k=10, mode="bm25")
        build_s = time.perf_counter() - t
        rng = random.Random(5)
        times, first = [], 0
        for row in rng.sample(rows, queries):
            t = time.perf_counter()
            hits = search(url, row["text"], k=10, mode="bm25")
            times.append(time.perf_counter() - t)
            first += bool(hits) and hits[0].id == row["id"]
        times.sort()
        return {
            "store": kind,
            "chunks": len(rows),
            "ingest_s": ingest_s,
            "build_s": build_s,
            "median_ms": 1000 * statistics.median(times),
            "p95_ms": 1000 * times[int(0.95 * (len(times) - 1))],
            "first": first / queries,
            "load": os.getloadavg()[0],
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| store | chunks | index build (s) | query median (ms) | p95 (ms) | chunk first | load |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for m in results:
        lines.append(
            f"| {m['store']} | {m['chunks']:,} | {m['build_s']:.2f} | {m['median_ms']:.1f} | "
            f"{m['p95_ms']:.1f} | {m['first']:.0%} | {m['load']:.1f} |"
        )
    return "\n".join(lines)


def test_bench_search_smoke() -> None:
    m = measure("parquet", 2000, 20)
    assert m["chunks"] >= 2000 and m["first"] >= 0.9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--lancedb", action="store_true", help="also a LanceDB store")
    args = ap.parse_args()
    kinds = ["parquet", "lancedb"] if args.lancedb else ["parquet"]
    print(table([measure(kind, args.chunks, args.queries) for kind in kinds]))


if __name__ == "__main__":
    main()
