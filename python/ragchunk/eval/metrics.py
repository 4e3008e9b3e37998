"""Span metrics (character ranges retrieved vs reference excerpts) and rank metrics
(trec_eval's Recall@k, Precision@k, NDCG@k, MRR@k, hit rate), with bootstrap intervals.

Two flavours of span metrics, per question:

``chroma`` (Chroma's ``base_evaluation.py``, quirks included):
    * a retrieved chunk of the question's corpus *intersects* a reference when
      ``max(starts) <= min(ends)``, so ranges that merely touch count;
    * ``recall = |C ∩ R| / Σ|r|`` where ``C`` is the union of the retrieved chunks of the
      question's corpus, ``R`` the union of the references, and the denominator the plain sum
      of the reference lengths;
    * ``precision = |C ∩ R| / Σ|c|``, the plain sum of the lengths of all ``k`` retrieved chunks
      (other corpora and repeated text included);
    * ``iou = |C ∩ R| / (Σ|c| + Σ_r |r \\ C|)``;
    * ``precision_omega``: the same ratio as IoU's union form for *every* chunk of the corpus that
      intersects (or touches) a reference: ``|C* ∩ R| / |C* ∪ (R \\ C*)|``, 0 when none does.

``exact`` (set arithmetic on code points, no quirks):
    * a chunk overlaps a reference only if they share at least one character;
    * ``recall = |C ∩ R| / |R|``, ``precision = |C ∩ R| / |C_all|`` with ``C_all`` the union of
      all retrieved spans (any corpus), ``iou = |C ∩ R| / |C_all ∪ R|``;
    * ``precision_omega = |C* ∩ R| / |C*|`` where ``C*`` is the union of the chunks that
      overlap a reference.

A ratio whose denominator is zero is 0.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "SPAN_METRICS",
    "bootstrap_ci",
    "mean_std",
    "rank_metrics",
    "span_scores",
]

SPAN_METRICS = ("recall", "precision", "precision_omega", "iou")

Span = tuple[str, int, int]
Range = tuple[int, int]


def _union(ranges: Iterable[Range], touching: bool) -> list[Range]:
    out: list[Range] = []
    for s, e in sorted(ranges):
        if out and (s <= out[-1][1] if touching else s < out[-1][1]):
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def _measure(ranges: Iterable[Range]) -> int:
    return sum(e - s for s, e in _union(ranges, True))


def _intersect(a: list[Range], b: list[Range]) -> int:
    """|A ∩ B| of two unions (sorted, disjoint)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def span_scores(
    references: Sequence[Range],
    corpus_id: str,
    retrieved: Sequence[Span],
    corpus_chunks: Sequence[Range] = (),
    mode: str = "chroma",
) -> dict[str, float]:
    """Recall, precision, precision Ω and IoU of one question.

    Args:
        references: the question's ``(start, end)`` excerpts.
        corpus_id: the question's corpus.
        retrieved: the retrieved chunks, ``(corpus_id, start, end)``, in rank order.
        corpus_chunks: every chunk ``(start, end)`` of the question's corpus (for precision Ω).
        mode: ``"chroma"`` or ``"exact"`` (see the module docs).

    >>> refs = [(10, 20)]
    >>> s = span_scores(refs, "d", [("d", 0, 15), ("e", 0, 5)], [(0, 15), (15, 30)])
    >>> s["recall"], s["precision"], round(s["iou"], 4), s["precision_omega"]
    (0.5, 0.25, 0.2, 0.3333333333333333)
    >>> thirds = [(0, 10), (10, 20), (20, 30)]
    >>> span_scores([(10, 20)], "d", [("d", 20, 30)], thirds)["precision_omega"]
    0.3333333333333333
    >>> span_scores([(10, 20)], "d", [("d", 20, 30)], thirds, mode="exact")["precision_omega"]
    1.0
    """
    if mode not in ("chroma", "exact"):
        raise ValueError(f"mode must be 'chroma' or 'exact', got {mode!r}")
    refs = [(int(s), int(e)) for s, e in references]
    r_union = _union(refs, True)
    same = [(s, e) for c, s, e in retrieved if c == corpus_id]
    c_union = _union(same, True)
    hit = _intersect(c_union, r_union)
    if mode == "chroma":
        ref_sum = sum(e - s for s, e in refs)
        ret_sum = sum(e - s for _, s, e in retrieved)
        unused = sum(_uncovered(r, c_union) for r in refs)
        touched = [
            c for c in corpus_chunks if any(max(c[0], r[0]) <= min(c[1], r[1]) for r in refs)
        ]
        if touched:
            t_union = _union(touched, True)
            t_hit = _intersect(t_union, r_union)
            rest = [p for r in refs for p in _pieces(r, t_union)]
            omega = _ratio(t_hit, _measure(t_union + rest))
        else:
            omega = 0.0
        return {
            "recall": _ratio(hit, ref_sum),
            "precision": _ratio(hit, ret_sum),
            "precision_omega": omega,
            "iou": _ratio(hit, ret_sum + unused),
        }
    r_size = _measure(r_union)
    by_corpus: dict[str, list[Range]] = {}
    for c, s, e in retrieved:
        by_corpus.setdefault(c, []).append((s, e))
    all_size = sum(_measure(v) for v in by_corpus.values())
    overl = [c for c in corpus_chunks if any(min(c[1], r[1]) > max(c[0], r[0]) for r in refs)]
    o_union = _union(overl, True)
    return {
        "recall": _ratio(hit, r_size),
        "precision": _ratio(hit, all_size),
        "precision_omega": _ratio(_intersect(o_union, r_union), _measure(o_union)),
        "iou": _ratio(hit, all_size + r_size - hit),
    }


