"""LlamaIndex node parsers: drop-ins for LlamaIndex's own splitters, and one backed by any
ragchunk chunker.

* :class:`SentenceSplitter` and :class:`TokenTextSplitter` take the arguments of
  ``llama_index.core.node_parser.SentenceSplitter`` / ``TokenTextSplitter`` and return the
  same ``split_text`` chunks and the same nodes (text, ``start_char_idx``/``end_char_idx``,
  relationships, metadata), with LlamaIndex's metadata-aware sizing. With a built-in encoding
  as the tokenizer (LlamaIndex's default, tiktoken's ``cl100k_base`` ``encode`` with
  ``allowed_special="all"``, is one) the whole split runs in Rust, Punkt's sentence
  boundaries included; any other tokenizer or ``chunking_tokenizer_fn`` is called as
  LlamaIndex calls it. Change one import::

      # from llama_index.core.node_parser import SentenceSplitter
      from ragchunk.integrations.llama_index import SentenceSplitter

* :class:`MarkdownNodeParser` takes the arguments of LlamaIndex's ``MarkdownNodeParser`` and
  returns the same nodes (text, ``header_path``, offsets, relationships, ids), its sections
  found in Rust; :class:`JSONNodeParser` those of LlamaIndex's ``JSONNodeParser`` (a node
  per object, a line per leaf).

* :class:`SentenceWindowNodeParser` (its sentences found by the Rust core's Punkt) and
  :class:`HierarchicalNodeParser` (each level cut by the ``SentenceSplitter`` drop-in) take
  LlamaIndex's arguments and return the same nodes, relationships and hashes.

* :class:`RagchunkNodeParser` turns any ragchunk chunker into a ``NodeParser`` whose nodes
  carry the chunk's exact offsets (LlamaIndex's own parsers search for each node's text in
  the document).

They work wherever LlamaIndex takes a transformation:
``IngestionPipeline(transformations=[...])``,
``VectorStoreIndex.from_documents(..., transformations=[...])``.

Needs ``llama-index-core`` (``pip install 'ragchunk[llama-index]'``).

>>> from llama_index.core import Document
>>> parser = RagchunkNodeParser.from_chunker(ragchunk.CharacterSplitter(6))
>>> nodes = parser.get_nodes_from_documents([Document(text="Same. Same. Same. ")])
>>> [(n.text, n.start_char_idx, n.end_char_idx) for n in nodes]
[('Same. ', 0, 6), ('Same. ', 6, 12), ('Same. ', 12, 18)]
>>> SentenceSplitter(chunk_size=5, chunk_overlap=0).split_text("One two. Three four five six.")
['One two.', 'Three four five six.']
"""

from __future__ import annotations

import ragchunk

# The counting and Punkt checks, which the drop-ins' tests inspect.
from ._counting import _builtin_spec as _builtin_spec
from ._counting import _classify as _classify
from ._counting import _default_punkt_in_use as _default_punkt_in_use
from ._counting import _punkt_mirrored as _punkt_mirrored
from ._dropins import SentenceSplitter, TokenTextSplitter
from ._file_parsers import JSONNodeParser, MarkdownNodeParser, json_lines
from ._node_parser import RagchunkNodeParser
from ._relational import HierarchicalNodeParser, SentenceWindowNodeParser

__all__ = [
    "HierarchicalNodeParser",
    "JSONNodeParser",
    "MarkdownNodeParser",
    "RagchunkNodeParser",
    "SentenceSplitter",
    "SentenceWindowNodeParser",
    "TokenTextSplitter",
    "json_lines",
]

_ = ragchunk  # the doctests name ragchunk's chunkers
