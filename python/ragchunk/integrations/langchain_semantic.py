"""LangChain's ``SemanticChunker`` (``langchain_experimental.text_splitter``) backed by ragchunk.

:class:`SemanticChunker` is a subclass of LangChain's class taking the same arguments: change the
import and nothing else. It gives the same chunk strings, the same ``Document`` metadata, the same
``start_index`` (LangChain's running sum of chunk lengths, which is not the chunk's offset once
sentences are re-joined with single spaces) and calls ``embeddings.embed_documents`` exactly as
LangChain does: once per text of two or more sentences (three for ``"gradient"``), with every
sentence window in order. The sentence windows, the distances and the thresholds run in
ragchunk's core (:class:`ragchunk.semantic.SemanticChunker` with ``langchain_compat=True``).

>>> from ragchunk.integrations.langchain import SemanticChunker
>>> from langchain_core.embeddings import Embeddings
>>> class Topics(Embeddings):  # two topics: cats and stocks
...     def embed_documents(self, texts):
...         return [[t.count("cat") + 0.1, t.lower().count("stock") + 0.1] for t in texts]
...     def embed_query(self, text):
...         return self.embed_documents([text])[0]
>>> chunker = SemanticChunker(Topics(), buffer_size=0, breakpoint_threshold_amount=50)
>>> chunker.split_text("A cat sat. The cat slept. Stock prices fell. The stock rose.")
['A cat sat. The cat slept.', 'Stock prices fell. The stock rose.']

What ragchunk's core cannot reproduce exactly runs LangChain's own method, so the answer is
LangChain's either way: a ``breakpoint_threshold_type`` other than LangChain's four, an amount,
``buffer_size``, ``number_of_chunks`` or ``min_chunk_size`` that is not a plain number in range
(LangChain then raises, or not, as it does), a text that is not a ``str`` or holds lone
surrogates, and a subclass that overrides ``_get_single_sentences_list``,
``_calculate_sentence_distances`` or ``_calculate_breakpoint_threshold``. A
``sentence_split_regex`` other than the default splits with Python's ``re`` (as LangChain does)
and runs the rest in the core.

Needs ``langchain-experimental`` (``pip install 'ragchunk[langchain-semantic]'``).
"""

from __future__ import annotations

import re
import warnings

with warnings.catch_warnings():
    # langchain-experimental and langchain-community warn on import that they are no longer
    # maintained; the drop-in exists for the users they still have.
    warnings.filterwarnings("ignore", r"`langchain-\w+` is being sunset", DeprecationWarning)
    from langchain_experimental import text_splitter as _lce

from ragchunk._pure.semantic.distance import consecutive_cosine
from ragchunk.core import dispatch
from ragchunk.embeddings import as_embedder
from ragchunk.semantic import SemanticChunker as _RagchunkSemantic
from ragchunk.semantic import threshold, threshold_for_chunks

__all__ = ["SemanticChunker"]

_DEFAULT_REGEX = r"(?<=[.?!])\s+"
#: LangChain's hooks: a subclass overriding any of them gets LangChain's split_text.
_HOOKS = (
    "_get_single_sentences_list",
    "_calculate_sentence_distances",
    "_calculate_breakpoint_threshold",
    "_threshold_from_clusters",
)


def _plain_int(value: object, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _surrogate_free(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class SemanticChunker(_lce.SemanticChunker):
    """``langchain_experimental.text_splitter.SemanticChunker`` with ragchunk's engine (see the
    module's documentation for when LangChain's own code runs instead).

    >>> from ragchunk.integrations.langchain_semantic import SemanticChunker
    >>> class Flat:
    ...     def embed_documents(self, texts):
    ...         return [[1.0, 0.0] for _ in texts]
    >>> SemanticChunker(Flat()).split_text("One. Two. Three.")
    ['One. Two. Three.']
    """

    def _engine(self) -> _RagchunkSemantic | None:
        """The core chunker for the current settings (built again when they change), or None
        when LangChain's code must run."""
        for hook in _HOOKS:
            if getattr(type(self), hook) is not getattr(_lce.SemanticChunker, hook):
                return None
        kind, amount = self.breakpoint_threshold_type, self.breakpoint_threshold_amount
        chunks, minimum = self.number_of_chunks, self.min_chunk_size
        if kind not in ("percentile", "standard_deviation", "interquartile", "gradient"):
            return None
        if isinstance(amount, bool) or not isinstance(amount, (int, float)):
            return None
        if kind in ("percentile", "gradient") and not 0 <= amount <= 100:
            return None
        if not _plain_int(self.buffer_size, 0) or not isinstance(self.sentence_split_regex, str):
            return None
        if (chunks is not None and not _plain_int(chunks, 1)) or (
            minimum is not None and not _plain_int(minimum, 1)
        ):
            return None
        key = (id(self.embeddings), kind, float(amount), self.buffer_size, chunks, minimum)
        cached = self.__dict__.get("_ragchunk_engine")
        if cached is not None and cached[0] == key:
            engine: _RagchunkSemantic = cached[1]
            return engine
        try:
            engine = _RagchunkSemantic(
                self.embeddings,
                breakpoint_threshold_type=kind,
                breakpoint_threshold_amount=float(amount),
                buffer_size=self.buffer_size,
                number_of_chunks=chunks,
                min_chunk_size=minimum,
                langchain_compat=True,
            )
        except (TypeError, ValueError):
            return None
        self.__dict__["_ragchunk_engine"] = (key, engine)
        return engine

    def split_text(self, text: str) -> list[str]:
        """LangChain's chunks of ``text``."""
        engine = self._engine() if isinstance(text, str) and _surrogate_free(text) else None
        if engine is None:
            return list(super().split_text(text))
        if self.sentence_split_regex == _DEFAULT_REGEX:
            return engine.split_text(text)
        return self._split_custom(text)

    def _split_custom(self, text: str) -> list[str]:
        """LangChain's algorithm for a custom ``sentence_split_regex``: Python's ``re`` cuts
        the sentences (as LangChain's does), the core computes distances and thresholds."""
        sentences = re.split(self.sentence_split_regex, text)
        n = len(sentences)
        # LangChain's early returns: one sentence, or two with "gradient" (no gradient of one
        # distance); the embedder is not called.
        if n == 1 or (self.breakpoint_threshold_type == "gradient" and n == 2):
            return sentences
        b = self.buffer_size
        windows = [" ".join(sentences[max(0, i - b) : i + b + 1]) for i in range(n)]
        vectors = as_embedder(self.embeddings).embed_in_order(windows)
        distances = dispatch.run(
            lambda core: core.semantic_distances(vectors), lambda: consecutive_cosine(vectors)
        )
        if self.number_of_chunks is not None:
            limit, array = threshold_for_chunks(self.number_of_chunks, distances), distances
        else:
            limit, array = threshold(
                self.breakpoint_threshold_type, float(self.breakpoint_threshold_amount), distances
            )
        chunks: list[str] = []
        start = 0
        for index in (i for i, x in enumerate(array) if x > limit):
            joined = " ".join(sentences[start : index + 1])
            # LangChain's min_chunk_size rule: a too-short group is carried into the next one.
            if self.min_chunk_size is not None and len(joined) < self.min_chunk_size:
                continue
            chunks.append(joined)
            start = index + 1
        if start < n:
            chunks.append(" ".join(sentences[start:]))
        return chunks
