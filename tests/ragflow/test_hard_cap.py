"""MergeStrategy.HARD_CAP: every chunk, recounted as returned, is within chunk_token_num.

Invariants checked on random input and on the real corpus, on both backends (autouse fixture):

* every chunk's recount (``encode_ordinary`` of the exact returned string) is <= the cap,
  except a chunk that is one indivisible unit: ``"\\n"`` + one code point or one position
  tag (+ its section's pos tag);
* no text lost: the chunk bodies (overlap prefixes removed, via ``naive_merge_offsets``)
  hold every non-delimiter character of the input, in order, once;
* the two backends return the same chunks (differential, hypothesis).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
import ragchunk
from hypothesis import given
from hypothesis import strategies as st
from ragchunk import MergeStrategy
from ragchunk._pure.ragflow.delimiters import (
    normalize_newlines,
    parse_delimiter_field,
    split_keeping_delimiters,
)
from ragchunk.core import dispatch
from ragchunk.ragflow.merge import naive_merge_offsets
from testdata import corpus_documents

TAG = "@@1\t1.0\t2.0\t3.0\t4.0##"
_TAG_RE = re.compile(r"@@[\t0-9.-]+?##")

_ATOMS = [
    "\n",
    "\r\n",
    "\r",
    "。",
    "！",
    "？",
    " ",
    "  ",
    "\t",
    ".",
    "!",
    "?",
    ". ",
    "Hello",
    "world",
    "extraordinarily",
    "分块测试",
    "第一句话很长很长很长",
    "🦀",
    "👍🏽",
    "e\u0301",
    "123.45",
    "<|endoftext|>",
    TAG,
    "@@2-3\t5\t6\t7\t8##",
    "@@",
    "##",
]
_text = st.lists(st.one_of(st.sampled_from(_ATOMS), st.text(max_size=10)), max_size=40).map("".join)
_delims = st.sampled_from(["\n。；！？", "\n", "", "。", " ", ".!?"])
_pos = st.one_of(st.none(), st.just(""), st.sampled_from([TAG, "@@4-5\t0\t1\t2\t3##"]))
_caps = st.sampled_from([1, 2, 3, 5, 8, 13, 32, 128])


def _recount(enc: Any) -> Callable[[str], int]:
    return lambda s: len(enc.encode_ordinary(s))


def _indivisible(chunk: str) -> bool:
    """``"\\n"`` + one code point or one position tag, plus a pos tag: over the cap allowed."""
    body = chunk[1:] if chunk.startswith("\n") else chunk
    if _TAG_RE.fullmatch(body):
        return True
    return len(_TAG_RE.sub("", body)) <= 1


def _assert_within(chunks: list[str], cap: float, count: Callable[[str], int]) -> None:
    for chunk in chunks:
        n = count(chunk)
        assert n <= cap or _indivisible(chunk), (cap, n, chunk)


def _pieces(text: str, delimiter: str) -> list[str]:
    delims = parse_delimiter_field(delimiter)
    norm = normalize_newlines(text)
    if not delims:
        return [norm]
    return [p for p, is_delim in split_keeping_delimiters(norm, delims) if p and not is_delim]


def _assert_nothing_lost(text: str, chunks: list[str], prefixes: Any, delimiter: str) -> None:
    bodies = "".join(c[int(p) :] for c, p in zip(chunks, prefixes, strict=True))
    assert bodies.replace("\n", "") == "".join(_pieces(text, delimiter)).replace("\n", "")


# --- random input ------------------------------------------------------------------------------


@given(
    text=_text,
    cap=_caps,
    delimiter=_delims,
    overlap=st.one_of(st.sampled_from([0, 100]), st.integers(0, 100), st.floats(0, 100)),
)
def test_random_text_within_cap_and_nothing_lost(
    text: str, cap: int, delimiter: str, overlap: float, tiktoken_cl100k: Any
) -> None:
    chunks = ragchunk.naive_merge(text, cap, delimiter, overlap, MergeStrategy.HARD_CAP)
    _assert_within(chunks, cap, _recount(tiktoken_cl100k))
    starts, _, prefixes = naive_merge_offsets(
        text, cap, delimiter, overlap, "hard_cap", return_prefix_lengths=True
    )
    assert len(starts) == len(chunks)
    _assert_nothing_lost(text, chunks, prefixes, delimiter)


@given(
    sections=st.lists(st.tuples(_text, _pos), min_size=1, max_size=6),
    cap=_caps,
    delimiter=_delims,
    overlap=st.integers(0, 100),
)
def test_sections_with_pos_within_cap(
    sections: list[tuple[str, str | None]],
    cap: int,
    delimiter: str,
    overlap: int,
    tiktoken_cl100k: Any,
) -> None:
    chunks = ragchunk.naive_merge(sections, cap, delimiter, overlap, "hard_cap")
    _assert_within(chunks, cap, _recount(tiktoken_cl100k))
    if overlap == 0:
        # every non-delimiter character, in order (pos tags appended by the merge removed)
        # Newlines go before the tags do: a delimiter inside a tag's own text (its "." with
        # delimiter ".!?") cuts the tag across chunks, as RAGFlow does too.
        got = _TAG_RE.sub("", "".join(chunks).replace("\n", ""))
        want = _TAG_RE.sub("", "".join("".join(_pieces(t, delimiter)) for t, _ in sections))
        assert got == want.replace("\n", "")


@given(text=_text, cap=st.integers(1, 40), overlap=st.integers(0, 100))
def test_callable_tokenizer(text: str, cap: int, overlap: int) -> None:
    def words(s: str) -> int:
        return len(s.split())

    for tokenizer, count in ((len, len), (words, words)):
        chunks = ragchunk.naive_merge(text, cap, "\n", overlap, "hard_cap", tokenizer=tokenizer)
        _assert_within(chunks, cap, count)


# --- examples ----------------------------------------------------------------------------------


def test_emoji_over_a_cap_of_one_stands_alone(tiktoken_cl100k: Any) -> None:
    # "\n🦀" is more than one token; nothing smaller exists, so it is the documented exception
    chunks = ragchunk.naive_merge("🦀🦀", 1, "", 50, "hard_cap")
    assert chunks == ["\n🦀", "\n🦀"]
    assert all(len(tiktoken_cl100k.encode_ordinary(c)) > 1 for c in chunks)


def test_long_paragraph_cut_at_sentences_first() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(40))
    chunks = ragchunk.naive_merge(text, 32, "\n", 0, "hard_cap")
    assert len(chunks) > 1
    assert all(c.rstrip().endswith(".") for c in chunks)
    assert "".join(chunks).replace("\n", "") == text


def test_cjk_without_spaces_is_cut_between_characters(tiktoken_cl100k: Any) -> None:
    text = "这是一个没有标点符号的很长的中文段落" * 20
    chunks = ragchunk.naive_merge(text, 16, "\n", 30, "hard_cap")
    _assert_within(chunks, 16, _recount(tiktoken_cl100k))
    assert len(chunks) > 5


def test_position_tags_in_text_are_never_cut() -> None:
    text = "".join(f"word{i} {TAG}" for i in range(30))
    chunks = ragchunk.naive_merge(text, 4, "\n", 0, "hard_cap")
    assert sum(c.count(TAG) for c in chunks) == 30
    assert "".join(chunks).replace("\n", "") == text


def test_special_token_text_is_counted_not_zero(tiktoken_cl100k: Any) -> None:
    text = "<|endoftext|>" * 50
    chunks = ragchunk.naive_merge(text, 10, "\n", 0, "hard_cap")
    _assert_within(chunks, 10, _recount(tiktoken_cl100k))
    assert len(chunks) > 1


def test_strategy_spellings_and_compat() -> None:
    a = ragchunk.naive_merge("a b c。d", 3, strategy=MergeStrategy.HARD_CAP)
    assert a == ragchunk.naive_merge("a b c。d", 3, strategy="hard_cap")
    for compat in ("v0.26", "v0.23", "v0.22"):
        with pytest.raises(ValueError, match="no merge strategies"):
            ragchunk.naive_merge("a", 3, strategy="hard_cap", compat=compat)
    with pytest.raises(ValueError, match="HARD_CAP"):
        ragchunk.naive_merge("a", 3, strategy="bogus")
    with pytest.raises(ValueError, match="custom mode"):
        ragchunk.naive_merge("a##b", 3, "`##`", strategy="hard_cap")


def test_batch_and_images_agree_with_naive_merge() -> None:
    docs = ["one. two three! four", "五六七八九十。" * 5, ""]
    got = ragchunk.naive_merge_batch(docs, 5, strategy="hard_cap")
    assert got == [ragchunk.naive_merge(d, 5, strategy="hard_cap") for d in docs]
    chunks, images = ragchunk.naive_merge_with_images(["x y z w v"], [None], 3, "\n", 0, "hard_cap")
    assert chunks == ragchunk.naive_merge(["x y z w v"], 3, "\n", 0, "hard_cap")
    assert images == [None] * len(chunks)


# --- the corpus --------------------------------------------------------------------------------


def _corpus_sample(backend: str) -> list[tuple[str, str]]:
    docs = corpus_documents()
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found; these tests were not run")
    # all documents on the Rust core, a few on the (much slower) fallback
    return docs if backend == "rust" else random.Random(7).sample(docs, 4)


@pytest.mark.parametrize(("cap", "overlap"), [(64, 0), (128, 25)])
def test_corpus(backend: str, cap: int, overlap: int, tiktoken_cl100k: Any) -> None:
    count = _recount(tiktoken_cl100k)
    for name, text in _corpus_sample(backend):
        chunks = ragchunk.naive_merge(text, cap, overlapped_percent=overlap, strategy="hard_cap")
        _assert_within(chunks, cap, count)
        _, _, prefixes = naive_merge_offsets(
            text, cap, overlapped_percent=overlap, strategy="hard_cap", return_prefix_lengths=True
        )
        assert len(prefixes) == len(chunks), name
        _assert_nothing_lost(text, chunks, prefixes, "\n。；！？")


# --- backends agree ----------------------------------------------------------------------------


def _both(fn: Callable[[], Any]) -> tuple[Any, Any]:
    results = []
    for name in ("rust", "python"):
        dispatch.set_backend(name)
        try:
            results.append(("ok", fn()))
        except Exception as exc:  # compared: both must fail the same way
            results.append(("raised", type(exc).__name__))
    return results[0], results[1]


_differential = pytest.mark.skipif(
    os.environ.get("RAGCHUNK_BACKEND", "").lower() == "python",
    reason="fallback-only run (RAGCHUNK_BACKEND=python): nothing to compare against",
)


@_differential
@pytest.mark.single_backend
@given(
    sections=st.one_of(
        _text, st.lists(_text, max_size=5), st.lists(st.tuples(_text, _pos), max_size=5)
    ),
    cap=_caps,
    delimiter=st.one_of(_delims, st.text(alphabet="\n。.!? `#ab", max_size=5)),
    overlap=st.one_of(st.integers(0, 100), st.floats(0, 100)),
    tokenizer=st.sampled_from(["cl100k_base", "o200k_base", "len"]),
)
def test_backends_agree(
    sections: Any, cap: int, delimiter: str, overlap: float, tokenizer: str
) -> None:
    tok: Any = len if tokenizer == "len" else tokenizer
    rust, python = _both(
        lambda: ragchunk.naive_merge(sections, cap, delimiter, overlap, "hard_cap", tokenizer=tok)
    )
    assert rust == python


@_differential
@pytest.mark.single_backend
def test_backends_agree_on_corpus_sample() -> None:
    docs = corpus_documents()
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found; these tests were not run")
    for _, text in random.Random(11).sample(docs, 3):
        rust, python = _both(
            lambda text=text: ragchunk.naive_merge(
                text, 48, overlapped_percent=20, strategy="hard_cap"
            )
        )
        assert rust == python
