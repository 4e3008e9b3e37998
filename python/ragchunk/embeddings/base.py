"""The one embedder protocol, the adapters that make any common embedding object fit it, and
the wrapper every embedding-aware chunker calls through (validation, de-duplication,
batching, cache, window guard)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..core import dispatch
from ..core.optional import np
from .cache import EmbeddingCache
from .counting import BatchCounter, batch_counter

__all__ = [
    "Embedder",
    "EmbedderStats",
    "ManagedEmbedder",
    "as_embedder",
    "check_embeddings",
]


@runtime_checkable
class Embedder(Protocol):
    """Anything with ``embed(texts) -> array of shape (len(texts), dim)``.

    An embedder may also declare ``max_tokens`` (its input window) and ``tokenizer`` (a
    built-in encoding name or a ``str -> int`` counter) and ``model`` (a name, the cache key);
    ragchunk then never sends it a text longer than the window.

    >>> import numpy as np
    >>> class Ones:
    ...     def embed(self, texts):
    ...         return np.ones((len(texts), 2), dtype=np.float32)
    >>> isinstance(Ones(), Embedder)
    True
    """

    def embed(self, texts: list[str]) -> Any: ...


def check_embeddings(value: Any, rows: int, name: str = "embeddings") -> Any:
    """``value`` as a C-contiguous float32 ``(rows, dim)`` array, or a clear error naming
    ``name``: ``TypeError`` for a non-numeric or non-float result, ``ValueError`` for a wrong
    shape, a wrong number of rows, or NaN/infinite values.

    >>> check_embeddings([[1.0, 0.0]], 1).dtype
    dtype('float32')
    >>> check_embeddings([[1.0, float("nan")]], 1)
    Traceback (most recent call last):
    ...
    ValueError: embeddings holds NaN or infinite values (row 0)
    """
    if type(value) is list:  # LangChain's list of lists: converted in one pass in Rust
        fast = _float_rows(value, rows)
        if fast is not None:
            return fast
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 2-D array of floats: {exc}") from None
    if arr.dtype == object:
        raise TypeError(f"{name} must be a 2-D array of floats, got ragged or non-numeric data")
    if not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(f"{name} must hold floats, got dtype {arr.dtype}")
    if rows == 0 and arr.size == 0:
        return np.zeros((0, arr.shape[-1] if arr.ndim == 2 else 0), dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (rows, dim), got shape {arr.shape}")
    if arr.shape[0] != rows:
        raise ValueError(f"{name} has {arr.shape[0]} rows for {rows} texts")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has zero-length vectors")
    out = np.ascontiguousarray(arr, dtype=np.float32)
    finite = np.isfinite(out).all(axis=1)
    if not finite.all():
        raise ValueError(f"{name} holds NaN or infinite values (row {int(np.argmin(finite))})")
    return out


def _float_rows(value: list[Any], rows: int) -> Any:
    """``value`` as a float32 ``(rows, dim)`` array when it is a list of ``rows`` lists of
    the same non-zero length holding only finite floats (the Rust core reads the lists
    directly), else None: the general path then converts and reports."""

    def rust(core: Any) -> Any:
        got = core.semantic_rows_f32(value, rows)
        if got is None:
            return None
        data, dim = got
        return np.frombuffer(data, dtype=np.float32).reshape(rows, dim)

    return dispatch.run(rust, lambda: None)


def _raw_function(obj: Any) -> tuple[Callable[[list[str]], Any], str]:
    """``(texts -> vectors, kind)`` for the supported embedding objects."""
    if hasattr(obj, "embed_documents"):  # LangChain Embeddings
        return (lambda texts: obj.embed_documents(texts)), "langchain"
    if hasattr(obj, "get_text_embedding_batch"):  # LlamaIndex BaseEmbedding
        return (lambda texts: obj.get_text_embedding_batch(texts)), "llamaindex"
    if hasattr(obj, "embed") and callable(obj.embed):
        return (lambda texts: obj.embed(texts)), "embed"
    if hasattr(obj, "encode") and callable(obj.encode):  # sentence-transformers, model2vec
        return (lambda texts: obj.encode(texts)), "encode"
    if callable(obj):
        return (lambda texts: obj(texts)), "callable"
    raise TypeError(
        "embedder must be callable or have embed(), encode(), embed_documents() or "
        f"get_text_embedding_batch(), got {type(obj).__name__}"
    )


def _model_name(obj: Any) -> str:
    for attr in ("model", "model_name", "name"):
        value = getattr(obj, attr, None)
        if isinstance(value, str) and value:
            return value
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


@dataclass
class EmbedderStats:
    """What a :class:`ManagedEmbedder` did: ``requested`` texts asked for, ``unique`` after
    de-duplication, ``cache_hits``, ``embedded`` texts sent to the model, in ``calls`` calls.

    >>> EmbedderStats().saved
    0
    """

    requested: int = 0
    unique: int = 0
    cache_hits: int = 0
    embedded: int = 0
    calls: int = 0

    @property
    def saved(self) -> int:
        """Texts the model did not have to embed (duplicates and cache hits)."""
        return self.requested - self.embedded


class ManagedEmbedder:
    """Any embedder behind one front: identical texts embedded once, batches of at most
    ``batch_size`` texts of similar lengths (models pad a batch to its longest text), an
    optional persistent :class:`EmbeddingCache`, results validated (:func:`check_embeddings`),
    and the window guard: with ``max_tokens`` known, a text longer than the window is a
    ``ValueError`` (the chunkers split first; nothing is truncated).

    Build it with :func:`as_embedder`.

    >>> import numpy as np
    >>> calls = []
    >>> def fn(texts):
    ...     calls.append(len(texts))
    ...     return np.array([[len(t), 1.0] for t in texts])
    >>> e = as_embedder(fn, batch_size=2)
    >>> e.embed(["a", "bb", "a", "ccc"]).shape, calls
    ((4, 2), [2, 1])
    >>> e.stats.saved
    1
    """

    def __init__(
        self,
        embedder: Any,
        *,
        batch_size: int = 256,
        cache: EmbeddingCache | str | None = None,
        max_tokens: int | None = None,
        tokenizer: Any = None,
        model: str | None = None,
    ) -> None:
        self._fn, self.kind = _raw_function(embedder)
        self.inner = embedder
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
        self.batch_size = batch_size
        if isinstance(cache, str):
            cache = EmbeddingCache(cache)
        if cache is not None and not isinstance(cache, EmbeddingCache):
            raise TypeError(f"cache must be an EmbeddingCache, a path or None, got {cache!r}")
        self.cache = cache
        if max_tokens is None:
            max_tokens = getattr(embedder, "max_tokens", None)
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise ValueError(f"max_tokens must be an int >= 1 or None, got {max_tokens!r}")
        self.max_tokens: int | None = max_tokens
        if tokenizer is None:
            tokenizer = getattr(embedder, "tokenizer", None)
            if tokenizer is not None and not (isinstance(tokenizer, str) or callable(tokenizer)):
                tokenizer = None  # a model's own tokenizer object, not a counter
        if max_tokens is not None and tokenizer is None:
            tokenizer = "cl100k_base"
        self.tokenizer = tokenizer
        self._count: BatchCounter | None = (
            batch_counter(tokenizer) if tokenizer is not None else None
        )
        self.model = model if model is not None else _model_name(embedder)
        self.stats = EmbedderStats()

    def __repr__(self) -> str:
        return (
            f"ManagedEmbedder({self.model!r}, kind={self.kind!r}, batch_size={self.batch_size}, "
            f"max_tokens={self.max_tokens}, cache={self.cache!r})"
        )

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token counts of ``texts`` in the embedder's tokenizer (``len`` when none is known)."""
        if self._count is None:
            return [len(t) for t in texts]
        return self._count(texts)

    def check_window(self, texts: Sequence[str]) -> None:
        """``ValueError`` when a text exceeds ``max_tokens``."""
        if self.max_tokens is None or self._count is None:
            return
        for i, n in enumerate(self._count(texts)):
            if n > self.max_tokens:
                raise ValueError(
                    f"texts[{i}] has {n} tokens, more than the embedder's max_tokens "
                    f"({self.max_tokens}); split it first (ragchunk never truncates)"
                )

    def _call(self, texts: list[str]) -> Any:
        self.stats.calls += 1
        try:
            result = self._fn(texts)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"embedder raised on a batch of {len(texts)} texts: {exc}") from exc
        except Exception as exc:
            raise ValueError(
                f"embedder raised {type(exc).__name__} on a batch of {len(texts)} texts: {exc}"
            ) from exc
        return check_embeddings(result, len(texts), "embedder's result")

    def embed_in_order(self, texts: list[str]) -> Any:
        """``(len(texts), dim)`` float32 vectors from ONE call of the embedder with ``texts``
        exactly as given: no de-duplication, sorting, batching or cache, for callers that
        must call the embedder as another library does (an embedder whose vectors depend on
        the call, such as a mock with per-call state or a hosted API's batching, then gives
        the same vectors). Validated like :meth:`embed`; the window guard applies.

        >>> calls = []
        >>> e = as_embedder(lambda texts: calls.append(list(texts)) or [[1.0]] * len(texts))
        >>> e.embed_in_order(["b", "a", "b"]).shape, calls
        ((3, 1), [['b', 'a', 'b']])
        """
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise TypeError(f"texts must be a list of str, got {type(texts).__name__}")
        texts = list(texts)
        _check_strs(texts)  # one C-level pass: this call's fixed cost counts on short texts
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        self.check_window(texts)
        self.stats.requested += len(texts)
        self.stats.unique += len(texts)
        out = self._call(texts)
        self.stats.embedded += len(texts)
        return out  # check_embeddings made it C-contiguous float32

    def embed(self, texts: list[str]) -> Any:
        """``(len(texts), dim)`` float32 vectors, row ``i`` for ``texts[i]``."""
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise TypeError(f"texts must be a list of str, got {type(texts).__name__}")
        _check_strs(texts)
        self.stats.requested += len(texts)
        # de-duplicated in first-seen order; position[t] is t's row among the unique texts
        position = dict.fromkeys(texts)
        unique = list(position)
        position.update(zip(unique, range(len(unique)), strict=True))
        self.stats.unique += len(unique)
        cached: dict[int, Any] = {}
        if self.cache is not None and unique:
            cached = self.cache.get(self.model, unique)
            self.stats.cache_hits += len(cached)
        todo = [i for i in range(len(unique)) if i not in cached] if cached else None
        if todo is None:
            self.check_window(unique)
            lengths = list(map(len, unique))
        else:
            self.check_window([unique[i] for i in todo])
            lengths = [len(unique[i]) for i in todo]
        # similar lengths batched together: models pad each batch to its longest text
        order = sorted(range(len(lengths)), key=lengths.__getitem__)
        if todo is not None:
            order = [todo[j] for j in order]
        table: Any = None
        for start in range(0, len(order), self.batch_size):
            part = order[start : start + self.batch_size]
            batch = [unique[i] for i in part]
            out = self._call(batch)
            self.stats.embedded += len(batch)
            if self.cache is not None:
                self.cache.put(self.model, batch, out)
            table = _place(table, len(unique), part, out)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        if cached:
            hits = list(cached)
            block = np.stack([np.asarray(cached[i], dtype=np.float32) for i in hits])
            table = _place(table, len(unique), hits, block)
        if len(unique) == len(texts):
            return table  # no repeats: row i is texts[i]
        return np.ascontiguousarray(table[list(map(position.__getitem__, texts))])


