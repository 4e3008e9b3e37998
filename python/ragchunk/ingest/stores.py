"""The stores ``ingest`` writes to, the protocol they share, and the URLs that name them.

A store holds rows of :func:`row_schema`: the chunk ``id``, ``source_id``, ``chunk_index``,
``text``, ``start``/``end`` (code-point offsets into the source text), ``token_count``,
``heading_path``, ``pages`` and ``boxes`` (null where the chunker does not know them), the
chunker's ``config_hash``, the chunk's other ``metadata`` (a JSON object) and, when an
embedder is given, its ``vector``.

A chunk id is a hash of everything else in its row but the vector (which the configuration
hash's embedder name and the text determine), so one id always names one row: writing a row
again is a no-op, and a store never needs to compare rows, only ids.

=============================== ===========================================================
URL                             store
=============================== ===========================================================
``lancedb:DIR``                 :class:`LanceDBStore`, table ``chunks`` (``?table=NAME``)
``parquet:DIR``                 :class:`ParquetStore`: a Parquet dataset, a file per batch
``chroma:DIR``                  :class:`ChromaStore` on ``chromadb.PersistentClient(DIR)``
``chroma+http://HOST:PORT``     :class:`ChromaStore` on a Chroma server (``chroma run``)
=============================== ===========================================================

Chroma URLs take ``?collection=NAME`` (default ``ragchunk``). A store of your own is any
object with the methods of :class:`Store`.

>>> import tempfile
>>> store = open_store("parquet:" + tempfile.mkdtemp())
>>> store.read().num_rows
0
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..core.optional import load

__all__ = [
    "ChromaStore",
    "LanceDBStore",
    "ParquetStore",
    "Store",
    "open_store",
    "row_schema",
    "sorted_rows",
    "store_identity",
]

MANIFEST_NAME = "_ragchunk_manifest.sqlite"
_T = TypeVar("_T")


def _pa() -> Any:
    from ..core.optional import pyarrow as _pyarrow

    return _pyarrow()


def row_schema(dim: int | None = None) -> Any:
    """The Arrow schema of a store's rows; with ``dim``, a ``vector`` column of that size.

    >>> row_schema().names[:4]
    ['id', 'source_id', 'chunk_index', 'text']
    >>> str(row_schema(3).field("vector").type)
    'fixed_size_list<item: float>[3]'
    """
    pa = _pa()
    fields = [
        pa.field("id", pa.string(), nullable=False),
        pa.field("source_id", pa.string(), nullable=False),
        pa.field("chunk_index", pa.int32(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("start", pa.int64()),
        pa.field("end", pa.int64()),
        pa.field("token_count", pa.int64(), nullable=False),
        pa.field("heading_path", pa.list_(pa.string())),
        pa.field("pages", pa.list_(pa.int32())),
        pa.field("boxes", pa.list_(pa.list_(pa.float64()))),
        pa.field("config_hash", pa.string(), nullable=False),
        pa.field("metadata", pa.string(), nullable=False),
    ]
    if dim is not None:
        fields.append(pa.field("vector", pa.list_(pa.float32(), dim)))
    return pa.schema(fields)


def sorted_rows(table: Any) -> Any:
    """``table`` sorted by ``id``: the order in which two stores' rows are compared.

    >>> import pyarrow as pa
    >>> sorted_rows(pa.table({"id": ["b", "a"]}))["id"].to_pylist()
    ['a', 'b']
    """
    return table.sort_by("id") if table.num_rows else table


@runtime_checkable
class Store(Protocol):
    """What ``ingest`` needs of a store. Both writes must be idempotent: ``upsert`` of a row
    whose id is present leaves the store as it was (one id is one row), ``delete`` of an
    absent id does nothing; the store must never show half of one call's rows after a crash
    *unless* a repeat of the call completes them (each call is retried after a crash).

    >>> import tempfile
    >>> isinstance(ParquetStore(tempfile.mkdtemp()), Store)
    True
    """

    url: str

    def default_manifest(self) -> str | None:
        """Where the manifest lives when ``ingest`` is not told (None: it must be told)."""
        ...

    def upsert(self, rows: Any) -> None:
        """Write the rows (a ``pyarrow.Table`` of :func:`row_schema`)."""
        ...

    def delete(self, ids: Sequence[str]) -> None:
        """Remove the rows with these ids."""
        ...

    def read(self) -> Any:
        """Every row, as a ``pyarrow.Table`` sorted by id."""
        ...

    def close(self) -> None:
        """Release the store (after a run)."""
        ...


def _batches(items: Sequence[_T], size: int) -> Iterator[Sequence[_T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _quote(ids: Sequence[str]) -> str:
    return ", ".join("'" + i.replace("'", "''") + "'" for i in ids)


class LanceDBStore:
    """A LanceDB table (embedded, Arrow-native), written with ``merge_insert`` on ``id``.

    Each write is one Lance commit: a process killed during a write leaves the table at its
    previous version. With ``fts=True`` a full-text index on ``text`` is (re)built at the end
    of each run (:meth:`finish`).

    Needs ``lancedb`` (``pip install 'ragchunk[lancedb]'``).

    >>> import tempfile
    >>> LanceDBStore(tempfile.mkdtemp()).read().num_rows
    0
    """

    def __init__(
        self, path: str | os.PathLike[str], table: str = "chunks", *, fts: bool = False
    ) -> None:
        lancedb = load("lancedb", "the lancedb store")
        if not isinstance(table, str) or not table:
            raise ValueError(f"table must be a non-empty str, got {table!r}")
        self.path = os.fspath(path)
        self.table_name = table
        self.fts = fts
        self.url = f"lancedb:{self.path}"
        self._db = lancedb.connect(self.path)
        self._tbl: Any = None

    def __repr__(self) -> str:
        return f"LanceDBStore({self.path!r}, table={self.table_name!r})"

    def default_manifest(self) -> str:
        """``DIR/_ragchunk_manifest.sqlite``."""
        return os.path.join(self.path, MANIFEST_NAME)

    def _open(self) -> Any:
        if self._tbl is None:
            names = self._db.list_tables().tables
            if self.table_name in names:
                self._tbl = self._db.open_table(self.table_name)
        return self._tbl

    def upsert(self, rows: Any) -> None:
        """Insert the rows whose ids are new (one commit)."""
        if rows.num_rows == 0:
            return
        tbl = self._open()
        if tbl is None:
            tbl = self._tbl = self._db.create_table(
                self.table_name, schema=rows.schema, exist_ok=True
            )
        if not tbl.schema.equals(rows.schema):
            raise ValueError(
                f"{self.url}: the table's schema differs from the new rows' (a vector of "
                "another size, or none?); ingest into a new table or folder"
            )
        tbl.merge_insert("id").when_not_matched_insert_all().execute(rows)

    def delete(self, ids: Sequence[str]) -> None:
        """Delete the rows with these ids (a commit per 1000 ids)."""
        tbl = self._open()
        if tbl is None:
            return
        for part in _batches(list(ids), 1000):
            tbl.delete(f"id IN ({_quote(part)})")

    def read(self) -> Any:
        """Every row, sorted by id."""
        tbl = self._open()
        if tbl is None:
            return row_schema().empty_table()
        return sorted_rows(tbl.to_arrow())

    def finish(self) -> None:
        """Build the full-text index when ``fts`` is set."""
        if not self.fts:
            return
        tbl = self._open()
        if tbl is not None and tbl.count_rows():
            tbl.create_fts_index("text", replace=True)

    def close(self) -> None:
        """Nothing to release (kept for the protocol)."""
        self._tbl = None


class ParquetStore:
    """A folder of Parquet files, one per written batch, for lakes and Spark.

    A write goes to a temporary file that is renamed into place (a reader or a crash sees the
    whole file or none of it); a delete rewrites the files holding the ids the same way. Files
    whose names start with ``_`` or ``.`` (the manifest, temporaries) are skipped by pyarrow's
    and Spark's dataset readers. Needs only ``pyarrow``.

    >>> import tempfile, pyarrow as pa
    >>> store = ParquetStore(tempfile.mkdtemp())
    >>> rows = row_schema().empty_table()
    >>> store.upsert(rows); store.read().num_rows
    0
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.url = f"parquet:{self.path}"
        os.makedirs(self.path, exist_ok=True)
        for name in os.listdir(self.path):
            if name.startswith(".tmp-"):  # a write that a crash cut short
                os.unlink(os.path.join(self.path, name))
        self._where: dict[str, str] | None = None

    def __repr__(self) -> str:
        return f"ParquetStore({self.path!r})"

    def default_manifest(self) -> str:
        """``DIR/_ragchunk_manifest.sqlite``."""
        return os.path.join(self.path, MANIFEST_NAME)

    def files(self) -> list[str]:
        """The dataset's files, sorted."""
        return sorted(
            n for n in os.listdir(self.path) if n.endswith(".parquet") and n[0] not in "._"
        )

    def _index(self) -> dict[str, str]:
        if self._where is None:
            pq = load("pyarrow.parquet", "ragchunk.ingest's stores")

            where: dict[str, str] = {}
            for name in self.files():
                ids = pq.read_table(os.path.join(self.path, name), columns=["id"])["id"]
                where.update((i, name) for i in ids.to_pylist())
            self._where = where
        return self._where

    def _write(self, name: str, table: Any) -> None:
        pq = load("pyarrow.parquet", "ragchunk.ingest's stores")

        tmp = os.path.join(self.path, f".tmp-{os.getpid()}-{name}")
        pq.write_table(table, tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, os.path.join(self.path, name))

    def upsert(self, rows: Any) -> None:
        """Write the rows whose ids are new as one file."""
        pa = _pa()
        where = self._index()
        ids = rows["id"].to_pylist()
        keep = [i for i, x in enumerate(ids) if x not in where]
        if not keep:
            return
        new = rows.take(pa.array(keep, type=pa.int64()))
        digest = hashlib.sha256("\0".join(ids[i] for i in keep).encode()).hexdigest()[:20]
        name = f"part-{digest}.parquet"
        self._write(name, new)
        where.update((ids[i], name) for i in keep)

    def delete(self, ids: Sequence[str]) -> None:
        """Rewrite (or remove) each file holding some of the ids."""
        pc = load("pyarrow.compute", "ragchunk.ingest's stores")
        pq = load("pyarrow.parquet", "ragchunk.ingest's stores")

        pa = _pa()
        where = self._index()
        by_file: dict[str, set[str]] = {}
        for i in ids:
            name = where.get(i)
            if name is not None:
                by_file.setdefault(name, set()).add(i)
        for name, drop in sorted(by_file.items()):
            path = os.path.join(self.path, name)
            table = pq.read_table(path)
            kept = table.filter(pc.invert(pc.is_in(table["id"], pa.array(sorted(drop)))))
            if kept.num_rows:
                self._write(name, kept)
            else:
                os.unlink(path)
            for i in drop:
                del where[i]

    def read(self) -> Any:
        """Every row, sorted by id."""
        pq = load("pyarrow.parquet", "ragchunk.ingest's stores")

        pa = _pa()
        tables = [pq.read_table(os.path.join(self.path, n)) for n in self.files()]
        if not tables:
            return row_schema().empty_table()
        return sorted_rows(pa.concat_tables(tables))

    def close(self) -> None:
        """Forget the id index."""
        self._where = None


