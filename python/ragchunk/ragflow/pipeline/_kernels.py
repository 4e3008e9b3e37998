"""The hot kernels of the pipeline components, on the active backend.

Every call goes through :func:`ragchunk.core.dispatch.run_exact`, so that RAGFlow's own
exception classes pass as they are: the Rust core when it is loaded (GIL released), else the
pure-Python twins in ``ragchunk._pure.ragflow.flow``. Both give identical results; text with
lone surrogates takes the twin on both backends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._pure.ragflow import flow as _pure
from ...core import dispatch
from ..tokens import _RAGFLOW_CL100K, num_tokens_from_string

__all__ = ["cap_split", "count", "count_many", "merge_run", "split_on_tokens", "take_sentences"]


def count(text: str) -> int:
    """RAGFlow's ``num_tokens_from_string`` on the active backend."""
    return num_tokens_from_string(text)


def count_many(texts: Sequence[str]) -> list[int]:
    """:func:`count` of each of ``texts`` (strings), in one call on one thread."""
    return _RAGFLOW_CL100K.batch(texts, workers=1)


def split_on_tokens(text: str, tokens: Sequence[str]) -> list[tuple[str, int, int]]:
    """Non-empty segments of ``text`` between literal ``tokens``, with their ranges."""

    def rust(core: Any) -> list[tuple[str, int, int]]:
        ranges = core.flow_split_on_tokens(text, list(tokens))
        return [(text[a:b], a, b) for a, b in ranges]

    return dispatch.run_exact(rust, lambda: _pure.split_on_tokens(text, tokens))


def take_sentences(text: str, need: float, from_end: bool) -> str:
    """Whole sentences from one end of ``text`` holding at least ``need`` tokens."""
    return dispatch.run_exact(
        lambda core: str(core.flow_take_sentences(text, float(need), from_end)),
        lambda: _pure.take_sentences(text, need, from_end),
    )


def merge_run(
    texts: Sequence[str], counts: Sequence[int], size: int, percent: int
) -> list[tuple[str, list[int]]]:
    """TokenChunker's token merge of one run of JSON text items."""
    return dispatch.run_exact(
        lambda core: core.flow_merge_run(list(texts), list(counts), size, percent),
        lambda: _pure.merge_run(texts, counts, size, percent),
    )


def cap_split(text: str, cap: int) -> list[str]:
    """TitleChunker's token-cap re-split of one chunk text."""
    return dispatch.run_exact(
        lambda core: core.flow_cap_split(text, cap),
        lambda: _pure.cap_split(text, cap),
    )
