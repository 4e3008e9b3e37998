"""The one place that chooses the backend: the compiled Rust core, or the pure-Python fallback.

``RAGCHUNK_BACKEND`` chooses: ``auto`` (default: Rust when ``ragchunk._core`` imports, else the
fallback with a one-time warning), ``rust`` (never falls back: an import failure is raised), or
``python`` (always the fallback). Any other value is an error, so a typo is never silently
ignored.

Every facade call reaches a backend through :func:`run`, and text that Rust cannot take is
handled here, by one of three lone-surrogate policies (a Python ``str`` may hold lone
surrogates, which have no UTF-8 form, so such text cannot cross into Rust):

* **fall back** (:func:`run`): the conversion raises ``UnicodeEncodeError`` before any work
  is done, and the call runs on the pure-Python backend instead, which gives the same
  result. Used by the RAGFlow drop-ins and the classic splitters, whose chunks keep the
  surrogates.
* **repair for counting** (:func:`surrogate_safe`): counts follow tiktoken's own recovery
  (a UTF-16 round trip that joins valid pairs and turns each lone surrogate into U+FFFD).
* **reject** (:func:`reject_surrogates`): the structure-aware and code splitters parse UTF-8
  on both backends (html5ever, tree-sitter, the JSON encoder), so a lone surrogate is a
  ``ValueError`` naming the argument and the index, on both backends alike.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

from .errors import RagchunkError

__all__ = [
    "BACKENDS",
    "compiled",
    "compiled_object",
    "core",
    "fix_surrogates",
    "holds_gil",
    "name",
    "on_rust",
    "reject_surrogates",
    "run",
    "run_exact",
    "set_backend",
    "surrogate_safe",
]

BACKENDS = ("rust", "python")

T = TypeVar("T")

_core: ModuleType | None = None
# Called with the compiled module whenever the Rust backend is switched on at run time, so that
# state kept for it (the Hugging Face tokenizers loaded meanwhile) reaches it.
_ON_RUST: list[Callable[[ModuleType], None]] = []
_name: str = "python"
_import_error: ImportError | None = None


def _import_core() -> ModuleType:
    from .. import _core as compiled
    from .version import __version__

    if getattr(compiled, "__version__", None) != __version__:
        raise ImportError(
            f"ragchunk._core is version {getattr(compiled, '__version__', '?')} but the Python "
            f"package is {__version__}: rebuild the extension (maturin develop --release)"
        )
    return compiled


def select() -> None:
    """Choose the backend from ``RAGCHUNK_BACKEND`` (run once, when ``ragchunk`` is imported).

    Raises:
        ValueError: ``RAGCHUNK_BACKEND`` is not ``auto``, ``rust`` or ``python``.
        ImportError: ``rust`` was asked for and the compiled core cannot be imported.
    """
    global _core, _name, _import_error
    choice = os.environ.get("RAGCHUNK_BACKEND", "auto").strip().lower() or "auto"
    if choice not in ("auto", "rust", "python"):
        raise ValueError(f"RAGCHUNK_BACKEND must be 'auto', 'rust' or 'python', got {choice!r}")
    if choice == "python":
        _core, _name = None, "python"
        return
    try:
        _core, _name = _import_core(), "rust"
    except ImportError as exc:
        if choice == "rust":
            raise
        _import_error = exc
        _core, _name = None, "python"
        warnings.warn(
            f"ragchunk: compiled core unavailable ({exc}); using the pure-Python fallback, "
            "which gives the same results much more slowly",
            RuntimeWarning,
            stacklevel=4,
        )


def core() -> ModuleType | None:
    """The compiled module when the Rust backend is active, else ``None``.

    Facade code calls :func:`run` instead; this is for code that keeps a configured Rust
    object per backend (it rebuilds the object when the module changes).
    """
    return _core


def name() -> str:
    """``"rust"`` or ``"python"``: the backend now in use.

    >>> name() in BACKENDS
    True
    """
    return _name


def compiled() -> bool:
    """Whether the compiled core is the backend now in use (``name() == "rust"``).

    >>> compiled() == (name() == "rust")
    True
    """
    return _name == "rust"


def compiled_object(chunker: object) -> Any:
    """The compiled core's configured twin of ``chunker`` when the Rust backend is active and
    the chunker has one (its ``_core(module)`` builder), else ``None``. Raises what the
    builder raises (a ``UnicodeEncodeError`` for an option holding a lone surrogate).

    >>> compiled_object(object()) is None
    True
    """
    build = getattr(chunker, "_core", None)
    if _core is None or build is None:
        return None
    return build(_core)


def holds_gil(chunker: object) -> bool:
    """Whether ``chunker`` runs Python code while it chunks a batch, so that threads would
    take turns: its own ``holds_gil`` answer (:attr:`ragchunk.Splitter.holds_gil`, a RAGFlow
    component's), else whether the fallback backend is in use.

    >>> holds_gil(object()) == (not compiled())
    True
    """
    answer = getattr(chunker, "holds_gil", None)
    if isinstance(answer, bool):
        return answer
    return not compiled()


def set_backend(backend: str) -> None:
    """Switch backend at run time (the test suite runs every test on both).

    Raises:
        ValueError: ``backend`` is not ``"rust"`` or ``"python"``.
        ImportError: ``"rust"`` was asked for and the compiled core cannot be imported.
    """
    global _core, _name
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "rust":
        _core = _import_core()
        for hook in _ON_RUST:
            hook(_core)
    else:
        _core = None
    _name = backend


def on_rust(hook: Callable[[ModuleType], None]) -> None:
    """Call ``hook(core)`` each time :func:`set_backend` switches the Rust backend on."""
    _ON_RUST.append(hook)


def run(rust: Callable[[Any], T] | None, pure: Callable[[], T]) -> T:
    """``rust(core)`` on the Rust backend, ``pure()`` on the fallback.

    ``rust`` may be ``None`` for a call the Rust core cannot serve (a Python tokenizer
    callback in a parallel batch, a regex only Python runs): ``pure`` then runs on both
    backends. Text with lone surrogates cannot cross into Rust as UTF-8; the conversion raises
    ``UnicodeEncodeError`` before any work is done, and the call takes the fallback, which
    gives the same result (the *fall back* policy).

    A ``RecursionError`` or ``OverflowError`` escaping either backend (an internal limit,
    never bad input: arguments and documented limits are checked before) becomes
    :class:`ragchunk.RagchunkError`, the same on both backends.

    >>> run(lambda core: "rust", lambda: "python") == name()
    True
    """
    try:
        return run_exact(rust, pure)
    except (RecursionError, OverflowError) as exc:
        raise RagchunkError(f"internal limit reached: {type(exc).__name__}: {exc}") from exc


def run_exact(rust: Callable[[Any], T] | None, pure: Callable[[], T]) -> T:
    """:func:`run` with every exception passed through as it is: for the RAGFlow drop-ins,
    whose exception classes are part of what they reproduce (RAGFlow's own ``int()`` of an
    infinite coordinate raises ``OverflowError``, and so must theirs).

    >>> run_exact(lambda core: "rust", lambda: "python") == name()
    True
    """
    compiled = _core
    if compiled is None or rust is None:
        return pure()
    try:
        return rust(compiled)
    except UnicodeEncodeError:
        return pure()


def fix_surrogates(text: str) -> str:
    """tiktoken's recovery for lone surrogates: a UTF-16 round trip that joins valid pairs and
    turns each lone surrogate into U+FFFD. Used only for counting; chunk text keeps them.

    >>> fix_surrogates("a\\ud800b"), fix_surrogates("\\ud83e\\udd80")
    ('a�b', '🦀')
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def surrogate_safe(fn: Callable[[str, str], int], encoding: str) -> Callable[[str], int]:
    """``text -> fn(text, encoding)`` for a core counting function, lone surrogates counted
    the way tiktoken recovers them (the *repair for counting* policy)."""

    def count(text: str) -> int:
        try:
            return int(fn(text, encoding))
        except UnicodeEncodeError:
            return int(fn(fix_surrogates(text), encoding))

    return count


def reject_surrogates(text: str, name: str) -> str:
    """``text`` unchanged, or ``ValueError`` naming ``name`` and the index of its first lone
    surrogate (the *reject* policy of the parsers that read UTF-8 on both backends).

    >>> reject_surrogates("abc", "text")
    'abc'
    >>> reject_surrogates("ab\\ud800c", "text")
    Traceback (most recent call last):
    ...
    ValueError: text contains a lone surrogate at index 2; decode the source with \
errors='replace' first
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{name} contains a lone surrogate at index {exc.start}; "
            "decode the source with errors='replace' first"
        ) from None
    return text
