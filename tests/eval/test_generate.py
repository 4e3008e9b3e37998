"""Generated question sets against the local OpenAI-compatible server: excerpts located
exactly, invented ones dropped and counted, Chroma's filters, the cache, resuming."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import pytest
from openai_server import CHAT_PATH, EMBEDDINGS_PATH, embeddings, server_error
from ragchunk.eval import Dataset, load_jsonl, save_jsonl
from ragchunk.eval.generate import (
    QUESTION_ALLOWANCE,
    estimate_questions,
    filter_duplicates,
    filter_poor_excerpts,
    generate_questions,
    locate_excerpt,
    read_corpora,
)
from ragchunk.llm import LLM, LLMCache, OpenAICompatible

np = pytest.importorskip("numpy")

pytestmark = pytest.mark.single_backend

SOLAR = (
    "Solar panels turn sunlight into electricity.\n\n"
    "A typical   panel lasts 25 to 30 years; its output falls by about 0.5% a year.\n"
    'Installers call this the "degradation rate".\n'
    "Panels work on cloudy days, at a lower output.\n"
)
BEES = (
    "Honey bees live in colonies of up to 60,000 workers.\n"
    "The queen lays up to 2,000 eggs a day during spring.\n"
    "Workers \u2014 all female \u2014 forage up to five kilometres from the hive.\n"
)
CORPORA = {"solar.md": SOLAR, "bees.md": BEES}


def _answer(question: str, *refs: str) -> str:
    return json.dumps({"question": question, "references": list(refs)})


SCRIPTS = {
    "Solar panels turn": [
        _answer("What do solar panels do?", "Solar panels turn sunlight into electricity"),
        # whitespace changed: "typical   panel" in the text; a fenced block with prose around
        "Sure! Here it is:\n```json\n"
        + _answer("How long does a panel last?", "A typical panel lasts 25 to 30 years")
        + "\n```\nHope this helps.",
        # quotes changed, plus an exact second excerpt
        _answer(
            "What is the yearly loss called?",
            "Installers call this the \u201cdegradation rate\u201d.",
            "its output falls by about 0.5% a year",
        ),
        # one excerpt invented: the whole proposal is dropped
        _answer("Do panels work at night?", "Panels work at night with batteries"),
        "I cannot answer that.",
    ],
    "Honey bees live": [
        _answer("How big is a colony?", "Honey bees live in colonies of up to 60,000 workers."),
        # dashes folded, case changed
        _answer("How far do workers forage?", "workers - all female - forage up to five"),
        # a typo: found by the fuzzy search
        _answer("How many eggs a day?", "The queen lays up to 2,000 egs a day during spring."),
        _answer("Too many?", *["Honey bees"] * 6),
        json.dumps({"question": "", "references": ["Honey bees"]}),
    ],
}


class Scripted:
    """Answers each corpus's generation prompts in order, whatever the interleaving."""

    def __init__(self, scripts: dict[str, list[str]], fail: set[tuple[str, int]] = frozenset()):
        self.scripts = scripts
        self.fail = set(fail)
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, request):  # type: ignore[no-untyped-def]
        if request.path == EMBEDDINGS_PATH:
            return VECTORS(request)
        prompt = request.last_message
        key = next(k for k in self.scripts if k in prompt)
        with self.lock:
            i = self.seen.get(key, 0)
            self.seen[key] = i + 1
        if (key, i) in self.fail:
            return server_error(500)
        return self.scripts[key][i]


def VECTORS(request):  # type: ignore[no-untyped-def]
    texts = request.json["input"]
    return embeddings([[1.0, 0.0, 0.0] for _ in texts])


def _llm(server, cache=None, **kw):  # type: ignore[no-untyped-def]
    return OpenAICompatible(
        server.base_url, "gen-model", api_key_env=None, cache=cache, max_retries=0, **kw
    )


