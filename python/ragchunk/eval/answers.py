"""Answer-level evaluation: a model answers each question from its retrieved chunks, and the
answer is scored by overlap with the reference excerpts and by LLM judges.

Overlap metrics (:mod:`ragchunk.eval.text_metrics`): ``exact_match``, ``token_f1`` (SQuAD),
``rouge1``, ``rouge2``, ``rougeL`` (``rouge-score``'s F-measures) and ``bleu``
(``sacrebleu``'s sentence BLEU / 100), against the reference excerpts joined into one text.

Judged metrics, as ragas defines them (each prompt replaceable, each judge's answers kept):

``faithfulness``
    the judge lists the claims of the answer, then says for each whether the retrieved
    context supports it; the score is the share supported.
``answer_relevance``
    the judge writes three questions the answer would answer and says whether the answer is
    noncommittal; the score is the mean cosine similarity of those questions to the real one
    (embedded with ``embedder``), 0 for a noncommittal answer. Needs an embedder.
``context_precision``
    for each retrieved chunk, in rank order, the judge says whether it was useful to arrive
    at the reference answer (``v_i`` 1 or 0); the score is
    ``Σ_i v_i · precision@i / Σ_i v_i`` (0 when no chunk is useful; ragas adds 1e-10 to the
    denominator, which leaves 0.9999999999 where this gives 1).
``context_recall``
    the judge splits the reference answer into sentences and says for each whether the
    retrieved context supports it; the score is the share supported.

A metric that cannot be computed for a question (a failed call, an answer the judge's reply
does not parse into, no claim to check) is left out of that question's values and counted;
means are over the questions that have it.

>>> item = AnswerItem("q0", "Where is Rome?", ("Rome is in Italy.",), ("Rome is in Italy.",))
>>> rec = answer_metrics([item], lambda prompt: "Rome is in Italy.", judges=())[0]
>>> rec.answer, rec.metrics["token_f1"], rec.metrics["exact_match"]
('Rome is in Italy.', 1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..llm.base import LLM, Estimate, Price, as_llm
from ..llm.prompts import PromptTemplate, as_template
from ..llm.runner import json_payload
from .text_metrics import TEXT_METRICS, text_scores

__all__ = [
    "ANSWER_METRICS",
    "JUDGES",
    "PROMPTS",
    "AnswerItem",
    "AnswerRecord",
    "answer_metrics",
    "estimate_answers",
]

JUDGES = ("faithfulness", "answer_relevance", "context_precision", "context_recall")
ANSWER_METRICS = (*TEXT_METRICS, *JUDGES)

_JSON = "Answer with JSON only, no other text."

PROMPTS: dict[str, PromptTemplate] = {
    "answer": PromptTemplate(
        system="You answer questions from the context you are given, briefly and precisely.",
        user=(
            "Answer the question using only the context below. If the context does not hold "
            "the answer, say that you do not know.\n\n"
            "Context:\n{context}\n\nQuestion: {question}\nAnswer:"
        ),
        fields=("context", "question"),
    ),
    "statements": PromptTemplate(
        user=(
            "Break the answer to the question below into standalone statements: each one "
            "claim, understandable on its own (replace pronouns by what they refer to). "
            "Leave out nothing the answer claims and add nothing.\n\n"
            "Question: {question}\nAnswer: {answer}\n\n"
            'Answer with a JSON list of strings, e.g. ["Rome is the capital of Italy."]. ' + _JSON
        ),
        fields=("question", "answer"),
    ),
    "faithfulness": PromptTemplate(
        user=(
            "Read the context, then judge each numbered statement: verdict 1 if the "
            "statement can be directly inferred from the context, 0 if it cannot.\n\n"
            "Context:\n{context}\n\nStatements:\n{statements}\n\n"
            "Answer with a JSON list with one object per statement, in order, e.g. "
            '[{"statement": 1, "reason": "...", "verdict": 1}]. ' + _JSON
        ),
        fields=("context", "statements"),
    ),
    "answer_relevance": PromptTemplate(
        user=(
            "Write three different questions that the answer below answers, and say whether "
            "the answer is noncommittal (evasive or vague, such as 'I don't know' or 'it "
            "depends'): 1 if it is, 0 if not.\n\nAnswer: {answer}\n\n"
            'Answer with a JSON object: {"questions": ["...", "...", "..."], '
            '"noncommittal": 0}. ' + _JSON
        ),
        fields=("answer",),
    ),
    "context_precision": PromptTemplate(
        user=(
            "Given the question, its reference answer and one passage of retrieved context, "
            "say whether the passage was useful to arrive at the reference answer: verdict 1 "
            "if it was, 0 if not.\n\n"
            "Question: {question}\nReference answer: {reference}\n\nPassage:\n{context}\n\n"
            'Answer with a JSON object: {"reason": "...", "verdict": 1}. ' + _JSON
        ),
        fields=("question", "reference", "context"),
    ),
    "context_recall": PromptTemplate(
        user=(
            "Split the reference answer to the question into its sentences and, for each, "
            "say whether it can be attributed to the context: attributed 1 if the context "
            "supports it, 0 if not.\n\n"
            "Question: {question}\nContext:\n{context}\n\nReference answer: {reference}\n\n"
            'Answer with a JSON list, e.g. [{"statement": "...", "reason": "...", '
            '"attributed": 1}]. ' + _JSON
        ),
        fields=("question", "context", "reference"),
    ),
}

#: Completion tokens allowed per call in estimates, by prompt.
COMPLETION_ALLOWANCE = {
    "answer": 150,
    "statements": 150,
    "faithfulness": 150,
    "answer_relevance": 80,
    "context_precision": 50,
    "context_recall": 150,
}


@dataclass(frozen=True)
class AnswerItem:
    """One question to answer: its id, text, the retrieved chunk texts in rank order, and the
    reference excerpts.

    >>> AnswerItem("q0", "Why?", ("Because.",), ("Because.",)).contexts
    ('Because.',)
    """

    id: str
    question: str
    contexts: tuple[str, ...]
    references: tuple[str, ...]


@dataclass
class AnswerRecord:
    """The answer to one question, its metrics, and what each judge said.

    ``judges`` maps a judge name to its parsed verdicts and its raw reply (``raw``);
    ``errors`` maps a prompt or metric name to why it has no value.

    >>> AnswerRecord("q0", "Yes.", {"token_f1": 1.0}).metrics["token_f1"]
    1.0
    """

    id: str
    answer: str | None
    metrics: dict[str, float] = field(default_factory=dict)
    judges: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-able data.

        >>> AnswerRecord("q0", "Yes.").to_dict()["answer"]
        'Yes.'
        """
        return {
            "answer": self.answer,
            "metrics": dict(self.metrics),
            "judges": self.judges,
            "errors": dict(self.errors),
        }


