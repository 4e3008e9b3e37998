"""The LangChain drop-ins against LangChain itself, the oracle: the same chunks, metadata,
``start_index`` and errors, on the whole corpus and on edge cases; and LangChain's own unit
tests run against them (``langchain_suite.py``)."""

from __future__ import annotations

import copy
import logging
import os
import pickle
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testdata import corpus_documents

lc = pytest.importorskip("langchain_text_splitters")
pytest.importorskip("tiktoken")

from ragchunk.integrations import langchain as rc  # noqa: E402

DOCS = corpus_documents()
DROPINS = [
    "RecursiveCharacterTextSplitter",
    "CharacterTextSplitter",
    "TokenTextSplitter",
    "MarkdownTextSplitter",
    "PythonCodeTextSplitter",
]


@pytest.fixture(autouse=True)
def quiet_langchain() -> Iterator[None]:
    # LangChain's CharacterTextSplitter logs a warning for every oversized chunk.
    logger = logging.getLogger("langchain_text_splitters")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


def words(text: str) -> int:
    """A custom length function (called from Rust), 0 for whitespace."""
    return len(text.split())


def build(module: Any, name: str, how: str, kwargs: dict[str, Any]) -> Any:
    """The splitter ``name`` of ``module`` (LangChain's or ragchunk's), made the same way."""
    cls = getattr(module, name)
    if how == "init":
        return cls(**kwargs)
    if how.startswith("tiktoken:"):
        return cls.from_tiktoken_encoder(encoding_name=how.split(":", 1)[1], **kwargs)
    if how.startswith("language:"):
        return cls.from_language(lc.Language(how.split(":", 1)[1]), **kwargs)
    raise AssertionError(how)


def outcome(call: Callable[[], Any]) -> Any:
    """The result of ``call``, or the class and message of what it raised."""
    try:
        return call()
    except Exception as exc:
        return ("raised", type(exc), str(exc))


def documents(docs: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(d.page_content, d.metadata) for d in docs]


# ---------------------------------------------------------------------------------------------
# The whole corpus, several configurations per drop-in: split_text, then create_documents with
# metadatas (start_index when asked), document by document.

CORPUS_CONFIGS = [
    ("recursive-defaults", "RecursiveCharacterTextSplitter", "init", {"add_start_index": True}),
    (
        "recursive-500-100-end",
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 500, "chunk_overlap": 100, "keep_separator": "end", "add_start_index": True},
    ),
    (
        "recursive-300-0-drop-nostrip",
        "RecursiveCharacterTextSplitter",
        "init",
        {
            "chunk_size": 300,
            "chunk_overlap": 0,
            "keep_separator": False,
            "strip_whitespace": False,
            "add_start_index": True,
        },
    ),
    (
        "recursive-400-overlap-equal",
        "RecursiveCharacterTextSplitter",
        "init",
        # An overlap equal to the size makes a chunk of almost every piece: every 3rd document.
        {"chunk_size": 400, "chunk_overlap": 400, "every": 3},
    ),
    (
        "recursive-regex",
        "RecursiveCharacterTextSplitter",
        "init",
        {
            "chunk_size": 256,
            "chunk_overlap": 32,
            "separators": [r"\n#{1,6} ", r"\n\s*\n", r"[。！？.!?]\s*", " ", ""],
            "is_separator_regex": True,
            "add_start_index": True,
        },
    ),
    (
        "recursive-markdown",
        "RecursiveCharacterTextSplitter",
        "language:markdown",
        {"chunk_size": 1000, "chunk_overlap": 100, "add_start_index": True},
    ),
    (
        "recursive-tiktoken",
        "RecursiveCharacterTextSplitter",
        "tiktoken:cl100k_base",
        {"chunk_size": 512, "chunk_overlap": 50, "add_start_index": True},
    ),
    (
        "recursive-words",
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 120, "chunk_overlap": 20, "length_function": words, "keep_separator": "end"},
    ),
    ("character-defaults", "CharacterTextSplitter", "init", {}),
    (
        "character-lines-keep",
        "CharacterTextSplitter",
        "init",
        {
            "separator": "\n",
            "chunk_size": 500,
            "chunk_overlap": 100,
            "keep_separator": True,
            "add_start_index": True,
        },
    ),
    (
        "character-spaces-end",
        "CharacterTextSplitter",
        "init",
        {"separator": " ", "chunk_size": 300, "chunk_overlap": 50, "keep_separator": "end"},
    ),
    (
        "character-regex",
        "CharacterTextSplitter",
        "init",
        {
            "separator": r"\n\s*\n",
            "is_separator_regex": True,
            "chunk_size": 1000,
            "chunk_overlap": 0,
            "add_start_index": True,
        },
    ),
    (
        "character-tiktoken",
        "CharacterTextSplitter",
        "tiktoken:o200k_base",
        {"separator": "\n", "chunk_size": 256, "chunk_overlap": 32, "add_start_index": True},
    ),
    (
        "character-words",
        "CharacterTextSplitter",
        "init",
        {"separator": "\n", "chunk_size": 100, "chunk_overlap": 10, "length_function": words},
    ),
    (
        "token-cl100k",
        "TokenTextSplitter",
        "init",
        {
            "encoding_name": "cl100k_base",
            "chunk_size": 512,
            "chunk_overlap": 50,
            "add_start_index": True,
        },
    ),
    (
        "token-o200k",
        "TokenTextSplitter",
        "init",
        {
            "encoding_name": "o200k_base",
            "chunk_size": 100,
            "chunk_overlap": 0,
            "add_start_index": True,
        },
    ),
]


