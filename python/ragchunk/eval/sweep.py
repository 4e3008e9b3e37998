"""Sweeps: every chunker configuration over a dataset, one retriever, several ``k``."""

from __future__ import annotations

import bisect
import csv
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.checks import check_path
from ..core.chunk import Chunk
from ..core.optional import load
from .answers import ANSWER_METRICS, JUDGES, AnswerItem, answer_metrics, estimate_answers
from .dataset import Dataset
from .metrics import SPAN_METRICS, bootstrap_ci, mean_std, rank_metrics, span_scores
from .retrievers import BM25, Retriever, check_k

__all__ = ["EvalResult", "ResultRow", "chunk_corpora", "evaluate", "plot"]

RANK_METRICS = ("recall", "precision", "ndcg", "mrr", "hit_rate")


@dataclass
class ResultRow:
    """One chunker configuration at one ``k``.

    Attributes:
        config: ``chunker`` (a label), ``strategy`` (class name), ``chunk_size``,
            ``chunk_overlap``, ``retriever``, ``k``.
        stats: ``n_chunks``, ``mean_tokens``, ``max_tokens`` (the chunker's own unit).
        metrics: span metrics (``recall_mean``, ``recall_std``... and ``exact_*``), rank
            metrics (``recall@k``, ``ndcg@k``...), all averaged over questions, and
            ``*_ci_low``/``*_ci_high`` bootstrap bounds of the span recall and IoU means.
        per_question: per question id, every metric.
        retrieved: per question id, the ranked retrieved chunks ``(corpus_id, start, end)``.
        answers: with the answers stage, per question id, the answer, its metrics, the
            judges' verdicts and raw replies, and any error
            (:meth:`ragchunk.eval.answers.AnswerRecord.to_dict`).

    >>> row = ResultRow({"chunker": "x", "k": 1}, {"n_chunks": 3}, {"recall_mean": 0.5}, {}, {})
    >>> row.flat()
    {'chunker': 'x', 'k': 1, 'n_chunks': 3, 'recall_mean': 0.5}
    """

    config: dict[str, Any]
    stats: dict[str, float]
    metrics: dict[str, float]
    per_question: dict[str, dict[str, float]] = field(repr=False)
    retrieved: dict[str, list[tuple[str, int, int]]] = field(repr=False)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    def flat(self) -> dict[str, Any]:
        """``config``, ``stats`` and ``metrics`` in one flat dict (a table row)."""
        return {**self.config, **self.stats, **self.metrics}


