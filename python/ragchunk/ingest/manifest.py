"""The manifest: what the store holds, per source, in one SQLite file; and the lock that keeps
two ingest runs off one store.

A source's row records the hash of its content, the hash of the chunker's configuration and
the ids of its chunks in the store. Two more tables carry the write protocol across a crash
(see :mod:`ragchunk.ingest`): ``pending`` (a source being rewritten: its new and old chunk
ids, written before the store is touched) and ``garbage`` (chunk ids the store still holds
but no source refers to any more, deleted right after the commit that made them garbage).

>>> m = Manifest(":memory:")
>>> m.begin("a.md", ["id1", "id2"], [])
>>> m.pending()
[('a.md', ['id1', 'id2'], [])]
>>> m.commit([("a.md", "h1", "c1", ["id1", "id2"])])
>>> m.get("a.md")
('h1', 'c1', ['id1', 'id2'])
>>> m.pending(), m.garbage()
([], [])
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from typing import IO

__all__ = ["IngestLockedError", "Manifest", "StoreLock"]

_SCHEMA_VERSION = "1"


class IngestLockedError(RuntimeError):
    """Another ingest run holds the store's lock.

    >>> issubclass(IngestLockedError, RuntimeError)
    True
    """


class Manifest:
    """The SQLite manifest of one store (created when missing).

    Every change is one SQLite transaction, so the file is always in one of the states the
    write protocol names, whatever moment the process dies at.

    Args:
        path: the SQLite file, or ``":memory:"``.

    >>> m = Manifest(":memory:")
    >>> m.commit([("b.md", "h", "c", ["x"])])
    >>> m.remove(["b.md"])
    >>> m.sources(), m.garbage()
    ({}, ['x'])
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"manifest must be a str or path, got {type(path).__name__}")
        self.path = os.fspath(path)
        if self.path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
        with self._tx():
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS sources (source_id TEXT PRIMARY KEY, "
                "content_hash TEXT NOT NULL, config_hash TEXT NOT NULL, chunk_ids TEXT NOT NULL)"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS pending (source_id TEXT PRIMARY KEY, "
                "new_ids TEXT NOT NULL, old_ids TEXT NOT NULL)"
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS garbage (chunk_id TEXT PRIMARY KEY)")
            # a cache of content hashes by file size and modification time (see files())
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS files (source_id TEXT PRIMARY KEY, "
                "size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, content_hash TEXT NOT NULL)"
            )
            # files that failed: skipped until their bytes or the configuration change
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS failed (source_id TEXT PRIMARY KEY, "
                "content_hash TEXT NOT NULL, config_hash TEXT NOT NULL, reason TEXT NOT NULL)"
            )
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (_SCHEMA_VERSION,))
            elif row[0] != _SCHEMA_VERSION:
                raise ValueError(
                    f"manifest {self.path!r} has schema {row[0]}, this ragchunk reads "
                    f"{_SCHEMA_VERSION}"
                )

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)

    def __repr__(self) -> str:
        return f"Manifest({self.path!r})"

    def get(self, source_id: str) -> tuple[str, str, list[str]] | None:
        """``(content_hash, config_hash, chunk_ids)`` of a committed source, or None."""
        row = self._db.execute(
            "SELECT content_hash, config_hash, chunk_ids FROM sources WHERE source_id = ?",
            (source_id,),
        ).fetchone()
        return None if row is None else (row[0], row[1], json.loads(row[2]))

    def sources(self) -> dict[str, tuple[str, str]]:
        """Every committed source: ``{source_id: (content_hash, config_hash)}``."""
        rows = self._db.execute("SELECT source_id, content_hash, config_hash FROM sources")
        return {s: (h, c) for s, h, c in rows}

    def chunk_ids(self) -> set[str]:
        """Every chunk id the committed sources refer to."""
        out: set[str] = set()
        for (ids,) in self._db.execute("SELECT chunk_ids FROM sources"):
            out.update(json.loads(ids))
        return out

    def begin(self, source_id: str, new_ids: Sequence[str], old_ids: Sequence[str]) -> None:
        """Record that ``source_id`` is about to be rewritten (before the store is touched)."""
        self.begin_many([(source_id, new_ids, old_ids)])

    def begin_many(self, items: Iterable[tuple[str, Sequence[str], Sequence[str]]]) -> None:
        """:meth:`begin` for several sources in one transaction."""
        with self._tx():
            self._db.executemany(
                "INSERT OR REPLACE INTO pending VALUES (?, ?, ?)",
                [(s, json.dumps(list(n)), json.dumps(list(o))) for s, n, o in items],
            )

    def pending(self) -> list[tuple[str, list[str], list[str]]]:
        """The sources begun and not committed: ``(source_id, new_ids, old_ids)``."""
        rows = self._db.execute("SELECT source_id, new_ids, old_ids FROM pending ORDER BY 1")
        return [(s, json.loads(n), json.loads(o)) for s, n, o in rows]

    def commit(self, items: Iterable[tuple[str, str, str, Sequence[str]]]) -> None:
        """Make ``(source_id, content_hash, config_hash, chunk_ids)`` the committed state of
        each source, in one transaction: their old chunk ids that are not kept become
        garbage and their pending rows go."""
        with self._tx():
            for source_id, content_hash, config_hash, ids in items:
                old = self.get(source_id)
                keep = set(ids)
                if old is not None:
                    self._add_garbage(i for i in old[2] if i not in keep)
                self._db.execute(
                    "INSERT OR REPLACE INTO sources VALUES (?, ?, ?, ?)",
                    (source_id, content_hash, config_hash, json.dumps(list(ids))),
                )
                self._db.execute("DELETE FROM pending WHERE source_id = ?", (source_id,))
                self._db.execute("DELETE FROM failed WHERE source_id = ?", (source_id,))

    def abandon(self, source_ids: Iterable[str]) -> None:
        """Forget the pending rows of ``source_ids`` (their new chunks were removed)."""
        with self._tx():
            self._db.executemany(
                "DELETE FROM pending WHERE source_id = ?", [(s,) for s in source_ids]
            )

    def remove(self, source_ids: Iterable[str]) -> None:
        """Drop committed sources; their chunk ids become garbage, in one transaction."""
        with self._tx():
            for source_id in source_ids:
                old = self.get(source_id)
                if old is not None:
                    self._add_garbage(old[2])
                    self._db.execute("DELETE FROM sources WHERE source_id = ?", (source_id,))
                self._db.execute("DELETE FROM files WHERE source_id = ?", (source_id,))

    def files(self) -> dict[str, tuple[int, int, str]]:
        """The hash cache: ``{source_id: (size, mtime_ns, content_hash)}`` of files hashed
        by earlier runs. Only a cache: it decides nothing the write protocol relies on.

        >>> m = Manifest(":memory:")
        >>> m.record_files([("a.md", 3, 10, "h")])
        >>> m.files()
        {'a.md': (3, 10, 'h')}
        """
        rows = self._db.execute("SELECT source_id, size, mtime_ns, content_hash FROM files")
        return {s: (n, t, h) for s, n, t, h in rows}

    def record_files(self, items: Iterable[tuple[str, int, int, str]]) -> None:
        """Remember ``(source_id, size, mtime_ns, content_hash)`` of hashed files."""
        with self._tx():
            self._db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)", list(items))

    def check_store(self, store: str) -> None:
        """Bind the manifest to the store it describes (``store``: the store's identity,
        such as its absolute URL), or raise ``ValueError`` naming ``manifest`` when it
        describes another store.

        >>> m = Manifest(":memory:")
        >>> m.check_store("parquet:/data/a")
        >>> m.check_store("parquet:/data/b")
        Traceback (most recent call last):
        ...
        ValueError: manifest ':memory:' belongs to the store parquet:/data/a, not parquet:/data/b
        """
        row = self._db.execute("SELECT value FROM meta WHERE key = 'store'").fetchone()
        if row is None:
            with self._tx():
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('store', ?)", (store,))
        elif row[0] != store:
            raise ValueError(f"manifest {self.path!r} belongs to the store {row[0]}, not {store}")

    def failed(self) -> dict[str, tuple[str, str, str]]:
        """Files that failed: ``{source_id: (content_hash, config_hash, reason)}``; a run
        skips such a file while its bytes and the configuration are those recorded.

        >>> m = Manifest(":memory:")
        >>> m.record_failed([("a.pdf", "h", "c", "a.pdf: file_timeout")])
        >>> m.failed()
        {'a.pdf': ('h', 'c', 'a.pdf: file_timeout')}
        >>> m.commit([("a.pdf", "h2", "c", [])]); m.failed()
        {}
        """
        rows = self._db.execute("SELECT source_id, content_hash, config_hash, reason FROM failed")
        return {s: (h, c, r) for s, h, c, r in rows}

    def record_failed(self, items: Iterable[tuple[str, str, str, str]]) -> None:
        """Remember ``(source_id, content_hash, config_hash, reason)`` of failed files."""
        with self._tx():
            self._db.executemany("INSERT OR REPLACE INTO failed VALUES (?, ?, ?, ?)", list(items))

    def forget_failed(self, source_ids: Iterable[str]) -> None:
        """Forget that these files failed (they are gone, or are tried again)."""
        with self._tx():
            self._db.executemany(
                "DELETE FROM failed WHERE source_id = ?", [(s,) for s in source_ids]
            )

    def _add_garbage(self, ids: Iterable[str]) -> None:
        self._db.executemany("INSERT OR IGNORE INTO garbage VALUES (?)", [(i,) for i in ids])

    def garbage(self) -> list[str]:
        """Chunk ids to delete from the store."""
        return [i for (i,) in self._db.execute("SELECT chunk_id FROM garbage ORDER BY 1")]

    def collected(self, ids: Iterable[str]) -> None:
        """The store no longer holds ``ids``: forget them as garbage."""
        with self._tx():
            self._db.executemany("DELETE FROM garbage WHERE chunk_id = ?", [(i,) for i in ids])

    def close(self) -> None:
        """Close the file."""
        self._db.close()


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")


class StoreLock:
    """An exclusive, non-blocking lock on a file beside the manifest (``fcntl.flock``): the
    kernel releases it when its process ends, even by ``kill -9``, so a crashed run never
    leaves a stale lock behind.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.lock")
    >>> with StoreLock(path):
    ...     try:
    ...         StoreLock(path).acquire()
    ...     except IngestLockedError as exc:
    ...         print("refused")
    refused
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        """Take the lock, or raise :class:`IngestLockedError` when another run holds it."""
        import fcntl

        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "unknown"
            fh.close()
            raise IngestLockedError(
                f"another ingest run (process {holder}) is writing this store; its lock is "
                f"{self.path!r}. Wait for it to finish: concurrent runs are refused"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        """Let the lock go."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> StoreLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
