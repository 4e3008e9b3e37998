"""The components' parameters: defaults, ``update`` and ``check()`` as RAGFlow runs them.

A pipeline DSL carries ``components.<id>.obj.params``; RAGFlow overlays them on the parameter
object's defaults (``ComponentParamBase.update``) and runs ``check()``, whose validators raise
``ValueError`` with messages like ``"Chunk token size. 0 not supported, should be positive
integer"``. The messages here are RAGFlow's, word for word.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Component", "TitleParams", "TokenParams", "normalize_overlapped_percent"]


def _type_name(value: object) -> str:
    return type(value).__name__


def _positive_integer(value: object, descr: str) -> None:
    if _type_name(value) not in ("int", "long") or value <= 0:  # type: ignore[operator]
        raise ValueError(f"{descr} {value} not supported, should be positive integer")


def _nonnegative_number(value: object, descr: str) -> None:
    if _type_name(value) not in ("float", "int", "long") or value < 0:  # type: ignore[operator]
        raise ValueError(f"{descr} {value} not supported, should be non-negative numeric")


def _decimal_float(value: object, descr: str) -> None:
    if _type_name(value) not in ("float", "int") or value < 0 or value > 1:  # type: ignore[operator]
        raise ValueError(f"{descr} {value} not supported, should be a float number in range [0, 1]")


def _empty(value: object, descr: str) -> None:
    if not value:
        raise ValueError(f"{descr} does not support empty value.")


def _valid_value(value: object, descr: str, valid: list[str]) -> None:
    if value not in valid:
        raise ValueError(f"{descr} {value} is not supported, it should be in {valid}")


def _string_list(value: object) -> list[str]:
    if value is None:
        items: list[Any] = []
    elif isinstance(value, str):
        items = [value]
    else:
        items = [d for d in value if isinstance(d, str)]  # type: ignore[attr-defined]
    return [d for d in items if d]


def normalize_overlapped_percent(value: object) -> int:
    """RAGFlow's overlap normalisation: a fraction ``0 < v < 1`` becomes ``v * 100``, then
    ``int()``, clamped to 0..90 (so ``1`` is 1 %).

    >>> [normalize_overlapped_percent(v) for v in (0.29, 0.95, 1, 0.001)]
    [28, 90, 1, 0]
    """
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0
    if math.isnan(v):
        return 0
    if 0 < v < 1:
        v *= 100
    return max(0, min(90, int(v)))


def _overlay(defaults: dict[str, Any], params: object) -> dict[str, Any]:
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict, got {type(params).__name__}")
    merged = dict(defaults)
    merged.update(params)
    return merged


class Component:
    """What the configured pipeline components share: equality and hashing by their
    configuration (``_key``), so that a pickled copy equals its original."""

    def _key(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        """Equal when the parameters and options are."""
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Component)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(repr(self._key()))


@dataclass(frozen=True)
class TokenParams:
    """``TokenChunkerParam`` after ``update`` and ``check()``."""

    delimiter_mode: str
    chunk_token_size: int
    delimiters: tuple[str, ...]
    overlapped_percent: int | float
    children_delimiters: tuple[str, ...]
    table_context_size: int | float
    image_context_size: int | float

    @classmethod
    def from_dict(cls, params: object) -> TokenParams:
        p = _overlay(
            {
                "delimiter_mode": "delimiter",
                "chunk_token_size": 512,
                "delimiters": ["\n"],
                "overlapped_percent": 0,
                "children_delimiters": [],
                "table_context_size": 0,
                "image_context_size": 0,
            },
            params,
        )
        mode = p["delimiter_mode"]
        if mode == "token_size":
            mode = "delimiter"
        _valid_value(mode, "Delimiter mode abnormal.", ["delimiter", "one"])
        delimiters = _string_list(p["delimiters"])
        children = _string_list(p["children_delimiters"])
        _positive_integer(p["chunk_token_size"], "Chunk token size.")
        _decimal_float(p["overlapped_percent"], "Overlapped percentage: [0, 1)")
        _nonnegative_number(p["table_context_size"], "Table context size.")
        _nonnegative_number(p["image_context_size"], "Image context size.")
        return cls(
            mode,
            p["chunk_token_size"],
            tuple(delimiters),
            p["overlapped_percent"],
            tuple(children),
            p["table_context_size"],
            p["image_context_size"],
        )


@dataclass(frozen=True)
class TitleParams:
    """``TitleChunkerParam`` after ``update`` and ``check()``."""

    method: Any
    levels: Any
    hierarchy: Any
    include_heading_content: Any
    root_chunk_as_heading: Any
    chunk_token_cap: int | None

    @classmethod
    def from_dict(cls, params: object) -> TitleParams:
        p = _overlay(
            {
                "levels": [],
                "hierarchy": None,
                "include_heading_content": False,
                "root_chunk_as_heading": False,
                "chunk_token_cap": 512,
            },
            params,
        )
        if "method" not in p:
            raise AttributeError("'TitleChunkerParam' object has no attribute 'method'")
        method = p["method"]
        if method in ("hierarchy", "group"):
            _empty(p["levels"], "Hierarchical setups.")
        if method == "hierarchy":
            _empty(p["hierarchy"], "Hierarchy number.")
        cap = p["chunk_token_cap"]
        if cap is not None and not (_type_name(cap) == "int" and cap == 0):
            _positive_integer(cap, "Chunk token cap.")
            if not 128 <= cap <= 8000:
                raise ValueError("Chunk token cap must be between 128 and 8000.")
        return cls(
            method,
            p["levels"],
            p["hierarchy"],
            p["include_heading_content"],
            p["root_chunk_as_heading"],
            cap or None,
        )
