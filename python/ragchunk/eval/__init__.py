"""Retrieval evaluation of chunkers: datasets with reference character spans, BM25 / dense /
hybrid retrievers, Chroma's span metrics and trec_eval's rank metrics, and sweeps over chunker
configurations.

>>> from ragchunk import RecursiveSplitter
>>> from ragchunk.eval import Dataset, Question, Reference, evaluate
>>> text = "Paris is in France. Rome is in Italy. Berlin is in Germany. Madrid is in Spain."
>>> q = Question("Where is Rome?", "geo", (Reference(20, 37, text[20:37]),))
>>> ds = Dataset({"geo": text}, [q])
>>> row = evaluate(ds, [RecursiveSplitter(chunk_size=6, chunk_overlap=0)], k=[1]).rows[0]
>>> row.metrics["recall@1"], row.retrieved["q0"]
(0.5, [('geo', 0, 24)])
"""

from __future__ import annotations

from .dataset import Dataset, Question, Reference, load_chroma, load_jsonl, save_jsonl
from .metrics import bootstrap_ci, mean_std, rank_metrics, span_scores
from .retrievers import BM25, Dense, Hybrid, tokenize
from .sweep import EvalResult, ResultRow, chunk_corpora, evaluate, plot

__all__ = [
    "BM25",
    "Dataset",
    "Dense",
    "EvalResult",
    "Hybrid",
    "Question",
    "Reference",
    "ResultRow",
    "bootstrap_ci",
    "chunk_corpora",
    "evaluate",
    "load_chroma",
    "load_jsonl",
    "mean_std",
    "plot",
    "rank_metrics",
    "save_jsonl",
    "span_scores",
    "tokenize",
]
