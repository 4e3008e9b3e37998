"""What the Chonkie drop-ins share: Chonkie's chunk ids, Chonkie's ``Chunk`` objects from spans,
UTF-8 byte offsets as code-point offsets, and which tokenizers ragchunk counts for.

>>> make_chunks("ab cd", [(0, 3), (3, 5)], [3, 2])[1].text
'cd'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from chonkie.tokenizer import CharacterTokenizer
from chonkie.types import Chunk

from ragchunk.core import resolve_tokenizer
from ragchunk.core.counting import Counter

__all__ = [
    "BUILTIN",
    "builtin_name",
    "char_starts",
    "chunk_ids",
    "fallback_count",
    "is_character",
    "make_chunks",
]

#: The encodings whose ``tiktoken.Encoding`` the Rust core counts for.
BUILTIN = ("cl100k_base", "o200k_base")


def chunk_ids(n: int) -> list[str]:
    """``n`` chunk ids in Chonkie's format (``chnk_`` and a random UUID4's 32 hex digits),
    from one draw of random bytes (``uuid.uuid4()`` per chunk costs more than the chunking).

    >>> ids = chunk_ids(2)
    >>> ids[0][:5], len(ids[0]), ids[0][17], ids[0] != ids[1]
    ('chnk_', 37, '4', True)
    """
    raw = bytearray(os.urandom(16 * n))
    for k in range(0, 16 * n, 16):
        raw[k + 6] = (raw[k + 6] & 0x0F) | 0x40  # version 4
        raw[k + 8] = (raw[k + 8] & 0x3F) | 0x80  # RFC 4122 variant
    hexed = raw.hex()
    return ["chnk_" + hexed[k : k + 32] for k in range(0, 32 * n, 32)]


def make_chunks(text: str, spans: Sequence[tuple[int, int]], counts: Sequence[int]) -> list[Chunk]:
    """Chonkie ``Chunk`` objects for the ``[start, end)`` code-point ``spans`` of ``text``
    with their token ``counts``."""
    return [
        Chunk(id=i, text=text[s:e], start_index=s, end_index=e, token_count=n)
        for i, (s, e), n in zip(chunk_ids(len(spans)), spans, counts, strict=True)
    ]


def char_starts(text: str, byte_edges: Sequence[int]) -> list[int]:
    """Code-point offsets of UTF-8 byte offsets into ``text``, each rounded up to the next
    character start when it falls inside a character.

    >>> char_starts("a中b", [0, 1, 2, 4, 5])
    [0, 1, 2, 2, 3]
    """
    if text.isascii():
        return list(byte_edges)
    import numpy as np

    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    # starts_before[b] = how many characters start at a byte < b
    starts_before = np.concatenate(([0], np.cumsum((data & 0xC0) != 0x80)))
    return [int(v) for v in starts_before[np.asarray(byte_edges, dtype=np.int64)]]


def is_character(chunker: Any) -> bool:
    """Whether a Chonkie chunker counts with Chonkie's ``"character"`` tokenizer."""
    return type(getattr(chunker.tokenizer, "tokenizer", None)) is CharacterTokenizer


def builtin_name(chunker: Any, text: str) -> str | None:
    """``cl100k_base`` or ``o200k_base`` when a Chonkie chunker counts with a
    ``tiktoken.Encoding`` equal to one, unless ``text`` holds a special-token string (which
    Chonkie's ``encode`` refuses with tiktoken's error); else None."""
    encoding = getattr(chunker.tokenizer, "tokenizer", None)
    if encoding is None or not type(encoding).__module__.startswith("tiktoken"):
        return None
    try:
        name = resolve_tokenizer(encoding).builtin
    except (TypeError, ValueError):
        return None
    if name not in BUILTIN or any(t in text for t in encoding.special_tokens_set):
        return None
    return name


def fallback_count(name: str | None) -> Callable[[str], int] | None:
    """The fallback's counter of a built-in encoding (None: code points)."""
    return None if name is None else Counter.shared(name).bind()
