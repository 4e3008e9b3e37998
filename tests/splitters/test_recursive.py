"""RecursiveSplitter against LangChain's RecursiveCharacterTextSplitter, the test-time oracle.

Every test runs on both backends (conftest). LangChain's results are cached per input so the
second backend does not pay for the oracle again.
"""

from __future__ import annotations

import functools

import pytest
import ragchunk
from hypothesis import given
from hypothesis import strategies as st
from invariants import check_chunks, ordinary_count, sample_texts
from ragchunk.core import dispatch
from ragchunk.splitters.recursive import RecursiveSplitter
from testdata import corpus_documents

lc = pytest.importorskip("langchain_text_splitters")

DOCS = corpus_documents()


def _lc_splitter(
    length: str,
    chunk_size: int,
    chunk_overlap: int,
    separators: tuple[str, ...] | None = None,
    keep_separator: object = True,
    is_separator_regex: bool = False,
    encoding: str = "cl100k_base",
) -> object:
    kwargs = dict(
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        separators=list(separators) if separators is not None else None,
        keep_separator=keep_separator,
        is_separator_regex=is_separator_regex,
    )
    cls = lc.RecursiveCharacterTextSplitter
    if length == "chars":
        return cls(**kwargs)
    # Ordinary counting (ragchunk never refuses special-token text; see the class docstring).
    return cls.from_tiktoken_encoder(encoding_name=encoding, disallowed_special=(), **kwargs)


@functools.lru_cache(maxsize=4096)
def oracle(text: str, *args: object) -> list[str]:
    return _lc_splitter(*args).split_text(text)  # type: ignore[attr-defined, no-any-return]


def ours(text: str, length: str, size: int, overlap: int, seps=None, keep=True, regex=False,
         encoding="cl100k_base") -> list[ragchunk.Chunk]:  # fmt: skip
    s = RecursiveSplitter(
        size,
        overlap,
        separators=seps,
        keep_separator=keep,
        is_separator_regex=regex,
        length=length,
        tokenizer=encoding,
    )
    return s.split(text)


def check(text: str, length: str, size: int, overlap: int, seps=None, keep=True, regex=False):  # type: ignore[no-untyped-def]
    got = ours(text, length, size, overlap, seps, keep, regex)
    want = oracle(text, length, size, overlap, seps, keep, regex)
    assert [c.text for c in got] == want
    for c in got:
        if not c.metadata.get("rejoined"):
            assert text[c.start : c.end] == c.text
    return got


def _sample(every_rust: int, every_python: int) -> list[tuple[str, str]]:
    step = every_rust if dispatch.name() == "rust" else every_python
    return DOCS[::step]


CONFIGS = [
    ("chars", 1000, 200),
    ("chars", 300, 0),
    ("tokens", 512, 50),
    ("tokens", 128, 0),
]


@pytest.mark.parametrize(("length", "size", "overlap"), CONFIGS)
def test_corpus_matches_langchain(length: str, size: int, overlap: int) -> None:
    if not DOCS:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found")
    docs = _sample(every_rust=8, every_python=60)
    n = 0
    for _path, text in docs:
        n += len(check(text, length, size, overlap))
    assert n > 0


@pytest.mark.parametrize("keep", [False, "start", "end"])
def test_corpus_keep_separator_modes(keep: object) -> None:
    if not DOCS:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found")
    for _path, text in _sample(every_rust=40, every_python=120):
        check(text, "chars", 400, 40, keep=keep)
        check(text, "tokens", 100, 10, keep=keep)


@pytest.mark.parametrize("language", ["markdown", "python", "rust", "html", "latex", "js"])
def test_corpus_language_presets(language: str) -> None:
    if not DOCS:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found")
    seps = tuple(RecursiveSplitter.language_separators(language))
    for _path, text in _sample(every_rust=40, every_python=150):
        check(text, "chars", 500, 50, seps=seps, regex=True)


@pytest.mark.single_backend
@pytest.mark.parametrize(
    "language",
    ["python", "js", "ts", "rust", "go", "java", "c", "cpp", "markdown", "html", "latex"],
)
def test_language_separators_are_langchains(language: str) -> None:
    want = lc.RecursiveCharacterTextSplitter.get_separators_for_language(lc.Language(language))
    assert RecursiveSplitter.language_separators(language) == want
    assert RecursiveSplitter.language_separators(lc.Language(language)) == want
    s = RecursiveSplitter.from_language(language, chunk_size=50, length="chars")
    assert s.is_separator_regex


