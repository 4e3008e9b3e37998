"""Exception types shared by both backends."""

from __future__ import annotations

import copyreg
from typing import Any

__all__ = ["RagchunkError", "reduce_error"]


def reduce_error(error: BaseException) -> tuple[Any, ...]:
    """The pickle recipe of an exception whose ``__init__`` does not take its own ``args``.

    :class:`BaseException` pickles as ``type(error)(*error.args)``, which breaks as soon as a
    subclass builds its message from other arguments (the error a worker process raises then
    cannot be unpickled in the parent). This recipe makes the object without calling
    ``__init__``, then restores ``args`` and the attributes.

    >>> import pickle
    >>> err = RagchunkError("core panicked")
    >>> err.hint = "report it"
    >>> copy = pickle.loads(pickle.dumps(err))
    >>> str(copy), copy.hint
    ('core panicked', 'report it')
    """
    return (copyreg.__newobj__, (type(error), *error.args), dict(vars(error)))  # type: ignore[attr-defined]


class RagchunkError(RuntimeError):
    """An internal failure inside ragchunk (never bad input).

    Raised, for example, when the Rust core panics: the panic is caught at the boundary and
    surfaces as this exception instead of aborting the interpreter. Bad arguments raise
    :class:`TypeError` or :class:`ValueError` naming the argument instead.

    Every ragchunk exception pickles (a worker process's error reaches its parent intact).

    >>> issubclass(RagchunkError, RuntimeError)
    True
    """

    __reduce__ = reduce_error
