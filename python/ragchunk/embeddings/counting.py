"""Token counting for the embedding-aware features: a tokenizer spec (a built-in encoding name
or a callable) as a batch counter, on either backend."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.counting import Counter

__all__ = ["BatchCounter", "batch_counter"]

#: ``texts -> [token count of each]``.
BatchCounter = Callable[[Sequence[str]], list[int]]


def batch_counter(tokenizer: Any) -> BatchCounter:
    """``texts -> [token count of each]`` for ``tokenizer`` (``encode_ordinary`` semantics
    for the built-in encodings, the callable's answer otherwise)."""
    return Counter(tokenizer).batch
