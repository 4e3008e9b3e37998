"""The overlap prefix: the tail of the previous chunk (twin of
``rust/ragflow/merge/overlap.rs``)."""

from __future__ import annotations

from ..positions import remove_tag


def overlap_prefix(previous_chunk: str, overlapped_percent: float) -> str:
    """The overlap prefix cut from the previous chunk as output.

    Position tags are removed first (so the prefix never holds one), then the
    last part is taken from ``int(len(v) * (100 - p) / 100.0)`` on, with Python
    slicing (a percentage above 100 gives a negative start, which counts from
    the end). Only positive percentages produce a prefix.

    >>> overlap_prefix("abcdefghij", 30)
    'hij'
    """
    if overlapped_percent <= 0:
        return ""
    visible = remove_tag(previous_chunk)
    return visible[int(len(visible) * (100 - overlapped_percent) / 100.0) :]
