"""CharacterSplitter: fixed windows of characters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._pure.splitters import character as _pure
from ..core import dispatch
from ..core.chunk import Chunk
from ._common import ChunkTuple, WindowSplitter, check_batch, check_sizes, configured, to_chunks

__all__ = ["CharacterSplitter"]


class CharacterSplitter(WindowSplitter):
    """Fixed windows of ``chunk_size`` characters (code points), stepping by
    ``chunk_size - chunk_overlap``.

    The trailing partial window is kept (``drop_last=False``, the default), so no text is
    lost; ``drop_last=True`` drops it, as the textbook loop
    ``for i in range(0, len(text) - chunk_size + 1, step)`` does. A window is only added when
    it reaches text the previous one did not cover.

    >>> t = "Clouds come floating into my life, no longer to carry rain or usher storm, "
    >>> t += "but to add color to my sunset sky."
    >>> CharacterSplitter(35, 5, drop_last=True).split_text(t)
    ['Clouds come floating into my life, ', 'ife, no longer to carry rain or ush', \
'r usher storm, but to add color to ']
    >>> CharacterSplitter(35, 5).split_text(t)[-1]
    'r to my sunset sky.'
    """

    def __init__(self, chunk_size: int, chunk_overlap: int = 0, drop_last: bool = False) -> None:
        self.chunk_size, self.chunk_overlap = check_sizes(chunk_size, chunk_overlap)
        if not isinstance(drop_last, bool):
            raise TypeError(f"drop_last must be a bool, got {type(drop_last).__name__}")
        self.drop_last = drop_last

    def __repr__(self) -> str:
        return (
            f"CharacterSplitter(chunk_size={self.chunk_size}, "
            f"chunk_overlap={self.chunk_overlap}, drop_last={self.drop_last})"
        )

    def _core(self, core: Any) -> Any:
        return configured(
            self,
            core,
            lambda c: c.CharacterSplitter(self.chunk_size, self.chunk_overlap, self.drop_last),
        )

    def _tuples(self, text: str) -> list[ChunkTuple]:
        return dispatch.run(
            lambda core: self._core(core).split(text),
            lambda: _pure.split(text, self.chunk_size, self.chunk_overlap, self.drop_last),
        )

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many texts, in parallel on the Rust backend, in input order."""
        docs = check_batch(texts, workers)

        def rust(core: Any) -> list[list[Chunk]]:
            results = self._core(core).split_batch(docs, workers)
            return [to_chunks(t, r) for t, r in zip(docs, results, strict=True)]

        return dispatch.run(rust, lambda: [self.split(t) for t in docs])
