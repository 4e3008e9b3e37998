"""Answer overlap metrics against their reference implementations: ROUGE against
``rouge-score``, BLEU against ``sacrebleu`` on thousands of seeded pairs in several scripts, and
SQuAD's exact match and token F1 against cases derived from the SQuAD v2.0 evaluation script's
rules."""

from __future__ import annotations

import random
import time

import pytest
from ragchunk.eval.text_metrics import (
    bleu_tokens,
    exact_match,
    rouge,
    rouge_tokens,
    sentence_bleu,
    squad_normalize,
    text_scores,
    token_f1,
)

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
sacrebleu = pytest.importorskip("sacrebleu")
Tokenizer13a = pytest.importorskip("sacrebleu.tokenizers.tokenizer_13a").Tokenizer13a

pytestmark = pytest.mark.single_backend

WORDS = {
    "latin": "the a an cat sat on mat Zürich café naïve über résumé don't it's 3.5 1,000 km "
    "e-mail state-of-the-art U.S. Dr. (see) [note] {x} $5 50% #tag @user a/b x_y".split(),
    "cyrillic": "кот сидел на ковре Москва река быстро и не да".split(),
    "greek": "ο γάτος κάθεται στο χαλί Αθήνα και".split(),
    "cjk": "猫 坐在 垫子 上 東京 日本語 です 。 ，".split(),
    "arabic": "القط جلس على السجادة في".split(),
    "symbols": "&amp; &quot; &lt; &gt; <skipped> - -- ... ! ? ; : , . — “quoted” ‘single’".split(),
}


def _pairs(n: int, seed: int) -> list[tuple[str, list[str]]]:
    rng = random.Random(seed)
    pools = list(WORDS.values())
    out = []
    for _ in range(n):
        pool = [w for p in rng.sample(pools, rng.randint(1, 3)) for w in p]
        ref = [rng.choice(pool) for _ in range(rng.randint(0, 30))]
        pred = list(ref)
        for _ in range(rng.randint(0, 8)):  # mutate: drop, insert, swap, duplicate
            op = rng.random()
            if pred and op < 0.3:
                pred.pop(rng.randrange(len(pred)))
            elif op < 0.6:
                pred.insert(rng.randint(0, len(pred)), rng.choice(pool))
            elif pred and op < 0.8:
                i, j = rng.randrange(len(pred)), rng.randrange(len(pred))
                pred[i], pred[j] = pred[j], pred[i]
            elif pred:
                pred.insert(rng.randint(0, len(pred)), rng.choice(pred))
        sep = rng.choice([" ", " ", "  ", "\n", " \t"])
        refs = [sep.join(ref)]
        if rng.random() < 0.4:  # a second, partly related reference
            refs.append(" ".join(rng.sample(pool, min(len(pool), rng.randint(1, 12)))))
        out.append((sep.join(pred), refs))
    return out


PAIRS = _pairs(3000, seed=20240611)


def test_rouge_equals_rouge_score_on_thousands_of_pairs() -> None:
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=False)
    nonzero = 0
    started = time.perf_counter()
    for pred, refs in PAIRS:
        ours = rouge(pred, refs)
        theirs = scorer.score_multi(refs, pred)
        for kind in ("rouge1", "rouge2", "rougeL"):
            t = theirs[kind]
            assert tuple(ours[kind]) == (t.precision, t.recall, t.fmeasure), (kind, pred, refs)
        nonzero += ours["rougeL"].fmeasure > 0
    assert time.perf_counter() - started < 30
    assert nonzero > len(PAIRS) // 3  # the pairs exercise real overlaps, not only zeros


def test_rouge_single_reference_and_tokens() -> None:
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rouge3", "rougeL"])
    for pred, refs in PAIRS[:500]:
        theirs = scorer.score(refs[0], pred)
        ours = rouge(pred, refs[0], types=("rouge1", "rouge2", "rouge3", "rougeL"))
        assert {k: tuple(v) for k, v in ours.items()} == {k: tuple(v) for k, v in theirs.items()}
        assert rouge_tokens(refs[0]) == scorer._tokenizer.tokenize(refs[0])
    with pytest.raises(ValueError, match="rougeLsum"):
        rouge("a", "a", types=("rougeLsum",))


