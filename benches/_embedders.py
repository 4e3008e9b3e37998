"""Embedder adapters the benchmarks share: one texts -> vectors function behind a peer's
embedding interface."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def chonkie_embeddings(fn: Callable[[list[str]], Any], tokenizer: Any) -> Any:
    """A Chonkie ``BaseEmbeddings`` whose vectors come from ``fn`` (texts -> a ``(n, dim)``
    array) and whose tokenizer is ``tokenizer``; ImportError without Chonkie."""
    from chonkie.embeddings import BaseEmbeddings

    class Table(BaseEmbeddings):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()

        def embed(self, text: str) -> Any:
            return fn([text])[0]

        def embed_batch(self, texts: list[str]) -> list[Any]:
            return list(fn(texts)) if texts else []

        @property
        def dimension(self) -> int:
            return int(fn([" "]).shape[1])

        def get_tokenizer(self) -> Any:
            return tokenizer

    return Table()
