"""ragchunk's pure-Python backend: the fallback, and only that.

A complete, independent implementation of what the Rust core computes, used when the compiled
``ragchunk._core`` is unavailable or ``RAGCHUNK_BACKEND=python``. It is also the executable
reference the Rust core is tested against, so it is written for clarity first. It mirrors
``rust/`` file for file, with the same function names:

    tokenizer             built-in tiktoken encodings from the shipped vocabularies; RAGFlow's
                          counter                                   (rust/tokenizer/)
    ragflow/positions     RAGFlow PDF position tags                 (rust/ragflow/positions.rs)
    ragflow/delimiters    the delimiter field in each release's dialect, and splitting on it
                                                                    (rust/ragflow/delimiters/)
    ragflow/merge         ``naive_merge`` for v0.22-v0.27 behaviour (rust/ragflow/merge/)
    splitters/*           the general splitters and their packer, LlamaIndex's two
                          splitters                                 (rust/splitters/)
    documents/pdfium      a PDF page's characters and graphics      (rust/documents/pdfium.rs)
    documents/layout      a PDF page's lines, tables, figures       (rust/documents/layout/)
    semantic/, eval/      the embedding statistics, BM25            (rust/semantic/, rust/eval/)

Code that both backends run (argument checks, the JSON walk, image folding) lives outside
this package.
"""

from __future__ import annotations

from .ragflow.delimiters import has_wrapped_delimiter, legacy_delimiters, parse_delimiter_field
from .ragflow.merge import (
    COMPATS,
    DEFAULT_DELIMITER,
    STRATEGIES,
    naive_merge,
    naive_merge_sources,
    naive_merge_with_images,
    normalize_image_texts,
    normalize_sections,
)
from .ragflow.positions import extract_positions, remove_tag
from .tokenizer import count_tokens, load_encoding, num_tokens_from_string

__all__ = [
    "COMPATS",
    "DEFAULT_DELIMITER",
    "STRATEGIES",
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
