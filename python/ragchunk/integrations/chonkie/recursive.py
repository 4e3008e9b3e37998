r"""The drop-in of ``chonkie.RecursiveChunker``: Chonkie's rules applied level by level, every
split, count and merge in one call of the Rust core.

>>> from chonkie import RecursiveLevel, RecursiveRules
>>> rules = RecursiveRules([RecursiveLevel(delimiters=["\n"]), RecursiveLevel(whitespace=True)])
>>> chunker = RecursiveChunker(chunk_size=14, rules=rules, min_characters_per_chunk=1)
>>> [c.text for c in chunker.chunk("A first line\nand a much longer second one")]
['A first line\n', 'and a much ', 'longer second ', 'one']

Chonkie 1.7.0's wheel ships no recipe: ``RecursiveChunker.from_recipe`` and
``RecursiveRules.from_recipe`` fetch the recipe (and, even for a local ``path``, the schema it
is checked against) from the Hugging Face hub, so they run Chonkie's code and need the network;
the chunker they build is the drop-in. Offline, build the rules by hand or with
``RecursiveRules.from_dict``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chonkie
from chonkie.types import Chunk, RecursiveLevel, RecursiveRules

from ragchunk._pure.splitters import chonkie as pure
from ragchunk.core import dispatch

from .common import builtin_name, fallback_count, is_character, make_chunks
from .sentence import split_patterns
from .token import _tiktoken_byte_edges

__all__ = ["RecursiveChunker", "levels_of"]

#: A level for the core: ``(patterns, include_next)`` of a delimiter split, None for tokens.
Level = tuple[list[str], bool] | None


def levels_of(rules: object) -> list[Level] | None:
    r"""The core's levels for Chonkie's ``rules``, or None where ragchunk does not follow
    Chonkie's split (Chonkie's code runs then).

    A level with delimiters splits on them, a whitespace level on ``" "``; a level with
    neither is a token level, and so is a ``pattern`` level, because Chonkie's
    ``RecursiveChunker`` ignores ``pattern`` and cuts such a level into token windows.

    >>> levels_of(RecursiveRules([RecursiveLevel(delimiters=". "), RecursiveLevel()]))
    [(['. '], False), None]
    """
    if type(rules) is not RecursiveRules or not isinstance(rules.levels, list):
        return None
    out: list[Level] = []
    for level in rules.levels:
        if not isinstance(level, RecursiveLevel):
            return None
        where = level.include_delim or "prev"
        if level.delimiters:
            patterns = split_patterns(level.delimiters)
        elif level.delimiters is not None:
            return None  # an empty list: Chonkie cuts tokens, then merges the windows
        elif level.whitespace:
            patterns = [" "]
        else:
            out.append(None)
            continue
        if patterns is None or where not in ("prev", "next"):
            return None
        out.append((patterns, where == "next"))
    return out


def _char_edges(text: str) -> list[int]:
    """Byte offset where each character of ``text`` starts, then its length in bytes."""
    edges = [0]
    for ch in text:
        edges.append(edges[-1] + len(ch.encode("utf-8")))
    return edges


class RecursiveChunker(chonkie.RecursiveChunker):
    """``chonkie.RecursiveChunker`` with ragchunk's recursion, for Chonkie's ``"character"``
    tokenizer and a ``tiktoken.Encoding`` of ``cl100k_base`` or ``o200k_base``; any other
    tokenizer, special-token text and rules ragchunk does not follow run Chonkie's code.

    A chunk's ``token_count`` is Chonkie's: at a delimiter level, the sum of its pieces'
    counts. A token level's windows are whole characters where Chonkie's decoding of a
    window that cuts a character gives U+FFFD and offsets that no longer slice the text.

    >>> RecursiveChunker(chunk_size=8)("abcdefghij")[1].text
    'ij'
    """

    def _plan(self, text: str) -> list[Chunk] | None:
        size, least = self.chunk_size, self.min_characters_per_chunk
        if type(size) is not int or type(least) is not int or size <= 0:
            return None
        levels = levels_of(self.rules)
        if levels is None:
            return None
        name = None if is_character(self) else builtin_name(self, text)
        if name is None and not is_character(self):
            return None
        inner: Any = self.tokenizer.tokenizer
        count = fallback_count(name) or len
        edges: Callable[[str], list[int]] = (
            _char_edges if name is None else lambda s: _tiktoken_byte_edges(inner, s)
        )
        try:
            starts, ends, tokens = dispatch.run(
                lambda core: core.chonkie_recursive_chunks(text, levels, size, max(least, 0), name),
                lambda: pure.recursive_chunks(text, levels, size, max(least, 0), count, edges),
            )
        except UnicodeEncodeError:  # lone surrogates: Chonkie's code raises its error
            return None
        return make_chunks(text, list(zip(starts, ends, strict=True)), tokens)

    def chunk(self, text: str) -> list[Chunk]:
        """Chonkie's chunks of ``text`` (none for empty text, as Chonkie's)."""
        if not isinstance(text, str) or not text:
            return list(super().chunk(text))
        chunks = self._plan(text)
        return list(super().chunk(text)) if chunks is None else chunks
