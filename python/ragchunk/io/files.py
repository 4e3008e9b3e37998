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

__all__ = ["DEFAULT_INCLUDE", "InputFile", "iter_sources", "split_patterns"]

#: The file patterns read from folders unless ``--include`` (``include=``) says otherwise:
#: the text formats every chunker reads. Images (``*.png``, ``*.jpg``, ``*.tif``...) are
#: never walked by default, OCR engine or not (reading one is OCR, seconds a page): name
#: them, or add them to ``include``, to have them parsed by ``ragchunk.documents.parse``.
DEFAULT_INCLUDE = "*.md,*.markdown,*.txt,*.rst,*.html,*.htm,*.json"


@dataclass
class InputFile:
    """One file the walk found: its path (``-`` for standard input) and its size in bytes.
    (Not :class:`ragchunk.ingest.Source`, a text given to ``ingest`` in memory.)

    >>> InputFile("docs/a.md", 12)
    InputFile(path='docs/a.md', size=12)
    """

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


def _source(path: str) -> InputFile | str:
    """The file at ``path``, or why it cannot be read (a broken symbolic link, a file gone
    since the folder was listed): reported and skipped, the walk goes on."""
    try:
        return InputFile(path, os.path.getsize(path))
    except OSError as exc:
        if os.path.islink(path) and not os.path.exists(path):
            return f"{path}: broken symbolic link (to {os.readlink(path)!r}); skipped"
        return f"{path}: {exc.strerror or exc}; skipped"


def iter_sources(paths: Sequence[str], include: str) -> Iterator[InputFile | str]:
    """Every document of ``paths`` in order (directories walked in sorted order, globs
    expanded); a path that matches nothing, or a file that cannot be read (a broken
    symbolic link), is yielded as its error message.

    >>> import os, pathlib, tempfile
    >>> root = tempfile.mkdtemp()
    >>> _ = pathlib.Path(root, "a.md").write_text("x")
    >>> os.symlink(os.path.join(root, "gone.md"), os.path.join(root, "b.md"))
    >>> [s if isinstance(s, str) else os.path.basename(s.path)
    ...  for s in iter_sources([root], "*.md")]  # doctest: +ELLIPSIS
    ['a.md', "/.../b.md: broken symbolic link (to '/.../gone.md'); skipped"]
    """
    patterns = split_patterns(include)
    for path in paths:
        if path == "-":
            yield InputFile("-", 0)
        elif os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if any(fnmatch.fnmatch(name, p) for p in patterns):
                        yield _source(os.path.join(root, name))
        elif os.path.isfile(path):
            yield _source(path)
        elif _is_glob(path):
            matches = sorted(m for m in glob.glob(path, recursive=True) if os.path.isfile(m))
            if not matches:
                yield f"{path}: no file matches"
            for m in matches:
                yield _source(m)
        else:
            yield f"{path}: no such file or directory"