@pytest.mark.single_backend
@pytest.mark.parametrize(
    ("name", "how", "kwargs"), [c[1:] for c in CORPUS_CONFIGS], ids=[c[0] for c in CORPUS_CONFIGS]
)
def test_corpus_matches_langchain(name: str, how: str, kwargs: dict[str, Any]) -> None:
    if not DOCS:
        pytest.skip("SHARED TEST DATA MISSING: ../shared/corpus not found; not run")
    kwargs = dict(kwargs)
    every = kwargs.pop("every", 1)
    theirs, ours = build(lc, name, how, kwargs), build(rc, name, how, kwargs)
    assert type(ours).__mro__[1] is type(theirs)
    chunks = 0
    for i, (path, text) in enumerate(DOCS[::every]):
        meta = [{"source": path, "i": i}]
        # LangChain's create_documents is its split_text's chunks with their metadata.
        want = documents(theirs.create_documents([text], meta))
        assert ours.split_text(text) == [chunk for chunk, _ in want], path
        assert documents(ours.create_documents([text], meta)) == want, path
        chunks += len(want)
    assert chunks > len(DOCS)


@pytest.mark.single_backend
def test_split_documents_match_langchain() -> None:
    if not DOCS:
        pytest.skip("SHARED TEST DATA MISSING: ../shared/corpus not found; not run")
    from langchain_core.documents import Document

    sources = [Document(page_content=t, metadata={"source": p}) for p, t in DOCS[::7]]
    for name, how, kwargs in [
        ("RecursiveCharacterTextSplitter", "init", {"chunk_size": 800, "add_start_index": True}),
        ("CharacterTextSplitter", "init", {"separator": "\n", "chunk_size": 800}),
        (
            "TokenTextSplitter",
            "init",
            {"encoding_name": "cl100k_base", "chunk_size": 200, "chunk_overlap": 20},
        ),
    ]:
        theirs, ours = build(lc, name, how, kwargs), build(rc, name, how, kwargs)
        want = theirs.split_documents(sources)
        assert ours.split_documents(sources) == want
        assert list(ours.transform_documents(sources)) == want


