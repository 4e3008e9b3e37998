"""RAGFlow's chunking, byte for byte: the ``naive_merge`` family, its batch and streaming
forms, offsets, position tags, images, the ingestion pipeline's components (TokenChunker,
TitleChunker), papers, tables and presets. Names and result shapes are RAGFlow's, because
that is the promise.

>>> from ragchunk.ragflow import naive_merge
>>> naive_merge("One.\\nTwo.", chunk_token_num=128)
['\\nOne.\\nTwo.']
"""

from __future__ import annotations

from ..core.images import LazyImage, concat_img
from . import presets
from .association import associate_images, boxes_overlap
from .batch import count_tokens_batch, iter_naive_merge, naive_merge_batch
from .merge import (
    COMPAT_FAMILIES,
    DEFAULT_DELIMITER,
    MergeStrategy,
    naive_merge,
    naive_merge_offsets,
    naive_merge_with_images,
    naive_merge_with_positions,
)
from .papers import PaperChunk, PaperSection, chunk_paper
from .pipeline import PipelineChunk, SplitterComponent, TitleChunker, TokenChunker
from .positions import Position, extract_positions, remove_tag
from .tables import chunk_table, table_to_text
from .tokens import count_tokens, num_tokens_from_string

__all__ = [
    "COMPAT_FAMILIES",
    "DEFAULT_DELIMITER",
    "LazyImage",
    "MergeStrategy",
    "PaperChunk",
    "PaperSection",
    "PipelineChunk",
    "Position",
    "SplitterComponent",
    "TitleChunker",
    "TokenChunker",
    "associate_images",
    "boxes_overlap",
    "chunk_paper",
    "chunk_table",
    "concat_img",
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
    "table_to_text",
]
