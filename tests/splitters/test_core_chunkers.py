"""The configured chunker classes of the compiled core, and how the facade keeps them: options
checked once in the constructor, one object per splitter and core module, a Python tokenizer's
batch run inside the core, splitters that still pickle."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from ragchunk.core import dispatch
from ragchunk.core.chunk import Splitter
from ragchunk.splitters import (
    CharacterSplitter,
    CodeSplitter,
    HTMLSplitter,
    MarkdownSplitter,
    RecursiveSplitter,
    SentenceSplitter,
    TitleTreeChunker,
    TokenWindowSplitter,
)
from ragchunk.splitters._common import configured

_DOC = "# Title\n\nFirst sentence here. Second one, longer than the first.\n\n## Part\n\nMore text."
_HTML = "<h1>Title</h1><p>First sentence here. Second one.</p><h2>Part</h2><p>More text.</p>"
_CODE = "import os\n\n\ndef f(a):\n    return a + 1\n\n\nclass C:\n    def m(self):\n        pass\n"


def _words(text: str) -> int:
    return len(text.split())


def _splitters(tokenizer: Any) -> list[tuple[Splitter, str]]:
    return [
        (RecursiveSplitter(8, 2, tokenizer=tokenizer), _DOC),
        (SentenceSplitter(8, 1, tokenizer=tokenizer), _DOC),
        (MarkdownSplitter(8, tokenizer=tokenizer), _DOC),
        (HTMLSplitter(8, tokenizer=tokenizer), _HTML),
        (TitleTreeChunker(8, tokenizer=tokenizer), _DOC),
        (CodeSplitter("python", 8, tokenizer=tokenizer), _CODE),
    ]


@pytest.mark.parametrize("tokenizer", ["cl100k_base", _words], ids=["builtin", "callable"])
def test_batch_equals_one_by_one(tokenizer: Any) -> None:
    for splitter, doc in _splitters(tokenizer):
        docs = [doc, doc[: len(doc) // 2], ""]
        assert splitter.split_batch(docs) == [splitter.split(d) for d in docs], splitter


def test_python_tokenizer_error_propagates_from_a_batch() -> None:
    def broken(text: str) -> int:
        raise KeyError("from the tokenizer")

    for splitter, doc in _splitters(broken):
        with pytest.raises(KeyError, match="from the tokenizer"):
            splitter.split_batch([doc, doc])


def test_splitters_pickle_and_copy_after_use() -> None:
    used = [
        (CharacterSplitter(10, 2), _DOC),
        (TokenWindowSplitter(6, 1), _DOC),
        *_splitters("cl100k_base"),
    ]
    for splitter, doc in used:
        want = splitter.split(doc)
        for clone in (pickle.loads(pickle.dumps(splitter)), copy.deepcopy(splitter)):
            assert clone.split(doc) == want, splitter


@pytest.mark.single_backend
def test_configured_once_per_core_module() -> None:
    built: list[object] = []

    def build(core: object) -> object:
        built.append(core)
        return object()

    owner = CharacterSplitter(4)
    first, second = object(), object()
    obj = configured(owner, first, build)
    assert configured(owner, first, build) is obj
    assert configured(owner, second, build) is not obj
    assert built == [first, second]
    assert configured(CharacterSplitter(4), first, lambda core: None) is None


@pytest.mark.single_backend
def test_backend_switch_keeps_results() -> None:
    splitter = MarkdownSplitter(8)
    dispatch.set_backend("rust")
    rust = splitter.split(_DOC)
    dispatch.set_backend("python")
    assert splitter.split(_DOC) == rust
    dispatch.set_backend("rust")
    assert splitter.split(_DOC) == rust


@pytest.mark.single_backend
@pytest.mark.parametrize(
    "make,error,message",
    [
        (lambda c: c.CharacterSplitter(0, 0, False), ValueError, "chunk_size must be >= 1"),
        (lambda c: c.CharacterSplitter(4, 4, False), ValueError, "chunk_overlap must be smaller"),
        (lambda c: c.TokenWindowSplitter(4, -1, "cl100k_base"), OverflowError, "negative"),
        (lambda c: c.TokenWindowSplitter(4, 0, "p50k_base"), ValueError, "tokenizer: unknown"),
        (lambda c: c.SentenceSplitter(4, 0, "words"), ValueError, "length must be"),
        (lambda c: c.SentenceSplitter(4, 0, "tokens"), ValueError, "encoding_name, counter"),
        (lambda c: c.SentenceSplitter(4, 0, "tokens", "cl100k_base", len), ValueError, "not both"),
        (lambda c: c.SentenceSplitter(4, 0, "chars", "cl100k_base"), ValueError, "length='tokens'"),
        (lambda c: c.SentenceSplitter(4, 0, "tokens", None, 3), TypeError, "counter must be"),
        (
            lambda c: c.RecursiveSplitter(4, 0, [], "start", True, "chars"),
            ValueError,
            "separators must not be empty",
        ),
        (
            lambda c: c.RecursiveSplitter(4, 0, [("x", None)], "left", True, "chars"),
            ValueError,
            "keep_separator",
        ),
        (
            lambda c: c.RecursiveSplitter(4, 0, [("(", "(")], "start", True, "chars"),
            ValueError,
            r"separators\[0\]",
        ),
        (lambda c: c.MarkdownSplitter(4, 0, [7], False, "chars"), ValueError, "levels"),
        (lambda c: c.HTMLSplitter(4, 9, [1], False, "chars"), ValueError, "chunk_overlap"),
        (lambda c: c.TitleTreeChunker(0, "auto", "chars"), ValueError, "chunk_size must be >= 1"),
        (lambda c: c.TitleTreeChunker(4, "tree", "chars"), ValueError, "unknown title_source"),
        (lambda c: c.CodeSplitter("cobol", 4, "chars"), ValueError, "not supported"),
    ],
)
def test_core_options_are_checked_once(make: Any, error: type[Exception], message: str) -> None:
    core = dispatch._import_core()
    with pytest.raises(error, match=message):
        make(core)


@pytest.mark.single_backend
def test_core_title_tree_layout_errors_are_value_errors() -> None:
    chunker = dispatch._import_core().TitleTreeChunker(8, "auto", "chars")
    assert chunker.split_layout("ab", [-1], [(0, 0, 2)]) == [(0, 2, 2, 0)]
    with pytest.raises(ValueError, match="item 0"):
        chunker.split_layout("ab", [-1], [(5, 0, 2)])


@pytest.mark.parametrize(
    "make",
    [
        lambda: CharacterSplitter(4, 4),
        lambda: TokenWindowSplitter(4, 4),
        lambda: RecursiveSplitter(4, 4),
        lambda: MarkdownSplitter(4, 4),
        lambda: HTMLSplitter(4, 4),
    ],
)
def test_sizes_are_checked_by_the_facade_with_one_message(make: Any) -> None:
    with pytest.raises(
        ValueError, match=r"^chunk_overlap must be smaller than chunk_size, got 4 >= 4$"
    ):
        make()