def test_excerpts_are_located_exactly_and_invented_ones_dropped(openai_server) -> None:
    openai_server.responder = Scripted(SCRIPTS)
    ds = generate_questions(CORPORA, _llm(openai_server), per_corpus=5)
    report = ds.metadata["report"]
    assert len(openai_server.chat_requests) == 10
    by_id = {q.id: q for q in ds.questions}
    assert sorted(by_id) == [
        "bees.md#0",
        "bees.md#1",
        "bees.md#2",
        "solar.md#0",
        "solar.md#1",
        "solar.md#2",
    ]
    for q in ds.questions:  # every reference slices its corpus exactly
        for r in q.references:
            assert CORPORA[q.corpus_id][r.start : r.end] == r.content
    assert [r.content for r in by_id["solar.md#1"].references] == [
        "A typical   panel lasts 25 to 30 years"
    ]
    assert [r.content for r in by_id["solar.md#2"].references] == [
        "its output falls by about 0.5% a year",
        'Installers call this the "degradation rate".',
    ]
    assert [r.content for r in by_id["bees.md#1"].references] == [
        "Workers \u2014 all female \u2014 forage up to five"
    ]
    assert [r.content for r in by_id["bees.md#2"].references] == [
        "The queen lays up to 2,000 eggs a day during spring."
    ]
    assert report["proposed"] == 10 and report["kept"] == 6 and report["dropped"] == 4
    assert report["not_found"] == 1
    assert report["unparsable"] == 2
    assert report["too_many_references"] == 1
    assert (report["exact"], report["normalised"], report["fuzzy"]) == (3, 3, 1)
    located = ds.metadata["questions"]
    fuzzy = located["bees.md#2"]["references"][0]
    assert fuzzy["method"] == "fuzzy" and 0.9 <= fuzzy["score"] < 1.0
    assert fuzzy["excerpt"].endswith("egs a day during spring.")
    assert report["usage"]["calls"] == 10 and report["usage"]["cache_hits"] == 0
    # the questions the model wrote are listed in its next prompts, invented or not
    last = [r.last_message for r in openai_server.chat_requests if "Solar" in r.last_message][-1]
    assert "Do panels work at night?" in last and "How long does a panel last?" in last


def test_the_set_round_trips_with_its_settings(openai_server, tmp_path: Path) -> None:
    openai_server.responder = Scripted(SCRIPTS)
    ds = generate_questions(CORPORA, _llm(openai_server), per_corpus=5, seed=7)
    path = tmp_path / "set.jsonl"
    save_jsonl(ds, path)
    back = load_jsonl(path)
    assert back == ds
    assert back.metadata["settings"]["seed"] == 7
    assert back.metadata["settings"]["model"] == "gen-model"
    assert back.metadata["report"] == ds.metadata["report"]
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["type"] == "metadata" and first["generator"] == "ragchunk.eval.generate_questions"


def test_a_second_run_makes_no_request(openai_server, tmp_path: Path) -> None:
    from ragchunk.embeddings import EmbeddingCache, OpenAICompatibleEmbedder, as_embedder

    openai_server.responder = Scripted(SCRIPTS)
    llm_cache = tmp_path / "llm.sqlite"
    emb_cache = str(tmp_path / "emb.sqlite")

    def run() -> Dataset:
        emb = as_embedder(
            OpenAICompatibleEmbedder(openai_server.base_url, "emb", api_key_env=None),
            cache=EmbeddingCache(emb_cache),
        )
        return generate_questions(
            CORPORA, _llm(openai_server, LLMCache(llm_cache)), per_corpus=5, embedder=emb
        )

    first = run()
    n_chat, n_emb = len(openai_server.chat_requests), len(openai_server.embedding_requests)
    assert n_chat == 10 and n_emb >= 1
    openai_server.reset()
    openai_server.responder = None  # anything asked now would be answered "ok" and fail
    second = run()
    assert openai_server.requests == []
    assert second == first and second.metadata["questions"] == first.metadata["questions"]
    assert second.metadata["report"]["usage"]["cache_hits"] == 10


def test_an_interrupted_run_resumes_from_the_cache(openai_server, tmp_path: Path) -> None:
    cache = LLMCache(tmp_path / "llm.sqlite")
    openai_server.responder = Scripted(SCRIPTS, fail={("Honey bees live", 1)})
    first = generate_questions(CORPORA, _llm(openai_server, cache), per_corpus=5)
    assert first.metadata["report"]["failed"] == 1
    assert "bees.md#1" not in {q.id for q in first.questions}
    openai_server.reset()
    openai_server.responder = Scripted(SCRIPTS)
    openai_server.responder.seen = {"Honey bees live": 1}  # the script resumes at the failure
    second = generate_questions(CORPORA, _llm(openai_server, cache), per_corpus=5)
    # solar's five answers and bees' first come from the cache; the failed call and the calls
    # after it (whose prompts now list one more question) are asked
    asked = [r.last_message for r in openai_server.chat_requests]
    assert len(asked) == 4 and all("Honey bees live" in p for p in asked)
    assert second.metadata["report"]["failed"] == 0
    assert "bees.md#1" in {q.id for q in second.questions}


