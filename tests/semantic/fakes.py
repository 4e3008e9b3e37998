"""Deterministic embedders and corpus samples for the embedding-driven chunkers' tests."""

from __future__ import annotations

import hashlib
import os
import re
from functools import cache
from pathlib import Path

import numpy as np
from testdata import CORPUS

_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def _bucket(token: str, dim: int) -> int:
    return (
        int.from_bytes(
            hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=4).digest(),
            "little",
        )
        % dim
    )


def hashed_counts(texts: list[str], dim: int = 32) -> np.ndarray:
    """Bag-of-words counts hashed into ``dim`` buckets: small integers, so float32 and
    float64 hold them exactly and every backend's cosine agrees to the last bit."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for i, t in enumerate(texts):
        for tok in _WORD.findall(t.lower()):
            out[i, _bucket(tok, dim)] += 1.0
    return out


class CountingEmbeddings:
    """A LangChain ``Embeddings`` (duck-typed, and a subclass when langchain-core imports)
    of :func:`hashed_counts`, counting its calls."""

    def __init__(self, dim: int = 32) -> None:
        self.dim = dim
        self.calls = 0
        self.texts = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        self.texts += len(texts)
        return hashed_counts(list(texts), self.dim).astype(np.float64).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def langchain_embeddings(dim: int = 32) -> object:
    from langchain_core.embeddings import Embeddings

    class LCEmbeddings(CountingEmbeddings, Embeddings):
        pass

    return LCEmbeddings(dim)


def corpus_dir() -> Path | None:
    if CORPUS.is_dir():
        return CORPUS
    extra = os.environ.get("RAGCHUNK_SHARED")
    if extra and (Path(extra) / "corpus").is_dir():
        return Path(extra) / "corpus"
    return None


@cache
def corpus_sample(limit: int = 6000, every: int = 1) -> tuple[tuple[str, str], ...]:
    """(name, first ``limit`` characters) of every ``every``-th corpus document."""
    root = corpus_dir()
    if root is None:
        return ()
    files = sorted(root.rglob("*.md"))[::every]
    return tuple((str(p.relative_to(root)), p.read_text(encoding="utf-8")[:limit]) for p in files)
