"""Micro-benchmarks (pytest-benchmark). Each asserts its result, so a smoke run checks too."""

from __future__ import annotations

from typing import Any

import pytest
import ragchunk
from _corpus import load_corpus
from ragchunk.core import dispatch

_, _DOCS = load_corpus(limit_bytes=2_000_000)
_TEXT = "\n".join(_DOCS)


@pytest.fixture(params=["rust", "python"])
def backend(request: pytest.FixtureRequest) -> Any:
    before = dispatch.name()
    dispatch.set_backend(request.param)
    yield request.param
    dispatch.set_backend(before)


def test_count_tokens(benchmark: Any, backend: str) -> None:
    import tiktoken

    n = benchmark(ragchunk.count_tokens, _TEXT)
    assert n == len(tiktoken.get_encoding("cl100k_base").encode(_TEXT))


def test_naive_merge_512(benchmark: Any, backend: str) -> None:
    chunks = benchmark(ragchunk.naive_merge, _TEXT, 512)
    assert len(chunks) > 10


def test_tiktoken_encode_ordinary_reference(benchmark: Any) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    tokens = benchmark(enc.encode_ordinary, _TEXT)
    assert len(tokens) > 1000


def test_ab_script_runs(backend: str) -> None:
    """benches/ab.py end to end on a small slice: both sides run and a ratio comes out."""
    import subprocess
    import sys
    from pathlib import Path

    if backend != "rust" or dispatch.core() is None:
        pytest.skip("ab.py times the compiled extension")
    script = Path(__file__).resolve().parent / "ab.py"
    args = ["--merge-vs-count", "--rounds", "1", "--limit-mb", "0.2"]
    out = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, check=True
    ).stdout
    ratio = float(out.rsplit("throughput:", 1)[1])
    assert 0.0 < ratio < 10.0, out