def _check_strs(texts: Sequence[Any]) -> None:
    """``TypeError`` naming the first item of ``texts`` that is not a ``str``."""
    if all(map(str.__instancecheck__, texts)):
        return
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"texts[{i}] must be a str, got {type(t).__name__}")


def _place(table: Any, rows: int, where: list[int], block: Any) -> Any:
    """``block``'s rows written into ``table`` (``rows`` x dim float32, made on first use) at
    rows ``where``; ``ValueError`` when the width differs from the rows already there."""
    block = np.asarray(block, dtype=np.float32)
    if table is None:
        table = np.empty((rows, block.shape[1]), dtype=np.float32)
    elif block.shape[1] != table.shape[1]:
        raise ValueError(
            "embedder returned vectors of different lengths: "
            f"{sorted({block.shape[1], table.shape[1]})}"
        )
    table[where] = block
    return table


def as_embedder(
    embedder: Any,
    *,
    batch_size: int = 256,
    cache: EmbeddingCache | str | None = None,
    max_tokens: int | None = None,
    tokenizer: Any = None,
    model: str | None = None,
) -> ManagedEmbedder:
    """Wrap any supported embedder in a :class:`ManagedEmbedder`.

    Accepted: an object with ``embed(texts)``, a plain callable ``texts -> vectors``, objects
    with ``.encode(texts)`` (sentence-transformers, model2vec, WordLlama), LangChain
    ``Embeddings`` (``embed_documents``), LlamaIndex ``BaseEmbedding``
    (``get_text_embedding_batch``), an :class:`~ragchunk.embeddings.OpenAICompatibleEmbedder`,
    or a ``ManagedEmbedder`` (returned as is when no option is given). ``max_tokens``,
    ``tokenizer`` and ``model`` override what the embedder declares.

    >>> e = as_embedder(lambda texts: [[1.0, 0.0] for _ in texts], model="ones")
    >>> e.embed(["x"]).tolist(), e.model
    ([[1.0, 0.0]], 'ones')
    >>> as_embedder(42)
    Traceback (most recent call last):
    ...
    TypeError: embedder must be callable or have embed(), encode(), embed_documents() or \
get_text_embedding_batch(), got int
    """
    if isinstance(embedder, ManagedEmbedder):
        if cache is None and max_tokens is None and tokenizer is None and model is None:
            return embedder
        embedder = embedder.inner
    return ManagedEmbedder(
        embedder,
        batch_size=batch_size,
        cache=cache,
        max_tokens=max_tokens,
        tokenizer=tokenizer,
        model=model,
    )
