"""Chonkie's chunkers backed by ragchunk: change the import and nothing else.

Each class is a subclass of Chonkie's class of the same name taking Chonkie's arguments and
returning Chonkie's own ``chonkie.Chunk`` objects (``text``, ``start_index``, ``end_index``,
``token_count``) from ``chunk``, ``chunk_batch`` and ``__call__``; each works in Chonkie's
``Pipeline`` and under its refineries, and pickles, so it runs in fork- and spawn-started
worker processes.

>>> from ragchunk.integrations.chonkie import SentenceChunker, TokenChunker
>>> chunker = TokenChunker(chunk_size=8, chunk_overlap=2)
>>> [(c.text, c.start_index, c.end_index) for c in chunker.chunk("chonkie and ragchunk")]
[('chonkie ', 0, 8), ('e and ra', 6, 14), ('ragchunk', 12, 20)]
>>> [c.text for c in SentenceChunker(chunk_size=12)("A first one. A second one.")]
['A first one. ', 'A second one.']

ragchunk does the work for Chonkie's ``"character"`` tokenizer (the default) and for a
``tiktoken.Encoding`` of ``cl100k_base`` or ``o200k_base``; any other tokenizer, a text with
special-token strings, and a configuration Chonkie would reject or loop on run Chonkie's own
code, so the answer is Chonkie's either way.

Where Chonkie's answer is lossy, the drop-in gives the exact one: a token window that starts or
ends inside a character (a CJK character or an emoji is several tokens in ``cl100k_base``)
decodes to U+FFFD in Chonkie, and Chonkie's offsets, which add up decoded lengths, then stop
slicing the text. Here each character belongs to the window that holds its first byte, so
``text == source[start_index:end_index]`` always holds and the windows still cover the text (a
window holding no character's first byte is empty); ``token_count`` is the window's token
count, as in Chonkie.

Needs ``chonkie`` (``pip install 'ragchunk[chonkie]'``); ``import ragchunk`` never imports it.
"""

from __future__ import annotations

from chonkie.types import Chunk, RecursiveLevel, RecursiveRules

from .common import chunk_ids
from .recursive import RecursiveChunker
from .sentence import SentenceChunker
from .table import TableChunker
from .token import TokenChunker

__all__ = [
    "Chunk",
    "RecursiveChunker",
    "RecursiveLevel",
    "RecursiveRules",
    "SentenceChunker",
    "TableChunker",
    "TokenChunker",
    "chunk_ids",
]