_CHROMA_LISTS = ("heading_path", "pages", "boxes")


class ChromaStore:
    """A Chroma collection, embedded (``chromadb.PersistentClient``) or on a server
    (``chromadb.HttpClient``). Chroma keeps the vector, the text and flat metadata: the list
    columns and ``metadata`` are stored as JSON strings and read back as they were.

    A Chroma store needs vectors: ``ingest`` into it with an ``embedder``. Against a server,
    every call is retried for up to ``retry_seconds`` when the server cannot be reached, so a
    run survives the server restarting.

    Needs ``chromadb`` (``pip install 'ragchunk[chroma]'``).

    >>> import tempfile
    >>> ChromaStore(path=tempfile.mkdtemp()).read().num_rows  # doctest: +SKIP
    0
    """

    def __init__(
        self,
        *,
        path: str | os.PathLike[str] | None = None,
        host: str | None = None,
        port: int | None = None,
        collection: str = "ragchunk",
        retry_seconds: float = 60.0,
        client: Any = None,
    ) -> None:
        chromadb = load("chromadb", "the chroma store")
        if not isinstance(collection, str) or not collection:
            raise ValueError(f"collection must be a non-empty str, got {collection!r}")
        self.path = None if path is None else os.fspath(path)
        self.collection_name = collection
        self.retry_seconds = retry_seconds if host is not None else 0.0
        settings = chromadb.config.Settings(anonymized_telemetry=False)
        self._own = client is None
        self._connect: Callable[[], Any]
        if client is not None:
            self._connect = lambda: client
            self.url = f"chroma:{client!r}"
        elif self.path is not None:
            path = self.path
            self._connect = lambda: chromadb.PersistentClient(path=path, settings=settings)
            self.url = f"chroma:{self.path}"
        elif host is not None and port is not None:
            self.host, self.port = host, int(port)
            self._connect = lambda: chromadb.HttpClient(
                host=self.host, port=self.port, settings=settings
            )
            self.url = f"chroma+http://{host}:{port}"
        else:
            raise ValueError("ChromaStore needs path=, host= and port=, or client=")
        self._client_obj: Any = None
        self._coll: Any = None

    @property
    def _client(self) -> Any:
        if self._client_obj is None:
            self._client_obj = self._retry(self._connect)
        return self._client_obj

    def __repr__(self) -> str:
        return f"ChromaStore({self.url!r}, collection={self.collection_name!r})"

    def _retry(self, fn: Callable[[], _T]) -> _T:
        deadline = time.monotonic() + self.retry_seconds
        delay = 0.1
        while True:
            try:
                return fn()
            except Exception as exc:  # the server's client raises several kinds
                if time.monotonic() >= deadline or not _unreachable(exc):
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 2.0)

    def default_manifest(self) -> str | None:
        """``DIR/_ragchunk_manifest.sqlite`` when embedded; a server's must be given."""
        return None if self.path is None else os.path.join(self.path, MANIFEST_NAME)

    def _collection(self) -> Any:
        if self._coll is None:
            self._coll = self._retry(
                lambda: self._client.get_or_create_collection(
                    self.collection_name, embedding_function=None
                )
            )
        return self._coll

    def _batch_size(self) -> int:
        try:
            return max(1, min(5000, int(self._client.get_max_batch_size())))
        except Exception:  # an older client or server: a size every Chroma takes
            return 1000

    def upsert(self, rows: Any) -> None:
        """Upsert the rows, a call per batch of the server's size."""
        if rows.num_rows == 0:
            return
        if "vector" not in rows.column_names:
            raise ValueError(
                f"{self.url}: a Chroma store needs embeddings; pass embedder= to ingest "
                "(or --embed on the command line)"
            )
        coll = self._collection()
        size = self._batch_size()
        for start in range(0, rows.num_rows, size):
            part = rows.slice(start, size)
            ids = part["id"].to_pylist()
            docs = part["text"].to_pylist()
            vectors = part["vector"].to_numpy(zero_copy_only=False)
            vecs = [list(map(float, v)) for v in vectors]
            metas = [_flat(r) for r in part.drop_columns(["id", "text", "vector"]).to_pylist()]
            self._retry(
                functools.partial(
                    coll.upsert, ids=ids, embeddings=vecs, documents=docs, metadatas=metas
                )
            )

    def delete(self, ids: Sequence[str]) -> None:
        """Delete the rows with these ids."""
        coll = self._collection()
        for part in _batches(list(ids), self._batch_size()):
            self._retry(functools.partial(coll.delete, ids=list(part)))

    def read(self) -> Any:
        """Every row, sorted by id."""
        coll = self._collection()
        out: list[dict[str, Any]] = []
        offset, size = 0, self._batch_size()
        dim = None
        while True:
            got = self._retry(
                functools.partial(
                    coll.get,
                    include=["documents", "metadatas", "embeddings"],
                    limit=size,
                    offset=offset,
                )
            )
            ids = got["ids"]
            if not ids:
                break
            for i, doc, meta, vec in zip(
                ids, got["documents"], got["metadatas"], got["embeddings"], strict=True
            ):
                row = _unflat(meta)
                row.update(id=i, text=doc, vector=[float(x) for x in vec])
                dim = len(vec)
                out.append(row)
            offset += len(ids)
        schema = row_schema(dim)
        if not out:
            return schema.empty_table()
        return sorted_rows(_pa().Table.from_pylist(out, schema=schema))

    def close(self) -> None:
        """Close the client this store opened (the next call opens it again)."""
        self._coll = None
        if self._own and self._client_obj is not None:
            # chromadb's HTTP clients (the client's and its admin client's) leave their
            # connection pools open when closed: close them
            sessions = [
                getattr(getattr(obj, "_server", None), "_session", None)
                for obj in (self._client_obj, getattr(self._client_obj, "_admin_client", None))
            ]
            self._client_obj.close()
            for session in sessions:
                if session is not None:
                    session.close()
        self._client_obj = None