def _pieces(r: Range, covered: list[Range]) -> list[Range]:
    """The parts of ``r`` outside ``covered`` (sorted, disjoint)."""
    out, at = [], r[0]
    for s, e in covered:
        if e <= at or s >= r[1]:
            continue
        if s > at:
            out.append((at, s))
        at = max(at, e)
    if at < r[1]:
        out.append((at, r[1]))
    return out


def _uncovered(r: Range, covered: list[Range]) -> int:
    return sum(e - s for s, e in _pieces(r, covered))


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and population standard deviation (numpy's ``np.std``), ``(0, 0)`` when empty.

    >>> mean_std([1.0, 3.0])
    (2.0, 1.0)
    """
    if not values:
        return 0.0, 0.0
    m = math.fsum(values) / len(values)
    return m, math.sqrt(math.fsum((v - m) ** 2 for v in values) / len(values))


def bootstrap_ci(
    values: Sequence[float], confidence: float = 0.95, resamples: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean of ``values`` (seeded, so
    repeatable).

    >>> lo, hi = bootstrap_ci([0.0, 1.0] * 50, seed=1)
    >>> lo < 0.5 < hi
    True
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an int >= 1, got {resamples!r}")
    vals = list(values)
    if not vals:
        return 0.0, 0.0
    rng = random.Random(seed)
    n = len(vals)
    means = sorted(math.fsum(rng.choices(vals, k=n)) / n for _ in range(resamples))
    alpha = (1 - confidence) / 2
    lo = means[min(resamples - 1, math.floor(alpha * resamples))]
    hi = means[min(resamples - 1, math.ceil((1 - alpha) * resamples) - 1)]
    return lo, hi


def _trec_order(run: Mapping[str, float]) -> list[str]:
    # trec_eval ranks by score, higher first, and breaks ties by document id, larger first.
    return [d for d, _ in sorted(run.items(), key=lambda x: (float(x[1]), x[0]), reverse=True)]


def rank_metrics(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    k: int | Sequence[int],
) -> dict[str, dict[str, float]]:
    """Recall@k, Precision@k, NDCG@k, MRR@k and hit rate@k per query, in ``pytrec_eval``'s
    shapes and with trec_eval's conventions (equal to ``pytrec_eval``'s ``recall.k``, ``P.k``,
    ``ndcg_cut.k``, ``recip_rank`` on the run cut at ``k``, and ``success.k``):

    * documents rank by score, higher first, ties by document id, larger first;
    * a document is relevant when its judged relevance is >= 1; NDCG's gain is the relevance,
      and the ideal DCG ranks *all* judged documents of the query;
    * Precision@k divides by ``k`` even when fewer documents were retrieved;
    * only queries both judged and run are scored.

    >>> qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    >>> run = {"q": {"a": 0.9, "b": 0.8, "x": 0.1}}
    >>> m = rank_metrics(qrels, run, 2)["q"]
    >>> m["recall@2"], m["precision@2"], m["mrr@2"], m["hit_rate@2"], round(m["ndcg@2"], 4)
    (0.5, 0.5, 1.0, 1.0, 0.3801)
    """
    ks = [k] if isinstance(k, int) and not isinstance(k, bool) else list(k)  # type: ignore[arg-type]
    for kk in ks:
        if isinstance(kk, bool) or not isinstance(kk, int) or kk <= 0:
            raise ValueError(f"k must be an int >= 1 (or a list of them), got {kk!r}")
    if not isinstance(qrels, Mapping) or not isinstance(run, Mapping):
        raise TypeError("qrels and run must be mappings {qid: {docid: value}}")
    out: dict[str, dict[str, float]] = {}
    for qid, docs in run.items():
        if qid not in qrels:
            continue
        judged = qrels[qid]
        order = _trec_order(docs)
        n_rel = sum(1 for v in judged.values() if v >= 1)
        ideal = sorted((v for v in judged.values() if v > 0), reverse=True)
        row: dict[str, float] = {}
        for kk in ks:
            top = order[:kk]
            rels = [judged.get(d, 0) for d in top]
            hits = sum(1 for v in rels if v >= 1)
            dcg = sum(v / math.log2(i + 2) for i, v in enumerate(rels) if v > 0)
            idcg = sum(v / math.log2(i + 2) for i, v in enumerate(ideal[:kk]))
            first = next((i for i, v in enumerate(rels) if v >= 1), None)
            row[f"recall@{kk}"] = hits / n_rel if n_rel else 0.0
            row[f"precision@{kk}"] = hits / kk
            row[f"ndcg@{kk}"] = dcg / idcg if idcg else 0.0
            row[f"mrr@{kk}"] = 1.0 / (first + 1) if first is not None else 0.0
            row[f"hit_rate@{kk}"] = 1.0 if hits else 0.0
        out[qid] = row
    return out
