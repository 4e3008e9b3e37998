"""XLSX and CSV: one table section per sheet, or RAGFlow's one sentence per row.

A sheet's rows are its cell values as text (numbers as Python writes them, dates in ISO form,
empty cells ``""``); rows with no value and trailing empty columns are dropped. With
``rows_as_sentences=True`` every data row becomes a text section the way RAGFlow's Excel
parser writes it: ``"header：value; header：value"`` (a full-width colon, the header being the
first row), followed by ``" ——sheet"`` when the sheet's name is not a default ``Sheet...``
name.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
from collections.abc import Iterable
from typing import Any

from ..core.optional import load
from ._model import Section, table_text

__all__ = ["parse_csv", "parse_xlsx", "row_sentences"]


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, _dt.datetime) and value.time() == _dt.time(0):
        return value.date().isoformat()
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    return str(value).strip()


def _clean(rows: Iterable[Iterable[object]]) -> list[list[str]]:
    out = []
    for row in rows:
        cells = [_cell(v) for v in row]
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            out.append(cells)
    return out


def row_sentences(rows: list[list[str]], sheet: str | None = None) -> list[str]:
    """RAGFlow's row-as-sentence form of a table whose first row is the header.

    >>> row_sentences([["name", "age"], ["Ada", "36"]], "people")
    ['name：Ada; age：36 ——people']
    """
    if not rows:
        return []
    header = rows[0]
    out = []
    for row in rows[1:]:
        fields = [f"{header[i] if i < len(header) else ''}：{c}" for i, c in enumerate(row) if c]
        if not fields:
            continue
        line = "; ".join(fields)
        if sheet and "sheet" not in sheet.lower():
            line += " ——" + sheet
        out.append(line)
    return out


def _sections(rows: list[list[str]], sheet: str | None, sentences: bool) -> list[Section]:
    if not rows:
        return []
    meta = {"sheet": sheet} if sheet is not None else {}
    if sentences:
        return [Section("text", s, metadata=meta) for s in row_sentences(rows, sheet)]
    return [Section("table", table_text(rows), rows=rows, metadata=meta)]


def parse_xlsx(data: bytes, sentences: bool) -> tuple[list[Section], dict[str, Any]]:
    """The sections of an XLSX workbook (already checked by ``check_package``)."""
    openpyxl = load("openpyxl", "parsing XLSX")
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        sections: list[Section] = []
        for ws in book.worksheets:
            sections += _sections(_clean(ws.iter_rows(values_only=True)), ws.title, sentences)
        props = book.properties
        meta = {
            "title": props.title or None,
            "author": props.creator or None,
            "sheets": list(book.sheetnames),
        }
    finally:
        book.close()
    return sections, meta


def parse_csv(text: str, sentences: bool) -> tuple[list[Section], dict[str, Any]]:
    """The sections of a CSV (or TSV) text; the dialect is sniffed from its start."""
    sample = text[:65536]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = _clean(csv.reader(io.StringIO(text, newline=""), dialect))
    return _sections(rows, None, sentences), {}
