"""LlamaIndex's node building, done cheaply: the same ``TextNode`` objects (every field, the
same fields set, the same hashes) as ``build_nodes_from_splits`` followed by
``NodeParser._postprocess_parsed_nodes``, without re-validating what is already valid.

Where the time went in LlamaIndex's own steps (the Markdown drop-in's nodes, cProfile): three
quarters of a call was the post-processing, not the splitting: a pydantic validation per node
and per related-node record, a validated assignment per changed field, the ``source_node``
property read five times per node. Here each node is made from
values that are already what validation would give (lists and dicts copied, as validation
copies them), a changed field is written with the field recorded as set (what a validated
assignment leaves), and each node's source is read once. Anything but a plain ``TextNode``
built from a ``Document`` or a ``TextNode`` (an ``ImageDocument``'s ``ImageNode``, a subclass
with its own hash) goes through LlamaIndex's own functions.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from hashlib import sha256
from typing import TYPE_CHECKING, Any

from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.node_parser.node_utils import build_nodes_from_splits, default_id_func
from llama_index.core.schema import (
    BaseNode,
    Document,
    ImageDocument,
    NodeRelationship,
    ObjectType,
    RelatedNodeInfo,
    TextNode,
)

__all__ = [
    "Hasher",
    "build_nodes",
    "copy_related",
    "paused_gc",
    "plain_node",
    "postprocess",
    "related",
]

_SOURCE = NodeRelationship.SOURCE
_PREVIOUS = NodeRelationship.PREVIOUS
_NEXT = NodeRelationship.NEXT
_TEXT = ObjectType.TEXT

# The fields LlamaIndex's ``build_nodes_from_splits`` passes (so sets) on every node.
_BUILT_FIELDS = frozenset(
    {
        "id_",
        "text",
        "embedding",
        "excluded_embed_metadata_keys",
        "excluded_llm_metadata_keys",
        "metadata_separator",
        "metadata_template",
        "text_template",
        "relationships",
    }
)


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while a call builds its nodes (and resumed, if it
    was running, however the call ends). The nodes and their records form no reference
    cycles, so nothing is left for the collector; its passes over the growing heap of new
    nodes took half of ``SentenceWindowNodeParser``'s time (1.27 s against 0.64 s on 1 MB
    of the corpus, the machine loaded) and a quarter of ``JSONNodeParser``'s. Only the
    synchronous calls pause it (an ``await`` would hand the pause to other tasks).

    >>> with paused_gc():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def plain_node(document: BaseNode) -> bool:
    """Whether ``document`` builds plain ``TextNode``s (a ``Document`` or ``TextNode``, not an
    ``ImageDocument``).

    >>> plain_node(Document(text="x")), plain_node(ImageDocument(text="x"))
    (True, False)
    """
    return isinstance(document, (Document, TextNode)) and not isinstance(document, ImageDocument)


def build_nodes(
    splits: Sequence[str],
    document: BaseNode,
    id_func: Any = None,
    source: RelatedNodeInfo | None = None,
) -> list[TextNode]:
    """``build_nodes_from_splits(splits, document, id_func=id_func)``: the same nodes.
    ``source``, when given, is ``document.as_related_node_info()`` already made (a copy of
    it is used): a caller building nodes of one document in several calls hashes it once.

    >>> doc = Document(text="a b", id_="d")
    >>> [(n.text, n.ref_doc_id) for n in build_nodes(["a", "b"], doc, lambda i, d: str(i))]
    [('a', 'd'), ('b', 'd')]
    """
    if not plain_node(document):
        return build_nodes_from_splits(list(splits), document, id_func=id_func)
    id_func = id_func or default_id_func
    source = document.as_related_node_info() if source is None else copy_related(source)
    given = document.__dict__
    embed_keys = given["excluded_embed_metadata_keys"]
    llm_keys = given["excluded_llm_metadata_keys"]
    embedding = given["embedding"]
    separator = given["metadata_separator"]
    template = given["metadata_template"]
    text_template = given["text_template"]
    out = []
    for i, text in enumerate(splits):
        fields = {
            "id_": id_func(i, document),
            "embedding": None if embedding is None else list(embedding),
            "metadata": {},
            "excluded_embed_metadata_keys": list(embed_keys),
            "excluded_llm_metadata_keys": list(llm_keys),
            "relationships": {_SOURCE: source},
            "metadata_template": template,
            "metadata_separator": separator,
            "text": text,
            "mimetype": "text/plain",
            "start_char_idx": None,
            "end_char_idx": None,
            "text_template": text_template,
        }
        out.append(_made(TextNode, fields, set(_BUILT_FIELDS)))
    return out


class Hasher:
    """``TextNode.hash`` (sha256 of ``text + str(metadata)``), remembering what repeats
    between the hashes of one call: a node is hashed twice (its neighbours' ``NEXT`` and
    ``PREVIOUS`` records, before and after its metadata is merged with the document's), and
    its metadata's values (a sentence window: seven sentences) are the same objects both
    times. ``str(dict)`` is ``"{" + ", ".join(f"{k!r}: {v!r}") + "}"``, so each value's
    ``repr`` is taken (and encoded) once and the text's bytes are hashed once, the digest
    state copied and fed the pieces.
    A metadata dict holding a container is hashed whole (its ``repr`` guards recursion).

    >>> node = TextNode(text="x", metadata={"k": 1, "w": "it's", "same": "same"})
    >>> hasher = Hasher()
    >>> hasher.digest(node) == node.hash, hasher.digest(node) == node.hash
    (True, True)
    """

    def __init__(self) -> None:
        self._reprs: dict[int, tuple[Any, bytes]] = {}  # a value's repr
        self._keys: dict[int, tuple[Any, bytes]] = {}  # a key's repr and ": "
        self._heads: dict[int, tuple[str, Any]] = {}

    def digest(self, node: TextNode) -> str:
        fields = node.__dict__
        text: str = fields["text"]
        metadata: dict[str, Any] = fields["metadata"]
        head = self._heads.get(id(text))
        if head is None or head[0] is not text:
            head = (text, sha256(text.encode("utf-8", "surrogatepass")))
            self._heads[id(text)] = head
        state = head[1].copy()
        reprs, keys = self._reprs, self._keys
        pieces = [b"{"]
        for key, value in metadata.items():
            if isinstance(value, _CONTAINERS) or isinstance(key, _CONTAINERS):
                state.update(str(metadata).encode("utf-8", "surrogatepass"))
                return str(state.hexdigest())
            seen = reprs.get(id(value))
            if seen is None or seen[0] is not value:
                seen = (value, repr(value).encode("utf-8", "surrogatepass"))
                reprs[id(value)] = seen
            named = keys.get(id(key))
            if named is None or named[0] is not key:
                named = (key, repr(key).encode("utf-8", "surrogatepass") + b": ")
                keys[id(key)] = named
            if len(pieces) > 1:
                pieces.append(b", ")
            pieces.append(named[1])
            pieces.append(seen[1])
        pieces.append(b"}")
        for piece in pieces:
            state.update(piece)
        return str(state.hexdigest())


_CONTAINERS = (dict, list, tuple, set, frozenset)


def related(node: TextNode, hasher: Hasher | None = None) -> RelatedNodeInfo:
    """``node.as_related_node_info()`` for a plain ``TextNode``.

    >>> node = TextNode(text="x", id_="n", metadata={"k": 1})
    >>> related(node) == node.as_related_node_info()
    True
    """
    if type(node) is not TextNode:
        return node.as_related_node_info()
    fields = node.__dict__
    metadata = fields["metadata"]
    if hasher is None:
        text = fields["text"] + str(metadata)
        digest = sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    else:
        digest = hasher.digest(node)
    info = {
        "node_id": fields["id_"],
        "node_type": _TEXT,
        "metadata": dict(metadata),
        "hash": digest,
    }
    made: RelatedNodeInfo = _made(RelatedNodeInfo, info, set(info))
    return made


def _made(cls: Any, fields: dict[str, Any], fields_set: set[str]) -> Any:
    """An instance of the pydantic model ``cls`` holding ``fields``, already valid, with
    ``fields_set`` recorded as set: what ``model_construct`` does, without its resolution
    of defaults (every field is given), which cost more than a validation (2.5 ms against
    15 us a node, measured on the loaded machine)."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", fields)
    object.__setattr__(obj, "__pydantic_fields_set__", fields_set)
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


