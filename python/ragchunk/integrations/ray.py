"""Chunk a Ray Data dataset: one output row per chunk, the Arrow path on every worker.

:class:`ChunkBatches` is a callable class for ``Dataset.map_batches(...,
batch_format="pyarrow")``: Ray builds it once per actor, so the chunker is unpickled (and its
compiled core configured) once per worker, not once per batch. :func:`chunk_dataset` is the
one-call form, with an actor pool sized to leave the read tasks a CPU.

Pool size: Ray Data runs the read tasks (``read_parquet``...) and the actors of
``map_batches`` on the same CPUs. A pool of actors holding every CPU of the cluster (two actors
of one CPU on a two-CPU node) leaves no CPU for the read tasks that feed them, and the
pipeline waits forever. :func:`chunk_dataset` therefore uses one actor less than the cluster's
CPUs (at least one); give ``concurrency`` yourself on a bigger cluster.

Needs ``ray[data]`` and ``pyarrow`` (``pip install 'ragchunk[ray]'``); files (PDF, DOCX...)
in a binary column also need the ``documents`` extra.

>>> import ragchunk
>>> fn = ChunkBatches(ragchunk.CharacterSplitter(4), id_columns=["id"])
>>> import pyarrow as pa
>>> fn(pa.table({"id": [1], "text": ["abcdef"]}))["text"].to_pylist()
['abcd', 'ef']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.chunk import Splitter
from ..core.optional import load
from ..io.arrow import chunk_table
from ..ragflow.pipeline import SplitterComponent

__all__ = ["ChunkBatches", "chunk_dataset", "default_concurrency"]


class ChunkBatches:
    """``batch -> chunk table``: :func:`ragchunk.io.arrow.chunk_table` as a callable class
    for ``map_batches``; the arguments are :func:`~ragchunk.io.arrow.chunk_table`'s.

    ``workers`` (threads inside one actor) defaults to 1: Ray runs one actor per CPU it
    gives, and more threads per actor would oversubscribe them.

    >>> import ragchunk
    >>> ChunkBatches(ragchunk.SentenceSplitter(64)).text_column
    'text'
    """

    def __init__(
        self,
        chunker: Splitter | SplitterComponent,
        text_column: str = "text",
        id_columns: Sequence[str] | str = (),
        on_null: str = "error",
        workers: int | None = 1,
        filename_column: str | None = None,
    ) -> None:
        self.chunker = chunker
        self.text_column = text_column
        self.id_columns = id_columns
        self.on_null = on_null
        self.workers = workers
        self.filename_column = filename_column

    def __call__(self, batch: Any) -> Any:
        """The chunk rows of one batch (a ``pyarrow.Table``)."""
        return chunk_table(
            batch,
            self.chunker,
            self.text_column,
            self.id_columns,
            on_null=self.on_null,
            workers=self.workers,
            filename_column=self.filename_column,
        )


def default_concurrency(cpus: float | None = None) -> int:
    """Actors for :func:`chunk_dataset`: one less than the cluster's CPUs, at least one
    (see the module docstring). ``cpus`` defaults to the running cluster's.

    >>> default_concurrency(2), default_concurrency(8), default_concurrency(1)
    (1, 7, 1)
    """
    if cpus is None:
        ray = load("ray", "ragchunk.integrations.ray")
        cpus = ray.cluster_resources().get("CPU", 1)
    return max(1, int(cpus) - 1)


def chunk_dataset(
    ds: Any,
    chunker: Splitter | SplitterComponent,
    text_column: str = "text",
    id_columns: Sequence[str] | str = (),
    *,
    on_null: str = "error",
    concurrency: int | None = None,
    batch_size: int | None = 256,
    workers: int | None = 1,
    filename_column: str | None = None,
) -> Any:
    """``ds`` chunked: a lazy ``ray.data.Dataset`` of chunk rows (the columns of
    :func:`~ragchunk.io.arrow.chunk_table`), ``concurrency`` actors of one CPU each (default:
    :func:`default_concurrency`), ``batch_size`` documents per batch.

    Files' bytes in a binary ``text_column`` (``ray.data.read_binary_files(...,
    include_paths=True)`` gives ``bytes`` and ``path``) are parsed on the actors, each file
    once, with ``filename_column`` giving their formats (see
    :func:`~ragchunk.io.arrow.chunk_table`); give a smaller ``batch_size`` for big files.

    >>> import ray, ragchunk  # doctest: +SKIP
    >>> ds = ray.data.read_parquet("corpus/")  # doctest: +SKIP
    >>> chunk_dataset(ds, ragchunk.RecursiveSplitter(512), id_columns=["doc_id"]).write_parquet(
    ...     "chunks/"
    ... )  # doctest: +SKIP
    """
    ActorPoolStrategy = load("ray.data", "ragchunk.integrations.ray").ActorPoolStrategy

    if concurrency is None:
        concurrency = default_concurrency()
    return ds.map_batches(
        ChunkBatches,
        fn_constructor_kwargs={
            "chunker": chunker,
            "text_column": text_column,
            "id_columns": id_columns,
            "on_null": on_null,
            "workers": workers,
            "filename_column": filename_column,
        },
        batch_format="pyarrow",
        batch_size=batch_size,
        compute=ActorPoolStrategy(size=concurrency),
        num_cpus=1,
        zero_copy_batch=True,
    )
