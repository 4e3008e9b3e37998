"""The smoothed local-minima breakpoint method."""

from __future__ import annotations

from collections.abc import Sequence

from . import _numeric

__all__ = ["local_minima", "savgol_smooth"]


def _savgol_weights(window: int, order: int) -> list[float]:
    """Savitzky-Golay weights for the centre point: least squares of a polynomial of degree
    ``order`` over ``window`` points, evaluated at the centre."""
    from ..core.optional import np

    half = window // 2
    x = np.arange(-half, half + 1, dtype=np.float64)
    vander = np.vander(x, order + 1, increasing=True)
    pinv = np.linalg.pinv(vander)
    return [float(v) for v in pinv[0]]


def savgol_smooth(values: Sequence[float], window: int = 5, order: int = 2) -> list[float]:
    """``values`` smoothed by a Savitzky-Golay filter (edges padded with the end values);
    unchanged when shorter than ``window``.

    >>> [round(v, 6) for v in savgol_smooth([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])]
    [1.171429, 1.914286, 3.0, 4.0, 5.085714, 5.828571]
    """
    vals = [float(v) for v in values]
    if len(vals) < window or window < 3:
        return vals
    w = _savgol_weights(window, order)
    half = window // 2
    padded = [vals[0]] * half + vals + [vals[-1]] * half
    return [sum(w[k] * padded[i + k] for k in range(window)) for i in range(len(vals))]


def local_minima(
    similarities: Sequence[float],
    percentile: float = 50.0,
    window: int = 5,
    order: int = 2,
    min_gap: int = 2,
) -> tuple[list[int], list[float], float]:
    """Cuts at the local minima of the smoothed similarity curve.

    What it optimises: a cut where the similarity between neighbouring windows is lowest
    *locally* (a valley of the smoothed curve), not merely above a global threshold, so
    gradual topic drift gives one cut at its deepest point instead of a run of cuts or none.
    The ends of the curve are never valleys. A valley counts when its smoothed value is at
    or below the ``percentile``-th percentile of the smoothed curve; valleys closer than
    ``min_gap`` positions keep the deeper one.

    Returns ``(cuts, smoothed similarities, threshold)``; a cut ``i`` falls after unit ``i``.

    >>> cuts, _, _ = local_minima([0.9, 0.9, 0.2, 0.9, 0.9, 0.9, 0.9, 0.1, 0.9, 0.9])
    >>> cuts
    [2, 7]
    """
    smoothed = savgol_smooth(similarities, window, order)
    if len(smoothed) < 3:
        return [], smoothed, float("nan")
    limit = _numeric.percentile(smoothed, percentile)
    minima = [
        i
        for i in range(1, len(smoothed) - 1)
        if smoothed[i] < smoothed[i - 1] and smoothed[i] <= smoothed[i + 1] and smoothed[i] <= limit
    ]
    kept: list[int] = []
    for i in minima:
        if kept and i - kept[-1] < min_gap:
            if smoothed[i] < smoothed[kept[-1]]:
                kept[-1] = i
            continue
        kept.append(i)
    return kept, smoothed, limit
