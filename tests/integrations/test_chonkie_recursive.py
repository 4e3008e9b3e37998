"""ragchunk's ``RecursiveChunker`` drop-in gives ``chonkie.RecursiveChunker``'s chunks (text,
offsets, token counts; exact ones where Chonkie's token windows cut a character) on every
corpus script, through Chonkie's entry points, pipeline and refineries."""

from __future__ import annotations

import multiprocessing
import pickle
from typing import Any

import pytest
from chonkie_cases import fields, sample, tokenizer

chonkie = pytest.importorskip("chonkie")
pytest.importorskip("tiktoken")

from chonkie.types import Chunk, RecursiveLevel, RecursiveRules  # noqa: E402
from ragchunk.integrations import chonkie as rc  # noqa: E402


def _rules(*levels: dict[str, Any]) -> RecursiveRules:
    return RecursiveRules([RecursiveLevel(**level) for level in levels])


#: The configurations docs/integrations.md lists.
CONFIGS: list[dict[str, Any]] = [
    {},
    {"chunk_size": 512},
    {"chunk_size": 128, "min_characters_per_chunk": 1},
    {"tokenizer": "cl100k_base", "chunk_size": 256},
    {"tokenizer": "o200k_base", "chunk_size": 128, "min_characters_per_chunk": 4},
    {
        "chunk_size": 200,
        "rules": _rules(
            {"delimiters": ["\n\n", "。", "！"], "include_delim": "next"},
            {"delimiters": ".,"},
            {"pattern": r"\s+"},  # Chonkie ignores the pattern: a token level
            {"whitespace": True},
        ),
    },
]


def both(**kwargs: Any) -> tuple[Any, Any]:
    if "tokenizer" in kwargs:
        kwargs["tokenizer"] = tokenizer(kwargs["tokenizer"])
    return rc.RecursiveChunker(**kwargs), chonkie.RecursiveChunker(**kwargs)


def assert_matches(ours: list[Chunk], theirs: list[Chunk], text: str) -> None:
    """Chonkie's chunks, exact: every chunk a slice of the text at its offsets; the same
    chunks as Chonkie's wherever Chonkie decoded its token windows whole, and Chonkie's
    offsets up to its first lossy chunk (after which Chonkie's stop slicing the text)."""
    assert all(type(c) is Chunk for c in ours)
    assert all(text[c.start_index : c.end_index] == c.text for c in ours)
    assert "".join(c.text for c in ours) == text
    if not any("\ufffd" in c.text for c in theirs) or "\ufffd" in text:
        assert fields(ours) == fields(theirs)
        return
    assert len(ours) == len(theirs)
    exact = True
    for a, b in zip(ours, theirs, strict=True):
        exact = exact and "\ufffd" not in b.text
        if "\ufffd" not in b.text:
            assert (a.text, a.token_count) == (b.text, b.token_count)
        if exact:
            assert (a.start_index, a.end_index) == (b.start_index, b.end_index)


@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_corpus_matches_chonkie(kwargs: dict[str, Any]) -> None:
    docs = sample()
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: ../shared/corpus not found; not run")
    ours, theirs = both(**kwargs)
    for name, text in docs:
        got, want = ours.chunk(text), theirs.chunk(text)
        if "tokenizer" not in kwargs:  # no decoding, nothing lossy: identical
            assert fields(got) == fields(want), name
        assert_matches(got, want, text)
    assert len({name.split("/")[0] for name, _ in docs}) >= 7


EDGE = [
    "   ",
    "a",
    "No delimiter at all, only words and more words here",
    "Short. Tiny. A much longer sentence follows here. x",
    "中文句子。还有更多！真的吗？" * 6,
    "🦀 crabs. 🦀🦀 and 👩‍👩‍👧 families.\n\nÜnïcödé wörds! ελληνικά? done",
    "line\n" * 30,
    "\r\n\r\n. . . ..  !! ??\n\n\n",
]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"chunk_size": 6, "min_characters_per_chunk": 1},
        {"chunk_size": 16, "min_characters_per_chunk": 5},
        {"tokenizer": "cl100k_base", "chunk_size": 3, "min_characters_per_chunk": 2},
        {"chunk_size": 5, "rules": _rules({"delimiters": "。", "include_delim": None})},
        {"chunk_size": 4, "rules": _rules({"whitespace": True, "include_delim": "next"})},
        {"chunk_size": 4, "rules": RecursiveRules([])},
    ],
    ids=str,
)
@pytest.mark.parametrize("text", EDGE)
def test_edge_cases_match_chonkie(kwargs: dict[str, Any], text: str) -> None:
    ours, theirs = both(**kwargs)
    assert_matches(ours.chunk(text), theirs.chunk(text), text)