def _vector_server(table: dict[str, list[float]]):  # type: ignore[no-untyped-def]
    def respond(request):  # type: ignore[no-untyped-def]
        if request.path == CHAT_PATH:
            raise AssertionError("scripted below")
        return embeddings([table[t] for t in request.json["input"]])

    return respond


def test_filters_drop_what_chromas_rules_drop(openai_server) -> None:
    from ragchunk.embeddings import OpenAICompatibleEmbedder

    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    y = (0.9 - 0.8 * 0.5) / 0.6
    q1, q2, q3 = [1.0, 0.0, 0.0], [0.8, 0.6, 0.0], [0.5, y, math.sqrt(1 - 0.25 - y * y)]
    table = {
        "Q1?": q1,
        "Q2?": q2,  # 0.8 with Q1: a near-duplicate, dropped
        "Q3?": q3,  # 0.9 with Q2 (dropped already) and 0.5 with Q1: kept
        "Q4?": q1,  # its worst excerpt is 0.35 from it: dropped before the duplicate check
        "Q5?": [0.0, 0.0, 1.0],  # its excerpt is 0.37 from it: kept
        "alpha beta": q1,
        "gamma delta": q2,
        "epsilon zeta": q3,
        "eta theta": [0.35, math.sqrt(1 - 0.35**2), 0.0],
        "iota kappa": [0.0, math.sqrt(1 - 0.37**2), 0.37],
    }
    script = iter(
        [
            _answer("Q1?", "alpha beta"),
            _answer("Q2?", "gamma delta"),
            _answer("Q1?", "alpha beta"),  # repeated word for word
            _answer("Q3?", "epsilon zeta"),
            _answer("Q4?", "alpha beta", "eta theta"),
            _answer("Q5?", "iota kappa"),
        ]
    )
    openai_server.responder = _vector_server(table)
    llm = LLM(lambda prompt: next(script), model="scripted")
    emb = OpenAICompatibleEmbedder(openai_server.base_url, "emb", api_key_env=None)
    ds = generate_questions({"greek": text}, llm, per_corpus=6, embedder=emb)
    report = ds.metadata["report"]
    assert [q.text for q in ds.questions] == ["Q1?", "Q3?", "Q5?"]
    assert report["poor_excerpts"] == 1 and report["duplicates"] == 2
    sims = {k: v["excerpt_similarity"] for k, v in ds.metadata["questions"].items()}
    assert sims == {
        "greek#0": pytest.approx(1.0),
        "greek#3": pytest.approx(1.0),
        "greek#5": pytest.approx(0.37, abs=1e-6),
    }
    assert ds.metadata["settings"]["filters"] is True


def test_filter_rules_on_given_similarities() -> None:
    # Chroma keeps a question when min(similarities) >= threshold
    assert filter_poor_excerpts([[0.36], [0.3599], [0.9, 0.2], [0.5, 0.5]]) == [
        True,
        False,
        False,
        True,
    ]
    assert filter_poor_excerpts([[0.5]], threshold=0.6) == [False]
    # greedy in order; a dropped question drops nothing; the threshold is strict (>)
    sim = [
        [1.0, 0.79, 0.5, 0.78],
        [0.79, 1.0, 0.95, 0.1],
        [0.5, 0.95, 1.0, 0.2],
        [0.78, 0.1, 0.2, 1.0],
    ]
    assert filter_duplicates(["a", "b", "c", "d"], sim) == [True, False, True, True]
    assert filter_duplicates(["a", "b", "a", "d"], sim) == [True, False, False, True]
    assert filter_duplicates(["a", "b", "c", "d"], sim, threshold=0.99) == [True] * 4
    with pytest.raises(ValueError, match="4 x 4"):
        filter_duplicates(["a", "b", "c", "d"], sim[:3])


def test_filter_duplicates_against_chromas_matrix_pass() -> None:
    # Chroma: exact repeats removed first, then one pass over the remaining rows' matrix.
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 9))
        v = rng.normal(size=(n, 3))
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        m = v @ v.T
        texts = [str(int(x)) for x in rng.integers(0, 5, size=n)]
        firsts = [i for i, t in enumerate(texts) if texts.index(t) == i]
        sub = m[np.ix_(firsts, firsts)]
        remaining = np.ones(len(firsts), dtype=bool)
        for i in range(len(firsts)):
            if remaining[i]:
                for j in range(i + 1, len(firsts)):
                    if remaining[j] and sub[i, j] > 0.78:
                        remaining[j] = False
        expected = [False] * n
        for k, i in enumerate(firsts):
            expected[i] = bool(remaining[k])
        assert filter_duplicates(texts, m.tolist()) == expected


