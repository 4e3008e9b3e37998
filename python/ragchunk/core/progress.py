"""A one-line progress bar for long batch runs (``ragchunk chunk``, ``ragchunk.ingest``)."""

from __future__ import annotations

import time
from typing import IO

__all__ = ["Progress"]


class Progress:
    """A one-line progress bar on a terminal: bytes and documents done, rate, ETA.

    Silent (every method a no-op) when ``stream`` is not a terminal or ``enabled`` is False.

    >>> import io
    >>> p = Progress(io.StringIO(), total_bytes=100, total_docs=2)
    >>> p.enabled
    False
    """

    def __init__(
        self,
        stream: IO[str],
        total_bytes: int,
        total_docs: int,
        enabled: bool = True,
        interval: float = 0.1,
    ) -> None:
        isatty = getattr(stream, "isatty", None)
        self.enabled = bool(enabled and isatty is not None and isatty())
        self.stream = stream
        self.total_bytes = total_bytes
        self.total_docs = total_docs
        self.bytes = 0
        self.docs = 0
        self.errors = 0
        self.interval = interval
        self._start = time.monotonic()
        self._last = 0.0

    def update(self, nbytes: int, docs: int = 1, errors: int = 0) -> None:
        """Count ``docs`` more documents of ``nbytes`` bytes; redraw at most every
        ``interval`` seconds."""
        self.bytes += nbytes
        self.docs += docs
        self.errors += errors
        now = time.monotonic()
        if self.enabled and now - self._last >= self.interval:
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self._start, 1e-9)
        rate = self.bytes / elapsed
        frac = self.bytes / self.total_bytes if self.total_bytes else 0.0
        width = 24
        filled = min(width, int(frac * width))
        bar = "#" * filled + "-" * (width - filled)
        eta = (self.total_bytes - self.bytes) / rate if rate > 0 and self.total_bytes else 0.0
        line = (
            f"\r[{bar}] {_mb(self.bytes)}/{_mb(self.total_bytes)} MB "
            f"{self.docs}/{self.total_docs} docs {_mb(int(rate))} MB/s "
            f"ETA {_clock(eta)}"
        )
        if self.errors:
            line += f" ({self.errors} errors)"
        self.stream.write(line + "\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        """Draw the final state and end the line."""
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f}"


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
