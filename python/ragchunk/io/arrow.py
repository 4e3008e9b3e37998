"""Chunk an Arrow table: one output row per chunk, the documents read from the Arrow column
in place.

:func:`chunk_table` takes a ``pyarrow.Table``, a ``RecordBatch``, a ``RecordBatchReader`` or
anything that exports the Arrow C stream interface (``__arrow_c_stream__``: polars, DuckDB,
pandas 2.2+...), and returns a ``pyarrow.Table`` with the id columns you name, then
``chunk_index``, ``text``, ``start``, ``end`` (code-point offsets into the document),
``token_count`` and ``metadata`` (the chunk's metadata as a JSON object string).

For every splitter of the compiled core on the Rust backend (the character, token-window,
recursive, sentence, Markdown, HTML, code and title-tree chunkers), the documents are read
straight from the column's Arrow buffers, chunked in parallel with the GIL released, and the
chunk text and metadata are written into Arrow buffers: no Python ``str`` is made per document
or chunk. Every other chunker (a Python tokenizer, the semantic and LLM chunkers, the
pure-Python backend) runs its own ``split_batch`` over the column's values and the table is
built from the chunks; the result is the same, only slower.

Needs ``pyarrow`` (``pip install 'ragchunk[arrow]'``); ``import ragchunk`` does not.

>>> import pyarrow as pa
>>> from ragchunk import CharacterSplitter
>>> docs = pa.table({"id": [7, 8], "text": ["abcdef", "xyz"]})
>>> out = chunk_table(docs, CharacterSplitter(4), id_columns=["id"])
>>> out.column_names
['id', 'chunk_index', 'text', 'start', 'end', 'token_count', 'metadata']
>>> out.select(["id", "text", "start"]).to_pylist()
[{'id': 7, 'text': 'abcd', 'start': 0}, {'id': 7, 'text': 'ef', 'start': 4}, \
{'id': 8, 'text': 'xyz', 'start': 0}]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..core import dispatch
from ..core.chunk import Splitter, check_workers
from ..core.optional import pyarrow
from ..ragflow.pipeline import SplitterComponent

__all__ = ["OUTPUT_COLUMNS", "chunk_table", "has_arrow_path", "output_schema", "records_table"]

#: The columns every output table has after the id columns.
OUTPUT_COLUMNS = ("chunk_index", "text", "start", "end", "token_count", "metadata")

_ON_NULL = ("error", "skip")


def _pyarrow() -> Any:
    return pyarrow("ragchunk.io.arrow")


def output_schema(id_fields: Sequence[Any] = ()) -> Any:
    """The schema of :func:`chunk_table`'s result, after the given id fields.

    >>> output_schema().names
    ['chunk_index', 'text', 'start', 'end', 'token_count', 'metadata']
    """
    pa = _pyarrow()
    return pa.schema(
        [
            *id_fields,
            pa.field("chunk_index", pa.int32(), nullable=False),
            pa.field("text", pa.large_string(), nullable=False),
            pa.field("start", pa.int64()),
            pa.field("end", pa.int64()),
            pa.field("token_count", pa.int64(), nullable=False),
            pa.field("metadata", pa.string(), nullable=False),
        ]
    )


def has_arrow_path(chunker: object) -> bool:
    """True when ``chunker`` reads Arrow buffers in place on the active backend (else
    :func:`chunk_table` runs its ``split_batch`` over Python strings).

    >>> from ragchunk import JSONSplitter, MarkdownSplitter
    >>> has_arrow_path(MarkdownSplitter(64)) == (dispatch.name() == "rust")
    True
    >>> has_arrow_path(JSONSplitter(64))
    False
    """
    return _arrow_core(chunker) is not None


def _arrow_core(chunker: object) -> Any:
    if not isinstance(chunker, Splitter):
        return None
    try:
        obj = dispatch.compiled_object(chunker)
    except UnicodeEncodeError:  # an option with a lone surrogate: only Python runs it
        return None
    return obj if hasattr(obj, "split_arrow") else None


def _as_table(data: object) -> Any:
    pa = _pyarrow()
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if isinstance(data, pa.RecordBatchReader):
        return data.read_all()
    if hasattr(data, "__arrow_c_stream__"):
        return pa.table(data)
    raise TypeError(
        "table must be a pyarrow Table, RecordBatch or RecordBatchReader, or export "
        f"__arrow_c_stream__, got {type(data).__name__}"
    )


def chunk_table(
    table: object,
    chunker: Splitter | SplitterComponent,
    text_column: str = "text",
    id_columns: Sequence[str] | str = (),
    *,
    on_null: str = "error",
    workers: int | None = None,
    filename_column: str | None = None,
) -> Any:
    """Chunk every document of ``table[text_column]`` with ``chunker``: one row per chunk.

    Args:
        table: the documents (see the module docstring for the accepted types).
        chunker: any ragchunk chunker (a :class:`~ragchunk.Splitter` subclass) or a
            :class:`~ragchunk.SplitterComponent`; for the latter ``text`` is the pipeline chunk's
            ``content`` and ``start``/``end`` are null (RAGFlow's chunks are not slices).
        text_column: the column holding the documents (``string`` or ``large_string``).
        id_columns: columns copied to every chunk row of their document (a name or a list).
        on_null: ``"error"`` (default): a null or non-string document raises ``ValueError``
            naming its row; ``"skip"``: such rows produce no chunks.
        workers: threads for the batch (default: one per core).
        filename_column: a column of file names whose extensions give the formats of the
            files in ``text_column``. A ``binary`` (or ``large_binary``) ``text_column`` holds
            files' bytes: each is parsed with :func:`ragchunk.documents.parse` (the format from
            this column's name, else from the bytes) and chunked with
            :func:`ragchunk.documents.chunk_document`, so the ``metadata`` of each chunk holds
            its ``pages``, ``bboxes`` and ``headings``; a string ``text_column`` is parsed the
            same way when this column is given. Parsing runs in this process, one file after
            another (Ray and ``ragchunk chunk --documents`` spread files over processes).
            Needs the ``documents`` extra.

    Returns:
        A ``pyarrow.Table`` with the id columns, then :data:`OUTPUT_COLUMNS`, in document
        order then chunk order.

    Raises:
        ImportError: pyarrow is not installed.
        TypeError, ValueError: a bad argument, column or row (the message names it).

    >>> import pyarrow as pa
    >>> from ragchunk import RecursiveSplitter
    >>> t = pa.table({"doc": ["a", "b"], "text": ["One. Two. Three.", None]})
    >>> chunk_table(t, RecursiveSplitter(3, 0), id_columns="doc", on_null="skip")["text"]
    <pyarrow.lib.ChunkedArray object at ...>
    [
      [
        "One.",
        "Two.",
        "Three."
      ]
    ]
    """
    pa = _pyarrow()
    import pyarrow.compute as pc  # type: ignore[import-untyped]

    if not isinstance(chunker, (Splitter, SplitterComponent)):
        raise TypeError(
            f"chunker must be a ragchunk chunker (a Splitter or a SplitterComponent), "
            f"got {type(chunker).__name__}"
        )
    if on_null not in _ON_NULL:
        raise ValueError(f"on_null must be 'error' or 'skip', got {on_null!r}")
    check_workers(workers)
    tbl = _as_table(table)
    ids = [id_columns] if isinstance(id_columns, str) else list(id_columns)
    names = [filename_column] if filename_column is not None else []
    for name in [text_column, *ids, *names]:
        if not isinstance(name, str):
            raise TypeError(f"column names must be str, got {type(name).__name__}")
        if name not in tbl.column_names:
            raise ValueError(f"no column {name!r} in the table (columns: {tbl.column_names})")
    clash = [n for n in ids if n in OUTPUT_COLUMNS]
    if clash:
        raise ValueError(f"id_columns {clash} clash with the output columns {OUTPUT_COLUMNS}")

    column = tbl.column(text_column)
    binary = (
        pa.types.is_binary(column.type)
        or pa.types.is_large_binary(column.type)
        or pa.types.is_binary_view(column.type)
    )
    if binary or filename_column is not None:
        return _chunk_files(tbl, chunker, text_column, ids, on_null, filename_column)
    if pa.types.is_string_view(column.type):
        column = column.cast(pa.large_string())
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        if pa.types.is_null(column.type) and on_null == "skip":
            return output_schema([tbl.schema.field(n) for n in ids]).empty_table()
        raise TypeError(
            f"column {text_column!r} must hold strings (string or large_string) or files' "
            f"bytes (binary or large_binary), got {column.type}"
        )
    if column.null_count:
        valid = pc.is_valid(column)
        if on_null == "error":
            row = pc.index(valid, False).as_py()
            raise ValueError(
                f"column {text_column!r}, row {row}: the document is null "
                "(pass on_null='skip' to skip such rows)"
            )
        tbl = tbl.filter(valid)
        column = tbl.column(text_column)
    id_table = tbl.select(ids)
    id_fields = [tbl.schema.field(n) for n in ids]

    core_obj = _arrow_core(chunker)
    if core_obj is not None:
        return _chunk_in_place(core_obj, column, id_table, id_fields, workers)
    return _chunk_from_values(chunker, column, id_table, id_fields, workers)


def _chunk_in_place(
    core_obj: Any,
    column: Any,
    id_table: Any,
    id_fields: list[Any],
    workers: int | None,
) -> Any:
    pa = _pyarrow()
    import pyarrow.compute as pc

    def ints(kind: Any, n: int, data: bytes) -> Any:
        return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(data)])

    def large_strings(n: int, offsets: bytes, data: bytes) -> Any:
        return pa.Array.from_buffers(
            pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        )

    pieces: dict[str, list[Any]] = {k: [] for k in ("row", *OUTPUT_COLUMNS)}
    first_row = 0
    for arr in column.chunks:
        if len(arr) == 0:
            continue
        large = pa.types.is_large_string(arr.type)
        _, offsets, data = arr.buffers()
        if data is None:  # every value empty: no data buffer at all
            data = pa.py_buffer(b"")
        row, index, start, end, size, meta_offsets, meta, text_offsets, text = core_obj.split_arrow(
            data, offsets, arr.offset, len(arr), large, workers
        )
        n = len(index) // 4
        rows = ints(pa.uint32(), n, row)
        pieces["row"].append(pc.add(rows.cast(pa.int64()), first_row))
        pieces["chunk_index"].append(ints(pa.int32(), n, index))
        pieces["text"].append(large_strings(n, text_offsets, text))
        pieces["start"].append(ints(pa.int64(), n, start))
        pieces["end"].append(ints(pa.int64(), n, end))
        pieces["token_count"].append(ints(pa.int64(), n, size))
        pieces["metadata"].append(large_strings(n, meta_offsets, meta).cast(pa.string()))
        first_row += len(arr)
    rows = pa.chunked_array(pieces.pop("row"), type=pa.int64())
    columns = [id_table.column(i).take(rows) for i in range(id_table.num_columns)]
    schema = output_schema(id_fields)
    for name in OUTPUT_COLUMNS:
        columns.append(pa.chunked_array(pieces[name], type=schema.field(name).type))
    return pa.Table.from_arrays(columns, schema=schema)


def _chunk_from_values(
    chunker: Splitter | SplitterComponent,
    column: Any,
    id_table: Any,
    id_fields: list[Any],
    workers: int | None,
) -> Any:
    pa = _pyarrow()
    try:
        column.validate(full=True)  # bytes that are not UTF-8: pyarrow names the row
    except pa.ArrowInvalid as exc:
        raise ValueError(f"the text column is not valid UTF-8: {exc}") from None
    texts: list[str] = column.to_pylist()
    rows: list[int] = []
    out: dict[str, list[Any]] = {k: [] for k in OUTPUT_COLUMNS}
    if isinstance(chunker, SplitterComponent):
        for row, text in enumerate(texts):
            for k, c in enumerate(chunker.invoke(text)):
                rows.append(row)
                out["chunk_index"].append(k)
                out["text"].append(c["content"])
                out["start"].append(None)
                out["end"].append(None)
                out["token_count"].append(c["token_count"])
                meta = {"positions": c["positions"], "img_ids": c["img_ids"]}
                out["metadata"].append(json.dumps(meta, ensure_ascii=False))
    else:
        for row, chunks in enumerate(chunker.split_batch(texts, workers)):
            for k, chunk in enumerate(chunks):
                rows.append(row)
                out["chunk_index"].append(k)
                out["text"].append(chunk.text)
                out["start"].append(chunk.start)
                out["end"].append(chunk.end)
                out["token_count"].append(chunk.token_count)
                out["metadata"].append(
                    json.dumps(dict(chunk.metadata), ensure_ascii=False, default=str)
                )
    schema = output_schema(id_fields)
    take = pa.array(rows, type=pa.int64())
    columns = [id_table.column(i).take(take) for i in range(id_table.num_columns)]
    columns += [pa.array(out[n], type=schema.field(n).type) for n in OUTPUT_COLUMNS]
    return pa.Table.from_arrays(columns, schema=schema)


def _chunk_files(
    tbl: Any,
    chunker: Splitter | SplitterComponent,
    text_column: str,
    ids: list[str],
    on_null: str,
    filename_column: str | None,
) -> Any:
    """``chunk_table`` over files: each value parsed as a document, then chunked."""
    pa = _pyarrow()
    from ..documents import DocumentError, chunk_file

    if not isinstance(chunker, Splitter):
        raise TypeError(
            "chunker must be a Splitter to chunk parsed documents (a SplitterComponent "
            "chunks text only), got SplitterComponent"
        )
    column = tbl.column(text_column)
    kind = column.type
    if not any(
        check(kind)
        for check in (
            pa.types.is_binary,
            pa.types.is_large_binary,
            pa.types.is_binary_view,
            pa.types.is_string,
            pa.types.is_large_string,
            pa.types.is_string_view,
        )
    ):
        raise TypeError(
            f"column {text_column!r} must hold files' bytes (binary or large_binary) or "
            f"strings, got {kind}"
        )
    values = column.to_pylist()
    names: list[Any] = (
        tbl.column(filename_column).to_pylist()
        if filename_column is not None
        else [None] * len(values)
    )
    keep: list[int] = []
    records: list[list[dict[str, Any]]] = []
    for row, (value, name) in enumerate(zip(values, names, strict=True)):
        if value is None:
            if on_null == "error":
                raise ValueError(
                    f"column {text_column!r}, row {row}: the document is null "
                    "(pass on_null='skip' to skip such rows)"
                )
            continue
        if name is not None and not isinstance(name, str):
            raise TypeError(
                f"column {filename_column!r}, row {row}: file names must be strings, got "
                f"{type(name).__name__}"
            )
        data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
        try:
            records.append(chunk_file(data, name, chunker))
        except DocumentError as exc:  # it names the file; the row is named before it
            raise DocumentError(f"column {text_column!r}, row {row}", str(exc)) from exc
        keep.append(row)
    id_table = tbl.select(ids).take(pa.array(keep, type=pa.int64()))
    return records_table(id_table, records)


def records_table(id_table: Any, records: Sequence[Sequence[dict[str, Any]]]) -> Any:
    """The :func:`chunk_table` table of chunk records (``{"chunk_index", "text", "start",
    "end", "token_count", "metadata"}``, the metadata a dict), one list of records per row of
    ``id_table``, whose columns are copied to every chunk row of that document.

    >>> import pyarrow as pa
    >>> rec = {"chunk_index": 0, "text": "x", "start": 0, "end": 1, "token_count": 1,
    ...        "metadata": {"pages": [1]}}
    >>> records_table(pa.table({"id": [5]}), [[rec]]).select(["id", "metadata"]).to_pylist()
    [{'id': 5, 'metadata': '{"pages": [1]}'}]
    """
    pa = _pyarrow()
    if id_table.num_columns and id_table.num_rows != len(records):
        raise ValueError(
            f"records: one list per row of id_table ({id_table.num_rows}), got {len(records)}"
        )
    schema = output_schema(list(id_table.schema))
    rows: list[int] = []
    out: dict[str, list[Any]] = {k: [] for k in OUTPUT_COLUMNS}
    for row, chunks in enumerate(records):
        for rec in chunks:
            rows.append(row)
            for name in OUTPUT_COLUMNS:
                value = rec[name]
                if name == "metadata":
                    value = json.dumps(value, ensure_ascii=False, default=str)
                out[name].append(value)
    take = pa.array(rows, type=pa.int64())
    columns = [id_table.column(i).take(take) for i in range(id_table.num_columns)]
    columns += [pa.array(out[n], type=schema.field(n).type) for n in OUTPUT_COLUMNS]
    return pa.Table.from_arrays(columns, schema=schema)
