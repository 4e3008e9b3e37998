"""Paragraphs and their grouping into chunks, for every release family (twin of
``rust/ragflow/merge/paragraphs.rs`` and ``add_chunk.rs``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..delimiters import (
    split_keeping_delimiters,
    v022_anchored_match,
)
from .options import (
    Counter,
    Grouping,
    PieceFilter,
    ReleasePolicy,
    Section,
    SplitRule,
    _Chunk,
    _Paragraph,
)
from .overlap import overlap_prefix


def _should_split(
    rule: SplitRule, text: str, delimiters: list[str], chunk_token_num: float, count: Counter
) -> bool:
    if rule is SplitRule.EVERY_SECTION:
        return bool(delimiters)
    if rule is SplitRule.OVERSIZED:
        return bool(delimiters) and count(text) >= chunk_token_num
    if rule is SplitRule.OVERSIZED_EVEN_WITHOUT_DELIMITERS:
        # RAGFlow QUIRK (v0.22 empty delimiter): with delimiter="" the pattern is
        # "()", which matches between every two characters, so an oversized
        # section is cut into single characters.
        return count(text) >= chunk_token_num
    return False


def _paragraphs(
    sections: Sequence[Section],
    policy: ReleasePolicy,
    delimiters: list[str],
    chunk_token_num: float,
    count: Counter,
) -> list[_Paragraph]:
    paragraphs: list[_Paragraph] = []
    for index, (text, pos) in enumerate(sections):
        if not _should_split(policy.split_rule, text, delimiters, chunk_token_num, count):
            paragraphs.append(_Paragraph("\n" + text, pos, index))
            continue
        offset = 0
        for piece, is_delimiter in split_keeping_delimiters(text, delimiters):
            start = offset
            offset += len(piece)
            if policy.piece_filter is PieceFilter.V022_ANCHORED_MATCH:
                # RAGFlow QUIRK (v0.22 anchoring): empty pieces survive (they become
                # "\n" paragraphs) and with delimiter="" so does nothing but "\n".
                if v022_anchored_match(piece, delimiters):
                    continue
            elif is_delimiter or not piece:
                continue
            paragraphs.append(_Paragraph("\n" + piece, pos, index, start))
    return paragraphs


def _opens_new_chunk(
    policy: ReleasePolicy,
    strategy: str,
    current: _Chunk | None,
    size: int,
    chunk_token_num: float,
    threshold: float,
) -> tuple[bool, bool]:
    """Decide where a paragraph of ``size`` tokens goes: ``(opens_new, sealed)``."""
    if policy.grouping is Grouping.ADD_CHUNK:
        # The current chunk is closed once its running count passes the
        # overlap-scaled threshold; the paragraph that passes it still joins.
        return current is None or current.tokens > threshold, False
    if strategy == "under_cap":
        # Join only while the total stays within chunk_token_num; the overlap
        # plays no part. An oversized paragraph stands alone.
        if current is None or current.sealed or current.tokens + size > chunk_token_num:
            return True, size > chunk_token_num
        return False, False
    # OVER_CAP: an oversized paragraph stands alone; otherwise join unless the
    # running total already passed the overlap-scaled threshold (so a chunk may
    # overflow chunk_token_num by one paragraph).
    if size > chunk_token_num:
        return True, True
    return current is None or current.sealed or current.tokens > threshold, False


def _group(
    paragraphs: list[_Paragraph],
    policy: ReleasePolicy,
    strategy: str,
    chunk_token_num: float,
    overlapped_percent: float,
    count: Counter,
) -> list[_Chunk]:
    threshold = chunk_token_num * (100 - overlapped_percent) / 100.0
    add_chunk_rules = policy.grouping is Grouping.ADD_CHUNK
    chunks: list[_Chunk] = []
    for paragraph in paragraphs:
        size = count(paragraph.text)
        current = chunks[-1] if chunks else None
        opens_new, sealed = _opens_new_chunk(
            policy, strategy, current, size, chunk_token_num, threshold
        )
        pos = paragraph.pos or ""
        if add_chunk_rules and size < 8:
            # add_chunk families: a paragraph of fewer than 8 tokens drops its pos.
            pos = ""

        if opens_new:
            prefix = overlap_prefix(current.text, overlapped_percent) if current else ""
            tokens: float = size
            if policy.recount_after_overlap:
                # v0.26: the new chunk's count includes its overlap prefix.
                tokens = count(prefix + paragraph.text)
            chunk = _Chunk(prefix, "", tokens, [], sealed, paragraph.start)
            chunks.append(chunk)
            body = paragraph.text
            if add_chunk_rules and pos not in prefix + body:
                body += pos
            chunk.body = body
        else:
            assert current is not None
            chunk = current
            chunk.tokens += size
            piece = paragraph.text
            if add_chunk_rules and pos not in chunk.text:
                # RAGFlow QUIRK (add_chunk merge): only the chunk so far is searched
                # for pos, not the piece, so a piece carrying its own tag can end
                # up with the tag twice.
                piece += pos
            chunk.body += piece
        chunk.sources.append(paragraph.source)
        chunk.end = paragraph.start + len(paragraph.text) - 1

        if not add_chunk_rules and pos and pos not in chunk.body:
            # v0.27: pos follows the first paragraph of its section in a chunk.
            # The overlap prefix is added after grouping, so it is not searched.
            # No "< 8 tokens" rule here.
            chunk.body += pos
    return chunks
