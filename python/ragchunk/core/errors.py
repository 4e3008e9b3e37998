"""Exception types shared by both backends."""

from __future__ import annotations

__all__ = ["RagchunkError"]


class RagchunkError(RuntimeError):
    """An internal failure inside ragchunk (never bad input).

    Raised, for example, when the Rust core panics: the panic is caught at the boundary and
    surfaces as this exception instead of aborting the interpreter. Bad arguments raise
    :class:`TypeError` or :class:`ValueError` naming the argument instead.

    >>> issubclass(RagchunkError, RuntimeError)
    True
    """
