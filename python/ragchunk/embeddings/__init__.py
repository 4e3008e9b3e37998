"""Embedders for the embedding-aware chunkers: one protocol, adapters, a cache, the window
guard, an OpenAI-compatible HTTP embedder and the WordLlama model shipped with its wheel.

Needs numpy (the ``semantic`` extra: ``pip install 'ragchunk[semantic]'``);
``import ragchunk`` does not import this package.

>>> from ragchunk.embeddings import as_embedder
>>> as_embedder(lambda texts: [[float(len(t)), 1.0] for t in texts]).embed(["ab"]).tolist()
[[2.0, 1.0]]
"""

from __future__ import annotations

from .base import Embedder, EmbedderStats, ManagedEmbedder, as_embedder, check_embeddings
from .cache import EmbeddingCache
from .openai import OpenAICompatibleEmbedder
from .wordllama import WordLlamaEmbedder, load_wordllama

__all__ = [
    "Embedder",
    "EmbedderStats",
    "EmbeddingCache",
    "ManagedEmbedder",
    "OpenAICompatibleEmbedder",
    "WordLlamaEmbedder",
    "as_embedder",
    "check_embeddings",
    "load_wordllama",
]
