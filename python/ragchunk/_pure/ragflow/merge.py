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
   :func:`~ragchunk.ragflow.images.concat_img`, of the images of the paragraphs
   that entered it, in order.

The "custom mode" of a delimiter field with a `` `token` `` bypasses steps 1-2:
every segment is its own chunk.

RAGFlow quirks that the releases really have are reproduced on purpose and
marked ``RAGFlow QUIRK`` where they happen.
"""

from __future__ import annotations

import bisect
import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ...ragflow.images import fold_images
from ..tokenizer import num_tokens_from_string
from .delimiters import (
    backtick_tokens,
    has_wrapped_delimiter,
    legacy_delimiters,
    normalize_newlines,
    parse_delimiter_field,
    split_keeping_delimiters,
    v022_anchored_match,
)
from .positions import remove_tag

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

# Full-width punctuation on purpose: RAGFlow's default sentence delimiters.
DEFAULT_DELIMITER = "\n。；！？"
COMPATS = ("v0.27", "v0.26", "v0.23", "v0.22")
STRATEGIES = ("over_cap", "under_cap", "hard_cap")

Counter = Callable[[str], int]
Section = tuple[str, "str | None"]


class SplitRule(enum.Enum):
    """When the default (non-custom) path splits a section at the delimiters."""

    EVERY_SECTION = "every section, whenever there is a delimiter"  # v0.27
    OVERSIZED = "sections with tokens >= chunk_token_num, when there is a delimiter"  # v0.26
    OVERSIZED_EVEN_WITHOUT_DELIMITERS = "sections with tokens >= chunk_token_num"  # v0.22
    NEVER = "never"  # v0.23


class PieceFilter(enum.Enum):
    """Which pieces of a split section are thrown away."""

    EMPTY_AND_DELIMITERS = "empty pieces and delimiter matches"  # v0.26, v0.27
    V022_ANCHORED_MATCH = "pieces that re.match('^' + pattern + '$')"  # v0.22


class Grouping(enum.Enum):
    """How paragraphs are grouped into chunks."""

    MERGE_STRATEGY = "v0.27 _merge_paragraph_groups with OVER_CAP / UNDER_CAP"
    ADD_CHUNK = "the add_chunk closure of v0.20-v0.26"


@dataclass(frozen=True)
class ReleasePolicy:
    """Everything in which one RAGFlow release family's ``naive_merge`` differs."""

    compat: str
    normalize_newlines: bool
    """CRLF and lone CR in section text become LF before anything else (v0.27)."""
    default_delimiters: Callable[[str], list[str]]
    """Parses the delimiter field for the default path."""
    custom_delimiters: Callable[[str], list[str]] | None
    """Parses the field in custom mode; ``None`` when the release has no custom mode."""
    custom_keeps_empty_segments: bool
    """Custom mode turns an empty segment into a ``"\\n"`` chunk (v0.23, v0.26)."""
    split_rule: SplitRule
    piece_filter: PieceFilter
    grouping: Grouping
    recount_after_overlap: bool
    """A new chunk's running count is ``tokens(prefix + paragraph)`` (v0.26)."""
    leading_empty_chunk: bool
    """The result starts with an extra ``""`` chunk (and a ``None`` image)."""
    skip_none_images: bool
    """``None`` paragraph images are skipped instead of passed to ``concat_img`` (v0.27)."""


def _unique_backtick_tokens(field_value: str) -> list[str]:
    # RAGFlow builds this pattern from sorted(set(tokens)); the order of
    # equal-length literals cannot change a match, so first-seen order is used.
    return sorted(dict.fromkeys(backtick_tokens(field_value)), key=len, reverse=True)


