"""The drop-in of ``chonkie.TokenChunker``: Chonkie's token windows, cut by ragchunk.

>>> TokenChunker(chunk_size=8, chunk_overlap=2)("chonkie and ragchunk")[1].text
'e and ra'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import chonkie
from chonkie.types import Chunk

from ragchunk.core import dispatch

from .common import builtin_name, char_starts, chunk_ids, is_character

__all__ = ["TokenChunker"]


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
    ends = char_starts(text, [byte_edges[i] for span in spans for i in span])
    return [(ends[2 * k], ends[2 * k + 1], e - s) for k, (s, e) in enumerate(spans)]


def _core_windows(
    core: Any, text: str, name: str, size: int, step: int
) -> list[tuple[int, int, int]]:
    """The windows, cut by the Rust core (one call, Python ints only for the windows)."""
    starts, ends, tokens = core.chonkie_token_windows(text, name, size, step)
    return list(zip(starts, ends, tokens, strict=True))


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
        if is_character(self):
            # No encoding needed: the windows are slices. (Chonkie's CharacterTokenizer.encode
            # also adds each new character to the tokenizer's vocabulary; chunk() here does not.)
            return [(s, e, e - s) for s, e in _spans(len(text), size, step)]
        name = builtin_name(self, text)
        if name is None:
            return None
        inner = self.tokenizer.tokenizer
        try:
            return dispatch.run(
                lambda core: _core_windows(core, text, name, size, step),
                lambda: _windows_from_bytes(text, _tiktoken_byte_edges(inner, text), size, step),
            )
        except UnicodeEncodeError:  # lone surrogates: Chonkie's code
            return None

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