@pytest.mark.single_backend
@pytest.mark.parametrize("language", [lang.value for lang in lc.Language])
def test_every_language_matches_langchain(language: str) -> None:
    lang = lc.Language(language)
    want = outcome(lambda: lc.RecursiveCharacterTextSplitter.get_separators_for_language(lang))
    assert outcome(lambda: rc.RecursiveCharacterTextSplitter.get_separators_for_language(lang)) == (
        want
    )
    kwargs = {"chunk_size": 200, "chunk_overlap": 20, "add_start_index": True}
    theirs = outcome(lambda: lc.RecursiveCharacterTextSplitter.from_language(lang, **kwargs))
    ours = outcome(lambda: rc.RecursiveCharacterTextSplitter.from_language(lang, **kwargs))
    if isinstance(theirs, tuple):  # a Language member LangChain has no separators for
        assert ours == theirs
        return
    assert isinstance(ours, rc.RecursiveCharacterTextSplitter)
    assert ours._separators == theirs._separators and ours._is_separator_regex
    texts = [CODE_SAMPLE] + [t for _, t in DOCS[::25]]
    for text in texts:
        assert ours.split_text(text) == theirs.split_text(text)
        assert documents(ours.create_documents([text])) == documents(
            theirs.create_documents([text])
        )


CODE_SAMPLE = """\
package main

import "fmt"

// A comment
class Foo(Base):
    def bar(self):
        if x:
            return 1
        for i in range(3):
            print(i)

func main() {
    var x = 1
    const y = 2
    switch x {
    case 1:
        fmt.Println("one")
    }
}

public static void main(String[] args) {
    int count = 0;
    while (count < 10) { count++; }
}

fn main() {
    let v = vec![1, 2, 3];
    match v.len() { 3 => println!("three"), _ => {} }
}

\\section{Intro} Some $x^2$ math. \\begin{itemize} \\item one \\end{itemize}

<html><body><div><p>Para</p><table><tr><td>x</td></tr></table></div></body></html>

# Heading

Text.
***
Private Sub Foo()
End Sub
"""


# ---------------------------------------------------------------------------------------------
# Edge cases, on both backends: every outcome (chunks, documents, or the error) is LangChain's.

EDGE_TEXTS = [
    "",
    " ",
    "\n\n\n",
    "foo bar baz 123",
    "Hi.\n\nI'm Harrison.\n\nHow? Are? You?\nOkay then f f f f.",
    "a\ud800b c\n\nd",
    "special <|endoftext|> text\n\nhere",
    "🦀🦀 crab\n\n中文。中文！ 中文",
    "ab" * 40,
    "SCE191 First chunk. SCE103 Second chunk.",
    "x$y\n",
]

