"""SentenceSplitter: segmentation rules, packing, both backends, bad input; and the doctests
of the classic splitters."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st
from invariants import check_chunks, ordinary_count, sample_texts
from ragchunk.core import dispatch
from ragchunk.splitters import character, recursive, sentence, token_window
from ragchunk.splitters.sentence import SentenceSplitter
from testdata import corpus_documents

DOCS = corpus_documents()


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "Mr. Smith paid $3.50 for it. Dr. J. K. Rowling agreed! Did she? Yes.",
            ["Mr. Smith paid $3.50 for it.", "Dr. J. K. Rowling agreed!", "Did she?", "Yes."],
        ),
        (
            'He lives in the U.S. now, e.g. in Ohio. "Wait..." she said. Go on... Then stop.',
            ["He lives in the U.S. now, e.g. in Ohio.", '"Wait..." she said.', "Go on...",
             "Then stop."],
        ),
        ("See Fig. 3 and Eq. 2. Next one.", ["See Fig. 3 and Eq. 2.", "Next one."]),
        ("Version 1.2.3 is out (see v2.0). Great!", ["Version 1.2.3 is out (see v2.0).", "Great!"]),
        ("He said “Stop.” Then he left.", ["He said “Stop.”", "Then he left."]),
        (
            "今天天气很好。我们去公园吧！你觉得呢？「好的。」然后；结束",
            ["今天天气很好。", "我们去公园吧！", "你觉得呢？", "「好的。」", "然后；", "结束"],
        ),
        ("日本語のテキストです。次の文！", ["日本語のテキストです。", "次の文！"]),
        (
            "Rust 很快。It is safe. 日本語もＯＫ！終わり",
            ["Rust 很快。", "It is safe.", "日本語もＯＫ！", "終わり"],
        ),
        ("# Title\nFirst line\n\n- item one\n- item two", ["# Title", "First line",
                                                         "- item one", "- item two"]),
        ("", []),
        ("   \n  ", []),
    ],
)  # fmt: skip
def test_sentences(text: str, want: list[str]) -> None:
    assert SentenceSplitter.sentences(text) == want


_ALPHA = st.sampled_from(
    [*'ab A.!?。！？；\n"”」)', "Mr.", "U.S.", "e.g.", " 3.5", "...", "…", "中文", "Éa", "\u3000"]
)
_TEXT = st.lists(_ALPHA, max_size=60).map("".join)


@given(text=_TEXT, size=st.integers(1, 30), overlap=st.integers(0, 3),
       length=st.sampled_from(["chars", "tokens"]))  # fmt: skip
def test_packing_invariants(text: str, size: int, overlap: int, length: str) -> None:
    s = SentenceSplitter(size, overlap, length=length)
    chunks = s.split(text)
    spans = SentenceSplitter.sentence_spans(text)
    starts = {a for a, _ in spans}
    ends = {b for _, b in spans}
    covered = 0
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.start <= max(covered, c.start)
        assert c.token_count <= size or len(c.text) == 1
        covered = max(covered, c.end)
        assert c.token_count == (len(c.text) if length == "chars" else c.token_count)
    # Everything that is not whitespace is in some chunk.
    inside = set()
    for c in chunks:
        inside.update(range(c.start, c.end))
    assert all(text[i].isspace() for i in range(len(text)) if i not in inside)
    # Chunks start and end on sentence edges, or inside a sentence over the budget (cut).
    count = (lambda t: len(t)) if length == "chars" else None
    for c in chunks:
        for edge, edges in ((c.start, starts), (c.end, ends)):
            if edge in edges:
                continue
            (a, b) = next((a, b) for a, b in spans if a < edge < b)
            if count is not None:
                assert count(text[a:b]) > size


@pytest.mark.single_backend
@given(text=st.one_of(_TEXT, st.text(max_size=80)), size=st.integers(1, 25),
       overlap=st.integers(0, 2), length=st.sampled_from(["chars", "tokens"]))  # fmt: skip
def test_backends_agree(text: str, size: int, overlap: int, length: str) -> None:
    s = SentenceSplitter(size, overlap, length=length)
    before = dispatch.name()
    try:
        dispatch.set_backend("rust")
        rust = (s.split(text), SentenceSplitter.sentence_spans(text))
        dispatch.set_backend("python")
        pure = (s.split(text), SentenceSplitter.sentence_spans(text))
    finally:
        dispatch.set_backend(before)
    assert rust == pure


def test_overlap_sentences() -> None:
    s = SentenceSplitter(10, 1, length="chars")
    assert s.split_text("A b. C d. E f. G h.") == ["A b. C d.", "C d. E f.", "E f. G h."]


def test_long_sentence_is_cut_at_clauses() -> None:
    text = "First clause here, second clause there; third part follows. Short."
    got = SentenceSplitter(25, length="chars").split_text(text)
    assert got == ["First clause here,", "second clause there;", "third part follows.",
                   "Short."]  # fmt: skip


def test_corpus_chunks_within_budget(tiktoken_cl100k) -> None:  # type: ignore[no-untyped-def]
    docs = [d for _, d in DOCS[:: 20 if dispatch.name() == "rust" else 90]]
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found")
    s = SentenceSplitter(256, 1)
    for text, chunks in zip(docs, s.split_batch(docs), strict=True):
        assert chunks == s.split(text)
        for c in chunks:
            assert text[c.start : c.end] == c.text
            assert c.token_count == len(tiktoken_cl100k.encode_ordinary(c.text)) <= 256


def test_callable_tokenizer() -> None:
    s = SentenceSplitter(5, tokenizer=lambda t: len(t.split()))
    got = s.split_text("One two three. Four five six seven. Eight.")
    assert got == ["One two three.", "Four five six seven. Eight."]
    assert s.split_batch(["One two three."]) == [s.split("One two three.")]


@pytest.mark.parametrize(
    ("kwargs", "exc", "word"),
    [
        ({"chunk_size": 0}, ValueError, "chunk_size"),
        ({"chunk_size": True}, TypeError, "chunk_size"),
        ({"chunk_size": 5, "chunk_overlap_sentences": -1}, ValueError, "chunk_overlap_sentences"),
        ({"chunk_size": 5, "length": "words"}, ValueError, "length"),
        ({"chunk_size": 5, "tokenizer": "nope"}, ValueError, "tokenizer"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], exc: type[Exception], word: str) -> None:
    with pytest.raises(exc, match=word):
        SentenceSplitter(**kwargs)  # type: ignore[arg-type]


def test_bad_text() -> None:
    with pytest.raises(TypeError, match="text"):
        SentenceSplitter(5).split(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text"):
        SentenceSplitter.sentences(None)  # type: ignore[arg-type]


def test_surrogates() -> None:
    text = "Hi there. Bad \ud800 char. End."
    assert SentenceSplitter(100, length="chars").split_text(text) == [text]


def test_docstrings() -> None:
    results = [
        doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        for module in (character, recursive, sentence, token_window)
    ]
    result = doctest.TestResults(sum(r.failed for r in results), sum(r.attempted for r in results))
    assert result.failed == 0 and result.attempted > 5


@pytest.mark.parametrize("size", [8, 64])
@pytest.mark.parametrize("length", ["tokens", "chars"])
def test_invariants(size: int, length: str) -> None:
    splitter = SentenceSplitter(chunk_size=size, length=length)
    count = ordinary_count() if length == "tokens" else len
    for text in sample_texts():
        check_chunks(
            text,
            splitter.split(text),
            budget=size,
            count=count,
            overflow_ok=lambda c: len(c.text) == 1,
        )
