"""Chonkie's chunkers backed by ragchunk: change the import and nothing else.

:class:`TokenChunker` is a subclass of ``chonkie.TokenChunker`` taking Chonkie's arguments
(``tokenizer``, ``chunk_size``, ``chunk_overlap`` as a count or a fraction of ``chunk_size``)
and returning Chonkie's own ``chonkie.Chunk`` objects (``text``, ``start_index``,
``end_index``, ``token_count``) from ``chunk``, ``chunk_batch`` and ``__call__``; it works
in Chonkie's ``Pipeline`` (the ``"token"`` chunker) and under its refineries, and it pickles,
so it runs in fork- and spawn-started worker processes.

>>> from ragchunk.integrations.chonkie import TokenChunker
>>> chunker = TokenChunker(chunk_size=8, chunk_overlap=2)
>>> [(c.text, c.start_index, c.end_index) for c in chunker.chunk("chonkie and ragchunk")]
[('chonkie ', 0, 8), ('e and ra', 6, 14), ('ragchunk', 12, 20)]

ragchunk cuts the windows for Chonkie's ``"character"`` tokenizer (the default) and for a
``tiktoken.Encoding`` of ``cl100k_base`` or ``o200k_base``; any other tokenizer, a text
with special-token strings, and a configuration Chonkie would reject or loop on run Chonkie's
own code, so the answer is Chonkie's either way.

Where Chonkie's answer is lossy, the drop-in gives the exact one: a token window that starts or
ends inside a character (a CJK character or an emoji is several tokens in ``cl100k_base``)
decodes to U+FFFD in Chonkie, and Chonkie's offsets, which add up decoded lengths, then stop
slicing the text. Here each character belongs to the window that holds its first byte, so
``text == source[start_index:end_index]`` always holds and the windows still cover the text (a
window holding no character's first byte is empty);
``token_count`` is the window's token count, as in Chonkie.

Needs ``chonkie`` (``pip install 'ragchunk[chonkie]'``); ``import ragchunk`` never imports it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import chonkie
from chonkie.tokenizer import CharacterTokenizer
from chonkie.types import Chunk

from ragchunk.core import dispatch, resolve_tokenizer

__all__ = ["Chunk", "TokenChunker", "chunk_ids"]

_BUILTIN = ("cl100k_base", "o200k_base")


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


def _char_starts(text: str, byte_edges: Sequence[int]) -> list[int]:
    """Code-point offsets of UTF-8 byte offsets, each rounded up to the next character start
    when it falls inside a character (the character belongs to the window holding its first
    byte)."""
    if text.isascii():
        return list(byte_edges)
    import numpy as np

    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    # starts_before[b] = how many characters start at a byte < b
    starts_before = np.concatenate(([0], np.cumsum((data & 0xC0) != 0x80)))
    return [int(v) for v in starts_before[np.asarray(byte_edges, dtype=np.int64)]]


def _tiktoken_byte_edges(encoding: Any, text: str) -> list[int]:
    """Byte offset where each token of ``text`` starts, then ``len`` in bytes (the fallback's
    twin of the core's ``token_edges``)."""
    edges = [0]
    for piece in encoding.decode_tokens_bytes(encoding.encode_ordinary(text)):
        edges.append(edges[-1] + len(piece))
    return edges


def _spans(n: int, size: int, step: int) -> list[tuple[int, int]]:
    """Chonkie's windows over ``n`` tokens: ``[start, end)`` every ``step``, the last one
    ending at ``n``."""
    out = []
    for start in range(0, n, step):
        end = min(start + size, n)
        out.append((start, end))
        if end == n:
            break
    return out


def _windows_from_bytes(
    text: str, byte_edges: Sequence[int], size: int, step: int
) -> list[tuple[int, int, int]]:
    """``(start, end, tokens)`` per window from each token's byte offset (only the windows'
    ends are mapped from bytes to characters)."""
    spans = _spans(len(byte_edges) - 1, size, step)
    ends = _char_starts(text, [byte_edges[i] for span in spans for i in span])
    return [(ends[2 * k], ends[2 * k + 1], e - s) for k, (s, e) in enumerate(spans)]


def _core_windows(
    core: Any, text: str, name: str, size: int, step: int
) -> list[tuple[int, int, int]]:
    """The windows from the Rust core's token offsets."""
    return _windows_from_bytes(text, core.token_edges(text, name), size, step)


class TokenChunker(chonkie.TokenChunker):
    """``chonkie.TokenChunker`` with ragchunk's windows (see the module's documentation for
    when Chonkie's own code runs, and for the exact answer where Chonkie's is lossy).

    >>> TokenChunker(chunk_size=4)("abcdefghij")[-1].text
    'ij'
    """

    def _windows(self, text: str) -> list[tuple[int, int, int]] | None:
        """``(start, end, tokens)`` of each window of ``text`` (non-empty), or None when
        Chonkie's code must run."""
        size, overlap = self.chunk_size, self.chunk_overlap
        if type(size) is not int or type(overlap) is not int or not 0 <= overlap < size:
            return None
        step = size - overlap
        inner = getattr(self.tokenizer, "tokenizer", None)
        if type(inner) is CharacterTokenizer:
            # No encoding needed: the windows are slices. (Chonkie's CharacterTokenizer.encode
            # also adds each new character to the tokenizer's vocabulary; chunk() here does not.)
            return [(s, e, e - s) for s, e in _spans(len(text), size, step)]
        name = self._builtin_name(inner, text)
        if name is None:
            return None
        try:
            return dispatch.run(
                lambda core: _core_windows(core, text, name, size, step),
                lambda: _windows_from_bytes(text, _tiktoken_byte_edges(inner, text), size, step),
            )
        except UnicodeEncodeError:  # lone surrogates: Chonkie's code
            return None

    def _builtin_name(self, encoding: Any, text: str) -> str | None:
        """``cl100k_base`` or ``o200k_base`` for a tiktoken encoding equal to one, unless
        ``text`` holds a special-token string (which Chonkie's ``encode`` refuses with
        tiktoken's error); else None."""
        if encoding is None or not type(encoding).__module__.startswith("tiktoken"):
            return None
        try:
            name = resolve_tokenizer(encoding).builtin
        except (TypeError, ValueError):
            return None
        if name not in _BUILTIN or any(t in text for t in encoding.special_tokens_set):
            return None
        return name

    def _chunks(self, text: str, windows: list[tuple[int, int, int]]) -> list[Chunk]:
        return [
            Chunk(id=i, text=text[s:e], start_index=s, end_index=e, token_count=n)
            for i, (s, e, n) in zip(chunk_ids(len(windows)), windows, strict=True)
        ]

    def chunk(self, text: str) -> list[Chunk]:
        """Chonkie's chunks of ``text`` (none for blank text, as Chonkie's)."""
        if not isinstance(text, str) or not text.strip():
            return list(super().chunk(text))
        windows = self._windows(text)
        if windows is None:
            return list(super().chunk(text))
        return self._chunks(text, windows)

    def _process_batch(self, texts: list[str]) -> list[list[Chunk]]:
        # Chonkie's batch path skips only texts with no tokens, so a blank text of spaces
        # gets its chunks there while chunk() gives none; the drop-in keeps that difference.
        out: list[list[Chunk]] = []
        for text in texts:
            windows = self._windows(text) if isinstance(text, str) and text else None
            if isinstance(text, str) and not text:
                out.append([])
            elif windows is None:
                out.extend(super()._process_batch([text]))
            else:
                out.append(self._chunks(text, windows))
        return out
