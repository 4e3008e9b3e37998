"""The LangChain and LlamaIndex adapters inside the frameworks' own pipelines."""

from __future__ import annotations

import pickle

import pytest
import ragchunk

TEXT = (
    "# Intro\n\nRepeated line.\nRepeated line.\nRepeated line.\n\n"
    "## Details\n\nSome details follow here. Repeated line.\n"
)
TEXT2 = "第一段。第二段。\n\nRepeated line. Repeated line."


def test_langchain_documents_have_exact_offsets_in_a_vector_store() -> None:
    pytest.importorskip("langchain_text_splitters")
    from langchain_core.documents import Document
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore
    from ragchunk.integrations.langchain import (
        CharacterWindowTextSplitter,
        MarkdownSectionTextSplitter,
        RagchunkTextSplitter,
        RecursiveTextSplitter,
    )

    sources = [
        Document(page_content=TEXT, metadata={"source": "a"}),
        Document(page_content=TEXT2, metadata={"source": "b"}),
    ]
    splitters = [
        RecursiveTextSplitter(chunk_size=4, chunk_overlap=2),
        CharacterWindowTextSplitter(chunk_size=15, chunk_overlap=5),
        MarkdownSectionTextSplitter(chunk_size=8),
        RagchunkTextSplitter(ragchunk.SentenceSplitter(6)),
    ]
    by_source = {d.metadata["source"]: d.page_content for d in sources}
    for splitter in splitters:
        docs = splitter.split_documents(sources)
        assert docs == splitter.transform_documents(sources)
        expected = [c for d in sources for c in splitter.chunker.split(d.page_content)]
        assert [d.page_content for d in docs] == [c.text for c in expected]
        for doc, chunk in zip(docs, expected, strict=True):
            assert doc.metadata["start_index"] == chunk.start
            src = by_source[doc.metadata["source"]]
            if "added_prefix" not in doc.metadata:
                assert src[chunk.start : chunk.end] == doc.page_content
        store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
        ids = store.add_documents(docs)
        assert len(ids) == len(docs)
        target = docs[len(docs) // 2]
        hit = store.similarity_search(target.page_content, k=1)[0]
        assert hit.page_content == target.page_content
        assert hit.metadata["start_index"] in {
            d.metadata["start_index"] for d in docs if d.page_content == target.page_content
        }
    md = MarkdownSectionTextSplitter(chunk_size=8).create_documents([TEXT], [{"k": 1}])
    assert md[0].metadata["headers"] == ["Intro"] and md[0].metadata["k"] == 1
    assert pickle.loads(pickle.dumps(splitters[0])).chunker == splitters[0].chunker


def test_langchain_offsets_of_overlapping_repeated_text() -> None:
    pytest.importorskip("langchain_text_splitters")
    from ragchunk.integrations.langchain import CharacterWindowTextSplitter

    text = "ab" * 10
    ours = CharacterWindowTextSplitter(chunk_size=4, chunk_overlap=3).create_documents([text])
    starts = [d.metadata["start_index"] for d in ours]
    assert starts == [c.start for c in ragchunk.CharacterSplitter(4, 3).split(text)]
    assert all(
        text[s : s + len(d.page_content)] == d.page_content
        for s, d in zip(starts, ours, strict=True)
    )


def test_llama_index_pipeline_nodes_are_exact_and_linked() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.schema import NodeRelationship
    from ragchunk.integrations.llama_index import RagchunkNodeParser

    chunker = ragchunk.RecursiveSplitter(4, 2)
    docs = [Document(text=TEXT, id_="a"), Document(text=TEXT2, id_="b")]
    pipeline = IngestionPipeline(transformations=[RagchunkNodeParser.from_chunker(chunker)])
    nodes = pipeline.run(documents=docs)
    expected = [(d.id_, c) for d in docs for c in chunker.split(d.text)]
    assert len(nodes) == len(expected)
    texts = {d.id_: d.text for d in docs}
    for i, (node, (doc_id, chunk)) in enumerate(zip(nodes, expected, strict=True)):
        assert node.text == chunk.text
        assert (node.start_char_idx, node.end_char_idx) == (chunk.start, chunk.end)
        assert texts[doc_id][node.start_char_idx : node.end_char_idx] == node.text
        assert node.ref_doc_id == doc_id
        prev = node.relationships.get(NodeRelationship.PREVIOUS)
        if i > 0 and expected[i - 1][0] == doc_id:
            assert prev is not None and prev.node_id == nodes[i - 1].node_id
        else:
            assert prev is None
        nxt = node.relationships.get(NodeRelationship.NEXT)
        if i + 1 < len(nodes) and expected[i + 1][0] == doc_id:
            assert nxt is not None and nxt.node_id == nodes[i + 1].node_id
        else:
            assert nxt is None
    # A repeated line: LlamaIndex's own search would give every copy the first offset.
    repeated = [
        n.start_char_idx for n in nodes if n.text == "Repeated line." and n.ref_doc_id == "a"
    ]
    assert len(repeated) == len(set(repeated)) > 1


def test_llama_index_metadata_from_markdown() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document
    from ragchunk.integrations.llama_index import RagchunkNodeParser

    parser = RagchunkNodeParser.from_chunker(ragchunk.MarkdownSplitter(16))
    nodes = parser.get_nodes_from_documents([Document(text=TEXT, metadata={"src": "x"})])
    assert nodes[0].metadata["headers"] == ["Intro"]
    assert nodes[0].metadata["src"] == "x"
    with pytest.raises(TypeError, match="chunker"):
        RagchunkNodeParser.from_chunker("recursive")  # type: ignore[arg-type]