def test_docstring_example_of_langchain() -> None:
    text = (
        "Hi.\n\nI'm Harrison.\n\nHow? Are? You?\nOkay then f f f f.\n"
        "This is a weird text to write, but gotta test the splittingggg some how.\n\n"
        "Bye!\n\n-H."
    )
    got = check(text, "chars", 10, 1)
    assert [c.text for c in got][:3] == ["Hi.", "I'm", "Harrison."]


_ALPHABET = st.sampled_from(
    [*"ab c\n\n\t.,;é中文🦀", "\n\n", "  ", ". ", "Hello", " world", "\u3000", "\x1c"]
)
_TEXT = st.lists(_ALPHABET, max_size=60).map("".join)
_SEPS = st.sampled_from(
    [
        None,
        ("\n\n", "\n", " ", ""),
        (".", " "),
        ("\n", "中", ""),
        (" ",),
        ("ab", "", "c"),
    ]
)


@given(
    text=_TEXT,
    size=st.integers(1, 30),
    data=st.data(),
    seps=_SEPS,
    keep=st.sampled_from([True, False, "start", "end"]),
    length=st.sampled_from(["chars", "tokens"]),
)
def test_random_inputs_match_langchain(text, size, data, seps, keep, length) -> None:  # type: ignore[no-untyped-def]
    overlap = data.draw(st.integers(0, size - 1))
    check(text, length, size, overlap, seps, keep)


_REGEX_SEPS = st.sampled_from(
    [
        (r"\n{2,}", r"\n", r"\s+", ""),
        (r"[.!?]\s", " ", ""),
        (r"(?:ab|c)+", ""),
        (r"\n#{1,6} ", "```\n", r"\n\*\*\*+\n", "\n\n", "\n", " ", ""),
        (r"$", " ", ""),  # zero-width: Python backend on both
        (r"\bc", ""),  # \b: Python backend on both
    ]
)


@given(
    text=_TEXT,
    size=st.integers(1, 30),
    data=st.data(),
    seps=_REGEX_SEPS,
    keep=st.sampled_from([True, False, "end"]),
)
def test_random_regex_separators_match_langchain(text, size, data, seps, keep) -> None:  # type: ignore[no-untyped-def]
    overlap = data.draw(st.integers(0, size - 1))
    check(text, "chars", size, overlap, seps, keep, regex=True)


@pytest.mark.single_backend
@given(
    text=st.text(max_size=80),
    size=st.integers(1, 25),
    data=st.data(),
    seps=st.one_of(_SEPS, _REGEX_SEPS.map(lambda s: ("regex", s))),
    keep=st.sampled_from([True, False, "start", "end"]),
    length=st.sampled_from(["chars", "tokens"]),
)
def test_backends_agree(text, size, data, seps, keep, length) -> None:  # type: ignore[no-untyped-def]
    overlap = data.draw(st.integers(0, size - 1))
    regex = isinstance(seps, tuple) and seps and seps[0] == "regex"
    separators = seps[1] if regex else seps
    s = RecursiveSplitter(size, overlap, separators, keep, bool(regex), length=length)
    before = dispatch.name()
    try:
        dispatch.set_backend("rust")
        rust = s.split(text)
        dispatch.set_backend("python")
        pure = s.split(text)
    finally:
        dispatch.set_backend(before)
    assert rust == pure


def test_callable_tokenizer_matches_langchain_length_function() -> None:
    def words(s: str) -> int:
        return len(s.split())

    text = "one two three four five six seven\n\neight nine ten eleven twelve thirteen. " * 5
    s = RecursiveSplitter(6, 2, tokenizer=words)
    want = lc.RecursiveCharacterTextSplitter(
        chunk_size=6, chunk_overlap=2, length_function=words
    ).split_text(text)
    got = s.split(text)
    assert [c.text for c in got] == want
    assert all(c.token_count == words(c.text) for c in got)
    assert s.split_batch([text, "", text]) == [got, [], got]


def test_token_counts_are_exact(tiktoken_cl100k) -> None:  # type: ignore[no-untyped-def]
    text = DOCS[0][1][:20000] if DOCS else "Hello world. " * 500
    for c in RecursiveSplitter(100, 10).split(text):
        assert c.token_count == len(tiktoken_cl100k.encode_ordinary(c.text))
        assert c.token_count <= 100 or len(c.text) == 1


def test_rejoined_chunks_are_flagged() -> None:
    text = "a..b..c"
    s = RecursiveSplitter(10, 0, separators=["."], keep_separator=False, length="chars")
    (chunk,) = s.split(text)
    assert chunk.text == "a.b.c" == oracle(text, "chars", 10, 0, (".",), False, False)[0]
    assert chunk.metadata == {"rejoined": True}
    assert (chunk.start, chunk.end) == (0, 7)


