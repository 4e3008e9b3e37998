"""The drop-ins for LlamaIndex's ``SentenceWindowNodeParser`` and ``HierarchicalNodeParser``
against LlamaIndex's own classes: the same nodes (every field, relationships with their
hashes, offsets, ids, excluded keys) on the start of one document of each corpus collection
(every script), on documents that carry a source of their own, and the same errors, on both
backends."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from llama_cases import corpus_sample, idf, node_view

pytest.importorskip("llama_index.core")

from llama_index.core import Document
from llama_index.core import node_parser as li
from llama_index.core.callbacks import CallbackManager, CBEventType
from llama_index.core.callbacks.base_handler import BaseCallbackHandler
from llama_index.core.node_parser import get_leaf_nodes, get_root_nodes
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from ragchunk.integrations import llama_index as ours

CORPUS = [text for _, text in corpus_sample(limit=3000)]

HAND = (
    "Dr. Smith went to Washington. He arrived at 5 p.m. on Monday! Did he stay?\n\n"
    "A new paragraph starts here... and goes on. 中文句子。另一个句子！\n"
    "Numbers like 3.14 stay whole. The end"
)


def docs(texts: list[str]) -> list[Any]:
    out: list[Any] = [
        Document(
            text=t,
            id_=f"d{i}",
            metadata={"file_name": f"f{i}.md", "n": i, "tag": "tag"},
            excluded_llm_metadata_keys=["file_name"],
        )
        for i, t in enumerate(texts)
    ]
    # a document with a source of its own, and a plain TextNode
    out.append(
        Document(
            text=HAND,
            id_="child-doc",
            relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id="origin")},
        )
    )
    out.append(TextNode(text=HAND + " Again.", id_="a-node", metadata={"k": "v"}))
    return out


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {
            "window_size": 1,
            "window_metadata_key": "w",
            "original_text_metadata_key": "o",
            "include_prev_next_rel": False,
        },
    ],
    ids=["defaults", "options"],
)
def test_sentence_window_nodes_equal_llama_index(kwargs: dict[str, Any]) -> None:
    texts = [HAND, "", *CORPUS]
    got = ours.SentenceWindowNodeParser.from_defaults(id_func=idf, **kwargs)
    want = li.SentenceWindowNodeParser.from_defaults(id_func=idf, **kwargs)
    mine = got.get_nodes_from_documents(docs(texts))
    assert len(mine) > 3 * len(texts)
    assert node_view(mine) == node_view(want.get_nodes_from_documents(docs(texts)))


def test_sentence_window_own_splitter_metadata_off_and_pickle() -> None:
    def lines(text: str) -> list[str]:
        return text.splitlines(keepends=True)

    got = ours.SentenceWindowNodeParser(sentence_splitter=lines, include_metadata=False)
    want = li.SentenceWindowNodeParser(sentence_splitter=lines, include_metadata=False)
    assert isinstance(got, li.SentenceWindowNodeParser)
    a = got.get_nodes_from_documents(docs([HAND]))
    b = want.get_nodes_from_documents(docs([HAND]))
    assert [(n.text, n.metadata) for n in a] == [(n.text, n.metadata) for n in b]
    parts = lines(HAND)
    assert a[0].metadata == {"window": " ".join(parts[:4]), "original_text": parts[0]}
    # the default splitter pickles (LlamaIndex ships parsers to worker processes)
    default = ours.SentenceWindowNodeParser()
    restored = pickle.loads(pickle.dumps(default.sentence_splitter))
    assert restored(HAND) == li.SentenceWindowNodeParser().sentence_splitter(HAND)
    with pytest.raises(ValueError):
        ours.SentenceWindowNodeParser(window_size=0)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"chunk_sizes": [256, 64], "chunk_overlap": 10, "include_prev_next_rel": False}],
    ids=["defaults", "options"],
)
def test_hierarchical_nodes_equal_llama_index(kwargs: dict[str, Any]) -> None:
    texts = [*CORPUS, HAND]
    mine = ours.HierarchicalNodeParser.from_defaults(**kwargs)
    theirs = li.HierarchicalNodeParser.from_defaults(**kwargs)
    for parser in (mine, theirs):
        for split in parser.node_parser_map.values():
            split.id_func = idf
    got = mine.get_nodes_from_documents(docs(texts))
    want = theirs.get_nodes_from_documents(docs(texts))
    assert all(isinstance(p, ours.SentenceSplitter) for p in mine.node_parser_map.values())
    assert len(got) > 2 * len(texts)
    assert node_view(got) == node_view(want)
    assert [n.id_ for n in get_leaf_nodes(got)] == [n.id_ for n in get_leaf_nodes(want)]
    assert [n.id_ for n in get_root_nodes(got)] == [n.id_ for n in get_root_nodes(want)]


class _Events(BaseCallbackHandler):
    def __init__(self) -> None:
        super().__init__([], [])
        self.seen: list[str] = []

    def on_event_start(self, event_type: CBEventType, payload: Any = None, **kw: Any) -> str:
        self.seen.append(f"start {event_type.value}")
        return kw.get("event_id", "")

    def on_event_end(self, event_type: CBEventType, payload: Any = None, **kw: Any) -> None:
        self.seen.append(f"end {event_type.value}")

    def start_trace(self, trace_id: str | None = None) -> None:
        pass

    def end_trace(self, trace_id: str | None = None, trace_map: Any = None) -> None:
        pass


def test_hierarchical_given_parsers_events_and_errors() -> None:
    seen = []
    for cls, split in ((ours.HierarchicalNodeParser, ours), (li.HierarchicalNodeParser, li)):
        events = _Events()
        manager = CallbackManager([events])
        parser_map = {
            "big": split.TokenTextSplitter(chunk_size=96, chunk_overlap=8, id_func=idf),
            "small": split.SentenceSplitter(chunk_size=64, chunk_overlap=0, id_func=idf),
        }
        for p in parser_map.values():
            p.callback_manager = manager
        parser = cls.from_defaults(
            node_parser_ids=["big", "small"], node_parser_map=parser_map, callback_manager=manager
        )
        nodes = parser.get_nodes_from_documents(docs(CORPUS[:2]))
        seen.append((node_view(nodes), events.seen))
        with pytest.raises(ValueError, match="Cannot specify both"):
            cls.from_defaults(chunk_sizes=[8], node_parser_ids=["x"], node_parser_map={})
        with pytest.raises(ValueError, match="Must specify node_parser_map"):
            cls.from_defaults(node_parser_ids=["x"])
        with pytest.raises(ValueError, match="Level 2 is greater"):
            parser._recursively_get_nodes_from_nodes([], 2)
    assert seen[0] == seen[1]
    assert seen[0][1].count("start node_parsing") > 3
