"""Backend selection: the compiled Rust core, or the pure-Python fallback.

``RAGCHUNK_BACKEND`` chooses: ``auto`` (default: Rust when ``ragchunk._core`` imports, else the
fallback with a one-time warning), ``rust`` (never falls back: an import failure is raised), or
``python`` (always the fallback). Any other value is an error, so a typo is never silently
ignored.
"""

from __future__ import annotations

import os
import warnings
from types import ModuleType

__all__ = ["BACKENDS", "core", "name", "set_backend"]

BACKENDS = ("rust", "python")

_core: ModuleType | None = None
_name: str = "python"
_import_error: ImportError | None = None


def _import_core() -> ModuleType:
    from . import __version__
    from . import _core as compiled

    if getattr(compiled, "__version__", None) != __version__:
        raise ImportError(
            f"ragchunk._core is version {getattr(compiled, '__version__', '?')} but the Python "
            f"package is {__version__}: rebuild the extension (maturin develop --release)"
        )
    return compiled


def _select() -> None:
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
            stacklevel=3,
        )


def core() -> ModuleType | None:
    """The compiled module when the Rust backend is active, else ``None``."""
    return _core


def name() -> str:
    """``"rust"`` or ``"python"``: the backend now in use."""
    return _name


def set_backend(backend: str) -> None:
    """Switch backend at run time (used by the test suite to run every test on both).

    Raises:
        ValueError: ``backend`` is not ``"rust"`` or ``"python"``.
        ImportError: ``"rust"`` was asked for and the compiled core cannot be imported.
    """
    global _core, _name
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "rust":
        _core = _import_core()
    else:
        _core = None
    _name = backend