EDGE_CONFIGS: list[tuple[str, str, dict[str, Any]]] = [
    ("RecursiveCharacterTextSplitter", "init", {"chunk_size": 5, "chunk_overlap": 2}),
    ("RecursiveCharacterTextSplitter", "init", {"chunk_size": 4, "chunk_overlap": 4}),
    ("RecursiveCharacterTextSplitter", "init", {"chunk_size": 7, "separators": []}),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {
            "chunk_size": 6,
            "chunk_overlap": 0,
            "separators": ["(a)(b)?", " "],
            "is_separator_regex": True,
        },
    ),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {
            "chunk_size": 6,
            "chunk_overlap": 1,
            "separators": ["$", r"\b", " "],
            "is_separator_regex": True,
        },
    ),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 5, "chunk_overlap": 0, "keep_separator": "yes", "strip_whitespace": False},
    ),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 5, "chunk_overlap": 1, "length_function": lambda s: len(s) / 2},
    ),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 5, "chunk_overlap": 1, "length_function": lambda s: len(s) + 1},
    ),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 3, "chunk_overlap": 0, "length_function": lambda s: -len(s)},
    ),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 3, "chunk_overlap": 3, "length_function": words, "keep_separator": False},
    ),
    ("RecursiveCharacterTextSplitter", "tiktoken:cl100k_base", {"chunk_size": 3}),
    (
        "RecursiveCharacterTextSplitter",
        "tiktoken:cl100k_base",
        {"chunk_size": 3, "chunk_overlap": 0, "allowed_special": "all"},
    ),
    ("RecursiveCharacterTextSplitter", "language:latex", {"chunk_size": 6, "chunk_overlap": 0}),
    ("CharacterTextSplitter", "init", {"separator": " ", "chunk_size": 3, "chunk_overlap": 1}),
    ("CharacterTextSplitter", "init", {"separator": " ", "chunk_size": 3, "chunk_overlap": 3}),
    ("CharacterTextSplitter", "init", {"separator": "", "chunk_size": 2, "chunk_overlap": 0}),
    (
        "CharacterTextSplitter",
        "init",
        {
            "separator": r"(?=SCE\d{3})",
            "is_separator_regex": True,
            "chunk_size": 20,
            "chunk_overlap": 0,
        },
    ),
    (
        "CharacterTextSplitter",
        "init",
        {
            "separator": r"\s",
            "is_separator_regex": True,
            "chunk_size": 4,
            "chunk_overlap": 0,
            "keep_separator": "end",
        },
    ),
    (
        "CharacterTextSplitter",
        "init",
        {"separator": " ", "chunk_size": 2, "chunk_overlap": 0, "length_function": words},
    ),
    (
        "CharacterTextSplitter",
        "init",
        {
            "separator": " ",
            "chunk_size": 4,
            "chunk_overlap": 1,
            "strip_whitespace": False,
            "keep_separator": True,
        },
    ),
    ("CharacterTextSplitter", "tiktoken:o200k_base", {"separator": " ", "chunk_size": 2}),
    ("TokenTextSplitter", "init", {"encoding_name": "cl100k_base", "chunk_size": 2}),
    (
        "TokenTextSplitter",
        "init",
        {"encoding_name": "cl100k_base", "chunk_size": 3, "chunk_overlap": 1},
    ),
    (
        "TokenTextSplitter",
        "init",
        {
            "encoding_name": "o200k_base",
            "chunk_size": 1,
            "chunk_overlap": 0,
            "allowed_special": "all",
        },
    ),
    (
        "TokenTextSplitter",
        "init",
        {
            "encoding_name": "cl100k_base",
            "chunk_size": 4,
            "chunk_overlap": 2,
            "disallowed_special": (),
        },
    ),
    (
        "TokenTextSplitter",
        "init",
        {"encoding_name": "cl100k_base", "chunk_size": 3, "chunk_overlap": 3},
    ),
]


@pytest.mark.parametrize(("name", "how", "kwargs"), EDGE_CONFIGS)
def test_edge_cases_match_langchain(name: str, how: str, kwargs: dict[str, Any]) -> None:
    kwargs = {"chunk_overlap": 0, **kwargs}
    theirs, ours = build(lc, name, how, kwargs), build(rc, name, how, kwargs)
    for text in EDGE_TEXTS:
        assert outcome(lambda t=text: ours.split_text(t)) == outcome(
            lambda t=text: theirs.split_text(t)
        ), repr(text)
        for splitter in (theirs, ours):
            splitter._add_start_index = True
        assert outcome(lambda t=text: documents(ours.create_documents([t, t]))) == outcome(
            lambda t=text: documents(theirs.create_documents([t, t]))
        ), repr(text)


@pytest.mark.parametrize("name", DROPINS)
def test_non_str_text_raises_as_langchain(name: str) -> None:
    kwargs = {"encoding_name": "cl100k_base"} if name == "TokenTextSplitter" else {}
    theirs, ours = build(lc, name, "init", kwargs), build(rc, name, "init", kwargs)
    for bad in (None, b"bytes", 3):
        assert outcome(lambda b=bad: ours.split_text(b)) == outcome(
            lambda b=bad: theirs.split_text(b)
        )


