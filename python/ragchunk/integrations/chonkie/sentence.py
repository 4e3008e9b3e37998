"""The drop-in of ``chonkie.SentenceChunker``: Chonkie's delimiter split, the counting of every
piece and chunk and Chonkie's packing, all in one call of the Rust core.

>>> chunker = SentenceChunker(chunk_size=24, min_characters_per_sentence=4)
>>> [c.text for c in chunker.chunk("One sentence. Two sentences. And three of them.")]
['One sentence. ', 'Two sentences. ', 'And three of them.']
"""

from __future__ import annotations

import chonkie
from chonkie.types import Chunk

from ragchunk._pure.splitters import chonkie as pure
from ragchunk.core import dispatch

from .common import builtin_name, fallback_count, is_character, make_chunks

__all__ = ["SentenceChunker", "split_patterns"]


def split_patterns(delim: object) -> list[str] | None:
    r"""The patterns Chonkie's ``split_text_by_delimiters`` cuts at for ``delim``: each
    delimiter when one is longer than a character or not ASCII, else each character of them
    all; None for what ragchunk does not split (not strings, an empty pattern among longer
    ones): Chonkie's code runs.

    >>> split_patterns([". ", "\n"]), split_patterns([".", "!"]), split_patterns("?!")
    (['. ', '\n'], ['.', '!'], ['?!'])
    """
    delimiters = [delim] if isinstance(delim, str) else delim
    if not isinstance(delimiters, list | tuple) or not all(isinstance(d, str) for d in delimiters):
        return None
    if any(len(d) > 1 or not d.isascii() for d in delimiters):
        return None if "" in delimiters else list(delimiters)
    return list("".join(delimiters))


class SentenceChunker(chonkie.SentenceChunker):
    """``chonkie.SentenceChunker`` with ragchunk's packing and counting, for Chonkie's
    ``"character"`` tokenizer and a ``tiktoken.Encoding`` of ``cl100k_base`` or
    ``o200k_base``; any other tokenizer, special-token text and argument types Chonkie's
    packing does not take run Chonkie's own code.

    >>> SentenceChunker(chunk_size=16, min_characters_per_sentence=2)("A. B. C.")[0].text
    'A. B. C.'
    """

    def _plan(self, text: str) -> list[Chunk] | None:
        size, overlap, least = self.chunk_size, self.chunk_overlap, self.min_sentences_per_chunk
        if type(size) is not int or type(least) is not int or type(overlap) not in (int, float):
            return None
        if size <= 0 or least < 1:
            return None
        name = None if is_character(self) else builtin_name(self, text)
        if name is None and not is_character(self):
            return None
        patterns = split_patterns(self.delim)
        where, least_chars = self.include_delim or "prev", self.min_characters_per_sentence
        if patterns is None or where not in ("prev", "next") or type(least_chars) is not int:
            return None
        split = (patterns, where == "next", max(least_chars, 0))
        try:
            starts, ends, tokens = dispatch.run(
                lambda core: core.chonkie_sentence_chunks(
                    text, *split, size, float(overlap), least, name
                ),
                lambda: pure.sentence_chunks(
                    text, split, size, overlap, least, fallback_count(name)
                ),
            )
        except UnicodeEncodeError:  # lone surrogates: Chonkie's code raises its error
            return None
        return make_chunks(text, list(zip(starts, ends, strict=True)), tokens)

    def chunk(self, text: str) -> list[Chunk]:
        """Chonkie's chunks of ``text`` (none for blank text, as Chonkie's)."""
        if not isinstance(text, str) or not text.strip():
            return list(super().chunk(text))
        chunks = self._plan(text)
        return list(super().chunk(text)) if chunks is None else chunks
