"""The one way ragchunk counts tokens: a :class:`Counter` made from a tokenizer argument,
counting on whichever backend is active when it is called.

A counter never builds the pure-Python backend's engine (``tiktoken``, the ``tokenizers``
package) until the fallback actually runs, so the compiled core counts with no optional
package installed. Three conventions are offered, one per ``mode``:

* ``"ordinary"``: ``len(encoding.encode_ordinary(text))`` — special-token text such as
  ``<|endoftext|>`` is plain text (what every splitter, embedder and model client measures);
* ``"exact"``: ``len(encoding.encode(text))`` — special-token text raises ``ValueError``
  (:func:`ragchunk.count_tokens`);
* ``"ragflow"``: RAGFlow's ``num_tokens_from_string`` — the count, or 0 where counting raises.

Lone surrogates (a Python ``str`` may hold them; they have no UTF-8 form) are counted the way
tiktoken recovers them, on both backends: a UTF-16 round trip that joins valid pairs and turns
each lone surrogate into U+FFFD (:func:`ragchunk.core.dispatch.fix_surrogates`).

A tokenizer given as a callable (or a ``tiktoken.Encoding`` that is not a built-in one) is
called as it is, on both backends; ``None`` counts characters.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from . import dispatch
from .tokenizers import ResolvedTokenizer, resolve_tokenizer

__all__ = ["MODES", "Counter", "counter"]

MODES = ("ordinary", "exact", "ragflow")

# The compiled core's single and batch counting functions for each mode; the batch ones take
# ``strict`` (``count_batch``) or not (``count_ordinary_batch``).
_RUST_SINGLE = {"ordinary": "count_ordinary", "exact": "count_tokens", "ragflow": "count_or_zero"}


def _fixed(text: str) -> str:
    """``text`` as it is counted: lone surrogates repaired as tiktoken repairs them."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return dispatch.fix_surrogates(text)
    return text


