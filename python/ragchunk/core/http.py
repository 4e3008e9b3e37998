"""A small JSON-over-HTTP client for model endpoints (chat completions, embeddings).

Standard library only. One :class:`HTTPClient` per endpoint: it bounds how many requests are
in flight at once (threads and asyncio alike), retries transient failures with exponential
backoff and full jitter, honours ``Retry-After``, and keeps the API key out of every log line,
``repr`` and exception.

>>> client = HTTPClient("http://127.0.0.1:8000/v1", api_key="sk-secret", max_concurrency=4)
>>> "sk-secret" in repr(client)
False
>>> client.stats.calls
0
"""

from __future__ import annotations

import asyncio
import contextvars
import email.utils
import functools
import http.client
import ipaddress
import json
import logging
import os
import random as _random
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .errors import RagchunkError

__all__ = ["RETRYABLE_STATUSES", "HTTPClient", "HTTPError", "HTTPStats"]

_log = logging.getLogger("ragchunk.http")

#: HTTP statuses that are retried (everything else in 4xx fails at once).
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})

_BODY_EXCERPT = 300
_SECRET_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "proxy-authorization"})
_REDACTED = "[REDACTED]"


class HTTPError(RagchunkError):
    """A request to a model endpoint failed (after its retries, when it was retryable).

    ``status`` is the HTTP status (``None`` for timeouts, connection errors and unreadable
    bodies), ``retryable`` says whether the failure was transient, ``body`` is an excerpt of
    the response body. The API key never appears in any of them.

    >>> err = HTTPError("POST /v1/embeddings: HTTP 400", status=400, retryable=False, body="bad")
    >>> err.status, err.retryable, err.body
    (400, False, 'bad')
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        body: str = "",
        url: str = "",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.body = body
        self.url = url


class HTTPStats:
    """Thread-safe counters of one client: ``calls`` (requests asked for), ``retries`` (extra
    attempts after a transient failure) and ``failures`` (requests that raised).

    >>> stats = HTTPStats()
    >>> stats.add(calls=2, retries=1)
    >>> (stats.calls, stats.retries, stats.failures)
    (2, 1, 0)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.retries = 0
        self.failures = 0

    def add(self, *, calls: int = 0, retries: int = 0, failures: int = 0) -> None:
        """Add to the counters atomically.

        >>> s = HTTPStats(); s.add(failures=1); s.failures
        1
        """
        with self._lock:
            self.calls += calls
            self.retries += retries
            self.failures += failures

    def reset(self) -> None:
        """Set every counter back to zero.

        >>> s = HTTPStats(); s.add(calls=3); s.reset(); s.calls
        0
        """
        with self._lock:
            self.calls = self.retries = self.failures = 0

    def __repr__(self) -> str:
        return f"HTTPStats(calls={self.calls}, retries={self.retries}, failures={self.failures})"


