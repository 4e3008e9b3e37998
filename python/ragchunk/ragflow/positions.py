"""RAGFlow's PDF position tags: ``@@page\\tleft\\tright\\ttop\\tbottom##`` in chunk text."""

from __future__ import annotations

from typing import Any, TypeAlias

from .._pure.ragflow import positions as _pure_positions
from ..core import dispatch

__all__ = ["Position", "extract_positions", "remove_tag"]

Position: TypeAlias = tuple[list[int], float, float, float, float]
"""One parsed position tag: ``([page indexes], left, right, top, bottom)``, pages 0-based."""


def _positions_call(name: str, txt: object) -> Any:
    """``name`` (remove_tag / extract_positions) from the active backend; text with lone
    surrogates cannot cross into Rust, so it takes the pure-Python twin."""
    if not isinstance(txt, str):
        raise TypeError(f"txt must be a str, got {type(txt).__name__}")
    return dispatch.run(
        lambda core: getattr(core, name)(txt), lambda: getattr(_pure_positions, name)(txt)
    )


def remove_tag(txt: str) -> str:
    """Remove RAGFlow position tags: ``re.sub(r"@@[\\t0-9.-]+?##", "", txt)``.

    >>> remove_tag("text@@1\\t2.0\\t3.0\\t4.0\\t5.0##")
    'text'
    """
    return str(_positions_call("remove_tag", txt))


def extract_positions(txt: str) -> list[Position]:
    """Parse RAGFlow position tags ``@@page\\tleft\\tright\\ttop\\tbottom##`` out of ``txt``.

    Pages may be ranges (``"3-4"``) and become 0-based indexes. Raises ``ValueError`` for a
    malformed tag, as RAGFlow's ``extract_positions`` does.

    >>> extract_positions("a@@3-4\\t10.0\\t20.0\\t30.0\\t40.0##")
    [([2, 3], 10.0, 20.0, 30.0, 40.0)]
    """
    return list(_positions_call("extract_positions", txt))
