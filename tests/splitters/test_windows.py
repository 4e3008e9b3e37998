"""CharacterSplitter and TokenWindowSplitter: the worked example, invariants, LangChain's
TokenTextSplitter where every token edge is a character boundary, and bad input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from invariants import check_chunks, sample_texts
from ragchunk.core import dispatch
from ragchunk.splitters.character import CharacterSplitter
from ragchunk.splitters.token_window import TokenWindowSplitter
from testdata import corpus_documents

DOCS = corpus_documents()

# The textbook worked example of fixed-size chunking (chunk_size=35, overlap=5): this
# sentence reproduces all three of its printed windows exactly.
SENTENCE = (
    "Clouds come floating into my life, no longer to carry rain or usher storm, "
    "but to add color to my sunset sky."
)
SEED_OUTPUT = [
    "Clouds come floating into my life, ",
    "ife, no longer to carry rain or ush",
    "r usher storm, but to add color to ",
]


def test_character_worked_example() -> None:
    assert CharacterSplitter(35, 5, drop_last=True).split_text(SENTENCE) == SEED_OUTPUT
    kept = CharacterSplitter(35, 5).split(SENTENCE)
    assert [c.text for c in kept] == [*SEED_OUTPUT, "r to my sunset sky."]
    assert [(c.start, c.end, c.token_count) for c in kept][-1] == (90, 109, 19)


def textbook(text: str, size: int, overlap: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text) - size + 1, size - overlap)]


@given(text=st.text(max_size=200), size=st.integers(1, 40), data=st.data())
def test_character_windows(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    assert CharacterSplitter(size, overlap, drop_last=True).split_text(text) == textbook(
        text, size, overlap
    )
    chunks = CharacterSplitter(size, overlap).split(text)
    covered = 0
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.token_count == len(c.text) <= size
        assert c.start <= covered
        covered = c.end
    assert covered == len(text)


def test_character_batch() -> None:
    texts = [d for _, d in DOCS[:5]] + ["", "ab", "中文🦀"]
    s = CharacterSplitter(300, 30)
    want = [s.split(t) for t in texts]
    assert s.split_batch(texts) == want
    assert s.split_batch(texts, workers=2) == want


@pytest.fixture(scope="module")
def lc() -> object:
    return pytest.importorskip("langchain_text_splitters")


def _utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize(("size", "overlap"), [(512, 0), (256, 32), (50, 10)])
def test_token_windows_match_langchain_on_english(lc, tiktoken_cl100k, size, overlap) -> None:  # type: ignore[no-untyped-def]
    docs = [d for p, d in DOCS if p.startswith("rust-book-en")][
        :: 4 if dispatch.name() == "rust" else 20
    ]
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found")
    splitter = lc.TokenTextSplitter(  # type: ignore[attr-defined]
        encoding_name="cl100k_base", chunk_size=size, chunk_overlap=overlap, disallowed_special=()
    )
    compared = 0
    for text in docs:
        ids = tiktoken_cl100k.encode_ordinary(text)
        if not all(_utf8(tiktoken_cl100k.decode_single_token_bytes(t)) for t in ids):
            continue  # LangChain's decode would replace half characters with U+FFFD
        got = TokenWindowSplitter(size, overlap).split(text)
        assert [c.text for c in got] == splitter.split_text(text)
        compared += 1
    assert compared > 0


@given(
    text=st.lists(
        st.sampled_from([*"ab .\n中文é🦀😀", "Hello", "नमस्ते", "\u0301"]), max_size=40
    ).map("".join),
    size=st.integers(1, 12),
    data=st.data(),
)
def test_token_windows_invariants(
    tiktoken_cl100k, text: str, size: int, data: st.DataObject
) -> None:  # type: ignore[no-untyped-def]
    overlap = data.draw(st.integers(0, size - 1))
    chunks = TokenWindowSplitter(size, overlap).split(text)
    # Code-point offsets of the token edges that fall on character boundaries.
    data_bytes = text.encode()
    char_edges, b = set(), 0
    for t in tiktoken_cl100k.encode_ordinary(text):
        b += len(tiktoken_cl100k.decode_single_token_bytes(t))
        if _utf8(data_bytes[:b]):
            char_edges.add(len(data_bytes[:b].decode()))
    covered = 0
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.start <= covered, "no text skipped"
        assert c.end > covered, "every window adds text"
        covered = c.end
        # Over budget only when no token edge inside the window is a character boundary.
        assert c.token_count <= size or not any(c.start < e < c.end for e in char_edges)
        assert len(tiktoken_cl100k.encode_ordinary(c.text)) >= 1
    assert covered == len(text)


@pytest.mark.single_backend
@given(text=st.text(max_size=80), size=st.integers(1, 10), data=st.data())
def test_token_windows_backends_agree(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    s = TokenWindowSplitter(size, overlap, tokenizer="o200k_base")
    c = CharacterSplitter(size, overlap)
    before = dispatch.name()
    try:
        dispatch.set_backend("rust")
        rust = (s.split(text), c.split(text))
        dispatch.set_backend("python")
        pure = (s.split(text), c.split(text))
    finally:
        dispatch.set_backend(before)
    assert rust == pure


def test_token_window_stride_and_tiktoken_encoding(tiktoken_cl100k) -> None:  # type: ignore[no-untyped-def]
    text = "one two three four five six seven eight nine ten"
    by_stride = TokenWindowSplitter(4, stride=3).split_text(text)
    assert by_stride == TokenWindowSplitter(4, 1).split_text(text)
    assert TokenWindowSplitter(4, 1, tokenizer=tiktoken_cl100k).split_text(text) == by_stride
    texts = [d for _, d in DOCS[:4]] + ["", "x"]
    s = TokenWindowSplitter(128, 16)
    assert s.split_batch(texts, workers=2) == [s.split(t) for t in texts]


@pytest.mark.parametrize(
    ("cls", "kwargs", "exc", "word"),
    [
        (CharacterSplitter, {"chunk_size": 0}, ValueError, "chunk_size"),
        (CharacterSplitter, {"chunk_size": 5, "chunk_overlap": 5}, ValueError, "chunk_overlap"),
        (CharacterSplitter, {"chunk_size": "5"}, TypeError, "chunk_size"),
        (CharacterSplitter, {"chunk_size": 5, "drop_last": 1}, TypeError, "drop_last"),
        (TokenWindowSplitter, {"chunk_size": -1}, ValueError, "chunk_size"),
        (TokenWindowSplitter, {"chunk_size": 8, "chunk_overlap": 9}, ValueError, "chunk_overlap"),
        (TokenWindowSplitter, {"chunk_size": 8, "stride": 0}, ValueError, "stride"),
        (TokenWindowSplitter, {"chunk_size": 8, "stride": 9}, ValueError, "stride"),
        (TokenWindowSplitter, {"tokenizer": "gpt2"}, ValueError, "tokenizer"),
        (TokenWindowSplitter, {"tokenizer": len}, TypeError, "tokenizer"),
    ],
)
def test_bad_arguments(cls, kwargs, exc, word) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=word):
        cls(**kwargs)


def test_bad_text() -> None:
    for s in (CharacterSplitter(5), TokenWindowSplitter(5)):
        with pytest.raises(TypeError, match="text"):
            s.split(3)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"texts\[0\]"):
            s.split_batch([None])  # type: ignore[list-item]


def test_surrogates() -> None:
    text = "ab\ud800cd"
    assert CharacterSplitter(2).split_text(text) == ["ab", "\ud800c", "d"]
    assert "".join(TokenWindowSplitter(2).split_text(text)) == text


@pytest.mark.parametrize("size", [7, 100])
def test_character_invariants(size: int) -> None:
    splitter = CharacterSplitter(size, size // 3)
    for text in sample_texts():
        check_chunks(text, splitter.split(text), budget=size, count=len)


@pytest.mark.parametrize("size", [5, 64])
def test_token_window_invariants(size: int) -> None:
    splitter = TokenWindowSplitter(chunk_size=size, chunk_overlap=size // 5)
    for text in sample_texts():
        # A window's size is its tokens in the whole text's encoding, which re-encoding the
        # window alone need not reproduce; only a run with no character boundary (one
        # character, or two sharing a token) may hold more than the budget.
        check_chunks(
            text, splitter.split(text), budget=size, overflow_ok=lambda c: len(c.text) <= 2
        )
