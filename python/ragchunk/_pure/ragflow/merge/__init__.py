"""RAGFlow's ``naive_merge`` and ``naive_merge_with_images``, for four release families.

One engine runs every release; what differs between releases is spelled out as
a :class:`ReleasePolicy` of named switches (see :data:`POLICIES`). The engine
works in three steps:

1. **Paragraphs.** Each section ``(text, pos)`` becomes one or more paragraphs
   ``"\\n" + piece``, each remembering its section's ``pos`` and index. Whether
   and how a section is split at the delimiters is a policy switch.
2. **Grouping.** Paragraphs are folded left to right into chunks. A new chunk
   either joins the current one or opens a new one; a new chunk (after the
   first) starts with the *overlap prefix*: the tail of the previous chunk's
   final text with position tags removed.
3. **Images** (image variant only): each chunk's image is the fold, with
   :func:`~ragchunk.core.images.concat_img`, of the images of the paragraphs
   that entered it, in order.

The "custom mode" of a delimiter field with a `` `token` `` bypasses steps 1-2:
every segment is its own chunk.

RAGFlow quirks that the releases really have are reproduced on purpose and
marked ``RAGFlow QUIRK`` where they happen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ....core.images import fold_images
from ...tokenizer import num_tokens_from_string
from ..delimiters import (
    has_wrapped_delimiter,
    normalize_newlines,
)
from .custom import _custom_chunks
from .hard_cap import _hard_cap
from .offsets import naive_merge_offsets
from .options import (
    COMPATS,
    DEFAULT_DELIMITER,
    POLICIES,
    STRATEGIES,
    Counter,
    Grouping,
    ReleasePolicy,
    Section,
    _policy,
    _strategy_value,
)
from .overlap import overlap_prefix
from .paragraphs import _group, _paragraphs

__all__ = [
    "COMPATS",
    "DEFAULT_DELIMITER",
    "POLICIES",
    "STRATEGIES",
    "ReleasePolicy",
    "naive_merge",
    "naive_merge_offsets",
    "naive_merge_sources",
    "naive_merge_with_images",
    "normalize_image_texts",
    "normalize_sections",
    "overlap_prefix",
]


def naive_merge_sources(
    sections: Sequence[Section],
    chunk_token_num: float = 128,
    delimiter: str = DEFAULT_DELIMITER,
    overlapped_percent: float = 0,
    strategy: object = "over_cap",
    compat: str = "v0.27",
    count: Counter | None = None,
) -> tuple[list[str], list[list[int]]]:
    """RAGFlow's ``naive_merge``, also reporting where each chunk came from.

    Args:
        sections: ``(text, pos)`` pairs, already normalised (see
            :func:`normalize_sections`). ``pos`` is appended to chunk text as is;
            ``None`` and ``""`` mean no position.
        chunk_token_num: the token budget RAGFlow calls ``chunk_token_num``.
        delimiter: RAGFlow's delimiter field.
        overlapped_percent: percentage of the previous chunk to repeat.
        strategy: ``"over_cap"`` or ``"under_cap"`` (v0.27 only; ignored otherwise).
        compat: ``"v0.27"``, ``"v0.26"``, ``"v0.23"`` (RAGFlow v0.23-v0.25) or
            ``"v0.22"`` (RAGFlow v0.20-v0.22).
        count: token counter; RAGFlow's :func:`num_tokens_from_string` by default.

    Returns:
        The chunk texts and, for each chunk, the section index of every
        paragraph that entered it, in order, duplicates kept (``[]`` for the
        leading ``""`` chunk of the older releases).
    """
    policy = _policy(compat)
    strategy_value = _strategy_value(strategy)
    counter = count if count is not None else num_tokens_from_string
    if not sections:
        return [], []
    if policy.normalize_newlines:
        sections = [(normalize_newlines(text), pos) for text, pos in sections]

    if policy.custom_delimiters is not None and has_wrapped_delimiter(delimiter):
        return _custom_chunks(
            sections,
            policy.custom_delimiters(delimiter),
            policy.custom_keeps_empty_segments,
            counter,
        )

    delimiters = policy.default_delimiters(delimiter)
    paragraphs = _paragraphs(sections, policy, delimiters, chunk_token_num, counter)
    if strategy_value == "hard_cap" and policy.grouping is Grouping.MERGE_STRATEGY:
        groups = _hard_cap(paragraphs, chunk_token_num, overlapped_percent, counter)
    else:
        groups = _group(
            paragraphs, policy, strategy_value, chunk_token_num, overlapped_percent, counter
        )
    texts = [chunk.text for chunk in groups]
    sources = [chunk.sources for chunk in groups]
    if policy.leading_empty_chunk:
        # RAGFlow QUIRK (add_chunk families): cks starts as [""] so that add_chunk
        # can tell the first chunk apart, and nobody removes the placeholder.
        texts.insert(0, "")
        sources.insert(0, [])
    return texts, sources


def normalize_sections(sections: object) -> list[Section]:
    """Turn ``naive_merge``'s ``sections`` argument into ``(text, pos)`` pairs, as RAGFlow does.

    A string is one section; a list whose first item is a string is a list of
    texts without positions; anything else is a list of ``(text, pos)`` pairs.
    """
    if not sections:
        return []
    if isinstance(sections, str):
        return [(sections, "")]
    items = list(sections)  # type: ignore[call-overload]
    if isinstance(items[0], str):
        return [(text, "") for text in items]
    return [(text, pos) for text, pos in items]


def normalize_image_texts(texts: Sequence[Any]) -> list[Section]:
    """Turn ``naive_merge_with_images``'s ``texts`` into ``(text, pos)`` pairs, as RAGFlow does.

    Each entry may be a string, ``None`` (read as ``""``), or a tuple
    ``(text, pos)`` whose text may be ``None`` (also ``""``); a 1-tuple has no pos.
    """
    sections: list[Section] = []
    for entry in texts:
        if isinstance(entry, tuple):
            text = entry[0] if entry[0] is not None else ""
            pos = entry[1] if len(entry) > 1 else ""
        else:
            text, pos = entry or "", ""
        sections.append((text, pos))
    return sections


def naive_merge(
    sections: object,
    chunk_token_num: float = 128,
    delimiter: str = DEFAULT_DELIMITER,
    overlapped_percent: float = 0,
    strategy: object = "over_cap",
    compat: str = "v0.27",
    count: Counter | None = None,
) -> list[str]:
    """Drop-in for RAGFlow's ``rag.nlp.naive_merge`` (pure Python).

    ``sections`` takes RAGFlow's forms: a string, a list of strings, or a list
    of ``(text, pos)`` tuples. See :func:`naive_merge_sources` for the other
    arguments.

    >>> naive_merge("first line\\nsecond line")
    ['\\nfirst line\\nsecond line']
    >>> naive_merge("a", compat="v0.26")
    ['', '\\na']
    """
    chunks, _ = naive_merge_sources(
        normalize_sections(sections),
        chunk_token_num,
        delimiter,
        overlapped_percent,
        strategy,
        compat,
        count,
    )
    return chunks


def naive_merge_with_images(
    texts: Sequence[Any],
    images: Sequence[Any],
    chunk_token_num: float = 128,
    delimiter: str = DEFAULT_DELIMITER,
    overlapped_percent: float = 0,
    strategy: object = "over_cap",
    compat: str = "v0.27",
    count: Counter | None = None,
) -> tuple[list[str], list[Any]]:
    """Drop-in for RAGFlow's ``rag.nlp.naive_merge_with_images`` (pure Python).

    ``texts[i]`` goes with ``images[i]`` (an image or ``None``). Chunks are made
    exactly as :func:`naive_merge` makes them; each chunk's image is the images
    of its paragraphs folded in order with :func:`concat_img`. Texts that
    produce no paragraph lose their image. In custom mode each segment keeps its
    text's image object.

    Returns:
        ``(chunks, images)``; ``([], [])`` when ``texts`` is empty or the two
        lists differ in length.
    """
    if not texts or len(texts) != len(images):
        return [], []
    chunks, sources = naive_merge_sources(
        normalize_image_texts(texts),
        chunk_token_num,
        delimiter,
        overlapped_percent,
        strategy,
        compat,
        count,
    )
    return chunks, fold_images(images, sources, _policy(compat).skip_none_images)