POLICIES: dict[str, ReleasePolicy] = {
    "v0.27": ReleasePolicy(
        compat="v0.27",
        normalize_newlines=True,
        default_delimiters=parse_delimiter_field,
        # Custom mode splits on every parsed delimiter, bare characters included.
        custom_delimiters=parse_delimiter_field,
        custom_keeps_empty_segments=False,
        split_rule=SplitRule.EVERY_SECTION,
        piece_filter=PieceFilter.EMPTY_AND_DELIMITERS,
        grouping=Grouping.MERGE_STRATEGY,
        recount_after_overlap=False,
        leading_empty_chunk=False,
        skip_none_images=True,
    ),
    "v0.26": ReleasePolicy(
        compat="v0.26",
        normalize_newlines=False,
        default_delimiters=legacy_delimiters,
        custom_delimiters=_unique_backtick_tokens,
        custom_keeps_empty_segments=True,
        split_rule=SplitRule.OVERSIZED,
        piece_filter=PieceFilter.EMPTY_AND_DELIMITERS,
        grouping=Grouping.ADD_CHUNK,
        recount_after_overlap=True,
        leading_empty_chunk=True,
        skip_none_images=False,
    ),
    "v0.23": ReleasePolicy(
        compat="v0.23",
        normalize_newlines=False,
        default_delimiters=legacy_delimiters,
        custom_delimiters=_unique_backtick_tokens,
        custom_keeps_empty_segments=True,
        split_rule=SplitRule.NEVER,
        piece_filter=PieceFilter.EMPTY_AND_DELIMITERS,
        grouping=Grouping.ADD_CHUNK,
        recount_after_overlap=False,
        leading_empty_chunk=True,
        skip_none_images=False,
    ),
    "v0.22": ReleasePolicy(
        compat="v0.22",
        normalize_newlines=False,
        default_delimiters=legacy_delimiters,
        custom_delimiters=None,  # backticks only mark multi-character delimiters
        custom_keeps_empty_segments=False,
        split_rule=SplitRule.OVERSIZED_EVEN_WITHOUT_DELIMITERS,
        piece_filter=PieceFilter.V022_ANCHORED_MATCH,
        grouping=Grouping.ADD_CHUNK,
        recount_after_overlap=False,
        leading_empty_chunk=True,
        skip_none_images=False,
    ),
}


def _policy(compat: str) -> ReleasePolicy:
    try:
        return POLICIES[compat]
    except KeyError:
        raise ValueError(f"compat must be one of {', '.join(COMPATS)}; got {compat!r}") from None


def _strategy_value(strategy: object) -> str:
    # Accept RAGFlow's MergeStrategy enum (or any enum) as well as its value.
    value = getattr(strategy, "value", strategy)
    if value not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
    return str(value)


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


class _Paragraph(NamedTuple):
    text: str  # "\n" + piece
    pos: str | None
    source: int  # index of the section it came from
    start: int = 0  # code point where the piece starts in its (normalised) section text


@dataclass
class _Chunk:
    prefix: str  # overlap prefix, cut from the previous chunk
    body: str
    tokens: float
    sources: list[int] = field(default_factory=list)
    sealed: bool = False  # a stand-alone oversized paragraph (v0.27): nothing may join it
    start: int = 0  # span of the chunk's pieces in the section text (naive_merge_offsets)
    end: int = 0

    @property
    def text(self) -> str:
        return self.prefix + self.body


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


# ---------------------------------------------------------------------------------------------
# HARD_CAP (a ragchunk extension; v0.27 only). Mirrors rust/ragflow/merge/hard_cap.rs rule for
# rule: the two backends must return the same chunks, so the character classes are spelled out.
# ---------------------------------------------------------------------------------------------

