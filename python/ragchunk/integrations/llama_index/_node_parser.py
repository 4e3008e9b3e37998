"""Any ragchunk chunker as a LlamaIndex node parser."""

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

    Each node has a ``SOURCE`` relationship to its document, ``PREVIOUS``/``NEXT``
    relationships to its neighbours in the same document, the document's metadata and the
    chunk's own (Markdown ``headers``...). ``id_func(i, document)`` gets the chunk's index
    within its own document, so a node's id does not depend on the other documents of the
    batch.

    ``start_char_idx``/``end_char_idx`` are the chunk's offsets where the node text is the
    document slice ``document.text[start:end]``, and ``None`` where it is not: HTML chunks
    (their offsets index the extracted text), JSON chunks (re-serialized), a Markdown or HTML
    table continued with its header repeated, chunks re-joined without their separators
    (``RecursiveSplitter(keep_separator=False)``).

    >>> parser = RagchunkNodeParser.from_chunker(ragchunk.RecursiveSplitter(8, 0))
    >>> parser.chunker == ragchunk.RecursiveSplitter(8, 0)
    True
    >>> parser.split_text("One sentence here. Another one there, and more words.")
    ['One sentence here. Another one there,', 'and more words.']
    """

    chunker: Any = Field(description="the ragchunk chunker (a ragchunk.Splitter)")
    workers: int | None = Field(default=None, description="threads per batch of documents")

    @classmethod
    def from_chunker(
        cls, chunker: Splitter, *, workers: int | None = None, **kwargs: Any
    ) -> RagchunkNodeParser:
        """A parser for ``chunker``; ``kwargs`` are NodeParser options
        (``include_metadata``, ``include_prev_next_rel``, ``id_func``...).

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

    def split_text(self, text: str) -> list[str]:
        """The chunk texts of ``text``.

        >>> RagchunkNodeParser.from_chunker(ragchunk.CharacterSplitter(4)).split_text("abcdefgh")
        ['abcd', 'efgh']
        """
        return [c.text for c in self.chunker.split(text)]

    def split_texts(self, texts: list[str]) -> list[str]:
        """The chunk texts of every text, in order, one flat list (one parallel batch).

        >>> parser = RagchunkNodeParser.from_chunker(ragchunk.CharacterSplitter(4))
        >>> parser.split_texts(["abcdef", "xy"])
        ['abcd', 'ef', 'xy']
        """
        return [
            c.text for chunks in self.chunker.split_batch(list(texts), self.workers) for c in chunks
        ]

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        texts = [n.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        out: list[BaseNode] = []
        for parent, text, chunks in zip(
            nodes, texts, self.chunker.split_batch(texts, self.workers), strict=True
        ):
            source = parent.as_related_node_info()
            for i, chunk in enumerate(chunks):
                exact = text[chunk.start : chunk.end] == chunk.text
                node = TextNode(
                    id_=self.id_func(i, parent),
                    text=chunk.text,
                    start_char_idx=chunk.start if exact else None,
                    end_char_idx=chunk.end if exact else None,
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
        # the offsets with what it finds; the chunker's offsets are exact where they slice the
        # document, and there is no offset where they do not, so both are kept.
        exact = [
            (n.start_char_idx, n.end_char_idx) if isinstance(n, TextNode) else None for n in nodes
        ]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, span in zip(nodes, exact, strict=True):
            if span is not None and isinstance(node, TextNode):
                node.start_char_idx, node.end_char_idx = span
        return nodes


_ = ragchunk  # the doctests name ragchunk's chunkers
