"""The drop-ins for LlamaIndex's node parsers (``MarkdownNodeParser``) against LlamaIndex's
own classes: the same nodes (text, metadata, relationships, offsets, ids, hashes) on one
document of each corpus collection (every script) and on hand-made Markdown that exercises
LlamaIndex's quirks, on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from llama_cases import corpus_sample, idf, node_view

pytest.importorskip("llama_index.core")

from llama_index.core import Document
from llama_index.core import node_parser as li
from llama_index.core.schema import TextNode
from ragchunk.integrations.llama_index import MarkdownNodeParser

CORPUS = corpus_sample()

QUIRKS = (
    "lead text\n#NotHeader\n# Top\nbody\n##\tTabbed title  \n"
    "   ```python\n# comment, not a header\n```\n"
    "####### seven\n### skip level\n## back\n\n\u00a0\n# \n#\u3000wide\nend\r\n"
    "~~~\n# tilde fences are not code\n~~~\n\n\n"
)


def docs(texts: list[str]) -> list[Document]:
    return [Document(text=t, id_=f"d{i}", metadata={"k": i}) for i, t in enumerate(texts)]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"header_path_separator": " > ", "include_prev_next_rel": False}],
    ids=["defaults", "separator"],
)
def test_markdown_nodes_equal_llama_index(kwargs: dict[str, Any]) -> None:
    texts = [QUIRKS, "", "no headers at all\n"] + [t for _, t in CORPUS]
    ours = MarkdownNodeParser(id_func=idf, **kwargs).get_nodes_from_documents(docs(texts))
    theirs = li.MarkdownNodeParser(id_func=idf, **kwargs).get_nodes_from_documents(docs(texts))
    assert len(ours) > len(texts)
    assert node_view(ours) == node_view(theirs)


def test_markdown_from_defaults_node_and_metadata_off() -> None:
    doc = Document(text=QUIRKS, id_="q")
    ours = MarkdownNodeParser.from_defaults(include_metadata=False, header_path_separator="|")
    theirs = li.MarkdownNodeParser.from_defaults(include_metadata=False, header_path_separator="|")
    assert isinstance(ours, MarkdownNodeParser)
    got = ours.get_nodes_from_node(doc)
    assert [n.text for n in got] == [n.text for n in theirs.get_nodes_from_node(doc)]
    assert all(n.metadata == {} for n in got)
    # a TextNode input (not a Document) builds TextNodes linked to it
    node = TextNode(text="# A\nx\n## B\ny", id_="n")
    assert [n.text for n in ours.get_nodes_from_node(node)] == ["# A\nx", "## B\ny"]


def test_markdown_lone_surrogate_same_error_and_sections() -> None:
    # LlamaIndex hashes the document as UTF-8 and so raises; the drop-in raises the same,
    # after finding the sections on the fallback (the text cannot cross into Rust).
    text = "# A\nbad \ud800 text\n## B\nok"
    for parser in (MarkdownNodeParser(), li.MarkdownNodeParser()):
        with pytest.raises(UnicodeEncodeError):
            parser.get_nodes_from_documents(docs([text]))
    assert MarkdownNodeParser()._sections([text]) == [
        [("# A\nbad \ud800 text", ""), ("## B\nok", "A")]
    ]
