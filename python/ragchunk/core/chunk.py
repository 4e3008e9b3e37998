"""The chunk type and the base class every general-purpose chunker shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import dispatch

__all__ = ["Chunk", "MdChunkRaw", "Splitter", "check_texts", "check_workers"]

#: What the section packer (Markdown, HTML) returns per chunk, on both backends:
#: ``(start, end, size, section index, repeated prefix (start, end) or None)``.
MdChunkRaw = tuple[int, int, int, int, "tuple[int, int] | None"]


def check_texts(texts: object) -> list[str]:
    """Validate a batch of documents (a list or tuple of str, not a str) and return it as a list.

    Raises:
        TypeError: naming ``texts`` or the offending ``texts[i]``.
    """
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise TypeError(f"texts must be a list of str, got {type(texts).__name__}")
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"texts[{i}] must be a str, got {type(t).__name__}")
    return list(texts)


#: The most threads a batch call accepts (``workers=``); more is refused with a ValueError
#: rather than passed on to the core, where it would not fit a machine-size integer.
MAX_WORKERS = 1024


def check_workers(workers: object) -> int | None:
    """Validate ``workers``: None (one per core) or an int from 1 to :data:`MAX_WORKERS`."""
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers must be an int or None, got {type(workers).__name__}")
    if workers < 1 or workers > MAX_WORKERS:
        raise ValueError(f"workers must be >= 1 and <= {MAX_WORKERS}, got {workers}")
    return workers


@dataclass(frozen=True)
class Chunk:
    """One chunk of a document.

    Attributes:
        text: the chunk's text. ``text == source[start:end]`` unless the chunker documents
            that it adds text (an overlap prefix, a title path...); ``metadata`` then says what.
        start: code-point offset (Python ``str`` index) of the chunk in the source.
        end: one past the last code point, so ``[start, end)`` is half-open.
        token_count: the chunk's size in the chunker's unit (tokens by default).
        metadata: chunker-specific facts, e.g. ``headers`` for Markdown, ``language`` for code.

    >>> source = "Hello world. Bye."
    >>> c = Chunk(source[13:17], 13, 17, 2)
    >>> c.text == source[c.start : c.end], c.metadata
    (True, {})
    """

    text: str
    start: int
    end: int
    token_count: int
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def to_record(self, chunk_index: int) -> dict[str, Any]:
        """The chunk as the plain record that ``ragchunk chunk`` writes (one JSON line),
        :func:`ragchunk.documents.chunk_file` returns and the Arrow tables hold:
        ``chunk_index`` (its position in its document), ``text``, ``start``, ``end``,
        ``token_count`` and a copy of ``metadata``.

        >>> Chunk("Bye.", 13, 17, 2, {"pages": [1]}).to_record(3)
        {'chunk_index': 3, 'text': 'Bye.', 'start': 13, 'end': 17, 'token_count': 2, \
'metadata': {'pages': [1]}}
        """
        return {
            "chunk_index": chunk_index,
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "token_count": self.token_count,
            "metadata": dict(self.metadata),
        }


class Splitter:
    """Base class of the chunkers: configure once, apply to many documents.

    Subclasses implement :meth:`split`; :meth:`split_text` and :meth:`split_batch` follow.
    Chunkers pickle (so they can be shipped to the workers of Ray, Spark or a process pool)
    and compare equal when they are of one class with the same options.

    >>> class Lines(Splitter):
    ...     def split(self, text):
    ...         out, at = [], 0
    ...         for line in text.splitlines(keepends=True):
    ...             out.append(Chunk(line, at, at + len(line), len(line)))
    ...             at += len(line)
    ...         return out
    >>> Lines().split_batch(["a\\nb", "c"])[0][1]
    Chunk(text='b', start=2, end=3, token_count=1, metadata={})
    """

    def _public_state(self) -> dict[str, Any]:
        """The configuration: every attribute not starting with ``_`` (caches and resolved
        tokenizers do, and are rebuilt from it)."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def __eq__(self, other: object) -> bool:
        # Two chunkers of one class with the same options cut every text the same way: a
        # copy, or a pickled and unpickled chunker, equals its original.
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Splitter)
        return self._public_state() == other._public_state()

    def __hash__(self) -> int:
        # Options may be lists (unhashable); equal chunkers share their class, so its hash
        # keeps the contract. Lookups by the same object stay O(1) (identity is tried first).
        return hash(type(self))

    def split(self, text: str) -> list[Chunk]:
        """Cut ``text`` into :class:`Chunk` objects with offsets into ``text``."""
        raise NotImplementedError

    @property
    def tokenizer_name(self) -> str | None:
        """What chunk sizes are measured in: a built-in encoding's name, a Hugging Face
        tokenizer's key (``"hf:..."``), ``"callable"``, ``"chars"``, or ``None`` when the
        chunker has no size.

        >>> from ragchunk import RecursiveSplitter
        >>> RecursiveSplitter(chunk_size=64, tokenizer="o200k_base").tokenizer_name
        'o200k_base'
        """
        resolved = getattr(self, "_tok", None) or getattr(self, "_resolved", None)
        builtin = getattr(resolved, "builtin", None)
        if isinstance(builtin, str):
            return builtin
        if resolved is not None:
            return "callable"
        if getattr(self, "length", None) == "chars":
            return "chars"
        encoding = getattr(self, "_encoding", None)
        return encoding if isinstance(encoding, str) else None

    @property
    def holds_gil(self) -> bool:
        """Whether :meth:`split_batch` runs Python code for each document, so that threads
        would take turns: on the fallback backend, or when sizes are counted by a Python
        callable (a subclass that chunks in Python on either backend may say so by overriding
        it). Batch runners (``ragchunk chunk --parallel auto``) use processes then.

        >>> from ragchunk import RecursiveSplitter, backend
        >>> RecursiveSplitter(64).holds_gil == (backend == "python")
        True
        >>> RecursiveSplitter(64, tokenizer=lambda s: len(s.split())).holds_gil
        True
        """
        return not dispatch.compiled() or self.tokenizer_name == "callable"

    def split_text(self, text: str) -> list[str]:
        """Just the chunk strings of :meth:`split`."""
        return [c.text for c in self.split(text)]

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents, results in input order.

        Chunkers with a Rust implementation override this to run in parallel with the GIL
        released; this default runs one document after another.
        """
        check_workers(workers)
        return [self.split(t) for t in check_texts(texts)]
