"""The optional dependencies: every third-party package an extra installs is imported here,
and only when a feature needs it, with one install message per package.

``import ragchunk`` imports none of them. A feature asks for its package with :func:`load`
(``load("pyarrow", "ragchunk.io.arrow")``, :func:`pyarrow`), or, for numpy, which modules
use throughout, imports ``np`` from this module, which loads it at that moment. A missing
package raises an :class:`ImportError` that says what needs it and which extra installs it.

>>> DEPENDENCIES["pyarrow"].install
"pip install 'ragchunk[arrow]'"
>>> load("math", "a test")
Traceback (most recent call last):
...
ValueError: module: math is not an optional dependency of ragchunk (DEPENDENCIES lists them)
>>> import sys
>>> saved = sys.modules.get("pyarrow")  # put back as it was, so its submodules stay bound
>>> sys.modules["pyarrow"] = None  # as if it were not installed
>>> try:
...     load("pyarrow", "ragchunk.io.arrow")
... except ImportError as exc:
...     print(exc)
ragchunk.io.arrow needs pyarrow: pip install 'ragchunk[arrow]'
>>> if saved is None:
...     del sys.modules["pyarrow"]
... else:
...     sys.modules["pyarrow"] = saved
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real modules for the type checker; loaded on demand at run time
    import numpy as np

__all__ = ["DEPENDENCIES", "Dependency", "available", "load", "np", "pyarrow"]


@dataclass(frozen=True)
class Dependency:
    """An optional package: its name on the package index and the extra that installs it."""

    package: str
    extra: str

    @property
    def install(self) -> str:
        """The command that installs it with ragchunk."""
        return f"pip install 'ragchunk[{self.extra}]'"


#: Every optional dependency, by its import name.
DEPENDENCIES: dict[str, Dependency] = {
    "numpy": Dependency("numpy", "numpy"),
    "pyarrow": Dependency("pyarrow", "arrow"),
    "pypdfium2": Dependency("pypdfium2", "documents"),
    "docx": Dependency("python-docx", "documents"),
    "openpyxl": Dependency("openpyxl", "documents"),
    "html5lib": Dependency("html5lib", "documents"),
    "PIL": Dependency("Pillow", "images"),
    "rapidocr_onnxruntime": Dependency("rapidocr-onnxruntime", "ocr"),
    "lancedb": Dependency("lancedb", "lancedb"),
    "chromadb": Dependency("chromadb", "chroma"),
    "rich": Dependency("rich", "viz"),
    "matplotlib": Dependency("matplotlib", "plot"),
    "tiktoken": Dependency("tiktoken", "fallback"),
    "tree_sitter": Dependency("tree-sitter", "fallback"),
    "tokenizers": Dependency("tokenizers", "fallback"),
    "wordllama": Dependency("wordllama", "wordllama"),
    "safetensors": Dependency("safetensors", "wordllama"),
    "langchain_core": Dependency("langchain-core", "langchain"),
    "langchain_text_splitters": Dependency("langchain-text-splitters", "langchain"),
    "llama_index": Dependency("llama-index-core", "llama-index"),
    "ray": Dependency("ray[data]", "ray"),
    "pyspark": Dependency("pyspark", "spark"),
}


def _dependency(module: str) -> Dependency:
    root = module.partition(".")[0]
    try:
        return DEPENDENCIES[root]
    except KeyError:
        raise ValueError(
            f"module: {root} is not an optional dependency of ragchunk (DEPENDENCIES lists them)"
        ) from None


def load(module: str, needed_by: str) -> Any:
    """Import ``module`` (a package of :data:`DEPENDENCIES` or one of its modules, e.g.
    ``"pyarrow.parquet"``) for the feature ``needed_by``.

    Raises:
        ImportError: it is not installed; the message names ``needed_by``, the package and
            the extra that installs it.
    """
    dep = _dependency(module)
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{needed_by} needs {dep.package}: {dep.install}") from exc


def available(*modules: str) -> bool:
    """Whether every one of ``modules`` is installed (nothing is imported).

    >>> available("numpy") in (True, False)
    True
    """
    for module in modules:
        _dependency(module)
        try:
            if importlib.util.find_spec(module) is None:
                return False
        except (ImportError, ValueError):  # a parent package missing, or set to None
            return False
    return True


def pyarrow(needed_by: str = "reading and writing Arrow tables") -> Any:
    """The ``pyarrow`` module (the ``arrow`` extra), for Arrow tables in and out."""
    return load("pyarrow", needed_by)


def __getattr__(name: str) -> Any:
    # ``from ragchunk.core.optional import np`` imports numpy at that moment (and so only in
    # the modules that compute with it).
    if name == "np":
        return load("numpy", "computing with embeddings and arrays")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
