"""The LangChain drop-ins against LangChain itself, the oracle: the same chunks, metadata,
``start_index`` and errors, on the whole corpus, on edge cases, bad arguments and random input
(the classes themselves and LangChain's own unit tests: ``test_langchain_classes.py``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testdata import corpus_documents

lc = pytest.importorskip("langchain_text_splitters")
pytest.importorskip("tiktoken")

from langchain_cases import (  # noqa: E402
    DROPINS,
    build,
    documents,
    outcome,
    quiet_langchain,  # noqa: F401 (autouse)
    words,
)
from ragchunk.integrations import langchain as rc  # noqa: E402

DOCS = corpus_documents()


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
