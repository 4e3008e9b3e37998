"""The progress bar of an ingest run: files done, chunks written, pages per second, the time
left and the failures so far, on one line of a terminal.

>>> import io
>>> bar = IngestProgress(io.StringIO(), total_bytes=10, total_files=2)
>>> bar.update(5, chunks=3, pages=1)
>>> bar.line(now=bar.start + 2.0)
'[############------------] 1/2 files  3 chunks  0.5 pages/s  ETA 00:02'
"""

from __future__ import annotations

import time
from typing import IO

__all__ = ["IngestProgress"]


class IngestProgress:
    """A one-line progress bar on a terminal; silent (every method a no-op but the counts)
    when ``stream`` is not a terminal or ``enabled`` is False.

    The ETA comes from the bytes done (files differ in size far more than bytes differ in
    cost).
    """

    def __init__(
        self,
        stream: IO[str],
        total_bytes: int,
        total_files: int,
        enabled: bool = True,
        interval: float = 0.2,
    ) -> None:
        isatty = getattr(stream, "isatty", None)
        self.enabled = bool(enabled and isatty is not None and isatty())
        self.stream = stream
        self.total_bytes = total_bytes
        self.total_files = total_files
        self.bytes = self.files = self.chunks = self.pages = self.failures = 0
        self.interval = interval
        self.start = time.monotonic()
        self._last = 0.0

    def update(
        self, nbytes: int, files: int = 1, chunks: int = 0, pages: int = 0, failures: int = 0
    ) -> None:
        """Count one more file (or ``files``) of ``nbytes`` bytes; redraw at most every
        ``interval`` seconds."""
        self.bytes += nbytes
        self.files += files
        self.chunks += chunks
        self.pages += pages
        self.failures += failures
        now = time.monotonic()
        if self.enabled and now - self._last >= self.interval:
            self._last = now
            self.stream.write("\r" + self.line(now) + "\x1b[K")
            self.stream.flush()

    def line(self, now: float | None = None) -> str:
        """The bar's text at ``now`` (default: now)."""
        now = time.monotonic() if now is None else now
        elapsed = max(now - self.start, 1e-9)
        frac = self.bytes / self.total_bytes if self.total_bytes else 1.0
        width = 24
        filled = min(width, int(frac * width))
        rate = self.bytes / elapsed
        eta = (self.total_bytes - self.bytes) / rate if rate > 0 else 0.0
        out = (
            f"[{'#' * filled}{'-' * (width - filled)}] {self.files}/{self.total_files} files  "
            f"{self.chunks} chunks  {self.pages / elapsed:.1f} pages/s  ETA {_clock(eta)}"
        )
        if self.failures:
            out += f"  {self.failures} failed"
        return out

    def close(self) -> None:
        """Draw the final state and end the line."""
        if self.enabled:
            self.stream.write("\r" + self.line() + "\x1b[K\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"