def test_length_function_errors_propagate_as_langchain() -> None:
    def boom(text: str) -> int:
        raise RuntimeError(f"cannot measure {text[:3]!r}")

    for name in ("RecursiveCharacterTextSplitter", "CharacterTextSplitter"):
        kwargs = {"chunk_size": 5, "chunk_overlap": 0, "length_function": boom}
        theirs, ours = build(lc, name, "init", kwargs), build(rc, name, "init", kwargs)
        want = outcome(lambda s=theirs: s.split_text("ab cd ef"))
        assert want[0] == "raised"
        assert outcome(lambda s=ours: s.split_text("ab cd ef")) == want


# ---------------------------------------------------------------------------------------------
# Bad arguments: LangChain's errors, its classes and messages.

BAD_ARGUMENTS: list[tuple[str, Callable[[Any], Any]]] = [
    ("chunk_size 0", lambda m: m.RecursiveCharacterTextSplitter(chunk_size=0)),
    ("chunk_size -1", lambda m: m.CharacterTextSplitter(chunk_size=-1)),
    ("overlap -1", lambda m: m.RecursiveCharacterTextSplitter(chunk_size=2, chunk_overlap=-1)),
    ("overlap > size", lambda m: m.CharacterTextSplitter(chunk_size=2, chunk_overlap=4)),
    ("token overlap > size", lambda m: m.TokenTextSplitter(chunk_size=2, chunk_overlap=4)),
    (
        "token overlap = size",
        lambda m: m.TokenTextSplitter(
            encoding_name="cl100k_base", chunk_size=5, chunk_overlap=5
        ).split_text("abc"),
    ),
    ("unknown encoding", lambda m: m.TokenTextSplitter(encoding_name="nope")),
    (
        "unknown encoding (tiktoken)",
        lambda m: m.RecursiveCharacterTextSplitter.from_tiktoken_encoder(encoding_name="nope"),
    ),
    (
        "unknown model",
        lambda m: m.CharacterTextSplitter.from_tiktoken_encoder(model_name="no-such-model"),
    ),
    (
        "language without separators",
        lambda m: m.RecursiveCharacterTextSplitter.from_language(lc.Language.PERL),
    ),
    (
        "unknown language",
        lambda m: m.RecursiveCharacterTextSplitter.get_separators_for_language("klingon"),
    ),
    (
        "not a Hugging Face tokenizer",
        lambda m: m.CharacterTextSplitter.from_huggingface_tokenizer("foo"),
    ),
    (
        "special token, tiktoken length",
        lambda m: m.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=4, chunk_overlap=0
        ).split_text("hello <|endoftext|> world"),
    ),
    (
        "special token, token windows",
        lambda m: m.TokenTextSplitter(encoding_name="o200k_base", chunk_size=4).split_text(
            "hello <|endoftext|>"
        ),
    ),
    (
        "invalid regex",
        lambda m: m.RecursiveCharacterTextSplitter(
            separators=["(", " "], is_separator_regex=True
        ).split_text("a b"),
    ),
    (
        "invalid regex, character",
        lambda m: m.CharacterTextSplitter(separator="[", is_separator_regex=True).split_text("a"),
    ),
]


@pytest.mark.parametrize("make", [b[1] for b in BAD_ARGUMENTS], ids=[b[0] for b in BAD_ARGUMENTS])
def test_bad_arguments_raise_langchains_errors(make: Callable[[Any], Any]) -> None:
    want = outcome(lambda: make(lc))
    assert want[0] == "raised", want
    assert outcome(lambda: make(rc)) == want


