"""Chunking a scientific paper that a layout parser has already cut into typed sections.

RAGFlow's "paper" chunking (``rag/app/paper.py``) treats the parts of a paper differently: the
abstract is one chunk whatever its length, tables and figures become chunks of their own, and
the body text is grouped by section. :func:`chunk_paper` does the same from sections you give
it, so it works with any parser (DeepDOC, MinerU, GROBID, Docling...): the body goes through
:func:`ragchunk.naive_merge`, so its chunk boundaries are RAGFlow's.

Input: a list of :class:`PaperSection` (or dicts with the same keys, ``"type"`` accepted for
``"kind"``), in reading order. Each has a ``kind``:

========== ===========================================================================
``abstract`` one chunk, never split, whatever its size
``title``    a section heading; by default it starts a new chunk (``break_at_titles``)
``text``     body text, merged with its neighbours by ``naive_merge``
``table``    one chunk: caption, then the table; an HTML ``<table>`` is written as
             sentences (:func:`ragchunk.tables.table_to_text`) and, when it exceeds the
             budget, cut between rows with the caption and header repeated in every chunk
``figure``   one chunk: caption, then the figure's text (OCR, description), never split
========== ===========================================================================
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, cast

from .association import _position, _position_tag
from .merge import MergeStrategy, _prepare, naive_merge_with_positions
from .positions import Position, extract_positions, remove_tag
from .tables import chunk_table, table_to_text
from .tokens import ragflow_counter

__all__ = ["PAPER_DELIMITER", "SECTION_KINDS", "PaperChunk", "PaperSection", "chunk_paper"]

SectionKind = Literal["abstract", "title", "text", "table", "figure"]
SECTION_KINDS: tuple[str, ...] = ("abstract", "title", "text", "table", "figure")
"""The section kinds :func:`chunk_paper` understands."""

PAPER_DELIMITER = "\n!?\u3002\uff1b\uff01\uff1f"
"""RAGFlow's paper delimiter field: RAGFlow's default (newline, ideographic full stop,
full-width semicolon, exclamation and question marks) plus ASCII ``!`` and ``?``."""

_HTML_TABLE = re.compile(r"<table\b", re.IGNORECASE)


@dataclass(frozen=True)
class PaperSection:
    """One section of a paper, as a layout parser found it.

    Args:
        kind: one of :data:`SECTION_KINDS`.
        text: the section's text. It may already carry RAGFlow position tags (DeepDOC's
            paper sections do); they are read as positions and never appear in chunk text.
        positions: where the section is: a RAGFlow tag string, or a list of
            ``(pages, left, right, top, bottom)`` where ``pages`` is a list of 0-based page
            indexes (:func:`ragchunk.extract_positions`' shape) or an int 1-based page
            number (RAGFlow parser JSON). Stored as ``Position`` tuples.
        caption: a table's or figure's caption. Other kinds refuse one (``ValueError``)
            rather than drop it.

    Raises:
        TypeError, ValueError: a bad field (the message names it).

    >>> PaperSection("figure", "", [(2, 50, 300, 400, 600)], caption="Figure 3: Loss.")
    PaperSection(kind='figure', text='', positions=(([1], 50.0, 300.0, 400.0, 600.0),), \
caption='Figure 3: Loss.')
    """

    kind: SectionKind
    text: str
    positions: tuple[Position, ...] | Sequence[Any] | str = ()
    caption: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str):
            raise TypeError(f"kind must be a str, got {type(self.kind).__name__}")
        if self.kind not in SECTION_KINDS:
            raise ValueError(f"kind must be one of {', '.join(SECTION_KINDS)}, got {self.kind!r}")
        if not isinstance(self.text, str):
            raise TypeError(f"text must be a str, got {type(self.text).__name__}")
        if self.caption is not None:
            if not isinstance(self.caption, str):
                raise TypeError(f"caption must be a str or None, got {type(self.caption).__name__}")
            if self.kind not in ("table", "figure"):
                raise ValueError(
                    f"caption is only for table and figure sections, not {self.kind!r}"
                )
        object.__setattr__(self, "positions", _positions(self.positions))


def _positions(value: object) -> tuple[Position, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(extract_positions(value))
    if not isinstance(value, (list, tuple)):
        raise TypeError(
            f"positions must be a tag str or a list of positions, got {type(value).__name__}"
        )
    return tuple(_position(p, f"positions[{k}]", page_numbers=True) for k, p in enumerate(value))


class PaperChunk(TypedDict):
    """One chunk from :func:`chunk_paper`.

    * ``content``: the text, position tags removed, surrounding whitespace stripped.
    * ``kind``: ``"abstract"``, ``"text"`` (body and headings), ``"table"`` or ``"figure"``.
    * ``positions``: ``([page indexes], left, right, top, bottom)`` tuples, pages 0-based.
      For body text these are the tags ``naive_merge`` carried into the chunk; a table cut
      into several chunks gives each the whole table's positions.
    * ``token_count``: tokens in ``content`` with the chosen tokenizer (RAGFlow's
      convention: 0 for text holding a special token).

    >>> chunk_paper([PaperSection("text", "Results are good.")])[0]
    {'content': 'Results are good.', 'kind': 'text', 'positions': [], 'token_count': 4}
    """

    content: str
    kind: str
    positions: list[Position]
    token_count: int


def _section(value: object, index: int) -> PaperSection:
    if isinstance(value, PaperSection):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(
            f"sections[{index}] must be a PaperSection or a dict, got {type(value).__name__}"
        )
    if "kind" not in value and "type" not in value:
        raise TypeError(f"sections[{index}] has no 'kind' (or 'type') key")
    try:
        return PaperSection(
            kind=value.get("kind", value.get("type")),
            text=value.get("text", ""),
            positions=value.get("positions", ()),
            caption=value.get("caption"),
        )
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"sections[{index}]: {exc}") from None


def chunk_paper(
    sections: Sequence[PaperSection | Mapping[str, Any]],
    chunk_token_num: int | float = 512,
    delimiter: str | None = PAPER_DELIMITER,
    overlapped_percent: int | float = 0,
    *,
    break_at_titles: bool = True,
    tables_as_text: bool = True,
    strategy: MergeStrategy | str = MergeStrategy.OVER_CAP,
    tokenizer: Any = "cl100k_base",
    compat: str = "v0.27",
) -> list[PaperChunk]:
    """Chunk a paper's typed sections, in reading order.

    * ``abstract``: one chunk, never split, whatever ``chunk_token_num`` says.
    * ``title`` and ``text``: merged by :func:`ragchunk.naive_merge` with the given budget,
      delimiter and overlap; with ``break_at_titles`` (default) each heading starts a new
      group, so no chunk spans two sections of the paper.
    * ``table``: caption and table together. With ``tables_as_text`` an HTML ``<table>`` is
      written one sentence per cell and, if over budget, cut between rows by
      :func:`ragchunk.tables.chunk_table` with the caption (explicit, else the HTML
      ``<caption>``) and the column names repeated in every piece; any other table text is
      one chunk.
    * ``figure``: caption and figure text in one chunk.

    Abstract, table and figure sections also end the body group before them, so body text
    never merges across them; a group holding only headings is not emitted there but joins
    the text that follows (``"3 Results"`` just before its table stays with the results
    text after the table), and consecutive headings stay together.

    No text is lost: every character of every section and caption is in some chunk, except
    position tags, the delimiter characters ``naive_merge`` cuts at, whitespace, and the
    markup of HTML tables.

    Args:
        sections: :class:`PaperSection` objects or dicts with ``kind`` (or ``type``),
            ``text``, and optionally ``positions`` and ``caption``.
        chunk_token_num, delimiter, overlapped_percent, strategy, tokenizer, compat: as
            :func:`ragchunk.naive_merge`. The delimiter defaults to RAGFlow's paper
            delimiter, :data:`PAPER_DELIMITER`.
        break_at_titles: start a new body chunk at every ``title`` section.
        tables_as_text: write HTML tables as sentences (else keep the HTML, one chunk).

    Returns:
        :class:`PaperChunk` dicts in reading order.

    Raises:
        TypeError, ValueError: a bad argument or section (named, as in ``sections[2]``).

    >>> paper = [
    ...     {"kind": "abstract", "text": "We study chunking.",
    ...      "positions": [(1, 70, 540, 200, 260)]},
    ...     {"kind": "title", "text": "1 Introduction"},
    ...     {"kind": "text", "text": "Retrieval needs good chunks."},
    ...     {"kind": "figure", "text": "", "caption": "Figure 1: Pipeline."},
    ... ]
    >>> for c in chunk_paper(paper):
    ...     print(c["kind"], repr(c["content"]), c["positions"])
    abstract 'We study chunking.' [([0], 70.0, 540.0, 200.0, 260.0)]
    text '1 Introduction\\nRetrieval needs good chunks.' []
    figure 'Figure 1: Pipeline.' []
    """
    if isinstance(sections, (str, bytes)) or not isinstance(sections, Sequence):
        raise TypeError(
            f"sections must be a list of PaperSection or dicts, got {type(sections).__name__}"
        )
    for name, flag in (("break_at_titles", break_at_titles), ("tables_as_text", tables_as_text)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, got {type(flag).__name__}")
    ctn, _, _, _, _, tok = _prepare(
        chunk_token_num, delimiter, overlapped_percent, strategy, compat, tokenizer
    )
    parsed = [_section(s, i) for i, s in enumerate(sections)]
    count = ragflow_counter(tok)
    table_budget = max(1, math.floor(ctn))

    out: list[PaperChunk] = []
    body: list[tuple[str, str]] = []
    headings_only = True  # the body group holds nothing but headings (so far)

    def emit(content: str, kind: str, positions: list[Position]) -> None:
        content = content.strip()
        if content:
            out.append(
                {
                    "content": content,
                    "kind": kind,
                    "positions": positions,
                    "token_count": count(content),
                }
            )

    def flush(final: bool = False) -> None:
        nonlocal headings_only
        # A group of headings alone ("3 Results" right before its table) is not a chunk of
        # its own: it waits for the text that follows, unless the paper ends there.
        if body and (final or not headings_only):
            merged = naive_merge_with_positions(
                body,
                chunk_token_num,
                delimiter,
                overlapped_percent,
                strategy,
                tokenizer=tokenizer,
                compat=compat,
            )
            for text, positions in merged:
                emit(text, "text", positions)
            body.clear()
            headings_only = True

    for i, sec in enumerate(parsed):
        where = f"sections[{i}]"
        sec_positions = cast(tuple[Position, ...], sec.positions)  # normalised in __post_init__
        tag = "".join(_position_tag(p, f"{where} positions") for p in sec_positions)
        if sec.kind in ("title", "text"):
            if sec.kind == "title" and break_at_titles:
                flush()
            body.append((sec.text, tag))
            if sec.kind == "text":
                headings_only = False
            continue
        flush()
        positions = list(sec_positions) + extract_positions(sec.text)
        if sec.kind == "abstract":
            emit(remove_tag(sec.text), "abstract", positions)
        elif sec.kind == "table" and tables_as_text and _HTML_TABLE.search(sec.text):
            try:
                pieces = chunk_table(
                    remove_tag(sec.text), table_budget, caption=sec.caption, tokenizer=tokenizer
                )
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
            for piece in pieces:
                emit(piece, "table", positions)
            if not pieces:  # a table without data cells: keep its caption
                emit(table_to_text(remove_tag(sec.text), caption=sec.caption), "table", positions)
        else:
            parts = [sec.caption or "", remove_tag(sec.text).strip()]
            emit("\n".join(p for p in parts if p.strip()), sec.kind, positions)
    flush(final=True)
    return out
