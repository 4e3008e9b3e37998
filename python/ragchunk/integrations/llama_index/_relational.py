"""Drop-ins for LlamaIndex's ``SentenceWindowNodeParser`` (sentences found by the Rust core's
Punkt) and ``HierarchicalNodeParser`` (each level cut by the ``SentenceSplitter`` drop-in),
their nodes built without re-validation (``_nodes``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llama_index.core.bridge.pydantic import Field
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.node_parser import HierarchicalNodeParser as _LIHierarchical
from llama_index.core.node_parser import SentenceWindowNodeParser as _LISentenceWindow
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.node_parser.node_utils import default_id_func
from llama_index.core.node_parser.text.sentence_window import (
    DEFAULT_OG_TEXT_METADATA_KEY,
    DEFAULT_WINDOW_METADATA_KEY,
    DEFAULT_WINDOW_SIZE,
)
from llama_index.core.node_parser.text.utils import split_by_sentence_tokenizer
from llama_index.core.schema import BaseNode, Document, NodeRelationship
from llama_index.core.utils import get_tqdm_iterable

from ragchunk.core import dispatch

from ._counting import _default_punkt_in_use, _punkt_mirrored, _rust_punkt
from ._dropins import SentenceSplitter
from ._nodes import FastNodes, build_nodes, copy_related, related

__all__ = ["HierarchicalNodeParser", "SentenceWindowNodeParser"]


class DefaultSentences:
    """LlamaIndex's default sentence splitter (``split_by_sentence_tokenizer()``: NLTK's
    untrained Punkt, each sentence running to the next one's start), run by the Rust core's
    mirror of Punkt while the installed NLTK is the one it mirrors, else by NLTK.

    >>> DefaultSentences()("One here. Two there.")
    ['One here. ', 'Two there.']
    """

    def __call__(self, text: str) -> list[str]:
        if _punkt_mirrored() and _default_punkt_in_use():
            return dispatch.run_exact(lambda core: _rust_punkt(core)(text), lambda: _nltk(text))
        return _nltk(text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DefaultSentences)

    def __hash__(self) -> int:
        return hash(DefaultSentences)


def _nltk(text: str) -> list[str]:
    return split_by_sentence_tokenizer()(text)


class SentenceWindowNodeParser(FastNodes, _LISentenceWindow):
    """LlamaIndex's ``SentenceWindowNodeParser``: one node per sentence, the
    ``window_size`` sentences on each side joined by spaces in its metadata; same arguments,
    same nodes.

    Kept from LlamaIndex: the window is joined with ``" "`` whatever the sentences end with
    (Punkt's sentences keep their trailing whitespace, so the window holds it twice), the
    sentence is read from the node's ``text`` (not its content), and the two keys are added
    to the node's excluded metadata keys.

    >>> from llama_index.core import Document
    >>> nodes = SentenceWindowNodeParser(window_size=1).get_nodes_from_documents(
    ...     [Document(text="One. Two. Three.")]
    ... )
    >>> [(n.text, n.metadata["window"]) for n in nodes]
    [('One. ', 'One.  Two. '), ('Two. ', 'One.  Two.  Three.'), ('Three.', 'Two.  Three.')]
    """

    sentence_splitter: Callable[[str], list[str]] = Field(
        default_factory=DefaultSentences,
        description="The text splitter to use when splitting documents.",
        exclude=True,
    )

    @classmethod
    def from_defaults(
        cls,
        sentence_splitter: Callable[[str], list[str]] | None = None,
        window_size: int = DEFAULT_WINDOW_SIZE,
        window_metadata_key: str = DEFAULT_WINDOW_METADATA_KEY,
        original_text_metadata_key: str = DEFAULT_OG_TEXT_METADATA_KEY,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
        callback_manager: CallbackManager | None = None,
        id_func: Callable[[int, Document], str] | None = None,
    ) -> SentenceWindowNodeParser:
        """The parser for these arguments (LlamaIndex's ``from_defaults``).

        >>> SentenceWindowNodeParser.from_defaults(window_size=2).window_size
        2
        """
        return cls(
            sentence_splitter=sentence_splitter or DefaultSentences(),
            window_size=window_size,
            window_metadata_key=window_metadata_key,
            original_text_metadata_key=original_text_metadata_key,
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
            callback_manager=callback_manager or CallbackManager([]),
            id_func=id_func or default_id_func,
        )

    def build_window_nodes_from_documents(self, documents: Sequence[Document]) -> list[BaseNode]:
        """Each document's sentence nodes with their windows (LlamaIndex's method)."""
        out: list[BaseNode] = []
        size = self.window_size
        window_key = self.window_metadata_key
        text_key = self.original_text_metadata_key
        keys = [window_key, text_key]
        for doc in documents:
            nodes = build_nodes(self.sentence_splitter(doc.text), doc, id_func=self.id_func)
            texts = [n.text for n in nodes]
            for i, node in enumerate(nodes):
                metadata = node.metadata
                metadata[window_key] = " ".join(texts[max(0, i - size) : i + size + 1])
                metadata[text_key] = texts[i]
                node.excluded_embed_metadata_keys.extend(keys)
                node.excluded_llm_metadata_keys.extend(keys)
            out.extend(nodes)
        return out


class HierarchicalNodeParser(FastNodes, _LIHierarchical):
    """LlamaIndex's ``HierarchicalNodeParser``: the document cut at each chunk size in turn,
    each node of one level cut again at the next, linked ``PARENT``/``CHILD``; same
    arguments, same nodes; ``from_defaults`` cuts with the ``SentenceSplitter`` drop-in.

    Kept from LlamaIndex, because its nodes carry them: a node below the top level is cut
    as a document of its own, so its ``start_char_idx`` counts from its parent's start, its
    ``SOURCE`` is the parent's source (the document), and it has a ``PREVIOUS`` link but no
    ``NEXT`` one (LlamaIndex compares each node's new source with its neighbour's old one);
    the ``CHILD`` records hold each child as it was before its own children were cut.

    >>> from llama_index.core import Document
    >>> text = " ".join(f"Sentence number {i} is here." for i in range(30))
    >>> parser = HierarchicalNodeParser.from_defaults(chunk_sizes=[128, 64], chunk_overlap=0)
    >>> nodes = parser.get_nodes_from_documents([Document(text=text, id_="doc")])
    >>> [(n.start_char_idx, sorted(r.name for r in n.relationships)) for n in nodes[1:4]]
    ... # doctest: +NORMALIZE_WHITESPACE
    [(438, ['CHILD', 'PREVIOUS', 'SOURCE']), (0, ['PARENT', 'SOURCE']),
     (216, ['PARENT', 'PREVIOUS', 'SOURCE'])]
    """

    @classmethod
    def from_defaults(
        cls,
        chunk_sizes: list[int] | None = None,
        chunk_overlap: int = 20,
        node_parser_ids: list[str] | None = None,
        node_parser_map: dict[str, NodeParser] | None = None,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
        callback_manager: CallbackManager | None = None,
    ) -> HierarchicalNodeParser:
        """The parser for these arguments (LlamaIndex's ``from_defaults``), each level's
        ``SentenceSplitter`` the drop-in.

        >>> HierarchicalNodeParser.from_defaults().node_parser_ids
        ['chunk_size_2048', 'chunk_size_512', 'chunk_size_128']
        """
        callback_manager = callback_manager or CallbackManager([])
        if node_parser_ids is None:
            if chunk_sizes is None:
                chunk_sizes = [2048, 512, 128]
            node_parser_ids = [f"chunk_size_{size}" for size in chunk_sizes]
            node_parser_map = {
                parser_id: SentenceSplitter(
                    chunk_size=size,
                    callback_manager=callback_manager,
                    chunk_overlap=chunk_overlap,
                    include_metadata=include_metadata,
                    include_prev_next_rel=include_prev_next_rel,
                )
                for size, parser_id in zip(chunk_sizes, node_parser_ids, strict=False)
            }
        else:
            if chunk_sizes is not None:
                raise ValueError("Cannot specify both node_parser_ids and chunk_sizes.")
            if node_parser_map is None:
                raise ValueError("Must specify node_parser_map if using node_parser_ids.")
        return cls(
            chunk_sizes=chunk_sizes,
            node_parser_ids=node_parser_ids,
            node_parser_map=node_parser_map,
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
            callback_manager=callback_manager,
        )

    def _recursively_get_nodes_from_nodes(
        self, nodes: list[BaseNode], level: int, show_progress: bool = False
    ) -> list[BaseNode]:
        if level >= len(self.node_parser_ids):
            raise ValueError(
                f"Level {level} is greater than number of text "
                f"splitters ({len(self.node_parser_ids)})."
            )
        parser = self.node_parser_map[self.node_parser_ids[level]]
        sub_nodes: list[BaseNode] = []
        for node in get_tqdm_iterable(nodes, show_progress, "Parsing documents into nodes"):
            children = parser.get_nodes_from_documents([node])
            if level > 0:
                _link(node, children)
            sub_nodes.extend(children)
        deeper: list[BaseNode] = []
        if level < len(self.node_parser_ids) - 1:
            deeper = self._recursively_get_nodes_from_nodes(
                sub_nodes, level + 1, show_progress=show_progress
            )
        return sub_nodes + deeper


def _link(parent: BaseNode, children: list[BaseNode]) -> None:
    """LlamaIndex's ``_add_parent_child_relationship`` for each child in turn: the child
    appended to the parent's ``CHILD`` list, the parent as the child's ``PARENT``. The
    parent does not change between its children, so its record is hashed once and copied."""
    relationships = parent.relationships
    if not children:
        return
    mine = related(parent)  # type: ignore[arg-type]
    for child in children:
        child_list = parent.child_nodes or []
        child_list.append(related(child))  # type: ignore[arg-type]
        relationships[NodeRelationship.CHILD] = child_list
        child.relationships[NodeRelationship.PARENT] = copy_related(mine)