def test_langchains_argument_messages() -> None:
    with pytest.raises(ValueError, match=re.escape("Got a larger chunk overlap (4) than chunk")):
        rc.CharacterTextSplitter(chunk_size=2, chunk_overlap=4)
    with pytest.raises(ValueError, match="chunk_size must be > 0, got 0"):
        rc.RecursiveCharacterTextSplitter(chunk_size=0)
    with pytest.raises(ValueError, match="tokens_per_chunk must be greater than chunk_overlap"):
        rc.TokenTextSplitter(encoding_name="cl100k_base", chunk_size=3, chunk_overlap=3).split_text(
            "x"
        )


# ---------------------------------------------------------------------------------------------
# Random input.

_PIECES = [*"ab \n.,-é中🦀\t", "<|endoftext|>", "\ud800", "  "]
_SEPARATORS = ["\n\n", "\n", " ", "", ".", "-", "ab", "é", "🦀", "  "]
_REGEXES = [r"\s+", r"[.,]", r"a|b", r"(?:ab)+", r"\n\s*", r"[^a]", r"é+?", r"(a)", r"\d", "$"]
_LENGTHS: dict[str, Callable[[str], Any] | None] = {
    "len": len,
    "words": words,
    "plus1": lambda s: len(s) + 1,
    "float": lambda s: len(s) / 2,
    "zero": lambda s: 0,
    "half": lambda s: len(s) // 2,
    "tiktoken": None,
}


@pytest.mark.single_backend
@given(
    text=st.lists(st.sampled_from(_PIECES), max_size=50).map("".join),
    size=st.integers(1, 12),
    data=st.data(),
    keep=st.sampled_from([True, False, "start", "end"]),
    length=st.sampled_from(sorted(_LENGTHS)),
    regex=st.booleans(),
    strip=st.booleans(),
    name=st.sampled_from(["RecursiveCharacterTextSplitter", "CharacterTextSplitter"]),
)
def test_random_inputs_match_langchain(  # type: ignore[no-untyped-def]
    text, size, data, keep, length, regex, strip, name
) -> None:
    overlap = data.draw(st.integers(0, size))
    choices = _SEPARATORS + (_REGEXES if regex else [])
    seps = data.draw(st.lists(st.sampled_from(choices), min_size=1, max_size=4))
    kwargs: dict[str, Any] = {
        "chunk_size": size,
        "chunk_overlap": overlap,
        "keep_separator": keep,
        "is_separator_regex": regex,
        "strip_whitespace": strip,
        "add_start_index": True,
    }
    if name == "CharacterTextSplitter":
        kwargs["separator"] = seps[0]
    else:
        kwargs["separators"] = seps
    how = "tiktoken:cl100k_base" if length == "tiktoken" else "init"
    if how == "init":
        kwargs["length_function"] = _LENGTHS[length]
    theirs, ours = build(lc, name, how, kwargs), build(rc, name, how, kwargs)
    assert outcome(lambda: ours.split_text(text)) == outcome(lambda: theirs.split_text(text))
    assert outcome(lambda: documents(ours.create_documents([text]))) == outcome(
        lambda: documents(theirs.create_documents([text]))
    )


@pytest.mark.single_backend
@given(
    text=st.lists(
        st.one_of(st.text(max_size=6), st.sampled_from(["<|endoftext|>", "🦀", "\ud83e"])),
        max_size=10,
    ).map("".join),
    size=st.integers(1, 6),
    data=st.data(),
    encoding=st.sampled_from(["cl100k_base", "o200k_base"]),
    allowed=st.sampled_from([None, "all"]),
    disallowed=st.sampled_from(["all", ()]),
)
def test_random_token_windows_match_langchain(  # type: ignore[no-untyped-def]
    text, size, data, encoding, allowed, disallowed
) -> None:
    kwargs = {
        "encoding_name": encoding,
        "chunk_size": size,
        "chunk_overlap": data.draw(st.integers(0, size)),
        "allowed_special": allowed,
        "disallowed_special": disallowed,
        "add_start_index": True,
    }
    theirs, ours = lc.TokenTextSplitter(**kwargs), rc.TokenTextSplitter(**kwargs)
    assert outcome(lambda: ours.split_text(text)) == outcome(lambda: theirs.split_text(text))
    assert outcome(lambda: documents(ours.create_documents([text]))) == outcome(
        lambda: documents(theirs.create_documents([text]))
    )


