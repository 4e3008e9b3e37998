"""The drop-in for LlamaIndex's ``JSONNodeParser`` against LlamaIndex's own class: the same
nodes (every field, relationships with their hashes, offsets, ids) on JSON built from one
document of each corpus collection (every script) and on hand-made JSON that exercises
LlamaIndex's quirks, the same errors, on both backends."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llama_cases import corpus_sample, idf, node_view

pytest.importorskip("llama_index.core")

from llama_index.core import Document
from llama_index.core import node_parser as li
from ragchunk.integrations import llama_index as ours


def corpus_json() -> list[str]:
    """Each sampled corpus document as a JSON object and as a JSON array of its paragraphs."""
    out = []
    for path, text in corpus_sample(limit=4000):
        paragraphs = [
            {"n": i, "text": p, "ratio": len(p) / 7, "short": len(p) < 40, "note": None}
            for i, p in enumerate(text.split("\n\n"))
        ]
        out.append(json.dumps({"path": path, "body": {"paragraphs": paragraphs, "tags": []}}))
        out.append(json.dumps(paragraphs, ensure_ascii=False, indent=1))
    return out


HAND = [
    '{"a": {"b": {"c": [1, [2, [3]], {"d": "deep"}]}}, "e": [], "f": {}}',
    '[{"x": 1}, 2, "three", [4, {"y": null}], {}, []]',
    '{"big": 12345678901234567890, "f": 1e16, "g": 1.5e-7, "h": -0.0, "i": NaN, "j": -Infinity}',
    '{"dup": 1, "other": 2, "dup": 3, "esc": "tab\\there \\u00e9 \\ud83e\\udd80", "": "empty key"}',
    "{}",
    "[]",
    '  \n {"spaced": true}  \n',
    "not json at all",
    '{"trailing": 1} extra',
    "",
]


def docs(texts: list[str]) -> list[Document]:
    return [
        Document(text=t, id_=f"d{i}", metadata={"file_name": f"f{i}.json"})
        for i, t in enumerate(texts)
    ]


@pytest.mark.parametrize("rel", [True, False], ids=["prev-next", "no-prev-next"])
def test_json_nodes_equal_llama_index(rel: bool) -> None:
    texts = HAND + corpus_json()
    got = ours.JSONNodeParser(id_func=idf, include_prev_next_rel=rel)
    want = li.JSONNodeParser(id_func=idf, include_prev_next_rel=rel)
    mine = got.get_nodes_from_documents(docs(texts))
    assert len(mine) > len(texts)
    assert node_view(mine) == node_view(want.get_nodes_from_documents(docs(texts)))


def test_json_scalar_error_from_defaults_and_lines() -> None:
    for cls in (ours.JSONNodeParser, li.JSONNodeParser):
        with pytest.raises(ValueError, match="JSON is invalid"):
            cls.from_defaults().get_nodes_from_documents(docs(['"just a string"']))
    parser = ours.JSONNodeParser.from_defaults(include_metadata=False)
    assert isinstance(parser, ours.JSONNodeParser)
    nodes = parser.get_nodes_from_documents(docs(['{"k": {"v": [true, 2.50]}}']))
    assert [(n.text, n.metadata) for n in nodes] == [("k v True\nk v 2.5", {})]
    assert ours.json_lines({"a": [{"b": None}], "c": 1e16}) == ["a b None", "c 1e+16"]
    assert ours.json_lines([]) == []


def test_json_lines_equal_llama_index_walk() -> None:
    parser = li.JSONNodeParser()
    for text in HAND[:4] + corpus_json()[:4]:
        data: Any = json.loads(text)
        for item in data if isinstance(data, list) else [data]:
            assert ours.json_lines(item) == list(parser._depth_first_yield(item, 0, []))