def _templates(prompts: Mapping[str, PromptTemplate | str] | None) -> dict[str, PromptTemplate]:
    given = dict(prompts or {})
    unknown = sorted(set(given) - set(PROMPTS))
    if unknown:
        raise ValueError(f"prompts: unknown prompt {unknown[0]!r}; known: {', '.join(PROMPTS)}")
    return {
        name: as_template(given.get(name), default, default.fields)
        for name, default in PROMPTS.items()
    }


def _verdict(value: Any, key: str) -> int:
    if isinstance(value, Mapping):
        value = value.get(key, value.get("verdict"))
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return int(value)
    if isinstance(value, str) and value.strip().lower() in ("1", "0", "yes", "no"):
        return int(value.strip().lower() in ("1", "yes"))
    raise ValueError(f"not a verdict: {value!r}")


def _context(contexts: Sequence[str]) -> str:
    return "\n\n".join(f"[{i + 1}] {c}" for i, c in enumerate(contexts)) or "(nothing retrieved)"


def _check_items(items: object) -> list[AnswerItem]:
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise TypeError(f"items must be a list of AnswerItem, got {type(items).__name__}")
    out = list(items)
    for i, it in enumerate(out):
        if not isinstance(it, AnswerItem):
            raise TypeError(f"items[{i}] must be an AnswerItem, got {type(it).__name__}")
        if not it.references:
            raise ValueError(f"items[{i}] ({it.id}): no reference to score the answer against")
    return out


