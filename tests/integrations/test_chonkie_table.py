"""ragchunk's ``TableChunker`` drop-in gives ``chonkie.TableChunker``'s chunks (text, offsets,
token counts) on the corpus's Markdown tables, through Chonkie's entry points, pipeline and
refineries."""

from __future__ import annotations

import multiprocessing
import pickle
from typing import Any

import pytest
from chonkie_cases import fields, tables, tokenizer

chonkie = pytest.importorskip("chonkie")
pytest.importorskip("tiktoken")

from chonkie.types import Chunk  # noqa: E402
from ragchunk.integrations import chonkie as rc  # noqa: E402

#: The configurations docs/integrations.md lists.
CONFIGS: list[dict[str, Any]] = [
    {},
    {"chunk_size": 1},
    {"tokenizer": "character", "chunk_size": 300},
    {"tokenizer": "cl100k_base", "chunk_size": 128},
    {"tokenizer": "o200k_base", "chunk_size": 64},
]


def both(**kwargs: Any) -> tuple[Any, Any]:
    if kwargs.get("tokenizer", "row") != "row":
        kwargs["tokenizer"] = tokenizer(kwargs["tokenizer"])
    return rc.TableChunker(**kwargs), chonkie.TableChunker(**kwargs)


def _sample() -> list[tuple[str, str]]:
    """Every seventh table and the largest of each corpus folder."""
    found = tables()
    largest: dict[str, tuple[str, str]] = {}
    for name, table in found:
        folder = name.split("/")[0]
        if folder not in largest or len(table) > len(largest[folder][1]):
            largest[folder] = (name, table)
    return [*found[::7], *largest.values()]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_corpus_tables_match_chonkie(kwargs: dict[str, Any]) -> None:
    docs = _sample()
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: ../shared/corpus not found; not run")
    ours, theirs = both(**kwargs)
    for name, table in docs:
        got = ours.chunk(table)
        assert all(type(c) is Chunk for c in got)
        assert fields(got) == fields(theirs.chunk(table)), name
    assert len({name.split("/")[0] for name, _ in docs}) >= 7


EDGE = [
    "| a |\n|---|\n| 1 |",
    "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |\n| 7 | 8 |",
    "| h |\n|---|\n| multi\nline |\n| x |\n\n| y |\n",
    "| 中文 | ü |\n|---|---|\n| 🦀🦀 | ελληνικά |\n| 句子 | x |\n| z | z |",
    "| only |\n| two |",
    "not a table\nat all\nreally",
]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"chunk_size": 1},
        {"chunk_size": 2},
        {"tokenizer": "character", "chunk_size": 20},
        {"tokenizer": "cl100k_base", "chunk_size": 12},
    ],
    ids=str,
)
@pytest.mark.parametrize("text", EDGE)
def test_edge_cases_match_chonkie(kwargs: dict[str, Any], text: str) -> None:
    ours, theirs = both(**kwargs)
    assert fields(ours.chunk(text)) == fields(theirs.chunk(text))


def test_offsets_count_from_the_text_as_given() -> None:
    """Chonkie counts a split table's offsets in the stripped text; the drop-in's count in
    the text it was given, so they point at each chunk's rows."""
    table = "| a |\n|---|\n| 1 |\n| 2 |\n| 3 |"
    text = "\n\n  " + table
    ours, theirs = both(chunk_size=2)
    assert [c.text for c in ours.chunk(text)] == [c.text for c in theirs.chunk(text)]
    got = ours.chunk(text)
    assert [text[c.start_index : c.end_index] for c in got] == ["| 1 |\n| 2 |\n", "| 3 |"]
    assert [c.start_index - 4 for c in got] == [c.start_index for c in theirs.chunk(text)]


def test_chonkies_code_runs_for_html_and_other_tokenizers() -> None:
    html = "<table><thead><tr><th>a</th></tr></thead><tbody>"
    html += "".join(f"<tr><td>{i}</td></tr>" for i in range(7)) + "</tbody></table>"
    table = "| a | b |\n|---|---|\n" + "| the quick | brown fox |\n" * 9
    for text, kwargs in (
        (html, {"chunk_size": 2}),
        (table, {"tokenizer": "word", "chunk_size": 9}),
    ):
        ours, theirs = rc.TableChunker(**kwargs), chonkie.TableChunker(**kwargs)
        assert fields(ours.chunk(text)) == fields(theirs.chunk(text))
    enc = tokenizer("cl100k_base")
    for cls in (rc.TableChunker, chonkie.TableChunker):
        with pytest.raises(ValueError, match="special token"):
            cls(tokenizer=enc, chunk_size=8).chunk("| <|endoftext|> |\n|---|\n| 1 |\n| 2 |")


def test_bad_arguments_raise_chonkies_errors() -> None:
    with pytest.raises(ValueError) as theirs:
        chonkie.TableChunker(chunk_size=0)
    with pytest.raises(ValueError) as ours:
        rc.TableChunker(chunk_size=0)
    assert str(ours.value) == str(theirs.value)


def test_entry_points_pipeline_and_refinery() -> None:
    from chonkie import OverlapRefinery, Pipeline
    from chonkie.pipeline import ComponentRegistry

    table = "| name | value |\n|---|---|\n" + "".join(f"| row {i} | {i * i} |\n" for i in range(9))
    ours, theirs = both(chunk_size=4)
    assert fields(ours(table)) == fields(theirs(table))
    batch = ours.chunk_batch([table, table[:60]], show_progress=False)
    assert [fields(c) for c in batch] == [fields(theirs.chunk(t)) for t in (table, table[:60])]
    component = ComponentRegistry.get_component("TableChunker")
    original = component.component_class
    try:
        component.component_class = rc.TableChunker
        doc = Pipeline().chunk_with("table", chunk_size=4).run(texts=table)
    finally:
        component.component_class = original
    assert type(doc.chunks[0]) is Chunk
    assert fields(doc.chunks) == fields(theirs.chunk(table))
    refined = OverlapRefinery(context_size=4)(ours.chunk(table))
    expected = OverlapRefinery(context_size=4)(theirs.chunk(table))
    assert [(c.text, c.context) for c in refined] == [(c.text, c.context) for c in expected]


def _chunk_texts(chunker: Any, text: str) -> list[str]:
    return [c.text for c in chunker.chunk(text)]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_workers(method: str) -> None:
    chunker = rc.TableChunker(tokenizer=tokenizer("cl100k_base"), chunk_size=16)
    texts = ["| k | v |\n|---|---|\n" + f"| key {i} | value {i} |\n" * 9 for i in range(4)]
    want = [_chunk_texts(chunker, t) for t in texts]
    assert [_chunk_texts(pickle.loads(pickle.dumps(chunker)), t) for t in texts] == want
    with multiprocessing.get_context(method).Pool(2) as pool:
        assert pool.starmap(_chunk_texts, [(chunker, t) for t in texts]) == want
