"""Many documents at once: parallel batch calls and bounded-memory streaming."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..core import dispatch
from ..core.chunk import check_texts, check_workers
from ..core.counting import Counter
from ..core.tokenizers import resolve_tokenizer
from .merge import (
    DEFAULT_DELIMITER,
    MergeStrategy,
    _merge,
    _prepare,
    _sections,
)

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

    builtin = tok.builtin

    def one_by_one() -> list[list[str]]:
        # Also the path of a batch with a lone surrogate somewhere on the Rust backend: each
        # document then takes the backend that can read it.
        return [
            _merge(texts, poses, ctn, delim, ovl, strat, comp, tok, with_sources=False)[0]
            if texts
            else []
            for texts, poses in prepared
        ]

    if builtin is None:  # a Python tokenizer needs the GIL: one document after another
        return one_by_one()
    return dispatch.run(
        lambda core: core.naive_merge_batch(
            prepared, ctn, delim, ovl, strat, comp, builtin, n_workers
        ),
        one_by_one,
    )


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

    def run(batch: list[Any]) -> list[list[str]]:
        return naive_merge_batch(
            batch,
            chunk_token_num,
            delimiter,
            overlapped_percent,
            strategy,
            tokenizer=tokenizer,
            compat=compat,
            workers=workers,
        )

    batch = list(itertools.islice(iterator, batch_size))
    if not batch:
        return
    try:
        builtin = resolve_tokenizer(tokenizer).builtin is not None
    except (TypeError, ValueError):
        builtin = False  # the first batch raises it, after the other arguments' checks
    if workers == 1 or dispatch.name() != "rust" or not builtin:
        # Nothing would run beside the caller: one batch after the other.
        offset = 0
        while batch:
            try:
                results = run(batch)
            except (TypeError, ValueError) as exc:
                _reindex(exc, offset)
                raise
            yield from results
            del results
            offset += len(batch)
            batch = list(itertools.islice(iterator, batch_size))
        return
    # Each batch ends with its slowest document on one core and the conversion of the last
    # results; computing the next batch in a background thread (the Rust batch releases the
    # GIL) while this one is yielded keeps both cores busy across batches. At most two batches
    # are alive at once, so memory stays flat.
    with ThreadPoolExecutor(1, thread_name_prefix="ragchunk-stream") as executor:
        future = executor.submit(run, batch)
        offset = 0
        while True:
            try:
                results = future.result()
            except (TypeError, ValueError) as exc:
                _reindex(exc, offset)
                raise
            following: Future[list[list[str]]] | None = None
            pull_error: Exception | None = None
            for k, chunks in enumerate(results):
                yield chunks
                if k == 0:
                    # The consumer wants more than the first result: start the next batch.
                    # Not earlier, so the source is read one batch ahead at most, and only
                    # once the consumer is inside this one (``next()`` pulls one batch).
                    try:
                        batch_after = list(itertools.islice(iterator, batch_size))
                    except Exception as exc:  # raised where the serial loop would raise it
                        pull_error = exc
                    else:
                        if batch_after:
                            following = executor.submit(run, batch_after)
            del results
            offset += len(batch)
            if pull_error is not None:
                raise pull_error
            if following is None:
                return
            batch, future = batch_after, following


def _reindex(exc: Exception, offset: int) -> None:
    """Raises ``exc``'s ``docs[i]:`` error again, ``i`` counted in the stream, not the batch."""
    message = str(exc)
    if message.startswith("docs["):
        index, _, rest = message[5:].partition("]")
        raise type(exc)(f"docs[{offset + int(index)}]{rest}") from None


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
    return Counter.shared(tokenizer, mode="exact").batch(texts, n_workers)
