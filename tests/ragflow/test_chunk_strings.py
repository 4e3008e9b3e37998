"""The chunk strings the Rust core builds are ordinary Python strings, in every width.

CPython stores a ``str`` in 1, 2 or 4 bytes a character, the narrowest that holds its largest
code point, and compares strings of different widths as unequal without looking at their
characters. The Rust core writes 2-byte strings itself (``new_str`` in rust/python/strings.rs), so a
string it got wrong, or left in a wider layout than CPython would, shows up here as a chunk
that differs from the same text decoded by CPython.
"""

from __future__ import annotations

import os
import random
import sys

import pytest
import ragchunk
from ragchunk.core import dispatch
from ragchunk.ragflow.merge import DEFAULT_DELIMITER

pytestmark = [
    pytest.mark.single_backend,
    pytest.mark.skipif(
        os.environ.get("RAGCHUNK_BACKEND", "").lower() == "python",
        reason="fallback-only run (RAGCHUNK_BACKEND=python): the Rust core is not under test",
    ),
]

# Runs of these make up the texts: ASCII, the edges of each width (U+00FF is the largest
# 1-byte character, U+0100 the smallest 2-byte one, U+FFFF the largest), two- and three-byte
# UTF-8, delimiters (newline, CJK punctuation) and, separately, characters above U+FFFF.
_NARROW = ["a", "Z", " ", "7", ".", "\u00e9", "\u00ff", "\u0080"]
_WIDE = ["\u0100", "\u0436", "\u4e2d", "\u6587", "\uff0c", "\u3002", "\uffff", "\u0800", "\u07ff"]
_ASTRAL = ["\U0001f980", "\U00010000", "\U0010ffff"]


def _text(rng: random.Random, alphabet: list[str], length: int) -> str:
    parts: list[str] = []
    while sum(map(len, parts)) < length:
        parts.append(rng.choice(alphabet) * rng.randint(1, 40))
        if rng.random() < 0.2:
            parts.append("\n")
    return "".join(parts)


def _texts() -> list[str]:
    rng = random.Random(20261130)
    texts = ["\u00ff" * 50, "\u0100" * 50, "a" * 31 + "\u0100", "\uffff\n" * 40]
    for alphabet in (_NARROW, _WIDE, _NARROW + _WIDE, _NARROW + _WIDE + _ASTRAL):
        texts += [_text(rng, alphabet, n) for n in (5, 17, 64, 300, 3000)]
    return texts


def _fallback(texts: list[str], size: int) -> list[list[str]]:
    before = dispatch.name()
    dispatch.set_backend("python")
    try:
        return [ragchunk.naive_merge(t, size) for t in texts]
    finally:
        dispatch.set_backend(before)


def _assert_canonical(chunk: str) -> None:
    # Both sides rebuilt by CPython itself: equal only if `chunk` has CPython's own layout.
    assert chunk == "".join(list(chunk))
    assert chunk == chunk.encode("utf-8").decode("utf-8")
    assert hash(chunk) == hash(chunk.encode("utf-8").decode("utf-8"))


@pytest.mark.parametrize("size", [4, 64, 512])
def test_chunks_equal_the_fallback_and_are_canonical(size: int) -> None:
    dispatch.set_backend("rust")
    texts = _texts()
    got = [ragchunk.naive_merge(t, size) for t in texts]
    assert got == _fallback(texts, size)
    for chunks in got:
        for chunk in chunks:
            _assert_canonical(chunk)


def test_batch_chunks_are_canonical() -> None:
    dispatch.set_backend("rust")
    texts = _texts()
    got = ragchunk.naive_merge_batch(texts, 64, workers=2)
    assert got == _fallback(texts, 64)
    for chunks in got:
        for chunk in chunks:
            _assert_canonical(chunk)


def test_every_bmp_character_survives() -> None:
    # Every code point up to U+FFFF except surrogates, in blocks long enough for the
    # vectorised paths, each block its own chunk (delimited by newlines).
    # RAGFlow's default delimiters are left out: they never enter a chunk.
    dispatch.set_backend("rust")
    chars = [
        chr(c)
        for c in range(0x20, 0x10000)
        if not 0xD800 <= c <= 0xDFFF and chr(c) not in DEFAULT_DELIMITER
    ]
    lines = ["".join(chars[i : i + 40]) for i in range(0, len(chars), 40)]
    text = "\n".join(lines)
    chunks = ragchunk.naive_merge(text, 8)
    assert "".join(chunks).replace("\n", "") == text.replace("\n", "")
    assert chunks == _fallback([text], 8)[0]
    for chunk in chunks:
        _assert_canonical(chunk)


def test_naive_merge_leaves_no_utf8_copy_in_the_documents() -> None:
    # Borrowing a non-ASCII str as UTF-8 through the C API makes CPython keep a UTF-8 copy in
    # the string for its whole life (sys.getsizeof counts it). The Rust core reads the
    # characters in place instead, and must still give the fallback's chunks.
    dispatch.set_backend("rust")
    texts = [t for t in _texts() if not t.isascii()]
    assert texts
    sizes = [sys.getsizeof(t) for t in texts]
    got = [ragchunk.naive_merge(t, 16) for t in texts]
    got += [ragchunk.naive_merge([t, t[::-1]], 16) for t in texts]
    got += [ragchunk.naive_merge([(t, "@@1\t1\t2\t3\t4##")], 16) for t in texts]
    assert [sys.getsizeof(t) for t in texts] == sizes
    copies = ["".join(list(t)) for t in texts]
    expected = _fallback(copies, 16)
    before = dispatch.name()
    dispatch.set_backend("python")
    try:
        expected += [ragchunk.naive_merge([t, t[::-1]], 16) for t in copies]
        expected += [ragchunk.naive_merge([(t, "@@1\t1\t2\t3\t4##")], 16) for t in copies]
    finally:
        dispatch.set_backend(before)
    assert got == expected
