"""Threshold statistics (``rust/semantic/stats.rs``): numpy's own functions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def percentile(values: Sequence[float], q: float) -> float:
    """``np.percentile(values, q)``; NaN for no values."""
    if len(values) == 0:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def mean(values: Sequence[float]) -> float:
    """``np.mean``."""
    return float(np.mean(np.asarray(values, dtype=np.float64)))


def std(values: Sequence[float]) -> float:
    """``np.std`` (population)."""
    return float(np.std(np.asarray(values, dtype=np.float64)))


def gradient(values: Sequence[float]) -> list[float]:
    """``np.gradient(values, range(len(values)))``; empty for fewer than two values."""
    if len(values) < 2:
        return []
    a = np.asarray(values, dtype=np.float64)
    return [float(v) for v in np.gradient(a, range(len(a)))]
