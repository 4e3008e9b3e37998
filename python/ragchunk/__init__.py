"""ragchunk: fast, exact chunking for retrieval-augmented generation.

The RAGFlow drop-ins (:func:`naive_merge` and relatives) return what RAGFlow's own functions
return, byte for byte, counted with the same tokenizer (tiktoken ``cl100k_base``), computed by
a Rust core. Without the compiled core a pure-Python fallback gives the same results.

>>> import ragchunk
>>> ragchunk.naive_merge("One.\\nTwo.", chunk_token_num=128)
['\\nOne.\\nTwo.']
"""

from __future__ import annotations

__version__ = "0.1.0"

from . import _backend, presets
from ._batch import count_tokens_batch, iter_naive_merge, naive_merge_batch
from ._chunk import Chunk, Splitter
from ._errors import RagchunkError
from ._naive import (
    COMPAT_FAMILIES,
    MergeStrategy,
    Position,
    count_tokens,
    extract_positions,
    naive_merge,
    naive_merge_offsets,
    naive_merge_with_images,
    naive_merge_with_positions,
    num_tokens_from_string,
    remove_tag,
)
from ._pure.images import LazyImage
from .association import associate_images, boxes_overlap
from .classic import CharacterSplitter, RecursiveSplitter, SentenceSplitter, TokenWindowSplitter
from .code import CodeSplitter, supported_languages
from .papers import PaperChunk, PaperSection, chunk_paper
from .pipeline import PipelineChunk, TokenChunker
from .structured import HTMLSplitter, JSONSplitter, MarkdownSplitter, TitleTreeChunker
from .tables import chunk_table, table_to_text

__all__ = [
    "COMPAT_FAMILIES",
    "CharacterSplitter",
    "Chunk",
    "CodeSplitter",
    "HTMLSplitter",
    "JSONSplitter",
    "LazyImage",
    "MarkdownSplitter",
    "MergeStrategy",
    "PaperChunk",
    "PaperSection",
    "PipelineChunk",
    "Position",
    "RagchunkError",
    "RecursiveSplitter",
    "SentenceSplitter",
    "Splitter",
    "TitleTreeChunker",
    "TokenChunker",
    "TokenWindowSplitter",
    "__version__",
    "associate_images",
    "backend",
    "boxes_overlap",
    "chunk_paper",
    "chunk_table",
    "count_tokens",
    "count_tokens_batch",
    "extract_positions",
    "iter_naive_merge",
    "naive_merge",
    "naive_merge_batch",
    "naive_merge_offsets",
    "naive_merge_with_images",
    "naive_merge_with_positions",
    "num_tokens_from_string",
    "presets",
    "remove_tag",
    "supported_languages",
    "table_to_text",
]

_backend._select()


def __getattr__(name: str) -> str:
    # ``ragchunk.backend`` is computed, so that it always names the backend in use.
    if name == "backend":
        return _backend.name()
    raise AttributeError(f"module 'ragchunk' has no attribute {name!r}")
