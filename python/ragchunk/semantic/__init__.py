"""Embedding-driven chunkers: semantic breakpoints, clustering, topics, and their diagnostics.

Needs numpy (the ``semantic`` extra); ``plot`` needs matplotlib (the ``plot`` extra).

>>> from ragchunk.semantic import SemanticChunker
>>> SemanticChunker(lambda texts: [[1.0, 0.0] for _ in texts]).split_text("One. Two.")
['One. Two.']
"""

from __future__ import annotations

from ._base import EmbeddingChunker, SemanticAnalysis
from .chunker import BREAKPOINT_DEFAULTS, SemanticChunker, threshold, threshold_for_chunks
from .cluster import ClusterSemanticChunker
from .plot import plot
from .smoothing import local_minima, savgol_smooth
from .topic import TopicChunker

__all__ = [
    "BREAKPOINT_DEFAULTS",
    "ClusterSemanticChunker",
    "EmbeddingChunker",
    "SemanticAnalysis",
    "SemanticChunker",
    "TopicChunker",
    "local_minima",
    "plot",
    "savgol_smooth",
    "threshold",
    "threshold_for_chunks",
]
