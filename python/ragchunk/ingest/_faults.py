"""Named points of an ingest run where a test can stop the process, the way a crash would.

Two environment variables, read when a run starts, drive them (both unset in normal use):

* ``RAGCHUNK_INGEST_TRACE=FILE``: append each point's name to ``FILE``, one a line, as it is
  reached (a test learns the run's sequence of points from it);
* ``RAGCHUNK_INGEST_KILL_AT=N``: send ``SIGKILL`` to the process itself at the ``N``-th point
  (counted from 1): no ``finally`` block, no ``atexit``, no flush runs, as with ``kill -9``.

>>> points = Points.from_environ({})
>>> points.hit("read"), points.count
(None, 1)
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping

__all__ = ["Points"]

_TRACE = "RAGCHUNK_INGEST_TRACE"
_KILL_AT = "RAGCHUNK_INGEST_KILL_AT"


class Points:
    """The counter of one run's points; :meth:`hit` is called at each.

    >>> p = Points(kill_at=None, trace=None)
    >>> for name in ("read", "chunk"):
    ...     p.hit(name)
    >>> p.count
    2
    """

    def __init__(self, kill_at: int | None, trace: str | None) -> None:
        self.kill_at = kill_at
        self.trace = trace
        self.count = 0

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Points:
        """The points as the environment sets them (see the module docstring)."""
        env = os.environ if environ is None else environ
        raw = env.get(_KILL_AT, "").strip()
        kill_at = None
        if raw:
            try:
                kill_at = int(raw)
            except ValueError:
                raise ValueError(f"{_KILL_AT} must be an integer, got {raw!r}") from None
        return cls(kill_at, env.get(_TRACE) or None)

    def hit(self, name: str) -> None:
        """Reach the point ``name``: trace it, and die here when it is the chosen one."""
        self.count += 1
        if self.trace is not None:
            with open(self.trace, "a", encoding="utf-8") as fh:
                fh.write(name + "\n")
        if self.kill_at is not None and self.count == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
