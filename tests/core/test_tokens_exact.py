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
from testdata import CORPUS, ENCODINGS, corpus_documents, require_shared

pytestmark = pytest.mark.single_backend


def _mismatches(core: Any, enc: Any, texts: list[str]) -> list[tuple[str, int, int]]:
    ours = core.count_ordinary_batch(texts, enc.name)
    theirs = [len(t) for t in enc.encode_ordinary_batch(texts, num_threads=2)]
    return [(t, a, b) for t, a, b in zip(texts, ours, theirs, strict=True) if a != b][:20]


def _scalar_values() -> list[str]:
    return [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


# Every scalar value in contexts that reach every branch of the pretokenizer regexes: alone
# between separators of each class (punctuation, space, newline, letter, digit), doubled,
# after an apostrophe, and before trailing whitespace. Blocks of code points are compared as
# token-id lists (one tiktoken call per block keeps the 1.1M-value sweep to seconds; the
# developers' offline sweep also ran each value in isolation).
_CONTEXTS = ["{}\x00", "{} ", " {}", "a{}b", "{}{}\n", "1{}2", "'{}", "\n{}x", "{}\t \n"]


@pytest.mark.parametrize("context", _CONTEXTS)
def test_every_scalar_value(core: Any, encoding: Any, context: str) -> None:
    values = _scalar_values()
    bad = []
    for start in range(0, len(values), 2048):
        block = "".join(context.format(c, c) for c in values[start : start + 2048])
        if core.encode_ordinary(block, encoding.name) != encoding.encode_ordinary(block):
            bad.append(f"U+{ord(values[start]):04X}..")
    assert bad == []


def test_corpus_documents(core: Any, encoding: Any) -> None:
    # Whole documents compared as token-id lists: every paragraph, code block and table in
    # its real context (stronger than per-paragraph counts, and one call per document).
    require_shared(CORPUS)
    bad = [
        path
        for path, text in corpus_documents()
        if core.encode_ordinary(text, encoding.name) != encoding.encode_ordinary(text)
    ]
    assert bad == []


def test_whitespace_digits_and_mixed_runs(core: Any, encoding: Any) -> None:
    rng = random.Random(1234)
    alphabet = [
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "\u3000",
        "\xa0",
        "1",
        "22",
        "333",
        "a",
        "A",
        "'s",
        "'LL",
        "中",
        "文",
        "🦀",
        "👍🏽",
        "e\u0301",
        ".",
        "!!",
        "<|",
        "|>",
    ]
    texts = ["".join(rng.choices(alphabet, k=rng.randint(1, 40))) for _ in range(20000)]
    assert _mismatches(core, encoding, texts) == []


def test_long_letter_runs(core: Any, encoding: Any) -> None:
    # Runs of letters from the CJK blocks (and kana, Hangul, Thai, Cyrillic), with no space or
    # punctuation, are single pretokenizer pieces of up to hundreds of bytes: they exercise the
    # merge of long pieces and its cutting into parts (`Tokenizer::for_each_cut_part`), common
    # characters next to rare ones (CJK Extension A/B) that split into several tokens.
    rng = random.Random(99)
    blocks = [
        (0x4E00, 0x9FFF),
        (0x3400, 0x4DBF),
        (0x20000, 0x2A6DF),
        (0x3041, 0x3096),
        (0x30A1, 0x30FA),
        (0xAC00, 0xD7A3),
        (0x0E01, 0x0E30),
        (0x0430, 0x044F),
    ]
    # U+4E00..U+51FF holds many of the most frequent characters (一 上 不 中 了 人 他 们 会 作 ...).
    common = "".join(chr(c) for c in range(0x4E00, 0x5200))
    rare = "".join(chr(rng.randint(lo, hi)) for lo, hi in blocks for _ in range(40))
    texts = []
    for _ in range(4000):
        pool = common if rng.random() < 0.6 else rare + common[:50]
        texts.append("".join(rng.choices(pool, k=rng.randint(2, 120))))
    texts += ["".join(rng.choices(rare, k=rng.randint(30, 400))) for _ in range(300)]
    assert _mismatches(core, encoding, texts) == []


def test_long_single_pieces(core: Any, encoding: Any) -> None:
    # One pretokenizer piece of thousands of bytes takes the linear-time encoder: runs of one
    # letter, CJK character, punctuation, space, and random long letter/punctuation runs.
    rng = random.Random(5)
    units = ["a", "z", "中", "の", "!", "-", "=", " ", "ab", "é", "\u0301", "ſ", "🙂"]
    texts = [u * rng.randint(600, 6000) for u in units]
    for alphabet in ("aab", "abcdefghij", "中文字符测试", "!?.,-=+*", "ÁáÂâ\u0301"):
        texts += ["".join(rng.choices(alphabet, k=rng.randint(600, 5000))) for _ in range(8)]
    assert _mismatches(core, encoding, texts) == []


def test_ten_megabyte_letter_run_is_prompt(core: Any, encoding: Any) -> None:
    import time

    # tiktoken counts a run of n * 8 letters "a" as n tokens (checked on a size it handles);
    # the 10 MB run must agree and take well under a second or two.
    assert len(encoding.encode_ordinary("a" * 8000)) == 1000
    t = time.perf_counter()
    n = core.count_ordinary("a" * 10_000_000, encoding.name)
    elapsed = time.perf_counter() - t
    assert n == 1_250_000
    assert elapsed < 5.0, f"{elapsed:.1f} s for a 10 MB single piece"


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