def test_surrogates_are_kept() -> None:
    text = "ab\ud800cd ef"
    got = RecursiveSplitter(3, 0, length="chars").split(text)
    assert [c.text for c in got] == oracle(text, "chars", 3, 0, None, True, False)


def test_split_batch_matches_split() -> None:
    texts = [d for _, d in DOCS[:6]] or ["a b c " * 300]
    texts += ["", "x"]
    for length in ("chars", "tokens"):
        s = RecursiveSplitter(200, 20, length=length)
        want = [s.split(t) for t in texts]
        assert s.split_batch(texts) == want
        assert s.split_batch(texts, workers=2) == want
        assert s.split_batch(texts, workers=1) == want


@pytest.mark.parametrize(
    ("kwargs", "exc", "word"),
    [
        ({"chunk_size": 0}, ValueError, "chunk_size"),
        ({"chunk_size": -3}, ValueError, "chunk_size"),
        ({"chunk_size": 1.5}, TypeError, "chunk_size"),
        ({"chunk_size": 10, "chunk_overlap": 10}, ValueError, "chunk_overlap"),
        ({"chunk_size": 10, "chunk_overlap": 11}, ValueError, "chunk_overlap"),
        ({"chunk_size": 10, "chunk_overlap": -1}, ValueError, "chunk_overlap"),
        ({"chunk_size": 10, "separators": []}, ValueError, "separators"),
        ({"chunk_size": 10, "separators": "\n"}, TypeError, "separators"),
        ({"chunk_size": 10, "separators": ["a", 3]}, TypeError, "separators[1]"),
        (
            {"chunk_size": 10, "separators": ["(", ""], "is_separator_regex": True},
            ValueError,
            "separators[0]",
        ),
        ({"chunk_size": 10, "keep_separator": "middle"}, ValueError, "keep_separator"),
        ({"chunk_size": 10, "length": "bytes"}, ValueError, "length"),
        ({"chunk_size": 10, "tokenizer": "gpt2"}, ValueError, "tokenizer"),
        ({"chunk_size": 10, "tokenizer": 3}, TypeError, "tokenizer"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], exc: type[Exception], word: str) -> None:
    with pytest.raises(exc, match=word.replace("[", r"\[").replace("]", r"\]")):
        RecursiveSplitter(**kwargs)  # type: ignore[arg-type]


def test_bad_text() -> None:
    s = RecursiveSplitter(10)
    with pytest.raises(TypeError, match="text"):
        s.split(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text"):
        s.split_text(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        s.split_batch(["a", 2])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="workers"):
        s.split_batch(["a"], workers=0)
    with pytest.raises(ValueError, match="language"):
        RecursiveSplitter.from_language("cobol", chunk_size=10)


@pytest.mark.single_backend
def test_split_batch_releases_the_gil() -> None:
    import asyncio

    if dispatch.name() != "rust":
        pytest.skip("the Python backend holds the GIL by nature")
    texts = [d for _, d in DOCS[:30]] or ["word " * 200_000]
    s = RecursiveSplitter(256, 20)

    async def main() -> tuple[int, list[list[ragchunk.Chunk]]]:
        ticks = 0
        task = asyncio.create_task(asyncio.to_thread(s.split_batch, texts))
        while not task.done():
            await asyncio.sleep(0.001)
            ticks += 1
        return ticks, await task

    ticks, result = asyncio.run(main())
    assert len(result) == len(texts)
    assert ticks > 5, "the event loop should keep running while Rust works"


def test_large_repetition_regex_matches_langchain() -> None:
    s = RecursiveSplitter(5, 0, ["(?:ab){1000}(?:ab){0,1000}", ""], is_separator_regex=True,
                          length="chars")  # fmt: skip
    assert s.split_text("abc abc") == oracle(
        "abc abc", "chars", 5, 0, ("(?:ab){1000}(?:ab){0,1000}", ""), True, True
    )


@pytest.mark.parametrize("size", [8, 64])
@pytest.mark.parametrize("length", ["tokens", "chars"])
def test_invariants(size: int, length: str) -> None:
    splitter = RecursiveSplitter(chunk_size=size, chunk_overlap=size // 4, length=length)
    count = ordinary_count() if length == "tokens" else len
    for text in sample_texts():
        # The budget holds for the sum of the pieces' sizes, as LangChain's does, so the
        # merged text may count a little more; only where LangChain's chunk does the same.
        chunks = splitter.split(text)
        over = {c.text for c in chunks if c.token_count > size}
        langchain = set(oracle(text, length, size, size // 4)) if over else set()
        check_chunks(
            text,
            chunks,
            budget=size,
            count=count,
            overflow_ok=lambda c, same=langchain: c.text in same,
        )
