"""The sweep table shows every ``k``'s rank metrics, and the ``--png`` plot draws a relative
``--overlap`` as one line across the sizes."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest
from ragchunk import TokenWindowSplitter
from ragchunk.cli.eval import add_arguments, run
from ragchunk.eval import Dataset, Question, Reference, evaluate, save_jsonl

TEXT = "Cats purr softly. Dogs bark loudly at night. Fish swim in the sea. Birds sing at dawn. " * 3


def _tiny() -> Dataset:
    return Dataset(
        {"a": TEXT},
        [
            Question("Which animal barks at night?", "a", (Reference(18, 44, TEXT[18:44]),)),
            Question("Where do fish swim?", "a", (Reference(45, 66, TEXT[45:66]),)),
        ],
    )


def test_format_shows_every_k() -> None:
    result = evaluate(_tiny(), [TokenWindowSplitter(chunk_size=8, chunk_overlap=2)], k=[1, 3])
    lines = result.format().splitlines()
    header = lines[0].split()
    assert "recall@k" in header and "ndcg@k" in header and "mrr@k" in header
    for line, row in zip(lines[1:], result.rows, strict=True):
        k = row.config["k"]
        cells = line.split()
        got = cells[header.index("recall@k")]
        assert got == f"{100 * row.metrics[f'recall@{k}']:.1f}"
        assert cells[header.index("mrr@k")] == f"{100 * row.metrics[f'mrr@{k}']:.1f}"
    assert len(lines) == 3


def test_png_draws_one_line_per_relative_overlap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    import ragchunk.eval.sweep as sweep

    drawn: list[Any] = []
    real = sweep.plot

    def capture(*args: Any, **kwargs: Any) -> Any:
        fig = real(*args, **kwargs)
        drawn.append(fig)
        return fig

    monkeypatch.setattr(sweep, "plot", capture)
    path = tmp_path / "tiny.jsonl"
    save_jsonl(_tiny(), path)
    png = tmp_path / "plot.png"
    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args(
        [
            "--dataset", str(path), "--chunker", "token",
            "--chunk-size", "8,12,16", "--overlap", "0,0.25", "--png", str(png),
        ]
    )  # fmt: skip
    assert run(args) == 0
    assert png.stat().st_size > 0
    (fig,) = drawn
    labels = sorted(line.get_label() for line in fig.axes[0].lines)
    assert labels == ["TokenWindowSplitter overlap 0", "TokenWindowSplitter overlap 0.25"]
    assert all(len(line.get_xdata()) == 3 for line in fig.axes[0].lines)