@dataclass
class EvalResult:
    """The rows of a sweep, with CSV/JSON export and a text table.

    >>> row = ResultRow({"chunker": "x", "k": 1}, {"n_chunks": 3}, {"recall_mean": 0.5}, {}, {})
    >>> EvalResult([row]).to_dicts()[0]["recall_mean"]
    0.5
    """

    rows: list[ResultRow]
    seconds: float = 0.0
    #: with ``dry_run=True``: the calls and tokens the answers stage would spend
    estimate: Any = None

    def to_dicts(self) -> list[dict[str, Any]]:
        """One flat dict per row."""
        return [r.flat() for r in self.rows]

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write the flat rows as CSV."""
        dicts = self.to_dicts()
        cols = list(dict.fromkeys(c for d in dicts for c in d))
        with open(check_path(path), "w", encoding="utf-8", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            w.writerows(dicts)

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """The rows as JSON (with per-question metrics and retrieved spans); written to
        ``path`` when given."""
        data = [
            {
                **r.flat(),
                "per_question": r.per_question,
                "retrieved": {q: [list(s) for s in v] for q, v in r.retrieved.items()},
                **({"answers": r.answers} if r.answers else {}),
            }
            for r in self.rows
        ]
        text = json.dumps(data, ensure_ascii=False)
        if path is not None:
            with open(check_path(path), "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def format(self, columns: Sequence[str] | None = None) -> str:
        """A plain-text table (percentages for the metrics). The rank metrics' columns
        ``recall@k``, ``ndcg@k``, ``mrr@k`` show each row at its own ``k``.

        >>> rows = [ResultRow({"chunker": "c", "k": k}, {}, {f"recall@{k}": r}, {}, {})
        ...         for k, r in ((1, 0.5), (3, 1.0))]
        >>> print(EvalResult(rows).format(["chunker", "k", "recall@k"]))
        chunker  k  recall@k
        c        1      50.0
        c        3     100.0
        """
        dicts = self.to_dicts()
        if not dicts:
            return "(no rows)"
        if columns is None:
            columns = [
                "chunker",
                "k",
                "n_chunks",
                "mean_tokens",
                "recall_mean",
                "precision_mean",
                "precision_omega_mean",
                "iou_mean",
                "recall@k",
                "ndcg@k",
                "mrr@k",
            ]
            columns += [
                f"{n}_mean"
                for n in ("token_f1", "rougeL", "bleu", *JUDGES)
                if f"{n}_mean" in dicts[0]
            ]

        def cell(d: dict[str, Any], c: str) -> str:
            v = d.get(c.replace("@k", f"@{d['k']}") if c.endswith("@k") else c, "")
            if isinstance(v, float):
                return f"{v:.1f}" if c in ("mean_tokens",) else f"{100 * v:.1f}"
            return str(v)

        cells = [[c for c in columns]] + [
            [cell(d, c) if c != "k" else str(d["k"]) for c in columns] for d in dicts
        ]
        widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
        lines = [
            "  ".join(
                v.ljust(w) if i == 0 else v.rjust(w)
                for i, (v, w) in enumerate(zip(r, widths, strict=True))
            )
            for r in cells
        ]
        return "\n".join(lines)


def _label(chunker: Any) -> dict[str, Any]:
    strategy = type(chunker).__name__
    size = getattr(chunker, "chunk_size", None)
    overlap = getattr(chunker, "chunk_overlap", None)
    parts = [strategy] + [str(v) for v in (size, overlap) if v is not None]
    return {
        "chunker": "/".join(parts),
        "strategy": strategy,
        "chunk_size": size,
        "chunk_overlap": overlap,
    }


def chunk_corpora(
    dataset: Dataset, chunker: Any, name: str = "chunkers[0]"
) -> list[tuple[str, Chunk]]:
    """Every chunk of every corpus, ``(corpus_id, chunk)``, checked: spans inside the corpus,
    ordered, and none inside another (a chunker may overlap its neighbours, but starts and ends
    must both increase).

    Raises:
        TypeError: the chunker has no ``split`` or returns something other than Chunks.
        ValueError: a span out of range, unordered, repeated or nested (naming the chunk).

    >>> from ragchunk import TokenWindowSplitter
    >>> from ragchunk.eval import Dataset, Question, Reference
    >>> ds = Dataset({"d": "one two three four"}, [Question("q?", "d", (Reference(0, 3, "one"),))])
    >>> [(cid, c.start, c.end) for cid, c in chunk_corpora(ds, TokenWindowSplitter(2, 0))]
    [('d', 0, 7), ('d', 7, 18)]
    """
    split = getattr(chunker, "split", None)
    if not callable(split):
        raise TypeError(
            f"{name} must be a ragchunk chunker with split(text) -> list[Chunk], "
            f"got {type(chunker).__name__}"
        )
    out = []
    for cid, text in dataset.corpora.items():
        chunks = split(text)
        prev: Chunk | None = None
        for i, c in enumerate(chunks):
            where = f"{name} ({type(chunker).__name__}) on corpus {cid!r}, chunk {i}"
            if not isinstance(c, Chunk):
                raise TypeError(f"{where}: expected a ragchunk.Chunk, got {type(c).__name__}")
            if not 0 <= c.start <= c.end <= len(text):
                raise ValueError(
                    f"{where}: span [{c.start}, {c.end}) is outside the corpus of "
                    f"{len(text)} characters"
                )
            if prev is not None and not (c.start > prev.start and c.end > prev.end):
                raise ValueError(
                    f"{where}: span [{c.start}, {c.end}) after [{prev.start}, {prev.end}) is "
                    "unordered or overlaps its predecessor entirely; chunks must be in document "
                    "order with increasing starts and ends"
                )
            prev = c
            out.append((cid, c))
    return out


def _progress(enabled: bool) -> Callable[[int, int, str], None]:
    def report(done: int, total: int, label: str) -> None:
        if not enabled:
            return
        width = 24
        fill = width * done // max(total, 1)
        end = "\n" if done == total else ""
        sys.stderr.write(
            f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} {label[:40]:<40}{end}"
        )
        sys.stderr.flush()

    return report


def evaluate(
    dataset: Dataset,
    chunkers: Sequence[Any],
    retriever: Retriever | None = None,
    k: int | Sequence[int] = (1, 3, 5, 10),
    relevance: str = "binary",
    bootstrap: int = 0,
    confidence: float = 0.95,
    seed: int = 0,
    progress: bool | None = None,
    *,
    answers: Any = None,
    judge: Any = None,
    judges: Sequence[str] = JUDGES,
    answer_embedder: Any = None,
    answer_prompts: Mapping[str, Any] | None = None,
    dry_run: bool = False,
) -> EvalResult:
    """Evaluate every chunker on ``dataset``: chunk all corpora into one collection, retrieve the
    top ``max(k)`` chunks of the whole collection per question, and score each ``k``.

    Args:
        dataset: a :class:`~ragchunk.eval.Dataset`.
        chunkers: ragchunk chunkers (anything with ``split(text) -> list[Chunk]``).
        retriever: :class:`~ragchunk.eval.BM25` (default), :class:`~ragchunk.eval.Dense`,
            :class:`~ragchunk.eval.Hybrid`, or any object with ``index(texts)``.
        k: the cut-offs (ints >= 1).
        relevance: ``"binary"`` (a chunk sharing a character with a reference is relevant) or
            ``"graded"`` (its relevance is the number of reference characters it holds).
        bootstrap: resamples of the bootstrap intervals of the span recall and IoU means
            (``recall_ci_low``... columns); 0 (default) computes none.
        confidence, seed: the intervals' confidence level and random seed.
        progress: a progress bar on stderr (default: when stderr is a terminal).
        answers: the answers stage (:mod:`ragchunk.eval.answers`): a model (a
            :class:`ragchunk.llm.LLM` or a callable ``prompt -> str``) that answers every
            question of every row from the row's top ``k`` chunks; the rows then also hold
            the answer metrics (``token_f1_mean``, ``faithfulness_mean``... over the questions
            that have them, ``*_ci_low``/``*_ci_high`` with ``bootstrap``), ``answers_failed``
            in ``stats``, and every answer and verdict in ``answers``. All rows' calls run
            together under the model's concurrency bound; with its cache a re-run or a resumed
            run asks only what is missing.
        judge, judges, answer_embedder, answer_prompts: the judging model (default
            ``answers``), the judged metrics, the embedder of answer relevance (without one
            it is skipped) and replacement prompts (see
            :func:`~ragchunk.eval.answers.answer_metrics`).
        dry_run: with ``answers``, make no model call: the result's ``estimate`` holds the
            calls and tokens the stage would spend, and the rows only retrieval metrics.

    >>> from ragchunk import TokenWindowSplitter
    >>> from ragchunk.eval import Dataset, Question, Reference
    >>> text = "Cats purr. Dogs bark loudly. Fish swim. Birds sing. Cows moo."
    >>> q = Question("Which animal would bark?", "d", (Reference(11, 28, text[11:28]),))
    >>> ds = Dataset({"d": text}, [q])
    >>> row = evaluate(ds, [TokenWindowSplitter(4, 0)], k=[1]).rows[0]
    >>> row.retrieved["q0"], row.metrics["recall_mean"]
    ([('d', 9, 27)], 0.9411764705882353)
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a ragchunk.eval.Dataset, got {type(dataset).__name__}")
    if isinstance(chunkers, (str, bytes)) or not isinstance(chunkers, Sequence) or not chunkers:
        raise ValueError("chunkers must be a non-empty list of chunkers")
    ks = [k] if isinstance(k, int) and not isinstance(k, bool) else list(k)  # type: ignore[arg-type]
    if not ks:
        raise ValueError("k must not be empty")
    for i, kk in enumerate(ks):
        check_k(kk, f"k[{i}]" if len(ks) > 1 else "k")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
        raise ValueError(f"bootstrap must be an int >= 0 (resamples), got {bootstrap!r}")
    if relevance not in ("binary", "graded"):
        raise ValueError(f"relevance must be 'binary' or 'graded', got {relevance!r}")
    retriever = BM25() if retriever is None else retriever
    if not callable(getattr(retriever, "index", None)):
        raise TypeError(
            f"retriever must have an index(texts) method, got {type(retriever).__name__}"
        )
    report = _progress(sys.stderr.isatty() if progress is None else progress)
    t0 = time.perf_counter()
    kmax = max(ks)
    questions = list(dataset.questions)
    qtexts = [q.text for q in questions]
    rows: list[ResultRow] = []
    pending: list[tuple[ResultRow, AnswerItem]] = []
    for ci, chunker in enumerate(chunkers):
        config = _label(chunker)
        report(ci, len(chunkers), config["chunker"])
        chunks = chunk_corpora(dataset, chunker, f"chunkers[{ci}]")
        sizes = [c.token_count for _, c in chunks]
        stats = {
            "n_chunks": len(chunks),
            "mean_tokens": (sum(sizes) / len(sizes)) if sizes else 0.0,
            "max_tokens": max(sizes) if sizes else 0,
        }
        spans = [(cid, c.start, c.end) for cid, c in chunks]
        by_corpus: dict[str, list[tuple[int, int]]] = {}
        for cid, s, e in spans:
            by_corpus.setdefault(cid, []).append((s, e))
        hits = (
            retriever.index([c.text for _, c in chunks]).search(qtexts, kmax)
            if chunks
            else [[] for _ in questions]
        )
        if len(hits) != len(questions):
            raise ValueError(
                f"retriever returned {len(hits)} result lists for {len(questions)} questions"
            )
        docid = [f"{cid}#{i}" for i, (cid, _) in enumerate(chunks)]
        # Chunks of a corpus are in document order with increasing starts and ends, so the
        # chunks touching a reference are one run of indexes, found by bisection.
        first: dict[str, int] = {}
        for i, (cid, _, _) in enumerate(spans):
            first.setdefault(cid, i)
        near: dict[str, list[int]] = {}
        qrels: dict[str, dict[str, int]] = {}
        for q in questions:
            own = by_corpus.get(q.corpus_id, [])
            starts = [s for s, _ in own]
            ends = [e for _, e in own]
            idx: set[int] = set()
            for r in q.references:
                lo = bisect.bisect_left(ends, r.start)
                hi = bisect.bisect_right(starts, r.end)
                idx.update(range(lo, hi))
            near[q.id] = sorted(idx)
            merged = _merged([(r.start, r.end) for r in q.references])
            judged: dict[str, int] = {}
            base = first.get(q.corpus_id, 0)
            for j in near[q.id]:
                s, e = own[j]
                cov = sum(max(0, min(e, re_) - max(s, rs)) for rs, re_ in merged)
                if cov > 0:
                    judged[docid[base + j]] = 1 if relevance == "binary" else cov
            qrels[q.id] = judged
        for kk in ks:
            per_q: dict[str, dict[str, float]] = {}
            retrieved: dict[str, list[tuple[str, int, int]]] = {}
            run: dict[str, dict[str, float]] = {}
            for q, h in zip(questions, hits, strict=True):
                top = h[:kk]
                got = [spans[i] for i, _ in top]
                retrieved[q.id] = got
                run[q.id] = {docid[i]: float(kk - r) for r, (i, _) in enumerate(top)}
                refs = [(r.start, r.end) for r in q.references]
                own = [by_corpus[q.corpus_id][j] for j in near[q.id]]
                m = span_scores(refs, q.corpus_id, got, own, "chroma")
                m.update(
                    {
                        f"exact_{n}": v
                        for n, v in span_scores(refs, q.corpus_id, got, own, "exact").items()
                    }
                )
                per_q[q.id] = m
            ranks = rank_metrics(qrels, run, kk)
            for q in questions:
                per_q[q.id].update(ranks.get(q.id, {f"{n}@{kk}": 0.0 for n in RANK_METRICS}))
            metrics: dict[str, float] = {}
            for name in [*SPAN_METRICS, *(f"exact_{n}" for n in SPAN_METRICS)]:
                vals = [per_q[q.id][name] for q in questions]
                metrics[f"{name}_mean"], metrics[f"{name}_std"] = mean_std(vals)
                if bootstrap and name in ("recall", "iou"):
                    metrics[f"{name}_ci_low"], metrics[f"{name}_ci_high"] = bootstrap_ci(
                        vals, confidence, bootstrap, seed
                    )
            for n in RANK_METRICS:
                metrics[f"{n}@{kk}"] = mean_std([per_q[q.id][f"{n}@{kk}"] for q in questions])[0]
            row = ResultRow(
                {**config, "retriever": repr(retriever), "k": kk},
                dict(stats),
                metrics,
                per_q,
                retrieved,
            )
            rows.append(row)
            if answers is not None:
                for q, h in zip(questions, hits, strict=True):
                    contexts = tuple(chunks[i][1].text for i, _ in h[:kk])
                    excerpts = tuple(r.content for r in q.references)
                    pending.append((row, AnswerItem(q.id, q.text, contexts, excerpts)))
    report(len(chunkers), len(chunkers), "done")
    result = EvalResult(rows, time.perf_counter() - t0)
    if answers is not None:
        items = [it for _, it in pending]
        if dry_run:
            result.estimate = estimate_answers(
                items,
                answers,
                judge=judge,
                embedder=answer_embedder,
                judges=judges,
                prompts=answer_prompts,
            )
        else:
            records = answer_metrics(
                items,
                answers,
                judge=judge,
                embedder=answer_embedder,
                judges=judges,
                prompts=answer_prompts,
            )
            _attach(pending, records, bootstrap, confidence, seed)
        result.seconds = time.perf_counter() - t0
    return result


