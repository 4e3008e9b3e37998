"""Retrieval evaluation of chunkers: datasets with reference character spans, BM25 / dense /
hybrid retrievers, Chroma's span metrics and trec_eval's rank metrics, and sweeps over chunker
configurations; question sets generated from your own corpus (:func:`generate_questions`) and
answer-level metrics (:func:`answer_metrics`, ``evaluate(..., answers=llm)``).

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

from .answers import AnswerItem, AnswerRecord, answer_metrics, estimate_answers
from .dataset import Dataset, Question, Reference, load_chroma, load_jsonl, save_jsonl
from .generate import estimate_questions, generate_questions, locate_excerpt, read_corpora
from .metrics import bootstrap_ci, mean_std, rank_metrics, span_scores
from .retrievers import BM25, Dense, Hybrid, tokenize
from .sweep import EvalResult, ResultRow, chunk_corpora, evaluate, plot
from .text_metrics import exact_match, rouge, sentence_bleu, text_scores, token_f1

__all__ = [
    "BM25",
    "AnswerItem",
    "AnswerRecord",
    "Dataset",
    "Dense",
    "EvalResult",
    "Hybrid",
    "Question",
    "Reference",
    "ResultRow",
    "answer_metrics",
    "bootstrap_ci",
    "chunk_corpora",
    "estimate_answers",
    "estimate_questions",
    "evaluate",
    "exact_match",
    "generate_questions",
    "load_chroma",
    "load_jsonl",
    "locate_excerpt",
    "mean_std",
    "plot",
    "rank_metrics",
    "read_corpora",
    "rouge",
    "save_jsonl",
    "sentence_bleu",
    "span_scores",
    "text_scores",
    "token_f1",
    "tokenize",
]
