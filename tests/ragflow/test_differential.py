"""Differential tests: the Rust core and the pure-Python fallback agree on random input."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import ragchunk
from hypothesis import given
from hypothesis import strategies as st
from ragchunk.core import dispatch

pytestmark = [
    pytest.mark.single_backend,
    pytest.mark.skipif(
        os.environ.get("RAGCHUNK_BACKEND", "").lower() == "python",
        reason="fallback-only run (RAGCHUNK_BACKEND=python): nothing to compare against",
    ),
]

# Text that exercises the interesting paths: delimiters, CJK, CRLF/CR, emoji, combining marks,
# special-token text, regex metacharacters, position tags.
_ATOMS = [
    "\n",
    "\r\n",
    "\r",
    "。",
    "；",
    "！",
    "？",
    " ",
    "  ",
    "\t",
    ".",
    "!",
    "?",
    "`",
    "##",
    "---",
    "Chapter",
    "a",
    "Hello",
    "world",
    "分块",
    "测试",
    "🦀",
    "👍🏽",
    "e\u0301",
    "\u200b",
    "123",
    "<|endoftext|>",
    "@@1\t1.0\t2.0\t3.0\t4.0##",
    "@@2-3\t5\t6\t7\t8##",
    "(a|b)",
    "*",
    "$",
    "\\d+",
    "\ud800",
    "\udc00",  # lone surrogates: Rust cannot see them; the facade must cope
]
_text = st.lists(st.one_of(st.sampled_from(_ATOMS), st.text(max_size=12)), max_size=40).map("".join)
_delims = st.one_of(
    st.sampled_from(
        ["\n。；！？", "\n", "", "`##`", "`---`\n", "\n`Chapter`", "`?``!`", "``", "`"]
    ),
    st.text(alphabet=st.sampled_from(list("\n。.!?`#*$()|[]{}^\\ -aZ\r")), max_size=8),
)
_pos = st.one_of(
    st.none(),
    st.just(""),
    st.sampled_from(["@@1\t1.0\t2.0\t3.0\t4.0##", "@@4-5\t0\t1\t2\t3##", "tag"]),
    st.text(max_size=6),
)
_sections = st.one_of(
    _text,
    st.lists(_text, max_size=8),
    st.lists(st.tuples(_text, _pos), max_size=8),
)


def _both(fn: Callable[[], Any]) -> tuple[Any, Any]:
    results = []
    for name in ("rust", "python"):
        dispatch.set_backend(name)
        try:
            results.append(("ok", fn()))
        except Exception as exc:  # compared: both must fail the same way
            results.append(("raised", type(exc).__name__))
    return results[0], results[1]


@given(
    sections=_sections,
    chunk_token_num=st.sampled_from([1, 2, 5, 8, 16, 64, 128, 512]),
    delimiter=_delims,
    overlapped_percent=st.one_of(st.integers(0, 100), st.floats(0, 100)),
    strategy=st.sampled_from(["over_cap", "under_cap"]),
    compat=st.sampled_from(["v0.27", "v0.26", "v0.23", "v0.22"]),
)
def test_naive_merge_backends_agree(
    sections: Any,
    chunk_token_num: int,
    delimiter: str,
    overlapped_percent: float,
    strategy: str,
    compat: str,
) -> None:
    if compat != "v0.27":
        strategy = "over_cap"
    rust, python = _both(
        lambda: ragchunk.naive_merge(
            sections,
            chunk_token_num,
            delimiter,
            overlapped_percent,
            strategy,
            compat=compat,
        )
    )
    assert rust == python


@given(text=st.text(max_size=200))
def test_counting_backends_agree(text: str) -> None:
    rust, python = _both(lambda: ragchunk.count_tokens(text))
    assert rust == python
    rust, python = _both(lambda: ragchunk.num_tokens_from_string(text))
    assert rust == python


@given(text=st.lists(st.one_of(st.sampled_from(_ATOMS), st.text(max_size=8))).map("".join))
def test_positions_backends_agree(text: str) -> None:
    rust, python = _both(lambda: ragchunk.remove_tag(text))
    assert rust == python
    rust, python = _both(lambda: ragchunk.extract_positions(text))
    assert rust == python
