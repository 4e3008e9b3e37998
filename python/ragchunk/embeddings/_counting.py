"""Token counting for the embedding-aware features: a tokenizer spec (a built-in encoding name
or a callable) as a batch counter, on either backend."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core import dispatch
from ..core.tokenizers import resolve_tokenizer
from ..splitters._common import pure_counter

BatchCounter = Callable[[Sequence[str]], list[int]]


def batch_counter(tokenizer: Any) -> BatchCounter:
    """``texts -> [token count of each]`` for ``tokenizer`` (``encode_ordinary`` semantics
    for the built-in encodings, the callable's answer otherwise)."""
    resolved = resolve_tokenizer(tokenizer)
    single = pure_counter(resolved)
    builtin = resolved.builtin

    def count(texts: Sequence[str]) -> list[int]:
        docs = list(texts)
        if builtin is None:
            return [single(t) for t in docs]

        def rust(core: Any) -> list[int]:
            return list(core.count_ordinary_batch(docs, builtin, None))

        return dispatch.run(rust, lambda: [single(t) for t in docs])

    return count
