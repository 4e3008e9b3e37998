"""Files in: walk paths, folders and glob patterns into the documents to read, in order.

The walk of ``ragchunk chunk``, ``ragchunk count`` and :func:`ragchunk.ingest.ingest`:
folders are read recursively in sorted order (the files matching ``include``), globs are
expanded, and ``-`` stands for standard input.

>>> import os, pathlib, tempfile
>>> root = tempfile.mkdtemp()
>>> for name in ("b.md", "a.txt", "skip.bin"):
...     _ = pathlib.Path(root, name).write_text("x")
>>> [os.path.basename(s.path) for s in iter_sources([root], DEFAULT_INCLUDE)]
['a.txt', 'b.md']
>>> list(iter_sources([os.path.join(root, "none.md")], DEFAULT_INCLUDE))[0].endswith(
...     "no such file or directory"
... )
True
"""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = ["DEFAULT_INCLUDE", "Source", "iter_sources", "split_patterns"]

#: The file patterns read from folders unless ``--include`` (``include=``) says otherwise:
#: the text formats every chunker reads.
DEFAULT_INCLUDE = "*.md,*.markdown,*.txt,*.rst,*.html,*.htm,*.json"


@dataclass
class Source:
    """One document to chunk: a path, or ``-`` for standard input, and its size in bytes."""

    path: str
    size: int


def split_patterns(include: str) -> list[str]:
    """The patterns of a comma-separated ``include`` list, blanks dropped.

    >>> split_patterns("*.md, *.txt,,")
    ['*.md', '*.txt']
    """
    return [p.strip() for p in include.split(",") if p.strip()]


def _is_glob(path: str) -> bool:
    return any(ch in path for ch in "*?[")


def iter_sources(paths: Sequence[str], include: str) -> Iterator[Source | str]:
    """Every document of ``paths`` in order (directories walked in sorted order, globs
    expanded); a path that matches nothing is yielded as its error message."""
    patterns = split_patterns(include)
    for path in paths:
        if path == "-":
            yield Source("-", 0)
        elif os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if any(fnmatch.fnmatch(name, p) for p in patterns):
                        full = os.path.join(root, name)
                        yield Source(full, os.path.getsize(full))
        elif os.path.isfile(path):
            yield Source(path, os.path.getsize(path))
        elif _is_glob(path):
            matches = sorted(m for m in glob.glob(path, recursive=True) if os.path.isfile(m))
            if not matches:
                yield f"{path}: no file matches"
            for m in matches:
                yield Source(m, os.path.getsize(m))
        else:
            yield f"{path}: no such file or directory"