def _unreachable(exc: BaseException) -> bool:
    names = {t.__name__ for t in type(exc).__mro__}
    if names & {"ConnectError", "ConnectionError", "RemoteProtocolError", "ReadError"}:
        return True
    text = str(exc).lower()
    return any(s in text for s in ("connect", "connection", "502", "503", "unavailable"))


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key in _CHROMA_LISTS:
            out[key] = json.dumps(value)
        elif value is not None:
            out[key] = value
    return out


def _unflat(meta: dict[str, Any]) -> dict[str, Any]:
    row = {k: meta.get(k) for k in ("source_id", "chunk_index", "start", "end", "token_count")}
    row.update(config_hash=meta["config_hash"], metadata=meta["metadata"])
    for key in _CHROMA_LISTS:
        row[key] = json.loads(meta.get(key, "null"))
    return row


def store_identity(store: Store) -> str:
    """What names ``store`` for its manifest: its URL, with a local folder made absolute and
    the table or collection named.

    >>> store_identity(ParquetStore("/tmp/x")) == "parquet:" + os.path.abspath("/tmp/x")
    True
    """
    if isinstance(store, LanceDBStore):
        return f"lancedb:{os.path.abspath(store.path)}?table={store.table_name}"
    if isinstance(store, ParquetStore):
        return f"parquet:{os.path.abspath(store.path)}"
    if isinstance(store, ChromaStore):
        where = store.url
        if store.path is not None:
            where = f"chroma:{os.path.abspath(store.path)}"
        return f"{where}?collection={store.collection_name}"
    return str(store.url)


