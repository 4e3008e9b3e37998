"""Sweeps, retrievers beyond BM25, the plot and the command line."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from ragchunk import Chunk, RecursiveSplitter, TokenWindowSplitter
from ragchunk.cli.eval import add_arguments, run
from ragchunk.eval import (
    BM25,
    Dataset,
    Dense,
    Hybrid,
    Question,
    Reference,
    evaluate,
    plot,
    span_scores,
)
from ragchunk.eval.sweep import chunk_corpora

TEXT = "Cats purr softly. Dogs bark loudly at night. Fish swim in the sea. Birds sing at dawn."


def _tiny() -> Dataset:
    return Dataset(
        {"a": TEXT, "b": "Nothing relevant here at all, only filler words and more filler."},
        [
            Question("Which animal barks at night?", "a", (Reference(18, 44, TEXT[18:44]),)),
            Question("Where do fish swim?", "a", (Reference(45, 66, TEXT[45:66]),)),
        ],
    )


def test_rows_expose_spans_that_recompute_the_metrics(chroma: Dataset) -> None:
    chunkers = [
        RecursiveSplitter(chunk_size=400, chunk_overlap=0),
        TokenWindowSplitter(chunk_size=200, chunk_overlap=0),
    ]
    result = evaluate(chroma, chunkers, BM25(), k=[1, 5], bootstrap=200)
    assert [r.config["k"] for r in result.rows] == [1, 5, 1, 5]
    for row, chunker in zip(result.rows[1::2], chunkers, strict=True):
        chunks = chunk_corpora(chroma, chunker)
        assert row.stats["n_chunks"] == len(chunks)
        assert row.stats["max_tokens"] == max(c.token_count for _, c in chunks)
        recalls = []
        for q in chroma.questions:
            got = row.retrieved[q.id]
            assert len(got) == 5
            own = [(c.start, c.end) for cid, c in chunks if cid == q.corpus_id]
            s = span_scores([(r.start, r.end) for r in q.references], q.corpus_id, got, own)
            assert s == {n: row.per_question[q.id][n] for n in s}
            recalls.append(s["recall"])
        assert row.metrics["recall_mean"] == pytest.approx(float(np.mean(recalls)))
        assert row.metrics["recall_std"] == pytest.approx(float(np.std(recalls)))
        assert (
            row.metrics["recall_ci_low"]
            <= row.metrics["recall_mean"]
            <= row.metrics["recall_ci_high"]
        )
    # More retrieved chunks never lower recall; smaller chunks give higher precision Ω.
    assert result.rows[1].metrics["recall_mean"] >= result.rows[0].metrics["recall_mean"]
    assert (
        result.rows[2].metrics["precision_omega_mean"]
        > result.rows[0].metrics["precision_omega_mean"]
    )


def test_csv_json_and_table(tmp_path: Path) -> None:
    result = evaluate(_tiny(), [TokenWindowSplitter(chunk_size=8, chunk_overlap=2)], k=[1, 2])
    result.to_csv(tmp_path / "out.csv")
    lines = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("chunker,strategy,chunk_size,chunk_overlap,retriever,k,n_chunks")
    assert len(lines) == 3
    data = json.loads(result.to_json(tmp_path / "out.json"))
    assert data[0]["retrieved"]["q0"][0][0] == "a"
    assert data[0]["recall@1"] == result.rows[0].metrics["recall@1"]
    assert "TokenWindowSplitter/8/2" in result.format()


class _Backwards:
    chunk_size = 5

    def split(self, text: str) -> list[Chunk]:
        return [Chunk(text[5:10], 5, 10, 1), Chunk(text[0:5], 0, 5, 1)]


class _Nested:
    def split(self, text: str) -> list[Chunk]:
        return [Chunk(text[0:10], 0, 10, 1), Chunk(text[2:8], 2, 8, 1)]


class _OutOfRange:
    def split(self, text: str) -> list[Chunk]:
        return [Chunk("x", 0, len(text) + 3, 1)]


def test_bad_chunkers_and_arguments() -> None:
    ds = _tiny()
    with pytest.raises(
        ValueError, match=r"chunkers\[0\] \(_Backwards\) on corpus 'a', chunk 1: .*unordered"
    ):
        evaluate(ds, [_Backwards()])
    with pytest.raises(ValueError, match=r"chunkers\[1\] \(_Nested\).*chunk 1"):
        evaluate(ds, [TokenWindowSplitter(8, 0), _Nested()])
    with pytest.raises(ValueError, match="outside the corpus"):
        evaluate(ds, [_OutOfRange()])
    with pytest.raises(TypeError, match=r"chunkers\[0\] must be a ragchunk chunker"):
        evaluate(ds, [object()])
    with pytest.raises(ValueError, match=r"k\[1\] must be >= 1, got 0"):
        evaluate(ds, [TokenWindowSplitter(8, 0)], k=[1, 0])
    with pytest.raises(ValueError, match="k must be >= 1, got -2"):
        evaluate(ds, [TokenWindowSplitter(8, 0)], k=-2)
    with pytest.raises(ValueError, match="relevance must be"):
        evaluate(ds, [TokenWindowSplitter(8, 0)], relevance="fuzzy")
    with pytest.raises(ValueError, match="chunkers must be a non-empty list"):
        evaluate(ds, [])


def _bag_of_words(texts: list[str]) -> np.ndarray:
    vocab = ["cat", "dog", "bark", "night", "fish", "swim", "sea", "bird", "sing", "filler"]
    return np.array([[t.lower().count(w) + 0.01 for w in vocab] for t in texts])


class _Encoder:
    def encode(self, texts: list[str]) -> np.ndarray:
        return _bag_of_words(texts)


def test_dense_and_hybrid_retrieve_exact_cosine_top_k() -> None:
    texts = ["the dog barks", "fish swim in the sea", "a bird sings", "filler filler"]
    for embedder in (_bag_of_words, _Encoder()):
        hits = Dense(embedder).index(texts).search(["where do fish swim", "dog bark"], 2)
        assert [h[0][0] for h in hits] == [1, 0]
        m = _bag_of_words(texts)
        q = _bag_of_words(["dog bark"])[0]
        cos = m @ q / np.linalg.norm(m, axis=1) / np.linalg.norm(q)
        assert hits[1][0][1] == pytest.approx(float(cos.max()))
    fused = Hybrid([BM25(), Dense(_bag_of_words)]).index(texts).search(["fish sea"], 3)[0]
    assert fused[0][0] == 1
    assert fused[0][1] == pytest.approx(2 / 61)
    row = evaluate(_tiny(), [TokenWindowSplitter(8, 0)], Dense(_bag_of_words), k=[1]).rows[0]
    assert row.metrics["hit_rate@1"] == 1.0


def test_wrong_shaped_embeddings_are_refused() -> None:
    with pytest.raises(ValueError, match=r"must be 2-D \(rows, dim\), got shape \(3,\)"):
        Dense(lambda t: np.zeros(3)).index(["a", "b"])
    with pytest.raises(ValueError, match=r"1 rows for 2 texts"):
        Dense(lambda t: np.ones((1, 4))).index(["a", "b"])
    calls = iter([np.ones((2, 4)), np.ones((1, 3))])
    index = Dense(lambda t: next(calls)).index(["a", "b"])
    with pytest.raises(ValueError, match="dimension 3 for queries but 4 for the chunks"):
        index.search(["q"], 1)
    with pytest.raises(TypeError, match="embedder must be callable or have embed"):
        Dense(object())


def test_plot_renders_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    chunkers = [RecursiveSplitter(chunk_size=s, chunk_overlap=0) for s in (6, 12)]
    chunkers += [TokenWindowSplitter(chunk_size=s, chunk_overlap=0) for s in (6, 12)]
    result = evaluate(_tiny(), chunkers, k=[1])
    out = tmp_path / "plot.png"
    fig = plot(result, "iou_mean", out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(fig.axes[0].lines) == 2
    with pytest.raises(ValueError, match="metric 'nope' is not a column"):
        plot(result, "nope")


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(list(argv))


def test_cli_run(chroma_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.csv"
    code = run(
        _args(
            "--dataset",
            str(chroma_dir),
            "--chunk-size",
            "200,400",
            "--overlap",
            "0,0.25",
            "--k",
            "5",
            "--csv",
            str(out),
        )
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "RecursiveSplitter/200/50" in printed and "RecursiveSplitter/400/0" in printed
    assert len(out.read_text(encoding="utf-8").splitlines()) == 5
    assert run(_args("--dataset", str(tmp_path / "missing"))) == 2
    assert "no questions.csv" in capsys.readouterr().err


def test_python_dash_m(tmp_path: Path) -> None:
    ds = _tiny()
    path = tmp_path / "tiny.jsonl"
    ds.save_jsonl(path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragchunk.eval",
            "--dataset",
            str(path),
            "--chunker",
            "token",
            "--chunk-size",
            "8",
            "--k",
            "1,2",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "TokenWindowSplitter/8/0" in proc.stdout
    assert "[#" not in proc.stderr  # no progress bar when stderr is not a terminal


def test_cli_takes_every_chunker_and_the_dense_and_hybrid_retrievers(
    chroma_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--dataset", str(chroma_dir), "--chunk-size", "200", "--k", "5"]
    assert run(_args(*base, "--chunker", "markdown", "-o", "chunk_overlap=0")) == 0
    assert "MarkdownSplitter/200" in capsys.readouterr().out
    assert run(_args(*base, "--chunker", "TitleTreeChunker")) == 0
    assert "TitleTreeChunker/200" in capsys.readouterr().out
    assert run(_args(*base, "--chunker", "sentence", "--overlap", "20")) == 2
    assert "takes no chunk_overlap" in capsys.readouterr().err
    assert run(_args(*base, "--chunker", "naive-merge")) == 2
    assert "gives no offsets" in capsys.readouterr().err
    assert run(_args(*base, "--chunker", "nope")) == 2
    assert "unknown chunker 'nope'" in capsys.readouterr().err
    assert run(_args(*base, "--retriever", "dense", "--embedder", "http://127.0.0.1:9")) == 2
    assert "--embed-model" in capsys.readouterr().err
    pytest.importorskip("wordllama")
    rows = {}
    for retriever in ("bm25", "dense", "hybrid"):
        assert run(_args(*base, "--retriever", retriever, "--embedder", "wordllama")) == 0
        rows[retriever] = capsys.readouterr().out
    assert "Dense(WordLlamaEmbedder)" in rows["dense"] or rows["dense"] != rows["bm25"]
    assert rows["hybrid"] != rows["bm25"] and rows["dense"] != rows["bm25"]
