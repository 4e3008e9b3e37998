"""Chunk a Spark DataFrame: a ``mapInArrow`` function (the Arrow path on every executor)
and a Python UDTF for SQL.

:func:`chunk_dataframe` returns ``df`` chunked, one row per chunk, with the id columns you
name and the columns of :func:`ragchunk.io.arrow.chunk_table`; :func:`arrow_chunker` is the
function it gives ``mapInArrow``, for your own plans. :func:`chunk_udtf` is a table function
for SQL users::

    spark.udtf.register("chunks", chunk_udtf(ragchunk.RecursiveSplitter(512)))
    spark.sql("SELECT d.id, c.* FROM docs d, LATERAL chunks(d.text) c")

The executors' Python must be able to import ragchunk (``PYSPARK_PYTHON``). Needs
``pyspark`` and ``pyarrow`` (``pip install 'ragchunk[spark]'``).

>>> import ragchunk, pyarrow as pa
>>> fn = arrow_chunker(ragchunk.CharacterSplitter(4), id_columns=["id"])
>>> batches = fn(iter([pa.record_batch({"id": [1], "text": ["abcdef"]})]))
>>> [b.column("text").to_pylist() for b in batches]
[['abcd', 'ef']]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..core.chunk import Splitter
from ..core.optional import load, pyarrow
from ..io.arrow import chunk_table
from ..ragflow.pipeline import SplitterComponent

__all__ = ["UDTF_SCHEMA", "arrow_chunker", "chunk_dataframe", "chunk_udtf", "output_ddl"]

#: The chunk columns after the id columns, as Spark DDL.
UDTF_SCHEMA = (
    "chunk_index INT, text STRING, start BIGINT, `end` BIGINT, token_count BIGINT, metadata STRING"
)


def arrow_chunker(
    chunker: Splitter | SplitterComponent,
    text_column: str = "text",
    id_columns: Sequence[str] | str = (),
    *,
    on_null: str = "error",
    workers: int | None = 1,
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The ``mapInArrow`` function: record batches of documents in, record batches of chunks
    out. String columns come back in the string type Spark sent (``string`` or
    ``large_string``), as Spark checks.

    >>> import ragchunk
    >>> callable(arrow_chunker(ragchunk.SentenceSplitter(64)))
    True
    """

    def chunk_batches(batches: Iterator[Any]) -> Iterator[Any]:
        pa = pyarrow("ragchunk.integrations.spark")

        for batch in batches:
            table = chunk_table(
                batch, chunker, text_column, id_columns, on_null=on_null, workers=workers
            )
            text_type = batch.schema.field(text_column).type
            if pa.types.is_string(text_type) or pa.types.is_large_string(text_type):
                fields = [
                    pa.field(f.name, text_type, f.nullable) if f.name in ("text", "metadata") else f
                    for f in table.schema
                ]
                table = table.cast(pa.schema(fields))
            yield from table.to_batches()

    return chunk_batches


def output_ddl(df: Any, id_columns: Sequence[str] | str = ()) -> str:
    """The Spark DDL schema of :func:`chunk_dataframe`'s result for ``df``."""
    ids = [id_columns] if isinstance(id_columns, str) else list(id_columns)
    parts = [f"`{n}` {df.schema[n].dataType.simpleString()}" for n in ids]
    return ", ".join([*parts, UDTF_SCHEMA])


def chunk_dataframe(
    df: Any,
    chunker: Splitter | SplitterComponent,
    text_column: str = "text",
    id_columns: Sequence[str] | str = (),
    *,
    on_null: str = "error",
    workers: int | None = 1,
) -> Any:
    """``df`` chunked with ``mapInArrow``: the id columns, then ``chunk_index``, ``text``,
    ``start``, ``end``, ``token_count``, ``metadata``. ``workers`` is threads per Spark task
    (default 1: Spark runs one task per core).

    >>> import ragchunk  # doctest: +SKIP
    >>> chunks = chunk_dataframe(spark.read.parquet("corpus/"), ragchunk.RecursiveSplitter(512),
    ...                          id_columns=["doc_id"])  # doctest: +SKIP
    """
    fn = arrow_chunker(chunker, text_column, id_columns, on_null=on_null, workers=workers)
    return df.mapInArrow(fn, output_ddl(df, id_columns))


def chunk_udtf(chunker: Splitter | SplitterComponent) -> Any:
    """A Spark Python UDTF: ``chunks(text)`` yields one row per chunk (``UDTF_SCHEMA``); a
    null text yields no rows. Register it with ``spark.udtf.register(name, ...)``.

    >>> import ragchunk  # doctest: +SKIP
    >>> spark.udtf.register("chunks", chunk_udtf(ragchunk.RecursiveSplitter(512)))  # doctest: +SKIP
    """
    import json

    udtf = load("pyspark.sql.functions", "ragchunk.integrations.spark").udtf

    class Chunks:
        def eval(self, text: str | None) -> Iterator[tuple[Any, ...]]:
            if text is None:
                return
            if isinstance(chunker, SplitterComponent):
                for k, p in enumerate(chunker.invoke(text)):
                    meta = {"positions": p["positions"], "img_ids": p["img_ids"]}
                    yield (k, p["content"], None, None, p["token_count"], json.dumps(meta))
                return
            for k, c in enumerate(chunker.split(text)):
                meta_json = json.dumps(dict(c.metadata), ensure_ascii=False, default=str)
                yield (k, c.text, c.start, c.end, c.token_count, meta_json)

    return udtf(Chunks, returnType=UDTF_SCHEMA)