def test_lossy_token_window_is_exact() -> None:
    """A token level window that ends inside a character: Chonkie's text has U+FFFD; the
    drop-in's chunk holds the character whole and counts its tokens."""
    text = "中文句子"
    ours, theirs = both(tokenizer="cl100k_base", chunk_size=1, rules=_rules({}))
    want = theirs.chunk(text)
    assert [c.text for c in want] == ["中", "文", "\ufffd", "\ufffd", "子"]
    got = ours.chunk(text)
    assert [(c.text, c.start_index, c.end_index, c.token_count) for c in got] == [
        ("中", 0, 1, 1),
        ("文", 1, 2, 1),
        ("句", 2, 3, 2),
        ("子", 3, 4, 1),
    ]


def test_chonkies_code_runs_where_ragchunk_does_not_follow() -> None:
    text = "the quick brown fox. jumps over the lazy dog! " * 20
    ours = rc.RecursiveChunker(tokenizer="word", chunk_size=16)
    assert fields(ours.chunk(text)) == fields(chonkie.RecursiveChunker("word", 16).chunk(text))
    # an empty delimiter list: Chonkie cuts token windows and then merges them
    rules = RecursiveRules([RecursiveLevel(delimiters=[])])
    a, b = both(chunk_size=7, rules=rules)
    assert fields(a.chunk(text)) == fields(b.chunk(text))
    enc = tokenizer("cl100k_base")
    for cls in (rc.RecursiveChunker, chonkie.RecursiveChunker):
        with pytest.raises(ValueError, match="special token"):
            cls(tokenizer=enc, chunk_size=8).chunk("a <|endoftext|> b. c d e.")
        with pytest.raises(UnicodeEncodeError):
            cls(chunk_size=8).chunk("lone \ud800 surrogate. more")


@pytest.mark.parametrize(
    "kwargs", [{"chunk_size": 0}, {"min_characters_per_chunk": 0}, {"rules": "paragraphs"}]
)
def test_bad_arguments_raise_chonkies_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError) as theirs:
        chonkie.RecursiveChunker(**kwargs)
    with pytest.raises(ValueError) as ours:
        rc.RecursiveChunker(**kwargs)
    assert str(ours.value) == str(theirs.value)


def test_entry_points_pipeline_and_refinery() -> None:
    from chonkie import OverlapRefinery, Pipeline
    from chonkie.pipeline import ComponentRegistry

    text = "Pipelines build chunkers by name.\n\nThey pass the arguments on! " * 30
    ours, theirs = both(chunk_size=128)
    assert fields(ours(text)) == fields(theirs(text))
    batch = ours.chunk_batch([text, text[:90]], show_progress=False)
    assert [fields(c) for c in batch] == [fields(theirs.chunk(t)) for t in (text, text[:90])]
    rules = RecursiveRules.from_dict(theirs.rules.to_dict())
    assert fields(rc.RecursiveChunker(chunk_size=128, rules=rules).chunk(text)) == fields(
        ours(text)
    )
    component = ComponentRegistry.get_component("RecursiveChunker")
    original = component.component_class
    try:
        component.component_class = rc.RecursiveChunker
        doc = Pipeline().chunk_with("recursive", chunk_size=128).run(texts=text)
    finally:
        component.component_class = original
    assert type(doc.chunks[0]) is Chunk
    assert fields(doc.chunks) == fields(theirs.chunk(text))
    refined = OverlapRefinery(context_size=8)(ours.chunk(text))
    expected = OverlapRefinery(context_size=8)(theirs.chunk(text))
    assert [(c.text, c.context) for c in refined] == [(c.text, c.context) for c in expected]


def _chunk_texts(chunker: Any, text: str) -> list[str]:
    return [c.text for c in chunker.chunk(text)]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_workers(method: str) -> None:
    chunker = rc.RecursiveChunker(tokenizer=tokenizer("cl100k_base"), chunk_size=16)
    texts = [f"Worker text {i}. It has sentences!\n\nSeveral of them? " * 8 for i in range(4)]
    want = [_chunk_texts(chunker, t) for t in texts]
    assert [_chunk_texts(pickle.loads(pickle.dumps(chunker)), t) for t in texts] == want
    with multiprocessing.get_context(method).Pool(2) as pool:
        assert pool.starmap(_chunk_texts, [(chunker, t) for t in texts]) == want