def test_bleu_equals_sacrebleu_on_thousands_of_pairs() -> None:
    tok = Tokenizer13a()
    nonzero = 0
    started = time.perf_counter()
    for pred, refs in PAIRS:
        theirs = sacrebleu.sentence_bleu(pred, refs).score
        ours = sentence_bleu(pred, refs)
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12), (pred, refs)
        assert bleu_tokens(refs[0]) == tok(refs[0].rstrip()).split()
        nonzero += ours > 0
    assert time.perf_counter() - started < 30
    assert nonzero > len(PAIRS) // 3


def test_text_scores_join_and_max() -> None:
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    for pred, refs in PAIRS[:300]:
        joined = text_scores(pred, refs)
        assert joined["rougeL"] == scorer.score(" ".join(refs), pred)["rougeL"].fmeasure
        assert joined["bleu"] * 100 == pytest.approx(
            sacrebleu.sentence_bleu(pred, [" ".join(refs)]).score, rel=1e-12, abs=1e-12
        )
        best = text_scores(pred, refs, combine="max")
        assert best["rouge2"] == scorer.score_multi(refs, pred)["rouge2"].fmeasure
        golds = [r for r in refs if squad_normalize(r)] or [""]  # SQuAD v2 drops empty golds
        assert best["token_f1"] == max(token_f1(pred, r) for r in golds)
        assert all(0.0 <= v <= 1.0 for v in (*joined.values(), *best.values()))
    with pytest.raises(ValueError, match="combine"):
        text_scores("a", ["a"], combine="mean")
    with pytest.raises(TypeError, match="references\\[0\\]"):
        text_scores("a", [1])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="references must not be empty"):
        token_f1("a", [])


# SQuAD v2.0's evaluation script: normalize_answer = white_space_fix(remove_articles(
# remove_punc(lower(s)))) with string.punctuation and r"\b(a|an|the)\b"; get_tokens gives []
# for an empty string; compute_f1 is 1/0 when either side is empty; get_raw_scores drops gold
# answers that normalise to nothing (all dropped -> the gold is ""), and takes the max.
SQUAD_CASES = [
    # (gold answers, prediction, exact, f1)
    (["Denver Broncos"], "Denver Broncos", 1, 1.0),
    (["Denver Broncos"], "the Denver Broncos.", 1, 1.0),
    (["Denver Broncos"], "Broncos", 0, 2 / 3),
    (["Denver Broncos", "Broncos"], "Broncos", 1, 1.0),
    (["Saint Bernadette Soubirous"], "Bernadette", 0, 0.5),
    (["a cat"], "An  CAT!!", 1, 1.0),
    (["the-end"], "end", 0, 0.0),  # punctuation goes first: "theend"
    (["the end"], "end", 1, 1.0),
    (["there"], "there", 1, 1.0),  # "the" only as a whole word
    (["théâtre the"], "THÉÂTRE", 1, 1.0),
    (["Don’t stop"], "Dont stop", 0, 0.5),  # U+2019 is not in string.punctuation
    (["don't stop"], "Dont stop", 1, 1.0),
    (["1,000"], "1000", 1, 1.0),
    (["3.5 km"], "35 km", 1, 1.0),
    (["cat cat dog"], "cat dog dog", 0, 2 / 3),  # multiset intersection
    ([""], "", 1, 1.0),  # the no-answer case
    ([""], "anything", 0, 0.0),
    (["the"], "", 1, 1.0),  # "the" normalises to nothing: the gold becomes ""
    (["a", "an"], "something", 0, 0.0),
    (["Paris"], "", 0, 0.0),
    (["New\tYork\nCity"], "new york city", 1, 1.0),
    (["北京 大学"], "北京", 0, 2 / 3),
    (["кот, сидел"], "Кот сидел", 1, 1.0),
    (["one two three four"], "two four six", 0, 2 * (2 / 3 * 2 / 4) / (2 / 3 + 2 / 4)),
]


@pytest.mark.parametrize(("golds", "pred", "em", "f1"), SQUAD_CASES)
def test_squad_exact_match_and_f1(golds: list[str], pred: str, em: int, f1: float) -> None:
    assert exact_match(pred, golds) == em
    assert token_f1(pred, golds) == pytest.approx(f1, abs=1e-15)


def test_squad_normalization_order() -> None:
    assert squad_normalize("The  A-Team's  an ‘ace’.") == "ateams ‘ace’"
    assert squad_normalize("a.b") == "ab"
    assert squad_normalize("Ångström, the") == "ångström"


def test_thousands_of_pairs_in_seconds() -> None:
    started = time.perf_counter()
    for pred, refs in PAIRS:
        text_scores(pred, refs)
    assert time.perf_counter() - started < 10