def copy_related(info: RelatedNodeInfo) -> RelatedNodeInfo:
    """A record equal to ``info`` with its own metadata dict (what a new
    ``as_related_node_info()`` of an unchanged node gives).

    >>> info = RelatedNodeInfo(node_id="n", metadata={"k": 1})
    >>> copied = copy_related(info)
    >>> copied == info, copied.metadata is info.metadata
    (True, False)
    """
    if type(info) is not RelatedNodeInfo:
        copied = info.model_copy()
        copied.__dict__["metadata"] = dict(info.metadata)
        return copied
    fields = {**info.__dict__, "metadata": dict(info.__dict__["metadata"])}
    made: RelatedNodeInfo = _made(RelatedNodeInfo, fields, set(info.__pydantic_fields_set__))
    return made


def _set(node: BaseNode, name: str, value: Any) -> None:
    """A field written as a validated assignment leaves it (the value already valid)."""
    node.__dict__[name] = value
    node.__pydantic_fields_set__.add(name)


def _source_of(node: BaseNode) -> RelatedNodeInfo | None:
    relation = node.__dict__["relationships"].get(_SOURCE)
    if relation is None:
        return None
    if not isinstance(relation, RelatedNodeInfo):
        return node.source_node  # raises LlamaIndex's error
    return relation


