"""ragchunk's pure-Python backend.

A complete, independent implementation of the RAGFlow drop-ins, used when the
compiled ``ragchunk._core`` is unavailable or ``RAGCHUNK_BACKEND=python``. It is
also the executable reference that the Rust core is tested against, so it is
written for clarity first.

Modules:
    tokens      built-in tiktoken encodings from the shipped vocabularies; RAGFlow's counter
    positions   RAGFlow PDF position tags (``remove_tag``, ``extract_positions``)
    delimiters  the delimiter field in each release's dialect, and splitting on it
    merge       ``naive_merge`` / ``naive_merge_with_images`` for v0.22-v0.27 behaviour
    images      RAGFlow's ``concat_img`` and a lazy image
"""

from __future__ import annotations

from .delimiters import has_wrapped_delimiter, legacy_delimiters, parse_delimiter_field
from .images import LazyImage, concat_img
from .merge import (
    COMPATS,
    DEFAULT_DELIMITER,
    STRATEGIES,
    naive_merge,
    naive_merge_sources,
    naive_merge_with_images,
    normalize_image_texts,
    normalize_sections,
)
from .positions import extract_positions, remove_tag
from .tokens import count_tokens, load_encoding, num_tokens_from_string

__all__ = [
    "COMPATS",
    "DEFAULT_DELIMITER",
    "STRATEGIES",
    "LazyImage",
    "concat_img",
    "count_tokens",
    "extract_positions",
    "has_wrapped_delimiter",
    "legacy_delimiters",
    "load_encoding",
    "naive_merge",
    "naive_merge_sources",
    "naive_merge_with_images",
    "normalize_image_texts",
    "normalize_sections",
    "num_tokens_from_string",
    "parse_delimiter_field",
    "remove_tag",
]
