"""Token counts as ragchunk and RAGFlow take them: exact counts, and RAGFlow's counter that
returns 0 where counting fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._pure import tokenizer as _pure_tokenizer
from ..core import dispatch
from ..core.tokenizers import ResolvedTokenizer, resolve_tokenizer

__all__ = ["count_tokens", "num_tokens_from_string", "ragflow_counter"]


def ragflow_counter(tok: ResolvedTokenizer) -> Callable[[str], int]:
    """A Python callable counting like RAGFlow's ``num_tokens_from_string`` for ``tok``."""
    if tok.ragflow is not None:
        return tok.ragflow
    builtin = tok.builtin
    assert builtin is not None
    return dispatch.run(
        lambda core: dispatch.surrogate_safe(core.count_or_zero, builtin),
        lambda: _pure_tokenizer.ragflow_counter(builtin),
    )


def count_tokens(text: str, tokenizer: Any = "cl100k_base") -> int:
    """Exact token count of ``text``: ``len(tiktoken.get_encoding(name).encode(text))``.

    Like tiktoken's ``encode``, text containing a special token such as ``<|endoftext|>``
    raises ``ValueError``; lone surrogates are counted the way tiktoken recovers them.

    >>> count_tokens("hello world")
    2
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    tok = resolve_tokenizer(tokenizer)
    if tok.exact is not None:
        return tok.exact(text)
    builtin = tok.builtin
    assert builtin is not None
    return dispatch.run(
        lambda core: dispatch.surrogate_safe(core.count_tokens, builtin)(text),
        lambda: _pure_tokenizer.count_tokens(text, builtin),
    )


def num_tokens_from_string(string: object) -> int:
    """RAGFlow's ``num_tokens_from_string``: the cl100k_base count, or 0 when counting fails.

    It fails for text containing a special token's literal text (``<|endoftext|>`` ...) and for
    anything that is not a str; RAGFlow returns 0 then, and so does this function.

    >>> num_tokens_from_string("hello world"), num_tokens_from_string("<|endoftext|>")
    (2, 0)
    """
    if not isinstance(string, str):
        return 0
    return dispatch.run(
        lambda core: dispatch.surrogate_safe(core.count_or_zero, "cl100k_base")(string),
        lambda: _pure_tokenizer.num_tokens_from_string(string),
    )
