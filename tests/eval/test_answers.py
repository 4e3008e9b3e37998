"""The answers stage against the local OpenAI-compatible server: scripted answers and
verdicts give the judged metrics exactly; the stage in evaluate(), its cache, dry run and
resumption."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import pytest
from openai_server import CHAT_PATH, EMBEDDINGS_PATH, hash_embedding, server_error
from ragchunk import TokenWindowSplitter
from ragchunk.eval import (
    AnswerItem,
    Dataset,
    Question,
    Reference,
    answer_metrics,
    estimate_answers,
    evaluate,
    text_scores,
)
from ragchunk.llm import LLMCache, OpenAICompatible

np = pytest.importorskip("numpy")

pytestmark = pytest.mark.single_backend

GENERATED = ["Where do cats sleep?", "What do cats do at night?", "Hello?"]


class Judge:
    """Answers every prompt of the stage by its kind, and counts them."""

    def __init__(self, fail_answers: set[str] = frozenset(), noncommittal: int = 0):
        self.fail_answers = set(fail_answers)
        self.noncommittal = noncommittal
        self.kinds: dict[str, int] = {}
        self.lock = threading.Lock()

    def count(self, kind: str) -> None:
        with self.lock:
            self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def __call__(self, request):  # type: ignore[no-untyped-def]
        if request.path == EMBEDDINGS_PATH:
            from openai_server import _default_reply

            return _default_reply(request)
        p = request.last_message
        if p.rstrip().endswith("Answer:"):
            self.count("answer")
            question = p.rsplit("Question: ", 1)[1].split("\n", 1)[0]
            if question in self.fail_answers:
                return server_error(500)
            return "Cats sleep on the mat. They purr. They fly."
        if "standalone statements" in p:
            self.count("statements")
            return json.dumps(["Cats sleep on the mat.", "Cats purr.", "Cats fly."])
        if "Statements:" in p:
            self.count("faithfulness")
            return (
                "```json\n"
                + json.dumps(
                    [
                        {"statement": i + 1, "reason": "-", "verdict": v}
                        for i, v in enumerate([1, 1, 0])
                    ]
                )
                + "\n```"
            )
        if "noncommittal" in p:
            self.count("answer_relevance")
            return json.dumps({"questions": GENERATED, "noncommittal": self.noncommittal})
        if "Passage:" in p:
            self.count("context_precision")
            passage = p.rsplit("Passage:\n", 1)[1]
            return json.dumps({"reason": "-", "verdict": int("mat" in passage)})
        if "attributed" in p:
            self.count("context_recall")
            return json.dumps(
                [
                    {"statement": "Cats sleep on the mat.", "attributed": 1},
                    {"statement": "They dream.", "attributed": "no"},
                ]
            )
        raise AssertionError(f"unexpected prompt: {p[:80]}")


def _llm(server, model="answer-model", cache=None):  # type: ignore[no-untyped-def]
    return OpenAICompatible(server.base_url, model, api_key_env=None, cache=cache, max_retries=0)


def _embedder(server):  # type: ignore[no-untyped-def]
    from ragchunk.embeddings import OpenAICompatibleEmbedder

    return OpenAICompatibleEmbedder(server.base_url, "emb", api_key_env=None)


ITEM = AnswerItem(
    "q0",
    "Where do cats sleep?",
    ("Dogs bark.", "Cats sleep on the mat.", "The mat is red."),
    ("Cats sleep on the mat.",),
)


def _cos(a: str, b: str) -> float:
    # the server's vectors, as float32 like the embedder returns them
    u = np.asarray(hash_embedding(a), dtype=np.float32).astype(np.float64)
    v = np.asarray(hash_embedding(b), dtype=np.float32).astype(np.float64)
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def test_judged_metrics_follow_ragas_definitions(openai_server) -> None:
    openai_server.responder = Judge()
    (rec,) = answer_metrics([ITEM], _llm(openai_server), embedder=_embedder(openai_server))
    m = rec.metrics
    assert rec.answer == "Cats sleep on the mat. They purr. They fly."
    assert m["faithfulness"] == 2 / 3
    # verdicts [0, 1, 1]: (1/2 * 1 + 2/3 * 1) / 2
    assert m["context_precision"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert m["context_recall"] == 1 / 2
    expected = sum(_cos(ITEM.question, g) for g in GENERATED) / 3
    assert m["answer_relevance"] == pytest.approx(expected, abs=1e-6)
    for k, v in text_scores(rec.answer, list(ITEM.references)).items():
        assert m[k] == v
    j = rec.judges
    assert j["faithfulness"]["statements"] == ["Cats sleep on the mat.", "Cats purr.", "Cats fly."]
    assert j["faithfulness"]["verdicts"] == [1, 1, 0] and "```json" in j["faithfulness"]["raw"]
    assert j["context_precision"]["verdicts"] == [0, 1, 1]
    assert len(j["context_precision"]["raw"]) == 3
    assert j["context_recall"]["verdicts"] == [1, 0]
    assert j["answer_relevance"]["questions"] == GENERATED
    assert rec.errors == {}
    # answer + 3 passages + recall, then statements + relevance, then the verdicts
    assert len(openai_server.chat_requests) == 8


def test_noncommittal_answers_and_a_separate_judge(openai_server) -> None:
    openai_server.responder = Judge(noncommittal=1)
    judge = _llm(openai_server, "judge-model")
    (rec,) = answer_metrics(
        [ITEM], _llm(openai_server), judge=judge, embedder=_embedder(openai_server)
    )
    assert rec.metrics["answer_relevance"] == 0.0
    models = [r.json["model"] for r in openai_server.chat_requests]
    assert models.count("answer-model") == 1 and models.count("judge-model") == 7


def test_unusable_replies_leave_the_metric_out(openai_server) -> None:
    def responder(request):  # type: ignore[no-untyped-def]
        p = request.last_message
        if p.rstrip().endswith("Answer:"):
            return "I do not know."
        if "standalone statements" in p:
            return "[]"
        if "Passage:" in p:
            return '{"verdict": "maybe"}'
        return "no json"

    openai_server.responder = responder
    (rec,) = answer_metrics([ITEM], _llm(openai_server))
    assert rec.answer == "I do not know."
    assert "token_f1" in rec.metrics
    for name in ("faithfulness", "context_precision", "context_recall"):
        assert name not in rec.metrics and name in rec.errors
    assert "answer_relevance" not in rec.metrics and "answer_relevance" not in rec.judges
    assert rec.errors["faithfulness"] == "the answer makes no claim to check"
    assert "maybe" in rec.errors["context_precision"]


TEXT = (
    "Cats sleep on the mat. Dogs bark at night. Fish swim in the pond. Birds sing at dawn. "
    "Cows eat grass. Horses run fast. Owls hunt at night. Bees make honey."
)


def _ref(excerpt: str) -> tuple[Reference, ...]:
    at = TEXT.index(excerpt)
    return (Reference(at, at + len(excerpt), excerpt),)


def _dataset() -> Dataset:
    qs = [
        Question("Where do cats sleep?", "d", _ref("Cats sleep on the mat.")),
        Question("When do owls hunt?", "d", _ref("Owls hunt at night.")),
        Question("What do bees make?", "d", _ref("Bees make honey.")),
    ]
    return Dataset({"d": TEXT}, qs)


def test_evaluate_with_answers_cache_dry_run_and_export(openai_server, tmp_path: Path) -> None:
    ds = _dataset()
    chunkers = [TokenWindowSplitter(8, 0), TokenWindowSplitter(16, 0)]
    openai_server.responder = Judge()
    emb = _embedder(openai_server)
    dry = evaluate(
        ds, chunkers, k=[2], answers=_llm(openai_server), answer_embedder=emb, dry_run=True
    )
    assert openai_server.requests == []
    assert dry.estimate.calls > 0 and "token_f1_mean" not in dry.rows[0].metrics
    cache = LLMCache(tmp_path / "answers.sqlite")
    llm = _llm(openai_server, cache=cache)
    result = evaluate(ds, chunkers, k=[2], answers=llm, answer_embedder=emb, bootstrap=200)
    # every answer made claims, so the estimate is exact; prompts repeated across rows (a
    # chunk both configurations retrieve) come from the cache
    assert llm.usage.calls + llm.usage.cache_hits == dry.estimate.calls
    assert len(openai_server.chat_requests) == llm.usage.calls < dry.estimate.calls
    row = result.rows[0]
    assert row.stats["answers_failed"] == 0
    assert row.metrics["faithfulness_mean"] == pytest.approx(2 / 3)
    assert row.metrics["faithfulness_n"] == 3
    assert row.metrics["context_recall_mean"] == 0.5
    assert row.metrics["token_f1_ci_low"] <= row.metrics["token_f1_mean"]
    assert row.metrics["token_f1_mean"] <= row.metrics["token_f1_ci_high"]
    for qid, per in row.per_question.items():
        assert per["faithfulness"] == 2 / 3 and "recall" in per
        assert row.answers[qid]["judges"]["faithfulness"]["verdicts"] == [1, 1, 0]
    # each row answers from its own top-k chunks, in rank order
    sent = [r.last_message for r in openai_server.chat_requests]
    for r in result.rows:
        for spans in r.retrieved.values():
            block = "\n\n".join(f"[{i + 1}] {TEXT[s:e]}" for i, (_, s, e) in enumerate(spans))
            assert any(block in p and p.rstrip().endswith("Answer:") for p in sent)
    data = json.loads(result.to_json(tmp_path / "r.json"))
    assert data[0]["answers"]["q0"]["answer"].startswith("Cats sleep")
    result.to_csv(tmp_path / "r.csv")
    header = (tmp_path / "r.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert {"token_f1_mean", "rougeL_mean", "bleu_mean", "faithfulness_mean"} <= set(header)
    assert "faithfulness_mean" in result.format()
    # the same sweep again: every answer and verdict from the cache
    openai_server.reset()
    again = evaluate(
        ds, chunkers, k=[2], answers=_llm(openai_server, cache=cache), answer_embedder=emb
    )
    assert openai_server.chat_requests == []
    assert again.rows[0].answers == row.answers


def test_an_interrupted_answers_stage_resumes(openai_server, tmp_path: Path) -> None:
    ds = _dataset()
    cache = LLMCache(tmp_path / "answers.sqlite")
    judge = Judge(fail_answers={"When do owls hunt?"})
    openai_server.responder = judge
    first = evaluate(
        ds, [TokenWindowSplitter(8, 0)], k=[2], answers=_llm(openai_server, cache=cache)
    )
    row = first.rows[0]
    assert row.stats["answers_failed"] == 1
    assert "500" in row.answers["q1"]["errors"]["answer"]
    assert row.metrics["faithfulness_n"] == 2 and math.isclose(
        row.metrics["faithfulness_mean"], 2 / 3
    )
    openai_server.reset()
    healthy = Judge()
    openai_server.responder = healthy
    second = evaluate(
        ds, [TokenWindowSplitter(8, 0)], k=[2], answers=_llm(openai_server, cache=cache)
    )
    # only the failed answer and the judge calls that depend on it are asked
    assert healthy.kinds == {"answer": 1, "statements": 1, "faithfulness": 1}
    assert second.rows[0].stats["answers_failed"] == 0
    assert all(r.path == CHAT_PATH for r in openai_server.requests)


def test_estimate_and_bad_arguments() -> None:
    e = estimate_answers([ITEM], tokenizer=len)
    # answer, 3 passages, recall, statements, faithfulness (no embedder: no relevance)
    assert (e.calls, e.details["answer_calls"], e.details["judge_calls"]) == (7, 1, 6)
    with pytest.raises(ValueError, match="unknown judge 'bogus'"):
        answer_metrics([ITEM], lambda p: "x", judges=["bogus"])
    with pytest.raises(ValueError, match="unknown prompt 'answr'"):
        answer_metrics([ITEM], lambda p: "x", prompts={"answr": "x"})
    with pytest.raises(ValueError, match="has no \\{question\\} field"):
        answer_metrics([ITEM], lambda p: "x", prompts={"answer": "only {context}"})
    with pytest.raises(TypeError, match="items\\[0\\] must be an AnswerItem"):
        answer_metrics([("q", "a")], lambda p: "x")  # type: ignore[list-item]
    with pytest.raises(ValueError, match="no reference"):
        answer_metrics([AnswerItem("q", "?", (), ())], lambda p: "x")
    with pytest.raises(TypeError, match="llm must be"):
        answer_metrics([ITEM], 3)


def test_a_replaced_prompt_is_sent(openai_server) -> None:
    seen: list[str] = []

    def model(prompt: str) -> str:
        seen.append(prompt)
        return "Mat."

    answer_metrics([ITEM], model, judges=(), prompts={"answer": "Q={question} C={context}"})
    assert seen == [
        "You answer questions from the context you are given, briefly and precisely."
        "\n\nQ=Where do cats sleep? C=[1] Dogs bark.\n\n[2] Cats sleep on the mat.\n\n"
        "[3] The mat is red."
    ]
