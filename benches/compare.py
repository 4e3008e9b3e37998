"""Side-by-side throughput of ragchunk, tiktoken and the chunkers users pick instead.

    .venv/bin/python benches/compare.py [--rounds 5] [--chunk-size 512] [--limit-mb N]

Times every contender over the same documents (``../shared/corpus`` when present, else a
generated multilingual corpus) in interleaved rounds, and prints MB/s medians, ratios to
tiktoken's ``encode_ordinary`` (the reference unit), chunk counts, the scaling of the batch
API against a GIL-free reference workload (``hashlib.sha256`` in threads), and peak memory.
It also checks that ragchunk's two backends produced identical chunks. Peers are optional
(``pip install ragchunk[bench]``); missing ones are listed as skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import load_corpus, offline_tiktoken

offline_tiktoken()

import ragchunk  # noqa: E402
import tiktoken  # noqa: E402
from ragchunk.core import dispatch  # noqa: E402

Contender = tuple[str, Callable[[list[str]], int]]


def contenders(size: int, with_python: bool, with_peers: bool) -> tuple[list[Contender], list[str]]:
    enc = tiktoken.get_encoding("cl100k_base")
    core = dispatch.core()
    assert core is not None, "the benchmark needs the compiled core (maturin develop --release)"
    out: list[Contender] = [
        (
            "tiktoken encode_ordinary (reference)",
            lambda docs: sum(len(enc.encode_ordinary(d)) for d in docs) and 0,
        ),
        (
            "ragchunk count_ordinary (Rust, count only)",
            lambda docs: sum(core.count_ordinary(d, "cl100k_base") for d in docs) and 0,
        ),
        (
            "ragchunk naive_merge (Rust, 1 thread)",
            lambda docs: sum(len(ragchunk.naive_merge(d, size)) for d in docs),
        ),
        (
            "ragchunk naive_merge_batch (Rust, 2 workers)",
            lambda docs: sum(map(len, ragchunk.naive_merge_batch(docs, size, workers=2))),
        ),
    ]
    if with_python:

        def python_fallback(docs: list[str]) -> int:
            dispatch.set_backend("python")
            try:
                return sum(len(ragchunk.naive_merge(d, size)) for d in docs)
            finally:
                dispatch.set_backend("rust")

        out.append(("ragchunk naive_merge (pure-Python fallback)", python_fallback))
    skipped: list[str] = []
    if not with_peers:
        return out, skipped
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        lc = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=size, chunk_overlap=0
        )
        out.append(
            (
                "langchain RecursiveCharacterTextSplitter (tiktoken)",
                lambda docs: sum(len(lc.split_text(d)) for d in docs),
            )
        )
    except ImportError:
        skipped.append("langchain-text-splitters")
    try:
        import semchunk
        import semchunk.semchunk as _sc

        def run_semchunk(docs: list[str]) -> int:
            # semchunk memoises its token counter across calls; each round starts it empty,
            # as a corpus seen for the first time does
            getattr(_sc, "_memoized_token_counters", {}).clear()
            sc = semchunk.chunkerify(enc, size)
            return sum(len(sc(d)) for d in docs)

        out.append(("semchunk", run_semchunk))
    except ImportError:
        skipped.append("semchunk")
    try:
        from semantic_text_splitter import TextSplitter

        sts = TextSplitter.from_tiktoken_model("gpt-4", size)
        out.append(
            (
                "semantic-text-splitter TextSplitter",
                lambda docs: sum(len(sts.chunks(d)) for d in docs),
            )
        )
    except ImportError:
        skipped.append("semantic-text-splitter")
    try:
        from chonkie import TokenChunker

        ch = TokenChunker(tokenizer=enc, chunk_size=size, chunk_overlap=0)
        out.append(("chonkie TokenChunker", lambda docs: sum(len(ch.chunk(d)) for d in docs)))
    except ImportError:
        skipped.append("chonkie")
    return out, skipped


def sha_scaling(seconds: float = 1.0) -> float:
    """Throughput of sha256 on 2 threads / on 1 thread: how many cores the machine really gives."""
    buf = os.urandom(8 << 20)

    def spin(stop: float, counter: list[int]) -> None:
        while time.perf_counter() < stop:
            hashlib.sha256(buf).digest()
            counter[0] += 1

    rates = []
    for n in (1, 2):
        counters = [[0] for _ in range(n)]
        stop = time.perf_counter() + seconds
        threads = [threading.Thread(target=spin, args=(stop, c)) for c in counters]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rates.append(sum(c[0] for c in counters) / seconds)
    return rates[1] / rates[0]


def _peak_rss_mb(code: str) -> dict[str, float]:
    env = dict(os.environ)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


_MEMORY_PROBE = """
import json, sys
sys.path.insert(0, {bench!r})
from _corpus import load_corpus
import ragchunk

