"""Span metrics (Chroma's definitions and the exact variant) and rank metrics against
pytrec_eval."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ragchunk.eval import bootstrap_ci, mean_std, rank_metrics, span_scores

pytrec_eval = pytest.importorskip("pytrec_eval")


# --- span metrics, hand-checked -------------------------------------------------------------


def test_chroma_touching_chunks_count_for_precision_omega() -> None:
    # Chunks [0,10) [10,20) [20,30); reference [10,20). The neighbours only touch it, yet
    # Chroma counts them: precision Ω = 10 / 30. Exactly, only [10,20) overlaps: 10 / 10.
    chunks = [(0, 10), (10, 20), (20, 30)]
    chroma = span_scores([(10, 20)], "d", [("d", 10, 20)], chunks)
    exact = span_scores([(10, 20)], "d", [("d", 10, 20)], chunks, mode="exact")
    assert chroma["precision_omega"] == pytest.approx(1 / 3)
    assert exact["precision_omega"] == 1.0
    assert chroma["recall"] == chroma["precision"] == chroma["iou"] == 1.0


def test_chroma_precision_divides_by_the_plain_sum_of_retrieved_lengths() -> None:
    # Two overlapping windows [0,20) and [10,30) over reference [10,20): Chroma's precision
    # divides by 20 + 20 = 40, the exact one by |[0,30)| = 30; a chunk of another corpus
    # counts in both denominators.
    got = [("d", 0, 20), ("d", 10, 30), ("e", 0, 10)]
    chroma = span_scores([(10, 20)], "d", got, [(0, 20), (10, 30)])
    exact = span_scores([(10, 20)], "d", got, [(0, 20), (10, 30)], mode="exact")
    assert chroma["precision"] == 10 / 50
    assert exact["precision"] == 10 / 40
    assert chroma["iou"] == 10 / 50
    assert exact["iou"] == 10 / 40


def test_chroma_recall_sums_overlapping_references_plainly() -> None:
    # References [0,10) and [5,15) (they overlap); chunk [0,10) retrieved.
    # Chroma: numerator |[0,10) ∩ ([0,15))| = 10; recall denominator 10 + 10 = 20; the
    # uncovered parts [10,15) of the second reference count in IoU's denominator once.
    s = span_scores([(0, 10), (5, 15)], "d", [("d", 0, 10)], [(0, 10), (10, 20)])
    assert s["recall"] == 10 / 20
    assert s["iou"] == 10 / (10 + 5)
    e = span_scores([(0, 10), (5, 15)], "d", [("d", 0, 10)], [(0, 10), (10, 20)], mode="exact")
    assert e["recall"] == 10 / 15
    assert e["iou"] == 10 / 15


def test_nothing_retrieved_and_other_corpus_only() -> None:
    assert span_scores([(0, 5)], "d", [], [(0, 5)])["precision"] == 0.0
    s = span_scores([(0, 5)], "d", [("e", 0, 5)], [(0, 5)])
    assert s["recall"] == s["precision"] == s["iou"] == 0.0
    with pytest.raises(ValueError, match="mode must be"):
        span_scores([(0, 5)], "d", [], mode="fuzzy")


# Chroma's procedure restated step by step (interval lists updated chunk by chunk), to check the
# closed forms above on random cases.
def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(ranges, key=lambda r: r[0]):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _remove(ranges: list[tuple[int, int]], cut: tuple[int, int]) -> list[tuple[int, int]]:
    out = []
    for s, e in ranges:
        if e < cut[0] or s > cut[1]:
            out.append((s, e))
            continue
        if s < cut[0]:
            out.append((s, cut[0]))
        if e > cut[1]:
            out.append((cut[1], e))
    return out


def _stepwise(refs, cid, retrieved, chunks):  # type: ignore[no-untyped-def]
    def walk(cands):  # type: ignore[no-untyped-def]
        num: list[tuple[int, int]] = []
        den: list[tuple[int, int]] = []
        unused = list(refs)
        for c, s, e in cands:
            if c != cid:
                continue
            for rs, re_ in refs:
                lo, hi = max(s, rs), min(e, re_)
                if lo <= hi:
                    unused = _remove(unused, (lo, hi))
                    num = _merge([(lo, hi), *num])
                    den = _merge([(s, e), *den])
        return num, den, unused

    size = lambda rs: sum(e - s for s, e in rs)  # noqa: E731
    num, _, unused = walk(retrieved)
    n = size(num)
    ret = sum(e - s for _, s, e in retrieved)
    tn, td, tu = walk([(cid, s, e) for s, e in chunks])
    omega = size(tn) / size(_merge(td + tu)) if tn else 0.0
    return {
        "recall": n / size(refs),
        "precision": n / ret if ret else 0.0,
        "iou": n / (ret + size(unused)) if ret + size(unused) else 0.0,
        "precision_omega": omega,
    }


span = st.tuples(st.integers(0, 60), st.integers(0, 20)).map(lambda t: (t[0], t[0] + t[1]))


@given(
    refs=st.lists(span.filter(lambda r: r[1] > r[0]), min_size=1, max_size=4),
    cuts=st.lists(st.integers(1, 79), max_size=10),
    picks=st.lists(st.tuples(st.sampled_from("de"), st.integers(0, 20)), max_size=6),
)
def test_chroma_mode_equals_the_stepwise_procedure(refs, cuts, picks) -> None:  # type: ignore[no-untyped-def]
    bounds = sorted({0, 80, *cuts})
    chunks = list(itertools.pairwise(bounds))
    retrieved = [(c, *chunks[i % len(chunks)]) for c, i in picks]
    got = span_scores(refs, "d", retrieved, chunks)
    want = _stepwise(refs, "d", retrieved, chunks)
    for name, value in want.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


def test_mean_std_and_bootstrap() -> None:
    assert mean_std([]) == (0.0, 0.0)
    m, s = mean_std([0.1, 0.5, 0.9])
    assert m == pytest.approx(0.5) and s == pytest.approx(math.sqrt(0.32 / 3))
    a = bootstrap_ci([0.1, 0.5, 0.9, 0.2] * 10, seed=3)
    assert a == bootstrap_ci([0.1, 0.5, 0.9, 0.2] * 10, seed=3)
    assert a[0] <= 0.425 <= a[1]
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci([1.0], confidence=1.5)


# --- rank metrics against pytrec_eval --------------------------------------------------------


def _oracle(qrels, run, k):  # type: ignore[no-untyped-def]
    ev = pytrec_eval.RelevanceEvaluator(
        qrels, {f"recall.{k}", f"P.{k}", f"ndcg_cut.{k}", f"success.{k}"}
    )
    full = ev.evaluate(run)
    # MRR@k is recip_rank on the run cut at k (in trec_eval's own order).
    cut = {}
    for q, docs in run.items():
        order = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)[:k]
        cut[q] = dict(order)
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
    return {
        q: {
            f"recall@{k}": m[f"recall_{k}"],
            f"precision@{k}": m[f"P_{k}"],
            f"ndcg@{k}": m[f"ndcg_cut_{k}"],
            f"hit_rate@{k}": m[f"success_{k}"],
            f"mrr@{k}": rr[q]["recip_rank"],
        }
        for q, m in full.items()
    }


def _assert_equal(got, want) -> None:  # type: ignore[no-untyped-def]
    assert set(got) == set(want)
    for q in want:
        for name, v in want[q].items():
            assert got[q][name] == pytest.approx(v, abs=1e-9), (q, name)


docs_ = st.sampled_from([f"d{i}" for i in range(8)])


@given(
    qrels=st.dictionaries(
        st.sampled_from(["q1", "q2", "q3"]),
        st.dictionaries(docs_, st.integers(0, 3), min_size=1),
        min_size=1,
    ),
    run=st.dictionaries(
        st.sampled_from(["q1", "q2", "q4"]),
        st.dictionaries(docs_, st.sampled_from([0.0, 0.5, 1.0, 2.5, 3.0]), min_size=1),
        min_size=1,
    ),
    k=st.sampled_from([1, 2, 3, 5, 10]),
)
def test_rank_metrics_equal_pytrec_eval_on_random_cases(qrels, run, k) -> None:  # type: ignore[no-untyped-def]
    if not any(v >= 1 for d in qrels.values() for v in d.values()):
        return  # trec_eval rejects judgments without a relevant document
    _assert_equal(rank_metrics(qrels, run, k), _oracle(qrels, run, k))


def test_rank_metrics_equal_pytrec_eval_on_the_shipped_dataset(chroma) -> None:  # type: ignore[no-untyped-def]
    from ragchunk import RecursiveSplitter
    from ragchunk.eval import evaluate

    row = evaluate(
        chroma, [RecursiveSplitter(chunk_size=200, chunk_overlap=0)], k=[10], relevance="graded"
    ).rows[0]
    # Rebuild qrels and the run from the spans the row exposes.
    from ragchunk.eval.sweep import chunk_corpora

    chunks = [
        (cid, c.start, c.end)
        for cid, c in chunk_corpora(chroma, RecursiveSplitter(chunk_size=200, chunk_overlap=0))
    ]
    qrels, run = {}, {}
    for q in chroma.questions:
        judged = {}
        for cid, s, e in chunks:
            cov = sum(max(0, min(e, r.end) - max(s, r.start)) for r in q.references)
            if cid == q.corpus_id and cov > 0:
                judged[f"{cid}:{s}"] = cov
        qrels[q.id] = judged
        run[q.id] = {f"{c}:{s}": float(10 - i) for i, (c, s, _) in enumerate(row.retrieved[q.id])}
    ours = rank_metrics(qrels, run, [1, 5, 10])
    for k in (1, 5, 10):
        _assert_equal(
            {q: {n: v for n, v in m.items() if n.endswith(f"@{k}")} for q, m in ours.items()},
            _oracle(qrels, run, k),
        )
    assert row.metrics["ndcg@10"] == pytest.approx(
        sum(m["ndcg@10"] for m in ours.values()) / len(ours)
    )


def test_rank_metrics_bad_k() -> None:
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        rank_metrics({"q": {"a": 1}}, {"q": {"a": 1.0}}, 0)
