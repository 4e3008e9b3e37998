"""Chunk offsets into the source instead of chunk strings (twin of
``rust/ragflow/merge/offsets.rs``)."""

from __future__ import annotations

import bisect

from ...tokenizer import num_tokens_from_string
from ..delimiters import (
    has_wrapped_delimiter,
    normalize_newlines,
    parse_delimiter_field,
    split_keeping_delimiters,
)
from .hard_cap import _hard_cap
from .options import DEFAULT_DELIMITER, POLICIES, Counter, _strategy_value
from .paragraphs import _group, _paragraphs


def naive_merge_offsets(
    text: str,
    chunk_token_num: float = 128,
    delimiter: str = DEFAULT_DELIMITER,
    overlapped_percent: float = 0,
    strategy: object = "over_cap",
    count: Counter | None = None,
) -> tuple[list[int], list[int], list[int]]:
    """Spans of the chunks v0.27's ``naive_merge`` makes from one string, without the strings.

    Returns ``(starts, ends, prefix_lengths)``: code-point offsets into the *original*
    ``text`` (before CRLF/CR normalisation) of each chunk's first piece start and last piece
    end, and the length of its overlap prefix. See ``ragchunk._naive.naive_merge_offsets``.

    >>> naive_merge_offsets("a。b\\r\\nc", chunk_token_num=2)
    ([0, 5], [3, 6], [0, 0])
    """
    counter = count if count is not None else num_tokens_from_string
    strategy_value = _strategy_value(strategy)
    if not text:
        return [], [], []
    norm = normalize_newlines(text)
    spans: list[tuple[int, int, int]] = []
    if has_wrapped_delimiter(delimiter):
        offset = 0
        for piece, is_delimiter in split_keeping_delimiters(norm, parse_delimiter_field(delimiter)):
            if piece and not is_delimiter:
                spans.append((offset, offset + len(piece), 0))
            offset += len(piece)
    else:
        policy = POLICIES["v0.27"]
        delimiters = parse_delimiter_field(delimiter)
        paragraphs = _paragraphs([(norm, "")], policy, delimiters, chunk_token_num, counter)
        if strategy_value == "hard_cap":
            chunks = _hard_cap(paragraphs, chunk_token_num, overlapped_percent, counter)
        else:
            chunks = _group(
                paragraphs, policy, strategy_value, chunk_token_num, overlapped_percent, counter
            )
        spans = [(c.start, c.end, len(c.prefix)) for c in chunks]
    # Each "\r\n" of the original is one "\n" of the normalised text: an offset t of the
    # normalised text is t plus the number of such pairs before it in the original.
    pairs: list[int] = []
    found = text.find("\r\n")
    while found >= 0:
        pairs.append(found - len(pairs))
        found = text.find("\r\n", found + 2)
    starts = [s + bisect.bisect_left(pairs, s) for s, _, _ in spans]
    ends = [e + bisect.bisect_left(pairs, e) for _, e, _ in spans]
    return starts, ends, [p for _, _, p in spans]
