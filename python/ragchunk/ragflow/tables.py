"""Tables as text an embedding model can read, and chunks that never split a row.

A table flattened to its cell texts loses what each number means; written out as one sentence
per cell (``"Row 3, Price: 12.50"``) every chunk stays readable on its own. This is the idea
behind RAGFlow's table handling (its table parser writes ``"column: value"`` pairs per row);
the exact sentence shape here is ragchunk's own.

A table is given as any of:

* a list of dicts, one per row (the column order is the order keys are first seen);
* a list of lists whose first row is the header, or a list of data rows with ``header=``;
* a string holding one HTML ``<table>`` (parsed with the standard library's
  :mod:`html.parser`): header rows are the rows in ``<thead>``, else the leading rows made only
  of ``<th>`` cells, else the first row. ``rowspan``/``colspan`` are expanded: a column under
  stacked header cells is named by joining them (``"Score / Math"``); a data cell spanning
  rows is repeated in each row; a data cell spanning columns is one sentence naming all of
  them (``"Score / Math, Art"``). ``<caption>`` becomes the caption.

Cell text is stripped and its runs of whitespace (newlines included) become one space, so each
sentence is one line; empty cells (``None`` or blank) give no sentence. Missing header names
become ``"Column N"`` (1-based).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from .batch import count_tokens_batch
from .tokens import count_tokens

__all__ = ["chunk_table", "table_to_text"]

_SPACES = re.compile(r"\s+")
_MAX_SPAN = 1000  # browsers clip colspan at 1000 and rowspan at 65534; 1000 is plenty here


def _clean(value: object) -> str:
    if value is None:
        return ""
    return _SPACES.sub(" ", value if isinstance(value, str) else str(value)).strip()


@dataclass
class _Table:
    caption: str
    columns: list[str]
    # One entry per data row (empty rows included, to keep numbering): (column label, value).
    rows: list[list[tuple[str, str]]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------


@dataclass
class _Cell:
    text: list[str]
    is_th: bool
    rowspan: int
    colspan: int

    def value(self) -> str:
        return _clean("".join(self.text))


def _span(attrs: list[tuple[str, str | None]], name: str) -> int:
    for key, val in attrs:
        if key == name and val is not None:
            try:
                n = int(val.strip())
            except ValueError:
                return 1
            return min(max(n, 1), _MAX_SPAN)
    return 1


class _TableParser(HTMLParser):
    """Collects the rows of the outermost ``<table>``; nested tables become cell text."""

    _BREAKS = frozenset({"br", "p", "div", "li", "tr", "td", "th", "table", "hr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.tables = 0
        self.caption: list[str] = []
        self.in_caption = False
        self.section = "tbody"
        self.rows: list[tuple[str, list[_Cell]]] = []  # (section, cells)
        self.row: list[_Cell] | None = None
        self.cell: _Cell | None = None

    def _close_cell(self) -> None:
        if self.cell is not None:
            if self.row is None:
                self._open_row()
            assert self.row is not None
            self.row.append(self.cell)
            self.cell = None

    def _open_row(self) -> None:
        self.row = []
        self.rows.append((self.section, self.row))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                self.tables += 1
            elif self.cell is not None:
                self.cell.text.append(" ")
            return
        if self.depth != 1:
            if self.depth > 1 and self.cell is not None and tag in self._BREAKS:
                self.cell.text.append(" ")
            return
        if tag in ("thead", "tbody", "tfoot"):
            self._close_cell()
            self.row = None
            self.section = tag
        elif tag == "tr":
            self._close_cell()
            self._open_row()
        elif tag in ("td", "th"):
            self._close_cell()
            self.cell = _Cell([], tag == "th", _span(attrs, "rowspan"), _span(attrs, "colspan"))
        elif tag == "caption":
            self.in_caption = True
        elif self.cell is not None and tag in self._BREAKS:
            self.cell.text.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in ("td", "th", "tr", "table", "caption", "thead", "tbody", "tfoot"):
            return
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            if self.depth == 1:
                self._close_cell()
                self.row = None
            elif self.depth > 1 and self.cell is not None:
                self.cell.text.append(" ")
            self.depth = max(self.depth - 1, 0)
            return
        if self.depth != 1:
            return
        if tag in ("td", "th"):
            self._close_cell()
        elif tag == "tr":
            self._close_cell()
            self.row = None
        elif tag in ("thead", "tbody", "tfoot"):
            self._close_cell()
            self.row = None
            self.section = "tbody"
        elif tag == "caption":
            self.in_caption = False

    def handle_data(self, data: str) -> None:
        if self.depth == 0:
            return
        if self.in_caption and self.depth == 1:
            self.caption.append(data)
        elif self.cell is not None:
            self.cell.text.append(data)


def _parse_html(html: str, header: list[str] | None) -> _Table:
    parser = _TableParser()
    parser.feed(html)
    parser.close()
    parser._close_cell()
    if parser.tables == 0:
        raise ValueError("rows: a str must hold an HTML <table>, found none")
    if parser.tables > 1:
        raise ValueError(
            f"rows: the HTML holds {parser.tables} top-level <table> elements; "
            "pass one table at a time"
        )
    rows = [(section, cells) for section, cells in parser.rows if cells]

    # Lay the cells out on a grid, expanding rowspan/colspan (HTML's table model, clipped
    # to the table's own rows).
    grid: list[dict[int, int]] = [{} for _ in rows]
    cells: list[_Cell] = []
    for r, (_, row_cells) in enumerate(rows):
        c = 0
        for cell in row_cells:
            while c in grid[r]:
                c += 1
            cid = len(cells)
            cells.append(cell)
            for dr in range(min(cell.rowspan, len(rows) - r)):
                for dc in range(cell.colspan):
                    grid[r + dr].setdefault(c + dc, cid)
            c += cell.colspan
    width = max((max(g) + 1 for g in grid if g), default=0)

    n_head = 0
    if any(section == "thead" for section, _ in rows):
        while n_head < len(rows) and rows[n_head][0] == "thead":
            n_head += 1
    else:
        while (
            n_head < len(rows)
            and grid[n_head]
            and all(cells[cid].is_th for cid in grid[n_head].values())
        ):
            n_head += 1
        if n_head == 0 and header is None and rows:
            n_head = 1  # no header markup: the first row is the header, as for lists

    if header is not None:
        columns = _columns(header, width)
    else:
        columns = []
        for c in range(width):
            names: list[str] = []
            seen: set[int] = set()
            for r in range(n_head):
                hid = grid[r].get(c)
                if hid is None or hid in seen:
                    continue
                seen.add(hid)
                name = cells[hid].value()
                if name and (not names or names[-1] != name):
                    names.append(name)
            columns.append(" / ".join(names) or f"Column {c + 1}")

    def span_label(first: int, last: int) -> str:
        # A data cell over several columns: per header row, the distinct names above the
        # span joined by ", ", then the header rows joined by " / " ("Accuracy / MNLI, SST-2").
        if first == last:
            return columns[first]
        levels: list[str] = []
        if header is None:
            for r in range(n_head):
                names: list[str] = []
                for k in range(first, last + 1):
                    cid = grid[r].get(k)
                    name = cells[cid].value() if cid is not None else ""
                    if name and name not in names:
                        names.append(name)
                level = ", ".join(names)
                if level and (not levels or levels[-1] != level):
                    levels.append(level)
        if levels:
            return " / ".join(levels)
        return ", ".join(dict.fromkeys(columns[first : last + 1]))

    table = _Table(_clean("".join(parser.caption)), columns)
    for r in range(n_head, len(rows)):
        out: list[tuple[str, str]] = []
        c = 0
        while c < width:
            did = grid[r].get(c)
            if did is None:
                c += 1
                continue
            end = c
            while end + 1 < width and grid[r].get(end + 1) == did:
                end += 1
            value = cells[did].value()
            if value:
                out.append((span_label(c, end), value))
            c = end + 1
        table.rows.append(out)
    return table


# ---------------------------------------------------------------------------------------------
# Lists
# ---------------------------------------------------------------------------------------------


def _header(value: object) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"header must be a list of str or None, got {type(value).__name__}")
    names = []
    for i, name in enumerate(value):
        if not isinstance(name, str):
            raise TypeError(f"header[{i}] must be a str, got {type(name).__name__}")
        names.append(name)
    return names


def _columns(names: Sequence[object], width: int) -> list[str]:
    cols = [_clean(n) or f"Column {i + 1}" for i, n in enumerate(names)]
    cols += [f"Column {i + 1}" for i in range(len(cols), width)]
    return cols


def _parse(rows: object, header: object, caption: object) -> _Table:
    names = _header(header)
    if caption is not None and not isinstance(caption, str):
        raise TypeError(f"caption must be a str or None, got {type(caption).__name__}")
    if isinstance(rows, str):
        table = _parse_html(rows, names)
    elif isinstance(rows, Sequence) and not isinstance(rows, bytes):
        if rows and isinstance(rows[0], Mapping):
            for i, r in enumerate(rows):
                if not isinstance(r, Mapping):
                    raise TypeError(
                        f"rows[{i}] must be a dict like rows[0], got {type(r).__name__}"
                    )
            table = _parse_dicts(rows, names)
        else:
            for i, r in enumerate(rows):
                if isinstance(r, (str, bytes)) or not isinstance(r, Sequence):
                    raise TypeError(
                        f"rows[{i}] must be a list of cells like rows[0], got {type(r).__name__}"
                    )
            table = _parse_lists(rows, names)
    else:
        raise TypeError(
            "rows must be a list of dicts, a list of lists or an HTML <table> str, "
            f"got {type(rows).__name__}"
        )
    if caption is not None:
        table.caption = _clean(caption)
    return table


def _parse_dicts(rows: Sequence[Mapping[Any, Any]], header: list[str] | None) -> _Table:
    keyed = [{str(k): v for k, v in row.items()} for row in rows]
    order: list[str] = list(header) if header is not None else []
    for row in keyed:  # keys outside header= are kept, after it: no cell is dropped
        order += [k for k in row if k not in order]
    columns = _columns(order, len(order))
    table = _Table("", columns)
    for row in keyed:
        cells = [(col, _clean(row.get(key))) for key, col in zip(order, columns, strict=True)]
        table.rows.append([(col, v) for col, v in cells if v])
    return table


def _parse_lists(rows: Sequence[Sequence[Any]], header: list[str] | None) -> _Table:
    if header is None:
        if not rows:
            return _Table("", [])
        names: Sequence[object] = list(rows[0])
        data = rows[1:]
    else:
        names, data = header, rows
    width = max([len(names), *(len(r) for r in data)])
    table = _Table("", _columns(names, width))
    for row in data:
        cells = [(table.columns[c], _clean(v)) for c, v in enumerate(row)]
        table.rows.append([(col, v) for col, v in cells if v])
    return table


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


def _row_lines(number: int, row: list[tuple[str, str]]) -> list[str]:
    return [f"Row {number}, {col}: {value}" for col, value in row]


def table_to_text(
    rows: str | Sequence[Mapping[str, Any]] | Sequence[Sequence[Any]],
    header: Sequence[str] | None = None,
    *,
    caption: str | None = None,
) -> str:
    """Write a table as one line per non-empty cell: ``"Row <n>, <column>: <value>"``.

    Rows are numbered from 1, counting data rows only (a header row is not a row); an empty
    row keeps its number. The caption, when there is one, is the first line.

    Args:
        rows: a list of dicts; a list of lists (the first one is the header unless
            ``header`` is given); or an HTML string holding one ``<table>``.
        header: column names. For a list of lists every row is then data; for dicts it
            orders the columns (keys it does not name follow, in order of appearance); for
            HTML it replaces the header rows' names (rows marked up as header stay out of
            the data, and without such markup every row is data).
        caption: a caption line; replaces an HTML ``<caption>``.

    Returns:
        The lines joined with ``"\\n"``; ``""`` for a table without data cells or caption.

    Raises:
        TypeError: ``rows``, a row, ``header`` or ``caption`` of the wrong type.
        ValueError: a str without a ``<table>``, or with more than one.

    >>> print(table_to_text([{"Name": "Alice", "Age": 30}, {"Name": "Bob", "Age": None}]))
    Row 1, Name: Alice
    Row 1, Age: 30
    Row 2, Name: Bob
    >>> print(table_to_text([["城市", "人口"], ["上海", "2487万"]]))
    Row 1, 城市: 上海
    Row 1, 人口: 2487万
    >>> html = ('<table><tr><th rowspan="2">Name</th><th colspan="2">Score</th></tr>'
    ...         '<tr><th>Math</th><th>Art</th></tr>'
    ...         '<tr><td>Ann</td><td>90</td><td>85</td></tr></table>')
    >>> print(table_to_text(html))
    Row 1, Name: Ann
    Row 1, Score / Math: 90
    Row 1, Score / Art: 85
    """
    table = _parse(rows, header, caption)
    lines = [table.caption] if table.caption else []
    for n, row in enumerate(table.rows, start=1):
        lines += _row_lines(n, row)
    return "\n".join(lines)


def _budget(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"chunk_token_size must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"chunk_token_size must be > 0, got {value}")
    return value


def chunk_table(
    rows: str | Sequence[Mapping[str, Any]] | Sequence[Sequence[Any]],
    chunk_token_size: int = 512,
    header: Sequence[str] | None = None,
    *,
    caption: str | None = None,
    tokenizer: Any = "cl100k_base",
) -> list[str]:
    """Cut a table into chunks of whole rows, each chunk starting with the table's header.

    Every chunk is the caption line (if any), a ``"Columns: A | B | C"`` line, then the lines
    of :func:`table_to_text` for as many consecutive rows as fit in ``chunk_token_size``
    tokens, counted exactly on the whole chunk. Rows keep their numbers from the full table.
    A row is never split: a row that does not fit even alone stands alone in its chunk, which
    is then over budget (as is every chunk when the header lines alone exceed the budget).
    Rows without a non-empty cell are left out. (Chunking every document of an Arrow table
    is another function: :func:`ragchunk.io.arrow.chunk_table`.)

    Args:
        rows, header, caption: the table, as for :func:`table_to_text`.
        chunk_token_size: the token budget of a chunk (> 0).
        tokenizer: as everywhere in ragchunk: ``"cl100k_base"`` (default), ``"o200k_base"``,
            a ``tiktoken.Encoding``, a ``tokenizers.Tokenizer`` or a callable ``str -> int``.

    Returns:
        The chunk texts; ``[]`` for a table without data cells.

    Raises:
        TypeError, ValueError: as :func:`table_to_text`, and for a ``chunk_token_size``
            that is not a positive int or an unknown ``tokenizer``. Text holding a special
            token (``<|endoftext|>``) raises ``ValueError`` as :func:`ragchunk.count_tokens`.

    >>> rows = [["Item", "Qty"], ["Apples", 3], ["Pears", 5], ["Plums", 8]]
    >>> for chunk in chunk_table(rows, chunk_token_size=45):
    ...     print(chunk, end="\\n---\\n")
    Columns: Item | Qty
    Row 1, Item: Apples
    Row 1, Qty: 3
    Row 2, Item: Pears
    Row 2, Qty: 5
    ---
    Columns: Item | Qty
    Row 3, Item: Plums
    Row 3, Qty: 8
    ---
    """
    budget = _budget(chunk_token_size)
    count_tokens("", tokenizer)  # validates tokenizer before any work
    table = _parse(rows, header, caption)
    blocks = ["\n".join(_row_lines(n, row)) for n, row in enumerate(table.rows, 1) if row]
    if not blocks:
        return []
    preamble = ([table.caption] if table.caption else []) + [
        "Columns: " + " | ".join(table.columns)
    ]
    head = "\n".join(preamble)
    # Estimate with per-row counts (one batch call), then check every chunk exactly: BPE
    # counts are not always additive across the "\n" joins.
    costs = count_tokens_batch(["\n" + b for b in blocks], tokenizer)
    head_cost = count_tokens(head, tokenizer)

    chunks: list[str] = []
    i = 0
    while i < len(blocks):
        j, total = i + 1, head_cost + costs[i]
        while j < len(blocks) and total + costs[j] <= budget:
            total += costs[j]
            j += 1
        text = "\n".join([head, *blocks[i:j]])
        while j - i > 1 and count_tokens(text, tokenizer) > budget:
            j -= 1
            text = "\n".join([head, *blocks[i:j]])
        chunks.append(text)
        i = j
    return chunks
