"""Drop-ins for LlamaIndex's file-format node parsers: ``MarkdownNodeParser``, its sections
found in the Rust core (``rust/splitters/llama_index/markdown.rs``) or in its Python twin, and
``JSONNodeParser``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from llama_index.core.node_parser import JSONNodeParser as _LIJSONNodeParser
from llama_index.core.node_parser import MarkdownNodeParser as _LIMarkdownNodeParser
from llama_index.core.schema import BaseNode, MetadataMode, TextNode
from llama_index.core.utils import get_tqdm_iterable

from ragchunk._pure.splitters import llama_index as pure
from ragchunk.core import dispatch

from ._nodes import FastNodes, build_nodes, plain_node

__all__ = ["JSONNodeParser", "MarkdownNodeParser", "json_lines"]


class MarkdownNodeParser(FastNodes, _LIMarkdownNodeParser):
    """LlamaIndex's ``MarkdownNodeParser`` (its arguments, nodes and ids), with the sections
    found in one parallel call to the Rust core for all the documents of a call.

    LlamaIndex's quirks are kept, because its nodes carry them: a header line is rewritten
    as ``"#" * level + " " + title`` (a tab after the hashes becomes a space); a node's
    ``header_path`` holds the headers *above* its own; a line starting with three backticks
    after any indentation toggles a code block (``~~~`` does not); seven or more ``#`` still
    make a header; and **every node's id is** ``id_func(0, document)`` (LlamaIndex builds
    each section's node on its own, so each is "split 0").

    >>> from llama_index.core import Document
    >>> nodes = MarkdownNodeParser().get_nodes_from_documents(
    ...     [Document(text="# Guide\\nIntro.\\n## Setup\\nRun it.")]
    ... )
    >>> [(n.text, n.metadata["header_path"], n.start_char_idx) for n in nodes]
    [('# Guide\\nIntro.', '/', 0), ('## Setup\\nRun it.', '/Guide/', 15)]
    """

    def _sections(self, texts: list[str]) -> list[list[tuple[str, str]]]:
        sep = self.header_path_separator
        return dispatch.run_exact(
            lambda core: core.li_markdown_sections(texts, sep),
            lambda: pure.markdown_sections(texts, sep),
        )

    def _nodes_of(self, node: BaseNode, sections: list[tuple[str, str]]) -> list[TextNode]:
        # One build for all the sections (LlamaIndex builds, and hashes the whole document
        # for the SOURCE relationship, once per section), each id asked as split 0.
        id_func = self.id_func
        nodes = build_nodes(
            [text for text, _ in sections], node, id_func=lambda _i, doc: id_func(0, doc)
        )
        if self.include_metadata:
            sep = self.header_path_separator
            for built, (_, path) in zip(nodes, sections, strict=True):
                built.metadata["header_path"] = sep + path + sep if path else sep
        return nodes

    def get_nodes_from_node(self, node: BaseNode) -> list[TextNode]:
        """The nodes of one node's sections (LlamaIndex's ``get_nodes_from_node``)."""
        text = node.get_content(metadata_mode=MetadataMode.NONE)
        return self._nodes_of(node, self._sections([text])[0])

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        nodes = list(nodes)
        texts = [n.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        out: list[BaseNode] = []
        for node, sections in zip(
            get_tqdm_iterable(nodes, show_progress, "Parsing nodes"),
            self._sections(texts),
            strict=True,
        ):
            out.extend(self._nodes_of(node, sections))
        return out


class JSONNodeParser(FastNodes, _LIJSONNodeParser):
    """LlamaIndex's ``JSONNodeParser``: a JSON object becomes one node, an array one node
    per element, each node's text one line per leaf, ``"path of keys leaf"`` depth first;
    same arguments, same nodes.

    The text is parsed by ``json.loads`` (CPython's C scanner), as LlamaIndex parses it; the
    walk over the tree is one loop with an explicit stack instead of LlamaIndex's chain of
    nested generators (whose cost grows with the depth of every leaf), and the nodes are
    built without re-validation. Kept from LlamaIndex: text that is not JSON gives no node
    (no error), a bare scalar raises ``ValueError("JSON is invalid")``, arrays add nothing
    to the path, a leaf is written with ``str`` (``None``, ``True``, ``1e+16``), an empty
    object or array gives an empty node.

    >>> from llama_index.core import Document
    >>> doc = Document(text='{"a": {"b": [1, null]}, "c": "x"}')
    >>> [n.text for n in JSONNodeParser().get_nodes_from_documents([doc])]
    ['a b 1\\na b None\\nc x']
    """

    def get_nodes_from_node(self, node: BaseNode) -> list[TextNode]:
        """The nodes of one node's JSON (LlamaIndex's ``get_nodes_from_node``)."""
        text = node.get_content(metadata_mode=MetadataMode.NONE)
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return []
        if isinstance(data, dict):
            items = [data]
        elif isinstance(data, list):
            items = data
        else:
            raise ValueError("JSON is invalid")
        out: list[TextNode] = []
        # LlamaIndex builds each element's node on its own, so each is "split 0" and each
        # hashes the whole document again for its SOURCE record: here it is hashed once.
        source = node.as_related_node_info() if items and plain_node(node) else None
        for item in items:
            lines = "\n".join(json_lines(item))
            out.extend(build_nodes([lines], node, id_func=self.id_func, source=source))
        return out


def json_lines(data: Any) -> list[str]:
    """LlamaIndex's depth-first lines of a parsed JSON value (``_depth_first_yield`` with
    ``levels_back=0``): each leaf's keys from the root and the leaf, joined by spaces.

    >>> json_lines({"a": [{"b": 1.5}, True], "": None})
    ['a b 1.5', 'a True', ' None']
    """
    out: list[str] = []
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    pop, push = stack.pop, stack.append
    while stack:
        value, path = pop()
        if isinstance(value, dict):
            for key, child in reversed(value.items()):
                push((child, (*path, key)))
        elif isinstance(value, list):
            for child in reversed(value):
                push((child, path))
        else:
            out.append(" ".join((*path, str(value))))
    return out
