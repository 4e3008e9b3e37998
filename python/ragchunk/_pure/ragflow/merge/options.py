"""Each release family's behaviour as named switches (twin of ``rust/ragflow/merge/options.rs``)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..delimiters import (
    backtick_tokens,
    legacy_delimiters,
    parse_delimiter_field,
)

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
