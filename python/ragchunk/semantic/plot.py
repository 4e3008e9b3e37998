"""The diagnostic plot of a semantic chunker: distance curve, threshold, coloured segments."""

from __future__ import annotations

import os
from typing import Any, Protocol

from ..core.checks import check_path
from ..core.optional import load


class _Analysis(Protocol):
    """What the plot reads of a :class:`~ragchunk.semantic.SemanticAnalysis` (named by its
    fields, so that this module, which ``SemanticAnalysis.plot`` calls, imports nothing of it)."""

    units: list[tuple[int, int]]
    distances: list[float]
    threshold: float | None
    breakpoints: list[int]
    breakpoint_array: list[float] | None
    method: str

    def segments(self) -> list[tuple[int, int]]: ...


__all__ = ["plot"]


def plot(
    analysis: _Analysis,
    path: str | os.PathLike[str] | None = None,
    *,
    title: str | None = None,
    width: float = 10.0,
    height: float = 4.0,
) -> Any:
    """Draw ``analysis`` (from a chunker's ``analyze``): the distance between consecutive
    sentences, the threshold line, a dashed line at each breakpoint and each chunk's
    sentences shaded in its own colour. Saved to ``path`` (the format from its suffix: PNG,
    SVG, PDF) when given; the matplotlib ``Figure`` is returned either way. Needs matplotlib
    (the ``plot`` extra); uses its non-interactive ``Agg`` backend.

    >>> from ragchunk.semantic import SemanticAnalysis
    >>> fig = plot(SemanticAnalysis([(0, 1), (2, 3), (4, 5)], [0.2, 0.8], 0.5, [1]))
    >>> len(fig.axes)
    1
    """
    if not all(hasattr(analysis, a) for a in ("units", "distances", "threshold", "segments")):
        raise TypeError(f"analysis must be a SemanticAnalysis, got {type(analysis).__name__}")
    matplotlib = load("matplotlib", "plot")
    matplotlib.use("Agg", force=False)
    fig = load("matplotlib.figure", "plot").Figure(figsize=(width, height))
    ax = fig.add_subplot(1, 1, 1)
    values = analysis.distances
    xs = list(range(len(values)))
    colours = matplotlib.colormaps["tab10"]
    for k, (first, last) in enumerate(analysis.segments()):
        ax.axvspan(first - 0.5, last + 0.5, color=colours(k % 10), alpha=0.18, linewidth=0)
        ax.text(
            (first + last) / 2,
            1.02,
            str(k),
            ha="center",
            va="bottom",
            fontsize=7,
            transform=ax.get_xaxis_transform(),
        )
    ax.plot(xs, values, color="black", linewidth=1.2, label="distance to next sentence")
    if analysis.breakpoint_array is not None and analysis.breakpoint_array != list(values):
        ax.plot(
            xs[: len(analysis.breakpoint_array)],
            analysis.breakpoint_array,
            color="tab:blue",
            linewidth=0.8,
            alpha=0.7,
            label=analysis.method or "compared",
        )
    if analysis.threshold is not None and analysis.threshold == analysis.threshold:
        ax.axhline(
            analysis.threshold,
            color="tab:red",
            linestyle="-",
            linewidth=1,
            label=f"threshold {analysis.threshold:.3f}",
        )
    for b in analysis.breakpoints:
        ax.axvline(b, color="tab:red", linestyle="--", linewidth=0.6, alpha=0.6)
    ax.set_xlabel("sentence")
    ax.set_ylabel("cosine distance")
    ax.set_title(title or f"{analysis.method or 'semantic'}: {len(analysis.segments())} chunks")
    if values:
        ax.legend(loc="upper right", fontsize=7)
    if path is not None:
        fig.savefig(check_path(path), bbox_inches="tight")
    return fig
