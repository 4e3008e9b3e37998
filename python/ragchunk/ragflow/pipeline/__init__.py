"""RAGFlow's ingestion-pipeline chunking components.

* :class:`TokenChunker` and :class:`TitleChunker` are RAGFlow v0.27's pipeline components
  (``rag/flow/chunker/``), output for output: given the component's parameters as a pipeline
  DSL carries them and the upstream outputs, they return exactly the outputs dict RAGFlow
  sets. :func:`token_chunker` / :func:`title_chunker` are the one-shot forms and
  :func:`token_chunker_batch` / :func:`title_chunker_batch` run many documents.
* :class:`SplitterComponent` is a different, older design: a text-cleaning chunker modelled
  on the early ``Splitter`` component, returning cleaned chunk dicts (:class:`PipelineChunk`).

>>> from ragchunk.ragflow.pipeline import token_chunker
>>> token_chunker({}, {"name": "a.txt", "output_format": "text", "text": "One.\\nTwo."})
{'output_format': 'chunks', 'chunks': [{'text': 'One.\\nTwo.'}]}
"""

from __future__ import annotations

from .batch import title_chunker_batch, token_chunker_batch
from .splitter import PipelineChunk, SplitterComponent
from .title_chunker import TitleChunker, title_chunker
from .token_chunker import TokenChunker, token_chunker

__all__ = [
    "PipelineChunk",
    "SplitterComponent",
    "TitleChunker",
    "TokenChunker",
    "title_chunker",
    "title_chunker_batch",
    "token_chunker",
    "token_chunker_batch",
]
