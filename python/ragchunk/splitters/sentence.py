"""SentenceSplitter: whole sentences packed into chunks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from .._pure.splitters import sentence as _pure
from ..core import dispatch
from ..core.checks import check_int, check_text
from ..core.chunk import Chunk, Splitter
from ..core.counting import Counter
from ._common import ChunkTuple, check_batch, configured, measure, to_chunks

__all__ = ["SentenceSplitter"]


class SentenceSplitter(Splitter):
    """Whole sentences packed into chunks of at most ``chunk_size``.

    Sentence rules (Latin scripts, Chinese/Japanese and mixed text): ``. ! ? …`` end a
    sentence when followed by whitespace and a word that does not start in lowercase, except
    after an abbreviation (``Mr.``, ``Dr.``, ``vs.``, ``Fig.``...), an initial (``J. K.``) or a
    dotted abbreviation (``U.S.``, ``e.g.``); decimals never; closing quotes and brackets stay
    with their sentence; ``。！？；`` and their full-width forms end a sentence with no space
    needed; a line break ends a sentence. Sentences are packed greedily and every chunk is
    measured on its own text, so no chunk exceeds ``chunk_size``; a sentence longer than the
    budget is cut at the finest separator that fits (clauses ``; : ,`` and ``，、：``, then
    words, then characters), and only a single character worth more than ``chunk_size``
    tokens can exceed it. Chunks are source ranges: ``text == source[start:end]``.

    Args:
        chunk_size: the budget (int >= 1) in ``length`` units.
        chunk_overlap_sentences: how many sentences of a chunk's end also start the next one
            (fewer when they would not leave room for a new sentence).
        length: ``"tokens"`` (default) or ``"chars"``.
        tokenizer: as :class:`RecursiveSplitter`'s.

    >>> s = SentenceSplitter(chunk_size=20, length="chars")
    >>> s.split_text("Dr. Who arrived. He left.\\n你好。再见！")
    ['Dr. Who arrived.', 'He left.\\n你好。再见！']
    >>> SentenceSplitter.sentences("Mr. J. K. Smith paid $3.50. Then he left.")
    ['Mr. J. K. Smith paid $3.50.', 'Then he left.']
    """

    def __init__(
        self,
        chunk_size: int = 512,
        chunk_overlap_sentences: int = 0,
        length: Literal["tokens", "chars"] = "tokens",
        tokenizer: Any = "cl100k_base",
    ) -> None:
        self.chunk_size = check_int("chunk_size", chunk_size, 1)
        self.chunk_overlap_sentences = check_int(
            "chunk_overlap_sentences", chunk_overlap_sentences, 0
        )
        if not isinstance(length, str):
            raise TypeError(f"length must be a str, got {type(length).__name__}")
        self.length = length
        self.tokenizer = tokenizer
        self._encoding, self._resolved = measure(length, tokenizer)

    def __repr__(self) -> str:
        return (
            f"SentenceSplitter(chunk_size={self.chunk_size}, "
            f"chunk_overlap_sentences={self.chunk_overlap_sentences}, length={self.length!r}, "
            f"tokenizer={self.tokenizer!r})"
        )

    @staticmethod
    def sentence_spans(text: str) -> list[tuple[int, int]]:
        """``(start, end)`` code-point offsets of the sentences of ``text``."""
        text = check_text(text)
        return dispatch.run(lambda core: core.sentence_spans(text), lambda: _pure.sentences(text))

    @classmethod
    def sentences(cls, text: str) -> list[str]:
        """The sentences of ``text`` (surrounding whitespace removed)."""
        return [text[s:e] for s, e in cls.sentence_spans(text)]

    def _pure(self, text: str) -> list[ChunkTuple]:
        return _pure.split(
            text,
            self.chunk_size,
            self.chunk_overlap_sentences,
            Counter(self._resolved).pure(),
        )

    def _core(self, core: Any) -> Any:
        def build(compiled: Any) -> Any:
            callback = None  # the Python counting callable of a custom tokenizer
            if self.length == "tokens" and self._encoding is None:
                assert self._resolved is not None
                callback = self._resolved.exact
            return compiled.SentenceSplitter(
                self.chunk_size,
                self.chunk_overlap_sentences,
                self.length,
                self._encoding,
                callback,
            )

        return configured(self, core, build)

    def _tuples(self, text: str) -> list[ChunkTuple]:
        return dispatch.run(lambda core: self._core(core).split(text), lambda: self._pure(text))

    def split(self, text: str) -> list[Chunk]:
        """Chunks of whole sentences with code-point offsets."""
        text = check_text(text)
        return to_chunks(text, self._tuples(text))

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many texts, in input order; on the Rust backend in parallel with
        the GIL released (built-in tokenizers and ``length="chars"``), or one after another
        inside the core for a Python tokenizer."""
        docs = check_batch(texts, workers)

        def rust(core: Any) -> list[list[Chunk]]:
            results = self._core(core).split_batch(docs, workers)
            return [to_chunks(t, r) for t, r in zip(docs, results, strict=True)]

        return dispatch.run(rust, lambda: [self.split(t) for t in docs])
