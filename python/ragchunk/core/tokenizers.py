"""Resolving the ``tokenizer=`` argument into something both backends can count with.

A tokenizer is one of:

* a built-in encoding name, ``"cl100k_base"`` (RAGFlow's, the default) or ``"o200k_base"``:
  counted entirely in Rust (or with the ``tiktoken`` package by the pure-Python fallback);
* a ``tiktoken.Encoding``: when it is one of the built-in encodings it is treated exactly like
  its name, otherwise every count calls ``len(encoding.encode(text))``;
* a Hugging Face ``tokenizers.Tokenizer`` (anything whose ``encode(text)`` returns an object
  with ``.ids``): ``len(tokenizer.encode(text, add_special_tokens=False).ids)``;
* any callable ``str -> int`` (a word counter, an embedding model's tokenizer...): every count
  comes from it, and it must return a non-negative ``int``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .encodings import ENCODINGS

__all__ = ["BUILTIN_ENCODINGS", "ResolvedTokenizer", "resolve_tokenizer"]

BUILTIN_ENCODINGS = ("cl100k_base", "o200k_base")


@dataclass(frozen=True)
class ResolvedTokenizer:
    """A tokenizer argument after validation.

    Exactly one of ``builtin`` and ``exact`` is set. ``exact(text)`` returns the count or raises
    (like ``len(encoding.encode(text))``); ``ragflow(text)`` is RAGFlow's convention for the
    drop-ins: the count, or 0 when counting raises ``ValueError`` (special-token text).
    """

    builtin: str | None = None
    exact: Callable[[str], int] | None = None
    ragflow: Callable[[str], int] | None = None
    #: The argument this was resolved from (what a pickled copy resolves again).
    source: Any = field(default=None, compare=False)

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        # The counters are closures, which do not pickle: a copy resolves the original
        # argument again (a built-in name, or a picklable tokenizer object or function).
        return resolve_tokenizer, (self.source if self.builtin is None else self.builtin,)


def _checked(fn: Callable[[str], Any], what: str) -> Callable[[str], int]:
    def count(text: str) -> int:
        n = fn(text)
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"tokenizer: {what} must return an int, got {type(n).__name__}")
        if n < 0:
            raise ValueError(f"tokenizer: {what} returned a negative count ({n})")
        return n

    return count


def _zero_on_value_error(exact: Callable[[str], int]) -> Callable[[str], int]:
    # RAGFlow's num_tokens_from_string wraps encode() in try/except and returns 0; tiktoken
    # signals special-token text with ValueError, which is the case that matters here.
    def count(text: str) -> int:
        try:
            return exact(text)
        except ValueError:
            return 0

    return count


def _is_builtin_encoding(enc: Any) -> str | None:
    """The built-in name ``enc`` is equivalent to, if any.

    An Encoding merely *named* cl100k_base but built with other rules must not take the Rust
    fast path, so the split pattern, special tokens and vocabulary size are compared too.
    """
    name = getattr(enc, "name", None)
    spec = ENCODINGS.get(name) if isinstance(name, str) else None
    if spec is None:
        return None
    try:
        same = (
            enc._pat_str == spec.pat_str
            and dict(enc._special_tokens) == spec.special_tokens
            and enc.n_vocab == max(spec.special_tokens.values()) + 1
        )
    except Exception:
        return None
    return spec.name if same else None


def resolve_tokenizer(tokenizer: object) -> ResolvedTokenizer:
    """Validate ``tokenizer`` and decide how it will be counted.

    Raises:
        ValueError: an unknown encoding name.
        TypeError: anything that is neither a name, an encoding, a tokenizer nor a callable.
    """
    if isinstance(tokenizer, str):
        if tokenizer not in BUILTIN_ENCODINGS:
            raise ValueError(
                f"tokenizer: unknown encoding {tokenizer!r}; built-in encodings are "
                f"{', '.join(BUILTIN_ENCODINGS)} (or pass a tiktoken.Encoding or a callable)"
            )
        return ResolvedTokenizer(builtin=tokenizer)
    cls = type(tokenizer)
    module = getattr(cls, "__module__", "") or ""
    if module.startswith("tiktoken") and hasattr(tokenizer, "encode"):
        name = _is_builtin_encoding(tokenizer)
        if name is not None:
            return ResolvedTokenizer(builtin=name)
        encode = tokenizer.encode
        exact = _checked(lambda text: len(encode(text)), "tiktoken.Encoding.encode")
        return ResolvedTokenizer(exact=exact, ragflow=_zero_on_value_error(exact), source=tokenizer)
    if module.startswith("tokenizers") and hasattr(tokenizer, "encode"):
        hf_encode = tokenizer.encode
        exact = _checked(
            lambda text: len(hf_encode(text, add_special_tokens=False).ids),
            "tokenizers.Tokenizer.encode",
        )
        return ResolvedTokenizer(exact=exact, ragflow=exact, source=tokenizer)
    if callable(tokenizer):
        exact = _checked(tokenizer, "the tokenizer callable")
        return ResolvedTokenizer(exact=exact, ragflow=exact, source=tokenizer)
    raise TypeError(
        "tokenizer must be an encoding name (str), a tiktoken.Encoding, a tokenizers.Tokenizer "
        f"or a callable str -> int, got {cls.__name__}"
    )