# ---------------------------------------------------------------------------------------------
# The core does the work; the classes are LangChain's.

RUST_CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("RecursiveCharacterTextSplitter", "init", {"chunk_size": 40, "chunk_overlap": 10}, "x"),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 40, "chunk_overlap": 40, "keep_separator": False},
        "x",
    ),
    (
        "RecursiveCharacterTextSplitter",
        "init",
        {"chunk_size": 12, "chunk_overlap": 2, "length_function": words},
        "x",
    ),
    ("RecursiveCharacterTextSplitter", "language:markdown", {"chunk_size": 60}, "x"),
    ("RecursiveCharacterTextSplitter", "tiktoken:cl100k_base", {"chunk_size": 16}, "x"),
    ("CharacterTextSplitter", "init", {"separator": " ", "chunk_size": 30}, "x"),
    (
        "CharacterTextSplitter",
        "init",
        {
            "separator": r"\s+",
            "is_separator_regex": True,
            "chunk_size": 30,
            "keep_separator": "end",
        },
        "x",
    ),
    ("CharacterTextSplitter", "tiktoken:o200k_base", {"separator": " ", "chunk_size": 9}, "x"),
    ("TokenTextSplitter", "init", {"encoding_name": "cl100k_base", "chunk_size": 7}, "x"),
]