def _check_judges(judges: object, embedder: Any) -> tuple[str, ...]:
    if isinstance(judges, str) or not isinstance(judges, Sequence):
        raise TypeError(f"judges must be a list of judge names, got {type(judges).__name__}")
    for j in judges:
        if j not in JUDGES:
            raise ValueError(f"judges: unknown judge {j!r}; known: {', '.join(JUDGES)}")
    return tuple(j for j in JUDGES if j in judges and (j != "answer_relevance" or embedder))


Call = tuple[str, Any]  # (model: "answer" or "judge", prompt)
_Job = Generator[list[Call], list[Any], AnswerRecord]


def _job(
    item: AnswerItem,
    t: dict[str, PromptTemplate],
    judges: tuple[str, ...],
    combine: str,
    relevance: list[tuple[AnswerRecord, str, list[str], float]],
) -> _Job:
    rec = AnswerRecord(item.id, None)
    reference = " ".join(item.references)
    context = _context(item.contexts)
    first: list[Call] = [("answer", t["answer"].render(context=context, question=item.question))]
    if "context_precision" in judges:
        first += [
            (
                "judge",
                t["context_precision"].render(
                    question=item.question, reference=reference, context=c
                ),
            )
            for c in item.contexts
        ]
    if "context_recall" in judges:
        first.append(
            (
                "judge",
                t["context_recall"].render(
                    question=item.question, context=context, reference=reference
                ),
            )
        )
    got = yield first
    answer = got[0]
    at = 1
    if "context_precision" in judges:
        replies = got[at : at + len(item.contexts)]
        at += len(item.contexts)
        verdicts: list[int] = []
        try:
            for r in replies:
                if isinstance(r, BaseException):
                    raise ValueError(f"the call failed: {r}")
                verdicts.append(_verdict(json_payload(r, "{"), "verdict"))
        except ValueError as exc:
            rec.errors["context_precision"] = str(exc)
        else:
            useful = sum(verdicts)
            score = sum(sum(verdicts[: i + 1]) / (i + 1) * v for i, v in enumerate(verdicts))
            rec.metrics["context_precision"] = score / useful if useful else 0.0
        rec.judges["context_precision"] = {
            "verdicts": verdicts,
            "raw": [r if isinstance(r, str) else None for r in replies],
        }
    if "context_recall" in judges:
        r = got[at]
        entry: dict[str, Any] = {"raw": r if isinstance(r, str) else None}
        try:
            if isinstance(r, BaseException):
                raise ValueError(f"the call failed: {r}")
            rows = json_payload(r, "[")
            entry["sentences"] = rows
            flags = [_verdict(x, "attributed") for x in rows]
            if not flags:
                raise ValueError("the judge listed no sentence")
            entry["verdicts"] = flags
            rec.metrics["context_recall"] = sum(flags) / len(flags)
        except ValueError as exc:
            rec.errors["context_recall"] = str(exc)
        rec.judges["context_recall"] = entry
    if isinstance(answer, BaseException):
        rec.errors["answer"] = f"{type(answer).__name__}: {answer}"
        return rec
    rec.answer = answer
    rec.metrics.update(text_scores(answer, list(item.references), combine))
    second: list[Call] = []
    if "faithfulness" in judges:
        second.append(("judge", t["statements"].render(question=item.question, answer=answer)))
    if "answer_relevance" in judges:
        second.append(("judge", t["answer_relevance"].render(answer=answer)))
    if not second:
        return rec
    got = yield second
    statements: list[str] = []
    if "faithfulness" in judges:
        r = got[0]
        entry = {"raw_statements": r if isinstance(r, str) else None}
        rec.judges["faithfulness"] = entry
        try:
            if isinstance(r, BaseException):
                raise ValueError(f"the call failed: {r}")
            statements = json_payload(r, "[")
            if not all(isinstance(s, str) for s in statements):
                raise ValueError("the statements are not a list of strings")
            entry["statements"] = statements
            if not statements:
                raise ValueError("the answer makes no claim to check")
        except ValueError as exc:
            rec.errors["faithfulness"] = str(exc)
            statements = []
    if "answer_relevance" in judges:
        r = got[-1]
        entry = {"raw": r if isinstance(r, str) else None}
        rec.judges["answer_relevance"] = entry
        try:
            if isinstance(r, BaseException):
                raise ValueError(f"the call failed: {r}")
            obj = json_payload(r, "{")
            qs = obj.get("questions") if isinstance(obj, dict) else None
            if not isinstance(qs, list) or not qs or not all(isinstance(q, str) for q in qs):
                raise ValueError("no list of questions in the reply")
            flag = _verdict(obj.get("noncommittal", 0), "noncommittal")
            entry.update({"questions": qs, "noncommittal": flag})
            relevance.append((rec, item.question, qs, float(flag)))
        except ValueError as exc:
            rec.errors["answer_relevance"] = str(exc)
    if not statements:
        return rec
    numbered = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(statements))
    (r,) = yield [("judge", t["faithfulness"].render(context=context, statements=numbered))]
    entry = rec.judges["faithfulness"]
    entry["raw"] = r if isinstance(r, str) else None
    try:
        if isinstance(r, BaseException):
            raise ValueError(f"the call failed: {r}")
        flags = [_verdict(x, "verdict") for x in json_payload(r, "[")]
        if len(flags) != len(statements):
            raise ValueError(f"{len(flags)} verdicts for {len(statements)} statements")
        entry["verdicts"] = flags
        rec.metrics["faithfulness"] = sum(flags) / len(flags)
    except ValueError as exc:
        rec.errors["faithfulness"] = str(exc)
    return rec


