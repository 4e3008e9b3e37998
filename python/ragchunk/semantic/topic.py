"""TopicChunker: sentences assigned to bag-of-words topics (LDA), runs of one topic grouped."""

from __future__ import annotations

import re
from typing import Any

from ..core.checks import check_int
from ..core.optional import np
from ._base import EmbeddingChunker, SemanticAnalysis

__all__ = ["TopicChunker"]

_WORD = re.compile(r"[^\W\d_]{2,}|[\u3400-\u9fff\uf900-\ufaff]", re.UNICODE)
_STOP = frozenset(
    "the a an and or of to in on for with is are was were be been it its this that these those"
    " as at by from not but if then than so such can will would should may might do does did"
    " has have had you your we our they their he she his her them there here which who what"
    " when where how all any each more most other some into out up down over also only".split()
)


def _digamma(x: Any) -> Any:
    """The digamma function (recurrence up to 6, then the asymptotic series)."""
    x = np.asarray(x, dtype=np.float64)
    result = np.zeros_like(x)
    x = x.copy()
    while True:
        small = x < 6.0
        if not small.any():
            break
        result[small] -= 1.0 / x[small]
        x[small] += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return result + np.log(x) - 0.5 * inv - series


class TopicChunker(EmbeddingChunker):
    """Chunks of consecutive sentences that share a topic.

    Topics come from latent Dirichlet allocation over the sentences' bags of words (lowercase
    words of two letters or more, CJK characters one by one, common English function words
    left out), fitted on the document itself by batch variational Bayes, starting from
    topic ``t`` = the words of the ``t``-th contiguous part of the document (plus seeded
    noise), so the result is deterministic. Each sentence takes the most probable topic of
    its neighbourhood (``window``); runs
    of one topic form a chunk; ``chunk_size`` (tokens) is a hard maximum: a longer run is cut
    where the topic mixtures of neighbouring sentences differ most. ``metadata`` has
    ``topic`` (its index), ``keywords`` (the topic's top words) and ``sentences``.

    Args:
        n_topics: number of topics (default: between 2 and 10, one per ten sentences).
        chunk_size: hard maximum in tokens (None: no maximum).
        keywords: how many top words describe a topic.
        iterations: variational EM passes.
        seed: the seed of the initial topics.
        window: a sentence's topic is the most probable one of the summed mixtures of the
            sentences up to ``window`` away (0: its own), which keeps short digressions in.

    >>> text = ("Cats purr. Cats meow. Cats nap. Stocks fell. Stocks rose. Stocks dipped.")
    >>> [c.metadata["keywords"][0] for c in TopicChunker(n_topics=2).split(text)]
    ['cats', 'stocks']
    """

    def __init__(
        self,
        n_topics: int | None = None,
        chunk_size: int | None = 512,
        tokenizer: Any = "cl100k_base",
        keywords: int = 5,
        iterations: int = 15,
        alpha: float = 0.1,
        eta: float = 0.01,
        seed: int = 0,
        window: int = 1,
    ) -> None:
        self.window = check_int("window", window, 0)
        self.n_topics = None if n_topics is None else check_int("n_topics", n_topics, 1)
        self.keywords = check_int("keywords", keywords, 1)
        self.iterations = check_int("iterations", iterations, 1)
        self.seed = check_int("seed", seed, 0)
        for name, value in (("alpha", alpha), ("eta", eta)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"{name} must be a number > 0, got {value!r}")
        self.alpha, self.eta = float(alpha), float(eta)
        self._setup(None, chunk_size, tokenizer)

    def __repr__(self) -> str:
        return (
            f"TopicChunker(n_topics={self.n_topics}, chunk_size={self.chunk_size}, "
            f"tokenizer={self.tokenizer!r}, keywords={self.keywords}, seed={self.seed})"
        )

    def fit(self, sentences: list[str]) -> tuple[Any, Any, list[str]]:
        """``(sentence-topic mixtures (n, k), topic-word weights (k, V), vocabulary)``."""
        bags = [[w for w in _WORD.findall(s.lower()) if w not in _STOP] for s in sentences]
        vocab = sorted({w for bag in bags for w in bag})
        index = {w: i for i, w in enumerate(vocab)}
        n = len(sentences)
        k = self.n_topics or min(10, max(2, n // 10))
        if not vocab:
            return np.full((n, k), 1.0 / k), np.ones((k, 1)), ["-"]
        x = np.zeros((n, len(vocab)))
        for d, bag in enumerate(bags):
            for w in bag:
                x[d, index[w]] += 1.0
        # start: topic t holds the words of the t-th contiguous part of the document, plus a
        # little seeded noise (so equal parts still differ)
        rng = np.random.default_rng(self.seed)
        lam = rng.gamma(100.0, 0.01, (k, len(vocab)))
        for d in range(n):
            lam[min(k - 1, d * k // n)] += x[d]
        gamma = np.ones((n, k))
        block = 256
        for _ in range(self.iterations):
            exp_beta = np.exp(_digamma(lam) - _digamma(lam.sum(axis=1))[:, None])
            stats = np.zeros_like(lam)
            for lo in range(0, n, block):
                xb = x[lo : lo + block]
                g = np.full((xb.shape[0], k), self.alpha) + xb.sum(axis=1, keepdims=True) / k
                for _ in range(20):
                    theta = np.exp(_digamma(g) - _digamma(g.sum(axis=1))[:, None])
                    norm = theta @ exp_beta + 1e-100
                    new = self.alpha + theta * ((xb / norm) @ exp_beta.T)
                    done = np.abs(new - g).mean() < 1e-4
                    g = new
                    if done:
                        break
                theta = np.exp(_digamma(g) - _digamma(g.sum(axis=1))[:, None])
                norm = theta @ exp_beta + 1e-100
                stats += (theta.T @ (xb / norm)) * exp_beta
                gamma[lo : lo + block] = g
            lam = self.eta + stats
        mix = gamma / gamma.sum(axis=1, keepdims=True)
        return mix, lam, vocab

    def _cuts(self, text: str, units: list[tuple[int, int]]) -> SemanticAnalysis:
        mix, lam, vocab = self.fit([text[s:e] for s, e in units])
        smooth = mix.copy()
        for off in range(1, self.window + 1):
            smooth[off:] += mix[:-off]
            smooth[:-off] += mix[off:]
        topics = [int(t) for t in np.argmax(smooth, axis=1)]
        norms = np.linalg.norm(mix, axis=1)
        distances = [
            float(1.0 - mix[i] @ mix[i + 1] / (norms[i] * norms[i + 1]))
            for i in range(len(units) - 1)
        ]
        groups, start = [], 0
        for i in range(1, len(units)):
            if topics[i] != topics[i - 1]:
                groups.append((start, i - 1))
                start = i
        groups.append((start, len(units) - 1))
        reasons: dict[int, str] = {g[1]: "topic" for g in groups[:-1]}
        groups = self._enforce_max(text, units, distances, groups, reasons)
        chunks = self._chunks(text, units, groups, distances, reasons)
        top = np.argsort(-lam, axis=1, kind="stable")[:, : self.keywords]
        out = []
        for c, (first, _) in zip(chunks, groups, strict=True):
            t = topics[first]
            meta = dict(c.metadata)
            meta["topic"] = t
            meta["keywords"] = [vocab[j] for j in top[t]]
            out.append(type(c)(c.text, c.start, c.end, c.token_count, meta))
        breaks = [g[1] for g in groups[:-1]]
        return SemanticAnalysis(units, distances, None, breaks, None, out, "topic")
