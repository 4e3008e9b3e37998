"""ragchunk: fast, exact chunking for retrieval-augmented generation.

The RAGFlow drop-ins (:func:`naive_merge` and relatives) return what RAGFlow's own functions
return, byte for byte, counted with the same tokenizer (tiktoken ``cl100k_base``), computed by
a Rust core. Without the compiled core a pure-Python fallback gives the same results.

>>> import ragchunk
>>> ragchunk.naive_merge("One.\\nTwo.", chunk_token_num=128)
['\\nOne.\\nTwo.']
"""

from __future__ import annotations

import sys

from . import ragflow as _ragflow
from . import splitters as _splitters
from .core import dispatch as _dispatch
from .core.chunk import Chunk, Splitter
from .core.errors import RagchunkError
from .core.images import LazyImage
from .core.tokenizers import Tokenizer, available_tokenizers
from .core.version import __version__
from .ragflow import presets
from .ragflow.association import associate_images, boxes_overlap
from .ragflow.batch import count_tokens_batch, iter_naive_merge, naive_merge_batch
from .ragflow.merge import (
    COMPAT_FAMILIES,
    MergeStrategy,
    naive_merge,
    naive_merge_offsets,
    naive_merge_with_images,
    naive_merge_with_positions,
)
from .ragflow.papers import PaperChunk, PaperSection, chunk_paper
from .ragflow.pipeline import PipelineChunk, SplitterComponent, TitleChunker, TokenChunker
from .ragflow.positions import Position, extract_positions, remove_tag
from .ragflow.tables import chunk_table, table_to_text
from .ragflow.tokens import count_tokens, num_tokens_from_string
from .splitters.character import CharacterSplitter
from .splitters.code import CodeSplitter, supported_languages
from .splitters.html import HTMLSplitter
from .splitters.json import JSONSplitter
from .splitters.markdown import MarkdownSplitter
from .splitters.recursive import RecursiveSplitter
from .splitters.sentence import SentenceSplitter
from .splitters.title_tree import TitleTreeChunker
from .splitters.token_window import TokenWindowSplitter

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
    "SplitterComponent",
    "TitleChunker",
    "TitleTreeChunker",
    "TokenChunker",
    "TokenWindowSplitter",
    "Tokenizer",
    "__version__",
    "associate_images",
    "available_tokenizers",
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

# Modules that moved keep their old import paths (``from ragchunk.classic import ...``,
# ``import ragchunk.presets``): each old name is an alias of the module that holds its names.
_MOVED = {
    "association": _ragflow.association,
    "classic": _splitters,
    "code": _splitters.code,
    "papers": _ragflow.papers,
    "pipeline": _ragflow.pipeline,
    "presets": _ragflow.presets,
    "structured": _splitters,
    "tables": _ragflow.tables,
}
for _old, _new in _MOVED.items():
    sys.modules[f"{__name__}.{_old}"] = _new

_dispatch.select()


def __getattr__(name: str) -> object:
    # ``ragchunk.backend`` is computed, so that it always names the backend in use.
    if name == "backend":
        return _dispatch.name()
    if name in _MOVED:
        return _MOVED[name]
    raise AttributeError(f"module 'ragchunk' has no attribute {name!r}")