# A fixed whitespace set: str.isspace and Rust's char::is_whitespace differ (U+001C-U+001F).
_WS = frozenset(
    " \t\n\x0b\x0c\r\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
# After an ASCII terminator a sentence ends only where whitespace follows; after a
# full-width one it always ends.
_TERM = frozenset(".!?。！？")
_CJK_TERM = frozenset("。！？")
_TAG_CLASS = frozenset("\t0123456789.-")
_SENTENCE, _WORD, _ATOM = 0, 1, 2

_Atom = tuple[int, int, str]  # (start, end, the character; "" for a position tag)


def _tag_len(text: str, i: int) -> int:
    """Length of a position tag ``@@[\\t0-9.-]+##`` starting at ``i``, else 0."""
    if not text.startswith("@@", i):
        return 0
    j = i + 2
    while j < len(text) and text[j] in _TAG_CLASS:
        j += 1
    return j + 2 - i if j > i + 2 and text.startswith("##", j) else 0


def _atoms(piece: str) -> list[_Atom]:
    """Indivisible units: code points, and whole position tags found in the text."""
    atoms: list[_Atom] = []
    i = 0
    while i < len(piece):
        n = _tag_len(piece, i)
        if n:
            atoms.append((i, i + n, ""))
            i += n
        else:
            atoms.append((i, i + 1, piece[i]))
            i += 1
    return atoms


def _units(atoms: list[_Atom], lo: int, hi: int, level: int) -> list[tuple[int, int]]:
    """Consecutive units of atoms ``lo..hi`` at ``level``, as atom-index ranges."""
    if level == _ATOM:
        return [(i, i + 1) for i in range(lo, hi)]

    def ws(i: int) -> bool:
        return atoms[i][2] in _WS

    def term(i: int) -> bool:
        return atoms[i][2] in _TERM

    out: list[tuple[int, int]] = []
    start = i = lo
    while i < hi:
        if not (term(i) if level == _SENTENCE else ws(i)):
            i += 1
            continue
        j = i
        if level == _SENTENCE:
            while j < hi and term(j):
                j += 1
        cjk = level == _SENTENCE and atoms[j - 1][2] in _CJK_TERM
        k = j
        while k < hi and ws(k):
            k += 1
        if k < hi and i > start and (k > j or cjk or level == _WORD):
            out.append((start, k))
            start = k
        i = max(k, i + 1)
    if start < hi:
        out.append((start, hi))
    return out


def _gallop(lo: int, n: int, fits: Callable[[int], bool]) -> int:
    """The largest verified ``k`` in ``lo..n`` (``fits(lo)`` holds): gallop, then bisect.

    Token counts are not monotone in text length, so this is the ``k`` these probes find,
    the same in both backends, not necessarily the longest that fits.
    """
    step = 1
    while True:
        if lo >= n:
            return n
        probe = min(lo + step, n)
        if fits(probe):
            lo = probe
            step *= 2
        else:
            hi = probe
            break
    while hi - lo > 1:
        mid = lo + (hi - lo) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _settle(lo: int, k0: int, n: int, fits: Callable[[int], bool]) -> int:
    """:func:`_gallop` from an estimate ``k0`` (``fits(lo)`` known, never re-probed): probe
    ``k0``; gallop up from it when it fits, else down (``k0 - 1``, ``- 2``, ``- 4``...) and bisect.
    """
    if k0 <= lo:
        return _gallop(lo, n, fits)
    if fits(k0):
        return _gallop(k0, n, fits)
    hi = k0
    step = 1
    while True:
        probe = max(hi - step, lo)
        if probe == lo or fits(probe):
            good = probe
            break
        hi = probe
        step *= 2
    while hi - good > 1:
        mid = good + (hi - good) // 2
        if fits(mid):
            good = mid
        else:
            hi = mid
    return good


def _chunk_body(paragraphs: Sequence[_Paragraph]) -> str:
    """A v0.27 chunk body: the paragraphs, each section's pos after its first paragraph."""
    body = ""
    for paragraph in paragraphs:
        body += paragraph.text
        if paragraph.pos and paragraph.pos not in body:
            body += paragraph.pos
    return body


class _Packer:
    """Cuts one oversized piece into fragments that each fit alone, coarsest level first."""

    def __init__(self, piece: str, pos: str, fits: Callable[[str], bool]) -> None:
        self.piece = piece
        self.pos = pos
        self.fits = fits
        self.atoms = _atoms(piece)
        self.out: list[tuple[int, int]] = []

    def fragment_fits(self, a: int, b: int) -> bool:
        chunk = "\n" + self.piece[self.atoms[a][0] : self.atoms[b - 1][1]]
        if self.pos and self.pos not in chunk:
            chunk += self.pos
        return self.fits(chunk)

    def pack(self, lo: int, hi: int, level: int) -> None:
        units = _units(self.atoms, lo, hi, level)
        i = 0
        while i < len(units):
            a, b = units[i]
            if not self.fragment_fits(a, b):
                if level < _ATOM:
                    self.pack(a, b, level + 1)
                else:
                    # A single atom over the cap: the documented exception, it stands alone.
                    self.out.append((self.atoms[a][0], self.atoms[b - 1][1]))
                i += 1
                continue
            first = i

            def run_fits(k: int) -> bool:
                return self.fragment_fits(a, units[first + k - 1][1])  # noqa: B023 (called now)

            k = _gallop(1, len(units) - i, run_fits)
            self.out.append((self.atoms[a][0], self.atoms[units[i + k - 1][1] - 1][1]))
            i += k


def _shrink_prefix(prefix: str, body: str, chunk_token_num: float, count: Counter) -> str:
    """The longest verified tail of ``prefix`` with ``tail + body`` within the cap."""
    if not prefix:
        return ""
    body_tokens = count(body)
    if body_tokens > chunk_token_num:
        return ""
    n = len(prefix)
    # First guess: the share of the prefix the room left would hold if tokens were spread
    # evenly (the same float arithmetic as rust/ragflow/merge/hard_cap.rs).
    room = float(math.floor(chunk_token_num)) - body_tokens
    prefix_tokens = float(count(prefix))
    guess = n if prefix_tokens <= room else min(math.floor(n * room / prefix_tokens), n)
    keep = _settle(0, guess, n, lambda k: count(prefix[n - k :] + body) <= chunk_token_num)
    return prefix[n - keep :]


def _hard_cap(
    paragraphs: list[_Paragraph], chunk_token_num: float, overlapped_percent: float, count: Counter
) -> list[_Chunk]:
    """HARD_CAP: no chunk, as returned, counts more than ``chunk_token_num``.

    1. A paragraph that does not fit alone is cut into fragments that do (sentences, then
       words, then atoms; see :class:`_Packer`); each fragment is a paragraph of its own.
    2. Paragraphs are grouped greedily, each candidate chunk rebuilt and recounted.
    3. The v0.27 overlap prefix is cut down to its longest tail that still fits.
    """

    def fits(text: str) -> bool:
        return count(text) <= chunk_token_num

    def alone(text: str, pos: str) -> int:  # the tokens of the chunk one paragraph makes
        return count(text + (pos if pos and pos not in text else ""))

    expanded: list[_Paragraph] = []
    sizes: list[int] = []
    for paragraph in paragraphs:
        piece, pos = paragraph.text[1:], paragraph.pos or ""
        size = alone(paragraph.text, pos)
        packer = _Packer(piece, pos, fits) if size > chunk_token_num else None
        if packer is None or len(packer.atoms) <= 1:
            # fits, or one atom that cannot be cut: it stays whole, even over the cap
            expanded.append(paragraph)
            sizes.append(size)
            continue
        packer.pack(0, len(packer.atoms), _SENTENCE)
        for a, b in packer.out:
            fragment = "\n" + piece[a:b]
            expanded.append(
                _Paragraph(fragment, paragraph.pos, paragraph.source, paragraph.start + a)
            )
            sizes.append(alone(fragment, pos))

    chunks: list[_Chunk] = []
    i = 0
    while i < len(expanded):
        if sizes[i] <= chunk_token_num:
            # first guess: the most paragraphs whose counts alone sum within the cap
            k0, total = 1, sizes[i]
            while i + k0 < len(expanded) and total + sizes[i + k0] <= chunk_token_num:
                total += sizes[i + k0]
                k0 += 1
            first = i

            def group_fits(k: int) -> bool:
                return fits(_chunk_body(expanded[first : first + k]))  # noqa: B023 (called now)

            k = _settle(1, k0, len(expanded) - i, group_fits)
        else:
            k = 1  # an over-cap atom: stands alone
        group = expanded[i : i + k]
        body = _chunk_body(group)
        prefix = overlap_prefix(chunks[-1].text, overlapped_percent) if chunks else ""
        last = group[-1]
        chunks.append(
            _Chunk(
                _shrink_prefix(prefix, body, chunk_token_num, count),
                body,
                0,
                [p.source for p in group],
                start=group[0].start,
                end=last.start + len(last.text) - 1,
            )
        )
        i += k
    return chunks


def _custom_chunks(
    sections: Sequence[Section], delimiters: list[str], keep_empty: bool, count: Counter
) -> tuple[list[str], list[list[int]]]:
    """Custom mode: every segment between delimiters is its own chunk ``"\\n" + segment``.

    ``chunk_token_num`` and the overlap play no part. The section's pos is
    appended when the chunk has at least 8 tokens and does not contain it yet.
    """
    chunks: list[str] = []
    sources: list[list[int]] = []
    for index, (text, pos) in enumerate(sections):
        for piece, is_delimiter in split_keeping_delimiters(text, delimiters):
            if is_delimiter or (not piece and not keep_empty):
                continue
            chunk = "\n" + piece
            if pos and pos not in chunk and count(chunk) >= 8:
                chunk += pos
            chunks.append(chunk)
            sources.append([index])
    return chunks, sources


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
