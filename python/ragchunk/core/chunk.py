"""The chunk type and the base class every general-purpose chunker shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Chunk", "Splitter", "check_texts", "check_workers"]


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


class Splitter:
    """Base class of the chunkers: configure once, apply to many documents.

    Subclasses implement :meth:`split`; :meth:`split_text` and :meth:`split_batch` follow.

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

    def split(self, text: str) -> list[Chunk]:
        """Cut ``text`` into :class:`Chunk` objects with offsets into ``text``."""
        raise NotImplementedError

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
