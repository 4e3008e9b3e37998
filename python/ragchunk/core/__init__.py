"""What every chunker shares: the :class:`Chunk` type, the :class:`Splitter` protocol,
tokenizer resolution, errors, and the dispatch module that chooses the backend."""

from __future__ import annotations

from .chunk import Chunk, Splitter
from .errors import RagchunkError
from .tokenizers import BUILTIN_ENCODINGS, ResolvedTokenizer, resolve_tokenizer

__all__ = [
    "BUILTIN_ENCODINGS",
    "Chunk",
    "RagchunkError",
    "ResolvedTokenizer",
    "Splitter",
    "resolve_tokenizer",
]
