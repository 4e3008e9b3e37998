"""The general chunkers, one module each. All are configured once and applied to many
documents (``split``, ``split_text``, ``split_batch``), return :class:`ragchunk.Chunk`
objects with code-point offsets, take ``chunk_size`` (tokens by default, ``length="chars"``
where it makes sense), and give the same result on both backends.

>>> from ragchunk.splitters import RecursiveSplitter
>>> RecursiveSplitter(chunk_size=10, length="chars").split_text("Hi.\\n\\nBye now.")
['Hi.', 'Bye now.']
"""

from __future__ import annotations

from .character import CharacterSplitter
from .code import CodeSplitter, supported_languages
from .html import HTMLSplitter
from .json import JSONSplitter
from .markdown import MarkdownSplitter
from .recursive import RecursiveSplitter
from .sentence import SentenceSplitter
from .title_tree import TitleTreeChunker
from .token_window import TokenWindowSplitter

__all__ = [
    "CharacterSplitter",
    "CodeSplitter",
    "HTMLSplitter",
    "JSONSplitter",
    "MarkdownSplitter",
    "RecursiveSplitter",
    "SentenceSplitter",
    "TitleTreeChunker",
    "TokenWindowSplitter",
    "supported_languages",
]
