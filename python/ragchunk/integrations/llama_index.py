"""A LlamaIndex ``NodeParser`` backed by any ragchunk chunker.

Each node carries the chunk's exact ``start_char_idx``/``end_char_idx`` in its document
(LlamaIndex's own parsers search for the node text, which lands on an earlier copy of
repeated text), a ``SOURCE`` relationship to the document and ``PREVIOUS``/``NEXT``
relationships between the nodes of one document; the chunk's ragchunk metadata (Markdown
``headers``...) is added to the node's metadata. It works wherever LlamaIndex takes a
transformation: ``IngestionPipeline(transformations=[RagchunkNodeParser(...)])``,
``VectorStoreIndex.from_documents(..., transformations=[...])``.

Needs ``llama-index-core`` (``pip install 'ragchunk[llama-index]'``).

>>> from llama_index.core import Document
>>> parser = RagchunkNodeParser.from_chunker(ragchunk.CharacterSplitter(6))
>>> nodes = parser.get_nodes_from_documents([Document(text="Same. Same. Same. ")])
>>> [(n.text, n.start_char_idx, n.end_char_idx) for n in nodes]
[('Same. ', 0, 6), ('Same. ', 6, 12), ('Same. ', 12, 18)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.bridge.pydantic import Field
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.schema import BaseNode, Document, MetadataMode, NodeRelationship, TextNode

import ragchunk
from ragchunk.core.chunk import Splitter

__all__ = ["RagchunkNodeParser"]


class RagchunkNodeParser(NodeParser):
    """Nodes from a ragchunk chunker, with exact character offsets.

    >>> parser = RagchunkNodeParser.from_chunker(ragchunk.RecursiveSplitter(8, 0))
    >>> parser.chunker == ragchunk.RecursiveSplitter(8, 0)
    True
    """

    chunker: Any = Field(description="the ragchunk chunker (a ragchunk.Splitter)")
    workers: int | None = Field(default=None, description="threads per batch of documents")

    @classmethod
    def from_chunker(
        cls, chunker: Splitter, *, workers: int | None = None, **kwargs: Any
    ) -> RagchunkNodeParser:
        """A parser for ``chunker``; ``kwargs`` are NodeParser options
        (``include_metadata``, ``include_prev_next_rel``...).

        >>> RagchunkNodeParser.from_chunker(ragchunk.SentenceSplitter(64)).workers is None
        True
        """
        if not isinstance(chunker, Splitter):
            raise TypeError(f"chunker must be a ragchunk chunker, got {type(chunker).__name__}")
        return cls(chunker=chunker, workers=workers, **kwargs)

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's name for this transformation.

        >>> RagchunkNodeParser.class_name()
        'RagchunkNodeParser'
        """
        return "RagchunkNodeParser"

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        texts = [n.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        out: list[BaseNode] = []
        for parent, chunks in zip(
            nodes, self.chunker.split_batch(texts, self.workers), strict=True
        ):
            source = parent.as_related_node_info()
            for chunk in chunks:
                node = TextNode(
                    id_=self.id_func(len(out), parent),
                    text=chunk.text,
                    start_char_idx=chunk.start,
                    end_char_idx=chunk.end,
                    metadata=dict(chunk.metadata) if self.include_metadata else {},
                    excluded_embed_metadata_keys=list(parent.excluded_embed_metadata_keys),
                    excluded_llm_metadata_keys=list(parent.excluded_llm_metadata_keys),
                    relationships={NodeRelationship.SOURCE: source},
                )
                out.append(node)
        return out

    def _postprocess_parsed_nodes(
        self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]
    ) -> list[BaseNode]:
        # The base class searches each node's text in its document (str.find) and overwrites
        # the offsets with what it finds; the chunker's offsets are exact, so they are kept.
        exact = [
            (n.start_char_idx, n.end_char_idx) if isinstance(n, TextNode) else None for n in nodes
        ]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, span in zip(nodes, exact, strict=True):
            if span is not None and isinstance(node, TextNode):
                node.start_char_idx, node.end_char_idx = span
        return nodes


_ = ragchunk  # the doctests name ragchunk's chunkers
