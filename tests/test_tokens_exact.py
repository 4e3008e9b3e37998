"""Exactness of the Rust counter against the real tiktoken package (the oracle).

Sweeps every Unicode scalar value in several contexts, the whole corpus paragraph by
paragraph, and random text, for both built-in encodings. Mismatches are listed, not counted.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from testdata import CORPUS, corpus_documents, require_shared

pytestmark = pytest.mark.single_backend

ENCODINGS = ["cl100k_base", "o200k_base"]


@pytest.fixture(scope="module")
def core() -> Any:
    from ragchunk import _core

    return _core


@pytest.fixture(scope="module", params=ENCODINGS)
def encoding(request: pytest.FixtureRequest) -> Any:
    import tiktoken

    return tiktoken.get_encoding(request.param)


def _mismatches(core: Any, enc: Any, texts: list[str]) -> list[tuple[str, int, int]]:
    ours = core.count_ordinary_batch(texts, enc.name)
    theirs = [len(t) for t in enc.encode_ordinary_batch(texts, num_threads=2)]
    return [(t, a, b) for t, a, b in zip(texts, ours, theirs) if a != b][:20]


_SCALARS = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]

# Contexts that reach every branch of the pretokenizer regexes: alone, after a space, inside
# a word, doubled, before a digit, after an apostrophe, after a newline.
_CONTEXTS = ["{}", " {}", "a{}b", "{}{}", "1{}2", "'{}", "\n{}x"]


@pytest.mark.parametrize("context", _CONTEXTS)
def test_every_scalar_value(core: Any, encoding: Any, context: str) -> None:
    texts = [context.format(c, c) if context == "{}{}" else context.format(c) for c in _SCALARS]
    assert _mismatches(core, encoding, texts) == []


def test_corpus_paragraphs(core: Any, encoding: Any) -> None:
    require_shared(CORPUS)
    paragraphs: list[str] = []
    for _, text in corpus_documents():
        paragraphs.extend(text.split("\n"))
        paragraphs.append(text)  # whole documents too: long runs, code blocks, tables
    assert _mismatches(core, encoding, paragraphs) == []


def test_whitespace_digits_and_mixed_runs(core: Any, encoding: Any) -> None:
    rng = random.Random(1234)
    alphabet = [" ", "  ", "\t", "\n", "\r\n", "\r", "\u3000", "\xa0", "1", "22", "333", "a",
                "A", "'s", "'LL", "中", "文", "🦀", "👍🏽", "e\u0301", ".", "!!", "<|", "|>"]
    texts = ["".join(rng.choices(alphabet, k=rng.randint(1, 40))) for _ in range(20000)]
    assert _mismatches(core, encoding, texts) == []


@given(st.text(max_size=300))
def test_random_unicode(core: Any, text: str) -> None:
    import tiktoken

    for name in ENCODINGS:
        enc = tiktoken.get_encoding(name)
        assert core.count_ordinary(text, name) == len(enc.encode_ordinary(text))


@pytest.fixture(autouse=True)
def _rust_only(backend: str) -> None:
    if backend != "rust":
        pytest.skip("the Rust counter's exactness; the fallback *is* tiktoken")
