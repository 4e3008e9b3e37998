"""Chunkers by name: what ``--chunker NAME -o key=value`` builds on the command line, for any
program that lets its users name a chunker in text.

>>> build_chunker("character", {"chunk_overlap": 1}, 4)
CharacterSplitter(chunk_size=4, chunk_overlap=1, drop_last=False)
>>> build_chunker("markdown", parse_options(["length='chars'"]), 64).length
'chars'
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Sequence
from typing import Any

__all__ = ["CHUNKERS", "build_chunker", "parse_options"]

#: ``--chunker`` names: short aliases of the public chunker classes (their class names work
#: too, in any case).
CHUNKERS = {
    "character": "CharacterSplitter",
    "code": "CodeSplitter",
    "html": "HTMLSplitter",
    "json": "JSONSplitter",
    "markdown": "MarkdownSplitter",
    "recursive": "RecursiveSplitter",
    "sentence": "SentenceSplitter",
    "title-tree": "TitleTreeChunker",
    "token": "SplitterComponent",
    "naive-merge": "SplitterComponent",
    "token-window": "TokenWindowSplitter",
}


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``key=value`` options as keyword arguments: each value read as a Python literal
    (``64``, ``True``, ``["\\n\\n", "\\n"]``), else kept as a string.

    >>> parse_options(["chunk_size=128", "tokenizer=o200k_base", "drop_last=True"])
    {'chunk_size': 128, 'tokenizer': 'o200k_base', 'drop_last': True}
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"--option must be key=value, got {item!r}")
        try:
            out[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            out[key] = raw
    return out


def build_chunker(name: str, options: dict[str, Any], chunk_size: int | None = None) -> Any:
    """The chunker ``name`` (a :data:`CHUNKERS` alias or a class name) built with
    ``options``; ``chunk_size`` fills the class's size argument when given.

    >>> import ragchunk
    >>> build_chunker("recursive", {"length": "chars"}, 100) == ragchunk.RecursiveSplitter(
    ...     100, length="chars"
    ... )
    True
    """
    import ragchunk

    lookup = {k.lower(): v for k, v in CHUNKERS.items()}
    lookup.update({v.lower(): v for v in CHUNKERS.values()})
    cls_name = lookup.get(name.lower().replace("_", "-")) or lookup.get(name.lower())
    if cls_name is None:
        raise ValueError(f"unknown chunker {name!r}; choose one of {', '.join(CHUNKERS)}")
    cls = getattr(ragchunk, cls_name)
    kwargs = dict(options)
    if chunk_size is not None:
        size_name = "chunk_token_size" if cls_name == "SplitterComponent" else "chunk_size"
        kwargs.setdefault(size_name, chunk_size)
    if cls_name == "CodeSplitter":
        kwargs.setdefault("language", "python")
    try:
        inspect.signature(cls).bind(**kwargs)
    except TypeError as exc:
        raise ValueError(f"{cls_name}: {exc}") from None
    return cls(**kwargs)
