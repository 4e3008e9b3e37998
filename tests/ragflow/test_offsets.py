"""naive_merge_offsets: chunk spans (code points into the original text) without the strings.

For every chunk ``c`` of ``naive_merge(text, ...)`` (v0.27) and its span ``[s, e)``:
``c == prefix + "\\n" + "\\n".join(pieces of text[s:e])``, where the pieces are the span split
at the delimiters (CR/CRLF as LF, delimiters and empty pieces dropped) and ``prefix`` is the
overlap prefix (``prefix_lengths``); HARD_CAP may cut a piece into several ``"\\n"``-joined
fragments. Spans are in order and, without overlap, never overlap.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import ragchunk
from hypothesis import given
from hypothesis import strategies as st
from ragchunk._pure.ragflow.delimiters import (
    has_wrapped_delimiter,
    normalize_newlines,
    parse_delimiter_field,
    split_keeping_delimiters,
)
from ragchunk._pure.ragflow.merge import overlap_prefix
from ragchunk.core import dispatch
from ragchunk.ragflow.merge import naive_merge_offsets
from testdata import corpus_documents

_ATOMS = [
    "\n",
    "\r\n",
    "\r",
    "\r\r\n",
    "。",
    "；",
    "！",
    " ",
    ".",
    "Hello",
    "world",
    "分块测试",
    "🦀",
    "e\u0301",
    "##",
    "<|endoftext|>",
    "@@1\t1.0\t2.0\t3.0\t4.0##",
]
_text = st.lists(st.one_of(st.sampled_from(_ATOMS), st.text(max_size=10)), max_size=40).map("".join)
_delims = st.one_of(
    st.sampled_from(["\n。；！？", "\n", "", "。", "`##`", "\n`##`", "\r"]),
    st.text(alphabet="\n。.! #a\r", max_size=4),
)
_strategies = st.sampled_from(["over_cap", "under_cap", "hard_cap"])


def _pieces(span: str, delimiter: str) -> list[str]:
    delims = parse_delimiter_field(delimiter)
    norm = normalize_newlines(span)
    if not delims:
        return [norm]
    return [p for p, is_delim in split_keeping_delimiters(norm, delims) if p and not is_delim]


def _check(
    text: str, cap: float, delimiter: str, overlap: float, strategy: str, tokenizer: Any = None
) -> None:
    kwargs = {} if tokenizer is None else {"tokenizer": tokenizer}
    if strategy == "hard_cap" and has_wrapped_delimiter(delimiter):
        strategy = "over_cap"  # HARD_CAP refuses custom mode
    chunks = ragchunk.naive_merge(text, cap, delimiter, overlap, strategy, **kwargs)
    starts, ends, prefixes = naive_merge_offsets(
        text, cap, delimiter, overlap, strategy, return_prefix_lengths=True, **kwargs
    )
    for array in (starts, ends, prefixes):
        assert array.dtype == np.int64
        assert len(array) == len(chunks)
    assert (starts <= ends).all()
    assert (np.diff(starts) >= 0).all() and (np.diff(ends) >= 0).all()
    if overlap == 0:
        assert (prefixes == 0).all()
    # spans never overlap: each ends before the next starts (overlap lives in the prefix)
    assert (ends[:-1] <= starts[1:]).all()
    custom = has_wrapped_delimiter(delimiter)
    previous = ""
    for chunk, s, e, p in zip(
        chunks, starts.tolist(), ends.tolist(), prefixes.tolist(), strict=True
    ):
        span = text[s:e]
        prefix, body = chunk[:p], chunk[p:]
        if custom:
            assert chunk == "\n" + normalize_newlines(span)
            continue
        if strategy != "hard_cap":
            assert prefix == overlap_prefix(previous, overlap)
        rebuilt = "\n" + "\n".join(_pieces(span, delimiter))
        if strategy == "hard_cap":
            assert body.replace("\n", "") == rebuilt.replace("\n", "")
            assert body.startswith("\n")
        else:
            assert body == rebuilt
        previous = chunk


@given(
    text=_text,
    cap=st.sampled_from([1, 3, 8, 32, 128]),
    delimiter=_delims,
    overlap=st.one_of(st.just(0), st.integers(0, 100)),
    strategy=_strategies,
)
def test_random_spans_rebuild_the_chunks(
    text: str, cap: int, delimiter: str, overlap: int, strategy: str
) -> None:
    _check(text, cap, delimiter, overlap, strategy)


@given(text=_text, cap=st.integers(1, 30), strategy=_strategies)
def test_callable_tokenizer(text: str, cap: int, strategy: str) -> None:
    _check(text, cap, "\n。", 0, strategy, tokenizer=len)


def test_crlf_maps_back_to_the_original() -> None:
    text = "ab\r\ncd\ref\r\r\ngh"
    starts, ends = naive_merge_offsets(text, 1, "\n")
    assert [text[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)] == [
        "ab",
        "cd",
        "ef",
        "gh",
    ]
    starts, ends = naive_merge_offsets(text, 128, "")
    assert (starts.tolist(), ends.tolist()) == ([0], [len(text)])


def test_examples() -> None:
    starts, ends = naive_merge_offsets("one。two", 128)
    assert (starts.tolist(), ends.tolist()) == ([0], [7])
    starts, ends = naive_merge_offsets("", 128)
    assert len(starts) == len(ends) == 0
    starts, ends, prefixes = naive_merge_offsets(
        "aaaa\nbbbb\ncccc", 1, "\n", 50, return_prefix_lengths=True
    )
    assert prefixes.tolist() == [0, 3, 4]
    # code points, not bytes or UTF-16 units
    starts, ends = naive_merge_offsets("🦀。分块", 1)
    assert (starts.tolist(), ends.tolist()) == ([0, 2], [1, 4])
    starts.setflags(write=True)  # plain writable arrays


def test_lone_surrogates() -> None:
    text = "a\ud800。b"
    starts, ends = naive_merge_offsets(text, 1)
    assert (starts.tolist(), ends.tolist()) == ([0, 3], [2, 4])


def test_argument_errors() -> None:
    with pytest.raises(TypeError, match="text"):
        naive_merge_offsets(["a"], 1)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="chunk_token_num"):
        naive_merge_offsets("a", 0)


def test_numpy_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(ImportError, match=r"ragchunk\[numpy\]"):
        naive_merge_offsets("a", 1)


def _corpus_sample(backend: str) -> list[tuple[str, str]]:
    docs = corpus_documents()
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: corpus not found; these tests were not run")
    return docs if backend == "rust" else random.Random(3).sample(docs, 4)


@pytest.mark.parametrize("strategy", ["over_cap", "under_cap", "hard_cap"])
def test_corpus(backend: str, strategy: str) -> None:
    for _, text in _corpus_sample(backend):
        _check(text, 128, "\n。；！？", 0, strategy)
        if strategy == "over_cap":
            _check(text, 64, "\n。；！？", 20, strategy)


def _both(fn: Callable[[], Any]) -> tuple[Any, Any]:
    results = []
    for name in ("rust", "python"):
        dispatch.set_backend(name)
        try:
            results.append(("ok", [a.tolist() for a in fn()]))
        except Exception as exc:  # compared: both must fail the same way
            results.append(("raised", type(exc).__name__))
    return results[0], results[1]


@pytest.mark.single_backend
@pytest.mark.skipif(
    os.environ.get("RAGCHUNK_BACKEND", "").lower() == "python",
    reason="fallback-only run (RAGCHUNK_BACKEND=python): nothing to compare against",
)
@given(
    text=_text,
    cap=st.sampled_from([1, 3, 8, 32, 128]),
    delimiter=_delims,
    overlap=st.integers(0, 100),
    strategy=_strategies,
)
def test_backends_agree(text: str, cap: int, delimiter: str, overlap: int, strategy: str) -> None:
    rust, python = _both(
        lambda: naive_merge_offsets(
            text, cap, delimiter, overlap, strategy, return_prefix_lengths=True
        )
    )
    assert rust == python
