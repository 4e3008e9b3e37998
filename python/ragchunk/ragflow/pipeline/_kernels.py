"""The hot kernels of the pipeline components, on the active backend.

Every call goes through :func:`ragchunk.core.dispatch.run`: the Rust core when it is loaded,
else the pure-Python twins in ``ragchunk._pure.ragflow.flow``. Both give identical results.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._pure.ragflow import flow as _pure
from ..tokens import num_tokens_from_string

__all__ = ["cap_split", "count", "split_on_tokens", "take_sentences"]


def count(text: str) -> int:
    """RAGFlow's ``num_tokens_from_string`` on the active backend."""
    return num_tokens_from_string(text)


def split_on_tokens(text: str, tokens: Sequence[str]) -> list[tuple[str, int, int]]:
    """Non-empty segments of ``text`` between literal ``tokens``, with their ranges."""
    return _pure.split_on_tokens(text, tokens)


def take_sentences(text: str, need: float, from_end: bool) -> str:
    """Whole sentences from one end of ``text`` holding at least ``need`` tokens."""
    return _pure.take_sentences(text, need, from_end)


def cap_split(text: str, cap: int) -> list[str]:
    """TitleChunker's token-cap re-split of one chunk text."""
    return _pure.cap_split(text, cap)
