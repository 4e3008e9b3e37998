"""ragchunk's ``SentenceChunker`` drop-in gives ``chonkie.SentenceChunker``'s chunks exactly
(text, offsets, token counts) on every corpus script, through Chonkie's entry points,
pipeline and refineries."""

from __future__ import annotations

import multiprocessing
import pickle
from typing import Any

import pytest
from chonkie_cases import fields, sample, tokenizer

chonkie = pytest.importorskip("chonkie")
pytest.importorskip("tiktoken")

from chonkie.types import Chunk  # noqa: E402
from ragchunk.integrations import chonkie as rc  # noqa: E402

#: The configurations docs/integrations.md lists.
CONFIGS: list[dict[str, Any]] = [
    {},
    {"chunk_size": 512, "chunk_overlap": 64},
    {"chunk_size": 128, "min_sentences_per_chunk": 3},
    {"tokenizer": "cl100k_base", "chunk_size": 512},
    {"tokenizer": "o200k_base", "chunk_size": 256, "chunk_overlap": 32},
    {"delim": ["。", "！", "？", "\n\n"], "chunk_size": 300},
    {"include_delim": "next", "chunk_size": 200, "chunk_overlap": 0.5},
    {"delim": ".", "min_characters_per_sentence": 1, "chunk_size": 64},
]


def both(**kwargs: Any) -> tuple[Any, Any]:
    if "tokenizer" in kwargs:
        kwargs["tokenizer"] = tokenizer(kwargs["tokenizer"])
    return rc.SentenceChunker(**kwargs), chonkie.SentenceChunker(**kwargs)


@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_corpus_matches_chonkie(kwargs: dict[str, Any]) -> None:
    docs = sample()
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: ../shared/corpus not found; not run")
    ours, theirs = both(**kwargs)
    for name, text in docs:
        got = ours.chunk(text)
        assert all(type(c) is Chunk for c in got)
        assert fields(got) == fields(theirs.chunk(text)), name
    assert len({name.split("/")[0] for name, _ in docs}) >= 7


EDGE = [
    "   ",
    "a",
    "No delimiter at all",
    "Short. Tiny. A much longer sentence follows here. x",
    "中文句子。还有更多！真的吗？" * 6,
    "🦀 crabs. 🦀🦀 and 👩‍👩‍👧 families.\n\nÜnïcödé wörds! ελληνικά? done",
    "line\n" * 30,
    ". . . ..  !! ??\n\n\n",
]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"chunk_size": 16, "min_characters_per_sentence": 1},
        {"chunk_size": 24, "chunk_overlap": 12, "min_characters_per_sentence": 3},
        {"tokenizer": "cl100k_base", "chunk_size": 6, "chunk_overlap": 3},
        {"chunk_size": 8, "min_sentences_per_chunk": 2, "include_delim": None},
        {"delim": ["。", ". ", ""], "chunk_size": 10},
        {"delim": "", "chunk_size": 10},
        {"delim": [".", "!"], "include_delim": "next", "chunk_size": 12},
    ],
    ids=str,
)
@pytest.mark.parametrize("text", EDGE)
def test_edge_cases_match_chonkie(kwargs: dict[str, Any], text: str) -> None:
    ours, theirs = both(**kwargs)
    assert fields(ours.chunk(text)) == fields(theirs.chunk(text))


def test_chonkies_code_runs_where_ragchunk_does_not_count() -> None:
    text = "the quick brown fox. jumps over the lazy dog! " * 20
    ours = rc.SentenceChunker(tokenizer="word", chunk_size=16)
    assert fields(ours.chunk(text)) == fields(chonkie.SentenceChunker("word", 16).chunk(text))
    enc = tokenizer("cl100k_base")
    for cls in (rc.SentenceChunker, chonkie.SentenceChunker):
        with pytest.raises(ValueError, match="special token"):
            cls(tokenizer=enc, chunk_size=8).chunk("a <|endoftext|> b. c d e.")
        with pytest.raises(UnicodeEncodeError):
            cls(chunk_size=8).chunk("lone \ud800 surrogate. more")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"chunk_size": 0},
        {"chunk_size": 4, "chunk_overlap": 4},
        {"min_sentences_per_chunk": 0},
        {"min_characters_per_sentence": 0},
        {"include_delim": "both"},
    ],
)
def test_bad_arguments_raise_chonkies_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError) as theirs:
        chonkie.SentenceChunker(**kwargs)
    with pytest.raises(ValueError) as ours:
        rc.SentenceChunker(**kwargs)
    assert str(ours.value) == str(theirs.value)


def test_entry_points_pipeline_and_refinery() -> None:
    from chonkie import OverlapRefinery, Pipeline
    from chonkie.pipeline import ComponentRegistry

    text = "Pipelines build chunkers by name. They pass the arguments on! " * 30
    ours, theirs = both(chunk_size=128, chunk_overlap=32)
    assert fields(ours(text)) == fields(theirs(text))
    batch = ours.chunk_batch([text, text[:90]], show_progress=False)
    assert [fields(c) for c in batch] == [fields(theirs.chunk(t)) for t in (text, text[:90])]
    component = ComponentRegistry.get_component("SentenceChunker")
    original = component.component_class
    try:
        component.component_class = rc.SentenceChunker
        doc = Pipeline().chunk_with("sentence", chunk_size=128).run(texts=text)
    finally:
        component.component_class = original
    assert type(doc.chunks[0]) is Chunk
    assert fields(doc.chunks) == fields(theirs.__class__(chunk_size=128).chunk(text))
    refined = OverlapRefinery(context_size=8)(ours.chunk(text))
    expected = OverlapRefinery(context_size=8)(theirs.chunk(text))
    assert [(c.text, c.context) for c in refined] == [(c.text, c.context) for c in expected]


def _chunk_texts(chunker: Any, text: str) -> list[str]:
    return [c.text for c in chunker.chunk(text)]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_workers(method: str) -> None:
    chunker = rc.SentenceChunker(tokenizer=tokenizer("cl100k_base"), chunk_size=16)
    texts = [f"Worker text {i}. It has sentences! Several of them? " * 8 for i in range(4)]
    want = [_chunk_texts(chunker, t) for t in texts]
    assert [_chunk_texts(pickle.loads(pickle.dumps(chunker)), t) for t in texts] == want
    with multiprocessing.get_context(method).Pool(2) as pool:
        assert pool.starmap(_chunk_texts, [(chunker, t) for t in texts]) == want
