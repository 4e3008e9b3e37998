"""numpy, which the embedding-aware features need (the ``semantic`` extra), imported with a
clear message when it is missing. ``import ragchunk`` never imports this module."""

from __future__ import annotations

try:
    import numpy as np
except ImportError as exc:  # pragma: no cover - numpy is installed wherever the tests run
    raise ImportError(
        "ragchunk's embedding features need numpy: pip install 'ragchunk[semantic]' "
        "('ragchunk[wordllama]' for load_wordllama)"
    ) from exc

__all__ = ["np"]
