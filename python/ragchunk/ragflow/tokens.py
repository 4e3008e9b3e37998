"""Token counts as ragchunk and RAGFlow take them: exact counts, and RAGFlow's counter that
returns 0 where counting fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.counting import Counter
from ..core.tokenizers import ResolvedTokenizer

__all__ = ["count_tokens", "num_tokens_from_string", "ragflow_counter"]

_RAGFLOW_CL100K = Counter("cl100k_base", mode="ragflow")


def ragflow_counter(tok: ResolvedTokenizer) -> Callable[[str], int]:
    """A Python callable counting like RAGFlow's ``num_tokens_from_string`` for ``tok``."""
    if tok.ragflow is not None:
        return tok.ragflow
    return Counter.shared(tok, mode="ragflow").bind()


def count_tokens(text: str, tokenizer: Any = "cl100k_base") -> int:
    """Exact token count of ``text``: ``len(tiktoken.get_encoding(name).encode(text))``.

    Like tiktoken's ``encode``, text containing a special token such as ``<|endoftext|>``
    raises ``ValueError``; lone surrogates are counted the way tiktoken recovers them.

    >>> count_tokens("hello world")
    2
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return Counter.shared(tokenizer, mode="exact")(text)


def num_tokens_from_string(string: object) -> int:
    """RAGFlow's ``num_tokens_from_string``: the cl100k_base count, or 0 when counting fails.

    It fails for text containing a special token's literal text (``<|endoftext|>`` ...) and for
    anything that is not a str; RAGFlow returns 0 then, and so does this function.

    >>> num_tokens_from_string("hello world"), num_tokens_from_string("<|endoftext|>")
    (2, 0)
    """
    if not isinstance(string, str):
        return 0
    return _RAGFLOW_CL100K(string)
