"""The adapters of :mod:`ragchunk.integrations.langchain`: ragchunk's chunkers behind
LangChain's ``TextSplitter`` interface, with ragchunk's chunking and exact offsets (import
them from :mod:`ragchunk.integrations.langchain`)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, ClassVar

from langchain_core.documents import Document
from langchain_text_splitters import TextSplitter

import ragchunk
from ragchunk.core.chunk import Splitter

__all__ = [
    "CharacterWindowTextSplitter",
    "CodeTextSplitter",
    "HTMLTextSplitter",
    "JSONTextSplitter",
    "MarkdownSectionTextSplitter",
    "RagchunkTextSplitter",
    "RecursiveTextSplitter",
    "SentenceTextSplitter",
    "TitleTreeTextSplitter",
    "TokenWindowTextSplitter",
]


class RagchunkTextSplitter(TextSplitter):
    """Any ragchunk chunker as a LangChain ``TextSplitter``.

    Args:
        chunker: a configured ragchunk chunker; when omitted, the subclass's
            ``chunker_class`` is built from ``kwargs``.
        add_start_index: put the chunk's exact ``start_index`` (and ``end_index``) in its
            metadata (default True).
        workers: threads for ``create_documents`` over many texts (default: one per core).

    >>> s = RagchunkTextSplitter(ragchunk.CharacterSplitter(4))
    >>> s.split_text("abcdefgh")
    ['abcd', 'efgh']
    """

    chunker_class: ClassVar[type[Splitter] | None] = None

    def __init__(
        self,
        chunker: Splitter | None = None,
        *,
        add_start_index: bool = True,
        workers: int | None = None,
        **kwargs: Any,
    ) -> None:
        if chunker is None:
            if self.chunker_class is None:
                raise TypeError("chunker is required (a ragchunk chunker)")
            chunker = self.chunker_class(**kwargs)
        elif kwargs:
            raise TypeError(f"give a chunker or its options, not both: {sorted(kwargs)}")
        if not isinstance(chunker, Splitter):
            raise TypeError(f"chunker must be a ragchunk chunker, got {type(chunker).__name__}")
        size = getattr(chunker, "chunk_size", None)
        super().__init__(
            chunk_size=size if isinstance(size, int) and size > 0 else 1,
            chunk_overlap=0,
            add_start_index=add_start_index,
        )
        self.chunker = chunker
        self.workers = workers

    def split_text(self, text: str) -> list[str]:
        """The chunk strings of ``text``."""
        return [c.text for c in self.chunker.split(text)]

    def create_documents(
        self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
    ) -> list[Document]:
        """One ``Document`` per chunk, with the source's metadata, the chunk's exact
        ``start_index``/``end_index`` (with ``add_start_index``) and its ragchunk metadata."""
        texts = list(texts)
        metas: Sequence[dict[Any, Any]] = metadatas or [{}] * len(texts)
        if len(metas) != len(texts):
            raise ValueError(f"metadatas has {len(metas)} entries for {len(texts)} texts")
        documents = []
        for meta, chunks in zip(metas, self.chunker.split_batch(texts, self.workers), strict=True):
            for chunk in chunks:
                metadata = copy.deepcopy(meta)
                metadata.update(copy.deepcopy(dict(chunk.metadata)))
                if self._add_start_index:
                    metadata["start_index"] = chunk.start
                    metadata["end_index"] = chunk.end
                documents.append(Document(page_content=chunk.text, metadata=metadata))
        return documents


class CharacterWindowTextSplitter(RagchunkTextSplitter):
    """:class:`ragchunk.CharacterSplitter` (fixed windows of characters) as a LangChain
    splitter. LangChain's own ``CharacterTextSplitter`` (split at a separator, then merge) is
    :class:`CharacterTextSplitter`.

    >>> CharacterWindowTextSplitter(chunk_size=3).split_text("abcdef")
    ['abc', 'def']
    """

    chunker_class = ragchunk.CharacterSplitter


class TokenWindowTextSplitter(RagchunkTextSplitter):
    """:class:`ragchunk.TokenWindowSplitter` as a LangChain splitter.

    >>> TokenWindowTextSplitter(chunk_size=2).split_text("one two three")
    ['one two', ' three']
    """

    chunker_class = ragchunk.TokenWindowSplitter


class RecursiveTextSplitter(RagchunkTextSplitter):
    """:class:`ragchunk.RecursiveSplitter` (LangChain's recursive splitting, exact offsets).

    >>> RecursiveTextSplitter(chunk_size=2, chunk_overlap=0).split_text("one two three")
    ['one two', 'three']
    """

    chunker_class = ragchunk.RecursiveSplitter


class SentenceTextSplitter(RagchunkTextSplitter):
    """:class:`ragchunk.SentenceSplitter` as a LangChain splitter.

    >>> SentenceTextSplitter(chunk_size=4).split_text("One two. Three four.")
    ['One two.', 'Three four.']
    """

    chunker_class = ragchunk.SentenceSplitter


class MarkdownSectionTextSplitter(RagchunkTextSplitter):
    """:class:`ragchunk.MarkdownSplitter` (sections under their heading path) as a LangChain
    splitter; each document's metadata has its ``headers``. LangChain's own
    ``MarkdownTextSplitter`` (recursive splitting at Markdown separators) is
    :class:`MarkdownTextSplitter`.

    >>> MarkdownSectionTextSplitter(chunk_size=64).create_documents(["# A\\n\\ntext"])[0].metadata
    {'headers': ['A'], 'start_index': 0, 'end_index': 9}
    """

    chunker_class = ragchunk.MarkdownSplitter


class HTMLTextSplitter(RagchunkTextSplitter):
    """:class:`ragchunk.HTMLSplitter` as a LangChain splitter.

    >>> HTMLTextSplitter(chunk_size=64).split_text("<h1>A</h1><p>text</p>")
    ['A\\n\\ntext']
    """

    chunker_class = ragchunk.HTMLSplitter


class JSONTextSplitter(RagchunkTextSplitter):
    """:class:`ragchunk.JSONSplitter` as a LangChain splitter.

    >>> JSONTextSplitter(chunk_size=64).split_text('{"a": 1}')
    ['{"a": 1}']
    """

    chunker_class = ragchunk.JSONSplitter


class CodeTextSplitter(RagchunkTextSplitter):
    """:class:`ragchunk.CodeSplitter` (syntax-aware) as a LangChain splitter.

    >>> CodeTextSplitter(language="python", chunk_size=64).split_text("x = 1\\n")
    ['x = 1']
    """

    chunker_class = ragchunk.CodeSplitter


class TitleTreeTextSplitter(RagchunkTextSplitter):
    """:class:`ragchunk.TitleTreeChunker` as a LangChain splitter.

    >>> len(TitleTreeTextSplitter(chunk_size=64).split_text("# A\\n\\ntext"))
    1
    """

    chunker_class = ragchunk.TitleTreeChunker
