"""Argument checks every package shares, so that a bad argument gets the same error, naming
it, wherever it is given."""

from __future__ import annotations

import os
import sys

from .dispatch import reject_surrogates

__all__ = ["USIZE_MAX", "check_int", "check_parsed_text", "check_path", "check_text"]

#: The largest size argument: the Rust core's ``usize``, so both backends refuse the same.
USIZE_MAX = sys.maxsize * 2 + 1


def check_int(name: str, value: object, minimum: int) -> int:
    """``value`` as an int from ``minimum`` to :data:`USIZE_MAX`, or TypeError/ValueError
    naming ``name``.

    >>> check_int("chunk_size", 64, 1)
    64
    >>> check_int("chunk_size", 0, 1)
    Traceback (most recent call last):
    ...
    ValueError: chunk_size must be >= 1, got 0
    >>> check_int("chunk_size", True, 1)
    Traceback (most recent call last):
    ...
    TypeError: chunk_size must be an int, got bool
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if value > USIZE_MAX:
        raise ValueError(f"{name} must be at most {USIZE_MAX}, got {value}")
    return value


def check_path(path: object, name: str = "path") -> str:
    """``path`` (a ``str`` or :class:`os.PathLike`) as a ``str`` with ``~`` expanded, or a
    TypeError naming ``name``: every argument that takes a file path goes through it.

    >>> import os, pathlib
    >>> check_path(pathlib.Path("~/cache.sqlite")) == os.path.expanduser("~/cache.sqlite")
    True
    >>> check_path(":memory:")
    ':memory:'
    >>> check_path(3, "cache")
    Traceback (most recent call last):
    ...
    TypeError: cache must be a str or os.PathLike path, got int
    """
    if isinstance(path, (str, os.PathLike)):
        text = os.fspath(path)
        if isinstance(text, str):
            return os.path.expanduser(text)
    raise TypeError(f"{name} must be a str or os.PathLike path, got {type(path).__name__}")


def check_text(text: object, name: str = "text") -> str:
    """``text`` if it is a str, else TypeError naming ``name``.

    >>> check_text(b"x", "document")
    Traceback (most recent call last):
    ...
    TypeError: document must be a str, got bytes
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    return text


def check_parsed_text(text: object, name: str = "text") -> str:
    """:func:`check_text` for the splitters that parse UTF-8 on both backends: a lone
    surrogate is a ValueError naming ``name`` and the index."""
    return reject_surrogates(check_text(text, name), name)