def _drive(models: Mapping[str, LLM], jobs: list[_Job]) -> list[AnswerRecord]:
    """Run the jobs' rounds together: each round's prompts grouped by model, each group
    through that model's ``complete_many`` (its concurrency bound, retries and cache)."""
    results: list[Any] = [None] * len(jobs)
    pending: dict[int, list[Call]] = {}

    def advance(i: int, answers: list[Any] | None) -> None:
        try:
            calls = next(jobs[i]) if answers is None else jobs[i].send(answers)
            pending[i] = calls
        except StopIteration as done:
            results[i] = done.value

    for i in range(len(jobs)):
        advance(i, None)
    while pending:
        batch = dict(pending)
        pending.clear()
        flat = [(i, j, m, p) for i, calls in batch.items() for j, (m, p) in enumerate(calls)]
        replies: dict[tuple[int, int], Any] = {}
        for name in dict.fromkeys(m for _, _, m, _ in flat):
            group = [(i, j, p) for i, j, m, p in flat if m == name]
            got = models[name].complete_many([p for _, _, p in group])
            replies.update(((i, j), a) for (i, j, _), a in zip(group, got, strict=True))
        for i, calls in batch.items():
            advance(i, [replies[(i, j)] for j in range(len(calls))])
    return results


def answer_metrics(
    items: Sequence[AnswerItem],
    llm: Any,
    *,
    judge: Any = None,
    embedder: Any = None,
    judges: Sequence[str] = JUDGES,
    prompts: Mapping[str, PromptTemplate | str] | None = None,
    combine: str = "join",
) -> list[AnswerRecord]:
    """Answer every item with ``llm`` from its contexts and score the answers.

    Args:
        items: the questions with their retrieved chunks and reference excerpts.
        llm: the answering model: a :class:`ragchunk.llm.LLM` (for example
            :class:`~ragchunk.llm.OpenAICompatible` with a cache) or a callable
            ``prompt -> str``.
        judge: the judging model (default: ``llm``).
        embedder: for ``answer_relevance`` (any embedder
            :func:`ragchunk.embeddings.as_embedder` takes); without it that judge is skipped.
        judges: which judged metrics to compute (default all of :data:`JUDGES`).
        prompts: replacements for :data:`PROMPTS`, by name (a
            :class:`~ragchunk.llm.PromptTemplate` or a user-message string with the same
            fields).
        combine: how the overlap metrics use several references (see
            :func:`~ragchunk.eval.text_metrics.text_scores`).

    Returns:
        One :class:`AnswerRecord` per item, in order.

    >>> def model(prompt):  # answers, then judges one passage as useful
    ...     return '{"verdict": 1}' if "Passage:" in prompt else "In Italy."
    >>> item = AnswerItem("q0", "Where is Rome?", ("Rome is in Italy.",), ("in Italy",))
    >>> rec = answer_metrics([item], model, judges=["context_precision"])[0]
    >>> rec.answer, rec.metrics["token_f1"], rec.metrics["context_precision"]
    ('In Italy.', 1.0, 1.0)
    >>> rec.judges["context_precision"]["verdicts"]
    [1]
    """
    todo = _check_items(items)
    chosen = _check_judges(judges, embedder)
    if combine not in ("join", "max"):
        raise ValueError(f"combine must be 'join' or 'max', got {combine!r}")
    t = _templates(prompts)
    answering = as_llm(llm)
    models = {"answer": answering, "judge": as_llm(judge) if judge is not None else answering}
    relevance: list[tuple[AnswerRecord, str, list[str], float]] = []
    records = _drive(models, [_job(it, t, chosen, combine, relevance) for it in todo])
    if relevance:
        _relevance(relevance, embedder)
    return records


