"""Reading and writing chunks in columnar formats (:mod:`ragchunk.io.arrow`).

>>> import ragchunk.io
>>> ragchunk.io.__name__
'ragchunk.io'
"""

from __future__ import annotations

__all__: list[str] = []
