"""A persistent embedding cache: one SQLite file, keyed by model name and text hash."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from typing import Any

from ..core.optional import np

__all__ = ["EmbeddingCache"]


class EmbeddingCache:
    """Vectors stored by ``sha256(model + "\\0" + text)`` in one SQLite file.

    Safe for concurrent use: threads share one connection behind a lock, and processes share
    the file through SQLite's own locking (write-ahead log, a busy timeout of 30 s). Vectors
    are stored as float32 bytes with their dimension; a vector whose dimension differs from
    the others in one lookup is a miss.

    Args:
        path: the SQLite file (created, with its folder, when missing), or ``":memory:"``.

    >>> import numpy as np
    >>> cache = EmbeddingCache(":memory:")
    >>> cache.put("m", ["a"], np.ones((1, 3), dtype=np.float32))
    >>> found = cache.get("m", ["a", "b"])
    >>> sorted(found), found[0].tolist()
    ([0], [1.0, 1.0, 1.0])
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or path, got {type(path).__name__}")
        self.path = os.fspath(path)
        if self.path != ":memory:":
            folder = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(folder, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
        with self._lock:
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, dim INTEGER, vec BLOB)"
            )
            self._db.commit()

    @staticmethod
    def key(model: str, text: str) -> str:
        """The cache key of ``text`` embedded by ``model``.

        >>> len(EmbeddingCache.key("m", "hello"))
        64
        """
        raw = (model + "\0" + text).encode("utf-8", "surrogatepass")
        return hashlib.sha256(raw).hexdigest()

    def get(self, model: str, texts: Sequence[str]) -> dict[int, Any]:
        """``{index: vector}`` for the texts already stored."""
        keys = [self.key(model, t) for t in texts]
        found: dict[str, tuple[int, bytes]] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start : start + 500]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT key, dim, vec FROM vectors WHERE key IN ({marks})", part
                ).fetchall()
                found.update((k, (d, v)) for k, d, v in rows)
        out: dict[int, Any] = {}
        for i, k in enumerate(keys):
            hit = found.get(k)
            if hit is not None and len(hit[1]) == 4 * hit[0]:
                out[i] = np.frombuffer(hit[1], dtype="<f4").astype(np.float32)
        return out

    def put(self, model: str, texts: Sequence[str], vectors: Any) -> None:
        """Store ``vectors[i]`` for ``texts[i]``."""
        rows = [
            (self.key(model, t), int(v.shape[0]), np.asarray(v, dtype="<f4").tobytes())
            for t, v in zip(texts, vectors, strict=True)
        ]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"EmbeddingCache({self.path!r})"