def open_store(store: str | Store, **options: Any) -> Store:
    """The store a URL names (see the module docstring), or ``store`` itself when it is one.

    >>> open_store("nosuch:dir")
    Traceback (most recent call last):
    ...
    ValueError: store must be lancedb:DIR, chroma:DIR, chroma+http://HOST:PORT or \
parquet:DIR (or a store object), got 'nosuch:dir'
    """
    if not isinstance(store, str):
        if isinstance(store, Store):
            return store
        raise TypeError(
            "store must be a URL (lancedb:DIR, chroma:DIR, parquet:DIR...) or an object with "
            f"upsert(), delete(), read(), default_manifest() and close(), got "
            f"{type(store).__name__}"
        )
    scheme, sep, rest = store.partition(":")
    rest, _, query = rest.partition("?")
    params: dict[str, Any] = {k: v[-1] for k, v in urllib.parse.parse_qs(query).items()}
    if isinstance(params.get("fts"), str):
        params["fts"] = params["fts"].lower() in ("1", "true", "yes")
    params.update(options)
    if sep and rest:
        rest = os.path.expanduser(rest)
        if scheme in ("lancedb", "parquet", "chroma") and os.path.isfile(rest):
            raise ValueError(
                f"store {store!r} points at a file; a {scheme} store is a folder (give a "
                "folder's path, which is created when missing)"
            )
        if scheme == "lancedb":
            return LanceDBStore(rest, **params)
        if scheme == "parquet":
            return ParquetStore(rest, **params)
        if scheme == "chroma":
            return ChromaStore(path=rest, **params)
        if scheme == "chroma+http":
            url = urllib.parse.urlsplit("http:" + rest)
            if url.hostname is None or url.port is None:
                raise ValueError(f"store {store!r} must name a host and a port")
            return ChromaStore(host=url.hostname, port=url.port, **params)
    raise ValueError(
        "store must be lancedb:DIR, chroma:DIR, chroma+http://HOST:PORT or parquet:DIR "
        f"(or a store object), got {store!r}"
    )