def test_locate_excerpt_prefers_the_window_and_never_invents() -> None:
    text = "one two three. " * 3 + "four five six."
    assert locate_excerpt(text, "one two", near=(15, 30)).start == 15
    assert locate_excerpt(text, "one two").start == 0
    assert locate_excerpt(text, "ONE  two", near=(30, 45)).start == 30
    assert locate_excerpt(text, "seven eight nine") is None
    assert locate_excerpt(text, "   ") is None
    m = locate_excerpt(text, "four fife six.")
    assert m is not None and text[m.start : m.end] == "four five six." and m.method == "fuzzy"
    assert locate_excerpt(text, "four fife six.", min_score=0.99) is None
    m = locate_excerpt("Il a dit \u00ab oui \u00bb\u2026 puis", 'dit " oui "... puis')
    assert m is not None and m.method == "normalised" and (m.start, m.end) == (5, 22)


def test_estimate_counts_the_prompts_sent(tmp_path: Path) -> None:
    sent: list[str] = []

    def model(prompt: str) -> str:
        sent.append(prompt)
        return "no JSON here"

    llm = LLM(model, tokenizer=len)
    est = estimate_questions(CORPORA, llm, per_corpus=4, seed=3)
    ds = generate_questions(CORPORA, llm, per_corpus=4, seed=3)
    assert est.calls == len(sent) == llm.usage.calls == 8
    assert est.details["earlier_questions"] == 2 * (0 + 1 + 2 + 3)
    # nothing was kept, so no earlier question was listed: the counts differ by the allowance
    assert est.prompt_tokens - QUESTION_ALLOWANCE * 12 == llm.usage.prompt_tokens
    assert ds.questions == () and ds.metadata["report"]["unparsable"] == 8


def test_windows_are_seeded(tmp_path: Path) -> None:
    long = " ".join(f"w{i}" for i in range(3000))
    shown: list[str] = []
    gen = LLM(lambda p: shown.append(p) or "{}", tokenizer=len)
    generate_questions({"d": long}, gen, per_corpus=3, seed=1, window=500)
    again: list[str] = []
    gen2 = LLM(lambda p: again.append(p) or "{}", tokenizer=len)
    generate_questions({"d": long}, gen2, per_corpus=3, seed=1, window=500)
    other: list[str] = []
    gen3 = LLM(lambda p: other.append(p) or "{}", tokenizer=len)
    generate_questions({"d": long}, gen3, per_corpus=3, seed=2, window=500)
    assert shown == again != other
    assert len({p[-500:] for p in shown}) == 3


def test_bad_arguments_name_themselves(tmp_path: Path) -> None:
    ok = LLM(lambda p: "{}")
    with pytest.raises(TypeError, match="corpora must be a mapping"):
        generate_questions(["text"], ok)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="corpora must not be empty"):
        generate_questions({}, ok)
    with pytest.raises(ValueError, match="per_corpus must be an int >= 1"):
        generate_questions({"d": "x"}, ok, per_corpus=0)
    with pytest.raises(ValueError, match="excerpt_threshold"):
        generate_questions({"d": "x"}, ok, excerpt_threshold=2)
    with pytest.raises(TypeError, match="llm must be"):
        generate_questions({"d": "x"}, 42)
    with pytest.raises(ValueError, match="has no \\{document\\} field"):
        generate_questions({"d": "x"}, ok, prompt="no fields {previous}")
    with pytest.raises(FileNotFoundError, match="corpora: no such"):
        read_corpora(tmp_path / "missing")
    with pytest.raises(ValueError, match="no file"):
        read_corpora(tmp_path)


def test_reads_a_folder(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(SOLAR, encoding="utf-8")
    (tmp_path / "skip.bin").write_bytes(b"\0")
    answers = iter([_answer("What do panels do?", "Solar panels turn sunlight")])
    ds = generate_questions(tmp_path, LLM(lambda p: next(answers)), per_corpus=1)
    assert list(ds.corpora) == ["a.md"] and ds.questions[0].references[0].start == 0
