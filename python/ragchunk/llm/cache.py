"""A persistent SQLite cache of model answers, safe under threads and processes."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.checks import check_path

__all__ = ["CachedAnswer", "LLMCache", "cache_key"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    answer TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created REAL NOT NULL
)
"""


def cache_key(
    model: str,
    messages: Sequence[Mapping[str, str]],
    params: Mapping[str, Any],
    endpoint: str = "",
) -> str:
    """The cache key of one request: a SHA-256 of the endpoint (the server's base URL, a
    trailing slash ignored; empty for a model that is a Python function), model, messages and
    parameters. Two servers that serve a model of the same name never share answers.

    >>> a = cache_key("m", [{"role": "user", "content": "hi"}], {"temperature": 0})
    >>> a == cache_key("m", [{"role": "user", "content": "hi"}], {"temperature": 0})
    True
    >>> a == cache_key("m", [{"role": "user", "content": "hi"}], {"temperature": 1})
    False
    >>> b = cache_key("m", [{"role": "user", "content": "hi"}], {}, "http://127.0.0.1:8001/v1")
    >>> b == cache_key("m", [{"role": "user", "content": "hi"}], {}, "http://127.0.0.1:8001/v1/")
    True
    >>> b == cache_key("m", [{"role": "user", "content": "hi"}], {}, "http://127.0.0.1:8002/v1")
    False
    """
    request: dict[str, Any] = {
        "model": model,
        "messages": [dict(m) for m in messages],
        "params": dict(params),
    }
    endpoint = endpoint.rstrip("/")
    if endpoint:  # absent for a Python function, so such keys stay as they were
        request["endpoint"] = endpoint
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    """An answer read from the cache, with the token counts of the call that produced it.

    >>> CachedAnswer("ok", 10, 1).answer
    'ok'
    """

    answer: str
    prompt_tokens: int
    completion_tokens: int


class LLMCache:
    """Model answers stored in a SQLite file, keyed by model + messages + parameters.

    Every operation opens its own short connection (WAL journal, busy timeout), so one cache
    file can be shared by many threads and many processes at once. ``path=":memory:"`` is not
    supported (each connection would see its own empty database); use a temporary file.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "answers.sqlite")
    >>> cache = LLMCache(path)
    >>> cache.put("k", "m", "an answer", 12, 3)
    >>> cache.get("k")
    CachedAnswer(answer='an answer', prompt_tokens=12, completion_tokens=3)
    >>> len(cache), cache.get("missing")
    (1, None)
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0) -> None:
        path = check_path(path)
        if not path or path == ":memory:":
            raise ValueError("path must be a file path for the SQLite cache (not ':memory:')")
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        self.path = path
        self.timeout = float(timeout)
        self._lock = threading.Lock()
        self._init()

    def __repr__(self) -> str:
        return f"LLMCache({self.path!r})"

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        return conn

    def _init(self) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                conn = self._connect()
                try:
                    conn.execute("PRAGMA journal_mode = WAL")
                    conn.execute(_SCHEMA)
                finally:
                    conn.close()
                return
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def get(self, key: str) -> CachedAnswer | None:
        """The answer stored under ``key``, or ``None``.

        >>> import tempfile, os
        >>> LLMCache(os.path.join(tempfile.mkdtemp(), "c.db")).get("nothing") is None
        True
        """
        conn = self._connect()
        try:
            row = conn.execute(
                "SELECT answer, prompt_tokens, completion_tokens FROM answers WHERE key = ?",
                (key,),
            ).fetchone()
        finally:
            conn.close()
        if row is None:
            return None
        return CachedAnswer(str(row[0]), int(row[1]), int(row[2]))

    def put(
        self, key: str, model: str, answer: str, prompt_tokens: int, completion_tokens: int
    ) -> None:
        """Store ``answer`` under ``key`` (the last writer wins; answers to one key agree).

        >>> import tempfile, os
        >>> c = LLMCache(os.path.join(tempfile.mkdtemp(), "c.db"))
        >>> c.put("k", "m", "a", 1, 1); c.put("k", "m", "b", 1, 1); c.get("k").answer
        'b'
        """
        conn = self._connect()
        try:
            conn.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                (key, model, answer, int(prompt_tokens), int(completion_tokens), time.time()),
            )
        finally:
            conn.close()

    def clear(self) -> None:
        """Delete every stored answer.

        >>> import tempfile, os
        >>> c = LLMCache(os.path.join(tempfile.mkdtemp(), "c.db"))
        >>> c.put("k", "m", "a", 1, 1); c.clear(); len(c)
        0
        """
        conn = self._connect()
        try:
            conn.execute("DELETE FROM answers")
        finally:
            conn.close()

    def __len__(self) -> int:
        conn = self._connect()
        try:
            (n,) = conn.execute("SELECT COUNT(*) FROM answers").fetchone()
        finally:
            conn.close()
        return int(n)


def as_cache(cache: object) -> LLMCache | None:
    """``None``, an :class:`LLMCache`, or a path (str / PathLike) turned into one."""
    if cache is None or isinstance(cache, LLMCache):
        return cache
    if isinstance(cache, (str, os.PathLike)):
        return LLMCache(cache)
    raise TypeError(f"cache must be None, an LLMCache or a file path, got {type(cache).__name__}")
