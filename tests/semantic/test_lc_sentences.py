"""LangChain's sentence split and windows: the Rust core equals ``re.split`` with Python's
``\\s`` on any text, including the whitespace Python and Rust disagree on."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from ragchunk.semantic.chunker import _lc_sentences

PATTERN = re.compile(r"(?<=[.?!])\s+")
ALPHABET = st.sampled_from([*"ab .?!\n\t", "\x1c", "\x1f", "\x85", "\xa0", "\u3000", "é", "🦀"])


def expected(text: str, buffer: int) -> tuple[list[str], list[tuple[int, int]], list[str]]:
    sentences = PATTERN.split(text)
    bounds = [0] + [i for m in PATTERN.finditer(text) for i in m.span()] + [len(text)]
    spans = list(zip(bounds[::2], bounds[1::2], strict=True))
    windows = [
        " ".join(sentences[max(0, i - buffer) : i + buffer + 1]) for i in range(len(sentences))
    ]
    return sentences, spans, windows


def test_known_split() -> None:
    sentences, spans, windows = _lc_sentences("One. Two?\x1fThree!  Four", 1, True)
    assert sentences == ["One.", "Two?", "Three!", "Four"]
    assert spans == [(0, 4), (5, 9), (10, 16), (18, 22)]
    assert windows == ["One. Two?", "One. Two? Three!", "Two? Three! Four", "Three! Four"]


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=40), st.integers(0, 3))
def test_core_equals_re_split(core: object, text: str, buffer: int) -> None:
    want = expected(text, buffer)
    assert _lc_sentences(text, buffer, True) == want
    got = core.semantic_lc_sentences(text, buffer, True)  # type: ignore[attr-defined]
    assert (got[0], got[1], got[2]) == want
    assert core.semantic_lc_sentences(text, buffer, False)[1] == []  # type: ignore[attr-defined]