class Counter:
    """Counts tokens of text with one tokenizer, on the backend active at each call.

    Args:
        tokenizer: anything ``tokenizer=`` takes (see :mod:`ragchunk.core.tokenizers`), an
            already :class:`~ragchunk.core.tokenizers.ResolvedTokenizer`, or ``None`` to count
            characters.
        mode: ``"ordinary"`` (default), ``"exact"`` or ``"ragflow"`` (see the module).

    >>> count = Counter("cl100k_base")
    >>> count("hello world"), count.batch(["hello", "你好", ""])
    (2, [1, 2, 0])
    >>> Counter(None)("héllo")
    5
    >>> Counter("cl100k_base", mode="ragflow")("<|endoftext|>")
    0
    >>> Counter("cl100k_base", mode="nope")
    Traceback (most recent call last):
    ...
    ValueError: mode must be one of ('ordinary', 'exact', 'ragflow'), got 'nope'
    """

    __slots__ = ("_bound", "_pure", "mode", "resolved")

    def __init__(self, tokenizer: Any, *, mode: str = "ordinary") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        """The counting convention: ``"ordinary"``, ``"exact"`` or ``"ragflow"``."""
        if tokenizer is None or isinstance(tokenizer, ResolvedTokenizer):
            self.resolved: ResolvedTokenizer | None = tokenizer
        else:
            self.resolved = resolve_tokenizer(tokenizer)
        self._pure: Callable[[str], int] | None = None
        # The last bind(): (the compiled module it was made for, or None, and the function).
        self._bound: tuple[Any, Callable[[str], int]] | None = None

    @classmethod
    def shared(cls, tokenizer: Any, mode: str = "ordinary") -> Counter:
        """A :class:`Counter` kept per built-in or Hugging Face name (``"cl100k_base"``,
        ``"hf:..."``) and mode, so that calls counting with a name build it once; any other
        tokenizer gets a new one.

        >>> Counter.shared("cl100k_base") is Counter.shared("cl100k_base")
        True
        """
        if isinstance(tokenizer, ResolvedTokenizer) and tokenizer.builtin is not None:
            name: Any = tokenizer.builtin
        elif isinstance(tokenizer, str):
            name = tokenizer
        else:
            return cls(tokenizer, mode=mode)
        known = _SHARED.get((name, mode))
        if known is None:
            known = _SHARED.setdefault((name, mode), cls(tokenizer, mode=mode))
        return known

    @property
    def builtin(self) -> str | None:
        """The encoding the compiled core counts with (a built-in name or ``"hf:..."``), or
        ``None`` when counting is done by a Python callable or by characters."""
        return self.resolved.builtin if self.resolved is not None else None

    def __call__(self, text: str) -> int:
        """Tokens of ``text``."""
        return self.bind()(text)

    def bind(self) -> Callable[[str], int]:
        """A plain ``str -> int`` for the backend active now (for loops that count often: it
        skips the per-call dispatch)."""
        core = dispatch.core()
        bound = self._bound
        if bound is not None and bound[0] is core:
            return bound[1]
        fn = self._bind()
        self._bound = (core, fn)
        return fn

    def _bind(self) -> Callable[[str], int]:
        builtin = self.builtin
        if builtin is None:  # characters or a Python callable: the same on both backends
            return self.pure()
        fn_name = _RUST_SINGLE[self.mode]
        return dispatch.run(
            lambda core: dispatch.surrogate_safe(getattr(core, fn_name), builtin),
            self.pure,
        )

    def batch(self, texts: Sequence[str], workers: int | None = None) -> list[int]:
        """Tokens of each of ``texts``, in parallel with the GIL released on the Rust backend
        for a built-in or Hugging Face tokenizer. In ``"exact"`` mode the first text holding
        special-token text raises ``ValueError`` naming it (``texts[i]: ...``)."""
        docs = list(texts)
        builtin = self.builtin
        if builtin is not None:
            counts = dispatch.run(lambda core: self._rust_batch(core, docs, workers), lambda: None)
            if counts is not None:
                return counts
        count = self.bind()
        if self.mode != "exact":
            return [count(t) for t in docs]
        out = []
        for i, t in enumerate(docs):
            try:
                out.append(count(t))
            except ValueError as exc:
                raise ValueError(f"texts[{i}]: {exc}") from None
        return out

    def spans(self, text: str, spans: Sequence[tuple[int, int]]) -> list[int]:
        """Tokens of each ``text[start:end]`` for ``(start, end)`` code-point ``spans``: what
        ``batch`` gives for the slices, without making them as strings on the Rust backend for
        a built-in tokenizer in ``"ordinary"`` mode. A span that is not within the text
        (``0 <= start <= end <= len(text)``) raises ``ValueError`` naming it.

        >>> Counter("cl100k_base").spans("hello world", [(0, 5), (5, 11), (0, 11)])
        [1, 1, 2]
        >>> Counter("cl100k_base").spans("hello", [(2, 9)])
        Traceback (most recent call last):
        ...
        ValueError: spans[0] = (2, 9) is not a span of the text
        """
        listed = spans if type(spans) is list else list(spans)
        builtin = self.builtin
        if builtin is not None and self.mode == "ordinary":

            def rust(core: Any) -> list[int] | None:
                try:
                    return list(core.count_ordinary_spans(text, listed, builtin))
                except UnicodeEncodeError:  # lone surrogates: the slices are repaired one by one
                    return None

            counts = dispatch.run(rust, lambda: None)
            if counts is not None:
                return counts
        size = len(text)
        for i, (start, end) in enumerate(listed):
            if not 0 <= start <= end <= size:
                raise ValueError(f"spans[{i}] = ({start}, {end}) is not a span of the text")
        return self.batch(list(map(text.__getitem__, itertools.starmap(slice, listed))))

    def _rust_batch(self, core: Any, docs: list[str], workers: int | None) -> list[int]:
        builtin = self.builtin
        assert builtin is not None

        def once(items: list[str]) -> list[int]:
            if self.mode == "ordinary":
                return list(core.count_ordinary_batch(items, builtin, workers))
            return list(core.count_batch(items, builtin, self.mode == "exact", workers))

        try:
            return once(docs)
        except UnicodeEncodeError:
            return once([_fixed(t) for t in docs])

    def pure(self) -> Callable[[str], int]:
        """The pure-Python backend's ``str -> int`` (built on first use, then kept)."""
        if self._pure is not None:
            return self._pure
        resolved = self.resolved
        if resolved is None:
            return len
        builtin = resolved.builtin
        if builtin is None:
            return self._python_callable(resolved)
        from .._pure import tokenizer as pure_tokenizer

        if self.mode == "ragflow":
            # RAGFlow's own recovery already sits in its counter (0 on failure).
            inner = pure_tokenizer.ragflow_counter(builtin)
        elif self.mode == "exact":
            encode = pure_tokenizer.load_encoding(builtin).encode

            def inner(text: str) -> int:
                return len(encode(text))

        else:
            encode_ordinary = pure_tokenizer.load_encoding(builtin).encode_ordinary

            def inner(text: str) -> int:
                return len(encode_ordinary(text))

        def count(text: str) -> int:
            return inner(_fixed(text))

        self._pure = count
        return count

    def _python_callable(self, resolved: ResolvedTokenizer) -> Callable[[str], int]:
        if self.mode == "ragflow" and resolved.ragflow is not None:
            return resolved.ragflow
        assert resolved.exact is not None
        return resolved.exact

    def __getstate__(self) -> tuple[str, ResolvedTokenizer | None]:
        # The fallback's counter is a closure, which does not pickle; it is rebuilt on use.
        return self.mode, self.resolved

    def __setstate__(self, state: tuple[str, ResolvedTokenizer | None]) -> None:
        self.mode, self.resolved = state
        self._pure = None
        self._bound = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Counter):
            return NotImplemented
        return (self.mode, self.resolved) == (other.mode, other.resolved)

    def __hash__(self) -> int:
        return hash((self.mode, self.resolved))

    def __repr__(self) -> str:
        source = None if self.resolved is None else (self.builtin or self.resolved.source)
        return f"Counter({source!r}, mode={self.mode!r})"


_SHARED: dict[tuple[str, str], Counter] = {}


def counter(tokenizer: Any, *, mode: str = "ordinary") -> Counter:
    """A :class:`Counter` for ``tokenizer`` (``None``: characters).

    >>> counter("o200k_base").batch(["hello world"])
    [2]
    """
    return Counter(tokenizer, mode=mode)
