"""Overlap metrics of an answer against reference texts: SQuAD's exact match and token F1,
ROUGE-1/2/L and sentence BLEU, each defined as the reference implementation defines it.

* **Exact match and token F1** follow the SQuAD v2.0 evaluation script: the text is
  lowercased, ASCII punctuation (``string.punctuation``) removed, the articles ``a``, ``an``
  and ``the`` removed as whole words, and whitespace collapsed; F1 is the harmonic mean of the
  precision and recall of the shared tokens (a multiset). When either side has no token, both
  scores are 1 if neither has one, else 0. With several references the best score counts, and
  references that normalise to nothing are ignored unless all do.
* **ROUGE** equals the ``rouge-score`` package (``RougeScorer`` without stemming): the text is
  lowercased, every run of characters other than ``a-z`` and ``0-9`` is a separator (text in
  other scripts has no ROUGE token at all, as there); ROUGE-N counts clipped n-gram matches,
  ROUGE-L the longest common subsequence of the whole token sequences. With several
  references, each type takes the reference of the highest F-measure, first on ties
  (``score_multi``).
* **BLEU** equals ``sacrebleu.sentence_bleu`` with its defaults: the ``13a`` tokenizer, 4-gram
  precisions clipped by the largest count in any reference, the brevity penalty against the
  closest reference length (the shorter on ties), exponential smoothing (``exp``: a zero count
  at order n becomes ``1 / (2^k · total)``) and the effective order; on sacrebleu's 0-100
  scale.

>>> round(token_f1("The cat sat.", "a cat sat on the mat"), 4)
0.6667
>>> exact_match("The Eiffel Tower!", ["eiffel tower"])
1.0
>>> rouge("the cat sat", "the cat sat down")["rougeL"].fmeasure
0.8571428571428571
>>> round(sentence_bleu("The cat sat on the mat.", ["The cat sat on a mat."]), 4)
48.8923
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

__all__ = [
    "ROUGE_TYPES",
    "RougeScore",
    "bleu_tokens",
    "exact_match",
    "rouge",
    "rouge_tokens",
    "sentence_bleu",
    "squad_normalize",
    "text_scores",
    "token_f1",
]

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


def _refs(references: str | Sequence[str], name: str = "references") -> list[str]:
    if isinstance(references, str):
        return [references]
    if not isinstance(references, Sequence):
        raise TypeError(f"{name} must be a str or a list of str, got {type(references).__name__}")
    out = list(references)
    for i, r in enumerate(out):
        if not isinstance(r, str):
            raise TypeError(f"{name}[{i}] must be a str, got {type(r).__name__}")
    if not out:
        raise ValueError(f"{name} must not be empty")
    return out


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


# -- SQuAD --------------------------------------------------------------------------------

_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def squad_normalize(text: str) -> str:
    """SQuAD's answer normalisation: lowercase, drop ASCII punctuation, drop the articles
    ``a``/``an``/``the`` as whole words, collapse whitespace (in that order, so ``the-end``
    becomes ``theend``, which keeps its ``the``).

    >>> squad_normalize("  The Quick, brown fox's den! ")
    'quick brown foxs den'
    >>> squad_normalize("the-end")
    'theend'
    """
    return " ".join(_ARTICLES.sub(" ", _text(text, "text").lower().translate(_PUNCT)).split())


def _squad_golds(references: list[str]) -> list[str]:
    # SQuAD v2 scores against the gold answers that normalise to something; when none does
    # the only gold is the empty answer.
    kept = [r for r in references if squad_normalize(r)]
    return kept or [""]


def exact_match(prediction: str, references: str | Sequence[str]) -> float:
    """1.0 when ``prediction`` equals a reference after :func:`squad_normalize`, else 0.0.

    >>> exact_match("Paris.", ["paris", "Paris, France"])
    1.0
    >>> exact_match("", [""])
    1.0
    """
    pred = squad_normalize(_text(prediction, "prediction"))
    return float(any(squad_normalize(g) == pred for g in _squad_golds(_refs(references))))


def _f1(gold: list[str], pred: list[str]) -> float:
    if not gold or not pred:
        return float(gold == pred)
    common = sum((Counter(gold) & Counter(pred)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred)
    recall = common / len(gold)
    return (2 * precision * recall) / (precision + recall)


def token_f1(prediction: str, references: str | Sequence[str]) -> float:
    """SQuAD's token F1 of ``prediction``, the best over ``references``.

    >>> token_f1("in the garden", "The garden")
    0.6666666666666666
    >>> token_f1("", "something"), token_f1("", "")
    (0.0, 1.0)
    """
    pred = squad_normalize(_text(prediction, "prediction")).split()
    return max(_f1(squad_normalize(g).split(), pred) for g in _squad_golds(_refs(references)))


# -- ROUGE --------------------------------------------------------------------------------


class RougeScore(NamedTuple):
    """Precision, recall and F-measure of one ROUGE type (``rouge_score.scoring.Score``).

    >>> RougeScore(0.5, 1.0, 0.6666666666666666).fmeasure
    0.6666666666666666
    """

    precision: float
    recall: float
    fmeasure: float


_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def rouge_tokens(text: str) -> list[str]:
    """The tokens ROUGE compares (``rouge-score``'s default tokenizer, no stemming).

    >>> rouge_tokens("Don't stop: 3.5 km, Zürich!")
    ['don', 't', 'stop', '3', '5', 'km', 'z', 'rich']
    """
    return _NON_ALNUM.sub(" ", _text(text, "text").lower()).split()


def _fmeasure(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _rouge_n(target: list[str], pred: list[str], n: int) -> RougeScore:
    t, p = _ngrams(target, n), _ngrams(pred, n)
    hit = sum(min(c, p[g]) for g, c in t.items() if g in p)
    precision = hit / max(sum(p.values()), 1)
    recall = hit / max(sum(t.values()), 1)
    return RougeScore(precision, recall, _fmeasure(precision, recall))


def _lcs(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence, bit-parallel (one big-int step per token
    of ``b``, Allison-Dix / Crochemore et al.): a few microseconds per pair of answers where
    the dynamic-programming table of ``rouge-score`` takes milliseconds."""
    masks: dict[str, int] = {}
    for i, tok in enumerate(a):
        masks[tok] = masks.get(tok, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for tok in b:
        m = masks.get(tok)
        if m is None:
            continue
        u = v & m
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def _rouge_l(target: list[str], pred: list[str]) -> RougeScore:
    if not target or not pred:
        return RougeScore(0.0, 0.0, 0.0)
    n = _lcs(target, pred)
    precision = n / len(pred)
    recall = n / len(target)
    return RougeScore(precision, recall, _fmeasure(precision, recall))


def _rouge_type(kind: str) -> int:
    if kind == "rougeL":
        return 0
    m = re.fullmatch(r"rouge([1-9])", kind)
    if m is None:
        raise ValueError(f"types: {kind!r} is not rouge1..rouge9 or rougeL")
    return int(m.group(1))


def rouge(
    prediction: str,
    references: str | Sequence[str],
    types: Iterable[str] = ROUGE_TYPES,
) -> dict[str, RougeScore]:
    """ROUGE scores of ``prediction`` per type (``rouge1``... ``rouge9``, ``rougeL``); with
    several references, per type the one with the highest F-measure (the first on ties).

    >>> s = rouge("the cat was found under the bed", "the cat was under the bed")
    >>> round(s["rouge1"].fmeasure, 4), round(s["rouge2"].recall, 4)
    (0.9231, 0.8)
    """
    kinds = list(types)
    orders = [_rouge_type(k) for k in kinds]
    pred = rouge_tokens(_text(prediction, "prediction"))
    best: dict[str, RougeScore] = {}
    for ref in _refs(references):
        target = rouge_tokens(ref)
        for kind, n in zip(kinds, orders, strict=True):
            s = _rouge_l(target, pred) if n == 0 else _rouge_n(target, pred, n)
            if kind not in best or s.fmeasure > best[kind].fmeasure:
                best[kind] = s
    return best


# -- BLEU ---------------------------------------------------------------------------------

_13A = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def bleu_tokens(text: str) -> list[str]:
    """The tokens of sacrebleu's ``13a`` tokenizer (mteval-v13a, as WMT uses): ASCII
    punctuation and symbols other than ``-`` split off, periods and commas split unless
    between digits, a dash after a digit split, HTML entities for quotes, ``&``, ``<`` and
    ``>`` decoded.

    >>> bleu_tokens("It costs $3,500.00 (approx.) &amp; more-or-less 5-6.")
    ['It', 'costs', '$', '3,500.00', '(', 'approx', '.', ')', '&', 'more-or-less', '5', '-', \
'6', '.']
    """
    line = _text(text, "text").rstrip()
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = (
            line.replace("&quot;", '"')
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
        )
    line = f" {line} "
    for pattern, repl in _13A:
        line = pattern.sub(repl, line)
    return line.split()


def _all_ngrams(tokens: list[str], order: int) -> Counter[tuple[str, ...]]:
    out: Counter[tuple[str, ...]] = Counter()
    for n in range(1, order + 1):
        out.update(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return out


def sentence_bleu(prediction: str, references: str | Sequence[str], order: int = 4) -> float:
    """Sentence BLEU of ``prediction`` on sacrebleu's 0-100 scale (``sacrebleu.sentence_bleu``
    with its defaults).

    >>> round(sentence_bleu("a b c d", ["a b c d"]), 10)
    100.0
    >>> sentence_bleu("x y", ["a b c d"])
    0.0
    """
    hyp = bleu_tokens(_text(prediction, "prediction"))
    ref_counts: Counter[tuple[str, ...]] = Counter()
    ref_lens = []
    for i, ref in enumerate(_refs(references)):
        toks = bleu_tokens(ref)
        ref_lens.append(len(toks))
        counts = _all_ngrams(toks, order)
        if i == 0:
            ref_counts = counts
        else:
            for g, c in counts.items():
                if c > ref_counts[g]:
                    ref_counts[g] = c
    sys_len = len(hyp)
    ref_len = min(ref_lens, key=lambda n: (abs(sys_len - n), n))
    correct = [0] * order
    total = [0] * order
    for g, c in _all_ngrams(hyp, order).items():
        total[len(g) - 1] += c
        if g in ref_counts:
            correct[len(g) - 1] += min(c, ref_counts[g])
    if not any(correct):
        return 0.0
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    precisions = [0.0] * order
    smooth = 1.0
    eff = order
    for n in range(1, order + 1):
        if total[n - 1] == 0:
            break
        eff = n
        if correct[n - 1] == 0:
            smooth *= 2
            precisions[n - 1] = 100.0 / (smooth * total[n - 1])
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    logs = [math.log(p) if p != 0.0 else -9999999999 for p in precisions[:eff]]
    return bp * math.exp(sum(logs) / eff)


# -- all of them ---------------------------------------------------------------------------

TEXT_METRICS = ("exact_match", "token_f1", "rouge1", "rouge2", "rougeL", "bleu")


def text_scores(
    prediction: str, references: str | Sequence[str], combine: str = "join"
) -> dict[str, float]:
    """Every overlap metric of ``prediction``: ``exact_match``, ``token_f1``, ``rouge1``,
    ``rouge2``, ``rougeL`` (F-measures) and ``bleu`` (sacrebleu's score / 100), all in [0, 1].

    ``combine="join"`` (the default) scores against the references joined by spaces, one
    text: the excerpts of a generated question are parts of one answer, not alternatives.
    ``combine="max"`` treats them as alternative answers, the convention of each reference
    implementation: the best exact match and F1, ROUGE's best F-measure per type, and
    multi-reference BLEU.

    >>> s = text_scores("Cats purr when content.", ["Cats purr", "when they are content."])
    >>> s["token_f1"], s["exact_match"], round(s["rouge1"], 4)
    (0.8, 0.0, 0.8)
    """
    if combine not in ("join", "max"):
        raise ValueError(f"combine must be 'join' or 'max', got {combine!r}")
    refs = _refs(references)
    if combine == "join":
        refs = [" ".join(refs)]
    r = rouge(prediction, refs)
    return {
        "exact_match": exact_match(prediction, refs),
        "token_f1": token_f1(prediction, refs),
        "rouge1": r["rouge1"].fmeasure,
        "rouge2": r["rouge2"].fmeasure,
        "rougeL": r["rougeL"].fmeasure,
        # sacrebleu's perfect score is 100.00000000000004 (exp of a mean of logs)
        "bleu": min(1.0, sentence_bleu(prediction, refs) / 100.0),
    }
