"""Named chunking parameters for common kinds of document.

Each preset is a read-only mapping of :func:`ragchunk.naive_merge` keyword arguments, so it
unpacks straight into the call; ``TokenChunker.from_preset(name)`` uses the same values.
They are starting points for RAGFlow's ``chunk_token_num`` / ``overlapped_percent`` fields,
not measured optima: tune them on your own retrieval evaluation.

>>> import ragchunk
>>> from ragchunk import presets
>>> dict(presets.LEGAL)
{'chunk_token_num': 256, 'overlapped_percent': 20}
>>> ragchunk.naive_merge("Article 1. Scope.", **presets.LEGAL)
['\\nArticle 1. Scope.']
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["BOOK", "LEGAL", "PRESETS", "QA", "TECHNICAL", "get_preset"]

TECHNICAL: Mapping[str, int] = MappingProxyType({"chunk_token_num": 512, "overlapped_percent": 10})
"""Manuals, API docs, specifications: 512 tokens, 10% overlap.

A procedure, an option table or a code example with its explanation usually fits in 512
tokens, and an embedding of that size still points at one topic. The small overlap repeats
the end of the previous chunk so a step or a sentence cut at a boundary keeps its lead-in.
"""

LEGAL: Mapping[str, int] = MappingProxyType({"chunk_token_num": 256, "overlapped_percent": 20})
"""Contracts, statutes, policies: 256 tokens, 20% overlap.

Questions about legal text target a single clause, and clauses are short and dense, so
smaller chunks retrieve the clause rather than the page around it. Clauses lean on what came
just before ("subject to the foregoing", definitions, conditions), hence the larger overlap.
"""

BOOK: Mapping[str, int] = MappingProxyType({"chunk_token_num": 1024, "overlapped_percent": 5})
"""Books, long reports, narrative prose: 1024 tokens, 5% overlap.

Narrative meaning spreads over several paragraphs (a scene, an argument), so chunks are
large enough to hold one; the text flows continuously, so a thin overlap is enough to keep a
sentence cut at the boundary readable without storing much text twice.
"""

QA: Mapping[str, int] = MappingProxyType({"chunk_token_num": 128, "overlapped_percent": 0})
"""FAQs, Q&A pairs, glossaries: 128 tokens, no overlap.

Each entry is short and self-contained; a small budget keeps one question with its answer,
and any overlap would glue the end of one answer onto the next question and blur both.
"""

PRESETS: Mapping[str, Mapping[str, int]] = MappingProxyType(
    {"technical": TECHNICAL, "legal": LEGAL, "book": BOOK, "qa": QA}
)
"""Every preset by its lower-case name."""


def get_preset(name: str) -> Mapping[str, int]:
    """The preset called ``name`` (case-insensitive; surrounding spaces ignored).

    Raises:
        TypeError: ``name`` is not a str.
        ValueError: no preset has that name; the message lists the valid names.

    >>> get_preset("Technical")["chunk_token_num"]
    512
    >>> get_preset("poetry")
    Traceback (most recent call last):
    ...
    ValueError: unknown preset 'poetry'; valid presets are: book, legal, qa, technical
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    preset = PRESETS.get(name.strip().lower())
    if preset is None:
        raise ValueError(
            f"unknown preset {name!r}; valid presets are: {', '.join(sorted(PRESETS))}"
        )
    return preset