def rss_mb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    raise RuntimeError(field)

ragchunk.naive_merge("warm up the vocabulary", 512)
_, docs = load_corpus({limit!r})
docs = docs * {repeat}
size = sum(len(d.encode()) for d in docs) / 1e6
# Reset the peak-RSS mark (Linux: "5" > clear_refs), so the peak is this call's alone.
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
base = rss_mb("VmRSS:")
if {stream}:
    n = sum(len(c) for c in ragchunk.iter_naive_merge(iter(docs), 512, batch_size=64))
else:
    result = ragchunk.naive_merge_batch(docs, 512)
    n = sum(map(len, result))
peak = rss_mb("VmHWM:")
print(json.dumps({{"corpus_mb": size, "extra_mb": peak - base, "chunks": n}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--chunk-size", type=int, default=512)
    ap.add_argument("--limit-mb", type=float, default=None)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-python", action="store_true", help="skip the slow pure-Python fallback")
    ap.add_argument("--no-memory", action="store_true")
    args = ap.parse_args()

    limit = int(args.limit_mb * 1e6) if args.limit_mb else None
    label, docs = load_corpus(limit)
    mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    print(f"corpus: {label}, {mb:.1f} MB; chunk size {args.chunk_size} tokens, cl100k_base")
    print(
        f"python {sys.version.split()[0]}, tiktoken {tiktoken.__version__}, "
        f"ragchunk {ragchunk.__version__} ({ragchunk.backend})"
    )

    # Correctness first: the two backends must agree on every document.
    rust_chunks = [ragchunk.naive_merge(d, args.chunk_size) for d in docs]
    dispatch.set_backend("python")
    try:
        same = all(
            ragchunk.naive_merge(d, args.chunk_size) == r
            for d, r in zip(docs, rust_chunks, strict=True)
        )
    finally:
        dispatch.set_backend("rust")
    print(f"rust and python backends produce identical chunks on every document: {same}")
    assert ragchunk.naive_merge_batch(docs, args.chunk_size) == rust_chunks, (
        "batch differs from per-document calls"
    )

    entries, skipped = contenders(args.chunk_size, not args.no_python, not args.no_peers)
    times: dict[str, list[float]] = {name: [] for name, _ in entries}
    chunks: dict[str, int] = {}
    for _ in range(args.rounds):
        for name, fn in entries:  # interleaved: every contender sees the same machine noise
            t0 = time.perf_counter()
            chunks[name] = fn(docs)
            times[name].append(time.perf_counter() - t0)

    ref = statistics.median(times[entries[0][0]])
    print()
    print("| contender | MB/s (median) | x tiktoken | chunks |")
    print("|---|---:|---:|---:|")
    for name, _ in entries:
        med = statistics.median(times[name])
        print(f"| {name} | {mb / med:.1f} | {ref / med:.2f} | {chunks[name] or '-'} |")
    if skipped:
        print(f"\nskipped (not installed): {', '.join(skipped)}")

    single = statistics.median(times["ragchunk naive_merge (Rust, 1 thread)"])
    batch = statistics.median(times["ragchunk naive_merge_batch (Rust, 2 workers)"])
    count = statistics.median(times["ragchunk count_ordinary (Rust, count only)"])
    print(f"\nnaive_merge / count-only tokenizer throughput: {count / single:.2f}")
    print(
        f"batch (2 workers) / single-threaded: {single / batch:.2f}; "
        f"sha256 2 threads / 1 thread: {sha_scaling():.2f}"
    )
    if "ragchunk naive_merge (pure-Python fallback)" in times:
        py = statistics.median(times["ragchunk naive_merge (pure-Python fallback)"])
        print(f"Rust / pure-Python fallback: {py / single:.1f}x")

    if not args.no_memory:
        bench = str(Path(__file__).resolve().parent)
        for stream, repeat in ((False, 1), (True, 1), (True, 3)):
            r = _peak_rss_mb(
                _MEMORY_PROBE.format(bench=bench, limit=limit, repeat=repeat, stream=stream)
            )
            kind = "iter_naive_merge (stream)" if stream else "naive_merge_batch (one batch)"
            print(
                f"peak memory, {kind}, {r['corpus_mb']:.1f} MB corpus: "
                f"+{r['extra_mb']:.0f} MB above baseline "
                f"({r['extra_mb'] / r['corpus_mb']:.2f}x corpus)"
            )


if __name__ == "__main__":
    main()