def _relevance(pending: list[tuple[AnswerRecord, str, list[str], float]], embedder: Any) -> None:
    from ..core.optional import np
    from ..embeddings import as_embedder

    emb = as_embedder(embedder)
    texts = [t for _, q, qs, _ in pending for t in (q, *qs)]
    v = np.asarray(emb.embed(texts), dtype=np.float64)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    v = np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)
    at = 0
    for rec, _, qs, noncommittal in pending:
        sims = [float(v[at] @ v[at + 1 + i]) for i in range(len(qs))]
        at += 1 + len(qs)
        rec.judges["answer_relevance"]["similarities"] = sims
        rec.metrics["answer_relevance"] = (sum(sims) / len(sims)) * (1.0 - noncommittal)


def estimate_answers(
    items: Sequence[AnswerItem],
    llm: Any = None,
    *,
    judge: Any = None,
    embedder: Any = None,
    judges: Sequence[str] = JUDGES,
    prompts: Mapping[str, PromptTemplate | str] | None = None,
    price: Price | None = None,
    tokenizer: Any = "cl100k_base",
) -> Estimate:
    """The calls and tokens :func:`answer_metrics` would spend, without any call. Prompts
    that do not depend on the answer are counted exactly; the others with the answer and
    the statements replaced by their completion allowance (:data:`COMPLETION_ALLOWANCE`),
    which is also the completion estimate of each call; faithfulness is counted as two calls.

    >>> item = AnswerItem("q0", "Where is Rome?", ("Rome is in Italy.", "Paris."), ("Italy",))
    >>> e = estimate_answers([item], tokenizer=len, judges=("context_precision",))
    >>> e.calls, e.details["answer_calls"], e.details["judge_calls"]
    (3, 1, 2)
    """
    todo = _check_items(items)
    chosen = _check_judges(judges, embedder)
    t = _templates(prompts)
    count = as_llm(llm) if llm is not None else LLM(_no_call, tokenizer=tokenizer)
    calls: dict[str, int] = {"answer": 0, "judge": 0}
    prompt_tokens = completion = 0

    def add(kind: str, name: str, prompt: Any, extra: int = 0) -> None:
        nonlocal prompt_tokens, completion
        calls[kind] += 1
        prompt_tokens += count.prompt_tokens(prompt) + extra
        completion += COMPLETION_ALLOWANCE[name]

    answer_len = COMPLETION_ALLOWANCE["answer"]
    for it in todo:
        reference = " ".join(it.references)
        context = _context(it.contexts)
        add("answer", "answer", t["answer"].render(context=context, question=it.question))
        if "context_precision" in chosen:
            for c in it.contexts:
                p = t["context_precision"].render(
                    question=it.question, reference=reference, context=c
                )
                add("judge", "context_precision", p)
        if "context_recall" in chosen:
            p = t["context_recall"].render(
                question=it.question, context=context, reference=reference
            )
            add("judge", "context_recall", p)
        if "faithfulness" in chosen:
            p = t["statements"].render(question=it.question, answer="")
            add("judge", "statements", p, answer_len)
            p = t["faithfulness"].render(context=context, statements="")
            add("judge", "faithfulness", p, COMPLETION_ALLOWANCE["statements"])
        if "answer_relevance" in chosen:
            add("judge", "answer_relevance", t["answer_relevance"].render(answer=""), answer_len)
    return Estimate(
        calls["answer"] + calls["judge"],
        prompt_tokens,
        completion,
        price,
        len(todo),
        {"answer_calls": calls["answer"], "judge_calls": calls["judge"]},
    )


def _no_call(prompt: str) -> str:
    raise RuntimeError("an estimate never calls the model")
