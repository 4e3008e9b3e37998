"""Many documents at once: parallel batch calls and bounded-memory streaming."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from . import _backend
from ._chunk import check_texts, check_workers
from ._naive import (
    DEFAULT_DELIMITER,
    MergeStrategy,
    _fix_surrogates,
    _merge,
    _prepare,
    _sections,
)
from ._tokenizers import resolve_tokenizer

__all__ = ["count_tokens_batch", "iter_naive_merge", "naive_merge_batch"]


def naive_merge_batch(
    docs: Sequence[Any],
    chunk_token_num: int | float = 128,
    delimiter: str | None = DEFAULT_DELIMITER,
    overlapped_percent: int | float = 0,
    strategy: MergeStrategy | str = MergeStrategy.OVER_CAP,
    *,
    tokenizer: Any = "cl100k_base",
    compat: str = "v0.27",
    workers: int | None = None,
) -> list[list[str]]:
    """:func:`ragchunk.naive_merge` over many documents, in parallel, results in input order.

    Each element of ``docs`` is what ``naive_merge`` takes as ``sections`` (a str, a list of
    str, or a list of ``(text, pos)`` pairs); result ``i`` equals
    ``naive_merge(docs[i], ...)``. With a built-in encoding the whole batch runs in one Rust
    call on ``workers`` threads (default: one per core) without holding the GIL. Other
    tokenizers (Python callables) run one document after another.

    Every document is validated before any work starts; an invalid one raises
    ``TypeError``/``ValueError`` whose message begins ``docs[i]:``, so nothing is half-done.

    >>> naive_merge_batch(["one。two", "three"], workers=2)
    [['\\none\\ntwo'], ['\\nthree']]
    """
    if isinstance(docs, (str, bytes)) or not isinstance(docs, Sequence):
        raise TypeError(f"docs must be a list of documents, got {type(docs).__name__}")
    n_workers = check_workers(workers)
    ctn, delim, ovl, strat, comp, tok = _prepare(
        chunk_token_num, delimiter, overlapped_percent, strategy, compat, tokenizer
    )
    prepared: list[tuple[list[str], list[str | None]]] = []
    for i, doc in enumerate(docs):
        try:
            texts, poses = _sections(doc)
        except TypeError as exc:
            raise TypeError(f"docs[{i}]: {exc}") from None
        if isinstance(doc, str) and not doc:
            texts, poses = [], []
        prepared.append((texts, poses))

    core = _backend.core()
    if core is not None and tok.builtin is not None:
        try:
            results: list[list[str]] = core.naive_merge_batch(
                prepared, ctn, delim, ovl, strat, comp, tok.builtin, n_workers
            )
            return results
        except UnicodeEncodeError:
            pass  # a lone surrogate somewhere: per-document calls handle it below
    return [
        _merge(texts, poses, ctn, delim, ovl, strat, comp, tok, with_sources=False)[0]
        if texts
        else []
        for texts, poses in prepared
    ]


def iter_naive_merge(
    docs: Iterable[Any],
    chunk_token_num: int | float = 128,
    delimiter: str | None = DEFAULT_DELIMITER,
    overlapped_percent: int | float = 0,
    strategy: MergeStrategy | str = MergeStrategy.OVER_CAP,
    *,
    tokenizer: Any = "cl100k_base",
    compat: str = "v0.27",
    workers: int | None = None,
    batch_size: int = 256,
) -> Iterator[list[str]]:
    """Stream :func:`naive_merge_batch` over any iterable, ``batch_size`` documents at a time.

    Yields one chunk list per document, in order. Only one batch of documents and results is
    held at a time, so memory stays flat on corpora larger than RAM (feed it a generator that
    reads files lazily). An invalid document raises when its batch is reached, with its index
    in the whole stream (``docs[i]:``); the chunks of every earlier document have been yielded.

    >>> list(iter_naive_merge(iter(["a", "b。c"]), batch_size=1))
    [['\\na'], ['\\nb\\nc']]
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int):
        raise TypeError(f"batch_size must be an int, got {type(batch_size).__name__}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if isinstance(docs, (str, bytes)):
        raise TypeError("docs must be an iterable of documents, not a single str")
    iterator = iter(docs)
    offset = 0
    while True:
        batch = list(itertools.islice(iterator, batch_size))
        if not batch:
            return
        try:
            results = naive_merge_batch(
                batch,
                chunk_token_num,
                delimiter,
                overlapped_percent,
                strategy,
                tokenizer=tokenizer,
                compat=compat,
                workers=workers,
            )
        except (TypeError, ValueError) as exc:
            message = str(exc)
            if message.startswith("docs["):
                index, _, rest = message[5:].partition("]")
                raise type(exc)(f"docs[{offset + int(index)}]{rest}") from None
            raise
        yield from results
        offset += len(batch)


def count_tokens_batch(
    texts: Sequence[str], tokenizer: Any = "cl100k_base", *, workers: int | None = None
) -> list[int]:
    """:func:`ragchunk.count_tokens` for many texts, in parallel for built-in encodings.

    Raises ``ValueError`` naming the first text (``texts[i]``) that holds special-token text.

    >>> count_tokens_batch(["hello world", "你好"])
    [2, 2]
    """
    texts = check_texts(texts)
    n_workers = check_workers(workers)
    tok = resolve_tokenizer(tokenizer)
    core = _backend.core()
    if core is not None and tok.builtin is not None:
        try:
            return list(core.count_batch(list(texts), tok.builtin, True, n_workers))
        except UnicodeEncodeError:
            fixed = [_fix_surrogates(t) for t in texts]
            return list(core.count_batch(fixed, tok.builtin, True, n_workers))
    from ._naive import count_tokens

    out = []
    for i, t in enumerate(texts):
        try:
            out.append(count_tokens(t, tokenizer))
        except ValueError as exc:
            raise ValueError(f"texts[{i}]: {exc}") from None
    return out
