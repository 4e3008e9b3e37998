"""RAGFlow's own ``rag.nlp.naive_merge``, imported from a RAGFlow source tree for the benches.

RAGFlow is not installable here, so its module is imported straight from a checkout:
``--ragflow-src``, else ``$RAGFLOW_SRC``, else ``/work/ragflow-src`` (see
``benches/bench_flow_ragflow.py`` for how to get one; the benches need ``rag/`` and
``common/`` of v0.27.0). ``rag.nlp`` imports a few packages that ``naive_merge`` never uses
(``chardet``, ``roman_numbers``, ``cn2an``, ``word2number``): where one is not installed an
inert module stands in for it. Its counter is RAGFlow's: tiktoken ``cl100k_base``, pointed at
the shipped vocabulary (nothing is downloaded).
"""

from __future__ import annotations

import logging
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _corpus import offline_tiktoken

DEFAULT_SRC = Path(os.environ.get("RAGFLOW_SRC", "/work/ragflow-src"))

_UNUSED = ("chardet", "roman_numbers", "cn2an", "word2number")


class _Inert(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return None


def load_naive_merge(src: Path = DEFAULT_SRC) -> Callable[..., list[str]]:
    """RAGFlow's ``naive_merge`` from the tree ``src`` (``FileNotFoundError`` when absent)."""
    if not (src / "rag" / "nlp" / "__init__.py").is_file():
        raise FileNotFoundError(f"no RAGFlow source tree at {src} (rag/nlp/__init__.py)")
    # common/token_utils.py points TIKTOKEN_CACHE_DIR at the project base.
    os.environ["RAG_PROJECT_BASE"] = offline_tiktoken()
    if str(src) not in sys.path:
        sys.path.insert(0, str(src))
    for name in _UNUSED:
        if name not in sys.modules:
            try:
                __import__(name)
            except ImportError:
                sys.modules[name] = _Inert(name)
    for pkg in ("rag", "common"):  # their __init__ would import the whole server
        if pkg not in sys.modules:
            mod = types.ModuleType(pkg)
            mod.__path__ = [str(src / pkg)]  # type: ignore[attr-defined]
            sys.modules[pkg] = mod
    logging.getLogger().setLevel(logging.WARNING)  # naive_merge logs each call at debug
    import rag.nlp

    origin = Path(rag.nlp.__file__ or "")
    assert origin.is_relative_to(src), origin
    fn: Callable[..., list[str]] = rag.nlp.naive_merge
    return fn