class _Transient(Exception):
    """One failed attempt that may succeed when tried again."""

    def __init__(
        self,
        reason: str,
        status: int | None = None,
        body: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.body = body
        self.retry_after = retry_after


def _parse_retry_after(value: str | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date)."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - now()
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def _is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HTTPClient:
    """JSON-over-HTTP POST client with bounded concurrency, retries and key hygiene.

    ``base_url`` is the endpoint root (``http://127.0.0.1:8080/v1``); ``path`` arguments are
    joined to it. The key is ``api_key`` or, when that is ``None``, the environment variable
    ``api_key_env``; ``Authorization: Bearer ...`` is sent only when a key is set. Transient
    failures (HTTP 408/429/500/502/503/504, timeouts, connection errors, truncated or non-JSON
    bodies) are retried up to ``max_retries`` times, waiting ``random() * min(max_backoff,
    backoff * 2**attempt)`` seconds (full jitter) or what ``Retry-After`` asks for, capped by
    ``max_backoff``. At most ``max_concurrency`` requests are in flight at once, whether they
    come from threads or from asyncio tasks. ``sleep`` and ``random`` are injectable for tests.

    >>> client = HTTPClient("http://127.0.0.1:9/v1/", api_key=None, api_key_env=None)
    >>> client.url("/embeddings")
    'http://127.0.0.1:9/v1/embeddings'
    >>> client.has_api_key
    False
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 5,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        max_concurrency: int = 8,
        headers: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.strip():
            raise ValueError(
                "base_url must be a non-empty string such as 'http://127.0.0.1:8080/v1'"
            )
        scheme = urllib.parse.urlsplit(base_url.strip()).scheme
        if scheme not in ("http", "https"):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        if not isinstance(backoff, (int, float)) or isinstance(backoff, bool) or backoff < 0:
            raise ValueError(f"backoff must be a number >= 0, got {backoff!r}")
        if (
            not isinstance(max_backoff, (int, float))
            or isinstance(max_backoff, bool)
            or max_backoff < 0
        ):
            raise ValueError(f"max_backoff must be a number >= 0, got {max_backoff!r}")
        if (
            not isinstance(max_concurrency, int)
            or isinstance(max_concurrency, bool)
            or max_concurrency < 1
        ):
            raise ValueError(f"max_concurrency must be an integer >= 1, got {max_concurrency!r}")
        if api_key is not None and not isinstance(api_key, str):
            raise TypeError("api_key must be a string or None")
        key = api_key
        if key is None and api_key_env:
            key = os.environ.get(api_key_env)
        self._api_key: str | None = key.strip() if key and key.strip() else None
        self.base_url = base_url.strip().rstrip("/")
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_concurrency = max_concurrency
        self._headers: dict[str, str] = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "ragchunk",
        }
        secrets: list[str] = []
        for name, value in (headers or {}).items():
            if not isinstance(name, str) or not isinstance(value, str):
                raise TypeError("headers must map str to str")
            self._headers[name] = value
            if name.lower() in _SECRET_HEADERS and value:
                secrets.append(value)
                # also the bare token of "Bearer <token>"
                parts = value.split(None, 1)
                if len(parts) == 2 and len(parts[1]) >= 4:
                    secrets.append(parts[1])
        if self._api_key is not None:
            self._headers["Authorization"] = f"Bearer {self._api_key}"
            secrets.append(self._api_key)
        self._secrets = tuple(sorted(set(secrets), key=len, reverse=True))
        self._sleep = sleep
        self._random = random
        self._semaphore = threading.BoundedSemaphore(max_concurrency)
        self._async_semaphores: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Semaphore
        ] = weakref.WeakKeyDictionary()
        self._async_lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        if _is_loopback(self.base_url):
            # a local model server is never reached through a proxy from the environment
            self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        else:
            self._opener = urllib.request.build_opener()
        self.stats = HTTPStats()

    # -- public -------------------------------------------------------------------------------

    @property
    def has_api_key(self) -> bool:
        """Whether requests carry an ``Authorization`` header.

        >>> HTTPClient("http://127.0.0.1:9", api_key="k").has_api_key
        True
        """
        return self._api_key is not None

    def url(self, path: str) -> str:
        """The full URL of ``path`` under ``base_url``.

        >>> HTTPClient("http://127.0.0.1:9/v1", api_key_env=None).url("chat/completions")
        'http://127.0.0.1:9/v1/chat/completions'
        """
        if path.startswith(("http://", "https://")):
            return path
        return f"{self.base_url}/{path.lstrip('/')}"

    def post_json(self, path: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """POST ``payload`` as JSON to ``path`` and return the decoded JSON object.

        Thread-safe; at most ``max_concurrency`` requests are in flight. Raises
        :class:`HTTPError` when the request fails for good.

        >>> HTTPClient("http://127.0.0.1:9", api_key_env=None).post_json("x", [])
        Traceback (most recent call last):
        ...
        TypeError: payload must be a mapping (a JSON object), got list
        """
        if not isinstance(payload, Mapping):
            raise TypeError(
                f"payload must be a mapping (a JSON object), got {type(payload).__name__}"
            )
        try:
            body = json.dumps(payload, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as exc:
            raise TypeError(f"payload is not JSON-serialisable: {exc}") from None
        return self._post_with_retries(self.url(path), body)

    async def apost_json(self, path: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The asyncio entry point of :meth:`post_json` (same retries, same bound).

        >>> import asyncio
        >>> client = HTTPClient("http://127.0.0.1:9", api_key_env=None)
        >>> asyncio.run(client.apost_json("x", {"n": float("nan")}))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        TypeError: payload is not JSON-serialisable: Out of range float values ...
        """
        semaphore = self._async_semaphore()
        async with semaphore:
            # a pool of max_concurrency threads: the loop's default executor may be smaller
            call = functools.partial(contextvars.copy_context().run, self.post_json, path, payload)
            return await asyncio.get_running_loop().run_in_executor(self._pool(), call)

    def _pool(self) -> ThreadPoolExecutor:
        with self._async_lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=self.max_concurrency, thread_name_prefix="ragchunk-http"
                )
            return self._executor

    def redact(self, text: str) -> str:
        """``text`` with the API key (and any secret header value) replaced.

        >>> HTTPClient("http://127.0.0.1:9", api_key="sk-abc123").redact("key sk-abc123 here")
        'key [REDACTED] here'
        """
        for secret in self._secrets:
            if secret:
                text = text.replace(secret, _REDACTED)
        return text

    def __repr__(self) -> str:
        key = "set" if self._api_key is not None else "None"
        return (
            f"HTTPClient(base_url={self.base_url!r}, api_key={key}, timeout={self.timeout}, "
            f"max_retries={self.max_retries}, max_concurrency={self.max_concurrency})"
        )

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError("HTTPClient cannot be pickled (it holds an API key and locks)")

    # -- internals ----------------------------------------------------------------------------

    def _async_semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        with self._async_lock:
            semaphore = self._async_semaphores.get(loop)
            if semaphore is None:
                semaphore = asyncio.Semaphore(self.max_concurrency)
                self._async_semaphores[loop] = semaphore
            return semaphore

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt + 1`` (``attempt`` counts from 0).

        >>> c = HTTPClient("http://127.0.0.1:9", backoff=1.0, max_backoff=5.0, random=lambda: 0.5)
        >>> [c.delay(n) for n in range(4)]
        [0.5, 1.0, 2.0, 2.5]
        >>> c.delay(0, retry_after=3.0), c.delay(0, retry_after=60.0)
        (3.0, 5.0)
        """
        if retry_after is not None:
            return min(self.max_backoff, max(0.0, retry_after))
        ceiling = min(self.max_backoff, self.backoff * (2.0 ** min(attempt, 60)))
        return float(self._random()) * ceiling

    def _post_with_retries(self, url: str, body: bytes) -> dict[str, Any]:
        self.stats.add(calls=1)
        shown = self.redact(url)
        attempt = 0
        while True:
            try:
                with self._semaphore:
                    return self._attempt(url, body)
            except _Transient as failure:
                if attempt >= self.max_retries:
                    self.stats.add(failures=1)
                    tries = attempt + 1
                    raise HTTPError(
                        f"POST {shown} failed after {tries} attempt{'s' if tries > 1 else ''}: "
                        f"{failure.reason}",
                        status=failure.status,
                        retryable=True,
                        body=failure.body,
                        url=shown,
                    ) from None
                wait = self.delay(attempt, failure.retry_after)
                _log.warning(
                    "POST %s: %s; retry %d/%d in %.2fs",
                    shown,
                    failure.reason,
                    attempt + 1,
                    self.max_retries,
                    wait,
                )
                self.stats.add(retries=1)
                attempt += 1
                if wait > 0:
                    self._sleep(wait)
            except HTTPError:
                self.stats.add(failures=1)
                raise

    def _excerpt(self, raw: bytes) -> str:
        text = raw[: _BODY_EXCERPT * 4].decode("utf-8", errors="replace")
        text = self.redact(text)
        if len(text) > _BODY_EXCERPT:
            text = text[:_BODY_EXCERPT] + "..."
        return text

    def _attempt(self, url: str, body: bytes) -> dict[str, Any]:
        request = urllib.request.Request(url, data=body, headers=self._headers, method="POST")
        shown = self.redact(url)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read()
                status = int(response.status)
        except urllib.error.HTTPError as exc:
            try:
                raw = exc.read()
            except (OSError, http.client.HTTPException):
                raw = b""
            finally:
                exc.close()
            status = int(exc.code)
            excerpt = self._excerpt(raw)
            if status in RETRYABLE_STATUSES:
                retry_after = _parse_retry_after(
                    exc.headers.get("Retry-After") if exc.headers else None
                )
                raise _Transient(f"HTTP {status}", status, excerpt, retry_after) from None
            raise HTTPError(
                f"POST {shown}: HTTP {status} {self.redact(str(exc.reason))}: {excerpt}",
                status=status,
                retryable=False,
                body=excerpt,
                url=shown,
            ) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError):
                raise _Transient(f"timed out after {self.timeout}s") from None
            raise _Transient(f"connection error: {self.redact(str(reason))}") from None
        except TimeoutError:
            raise _Transient(f"timed out after {self.timeout}s") from None
        except http.client.IncompleteRead as exc:
            raise _Transient(
                f"truncated body ({len(exc.partial)} bytes read)", None, self._excerpt(exc.partial)
            ) from None
        except (ConnectionError, http.client.HTTPException, OSError) as exc:
            raise _Transient(
                f"connection error: {self.redact(type(exc).__name__ + ': ' + str(exc))}"
            ) from None
        try:
            decoded = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise _Transient(
                f"HTTP {status} with a body that is not JSON", status, self._excerpt(raw)
            ) from None
        if not isinstance(decoded, dict):
            raise _Transient(
                f"HTTP {status} with a JSON {type(decoded).__name__}, not an object",
                status,
                self._excerpt(raw),
            )
        return decoded
