"""LLM chunkers: what concurrency and the cache buy, against a local server with latency.

    .venv/bin/python -m pytest benches/bench_llm.py --benchmark-only    # timings
    .venv/bin/python benches/bench_llm.py [--latency 0.05] [--docs 4]   # the table

The server is the test suite's OpenAI-compatible server on 127.0.0.1 (``tests/openai_server.py``)
answering every request after ``--latency`` seconds, so the figures measure ragchunk's
scheduling (concurrency bound, retries machinery, cache), not a model. Contextual chunking
of corpus documents is timed at several ``max_concurrency`` values, then again with a warm
SQLite cache (no request reaches the server).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from _corpus import load_corpus, offline_tiktoken  # noqa: E402

offline_tiktoken()

from openai_server import OpenAIServer, chat, slow  # noqa: E402
from ragchunk import SentenceSplitter  # noqa: E402
from ragchunk.llm import ContextualChunker, OpenAICompatible  # noqa: E402


def _documents(n: int, size: int = 4000) -> list[str]:
    _, docs = load_corpus(limit_bytes=600_000)
    return [d[:size] for d in docs[:: max(1, len(docs) // n)][:n]]


def _chunker(server: OpenAIServer, concurrency: int, cache: str | None = None) -> ContextualChunker:
    llm = OpenAICompatible(
        base_url=server.base_url,
        model="bench",
        api_key_env=None,
        max_concurrency=concurrency,
        cache=cache,
    )
    return ContextualChunker(llm, SentenceSplitter(chunk_size=200))


def run_table(latency: float, n_docs: int, rounds: int) -> None:
    docs = _documents(n_docs)
    with OpenAIServer(lambda request: slow(latency, chat("A short context."))) as server:
        calls = sum(len(SentenceSplitter(chunk_size=200).split(d)) for d in docs)
        print(f"{len(docs)} documents, {calls} calls, {latency * 1000:.0f} ms per answer")
        print("| configuration | seconds (median) | calls/s | server requests |")
        print("|---|---:|---:|---:|")
        base = None
        for concurrency in (1, 4, 8, 16):
            times = []
            for _ in range(rounds):
                server.reset()
                chunker = _chunker(server, concurrency)
                t0 = time.perf_counter()
                chunker.split_batch(docs)
                times.append(time.perf_counter() - t0)
            med = statistics.median(times)
            base = base or med
            print(
                f"| max_concurrency={concurrency} (peak {server.peak_concurrency}) | {med:.3f} | "
                f"{calls / med:.0f} | {len(server.requests)} |"
            )
        with tempfile.TemporaryDirectory() as tmp:
            cache = str(Path(tmp) / "answers.sqlite")
            _chunker(server, 8, cache).split_batch(docs)
            times = []
            for _ in range(rounds):
                server.reset()
                t0 = time.perf_counter()
                _chunker(server, 8, cache).split_batch(docs)
                times.append(time.perf_counter() - t0)
            med = statistics.median(times)
            print(
                f"| warm cache, max_concurrency=8 | {med:.3f} | {calls / med:.0f} | "
                f"{len(server.requests)} |"
            )


@pytest.fixture(scope="module")
def server():
    with OpenAIServer(lambda request: chat("A short context.")) as s:
        yield s


@pytest.mark.parametrize("concurrency", [1, 8])
def test_contextual_throughput(benchmark, server, concurrency):
    docs = _documents(2, 2000)
    chunker = _chunker(server, concurrency)
    result = benchmark(chunker.split_batch, docs)
    assert all(c.metadata["context"] == "A short context." for doc in result for c in doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per answer (0.05)")
    parser.add_argument("--docs", type=int, default=4, help="corpus documents (4)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (3)")
    args = parser.parse_args()
    run_table(args.latency, args.docs, args.rounds)


if __name__ == "__main__":
    main()