def test_the_core_splits_without_langchains_code(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if backend != "rust":
        pytest.skip("the pure-Python backend runs LangChain's own code")
    text = (
        "# Title\n\nChunking text for retrieval, exactly as LangChain does it.\n"
        "Second line of the paragraph. 中文。🦀\n\n## More\n\nA last paragraph here."
    )
    want = []
    splitters = []
    for name, how, kwargs, _ in RUST_CASES:
        kwargs = {"chunk_overlap": 0, **kwargs}
        want.append(build(lc, name, how, kwargs).split_text(text))
        splitters.append(build(rc, name, how, kwargs))

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("LangChain's own splitting ran")

    for cls in (lc.RecursiveCharacterTextSplitter, lc.CharacterTextSplitter, lc.TokenTextSplitter):
        monkeypatch.setattr(cls, "split_text", forbidden)
    monkeypatch.setattr(lc.TextSplitter, "_merge_splits", forbidden)
    monkeypatch.setattr(lc.base, "split_text_on_tokens", forbidden)
    for splitter, expected in zip(splitters, want, strict=True):
        assert splitter.split_text(text) == expected


def test_drop_ins_are_langchains_classes() -> None:
    for name in DROPINS:
        ours = getattr(rc, name)
        assert issubclass(ours, getattr(lc, name)) and issubclass(ours, lc.TextSplitter)
        assert ours.__name__ == name
    assert rc.Language is lc.Language
    s = rc.RecursiveCharacterTextSplitter.from_language(
        lc.Language.PYTHON, chunk_size=50, chunk_overlap=0
    )
    assert isinstance(s, rc.RecursiveCharacterTextSplitter)
    assert isinstance(s, lc.RecursiveCharacterTextSplitter)
    t = rc.CharacterTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base")
    assert isinstance(t, rc.CharacterTextSplitter)
    theirs = lc.CharacterTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base")
    assert t._length_function("abcdef" * 5) == theirs._length_function("abcdef" * 5) == 5
    w = rc.TokenTextSplitter.from_tiktoken_encoder(model_name="gpt-4o")
    assert isinstance(w, rc.TokenTextSplitter) and w._tokenizer.name == "o200k_base"


class _Shouting:
    """A user's subclass hook: LangChain's split_text calls it, so the drop-in must too."""

    def _join_docs(self, docs: list[str], separator: str) -> str | None:
        text = super()._join_docs(docs, separator)  # type: ignore[misc]
        return None if text is None else text.upper()


def test_subclasses_overriding_langchains_hooks_get_them_called() -> None:
    text = "one two three four five six seven"
    for name, kwargs in [
        ("RecursiveCharacterTextSplitter", {"chunk_size": 10, "chunk_overlap": 0}),
        ("CharacterTextSplitter", {"separator": " ", "chunk_size": 10, "chunk_overlap": 0}),
    ]:
        theirs = type("Theirs", (_Shouting, getattr(lc, name)), {})(**kwargs)
        ours = type("Ours", (_Shouting, getattr(rc, name)), {})(**kwargs)
        want = theirs.split_text(text)
        assert want[0].isupper() and ours.split_text(text) == want


def test_drop_ins_pickle_and_copy() -> None:
    text = "one two three four five six seven eight nine ten"
    for s in (
        rc.RecursiveCharacterTextSplitter(chunk_size=12, chunk_overlap=4),
        rc.CharacterTextSplitter(separator=" ", chunk_size=12, chunk_overlap=4),
    ):
        want = s.split_text(text)
        assert pickle.loads(pickle.dumps(s)).split_text(text) == want
        assert copy.deepcopy(s).split_text(text) == want
    # A splitter whose settings change after use gives the chunks of its new settings.
    s = rc.RecursiveCharacterTextSplitter(chunk_size=12, chunk_overlap=4)
    s.split_text(text)
    s._chunk_size = 20
    assert s.split_text(text) == lc.RecursiveCharacterTextSplitter(
        chunk_size=20, chunk_overlap=4
    ).split_text(text)


@pytest.mark.single_backend
def test_import_ragchunk_does_not_import_langchain() -> None:
    code = "import ragchunk, sys; print(sorted(m for m in sys.modules if 'langchain' in m))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# ---------------------------------------------------------------------------------------------
# LangChain's own unit tests, with the drop-ins in place of LangChain's classes.

#: LangChain tests that pass on LangChain's classes and are expected not to on the drop-ins,
#: with the reason (docs/integrations.md would list them too). There are none.
KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def langchain_sources() -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import langchain_suite

    root = langchain_suite.fetched()
    if root is None:  # the set-up fetches it; the tests download nothing
        pytest.fail(
            f"LangChain's sdist is not in {langchain_suite.SDISTS}: run scripts/setup.sh --dev"
        )
    return root


@pytest.mark.single_backend
def test_langchains_own_unit_tests_pass_on_the_dropins(langchain_sources: Path) -> None:
    import langchain_suite

    theirs = langchain_suite.run(langchain_sources, patched=False)
    ours = langchain_suite.run(langchain_sources, patched=True)
    assert theirs.count("passed") >= 100, theirs.output[-3000:]
    diff = langchain_suite.differences(theirs, ours)
    unexpected = {n: d for n, d in diff.items() if n not in KNOWN_DIFFERENCES}
    assert not unexpected, ours.output[-3000:]
    modules = ours.stats["modules"]
    assert isinstance(modules, dict)
    seen = [v for m, v in modules.items() if m.endswith("test_text_splitters")]
    assert seen and all(all(names.values()) for names in seen), modules
    per_class = langchain_suite.by_class(theirs, ours)
    least = {
        "RecursiveCharacterTextSplitter": 20,
        "CharacterTextSplitter": 20,
        "MarkdownHeaderTextSplitter": 10,
        "RecursiveJsonSplitter": 15,
        "HTMLHeaderTextSplitter": 5,
        "HTMLSectionSplitter": 4,
    }
    for name, at_least in least.items():
        passed, used = per_class[name]
        assert passed == used >= at_least, (name, passed, used)
    calls = ours.stats["calls"]
    assert isinstance(calls, dict) and calls["core"] > calls["langchain"] > 0, calls
    assert os.environ.get("RAGCHUNK_LC_SUITE_STATS") is None