def postprocess(
    parser: NodeParser, nodes: list[BaseNode], parent_doc_map: dict[str, Document]
) -> list[BaseNode]:
    """``parser._postprocess_parsed_nodes(nodes, parent_doc_map)``: the same offsets,
    metadata and relationships, step for step.

    LlamaIndex's order of steps is kept because the nodes show it: a node's ``NEXT`` record
    is taken before the next node is processed (its metadata not yet merged with the
    document's, so its hash differs from the one in that node's own ``PREVIOUS`` record);
    and a document that has a ``SOURCE`` of its own hands it to its nodes one by one, so a
    node's ``NEXT`` link is compared against a neighbour not yet re-pointed and is missing
    (its ``PREVIOUS`` link is there).

    >>> doc = Document(text="a b", id_="d", metadata={"k": 1})
    >>> nodes = postprocess(_Settings(), build_nodes(["a", "b"], doc, lambda i, d: str(i)),
    ...                     {"d": doc})
    >>> [(n.start_char_idx, n.metadata, sorted(n.relationships)) for n in nodes][1]
    (2, {'k': 1}, [<NodeRelationship.SOURCE: '1'>, <NodeRelationship.PREVIOUS: '2'>])
    """
    if not all(type(n) is TextNode for n in nodes):
        return NodeParser._postprocess_parsed_nodes(parser, nodes, parent_doc_map)
    include_metadata = parser.include_metadata
    include_rel = parser.include_prev_next_rel
    positions: dict[str, int] = {}
    hasher = Hasher()
    sources: list[RelatedNodeInfo | None] = [_source_of(n) for n in nodes]
    last = len(nodes) - 1
    for i, node in enumerate(nodes):
        fields = node.__dict__
        parent_node = sources[i]
        doc_id = parent_node.node_id if parent_node is not None else None
        parent_doc = parent_doc_map.get(doc_id or "", None)
        if parent_doc is not None:
            doc_source = _source_of(parent_doc)
            if doc_source is not None:
                fields["relationships"][_SOURCE] = doc_source
                sources[i] = doc_source
            key = doc_id or ""
            content = fields["text"]
            start = parent_doc.text.find(content, positions.get(key, 0))
            if start >= 0:
                _set(node, "start_char_idx", start)
                _set(node, "end_char_idx", start + len(content))
                positions[key] = start + 1
            if include_metadata:
                _set(node, "metadata", {**parent_doc.metadata, **fields["metadata"]})
        if parent_node is not None and include_metadata:
            metadata = fields["metadata"]
            metadata.update({**parent_node.metadata, **metadata})
        if include_rel:
            mine = sources[i]
            if mine is not None:
                if i > 0:
                    before = sources[i - 1]
                    if before is not None and before.node_id == mine.node_id:
                        fields["relationships"][_PREVIOUS] = related(nodes[i - 1], hasher)  # type: ignore[arg-type]
                if i < last:
                    after = sources[i + 1]
                    if after is not None and after.node_id == mine.node_id:
                        fields["relationships"][_NEXT] = related(nodes[i + 1], hasher)  # type: ignore[arg-type]
    return nodes


class _Settings:
    """The two parser settings :func:`postprocess` reads (for the example)."""

    include_metadata = True
    include_prev_next_rel = True


if TYPE_CHECKING:
    _Base = NodeParser
else:
    _Base = object


class FastNodes(_Base):
    """What every node-parser drop-in shares, put before LlamaIndex's class among its bases:
    LlamaIndex's post-processing done by :func:`postprocess`, and
    ``get_nodes_from_documents`` with the collector paused (:func:`paused_gc`)."""

    def _postprocess_parsed_nodes(
        self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]
    ) -> list[BaseNode]:
        return postprocess(self, nodes, parent_doc_map)

    def get_nodes_from_documents(
        self, documents: Sequence[Document], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        """LlamaIndex's ``get_nodes_from_documents``, the garbage collector paused meanwhile
        (``paused_gc``: the new nodes hold no cycles)."""
        with paused_gc():
            return super().get_nodes_from_documents(documents, show_progress, **kwargs)