def _attach(
    pending: Sequence[tuple[ResultRow, AnswerItem]],
    records: Sequence[Any],
    bootstrap: int,
    confidence: float,
    seed: int,
) -> None:
    """Each row's answer records into its per-question values, means and intervals."""
    by_row: dict[int, list[Any]] = {}
    rows: dict[int, ResultRow] = {}
    for (row, _), rec in zip(pending, records, strict=True):
        by_row.setdefault(id(row), []).append(rec)
        rows[id(row)] = row
        row.per_question[rec.id].update(rec.metrics)
        row.answers[rec.id] = rec.to_dict()
    for key, recs in by_row.items():
        row = rows[key]
        row.stats["answers_failed"] = sum(1 for r in recs if r.answer is None)
        for name in ANSWER_METRICS:
            vals = [r.metrics[name] for r in recs if name in r.metrics]
            if not vals:
                continue
            row.metrics[f"{name}_mean"], row.metrics[f"{name}_std"] = mean_std(vals)
            row.metrics[f"{name}_n"] = len(vals)
            if bootstrap:
                row.metrics[f"{name}_ci_low"], row.metrics[f"{name}_ci_high"] = bootstrap_ci(
                    vals, confidence, bootstrap, seed
                )


def _merged(refs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(refs):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def plot(
    result: EvalResult | Sequence[Mapping[str, Any]],
    metric: str = "recall_mean",
    path: str | os.PathLike[str] | None = None,
    k: int | None = None,
) -> Any:
    """Draw ``metric`` against chunk size, one line per strategy (and overlap), for one ``k``
    (the first in the result by default). Needs matplotlib (``pip install ragchunk[eval]``).
    A row's ``overlap`` (the overlap as it was asked for, such as ``0.25`` of every size),
    when it has one, names its line instead of its ``chunk_overlap`` in tokens.

    Returns the matplotlib ``Figure``; saved to ``path`` (PNG, SVG...) when given.

    >>> rows = [{"strategy": "Recursive", "chunk_size": s, "chunk_overlap": 0, "k": 5,
    ...          "recall_mean": r} for s, r in ((200, 0.8), (400, 0.9))]
    >>> len(plot(rows).axes[0].lines)
    1
    """
    plt = load("matplotlib.pyplot", "plot")
    dicts = result.to_dicts() if isinstance(result, EvalResult) else [dict(d) for d in result]
    if not dicts:
        raise ValueError("result has no rows to plot")
    if metric not in dicts[0]:
        raise ValueError(f"metric {metric!r} is not a column; choose one of {sorted(dicts[0])}")
    k = dicts[0]["k"] if k is None else k
    lines: dict[str, list[tuple[float, float]]] = {}
    for d in dicts:
        if d["k"] != k or d.get("chunk_size") is None:
            continue
        label = f"{d['strategy']} overlap {d.get('overlap', d.get('chunk_overlap'))}"
        lines.setdefault(label, []).append((float(d["chunk_size"]), float(d[metric])))
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, pts in sorted(lines.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax.set_xlabel("chunk size")
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} at k={k}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    if path is not None:
        fig.savefig(check_path(path))
        plt.close(fig)
    return fig
